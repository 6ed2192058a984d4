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
mod tests;

#[cfg(test)]
mod fuzz;
