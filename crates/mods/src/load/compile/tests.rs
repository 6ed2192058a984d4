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
