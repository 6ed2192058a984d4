//! Loading a mod folder (SPEC §6 "A mod"): the manifest, `hooks/hooks.json` with exactly
//! one module, the module graph (relative imports inside the plugin folder, the engine's
//! `claude-code` modules), the caps (4 MiB a file, 512 files a graph, nesting 2,000
//! deep, checked before parsing), and TypeScript/JSX compiled to JavaScript.
//!
//! Everything runs on a thread of its own with a large stack ([`COMPILER_STACK`]): the
//! compiler recurses as deep as the code nests, and the pre-scan (`scan`) bounds that
//! nesting before a file is parsed, so no input (up to the 4 MiB cap) can overflow it.

pub(crate) mod caught;
pub(crate) mod compile;
mod error;
mod lines;
mod manifest;
pub(crate) mod resolve;
pub(crate) mod scan;

pub use error::LoadError;
pub use lines::LineMap;
pub use scan::prescan;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
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

/// What of `.claude-plugin/plugin.json` the host reads (SPEC §6; reference §1.2): the
/// workspace's one manifest, read by [`loader::read_manifest`].
pub use loader::Manifest;

/// One compiled module of a graph (SPEC §6 "A mod").
#[derive(Debug, Clone)]
pub struct Module {
    /// The file it was read from (canonical).
    pub path: PathBuf,
    /// Its JavaScript (an ES module), types erased, JSX compiled to `h`/`Fragment`.
    pub js: String,
    /// Each import specifier it holds (static `import`, `export ... from`), resolved.
    pub imports: BTreeMap<String, Import>,
    /// Maps a position of `js` back to the source file's (1-based line and column).
    pub lines: LineMap,
}

/// Where an import specifier leads (SPEC §6 "A mod").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Import {
    /// Another module of the graph, by key.
    Module(String),
    /// `claude-code` or `claude-code/*`: the engine's own modules (only type-only or
    /// side-effect-free imports of them remain; they load as an empty module).
    Engine,
}

/// SPEC §6 cap: the largest module file, in bytes (4 MiB).
pub const MAX_FILE_BYTES: u64 = 4 << 20;

/// SPEC §6 cap: the most files a module graph holds.
pub const MAX_GRAPH_FILES: usize = 512;

/// SPEC §6 cap: how deep code may nest (the pre-scan's measure; see `load::scan`).
pub const MAX_NESTING: u32 = scan::MAX_DEPTH;

/// The stack of the thread that loads and compiles a mod (SPEC §6 caps), in bytes.
///
/// Measured on oxc 0.90 in a debug build (parse, semantic, transform and codegen of one
/// file), at the deepest nesting the pre-scan accepts every recursive construct compiles
/// in 8 MiB (not all in 4 MiB): 2 to 4 KiB of stack per unit of the scan's measure. 256
/// MiB is virtual memory (only the pages touched count), a margin of 32 over that; the
/// tests compile at the cap in 16 MiB. If the system refuses a stack that large,
/// [`COMPILER_STACK_FALLBACK`] is tried.
pub const COMPILER_STACK: usize = 256 << 20;

/// The stack tried when [`COMPILER_STACK`] cannot be had (still a margin of 8).
pub const COMPILER_STACK_FALLBACK: usize = 64 << 20;

/// The suffixes of loadable modules, in the order an extensionless specifier tries them
/// (SPEC §6 "A mod"; reference §1.3).
pub const MODULE_EXTENSIONS: [&str; 8] = ["ts", "tsx", "mts", "cts", "js", "mjs", "cjs", "jsx"];

/// Reads the file `file` (relative to the plugin folder) at `path`, at most
/// [`MAX_FILE_BYTES`], with the workspace's one bounded opener: a FIFO, a device, a
/// socket or a folder there is refused on the opened file, never read, so nothing a
/// mod's folder holds can hang the load (SPEC §2.1 "Reading never hangs", SPEC §6 "A
/// mod" caps). `Ok(None)`: it does not exist.
pub(crate) fn read_capped(
    ctx: &resolve::Ctx<'_>,
    file: &str,
    path: &Path,
) -> Result<Option<Vec<u8>>, LoadError> {
    match boundedfs::read_bounded(path, MAX_FILE_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) => match e.reason {
            boundedfs::Reason::NotFound => Ok(None),
            boundedfs::Reason::TooLarge { size, cap } => Err(LoadError::TooLarge {
                folder: ctx.folder(),
                file: file.to_owned(),
                size,
                cap,
            }),
            reason => Err(LoadError::Io {
                folder: ctx.folder(),
                file: file.to_owned(),
                reason: reason.to_string(),
            }),
        },
    }
}

