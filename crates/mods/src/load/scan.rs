//! The nesting pre-scan (SPEC §6 caps: "nesting 2,000 deep, checked before parsing").
//!
//! oxc's parser, its semantic builder, the transformer and the code generator all recurse
//! without a depth limit, and a stack overflow aborts the process. Before a file is parsed,
//! this scan computes a *depth measure* that is at least the depth of recursion any of them
//! can reach on it (in units of a bounded number of stack frames; see [`MAX_DEPTH`] and the
//! stack the loader gives the compiler thread), and refuses the file past 2,000.
//!
//! # The measure
//!
//! The scan tokenizes the file (strings, template literals with a `${` stack, comments,
//! regular expressions, JSX text, attributes and tags) and keeps a stack of *levels*: the
//! open brackets `(` `[` `{`, template literals and their `${`, JSX elements and their
//! `{…}` containers, and TypeScript's `<` (which may open type arguments). Each level holds
//! two counters:
//!
//! - `chain`: every operator-like token at that level — prefix operators (`! ~ + - ++ --
//!   typeof void delete await yield new ...`, TS `keyof unique readonly infer asserts`),
//!   every binary and assignment operator (the right-associative `= ** ?:` and `=>` recurse
//!   in the parser; the left-associative ones build left-deep trees the later passes recurse
//!   on), `.` and `?.`, calls and index brackets after an operand, tagged templates, TS
//!   non-null `!`, a decorator's `@`. It is reset only where every expression at that level
//!   has ended: at `,` and `;`, and where an operand starts right after an operand (no
//!   expression continues that way: the statement ended, by ASI, or oxc stops with an
//!   error).
//! - `stmt`: statements nested without braces — `if`, `else`, `for`, `while`, `with`, `do`
//!   and labels. It is reset only where the statement they nest around has ended and the
//!   next token is not `else`, `while`, `catch` or `finally` (so an `else if` chain keeps
//!   counting): after a `;` or the `}` of a block, where an operand starts right after an
//!   operand (ASI), or at a line break after `return`, `break` or `continue`.
//!
//! The depth is the sum over open levels of `1 + chain + stmt` (the file's own level
//! counts 0), and the file's measure is its maximum over the whole scan.
//!
//! # Why it never under-counts
//!
//! Every construct oxc parses (or a later pass walks) recursively is opened by a token
//! counted above, and its count is kept until the construct has certainly ended; the
//! constant number of frames each unit stands for is what the compiler thread's stack is
//! sized by (measured: at the cap, every construct compiles in 8 MiB in a debug build).
//!
//! The tokenizer follows oxc's lexer exactly where a mistake could hide code: strings end
//! at their quote or a line break (after which oxc's lexer goes on, and so does the scan),
//! line comments at any of the four line terminators, identifiers consume after `\` what
//! oxc consumes (and their escapes decode to the keyword oxc sees), JSX strings come only
//! right after `=`. Where the tokenizer cannot know what oxc will do, the scan *forks*:
//! `/` (regular expression or division) and, in `.tsx`, `<` (JSX or type parameters),
//! after a token that leaves it open (the `}` of a brace of unknown kind, `>`, a contextual
//! keyword, an operand followed by a line break: `let x` / `type T = A` end a statement
//! there), and `<ident>(` or `<ident extends` in `.tsx`. It follows both readings, keeps
//! the maximum, and merges readings that meet again in the same state (taking the larger
//! counters). A reading is dropped only where oxc itself stops (a lexer error after which
//! it skips to the end of the file: an unterminated regular expression or JSX string, `>`
//! or `}` in JSX text, a token JSX cannot start with, a mismatched JSX tag end). Past
//! [`MAX_BRANCHES`] live readings the file is refused as too ambiguous to scan.
//!
//! Tests: `compile::tests` compiles every recursive construct, and constructs built to
//! fool the tokenizer, at the deepest nesting the scan accepts on 1/16 of the loader's
//! stack; `compile::fuzz` does the same for repeated random token patterns.
//!
//! Concerns, by file:
//! - this file: the scan itself ([`scan`]: the live readings, their forks and merges),
//!   and the state a reading keeps;
//! - `lex`: tokens read as oxc's lexer reads them (trivia, words with their escapes,
//!   numbers, strings, regular expressions);
//! - `branch`: a reading's levels and counters, the step that goes on from where it is,
//!   its steps through template literals and JSX, and its forks;
//! - `code`: a reading's step through code (brackets, operators, words, and where `/` or
//!   `<` forks it).

mod branch;
mod code;
mod lex;

