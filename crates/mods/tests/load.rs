//! Loading mod folders (SPEC §6 "A mod"): the manifest, `hooks/hooks.json`, the module
//! graph, the caps, and TypeScript/JSX compiled to JavaScript.

// Helpers of an integration test fail loudly, like its tests (see clippy.toml).
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;
use mods::load::{load_folder, Import, LoadError, ModSource, MAX_FILE_BYTES};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn load_ok(folder: &Path) -> ModSource {
    match load_folder(folder) {
        Ok(m) => m,
        Err(e) => panic!("{e}"),
    }
}

fn load_err(folder: &Path) -> LoadError {
    match load_folder(folder) {
        Ok(m) => panic!(
            "{} loaded: {:?}",
            folder.display(),
            m.modules.values().map(|m| &m.js).collect::<Vec<_>>()
        ),
        Err(e) => e,
    }
}

/// Files of a folder: `(path, text)`.
type Files<'a> = &'a [(&'a str, &'a str)];

/// A fresh folder holding `files` (path, text).
fn folder_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::folder_with("load-tests", name, files)
}

const MANIFEST: &str = r#"{ "name": "m" }"#;
const HOOKS: &str = r#"{ "modules": ["./register.ts"] }"#;

/// A mod whose hooks module is `hooks/register.ts`, plus `more` files.
fn mod_with(name: &str, register: &str, more: &[(&str, &str)]) -> PathBuf {
    let mut files = vec![
        (".claude-plugin/plugin.json", MANIFEST),
        ("hooks/hooks.json", HOOKS),
        ("hooks/register.ts", register),
    ];
    files.extend_from_slice(more);
    folder_with(name, &files)
}

/// A mod whose hooks module is `hooks/register.<ext>` holding `src`.
fn mod_file(name: &str, ext: &str, src: &str) -> PathBuf {
    let hooks = format!(r#"{{ "modules": ["./register.{ext}"] }}"#);
    let file = format!("hooks/register.{ext}");
    folder_with(
        name,
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", &hooks),
            (&file, src),
        ],
    )
}

fn shown(folder: &Path) -> String {
    folder.display().to_string()
}

// ---------------------------------------------------------------------------------------
// A TypeScript mod across several files.

#[test]
fn a_typescript_mod_across_files_compiles() {
    let m = load_ok(&fixture("ts-mod"));
    assert_eq!(m.root, fixture("ts-mod").canonicalize().unwrap());
    assert_eq!(m.entry, "hooks/register.ts");
    assert_eq!(
        m.modules.keys().map(String::as_str).collect::<Vec<_>>(),
        ["hooks/lib/index.ts", "hooks/register.ts", "hooks/util.ts"]
    );

    // The manifest.
    assert_eq!(m.manifest.name, "ts-mod");
    assert_eq!(m.manifest.version.as_deref(), Some("1.2.3"));
    assert_eq!(m.manifest.dependencies, ["sec-default@builtin"]);
    assert_eq!(m.manifest.user_config["level"]["default"], "low");
    assert_eq!(
        m.manifest.raw["description"],
        "A TypeScript mod across several files (load tests)."
    );

    let register = &m.modules["hooks/register.ts"];
    assert_eq!(
        register.path,
        fixture("ts-mod/hooks/register.ts").canonicalize().unwrap()
    );
    // `./util.js` loads `util.ts`; `./lib` the folder's `index.ts`; `import type` from
    // claude-code vanished.
    assert_eq!(register.imports.len(), 2);
    assert_eq!(
        register.imports["./util.js"],
        Import::Module("hooks/util.ts".into())
    );
    assert_eq!(
        register.imports["./lib"],
        Import::Module("hooks/lib/index.ts".into())
    );
    let js = &register.js;
    assert!(!js.contains("claude-code"), "{js}");
    assert!(
        !js.contains("interface") && !js.contains(": Seen"),
        "types erased: {js}"
    );
    assert!(
        js.contains("import { Level, describe } from \"./util.js\""),
        "{js}"
    );
    // The namespace, compiled.
    assert!(js.contains("(function(_Counter)"), "{js}");
    assert!(js.contains("_Counter.bump = bump"), "{js}");
    assert!(js.contains("export function register(on, options)"), "{js}");

    let util = &m.modules["hooks/util.ts"].js;
    // The enum, compiled; the interface and the generic gone.
    assert!(
        util.contains("Level[Level[\"High\"] = 5] = \"High\""),
        "{util}"
    );
    assert!(
        util.contains("export function describe(level, what)"),
        "{util}"
    );

    let lib = &m.modules["hooks/lib/index.ts"].js;
    // Parameter properties.
    assert!(lib.contains("this.first = first;"), "{lib}");
    assert!(lib.contains("this.label = label;"), "{lib}");
    assert!(lib.contains("constructor(first, label = \"box\")"), "{lib}");
    assert!(!lib.contains("<T>") && !lib.contains("private"), "{lib}");
}

