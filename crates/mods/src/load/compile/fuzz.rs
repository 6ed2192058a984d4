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
