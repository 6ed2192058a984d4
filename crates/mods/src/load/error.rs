//! Why a folder could not be loaded as a mod (SPEC §6 "A mod").

use std::path::PathBuf;

/// Why a folder could not be loaded as a mod (SPEC §6 "A mod"). Its `Display` is the one
/// line the session writes: the folder as given, then the file (relative to the plugin
/// folder, with line and column where there is one) and the reason, e.g.
/// `mods/yes-man: hooks/register.ts:3:14: Unexpected token`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// The folder, or a file of it, could not be read.
    #[error("{}: {}", folder.display(), io_place(file, reason))]
    Io {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder (empty: the folder itself).
        file: String,
        /// The system's reason.
        reason: String,
    },
    /// The path is not a folder.
    #[error("{}: not a folder", folder.display())]
    NotAFolder {
        /// The path, as given.
        folder: PathBuf,
    },
    /// No `.claude-plugin/plugin.json`.
    #[error("{}: no .claude-plugin/plugin.json: a mod is a plugin folder with a manifest", folder.display())]
    NoManifest {
        /// The plugin folder, as given.
        folder: PathBuf,
    },
    /// No `hooks/hooks.json`.
    #[error("{}: no hooks/hooks.json: a mod names its hooks module there, under `modules`", folder.display())]
    NoHooksFile {
        /// The plugin folder, as given.
        folder: PathBuf,
    },
    /// A JSON file (the manifest or `hooks/hooks.json`) is not JSON.
    #[error("{}: {file}:{line}:{column}: not JSON: {reason}", folder.display())]
    BadJson {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's reason.
        reason: String,
    },
    /// The manifest is JSON but not a manifest (no string `name`, a field of the wrong type).
    #[error("{}: {file}: {reason}", folder.display())]
    BadManifest {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// `.claude-plugin/plugin.json`.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// `hooks/hooks.json`'s `modules` is not an array of exactly one path.
    #[error("{}: {file}: {reason}", folder.display())]
    BadModules {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// `hooks/hooks.json`.
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// The hooks module `modules` names does not exist.
    #[error("{}: {file} names {path}, but {target} is not a file", folder.display())]
    ModuleMissing {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// `hooks/hooks.json`.
        file: String,
        /// The path as written in `modules`.
        path: String,
        /// Where it leads, relative to the plugin folder.
        target: String,
    },
    /// A path (an import, or `modules[0]`) leads out of the plugin folder, lexically or
    /// through a symbolic link.
    #[error("{}: {file} imports {specifier}, which leaves the plugin folder", folder.display())]
    OutsideFolder {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The importing file (or `hooks/hooks.json`), relative to the plugin folder.
        file: String,
        /// The specifier (or path) as written.
        specifier: String,
    },
    /// An import of a package, a Node built-in, a URL or an absolute path: a mod imports
    /// only its own files by relative path, and `claude-code`.
    #[error(
        "{}: {file} imports {specifier}: only relative paths (./, ../) inside the plugin folder and claude-code can be imported",
        folder.display()
    )]
    BareImport {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The importing file, relative to the plugin folder.
        file: String,
        /// The specifier as written.
        specifier: String,
    },
    /// A relative import that names no file.
    #[error(
        "{}: {file} imports {specifier}, which names no file (tried {specifier}, with .ts .tsx .mts .cts .js .mjs .cjs .jsx, and {specifier}/index.*)",
        folder.display()
    )]
    Unresolved {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The importing file, relative to the plugin folder.
        file: String,
        /// The specifier as written.
        specifier: String,
    },
    /// An import (or `modules[0]`) names a file that is not a loadable module.
    #[error(
        "{}: {file} imports {specifier}: {target} is not a loadable module (.ts .tsx .mts .cts .js .mjs .cjs .jsx)",
        folder.display()
    )]
    NotLoadable {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The importing file (or `hooks/hooks.json`), relative to the plugin folder.
        file: String,
        /// The specifier (or path) as written.
        specifier: String,
        /// The file it names, relative to the plugin folder.
        target: String,
    },
    /// A module imports names at run time from `claude-code` (or re-exports them): the
    /// engine provides none (only type-only imports of it may remain).
    #[error(
        "{}: {file}:{line}:{column}: imports {names} from {specifier}, which the engine does not provide at run time (only types may be imported from it)",
        folder.display()
    )]
    EngineNames {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The importing file, relative to the plugin folder.
        file: String,
        /// 1-based line of the declaration.
        line: usize,
        /// 1-based column of the declaration.
        column: usize,
        /// `claude-code` or `claude-code/...`.
        specifier: String,
        /// The names, comma-separated (`atom, read`; `*` for `export *`).
        names: String,
    },
    /// A dynamic `import()`.
    #[error(
        "{}: {file}:{line}:{column}: dynamic import() is not supported: a mod's imports are static",
        folder.display()
    )]
    DynamicImport {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A name the host reserves for itself (SPEC §6 "Limits": the `catch`
    /// instrumentation).
    #[error(
        "{}: {file}:{line}:{column}: the name {name} is reserved for the mod host (every name starting with __secDefault is)",
        folder.display()
    )]
    Reserved {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The name.
        name: String,
    },
    /// TypeScript's `import x = require('...')`.
    #[error(
        "{}: {file}:{line}:{column}: import ... = require() is not supported: modules load as ES modules (use import ... from)",
        folder.display()
    )]
    ImportRequire {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// TypeScript's `export = value` (CommonJS; no `module.exports` exists at run time).
    #[error(
        "{}: {file}:{line}:{column}: export = ... is not supported: modules load as ES modules (use export default)",
        folder.display()
    )]
    ExportAssignment {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
    },
    /// A syntax error (the parser's first).
    #[error("{}: {file}:{line}:{column}: {message}", folder.display())]
    Syntax {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's message.
        message: String,
    },
    /// An error compiling the module (after parsing: scopes, or the TypeScript/JSX
    /// transform, e.g. `export =`).
    #[error("{}: {file}:{line}:{column}: {message}", folder.display())]
    Compile {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The compiler's message.
        message: String,
    },
    /// A module file is not UTF-8 text.
    #[error("{}: {file}: not UTF-8 text", folder.display())]
    NotUtf8 {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
    },
    /// SPEC §6 cap: a module file larger than 4 MiB (checked before reading it).
    #[error(
        "{}: {file} is {size} bytes: past the cap of {cap} bytes (4 MiB) a module file",
        folder.display()
    )]
    TooLarge {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// Its size.
        size: u64,
        /// The cap (4 MiB).
        cap: u64,
    },
    /// SPEC §6 cap: the module graph would hold more than 512 files.
    #[error(
        "{}: {file} imports {specifier}: the module graph would hold more than {cap} files (the cap)",
        folder.display()
    )]
    TooManyFiles {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The importing file, relative to the plugin folder.
        file: String,
        /// The import that would add the file past the cap.
        specifier: String,
        /// The cap (512).
        cap: usize,
    },
    /// SPEC §6 cap: code nested deeper than 2,000 (the pre-scan's measure), refused before
    /// parsing.
    #[error("{}: {file}:{line}: code nested too deep to scan: more than {cap} scopes", folder.display())]
    TooDeep {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line where the nesting passed the cap.
        line: usize,
        /// The cap (2000).
        cap: u32,
    },
    /// The pre-scan could not bound the nesting: too many readings of `/` (regular
    /// expression or division) or `<` (JSX or type) stayed open at once.
    #[error(
        "{}: {file}:{line}: code too ambiguous to scan for nesting (regular expressions or JSX the scanner cannot tell apart); refused before parsing",
        folder.display()
    )]
    Ambiguous {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// The file, relative to the plugin folder.
        file: String,
        /// 1-based line.
        line: usize,
    },
    /// The loader itself failed (its thread could not start, or the compiler panicked).
    #[error("{}: {reason}", folder.display())]
    Internal {
        /// The plugin folder, as given.
        folder: PathBuf,
        /// What failed.
        reason: String,
    },
}

fn io_place(file: &str, reason: &str) -> String {
    if file.is_empty() {
        format!("cannot read: {reason}")
    } else {
        format!("{file}: cannot read: {reason}")
    }
}