#[test]
fn jsx_compiles_to_h_and_fragment() {
    let m = load_ok(&fixture("tsx-mod"));
    assert_eq!(m.entry, "hooks/register.tsx");
    let js = &m.modules["hooks/register.tsx"].js;
    assert!(
        js.contains(r#"h("span", { className: "badge" }, props.text)"#),
        "{js}"
    );
    assert!(
        js.contains("h(Fragment, null, h(Badge, { text: \"it's (not) code\" })"),
        "{js}"
    );
    assert!(!js.contains("React"), "{js}");
}

#[test]
fn the_line_map_names_the_source_line() {
    let m = load_ok(&fixture("ts-mod"));
    let register = &m.modules["hooks/register.ts"];
    let src = std::fs::read_to_string(fixture("ts-mod/hooks/register.ts")).unwrap();
    let src_line = src
        .lines()
        .position(|l| l.contains("throw new Error"))
        .unwrap()
        + 1;
    let js_line = register
        .js
        .lines()
        .position(|l| l.contains("throw new Error"))
        .unwrap()
        + 1;
    let js_col = register
        .js
        .lines()
        .nth(js_line - 1)
        .unwrap()
        .find("throw")
        .unwrap()
        + 1;
    let (line, column) = register
        .lines
        .source_position(
            u32::try_from(js_line).unwrap(),
            u32::try_from(js_col).unwrap(),
        )
        .unwrap();
    assert_eq!(line as usize, src_line);
    let src_col = src
        .lines()
        .nth(src_line - 1)
        .unwrap()
        .find("throw")
        .unwrap()
        + 1;
    assert_eq!(column as usize, src_col);
    // Every line of the register function maps into the source's.
    let reg = register
        .js
        .lines()
        .position(|l| l.contains("export function register"))
        .unwrap();
    let (l, _) = register
        .lines
        .source_position(u32::try_from(reg + 1).unwrap(), 1)
        .unwrap();
    assert!(src
        .lines()
        .nth(l as usize - 1)
        .unwrap()
        .contains("export function register"));
    assert!(register.lines.len() > 10);
}

#[test]
fn javascript_modules_load_as_es_modules() {
    // .cjs is an ES module too: `require` is just an unknown name at run time.
    let dir = folder_with(
        "js",
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", r#"{ "modules": ["./register.mjs"] }"#),
            ("hooks/register.mjs", "import { a } from './a.cjs';\nimport { b } from './b';\nexport function register(on) { on('x', () => a + b); }\n"),
            ("hooks/a.cjs", "export const a = typeof require;\n"),
            ("hooks/b.jsx", "export const b = <i>b</i>;\n"),
        ],
    );
    let m = load_ok(&dir);
    assert_eq!(
        m.modules["hooks/register.mjs"].imports["./b"],
        Import::Module("hooks/b.jsx".into())
    );
    assert!(m.modules["hooks/a.cjs"]
        .js
        .contains("export const a = typeof require"));
    assert!(m.modules["hooks/b.jsx"].js.contains(r#"h("i", null, "b")"#));
}

#[test]
fn engine_imports_of_types_and_side_effects_load() {
    let dir = mod_with(
        "engine-ok",
        "import type { On } from 'claude-code';\nimport { type Options } from 'claude-code/types';\nimport 'claude-code';\nexport function register(on: On, o: Options) {}\n",
        &[],
    );
    let m = load_ok(&dir);
    let register = &m.modules["hooks/register.ts"];
    assert_eq!(register.imports.len(), 1);
    assert_eq!(register.imports["claude-code"], Import::Engine);
}

#[test]
fn a_shared_module_loads_once() {
    let dir = mod_with(
        "diamond",
        "import { a } from './a';\nimport { b } from './b';\nexport function register() { return a + b; }\n",
        &[
            ("hooks/a.ts", "import { c } from './c';\nexport const a = c;\n"),
            ("hooks/b.ts", "import { c } from './c.js';\nexport const b = c;\n"),
            ("hooks/c.ts", "import { a } from './a';\nexport const c = 1; export const d = () => a;\n"),
        ],
    );
    let m = load_ok(&dir);
    assert_eq!(m.modules.len(), 4);
    assert_eq!(
        m.modules["hooks/c.ts"].imports["./a"],
        Import::Module("hooks/a.ts".into())
    );
}

#[test]
fn an_ordinary_thousand_line_mod_is_never_refused() {
    let m = load_ok(&fixture("big-mod"));
    let js = &m.modules["hooks/register.ts"].js;
    assert!(js.lines().count() > 500);
    // The same code without semicolons, and as .tsx, and twice as long.
    let src = std::fs::read_to_string(fixture("big-mod/hooks/register.ts")).unwrap();
    let no_semi: String = src
        .lines()
        .map(|l| l.strip_suffix(';').unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    load_ok(&mod_file("big-nosemi", "ts", &no_semi));
    load_ok(&mod_file(
        "big-tsx",
        "tsx",
        &src.replace("<{ id: string }>(", "<{ id: string },>("),
    ));
    let double = format!(
        "{src}\nnamespace Again {{\n{}\n}}\n",
        src.replace("import type", "// import type")
            .replace("export ", "")
    );
    load_ok(&mod_file("big-double", "ts", &double));
}

// ---------------------------------------------------------------------------------------
// The folder, the manifest and hooks/hooks.json.

#[test]
fn bad_folders_and_manifests() {
    let dir = folder_with("no-manifest", &[("hooks/hooks.json", HOOKS)]);
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: no .claude-plugin/plugin.json: a mod is a plugin folder with a manifest",
            shown(&dir)
        )
    );

    let dir = folder_with(
        "bad-json",
        &[(
            ".claude-plugin/plugin.json",
            "{\n  \"name\": \"x\",\n  oops\n}",
        )],
    );
    let e = load_err(&dir);
    assert_eq!(
        e.to_string(),
        format!(
            "{}: .claude-plugin/plugin.json:3:3: not JSON: key must be a string",
            shown(&dir)
        )
    );
    assert!(matches!(
        e,
        LoadError::BadJson {
            line: 3,
            column: 3,
            ..
        }
    ));

    for (text, reason) in [
        ("[1]", "not a JSON object"),
        ("{}", "no `name`: a plugin manifest names its plugin"),
        (r#"{"name": 3}"#, "`name` is not a string"),
        (r#"{"name": " "}"#, "`name` is empty"),
        (
            r#"{"name": "x", "version": 1}"#,
            "`version` is not a string",
        ),
        (
            r#"{"name": "x", "userConfig": []}"#,
            "`userConfig` is not an object",
        ),
        (
            r#"{"name": "x", "dependencies": "a"}"#,
            "`dependencies` is not an array of strings",
        ),
        (
            r#"{"name": "x", "dependencies": ["a", 2]}"#,
            "`dependencies[1]` is not a string",
        ),
    ] {
        let dir = folder_with(
            "bad-manifest",
            &[
                (".claude-plugin/plugin.json", text),
                ("hooks/hooks.json", HOOKS),
            ],
        );
        assert_eq!(
            load_err(&dir).to_string(),
            format!("{}: .claude-plugin/plugin.json: {reason}", shown(&dir)),
            "{text}"
        );
    }

    let dir = folder_with("not-a-folder", &[("file", "x")]).join("file");
    assert_eq!(
        load_err(&dir).to_string(),
        format!("{}: not a folder", shown(&dir))
    );
    let dir = Path::new("/nonexistent/mods/x");
    assert!(load_err(dir)
        .to_string()
        .starts_with("/nonexistent/mods/x: cannot read: "));
}

#[test]
fn bad_hooks_json() {
    let dir = folder_with("no-hooks", &[(".claude-plugin/plugin.json", MANIFEST)]);
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: no hooks/hooks.json: a mod names its hooks module there, under `modules`",
            shown(&dir)
        )
    );
    for (text, reason) in [
        (
            "{\"hooks\": {}}",
            "no `modules`: it names the hooks module, as an array of one path",
        ),
        (
            "{\"modules\": \"./register.ts\"}",
            "`modules` is not an array: it holds exactly one path",
        ),
        (
            "{\"modules\": []}",
            "`modules` is empty: it holds exactly one path",
        ),
        (
            "{\"modules\": [\"./register.ts\", \"./other.ts\"]}",
            "`modules` holds 2 entries: a mod has exactly one hooks module",
        ),
        (
            "{\"modules\": [3]}",
            "`modules[0]` is not a string: it is a path",
        ),
        ("{\"modules\": [\"\"]}", "`modules[0]` is an empty path"),
        ("[]", "not a JSON object"),
    ] {
        let dir = folder_with(
            "bad-modules",
            &[
                (".claude-plugin/plugin.json", MANIFEST),
                ("hooks/hooks.json", text),
                ("hooks/register.ts", ""),
            ],
        );
        assert_eq!(
            load_err(&dir).to_string(),
            format!("{}: hooks/hooks.json: {reason}", shown(&dir)),
            "{text}"
        );
    }

    let dir = folder_with(
        "hooks-not-json",
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", "{\"modules\": ["),
        ],
    );
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/hooks.json:1:13: not JSON: EOF while parsing a list",
            shown(&dir)
        )
    );

    let dir = folder_with(
        "module-missing",
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", HOOKS),
        ],
    );
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/hooks.json names ./register.ts, but hooks/register.ts is not a file",
            shown(&dir)
        )
    );

    let dir = folder_with(
        "module-outside",
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", r#"{"modules": ["../../x.ts"]}"#),
        ],
    );
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/hooks.json imports ../../x.ts, which leaves the plugin folder",
            shown(&dir)
        )
    );

    let dir = folder_with(
        "module-json",
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", r#"{"modules": ["./register.json"]}"#),
            ("hooks/register.json", "{}"),
        ],
    );
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/hooks.json imports ./register.json: hooks/register.json is not a loadable module (.ts .tsx .mts .cts .js .mjs .cjs .jsx)",
            shown(&dir)
        )
    );
}

