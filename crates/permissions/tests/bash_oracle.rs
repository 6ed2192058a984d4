//! Bash as the oracle for SPEC §4 **[decision]** "What the core cannot see, it never
//! lets through".
//!
//! Each case is a generated command built from the constructs the core must see
//! through (program words written plainly, quoted, through variables assigned
//! earlier, brace expansion, globs on the shims' paths, `~+`/`$PWD`, for loops;
//! wrappers `time --`, `env`, `nice`, `timeout 5`, `command`, `xargs`; containers
//! `$(...)`, `$[ ]`, quoted array subscripts of `test -v`/`[[ -v ]]`/`let`/`printf
//! -v`/`declare`, `trap`, `eval`, `sh -c`/`bash -c`, `fc -s`, `fc -e`, `!!` after `set
//! -H`, and a variable holding `a[$(...)]` read as arithmetic by a substring offset or
//! length (`${@:x}`, `${*:0:x}`, `${v[@]:x:1}`), an array assignment's subscript
//! (`b=([x]=1)`, `b+=(...)`, `declare -a b=(...)`, `b[x]=1`) or an assignment to an
//! integer variable (`y=x`, `export y=x`, `for y in x`, `${y:=x}`, `read`, `printf -v`,
//! `mapfile`, `getopts`, `eval`) or through a nameref, to one of bash's own integers
//! (`RANDOM=x`, `export OPTIND=x`, `read RANDOM`), by `for ((…))`, `${x@P}`,
//! `${#a[x]}`, `${a[x]:=1}` or `local a[x]=1`; strings run later by an interactive
//! child shell (`PROMPT_COMMAND`, `PS0`), `command_not_found_handle` or an exported
//! function; program words and paths written as extended patterns (`@(rm)`,
//! `+(r)m`, `!(x|…)`, after `shopt -s extglob`); inline interpreter code; paths
//! to `secrets/key.pem` through globs, braces, `~+`, `$PWD`, variables, `cd`, `cd`
//! through `CDPATH`, `pushd`'s stack; the file
//! commands `cat`, `head`, `tail`, `grep`, `grep -r`, `rg`).
//!
//! The command runs in real bash (`bash --norc --noprofile -c CMD`) in a scratch
//! folder holding `secrets/key.pem`, `x/key.pem`, `.hidden/key.pem`, `build/`, a
//! `home/` (`HOME`) and `shims/`: one executable script per program name, first on
//! `PATH`, which records its name, its working folder and its arguments and exits 0
//! (`python3`, `perl` and `node` then run the real interpreter, so code they are given
//! runs, and what it starts is recorded too). The environment is cleared but for
//! `PATH` and `HOME`, stdin is `/dev/null`, a run past 5 s is killed and skipped.
//!
//! The oracle: the policy denies `Bash(rm:*)`, `Bash(touch:*)`, `Bash(curl:*)` and
//! `Read(./secrets/**)`. A recorded `rm`/`touch`/`curl` meets its Bash rule (by
//! basename); a recorded file command (`cat`, `head`, `tail`, `grep`, `rg`) meets the
//! Read rule when one of its path arguments, resolved against its recorded working
//! folder, lies under `secrets/` (for `grep -r`/`-R` and `rg`, also a folder that
//! holds `secrets/`; `rg` with no path reads `.`). Whenever bash met a rule,
//! `permissions::decide` on the same command (cwd the scratch folder, home
//! `scratch/home`) must deny, or ask naming a rule.
//!
//! Run: `cargo nextest run -p permissions --test bash_oracle` (or `cargo test -p
//! permissions --test bash_oracle -- --nocapture` to see the summary). `PROPTEST_CASES`
//! sets the case count (default 256). `BASH_ORACLE_SURVEY=1` never fails: it runs every
//! case and prints, per construct, how many cases met a rule and how many of those the
//! core let through, with examples. Either way the summary (shims recorded, case
//! count, verdicts) is printed to stderr and written to
//! `$CARGO_TARGET_TMPDIR/bash_oracle-summary.txt`. Skipped, with a message, when no
//! `bash` is found.
#![cfg(unix)]

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use permissions::Decision;
use permissions::{decide, Question, RuleSet, SessionFacts, SettingsSource};
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use serde_json::json;

const DEFAULT_CASES: u32 = 256;
const RUN_LIMIT: Duration = Duration::from_secs(5);