/// Reads and compiles the mod in `folder` (SPEC §6 "A mod").
///
/// The work runs on a thread of its own with a [`COMPILER_STACK`]-sized stack, so the
/// calling thread's stack does not matter; the call blocks until it is done.
///
/// # Errors
///
/// [`LoadError`] naming the folder or file and the reason: no or a malformed manifest or
/// `hooks/hooks.json`, an import that cannot load (outside the folder, bare, dynamic,
/// unresolved, a runtime name of `claude-code`), a cap passed, a syntax or compile error.
pub fn load_folder(folder: &Path) -> Result<ModSource, LoadError> {
    let owned = folder.to_path_buf();
    on_compiler_thread(folder, move || load_on_this_thread(&owned))
}

/// Runs `work` on a thread of its own with a [`COMPILER_STACK`]-sized stack and waits
/// for it; `folder` is what an error of the thread itself names.
pub(crate) fn on_compiler_thread<T: Send + 'static>(
    folder: &Path,
    work: impl FnOnce() -> Result<T, LoadError> + Send + Clone + 'static,
) -> Result<T, LoadError> {
    let owned = folder.to_path_buf();
    let spawn = |stack: usize| {
        let work = work.clone();
        std::thread::Builder::new()
            .name("mods-load".to_owned())
            .stack_size(stack)
            .spawn(work)
    };
    let handle = match spawn(COMPILER_STACK) {
        Ok(handle) => handle,
        Err(_) => spawn(COMPILER_STACK_FALLBACK).map_err(|e| LoadError::Internal {
            folder: owned.clone(),
            reason: format!("cannot start the compiler thread: {e}"),
        })?,
    };
    handle.join().unwrap_or_else(|_| {
        Err(LoadError::Internal {
            folder: owned.clone(),
            reason: "the compiler failed (it panicked)".to_owned(),
        })
    })
}

/// The work of [`load_folder`], on the calling thread (which must have a large stack).
fn load_on_this_thread(folder: &Path) -> Result<ModSource, LoadError> {
    let meta = std::fs::metadata(folder).map_err(|e| LoadError::Io {
        folder: folder.to_path_buf(),
        file: String::new(),
        reason: e.to_string(),
    })?;
    if !meta.is_dir() {
        return Err(LoadError::NotAFolder {
            folder: folder.to_path_buf(),
        });
    }
    let root = folder.canonicalize().map_err(|e| LoadError::Io {
        folder: folder.to_path_buf(),
        file: String::new(),
        reason: e.to_string(),
    })?;
    let ctx = resolve::Ctx {
        folder,
        root: &root,
    };
    let manifest = manifest::read_manifest(&ctx)?;
    let entry = manifest::read_entry(&ctx)?;

    let mut modules: BTreeMap<String, Module> = BTreeMap::new();
    let mut queue: VecDeque<resolve::Found> = VecDeque::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    seen.insert(entry.key.clone());
    queue.push_back(entry.clone());
    while let Some(file) = queue.pop_front() {
        let compiled = compile::compile_file(&ctx, &file.key, &file.path)?;
        let mut imports = BTreeMap::new();
        for specifier in compiled.imports {
            let (import, found) = resolve::resolve(&ctx, &file.key, &specifier)?;
            if let Some(found) = found {
                if !seen.contains(&found.key) {
                    if seen.len() >= MAX_GRAPH_FILES {
                        return Err(LoadError::TooManyFiles {
                            folder: folder.to_path_buf(),
                            file: file.key.clone(),
                            specifier,
                            cap: MAX_GRAPH_FILES,
                        });
                    }
                    seen.insert(found.key.clone());
                    queue.push_back(found);
                }
            }
            imports.insert(specifier, import);
        }
        modules.insert(
            file.key,
            Module {
                path: file.path,
                js: compiled.js,
                imports,
                lines: compiled.lines,
            },
        );
    }
    Ok(ModSource {
        root,
        manifest,
        entry: entry.key,
        modules,
    })
}