// ---------------------------------------------------------------------------------------
// The module graph.

#[test]
fn imports_that_cannot_load() {
    let cases: &[(&str, Files, &str)] = &[
        (
            "import x from '../../etc/passwd';\nexport const y = x;\n",
            &[],
            "hooks/register.ts imports ../../etc/passwd, which leaves the plugin folder",
        ),
        (
            "import { readFileSync } from 'fs';\nexport const r = readFileSync;\n",
            &[],
            "hooks/register.ts imports fs: only relative paths (./, ../) inside the plugin folder and claude-code can be imported",
        ),
        (
            "export * from 'node:fs';\n",
            &[],
            "hooks/register.ts imports node:fs: only relative paths (./, ../) inside the plugin folder and claude-code can be imported",
        ),
        (
            "import _ from 'lodash';\nexport const l = _;\n",
            &[],
            "hooks/register.ts imports lodash: only relative paths (./, ../) inside the plugin folder and claude-code can be imported",
        ),
        (
            "import x from '/etc/passwd';\nexport const y = x;\n",
            &[],
            "hooks/register.ts imports /etc/passwd: only relative paths (./, ../) inside the plugin folder and claude-code can be imported",
        ),
        (
            "import { a } from './missing';\nexport const b = a;\n",
            &[],
            "hooks/register.ts imports ./missing, which names no file (tried ./missing, with .ts .tsx .mts .cts .js .mjs .cjs .jsx, and ./missing/index.*)",
        ),
        (
            "import data from './data.json';\nexport const d = data;\n",
            &[("hooks/data.json", "{}")],
            "hooks/register.ts imports ./data.json: hooks/data.json is not a loadable module (.ts .tsx .mts .cts .js .mjs .cjs .jsx)",
        ),
        (
            "export { x } from './x';\n",
            &[("hooks/x.ts", "import y from './deeper/y';\nexport const x = y;\n"), ("hooks/deeper/y.ts", "import { z } from 'zod';\nexport default z;\n")],
            "hooks/deeper/y.ts imports zod: only relative paths (./, ../) inside the plugin folder and claude-code can be imported",
        ),
        (
            "export async function register() {\n  const m = await import('./x');\n}\n",
            &[("hooks/x.ts", "")],
            "hooks/register.ts:2:19: dynamic import() is not supported: a mod's imports are static",
        ),
        (
            "import fs = require('fs');\nexport const f = fs;\n",
            &[],
            "hooks/register.ts:1:1: import ... = require() is not supported: modules load as ES modules (use import ... from)",
        ),
        (
            "import { atom, read as r } from 'claude-code';\nexport const s = atom(r);\n",
            &[],
            "hooks/register.ts:1:1: imports atom, read from claude-code, which the engine does not provide at run time (only types may be imported from it)",
        ),
        (
            "import type { On } from 'claude-code';\nexport { derive } from 'claude-code/state';\n",
            &[],
            "hooks/register.ts:2:1: imports derive from claude-code/state, which the engine does not provide at run time (only types may be imported from it)",
        ),
        (
            "export * from 'claude-code';\n",
            &[],
            "hooks/register.ts:1:1: imports * from claude-code, which the engine does not provide at run time (only types may be imported from it)",
        ),
        (
            "export function register(on) {\n  on('x', () => {\n    return 1 +;\n  });\n}\n",
            &[],
            "hooks/register.ts:3:15: Unexpected token",
        ),
        (
            "namespace N { export let x = 1; }\n",
            &[],
            "hooks/register.ts:1:26: Namespaces exporting non-const are not supported by Babel. Change to const or see: https://babeljs.io/docs/en/babel-plugin-transform-typescript",
        ),
        (
            "const a = 1;\nexport = a;\n",
            &[],
            "hooks/register.ts:2:1: export = ... is not supported: modules load as ES modules (use export default)",
        ),
    ];
    for (register, more, reason) in cases {
        let dir = mod_with("bad-import", register, more);
        assert_eq!(
            load_err(&dir).to_string(),
            format!("{}: {reason}", shown(&dir)),
            "{register}"
        );
    }
}