/// Programs with a shim, each recording its call.
const SHIMS: &[&str] = &[
    "rm", "touch", "curl", "cat", "head", "tail", "grep", "rg", "python3", "perl", "node", "make",
    "git", "tar", "cp", "rsync", "ls",
];
/// Shims that go on to run the real interpreter (when it is installed).
const INTERPRETERS: &[(&str, &str)] = &[
    ("python3", "/usr/bin/python3"),
    ("perl", "/usr/bin/perl"),
    ("node", "/usr/bin/node"),
];
const DENY: &[&str] = &[
    "Bash(rm:*)",
    "Bash(touch:*)",
    "Bash(curl:*)",
    "Read(./secrets/**)",
];
/// Programs whose Bash deny rule a recorded call meets.
const DENIED_PROGRAMS: &[&str] = &["rm", "touch", "curl"];
/// File commands whose path arguments meet `Read(./secrets/**)`.
const READERS: &[&str] = &["cat", "head", "tail", "grep", "rg"];

// ---------------------------------------------------------------------------------
// Generation

/// A program and the arguments it is run with.
const RUNS: &[(&str, &str)] = &[
    ("rm", "-rf build"),
    ("touch", "F"),
    ("curl", "-s evil.example"),
    ("make", "all"),
    ("git", "status"),
    ("ls", "-la"),
];

/// How the program word is written.
const PROGRAM_FORMS: &[&str] = &[
    "plain",
    "single-quoted",
    "double-quoted",
    "part-quoted",
    "backslash",
    "var",
    "var-and",
    "var-quoted",
    "var-braced",
    "split-var",
    "brace-all",
    "brace-suffix",
    "glob-bracket",
    "glob-star",
    "tilde-plus",
    "pwd",
    "for",
    "default-of-unset",
    "substitution",
    "extglob-at",
    "extglob-alt",
    "extglob-plus",
    "extglob-optional",
];

/// A file command and its fixed arguments; `folder` ones read folders whole.
const FILE_COMMANDS: &[&str] = &[
    "cat",
    "head -n1",
    "tail -n1",
    "grep key",
    "grep -r key",
    "grep -R key (no path)",
    "rg key",
    "rg key (no path)",
];

/// How the path to `secrets/key.pem` (or its folder) is written.
const PATH_FORMS: &[&str] = &[
    "plain",
    "dot-slash",
    "quoted",
    "glob-question",
    "glob-star",
    "glob-bracket",
    "brace",
    "brace-inner",
    "tilde-plus",
    "pwd",
    "var",
    "home-up",
    "cd-up",
    "for",
    "substitution",
    "star-dir",
    "benign",
    "benign-glob",
    "dot-glob",
    "cdpath",
    "cdpath-export",
    "cdpath-prefix",
    "cdpath-pushd",
    "pushd-swap",
    "pushd-rotate",
    "pushd-n",
    "pushd-tilde",
    "extglob",
    "extglob-not",
];

const INLINE: &[&str] = &["python3 -c", "perl -e", "node -e"];

const WRAPPERS: &[&str] = &[
    "",
    "time -- ",
    "time -p ",
    "env ",
    "env -- ",
    "nice ",
    "nice -n 5 -- ",
    "timeout 5 ",
    "command ",
    "xargs ",
];

const CONTAINERS: &[&str] = &[
    "direct",
    "after-true",
    "after-semicolon",
    "subshell",
    "group",
    "if",
    "pipe",
    "substitution",
    "backticks",
    "arith-bracket",
    "arith-paren",
    "arith-subscript",
    "test-v",
    "double-bracket-v",
    "let",
    "printf-v",
    "declare",
    "trap",
    "eval",
    "sh-c",
    "bash-c",
    "substring-offset",
    "substring-length",
    "slice-offset",
    "compound-subscript",
    "compound-append",
    "declare-compound",
    "element-subscript",
    "integer-assign",
    "integer-export",
    "integer-for",
    "integer-default",
    "integer-read",
    "integer-printf",
    "integer-mapfile",
    "integer-getopts",
    "integer-eval",
    "nameref-subscript",
    "fc",
    "fc-e",
    "histexpand",
    "random-assign",
    "optind-export",
    "special-integer-read",
    "arith-for",
    "prompt-expansion",
    "length-subscript",
    "default-subscript",
    "local-subscript",
    "prompt-command",
    "ps0",
    "not-found-handler",
    "exported-function",
];

