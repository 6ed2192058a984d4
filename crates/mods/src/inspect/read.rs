//! Reading and parsing: each module of the graph read again from its file as the loader
//! read it, parsed with oxc and analysed; lines and columns counted as JavaScript counts
//! them.

use super::analysis::{find_register, scan_on, top_level_functions, Ctx, Out};
use super::visit::Sweep;
use super::{ModuleReport, Rule};
use crate::load::scan::{self, Dialect, ScanError};
use crate::load::MAX_FILE_BYTES;
use oxc::allocator::Allocator;
use oxc::ast_visit::Visit;
use oxc::parser::Parser;
use std::path::Path;

/// The loader's dialect for the file (a suffix it does not load reads as plain
/// JavaScript: such a file never got into the graph).
pub(super) fn dialect_of(path: &Path) -> Dialect {
    crate::load::compile::dialect_of(path).unwrap_or(Dialect {
        ts: false,
        jsx: false,
    })
}

/// A module read again for the analysis, as the loader read it: with the bounded
/// opener and its cap (SPEC §2.1 "Reading never hangs", SPEC §6 "A mod" caps): a file
/// swapped for a FIFO or a device since the load is refused, never read.
pub(super) fn read_again(path: &Path) -> Result<String, Unreadable> {
    let bytes = boundedfs::read_bounded(path, MAX_FILE_BYTES).map_err(|e| Unreadable::Read {
        reason: e.reason.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|_| Unreadable::NotUtf8)
}

/// Why a module could not be read again for the analysis; the
/// [`Display`](std::fmt::Display) form follows `the module could not be read again: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum Unreadable {
    /// The bounded opener refused the file or could not read it.
    #[error("{reason}")]
    Read {
        /// The opener's reason (a FIFO, over the cap, an I/O error).
        reason: String,
    },
    /// The file's bytes are not UTF-8.
    #[error("it is not UTF-8")]
    NotUtf8,
}

/// Reads, parses and analyses one module (on the loader's large-stack thread).
pub(super) fn analyse_file(key: &str, path: &Path, entry: bool) -> ModuleReport {
    let mut report = ModuleReport::empty(key, entry);
    let src = match read_again(path) {
        Ok(src) => src,
        Err(reason) => {
            report.problem(
                Rule::Unreadable,
                (1, 1),
                format!("the module could not be read again: {reason}"),
            );
            return report;
        }
    };
    let lines = LineIndex::new(&src);
    let dialect = dialect_of(path);
    // The nesting cap before parsing, as the loader checks it (the file may have
    // changed since it loaded).
    match scan::scan(&src, dialect) {
        Ok(_) => {}
        Err(ScanError::TooDeep { offset } | ScanError::Ambiguous { offset }) => {
            report.problem(
                Rule::Unreadable,
                lines.at(offset),
                "code nested too deep (or too ambiguous) to scan".to_owned(),
            );
            return report;
        }
    }
    let allocator = Allocator::default();
    let source_type = crate::load::compile::source_type(path, dialect);
    let parsed = Parser::new(&allocator, &src, source_type).parse();
    if let Some(first) = parsed.errors.first() {
        let offset = first
            .labels
            .as_ref()
            .and_then(|labels| labels.first())
            .map_or(0, |label| label.offset());
        report.problem(Rule::Syntax, lines.at(offset), first.message.to_string());
        return report;
    }
    if parsed.panicked {
        report.problem(Rule::Syntax, (1, 1), "the parser gave up".to_owned());
        return report;
    }
    let program = parsed.program;
    let ctx = Ctx {
        src: &src,
        lines: &lines,
        fns: top_level_functions(&program.body),
    };
    let mut out = Out::new(report);
    if entry {
        match find_register(&program, &ctx) {
            Some(register) => scan_on(&ctx, &mut out, register, 0, None),
            None => out.problem(
                Rule::NoRegister,
                (1, 1),
                "the hooks module does not export a function named register".to_owned(),
            ),
        }
    }
    // Every other function with a parameter spelled `$`, and `process.env`.
    let mut sweep = Sweep {
        ctx: &ctx,
        out: &mut out,
    };
    sweep.visit_program(&program);
    out.finish()
}

/// 1-based line and column (in characters) of byte offsets; lines end at `\n`, `\r\n`,
/// `\r`, U+2028 and U+2029, as in JavaScript (and as `load::compile` counts them).
pub(super) struct LineIndex<'s> {
    src: &'s str,
    starts: Vec<usize>,
}

impl<'s> LineIndex<'s> {
    pub(super) fn new(src: &'s str) -> Self {
        let mut starts = vec![0];
        let mut prev_cr = false;
        for (i, c) in src.char_indices() {
            match c {
                '\n' if prev_cr => {
                    if let Some(last) = starts.last_mut() {
                        *last = i + 1;
                    }
                }
                '\n' | '\r' | '\u{2028}' | '\u{2029}' => starts.push(i + c.len_utf8()),
                _ => {}
            }
            prev_cr = c == '\r';
        }
        LineIndex { src, starts }
    }

    pub(super) fn at(&self, offset: usize) -> (usize, usize) {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self
            .starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(0);
        let column = self
            .src
            .get(start..offset)
            .map_or(1, |s| s.chars().count() + 1);
        (line, column)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_count_every_javascript_line_end_and_chars() {
        let src = "a\nb\r\nc\rd\u{2028}é x";
        let lines = LineIndex::new(src);
        assert_eq!(lines.at(0), (1, 1));
        assert_eq!(lines.at(2), (2, 1));
        assert_eq!(lines.at(5), (3, 1));
        assert_eq!(lines.at(7), (4, 1));
        let x = src.find('x').unwrap();
        assert_eq!(lines.at(x), (5, 3));
    }
}
