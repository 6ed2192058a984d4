//! Compiling one module (SPEC §6 "A mod"): the caps checked before parsing, then oxc:
//! parse, scopes, the TypeScript and JSX transforms (types erased; enums, namespaces,
//! parameter properties; JSX in the classic `h`/`Fragment` form; ES module syntax and
//! the language level kept), and printing with a source map.

use super::lines::LineMap;
use super::resolve::{is_engine, Ctx};
use super::scan::{self, Dialect, ScanError};
use super::{LoadError, MAX_NESTING};
use oxc::allocator::Allocator;
use oxc::ast::ast::{
    ImportDeclarationSpecifier, ImportOrExportKind, ModuleExportName, Statement, TSModuleReference,
};
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::diagnostics::OxcDiagnostic;
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{JsxOptions, JsxRuntime, TransformOptions, Transformer};
use std::path::Path;

/// A compiled module.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub(crate) js: String,
    /// Its import specifiers, in source order, each once.
    pub(crate) imports: Vec<String>,
    pub(crate) lines: LineMap,
}

/// 1-based line and column (in chars) of a byte offset of `src`. Lines end at `\n`,
/// `\r\n`, `\r`, U+2028 and U+2029, as in JavaScript.
pub(crate) fn line_col(src: &str, offset: usize) -> (usize, usize) {
    let mut line = 1;
    let mut col = 1;
    let mut prev_cr = false;
    for (i, c) in src.char_indices() {
        if i >= offset {
            break;
        }
        match c {
            '\n' if prev_cr => {}
            '\n' | '\r' | '\u{2028}' | '\u{2029}' => {
                line += 1;
                col = 1;
            }
            _ => col += 1,
        }
        prev_cr = c == '\r';
    }
    (line, col)
}

/// The first position a diagnostic labels, and its message.
fn place(src: &str, diag: &OxcDiagnostic) -> (usize, usize, String) {
    let offset = diag
        .labels
        .as_ref()
        .and_then(|labels| labels.first())
        .map_or(0, |label| label.offset());
    let (line, column) = line_col(src, offset);
    (line, column, diag.message.to_string())
}

/// How oxc parses the module file at `path` in `dialect`: an ES module.
pub(crate) fn source_type(path: &Path, dialect: Dialect) -> SourceType {
    SourceType::from_path(path)
        .unwrap_or_else(|_| SourceType::ts())
        .with_module(true)
        .with_typescript(dialect.ts)
        .with_jsx(dialect.jsx)
}

/// The syntax a module file is parsed with, by its suffix (SPEC §6 "A mod"); `None` for
/// a suffix the engine does not load.
pub(crate) fn dialect_of(path: &Path) -> Option<Dialect> {
    match path.extension().and_then(|e| e.to_str())? {
        "ts" | "mts" | "cts" => Some(Dialect {
            ts: true,
            jsx: false,
        }),
        "tsx" => Some(Dialect {
            ts: true,
            jsx: true,
        }),
        "js" | "mjs" | "cjs" => Some(Dialect {
            ts: false,
            jsx: false,
        }),
        "jsx" => Some(Dialect {
            ts: false,
            jsx: true,
        }),
        _ => None,
    }
}

/// Reads the file `key` at `path` (SPEC §6 "A mod" caps): a regular file of at most
/// [`super::MAX_FILE_BYTES`], checked on the opened file before a byte is read
/// ([`super::read_capped`]).
fn read_source(ctx: &Ctx<'_>, key: &str, path: &Path) -> Result<String, LoadError> {
    let Some(bytes) = super::read_capped(ctx, key, path)? else {
        return Err(LoadError::Io {
            folder: ctx.folder(),
            file: key.to_owned(),
            reason: boundedfs::Reason::NotFound.to_string(),
        });
    };
    String::from_utf8(bytes).map_err(|_| LoadError::NotUtf8 {
        folder: ctx.folder(),
        file: key.to_owned(),
    })
}

/// The transform options of SPEC §6: TypeScript and JSX (classic, `h`/`Fragment`), no
/// module transform, no language lowering.
fn transform_options() -> TransformOptions {
    let typescript = oxc::transformer::TypeScriptOptions {
        jsx_pragma: "h".into(),
        jsx_pragma_frag: "Fragment".into(),
        ..oxc::transformer::TypeScriptOptions::default()
    };
    TransformOptions {
        jsx: JsxOptions {
            runtime: JsxRuntime::Classic,
            pragma: Some("h".to_owned()),
            pragma_frag: Some("Fragment".to_owned()),
            pure: false,
            display_name_plugin: false,
            ..JsxOptions::enable()
        },
        typescript,
        ..TransformOptions::default()
    }
}