#[test]
fn a_file_not_utf8_is_refused() {
    let dir = mod_with("not-utf8", "import './x';\n", &[]);
    std::fs::write(dir.join("hooks/x.ts"), [0x66, 0xff, 0xfe]).unwrap();
    assert_eq!(
        load_err(&dir).to_string(),
        format!("{}: hooks/x.ts: not UTF-8 text", shown(&dir))
    );
}

// ---------------------------------------------------------------------------------------
// What is not a regular file (SPEC §2.1 "Reading never hangs"): a FIFO where a file of
// the mod is expected would hang a blocking open for ever; each is a load error naming
// the file and what it is, answered at once.

/// Makes a FIFO at `path` (with the `mkfifo` command: no unsafe code).
fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let made = std::process::Command::new("mkfifo").arg(path).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", path.display());
}

/// The load error of `dir`, within 20 s (a guard: a regression fails, never hangs).
fn load_err_promptly(dir: &Path) -> String {
    let owned = dir.to_path_buf();
    common::within(20, move || load_folder(&owned).map(|_| ()))
        .unwrap_err()
        .to_string()
}

#[cfg(unix)]
#[test]
fn a_fifo_at_any_file_of_the_mod_is_a_load_error_naming_it() {
    for (name, file) in [
        ("fifo-hooks", "hooks/hooks.json"),
        ("fifo-manifest", ".claude-plugin/plugin.json"),
        ("fifo-entry", "hooks/register.ts"),
        ("fifo-import", "hooks/x.ts"),
    ] {
        let dir = mod_with(name, "import './x';\n", &[("hooks/x.ts", "")]);
        mkfifo(&dir.join(file));
        assert_eq!(
            load_err_promptly(&dir),
            format!(
                "{}: {file}: cannot read: it is a FIFO, not a regular file, so it is not read",
                shown(&dir)
            ),
            "{file}"
        );
    }
}