/// The nesting cap (SPEC §6): a depth measure above this refuses the file.
pub(crate) const MAX_DEPTH: u32 = 2000;

/// How many readings of an ambiguous file the scan follows at once.
pub(crate) const MAX_BRANCHES: usize = 16;

/// Which syntax a file is parsed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dialect {
    /// TypeScript (`.ts .tsx .mts .cts`).
    pub(crate) ts: bool,
    /// JSX (`.tsx .jsx`).
    pub(crate) jsx: bool,
}

/// Why a file is refused before parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ScanError {
    /// The depth measure passed [`MAX_DEPTH`] at this byte offset.
    TooDeep { offset: usize },
    /// More than [`MAX_BRANCHES`] readings were live at this byte offset.
    Ambiguous { offset: usize },
}

/// Scans `src`; `Ok` holds the depth measure (at most [`MAX_DEPTH`]).
pub(crate) fn scan(src: &str, dialect: Dialect) -> Result<u32, ScanError> {
    let mut live: Vec<Branch> = vec![Branch::new(src)];
    let mut best = 0u32;
    while !live.is_empty() {
        // The branch furthest behind steps, as long as it stays behind all the others (it
        // can meet another, and merge, only where it reaches one's position).
        let mut index = 0;
        let mut min = usize::MAX;
        let mut next = usize::MAX;
        for (i, branch) in live.iter().enumerate() {
            if branch.pos < min {
                next = min;
                min = branch.pos;
                index = i;
            } else if branch.pos < next {
                next = branch.pos;
            }
        }
        let Some(branch) = live.get_mut(index) else {
            break;
        };
        let step = loop {
            match branch.step(src, dialect) {
                Step::Go if branch.pos < next => {}
                other => break other,
            }
        };
        match step {
            Step::Go => {
                if live.len() > 1 {
                    merge_into_others(&mut live, index);
                }
            }
            Step::Fork(other) => {
                let at = other.pos;
                live.push(*other);
                if live.len() > MAX_BRANCHES {
                    return Err(ScanError::Ambiguous { offset: at });
                }
            }
            Step::End => {
                best = best.max(branch.max);
                live.swap_remove(index);
            }
            Step::TooDeep(offset) => return Err(ScanError::TooDeep { offset }),
        }
    }
    Ok(best)
}

/// The nesting pre-scan as the loader runs it on a module file before parsing it
/// (SPEC §6 caps: "nesting 2,000 deep, checked before parsing"): `src` read in the
/// dialect of the file suffix `extension` (one of [`super::MODULE_EXTENSIONS`], without
/// the dot). `Some(Ok(measure))`: the file is accepted, its depth measure at most
/// [`super::MAX_NESTING`]; `Some(Err(offset))`: it is refused at that byte offset (nested
/// too deep, or too ambiguous to scan); `None`: no module has that suffix.
///
/// Public for the fuzz target `prescan` (`crates/fuzzing`): the loader calls the scan
/// itself.
#[must_use]
pub fn prescan(src: &str, extension: &str) -> Option<Result<u32, usize>> {
    let dialect = super::compile::dialect_of(std::path::Path::new(&format!("m.{extension}")))?;
    Some(scan(src, dialect).map_err(|e| match e {
        ScanError::TooDeep { offset } | ScanError::Ambiguous { offset } => offset,
    }))
}

/// Merges `live[index]` into another branch in the same state, if there is one.
fn merge_into_others(live: &mut Vec<Branch>, index: usize) {
    let Some(me) = live.get(index) else { return };
    let found = live
        .iter()
        .enumerate()
        .position(|(j, other)| j != index && other.mergeable(me));
    if let Some(j) = found {
        let me = live.swap_remove(index);
        // `swap_remove` moved the last branch into `index`; `j` may have been that one.
        let j = if j == live.len() { index } else { j };
        if let Some(other) = live.get_mut(j) {
            other.absorb(&me);
        }
    }
}

/// What one step of a branch did.
enum Step {
    /// Consumed input; go on.
    Go,
    /// This branch took one reading; the other is returned (neither consumed input).
    Fork(Box<Branch>),
    /// The branch ended: end of file, or a point where oxc stops parsing.
    End,
    /// The measure passed the cap at this offset.
    TooDeep(usize),
}

/// Where the previous token leaves the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    /// A statement may start (an expression is expected too).
    Stmt,
    /// An operand is expected.
    Prefix,
    /// An operand just ended: an operator may follow.
    Operator,
    /// Either (the scan cannot tell).
    Unknown,
    /// After `.` or `?.`: a property name.
    Prop,
}