fn export_name(name: &ModuleExportName<'_>) -> String {
    match name {
        ModuleExportName::IdentifierName(n) => n.name.to_string(),
        ModuleExportName::IdentifierReference(n) => n.name.to_string(),
        ModuleExportName::StringLiteral(s) => format!("{:?}", s.value.as_str()),
    }
}

/// Compiles the module `key` at `path` (SPEC §6 "A mod"). Must run on a thread with a
/// large stack (see `COMPILER_STACK`).
pub(crate) fn compile_file(ctx: &Ctx<'_>, key: &str, path: &Path) -> Result<Compiled, LoadError> {
    let Some(dialect) = dialect_of(path) else {
        return Err(LoadError::NotLoadable {
            folder: ctx.folder(),
            file: key.to_owned(),
            specifier: key.to_owned(),
            target: key.to_owned(),
        });
    };
    let src = read_source(ctx, key, path)?;
    compile_source(ctx, key, path, &src, dialect)
}

pub(crate) fn compile_source(
    ctx: &Ctx<'_>,
    key: &str,
    path: &Path,
    src: &str,
    dialect: Dialect,
) -> Result<Compiled, LoadError> {
    // The nesting cap, before parsing (see `scan`).
    match scan::scan(src, dialect) {
        Ok(_) => {}
        Err(ScanError::TooDeep { offset }) => {
            return Err(LoadError::TooDeep {
                folder: ctx.folder(),
                file: key.to_owned(),
                line: line_col(src, offset).0,
                cap: MAX_NESTING,
            })
        }
        Err(ScanError::Ambiguous { offset }) => {
            return Err(LoadError::Ambiguous {
                folder: ctx.folder(),
                file: key.to_owned(),
                line: line_col(src, offset).0,
            })
        }
    }

    let syntax = |diag: &OxcDiagnostic| {
        let (line, column, message) = place(src, diag);
        LoadError::Syntax {
            folder: ctx.folder(),
            file: key.to_owned(),
            line,
            column,
            message,
        }
    };
    let compile = |diag: &OxcDiagnostic| {
        let (line, column, message) = place(src, diag);
        LoadError::Compile {
            folder: ctx.folder(),
            file: key.to_owned(),
            line,
            column,
            message,
        }
    };
    let at = |offset: u32| line_col(src, usize::try_from(offset).unwrap_or(usize::MAX));

    let allocator = Allocator::default();
    let parsed = Parser::new(&allocator, src, source_type(path, dialect)).parse();
    if let Some(first) = parsed.errors.first() {
        return Err(syntax(first));
    }
    if parsed.panicked {
        return Err(LoadError::Syntax {
            folder: ctx.folder(),
            file: key.to_owned(),
            line: 1,
            column: 1,
            message: "the parser gave up".to_owned(),
        });
    }
    if let Some(dynamic) = parsed.module_record.dynamic_imports.first() {
        let (line, column) = at(dynamic.span.start);
        return Err(LoadError::DynamicImport {
            folder: ctx.folder(),
            file: key.to_owned(),
            line,
            column,
        });
    }
    let mut program = parsed.program;
    for stmt in &program.body {
        if let Statement::TSExportAssignment(decl) = stmt {
            let (line, column) = at(decl.span.start);
            return Err(LoadError::ExportAssignment {
                folder: ctx.folder(),
                file: key.to_owned(),
                line,
                column,
            });
        }
        if let Statement::TSImportEqualsDeclaration(decl) = stmt {
            if matches!(
                decl.module_reference,
                TSModuleReference::ExternalModuleReference(_)
            ) {
                let (line, column) = at(decl.span.start);
                return Err(LoadError::ImportRequire {
                    folder: ctx.folder(),
                    file: key.to_owned(),
                    line,
                    column,
                });
            }
        }
    }

    let semantic = SemanticBuilder::new().build(&program);
    if let Some(first) = semantic.errors.first() {
        return Err(compile(first));
    }
    let scoping = semantic.semantic.into_scoping();
    let transformed = Transformer::new(&allocator, path, &transform_options())
        .build_with_scoping(scoping, &mut program);
    if let Some(first) = transformed.errors.first() {
        return Err(compile(first));
    }

    // Every `catch` tells the bridge what it caught (SPEC §6 "Limits": a cap hit counts
    // whatever the JavaScript caught).
    if let Some((span, name)) = super::caught::instrument(&allocator, &mut program) {
        let (line, column) = at(span.start);
        return Err(LoadError::Reserved {
            folder: ctx.folder(),
            file: key.to_owned(),
            line,
            column,
            name,
        });
    }

    // The imports that remain: type-only ones are gone.
    let mut imports: Vec<String> = Vec::new();
    let mut note = |spec: &str| {
        if !imports.iter().any(|s| s == spec) {
            imports.push(spec.to_owned());
        }
    };
    for stmt in &program.body {
        let (spec, names, start) = match stmt {
            Statement::ImportDeclaration(decl) => {
                if decl.import_kind == ImportOrExportKind::Type {
                    continue;
                }
                let names: Vec<String> = decl
                    .specifiers
                    .iter()
                    .flatten()
                    .filter_map(|s| match s {
                        ImportDeclarationSpecifier::ImportSpecifier(s) => (s.import_kind
                            != ImportOrExportKind::Type)
                            .then(|| export_name(&s.imported)),
                        ImportDeclarationSpecifier::ImportDefaultSpecifier(_) => {
                            Some("default".to_owned())
                        }
                        ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                            Some(format!("* as {}", s.local.name))
                        }
                    })
                    .collect();
                (decl.source.value.as_str(), names, decl.span.start)
            }
            Statement::ExportNamedDeclaration(decl) => {
                let Some(source) = &decl.source else { continue };
                if decl.export_kind == ImportOrExportKind::Type {
                    continue;
                }
                let names: Vec<String> = decl
                    .specifiers
                    .iter()
                    .filter(|s| s.export_kind != ImportOrExportKind::Type)
                    .map(|s| export_name(&s.local))
                    .collect();
                (source.value.as_str(), names, decl.span.start)
            }
            Statement::ExportAllDeclaration(decl) => {
                if decl.export_kind == ImportOrExportKind::Type {
                    continue;
                }
                (
                    decl.source.value.as_str(),
                    vec!["*".to_owned()],
                    decl.span.start,
                )
            }
            _ => continue,
        };
        if is_engine(spec) && !names.is_empty() {
            let (line, column) = at(start);
            return Err(LoadError::EngineNames {
                folder: ctx.folder(),
                file: key.to_owned(),
                line,
                column,
                specifier: spec.to_owned(),
                names: names.join(", "),
            });
        }
        note(spec);
    }

    let printed = Codegen::new()
        .with_options(CodegenOptions {
            source_map_path: Some(path.to_path_buf()),
            ..CodegenOptions::default()
        })
        .build(&program);
    let lines = printed.map.map_or_else(LineMap::default, |map| {
        LineMap::from_mappings(
            map.get_tokens()
                .map(|t| {
                    (
                        t.get_dst_line().saturating_add(1),
                        t.get_dst_col().saturating_add(1),
                        t.get_src_line().saturating_add(1),
                        t.get_src_col().saturating_add(1),
                    )
                })
                .collect(),
        )
    });
    Ok(Compiled {
        js: printed.code,
        imports,
        lines,
    })
}