#[cfg(unix)]
#[test]
fn a_device_or_a_folder_where_a_file_of_the_mod_is_expected_is_refused() {
    let dir = mod_with("device-manifest", "", &[]);
    let manifest = dir.join(".claude-plugin/plugin.json");
    std::fs::remove_file(&manifest).unwrap();
    std::os::unix::fs::symlink("/dev/zero", &manifest).unwrap();
    assert_eq!(
        load_err_promptly(&dir),
        format!(
            "{}: .claude-plugin/plugin.json: cannot read: it is a character device, not a regular file, so it is not read",
            shown(&dir)
        )
    );
    let dir = mod_with("folder-hooks", "", &[]);
    std::fs::remove_file(dir.join("hooks/hooks.json")).unwrap();
    std::fs::create_dir(dir.join("hooks/hooks.json")).unwrap();
    assert_eq!(
        load_err_promptly(&dir),
        format!(
            "{}: hooks/hooks.json: cannot read: it is a directory, not a regular file, so it is not read",
            shown(&dir)
        )
    );
}

#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_folder_is_refused() {
    let outside = folder_with(
        "outside",
        &[
            ("secret.ts", "export const s = 1;\n"),
            ("dir/index.ts", "export const d = 1;\n"),
        ],
    );
    let dir = mod_with(
        "symlink",
        "import { s } from './link';\nexport const t = s;\n",
        &[],
    );
    std::os::unix::fs::symlink(outside.join("secret.ts"), dir.join("hooks/link.ts")).unwrap();
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/register.ts imports ./link, which leaves the plugin folder",
            shown(&dir)
        )
    );
    // A linked folder, too.
    let dir = mod_with(
        "symlink-dir",
        "import { d } from './lib/dir';\nexport const t = d;\n",
        &[],
    );
    std::os::unix::fs::symlink(&outside, dir.join("hooks/lib")).unwrap();
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/register.ts imports ./lib/dir, which leaves the plugin folder",
            shown(&dir)
        )
    );
    // The hooks module itself.
    let dir = folder_with(
        "symlink-entry",
        &[
            (".claude-plugin/plugin.json", MANIFEST),
            ("hooks/hooks.json", HOOKS),
        ],
    );
    std::os::unix::fs::symlink(outside.join("secret.ts"), dir.join("hooks/register.ts")).unwrap();
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/hooks.json imports ./register.ts, which leaves the plugin folder",
            shown(&dir)
        )
    );
    // A link inside the folder is fine: the module's key is where it leads.
    let dir = mod_with(
        "symlink-in",
        "import { s } from './link';\nexport const t = s;\n",
        &[("hooks/real.ts", "export const s = 1;\n")],
    );
    std::os::unix::fs::symlink(dir.join("hooks/real.ts"), dir.join("hooks/link.ts")).unwrap();
    let m = load_ok(&dir);
    assert_eq!(
        m.modules["hooks/register.ts"].imports["./link"],
        Import::Module("hooks/real.ts".into())
    );
}

