//! Loading a mod folder (SPEC §6 "A mod"): the manifest, `hooks/hooks.json` with exactly
//! one module, the module graph (relative imports inside the plugin folder, the engine's
//! `claude-code` modules), the caps (4 MiB a file, 512 files a graph, nesting 2,000
//! deep, checked before parsing), and TypeScript/JSX compiled to JavaScript.

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A mod folder, read and compiled: what the runtime evaluates (SPEC §6 "A mod").
#[derive(Debug, Clone)]
pub struct ModSource {
    /// The plugin folder (the folder holding `.claude-plugin/plugin.json`), canonical.
    pub root: PathBuf,
    /// The manifest, `.claude-plugin/plugin.json`.
    pub manifest: Manifest,
    /// The key of the hooks module (`hooks/register.ts`): `modules[0]` of
    /// `hooks/hooks.json`, resolved.
    pub entry: String,
    /// Every module of the graph by key: its path relative to `root`, `/`-separated.
    pub modules: BTreeMap<String, Module>,
}

/// What of `.claude-plugin/plugin.json` the host reads (SPEC §6; reference §1.2).
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// `name`.
    pub name: String,
    /// `version`, when given.
    pub version: Option<String>,
    /// `userConfig`: option name → its declaration (`type`, `default`, `required`, ...).
    pub user_config: Map<String, Value>,
    /// `dependencies`: the plugins this one runs before (ids or names, as written).
    pub dependencies: Vec<String>,
    /// The whole manifest as read.
    pub raw: Value,
}

/// One compiled module of a graph.
#[derive(Debug, Clone)]
pub struct Module {
    /// The file it was read from.
    pub path: PathBuf,
    /// Its JavaScript (an ES module), types erased, JSX compiled to `h`/`Fragment`.
    pub js: String,
    /// Each import specifier it holds (static `import`, `export ... from`), resolved.
    pub imports: BTreeMap<String, Import>,
    /// Maps a position of `js` back to the source file's (1-based line and column).
    pub lines: LineMap,
}

/// Where an import specifier leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Import {
    /// Another module of the graph, by key.
    Module(String),
    /// `claude-code` or `claude-code/*`: the engine's own modules (only type-only or
    /// side-effect-free imports of them remain; they load as an empty module).
    Engine,
}

/// Maps a (1-based) line and column of a module's compiled JavaScript to its source's.
#[derive(Debug, Clone, Default)]
pub struct LineMap {
    pub(crate) map: Vec<(u32, u32, u32, u32)>,
}

impl LineMap {
    /// The source file's 1-based `(line, column)` of the compiled JavaScript's `line`
    /// and `column` (1-based), as near as the map knows; `None` when it knows nothing.
    #[must_use]
    pub fn source_position(&self, line: u32, column: u32) -> Option<(u32, u32)> {
        let _ = (line, column, &self.map);
        None
    }
}

/// Why a folder could not be loaded as a mod. Its `Display` is the line the session
/// writes: it names the folder (or file, with line and column) and the reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// Not yet written.
    #[error("{folder}: {reason}")]
    Other {
        /// The plugin folder.
        folder: PathBuf,
        /// Why.
        reason: String,
    },
}

/// Reads and compiles the mod in `folder` (SPEC §6 "A mod").
///
/// # Errors
///
/// [`LoadError`] naming the folder or file and the reason.
pub fn load_folder(folder: &Path) -> Result<ModSource, LoadError> {
    Err(LoadError::Other {
        folder: folder.to_path_buf(),
        reason: "the mod loader is not written yet".to_owned(),
    })
}