#[cfg(test)]
mod tests {
    //! The pre-scan's measure bounds the compiler's recursion: at the deepest nesting the
    //! scan accepts, every construct (and constructs meant to fool the tokenizer) compiles
    //! on a thread with 1/16 of `COMPILER_STACK`.

    use super::*;
    use std::path::PathBuf;

    /// The stack the test compiles with: 16 MiB (`COMPILER_STACK` is 256 MiB).
    const SMALL_STACK: usize = 16 << 20;

    fn constructs(n: usize) -> Vec<(&'static str, &'static str, String)> {
        let r = |s: &str| s.repeat(n);
        vec![
            ("paren", "ts", format!("x = {}1{};", r("("), r(")"))),
            ("object", "ts", format!("x = {}1{};", r("{a:"), r("}"))),
            ("block", "ts", format!("{}{}", r("{"), r("}"))),
            ("template", "ts", format!("x = {}{};", r("`${"), r("}`"))),
            ("not", "ts", format!("x = {}1;", r("!"))),
            ("new", "ts", format!("x = {}X;", r("new "))),
            ("assign", "ts", format!("{}1;", r("a="))),
            ("conditional", "ts", format!("x = {}1;", r("a?b:"))),
            ("arrow", "ts", format!("x = {}1;", r("x=>"))),
            ("async-arrow", "ts", format!("x = {}1;", r("async x => "))),
            ("exponent", "ts", format!("x = {}1;", r("2**"))),
            (
                "ladder",
                "js",
                format!("x = {}1{};", r("a||b&&c|d^e&f==g<h<<i+j*(k**"), r(")")),
            ),
            ("member", "ts", format!("x = a{};", r(".b"))),
            ("call", "ts", format!("x = a{};", r("()"))),
            ("call-lines", "js", format!("x = a{};", r("\n(b)"))),
            ("non-null", "ts", format!("x = a{};", r("!"))),
            ("if", "ts", format!("{}x;", r("if(a)"))),
            ("else-if", "ts", format!("{}x;", r("if(a)x;else "))),
            ("else-if-braces", "ts", format!("{}{{}}", r("if(a){}else "))),
            (
                "if-else-nested",
                "js",
                format!("{}x;{}", r("if(a)"), r("else x;")),
            ),
            ("if-nbsp", "js", format!("{}x;", r("if(a)\u{a0}"))),
            ("if-escaped", "js", format!("{}x;", r("\\u0069f(a) "))),
            ("label", "js", format!("{}x;", r("a:"))),
            ("label-lines", "js", format!("{}x;", r("a:\n"))),
            ("do", "js", format!("{}x;{}", r("do "), r("while(a);"))),
            (
                "function",
                "ts",
                format!("{}{}", r("function f() {"), r("}")),
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
            (
                "jsx-text",
                "tsx",
                format!("x = {}{};", r("<a>it's {"), r("}</a>")),
            ),
            ("jsx-type-args", "tsx", format!("x = <a{} />;", r("<A"))),
            (
                "tsx-generic-type",
                "tsx",
                format!("type F = {}T{};", r("<T>(x: "), r(") => T")),
            ),
            ("type-args", "ts", format!("let x: {}T{};", r("A<"), r(">"))),
            (
                "type-object",
                "ts",
                format!("let x: {}T{};", r("{a:"), r("}")),
            ),
            ("type-array", "ts", format!("let x: T{};", r("[]"))),
            ("type-function", "ts", format!("let x: {}T;", r("()=>"))),
            ("keyof", "ts", format!("let x: {}T;", r("keyof "))),
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
            (
                "regex-division",
                "js",
                format!("x = {}1{};", r("(a)/("), r(")")),
            ),
            (
                "function-division",
                "js",
                format!("x = {}1{};", r("function(){}/("), r(")")),
            ),
            (
                "regex-class",
                "js",
                format!("x = {}1{};", r("/[/]/.t("), r(")")),
            ),
            (
                "line-comment-ls",
                "js",
                format!("x = {}1{};", r("//\u{2028}("), r(")")),
            ),
            (
                "string-crlf",
                "js",
                format!("x = {}1{};", r("'\\\r\n'+("), r(")")),
            ),
            // A `/` oxc reads as a regular expression holding `'`, which read as a division
            // would start a string hiding the nesting after it on the line.
            (
                "let-regex",
                "js",
                format!("let x\n/'/; x = {}1{};", r("("), r(")")),
            ),
            (
                "type-regex",
                "ts",
                format!("type T = A\n/'/; x = {}1{};", r("("), r(")")),
            ),
            (
                "import-regex",
                "js",
                format!("import x from './y'\n/'/; x = {}1{};", r("("), r(")")),
            ),
            (
                "break-regex",
                "js",
                format!("a: for (;;) {{ break a\n/'/; x = {}1{} }}", r("("), r(")")),
            ),
            (
                "case-regex",
                "js",
                format!(
                    "switch (x) {{ case 1: {{}} /'/; x = {}1{} }}",
                    r("("),
                    r(")")
                ),
            ),
            (
                "catch-regex",
                "js",
                format!("try {{}} catch {{}} /'/; x = {}1{};", r("("), r(")")),
            ),
            (
                "return-regex",
                "js",
                format!(
                    "function f() {{ return\n{{}} /'/; x = {}1{} }}",
                    r("("),
                    r(")")
                ),
            ),
            (
                "arrow-regex",
                "js",
                format!("x = () => {{}}\n/'/; x = {}1{};", r("("), r(")")),
            ),
            (
                "tsx-after-type",
                "tsx",
                format!("type T = A\n<b>'</b>; x = {}1{};", r("("), r(")")),
            ),
            // A `/` oxc reads as a division, which read as a regular expression would hide
            // the nesting up to the next `/`.
            (
                "object-in-ternary",
                "js",
                format!("x = c ? a : {{ b: {{}} / {}1{} / 2 }};", r("("), r(")")),
            ),
            (
                "for-head-object",
                "js",
                format!("for (; {{}} / {}1{} / 2; ) {{}}", r("("), r(")")),
            ),
            (
                "default-class",
                "js",
                format!("export default class {{}} /'/; x = {}1{};", r("("), r(")")),
            ),
            // Identifier escapes as oxc reads them: `\"` is part of the identifier, and the
            // text left (`if`) is the keyword; an overflowing `\u{...}` leaves its `}`.
            ("escape-quote", "js", format!("{}x;", r("\\\"if(a)"))),
            (
                "escape-overflow",
                "js",
                format!("x = `${{a\\u{{FFFFFFF}}`{}1{};", r("("), r(")")),
            ),
        ]
    }

    /// Code that repeats without nesting: never refused, however long.
    fn flat(n: usize) -> Vec<(&'static str, &'static str, String)> {
        let r = |s: &str| s.repeat(n);
        vec![
            ("statements", "ts", r("const a = b.c.d(e) + f[g] * 2;\n")),
            (
                "semicolon-free",
                "ts",
                r("const a = b.c.d(e)\nif (x) y()\nz = w ? 1 : 2\n"),
            ),
            ("unbraced-ifs", "js", r("if (a) return;\nif (b) c();\n")),
            (
                "returns",
                "js",
                format!("function f() {{\n{}}}", r("if (a) return\nb()\n")),
            ),
            ("if-else", "ts", r("if (a) { b() } else { c() }\n")),
            (
                "interface",
                "ts",
                format!("interface I {{\n{}}}", r("a: string\nb(): void;\n")),
            ),
            (
                "class",
                "ts",
                format!(
                    "class C {{\n{}}}",
                    r("x = 1\nm() {{ return this.x }}\nget y() {{ return 2 }}\n")
                ),
            ),
            (
                "object",
                "js",
                format!("x = {{\n{}}};", r("a: 1, b: [2], c() {{}},\n")),
            ),
            (
                "switch",
                "js",
                format!("switch (x) {{\n{}}}", r("case 1: a(); break;\n")),
            ),
            (
                "jsx-siblings",
                "tsx",
                format!(
                    "x = <div>\n{}</div>;",
                    r("<p className=\"a\">it's {x} (ok)</p>\n")
                ),
            ),
            ("calls", "ts", r("on('x', async ($, e, next) => next(e))\n")),
            (
                "regexes",
                "js",
                r("if (/a+/.test(s)) x = s.replace(/b/g, '')\n"),
            ),
            (
                "generics",
                "ts",
                r("const m = new Map<string, Array<number>>()\nlet v: A<B> = f<C>(x)\n"),
            ),
            (
                "comparisons",
                "ts",
                r("if (a < b && c > d) e()\nf = g < h\n"),
            ),
            ("labels-free", "js", r("x\ny: 1\n")),
        ]
    }

    #[test]
    fn flat_code_is_never_refused() {
        for (name, ext, src) in flat(40_000) {
            let src = src.get(..4 << 20).map_or(src.as_str(), |s| s);
            assert!(
                scan::scan(src, dialect(ext)).is_ok(),
                "{name}: {:?}",
                scan::scan(src, dialect(ext))
            );
        }
    }

    fn dialect(ext: &str) -> Dialect {
        dialect_of(Path::new(&format!("x.{ext}"))).unwrap_or(Dialect {
            ts: false,
            jsx: false,
        })
    }

    /// The deepest `n` the scan accepts (at most 100,000).
    fn deepest(name: &str, ext: &str) -> usize {
        let accepts = |n: usize| {
            let all = constructs(n);
            let (_, _, src) = all.iter().find(|c| c.0 == name).unwrap();
            scan::scan(src, dialect(ext)).is_ok()
        };
        let (mut lo, mut hi) = (0usize, 100_000usize);
        if accepts(hi) {
            return hi;
        }
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if accepts(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }

    #[test]
    fn at_the_cap_every_construct_compiles_in_a_sixteenth_of_the_stack() {
        let root = PathBuf::from("/nonexistent");
        for (name, ext, _) in constructs(1) {
            let n = deepest(name, ext);
            assert!(n < 100_000, "{name}: the scan never refuses it");
            let (_, _, src) = constructs(n).into_iter().find(|c| c.0 == name).unwrap();
            let path = PathBuf::from(format!("/nonexistent/hooks/register.{ext}"));
            let d = dialect(ext);
            let root2 = root.clone();
            let done = std::thread::Builder::new()
                .stack_size(SMALL_STACK)
                .spawn(move || {
                    let ctx = Ctx {
                        folder: &root2,
                        root: &root2,
                    };
                    compile_source(&ctx, "hooks/register.x", &path, &src, d).is_ok()
                })
                .unwrap()
                .join()
                .unwrap();
            eprintln!("{name}: deepest accepted {n}, compiled: {done}");
        }
    }
}

#[cfg(test)]
mod fuzz {
    //! Repeated random token patterns (how nesting is built): whatever the scan accepts
    //! compiles in 1/16 of `COMPILER_STACK` (an under-count would overflow and abort).
    //! A longer campaign: `FUZZ_CASES=3000 FUZZ_LOG=/tmp/case.txt cargo test -p mods --lib
    //! repeated_patterns` (the log holds the last case compiled, for a crash).

    use super::*;
    use proptest::prelude::*;
    use std::path::PathBuf;

    const TOKENS: &[&str] = &[
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        "!",
        "-",
        "+",
        "++",
        "typeof ",
        "await ",
        "new ",
        "a",
        "b",
        "=",
        "?",
        ":",
        "=>",
        "**",
        "<",
        ">",
        "<a>",
        "</a>",
        "${",
        "`",
        "'",
        "\"",
        "/",
        "/x/",
        "//",
        "/*",
        "*/",
        "\n",
        "if",
        "else ",
        "for",
        "while",
        "do ",
        ";",
        ",",
        ".",
        "?.",
        "1",
        "keyof ",
        "...",
        " ",
        "\\",
        "#x",
        "@",
        "\u{2028}",
        "\u{a0}",
        "<>",
        "</>",
        "={",
        "=\"",
        "return",
        "class ",
        "function ",
        "as ",
        "const ",
        "let ",
        "type ",
        "case ",
        "default",
        "switch",
        "catch",
        "try",
        "export ",
        "import ",
        "default ",
        "async ",
        "yield ",
        "in ",
        "extends ",
        "<T>",
        "<T,>",
        "x:",
        "/>",
        "&&",
        "|",
        "'a'",
        "`t`",
        "{a:",
        "a,",
        "()",
    ];

    fn compiles_or_refuses(src: String, ext: &'static str) {
        let path = PathBuf::from(format!("/nonexistent/hooks/register.{ext}"));
        let Some(d) = dialect_of(&path) else { return };
        if scan::scan(&src, d).is_err() {
            return;
        }
        if let Ok(log) = std::env::var("FUZZ_LOG") {
            let _ = std::fs::write(log, format!("{ext}\n{src}"));
        }
        std::thread::Builder::new()
            .stack_size(16 << 20)
            .spawn(move || {
                let root = PathBuf::from("/nonexistent");
                let ctx = Ctx {
                    folder: &root,
                    root: &root,
                };
                let _ = compile_source(&ctx, "hooks/register.x", &path, &src, d);
            })
            .unwrap()
            .join()
            .unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: std::env::var("FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64),
            ..ProptestConfig::default()
        })]

        #[test]
        fn repeated_patterns_compile_in_a_sixteenth_of_the_stack(
            head in prop::collection::vec(0..TOKENS.len(), 0..6),
            unit in prop::collection::vec(0..TOKENS.len(), 1..7),
            tail in prop::collection::vec(0..TOKENS.len(), 0..6),
            times in 1usize..40_000,
            ext in prop::sample::select(vec!["ts", "tsx", "js", "jsx"]),
        ) {
            let pick = |v: &[usize]| v.iter().map(|&i| TOKENS[i]).collect::<String>();
            let unit = pick(&unit);
            let times = times.min((4 << 20) / unit.len().max(1));
            let src = format!("{}{}{}", pick(&head), unit.repeat(times), pick(&tail));
            compiles_or_refuses(src, ext);
        }
    }
}