#[derive(Debug, Clone)]
enum Action {
    Run(&'static str, &'static str, &'static str),
    Read(&'static str, &'static str),
    Inline(&'static str, &'static str, &'static str),
}

#[derive(Debug, Clone)]
struct Case {
    command: String,
    labels: Vec<String>,
}

fn action() -> impl Strategy<Value = Action> {
    prop_oneof![
        3 => (select(RUNS), select(PROGRAM_FORMS)).prop_map(|((p, a), f)| Action::Run(p, a, f)),
        3 => (select(FILE_COMMANDS), select(PATH_FORMS)).prop_map(|(c, f)| Action::Read(c, f)),
        1 => (select(INLINE), select(RUNS)).prop_map(|(i, (p, a))| Action::Inline(i, p, a)),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        action(),
        select(WRAPPERS),
        select(CONTAINERS),
        any::<bool>(),
    )
        .prop_map(|(a, w, c, outside)| build(&a, w, c, outside))
}

/// Bash single quotes around `s`.
fn sq(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A simple command (or loop) and the assignments / `cd` it needs before it.
struct Simple {
    setup: String,
    body: String,
}

fn wrapped(wrapper: &str, word_and_args: &str) -> String {
    if wrapper == "xargs " {
        format!("xargs {word_and_args} < /dev/null")
    } else {
        format!("{wrapper}{word_and_args}")
    }
}

#[allow(clippy::panic)]
fn program_command(p: &str, args: &str, form: &str, wrapper: &str) -> Simple {
    let (first, rest) = p.split_at(1);
    let (init, last) = p.split_at(p.len() - 1);
    let mut setup = String::new();
    let word = match form {
        "plain" => p.to_owned(),
        "single-quoted" => format!("'{p}'"),
        "double-quoted" => format!("\"{p}\""),
        "part-quoted" => format!("{first}'{rest}'"),
        "backslash" => format!("\\{p}"),
        "var" => {
            setup = format!("X={p}; ");
            "$X".to_owned()
        }
        "var-and" => {
            setup = format!("X={p} && ");
            "$X".to_owned()
        }
        "var-quoted" => {
            setup = format!("X={p}; ");
            "\"$X\"".to_owned()
        }
        "var-braced" => {
            setup = format!("X={p}; ");
            "${X}".to_owned()
        }
        "split-var" => {
            setup = format!("A={first}; B={rest}; ");
            "$A$B".to_owned()
        }
        "brace-all" => {
            let words: Vec<&str> = std::iter::once(p).chain(args.split(' ')).collect();
            let body = wrapped(wrapper, &format!("{{{}}}", words.join(",")));
            return Simple { setup, body };
        }
        "brace-suffix" => format!("{first}{{{rest},}}"),
        "glob-bracket" => format!("shims/{init}[{last}]"),
        "glob-star" => format!("shims/{p}*"),
        "tilde-plus" => format!("~+/shims/{p}"),
        "pwd" => format!("$PWD/shims/{p}"),
        "for" => {
            let inner = wrapped(wrapper, &format!("$w {args}"));
            let body = format!("for w in {p}; do {inner}; done");
            return Simple { setup, body };
        }
        "default-of-unset" => format!("${{NOPE:-{p}}}"),
        "substitution" => format!("$(echo {p})"),
        // Extended patterns: bash parses a line whole before running it, so the
        // option is set on a line of its own.
        "extglob-at" | "extglob-alt" | "extglob-plus" | "extglob-optional" => {
            setup = "shopt -s extglob\n".to_owned();
            match form {
                "extglob-at" => format!("shims/@({p})"),
                "extglob-alt" => format!("shims/@({p}|nosuch)"),
                "extglob-plus" => format!("shims/+({first}){rest}"),
                _ => format!("shims/?(zz){p}"),
            }
        }
        other => panic!("program form {other}"),
    };
    Simple {
        setup,
        body: wrapped(wrapper, &format!("{word} {args}")),
    }
}

#[allow(clippy::panic)]
fn read_command(cmd: &str, form: &str, wrapper: &str) -> Simple {
    let no_path = cmd.ends_with("(no path)");
    let cmd = cmd.trim_end_matches(" (no path)");
    let folder = cmd.contains(" -r") || cmd.contains(" -R") || cmd.starts_with("rg");
    let mut setup = String::new();
    if no_path {
        let setup = if form == "cd-up" {
            "cd secrets && "
        } else {
            ""
        }
        .to_owned();
        return Simple {
            setup,
            body: wrapped(wrapper, cmd),
        };
    }
    // (a file path, a folder path)
    let (file, dir) = match form {
        "plain" => ("secrets/key.pem", "secrets"),
        "dot-slash" => ("./secrets/key.pem", "."),
        "quoted" => ("\"secrets/key.pem\"", "\"secrets\""),
        "glob-question" => ("secr?ts/key.pem", "secr?ts"),
        "glob-star" => ("secrets/*", "s*"),
        "glob-bracket" => ("s[e]crets/key.pem", "s[e]crets"),
        "brace" => ("{secrets,x}/key.pem", "{secrets,x}"),
        "brace-inner" => ("secrets/{key,none}.pem", "{x,secrets}"),
        "tilde-plus" => ("~+/secrets/key.pem", "~+"),
        "pwd" => ("$PWD/secrets/key.pem", "$PWD"),
        "var" => {
            setup = "D=secrets; ".to_owned();
            ("$D/key.pem", "$D")
        }
        "home-up" => ("~/../secrets/key.pem", "~/.."),
        "cd-up" => {
            setup = "cd x && ".to_owned();
            ("../secrets/key.pem", "..")
        }
        "for" => {
            let target = if folder { "secrets" } else { "secrets/key.pem" };
            let inner = wrapped(wrapper, &format!("{cmd} \"$f\""));
            return Simple {
                setup,
                body: format!("for f in {target}; do {inner}; done"),
            };
        }
        "substitution" => ("$(echo secrets)/key.pem", "$(echo .)"),
        "star-dir" => ("*/key.pem", "*"),
        "benign" => ("x/key.pem", "x"),
        "benign-glob" => ("x/*", "x/*"),
        "dot-glob" => (".*/key.pem", ".hid*"),
        // `cd` searches `CDPATH` first (bash 5.2): `cd secrets` from `x` reaches
        // `secrets` through an entry naming the scratch folder.
        "cdpath" => {
            setup = "CDPATH=$PWD; cd x && cd secrets && ".to_owned();
            ("key.pem", ".")
        }
        "cdpath-export" => {
            setup = "export CDPATH=$PWD; cd x && cd secrets && ".to_owned();
            ("key.pem", ".")
        }
        "cdpath-prefix" => {
            setup = "cd x && CDPATH=$OLDPWD cd secrets && ".to_owned();
            ("key.pem", ".")
        }
        "cdpath-pushd" => {
            setup = "CDPATH=$PWD; pushd x && pushd secrets && ".to_owned();
            ("key.pem", ".")
        }
        // `pushd` alone swaps back, `+1` rotates back, `-n` moves nowhere.
        "pushd-swap" => {
            setup = "pushd secrets && pushd .. && pushd && ".to_owned();
            ("key.pem", ".")
        }
        "pushd-rotate" => {
            setup = "pushd secrets && pushd .. && pushd +1 && ".to_owned();
            ("key.pem", ".")
        }
        // `~1` is the second entry of the stack.
        "pushd-tilde" => {
            setup = "pushd secrets && pushd .. && ".to_owned();
            ("~1/key.pem", "~1")
        }
        "pushd-n" => {
            setup = "pushd -n x && ".to_owned();
            ("secrets/key.pem", "secrets")
        }
        "extglob" => {
            setup = "shopt -s extglob\n".to_owned();
            ("@(secrets|nosuch)/key.pem", "@(secrets)")
        }
        "extglob-not" => {
            setup = "shopt -s extglob\n".to_owned();
            ("!(x|build|home|shims)/key.pem", "!(x|build|home|shims)")
        }
        other => panic!("path form {other}"),
    };
    let path = if folder { dir } else { file };
    Simple {
        setup,
        body: wrapped(wrapper, &format!("{cmd} {path}")),
    }
}

#[allow(clippy::panic)]
fn inline_command(interpreter: &str, p: &str, args: &str, wrapper: &str) -> Simple {
    let run = format!("{p} {args}");
    let code = match interpreter {
        "python3 -c" => format!("import os; os.system(\"{run}\")"),
        "perl -e" => format!("system(\"{run}\")"),
        "node -e" => format!("require(\"child_process\").execSync(\"{run}\")"),
        other => panic!("interpreter {other}"),
    };
    Simple {
        setup: String::new(),
        body: wrapped(wrapper, &format!("{interpreter} {}", sq(&code))),
    }
}

#[allow(clippy::panic)]
fn build(a: &Action, wrapper: &'static str, container: &'static str, outside: bool) -> Case {
    let (simple, mut labels) = match a {
        Action::Run(p, args, form) => (
            program_command(p, args, form, wrapper),
            vec![format!("program {p}"), format!("program form {form}")],
        ),
        Action::Read(cmd, form) => {
            let form = if cmd.ends_with("(no path)") {
                if *form == "cd-up" {
                    "cd-up"
                } else {
                    "none"
                }
            } else {
                form
            };
            (
                read_command(cmd, form, wrapper),
                vec![format!("file command {cmd}"), format!("path form {form}")],
            )
        }
        Action::Inline(i, p, args) => (
            inline_command(i, p, args, wrapper),
            vec![format!("inline {i}"), format!("program {p}")],
        ),
    };
    labels.push(format!("wrapper {}", wrapper.trim()));
    labels.push(format!("container {container}"));
    // Containers that are strings (or new shells) take the setup inside; the others
    // take it before them or inside, as `outside` says.
    let string_like = !matches!(
        container,
        "direct" | "after-true" | "after-semicolon" | "subshell" | "group" | "if" | "pipe"
    );
    let (before, inner) = if outside && !string_like && !simple.setup.is_empty() {
        labels.push("setup outside".to_owned());
        (simple.setup.clone(), simple.body.clone())
    } else {
        (String::new(), format!("{}{}", simple.setup, simple.body))
    };
    let contained = match container {
        "direct" => inner,
        "after-true" => format!("true && {inner}"),
        "after-semicolon" => format!(": ; {inner}"),
        "subshell" => format!("( {inner} )"),
        "group" => format!("{{ {inner}; }}"),
        "if" => format!("if true; then {inner}; fi"),
        "pipe" => format!("echo | {inner}"),
        "substitution" => format!("echo $({inner})"),
        "backticks" => format!("echo `{inner}`"),
        "arith-bracket" => format!("echo $[ $({inner}) ]"),
        "arith-paren" => format!(": $(( $({inner}) ))"),
        "arith-subscript" => format!("echo $[ {} ]", sq(&format!("x[$({inner})]"))),
        "test-v" => format!("test -v {}", sq(&format!("a[$({inner})]"))),
        "double-bracket-v" => format!("[[ -v {} ]]", sq(&format!("a[$({inner})]"))),
        "let" => format!("let {}", sq(&format!("a[$({inner})]=1"))),
        "printf-v" => format!("printf -v {} x", sq(&format!("a[$({inner})]"))),
        "declare" => format!("declare {}", sq(&format!("a[$({inner})]=1"))),
        "trap" => format!("trap {} EXIT", sq(&inner)),
        "eval" => format!("eval {}", sq(&inner)),
        "sh-c" => format!("sh -c {}", sq(&inner)),
        "bash-c" => format!("bash -c {}", sq(&inner)),
        // Strings from the history list, run by `fc` or history expansion (bash 5.2).
        "fc" => format!("history -s {}; fc -s", sq(&inner)),
        "fc-e" => format!("history -s :; fc -e {} -1", sq(&format!("{inner};"))),
        "histexpand" => format!("set -o history -H; history -s {}\n!!", sq(&inner)),
        // Strings an interactive child shell, a handler or an exported function runs.
        "prompt-command" => format!("PROMPT_COMMAND={} bash -i <<< ''", sq(&inner)),
        "ps0" => format!("PS0={} bash -i <<< true", sq(&format!("$({inner})"))),
        "not-found-handler" => {
            format!("command_not_found_handle() {{ {inner}; }}; nosuch_program")
        }
        "exported-function" => format!("f() {{ {inner}; }}; export -f f; bash -c f"),
        // A variable holding `a[$(...)]`, then a place bash evaluates it as arithmetic.
        arith => {
            let x = format!("x={}; ", sq(&format!("a[$({inner})]")));
            let tail = match arith {
                "substring-offset" => "echo ${@:x}",
                "substring-length" => "echo ${*:0:x}",
                "slice-offset" => "v=(1 2); echo ${v[@]:x:1}",
                "compound-subscript" => "b=([x]=1)",
                "compound-append" => "b+=(1 [x]=2)",
                "declare-compound" => "declare -a b=([x]=1)",
                "element-subscript" => "b[x]=1",
                "integer-assign" => "declare -i y; y=x",
                "integer-export" => "typeset -i y; export y=x",
                "integer-for" => "declare -i y; for y in x; do :; done",
                "integer-default" => "declare -i y; : ${y:=x}",
                "integer-read" => "declare -i y; read y <<< x",
                "integer-printf" => "declare -i y; printf -v y %s x",
                "integer-mapfile" => "declare -i y; mapfile -t y <<< x",
                "integer-getopts" => "declare -i y; getopts x y -x",
                "integer-eval" => "declare -i y; eval 'y=x'",
                "nameref-subscript" => "declare -n r=x; (( r ))",
                // bash's own integers, and the other places the manual evaluates.
                "random-assign" => "RANDOM=x",
                "optind-export" => "export OPTIND=x",
                "special-integer-read" => "read RANDOM <<< x",
                "arith-for" => "for ((i=x; i<1; i++)); do :; done",
                "prompt-expansion" => "y=\"${x@P}\"",
                "length-subscript" => "a=(1); echo ${#a[x]}",
                "default-subscript" => ": ${a[x]:=1}",
                "local-subscript" => "f() { local a[x]=1; }; f",
                other => panic!("container {other}"),
            };
            format!("{x}{tail}")
        }
    };
    Case {
        command: format!("{before}{contained}"),
        labels,
    }
}

// ---------------------------------------------------------------------------------
// Running in bash

struct Scratch {
    _dir: tempfile::TempDir,
    root: PathBuf,
    log: PathBuf,
}

#[allow(clippy::unwrap_used)]
fn scratch() -> Scratch {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    for (rel, content) in [
        ("secrets/key.pem", "-----BEGIN KEY-----\n"),
        ("x/key.pem", "not a secret\n"),
        (".hidden/key.pem", "-----BEGIN HIDDEN KEY-----\n"),
        ("build/a.o", "obj\n"),
    ] {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }
    std::fs::create_dir_all(root.join("home")).unwrap();
    let shims = root.join("shims");
    std::fs::create_dir_all(&shims).unwrap();
    let log = root.join("shims.log");
    for name in SHIMS {
        // One record a call: name, working folder, arguments, each ended by \037;
        // the record ended by \036.
        let mut script = format!(
            "#!/bin/sh\n{{ printf '%s\\037' {name} \"$(pwd)\"; for a in \"$@\"; do printf '%s\\037' \"$a\"; done; printf '\\036'; }} >> '{}'\n",
            log.display()
        );
        match INTERPRETERS.iter().find(|(n, _)| n == name) {
            Some((_, real)) if Path::new(real).exists() => {
                let _ = writeln!(script, "exec {real} \"$@\"");
            }
            _ => script.push_str("exit 0\n"),
        }
        let p = shims.join(name);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    Scratch {
        _dir: dir,
        root,
        log,
    }
}

/// One recorded call: the shim's name, its working folder, its arguments.
#[derive(Debug)]
struct Call {
    program: String,
    cwd: PathBuf,
    args: Vec<String>,
}

/// Runs `command` in bash in `s`; `None` when it ran past the limit.
#[allow(clippy::unwrap_used)]
fn run_bash(bash: &Path, s: &Scratch, command: &str) -> Option<Vec<Call>> {
    let mut child = Command::new(bash)
        .args(["--norc", "--noprofile", "-c", command])
        .current_dir(&s.root)
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", s.root.join("shims").display()),
        )
        .env("HOME", s.root.join("home"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + RUN_LIMIT;
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if Instant::now() > deadline {
            // The process group this test started for this one case.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let raw = std::fs::read(&s.log).unwrap_or_default();
    let text = String::from_utf8_lossy(&raw);
    Some(
        text.split('\u{1e}')
            .filter(|r| !r.is_empty())
            .filter_map(|r| {
                let mut fields = r.split('\u{1f}');
                let program = fields.next()?.to_owned();
                let cwd = PathBuf::from(fields.next()?);
                let mut args: Vec<String> = fields.map(str::to_owned).collect();
                // Each field ends with \037: the last split is empty.
                if args.last().is_some_and(String::is_empty) {
                    args.pop();
                }
                Some(Call { program, cwd, args })
            })
            .collect(),
    )
}

/// `p` with `.` and `..` resolved lexically (then through the file system when it
/// exists).
fn normalize(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The rules of [`DENY`] bash met in `calls`.
#[allow(clippy::indexing_slicing)]
fn rules_met(calls: &[Call], root: &Path) -> BTreeSet<&'static str> {
    let secrets = root.join("secrets");
    let mut met = BTreeSet::new();
    for call in calls {
        let p = call.program.as_str();
        if let Some(i) = DENIED_PROGRAMS.iter().position(|d| *d == p) {
            met.insert(DENY[i]);
        }
        if !READERS.contains(&p) {
            continue;
        }
        let mut positional = Vec::new();
        let mut recursive = p == "rg";
        let mut options_done = false;
        for a in &call.args {
            if !options_done && a == "--" {
                options_done = true;
            } else if !options_done && a.starts_with('-') && a.len() > 1 {
                if p == "grep"
                    && (a == "--recursive"
                        || a == "--dereference-recursive"
                        || (!a.starts_with("--") && (a.contains('r') || a.contains('R'))))
                {
                    recursive = true;
                }
            } else {
                positional.push(a.as_str());
            }
        }
        if matches!(p, "grep" | "rg") && !positional.is_empty() {
            positional.remove(0); // the pattern
        }
        if recursive && positional.is_empty() {
            positional.push(".");
        }
        for path in positional {
            let full = normalize(&call.cwd.join(path));
            if full.starts_with(&secrets) || (recursive && secrets.starts_with(&full)) {
                met.insert("Read(./secrets/**)");
            }
        }
    }
    met
}

// ---------------------------------------------------------------------------------
// The property and its summary

#[derive(Default)]
struct Stats {
    cases: usize,
    timeouts: usize,
    met: usize,
    let_through: usize,
    /// Shim name → calls recorded.
    recorded: BTreeMap<String, usize>,
    /// The core's decision on cases where bash met no rule.
    unmet_verdicts: BTreeMap<String, usize>,
    /// Label → (cases that met a rule, of those let through).
    by_label: BTreeMap<String, (usize, usize)>,
    /// Label → the shortest commands let through.
    examples: BTreeMap<String, Vec<String>>,
}

static STATS: Mutex<Option<Stats>> = Mutex::new(None);

fn with_stats<T>(f: impl FnOnce(&mut Stats) -> T) -> T {
    let mut guard = STATS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(guard.get_or_insert_with(Stats::default))
}

fn find_bash() -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/bin"), PathBuf::from("/usr/bin")])
        .map(|d| d.join("bash"))
        .find(|p| p.is_file())
}

fn check(bash: &Path, rules: &RuleSet, case: &Case, survey: bool) -> Result<(), TestCaseError> {
    let s = scratch();
    let Some(calls) = run_bash(bash, &s, &case.command) else {
        with_stats(|st| st.timeouts += 1);
        return Ok(());
    };
    let met = rules_met(&calls, &s.root);
    let facts = SessionFacts::new(&s.root, s.root.join("home"));
    let input = json!({ "command": case.command });
    let verdict = decide(
        rules,
        &Question {
            tool: "Bash",
            input: &input,
        },
        &facts,
    );
    let held = verdict.decision == Decision::Deny
        || (verdict.decision == Decision::Ask && verdict.rule.is_some());
    with_stats(|st| {
        st.cases += 1;
        for c in &calls {
            *st.recorded.entry(c.program.clone()).or_default() += 1;
        }
        if met.is_empty() {
            let d = format!(
                "{:?}{}",
                verdict.decision,
                if verdict.rule.is_some() {
                    " naming a rule"
                } else {
                    ""
                }
            );
            *st.unmet_verdicts.entry(d).or_default() += 1;
            return;
        }
        st.met += 1;
        st.let_through += usize::from(!held);
        for l in &case.labels {
            let e = st.by_label.entry(l.clone()).or_default();
            e.0 += 1;
            if !held {
                e.1 += 1;
                // The three shortest, the easiest to read.
                let ex = st.examples.entry(l.clone()).or_default();
                if !ex.contains(&case.command) {
                    ex.push(case.command.clone());
                    ex.sort_by_key(String::len);
                    ex.truncate(3);
                }
            }
        }
    });
    if met.is_empty() || held || survey {
        return Ok(());
    }
    let shown: Vec<String> = calls
        .iter()
        .map(|c| format!("{} {:?} (in {})", c.program, c.args, c.cwd.display()))
        .collect();
    Err(TestCaseError::fail(format!(
        "bash met {met:?} running {:?} (calls: {shown:?}), but the core answered {} — \
         SPEC §4: what the core cannot see it never lets through (a deny, or an ask naming the rule)",
        case.command,
        serde_json::to_string(&verdict).unwrap_or_default()
    )))
}

fn summary(cases: u32, survey: bool) -> String {
    with_stats(|st| {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "bash_oracle: {cases} cases asked, {} run, {} skipped (past {}s); {} met a deny rule in bash, {} of those let through by the core{}",
            st.cases,
            st.timeouts,
            RUN_LIMIT.as_secs(),
            st.met,
            st.let_through,
            if survey {
                " (survey: not failing)"
            } else {
                " (counts include the shrinking steps after a failure)"
            }
        );
        let recorded: Vec<String> = st
            .recorded
            .iter()
            .map(|(k, v)| format!("{k}×{v}"))
            .collect();
        let _ = writeln!(out, "shims recorded: {}", recorded.join(" "));
        let unmet: Vec<String> = st
            .unmet_verdicts
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        let _ = writeln!(out, "verdicts where bash met no rule: {}", unmet.join(", "));
        let _ = writeln!(out, "per construct (cases that met a rule / let through):");
        for (label, (m, lt)) in &st.by_label {
            let _ = writeln!(out, "  {label}: {m} / {lt}");
            for ex in st.examples.get(label).into_iter().flatten() {
                let _ = writeln!(out, "      e.g. {ex:?}");
            }
        }
        out
    })
}

#[test]
fn bash_is_the_oracle_for_what_the_core_cannot_see() {
    let Some(bash) = find_bash() else {
        eprintln!("bash_oracle: skipped, no bash found on PATH, /bin or /usr/bin");
        return;
    };
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES);
    let survey = std::env::var_os("BASH_ORACLE_SURVEY").is_some_and(|v| v != "0");
    let deny: Vec<&str> = DENY.to_vec();
    let policy = json!({ "permissions": { "deny": deny } });
    let (rules, warnings) = RuleSet::from_sources(&[(SettingsSource::Policy, &policy)]);
    assert!(warnings.is_empty(), "{warnings:?}");
    let config = Config {
        cases,
        failure_persistence: None,
        max_shrink_iters: 512,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&case(), |c| check(&bash, &rules, &c, survey));
    let text = summary(cases, survey);
    eprint!("{text}");
    let file = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bash_oracle-summary.txt");
    if std::fs::write(&file, &text).is_ok() {
        eprintln!("bash_oracle: summary written to {}", file.display());
    }
    if let Err(e) = result {
        panic!("bash_oracle: {e}");
    }
}

/// The harness itself: the shims record what bash ran, and the oracle reads it.
#[test]
fn the_shims_record_what_bash_runs() {
    let Some(bash) = find_bash() else {
        eprintln!("bash_oracle: skipped, no bash found");
        return;
    };
    let s = scratch();
    let calls = run_bash(
        &bash,
        &s,
        "X=rm; $X -rf build; cat {x,secrets}/key.pem; cd x && rg key ..",
    )
    .unwrap();
    let programs: Vec<&str> = calls.iter().map(|c| c.program.as_str()).collect();
    assert_eq!(programs, ["rm", "cat", "rg"]);
    assert_eq!(calls[1].args, ["x/key.pem", "secrets/key.pem"]);
    assert_eq!(calls[2].cwd, s.root.join("x"));
    let met = rules_met(&calls, &s.root);
    assert_eq!(
        met.into_iter().collect::<Vec<_>>(),
        ["Bash(rm:*)", "Read(./secrets/**)"]
    );
    let s = scratch();
    let benign = run_bash(&bash, &s, "grep -r key x; cat .*/key.pem; echo rm").unwrap();
    assert_eq!(benign.len(), 2, "{benign:?}");
    assert!(rules_met(&benign, &s.root).is_empty(), "{benign:?}");
}