// ---------------------------------------------------------------------------------------
// The caps.

#[test]
fn a_file_past_four_mib_is_refused() {
    let big = format!(
        "export const x = '{}';\n",
        "a".repeat(usize::try_from(MAX_FILE_BYTES).unwrap())
    );
    let dir = mod_with("too-large", "import './big';\n", &[("hooks/big.ts", &big)]);
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/big.ts is {} bytes: past the cap of 4194304 bytes (4 MiB) a module file",
            shown(&dir),
            big.len()
        )
    );
}

#[test]
fn a_four_mib_file_loads() {
    let line = "export const x0 = [1, 2, 3].map((n) => n * 2);\n";
    let mut src = String::new();
    let mut i = 0;
    while src.len() + 64 < usize::try_from(MAX_FILE_BYTES).unwrap() {
        src.push_str(&line.replace("x0", &format!("x{i}")));
        i += 1;
    }
    let m = load_ok(&mod_file("four-mib", "ts", &src));
    assert!(m.modules["hooks/register.ts"].js.len() > 1 << 20);
}

#[test]
fn a_graph_past_512_files_is_refused() {
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 0..512 {
        files.push((
            format!("hooks/f{i}.ts"),
            format!("import './f{}';\n", i + 1),
        ));
    }
    files.push(("hooks/f512.ts".into(), String::new()));
    let more: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    let dir = mod_with("many", "import './f0';\n", &more);
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/f510.ts imports ./f511: the module graph would hold more than 512 files (the cap)",
            shown(&dir)
        )
    );
    // 512 files load.
    std::fs::write(dir.join("hooks/f510.ts"), "").unwrap();
    assert_eq!(load_ok(&dir).modules.len(), 512);
}

#[test]
fn nesting_past_2000_is_refused_naming_the_cap() {
    let src = format!(
        "export const x = 1;\nconst y = {}1{};\n",
        "(".repeat(2001),
        ")".repeat(2001)
    );
    let dir = mod_file("deep", "ts", &src);
    assert_eq!(
        load_err(&dir).to_string(),
        format!(
            "{}: hooks/register.ts:2: code nested too deep to scan: more than 2000 scopes",
            shown(&dir)
        )
    );
    // 2000 loads.
    let src = format!("{}1{};\n", "(".repeat(2000), ")".repeat(2000));
    load_ok(&mod_file("deep-ok", "ts", &src));
}