/// What the previous token was, where it matters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Prev {
    Other,
    /// An identifier, and whether it may be a statement label if `:` follows.
    Word {
        label: Label,
    },
    /// `if for while with switch catch`: the next `(` is a condition.
    Cond {
        is_for: bool,
    },
    /// `=>`.
    Arrow,
    /// `as` (so `const` after it is an operand).
    As,
    /// `return break continue`: a line break ends the statement.
    Restricted,
    /// The `}` of a brace whose kind is not known.
    CloseBrace,
    /// A `:` that is not a label's (a ternary's, a `case`'s, a type annotation's...).
    Colon,
    /// `class` (an anonymous class's body follows: `export default class {}` ends a
    /// declaration, `x = class {}` an operand).
    Class,
}

/// Whether an identifier followed by `:` is a statement label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Label {
    /// No (it came where an operand was expected: an object key, a ternary's branch).
    No,
    /// Yes: it came where a statement starts.
    Sure,
    /// Perhaps: the scan did not know where it was.
    Maybe,
}

/// A forced reading of a `<`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Force {
    Jsx,
    Soft,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Brace {
    /// A block statement (opened where a statement may start).
    Block,
    /// An object literal (opened where an operand is expected).
    Object,
    /// Anything else: function, class, interface, enum or namespace body, type literal...
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The file itself.
    Top,
    Paren {
        cond: bool,
    },
    Bracket,
    Brace(Brace),
    /// TypeScript `<`: type arguments or parameters, or a comparison.
    Soft,
    /// Template literal text.
    Template,
    /// A template literal's `${ … }`.
    TemplateExpr,
    /// A JSX element's opening tag.
    JsxTag {
        after_eq: bool,
    },
    /// A JSX element's (or fragment's) children.
    JsxChildren,
    /// A JSX `{ … }` container (`child`: among children, else an attribute).
    JsxExpr {
        child: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Level {
    kind: Kind,
    chain: u32,
    stmt: u32,
    /// A `;` or a block's `}` ended a statement here: reset `stmt` unless the next token
    /// continues the statement (`else`, `while`, `catch`, `finally`).
    pending: bool,
}

impl Level {
    fn new(kind: Kind) -> Self {
        Self {
            kind,
            chain: 0,
            stmt: 0,
            pending: false,
        }
    }

    fn cost(&self) -> u32 {
        let own = u32::from(self.kind != Kind::Top);
        own.saturating_add(self.chain).saturating_add(self.stmt)
    }
}

#[derive(Debug, Clone)]
struct Branch {
    pos: usize,
    levels: Vec<Level>,
    sum: u32,
    max: u32,
    at: At,
    prev: Prev,
    /// A line terminator since the previous token.
    newline: bool,
    force: Option<Force>,
}

/// Keywords and contextual words, as far as the scan cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// An identifier.
    Plain,
    /// `this super null true false`.
    Operand,
    /// `if for while with` (counted statements with a condition).
    CondStmt { is_for: bool },
    /// `switch catch` (a condition, then braces).
    CondBraced,
    /// `else do`.
    ElseDo,
    /// `try finally`.
    Try,
    /// `return break continue`.
    Restricted,
    /// `throw case default`: an operand follows.
    Lead,
    /// `typeof void delete new`.
    PrefixOp,
    /// `in instanceof extends`.
    Infix,
    /// `export import`.
    Module,
    /// `let const var function class`: a name or pattern follows.
    Decl,
    /// `const` right after `as`.
    AsConst,
    /// `class`.
    Class,
    /// Contextual words that may be identifiers: `async get set static type ...`.
    Contextual,
    /// Contextual prefix operators: `await yield keyof infer unique readonly asserts`.
    ContextualOp,
    /// Contextual infix operators: `as satisfies is of implements`.
    ContextualInfix,
}

fn classify(word: &str, prev: Prev) -> Word {
    match word {
        "this" | "super" | "null" | "true" | "false" => Word::Operand,
        "if" | "while" | "with" => Word::CondStmt { is_for: false },
        "for" => Word::CondStmt { is_for: true },
        "switch" | "catch" => Word::CondBraced,
        "else" | "do" => Word::ElseDo,
        "try" | "finally" => Word::Try,
        "return" | "break" | "continue" => Word::Restricted,
        "throw" | "case" | "default" => Word::Lead,
        "typeof" | "void" | "delete" | "new" => Word::PrefixOp,
        "in" | "instanceof" | "extends" => Word::Infix,
        "export" | "import" => Word::Module,
        "const" if prev == Prev::As => Word::AsConst,
        "let" | "const" | "var" | "function" => Word::Decl,
        "class" => Word::Class,
        "await" | "yield" | "keyof" | "infer" | "unique" | "readonly" | "asserts" => {
            Word::ContextualOp
        }
        "as" | "satisfies" | "is" | "of" | "implements" => Word::ContextualInfix,
        "async" | "get" | "set" | "static" | "declare" | "abstract" | "type" | "namespace"
        | "module" | "interface" | "enum" | "public" | "private" | "protected" | "override"
        | "accessor" | "using" | "from" | "global" | "out" | "debugger" | "package" => {
            Word::Contextual
        }
        _ => Word::Plain,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TS: Dialect = Dialect {
        ts: true,
        jsx: false,
    };
    const TSX: Dialect = Dialect {
        ts: true,
        jsx: true,
    };
    const JS: Dialect = Dialect {
        ts: false,
        jsx: false,
    };

    fn depth(src: &str, d: Dialect) -> u32 {
        match scan(src, d) {
            Ok(n) => n,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn brackets_count() {
        assert_eq!(depth("((((1))))", TS), 4);
        assert_eq!(depth("a = [1, [2, [3]]];", JS), 4);
        assert_eq!(depth("x; y; z;", JS), 0);
    }

    #[test]
    fn strings_comments_regex_hide_brackets() {
        assert_eq!(depth("'((((' + \"[[[[\" // ((((\n/* {{{{ */", JS), 1);
        assert_eq!(depth("x = /((((/g;", JS), 1);
        assert_eq!(depth("x = a / (b) / c;", JS), 3);
    }

    #[test]
    fn template_nesting() {
        assert_eq!(depth("`${`${`${1}`}`}`", JS), 6);
    }

    #[test]
    fn chains_reset() {
        let src = "a = b + c;\nd = e.f.g;\nh = 1\ni = 2\n";
        assert!(depth(src, TS) <= 3);
    }

    #[test]
    fn else_if_chain_counts() {
        let src = "if (a) {} else if (b) {} else if (c) {} else {}";
        assert!(depth(src, TS) >= 5);
    }

    #[test]
    fn jsx_elements_count() {
        assert!(depth("x = <a><b><c>{d}</c></b></a>;", TSX) >= 4);
        assert_eq!(depth("x = <p>it's (not) code</p>;", TSX), 2);
    }

    #[test]
    fn too_deep_is_refused() {
        let src = "(".repeat(2001);
        assert!(matches!(scan(&src, TS), Err(ScanError::TooDeep { .. })));
        let src = format!("{}1{}", "(".repeat(2000), ")".repeat(2000));
        assert_eq!(depth(&src, TS), 2000);
    }

    #[test]
    fn prescan_scans_in_the_suffixes_dialect_and_says_where_it_refused() {
        let tsx = "x = <p>it's (not) code</p>;";
        let jsx = Dialect {
            ts: false,
            jsx: true,
        };
        for (ext, d) in [
            ("ts", TS),
            ("mts", TS),
            ("tsx", TSX),
            ("js", JS),
            ("cjs", JS),
            ("jsx", jsx),
        ] {
            assert_eq!(
                prescan(tsx, ext),
                Some(scan(tsx, d).map_err(|_| 0)),
                "{ext}"
            );
        }
        assert_eq!(prescan(tsx, "json"), None);
        let deep = format!("x;\n{}", "(".repeat(2001));
        match prescan(&deep, "js") {
            Some(Err(offset)) => assert!((3..=deep.len()).contains(&offset), "{offset}"),
            other => panic!("{other:?}"),
        }
    }
}

#[cfg(test)]
mod cost {
    use super::*;

    /// Readings that never merge, then a long tail: each reads the tail, and no more than
    /// [`MAX_BRANCHES`] of them ever live (a 4 MiB file scans in under a second in
    /// release, worst case).
    #[test]
    fn many_readings_and_a_long_tail_scan_quickly() {
        let d = Dialect {
            ts: false,
            jsx: false,
        };
        for forks in [0usize, 6, 40] {
            let head = "x = function(){} /(/ /;\n".repeat(forks);
            let src = format!("{head}{}", "a = b + c.d(e);\n".repeat(60_000));
            let t = std::time::Instant::now();
            let r = scan(&src, d);
            eprintln!(
                "{forks} forks: {r:?} in {:?} ({} bytes)",
                t.elapsed(),
                src.len()
            );
            assert!(r.is_ok() || matches!(r, Err(ScanError::Ambiguous { .. })));
        }
    }
}