/// Every construct oxc parses recursively, `n` deep: `(file extension, source)`.
fn nested(n: usize) -> Vec<(&'static str, &'static str, String)> {
    let r = |s: &str| s.repeat(n);
    vec![
        ("paren", "ts", format!("x = {}1{};", r("("), r(")"))),
        ("bracket", "ts", format!("x = {}1{};", r("["), r("]"))),
        ("object", "ts", format!("x = {}1{};", r("{a:"), r("}"))),
        ("block", "ts", format!("{}{}", r("{"), r("}"))),
        ("template", "ts", format!("x = {}{};", r("`${"), r("}`"))),
        ("not", "ts", format!("x = {}1;", r("!"))),
        ("minus", "js", format!("x = {}1;", r("- "))),
        ("typeof", "ts", format!("x = {}1;", r("typeof "))),
        ("void", "js", format!("x = {}1;", r("void "))),
        ("await", "ts", format!("x = {}1;", r("await "))),
        ("new", "ts", format!("x = {}X;", r("new "))),
        (
            "yield",
            "js",
            format!("function* g() {{ x = {}1; }}", r("yield ")),
        ),
        ("spread", "ts", format!("x = {}{};", r("[..."), r("]"))),
        ("assign", "ts", format!("{}1;", r("a="))),
        ("conditional", "ts", format!("x = {}1;", r("a?b:"))),
        ("arrow", "ts", format!("x = {}1;", r("x=>"))),
        ("exponent", "ts", format!("x = {}1;", r("2**"))),
        ("plus", "js", format!("x = {}1;", r("1+"))),
        (
            "ladder",
            "js",
            format!("x = {}1{};", r("a||b&&c|d^e&f==g<h<<i+j*(k**"), r(")")),
        ),
        ("member", "ts", format!("x = a{};", r(".b"))),
        ("call", "ts", format!("x = a{};", r("()"))),
        ("optional", "ts", format!("x = a{};", r("?.b"))),
        ("non-null", "ts", format!("x = a{};", r("!"))),
        ("tagged", "ts", format!("x = a{};", r("`x`"))),
        ("if", "ts", format!("{}x;", r("if(a)"))),
        ("else-if", "ts", format!("{}x;", r("if(a)x;else "))),
        ("else-if-braces", "ts", format!("{}{{}}", r("if(a){}else "))),
        ("while", "js", format!("{}x;", r("while(a)"))),
        ("for", "js", format!("{}x;", r("for(;;)"))),
        ("do", "js", format!("{}x;{}", r("do "), r("while(a);"))),
        ("label", "js", format!("{}x;", r("a:"))),
        (
            "function",
            "ts",
            format!("{}{}", r("function f() {"), r("}")),
        ),
        (
            "arrow-body",
            "ts",
            format!("x = {}1{};", r("() => {return "), r("}")),
        ),
        (
            "class",
            "ts",
            format!("x = {}{};", r("class { m() { return "), r("} }")),
        ),
        (
            "destructure",
            "ts",
            format!("{}{} = x;", r("[{a:"), r("}]")),
        ),
        (
            "arrow-params",
            "ts",
            format!("x = {}1{};", r("([a="), r("])")),
        ),
        ("less-than", "ts", format!("x = a{};", r("<b"))),
        ("assertion", "ts", format!("x = {}y;", r("<T>"))),
        ("jsx", "tsx", format!("x = {}{};", r("<a>"), r("</a>"))),
        (
            "jsx-expr",
            "jsx",
            format!("x = {}{};", r("<a>{"), r("}</a>")),
        ),
        (
            "jsx-attr",
            "tsx",
            format!("x = {}{};", r("<a b={"), r("} />")),
        ),
        ("jsx-member", "tsx", format!("x = <a{} />;", r(".b"))),
        ("type-args", "ts", format!("let x: {}T{};", r("A<"), r(">"))),
        (
            "type-object",
            "ts",
            format!("let x: {}T{};", r("{a:"), r("}")),
        ),
        ("type-array", "ts", format!("let x: T{};", r("[]"))),
        ("type-tuple", "ts", format!("let x: {}T{};", r("["), r("]"))),
        ("type-function", "ts", format!("let x: {}T;", r("()=>"))),
        ("keyof", "ts", format!("let x: {}T;", r("keyof "))),
        ("union", "ts", format!("let x: T{};", r("|T"))),
        (
            "conditional-type",
            "ts",
            format!("type X = {}T;", r("A extends B ? C : ")),
        ),
        (
            "namespace",
            "ts",
            format!(
                "namespace {} {{ export const x = 1 }}",
                vec!["A"; n].join(".")
            ),
        ),
        (
            "nested-namespace",
            "ts",
            format!("{}export const x = 1;{}", r("namespace A {"), r("}")),
        ),
        ("enum", "ts", format!("enum E {{ A = {}1 }}", r("1+"))),
        (
            "regex-division",
            "js",
            format!("x = {}1{};", r("(a)/("), r(")")),
        ),
    ]
}

/// Loads `src` as `hooks/register.<ext>` on a thread with an ordinary 2 MiB stack: the
/// load must return (either way), never crash.
fn load_returns(name: &str, ext: &str, src: &str) -> Result<ModSource, LoadError> {
    let dir = mod_file(name, ext, src);
    let result = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || load_folder(&dir))
        .unwrap()
        .join();
    match result {
        Ok(r) => r,
        Err(_) => panic!("{name}: the load panicked"),
    }
}

#[test]
fn every_recursive_construct_at_the_cap_and_past_it_never_crashes() {
    for n in [1999, 2000, 2001] {
        for (name, ext, src) in nested(n) {
            match load_returns(name, ext, &src) {
                Ok(_) => {}
                Err(
                    LoadError::TooDeep { cap: 2000, .. }
                    | LoadError::Syntax { .. }
                    | LoadError::Compile { .. },
                ) => {}
                Err(e) => panic!("{name} {n}: {e}"),
            }
        }
    }
}

#[test]
fn every_recursive_construct_far_past_the_cap_is_refused_before_parsing() {
    for (name, ext, src) in nested(100_000) {
        match load_returns(name, ext, &src) {
            Err(LoadError::TooDeep { cap: 2000, .. }) => {}
            other => panic!("{name}: {:?}", other.map(|_| ())),
        }
    }
    // Up to the 4 MiB cap.
    let cap = usize::try_from(MAX_FILE_BYTES).unwrap();
    for (name, ext, unit) in [
        ("parens", "ts", "("),
        ("nots", "ts", "!"),
        ("ifs", "ts", "if(a)"),
        ("jsx", "tsx", "<a>"),
        ("types", "ts", "A<"),
        ("templates", "js", "`${"),
        ("members", "js", ".b"),
    ] {
        let src = format!("x = {}", unit.repeat((cap - 8) / unit.len()));
        assert!(src.len() <= cap);
        assert!(
            matches!(
                load_returns(name, ext, &src),
                Err(LoadError::TooDeep { .. })
            ),
            "{name}"
        );
    }
}

/// Tokens that open, close or chain constructs, and tokens that switch the tokenizer's
/// mode (strings, comments, regular expressions, templates, JSX).
const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "!",
    "- ",
    "typeof ",
    "await ",
    "new ",
    "a",
    "=",
    "?",
    ":",
    "=>",
    "**",
    "<a>",
    "</a>",
    "<",
    ">",
    "${",
    "`",
    "'",
    "\"",
    "/",
    "//",
    "/*",
    "*/",
    "\n",
    "if(a)",
    "else ",
    ";",
    ",",
    ".",
    "x",
    "1",
    "A<",
    "keyof ",
    "{a:",
    "...",
    "</",
    "/>",
    " ",
    "\\",
    "#",
    "@",
    "\u{2028}",
    "é",
    "<>",
    "</>",
    "={",
    "return ",
    "}`",
    "/x/",
    "=> {",
    "class ",
    "function ",
    "as ",
    "const ",
    "<T,>",
    "<T>(",
];

const EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts", "js", "mjs", "cjs", "jsx"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_mixes_of_tokens_never_crash(
        parts in prop::collection::vec((0..TOKENS.len(), 1usize..600), 1..80),
        ext in 0..EXTENSIONS.len(),
    ) {
        let mut src = String::new();
        for (token, times) in parts {
            src.push_str(&TOKENS[token].repeat(times));
        }
        // Returns (Ok or Err), on a thread with a 2 MiB stack.
        let _ = load_returns("random", EXTENSIONS[ext], &src);
    }
}
