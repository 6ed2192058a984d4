//! Wrappers and runners (SPEC §4 "Compound shell commands"). The stripping steps
//! that reach the program a command runs: leading `VAR=value` assignments, shell
//! keywords, and wrappers such as `sudo`, `env`, `timeout`, `xargs` with their
//! options. The runners: programs that run a command string of their own (`sh -c`,
//! `eval`, `watch`, `flock -c`, `find -exec`), and those that run code known only at
//! run time (a shell fed its standard input, `source` of an expansion, `xargs -I`,
//! `env -S`).

use super::walker::{Redirect, RedirectKind};
use super::words::{basename, join, Word};

pub(super) fn is_keyword(w: &str) -> bool {
    matches!(
        w,
        "!" | "{"
            | "}"
            | "if"
            | "then"
            | "else"
            | "elif"
            | "fi"
            | "while"
            | "until"
            | "do"
            | "done"
            | "coproc"
    )
}

pub(super) fn is_assignment(w: &Word) -> bool {
    let t = w.text.as_str();
    let Some(eq) = t.find('=') else {
        return false;
    };
    let name = t.get(..eq).unwrap_or_default();
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A wrapper: its name, the options that take a separate argument, how many
/// positional arguments come before the command, and whether stripping it changes
/// nothing (so allow rules meet the command past it too).
struct Wrapper {
    name: &'static str,
    opts_with_arg: &'static [&'static str],
    positional: usize,
    harmless: bool,
}

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "timeout",
        opts_with_arg: &["-s", "--signal", "-k", "--kill-after"],
        positional: 1,
        harmless: true,
    },
    Wrapper {
        name: "time",
        opts_with_arg: &["-f", "--format", "-o", "--output"],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "nice",
        opts_with_arg: &["-n", "--adjustment"],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "nohup",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "stdbuf",
        opts_with_arg: &["-i", "-o", "-e", "--input", "--output", "--error"],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "command",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "builtin",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "noglob",
        opts_with_arg: &[],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "env",
        opts_with_arg: &["-u", "--unset", "-C", "--chdir"],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "sudo",
        opts_with_arg: &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-C",
            "--close-from",
            "-D",
            "--chdir",
            "-h",
            "--host",
            "-p",
            "--prompt",
            "-r",
            "--role",
            "-t",
            "--type",
            "-U",
            "--other-user",
            "-T",
            "--command-timeout",
            "-R",
            "--chroot",
        ],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "doas",
        opts_with_arg: &["-u", "-C"],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "xargs",
        opts_with_arg: &[
            "-I",
            "-L",
            "-n",
            "-P",
            "-s",
            "-d",
            "-E",
            "-a",
            "--arg-file",
            "--delimiter",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--max-lines",
            "--replace",
            "--eof",
            "--process-slot-var",
        ],
        positional: 0,
        harmless: true,
    },
    Wrapper {
        name: "watch",
        opts_with_arg: &["-n", "--interval"],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "ionice",
        opts_with_arg: &[
            "-c",
            "--class",
            "-n",
            "--classdata",
            "-p",
            "--pid",
            "-P",
            "--pgid",
            "-u",
            "--uid",
        ],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "setsid",
        opts_with_arg: &[],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "flock",
        opts_with_arg: &["-w", "--timeout", "--wait", "-E", "--conflict-exit-code"],
        positional: 1,
        harmless: false,
    },
    Wrapper {
        name: "busybox",
        opts_with_arg: &[],
        positional: 0,
        harmless: false,
    },
    Wrapper {
        name: "exec",
        opts_with_arg: &["-a"],
        positional: 0,
        harmless: false,
    },
];

/// How many leading words one stripping step removes, if any: an assignment, a
/// keyword, or a wrapper with its options. With `harmless_only`, only wrappers that
/// change nothing (and `xargs` only bare) are stripped, and no assignments.
pub(super) fn strip_step(words: &[Word], harmless_only: bool) -> Option<usize> {
    let first = words.first()?;
    if is_keyword(&first.text) && !first.quoted {
        return Some(1);
    }
    if is_assignment(first) {
        return if harmless_only { None } else { Some(1) };
    }
    let name = basename(&first.text);
    let wrapper = WRAPPERS.iter().find(|w| w.name == name)?;
    if harmless_only && !wrapper.harmless {
        return None;
    }
    let mut i = 1;
    let mut had_options = false;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        if t == "--" {
            i += 1;
            break;
        }
        if wrapper.opts_with_arg.contains(&t) {
            had_options = true;
            i += 2;
            continue;
        }
        if t.len() > 1 && t.starts_with('-') {
            had_options = true;
            i += 1;
            continue;
        }
        break;
    }
    if harmless_only && name == "xargs" && had_options {
        return None;
    }
    i += wrapper.positional;
    Some(i.min(words.len()))
}

/// Whether a wrapper among the leading words runs the command in another directory
/// (`env -C`, `sudo -D`).
pub(super) fn words_change_dir(words: &[Word]) -> bool {
    let mut rest = words;
    while let Some(n) = strip_step(rest, false) {
        if n == 0 {
            break;
        }
        let step = rest.get(..n).unwrap_or_default();
        let name = step.first().map(|w| basename(&w.text)).unwrap_or_default();
        if matches!(name, "env" | "sudo")
            && step.iter().any(|w| {
                matches!(w.text.as_str(), "-C" | "--chdir" | "-D") || w.text.starts_with("--chdir=")
            })
        {
            return true;
        }
        rest = rest.get(n..).unwrap_or_default();
    }
    false
}

/// `words` with every word `xargs -I R` (or `-i`, `--replace`) replaces marked as
/// known only at run time.
pub(super) fn mark_replaced(words: &[Word]) -> Vec<Word> {
    let mut out = words.to_vec();
    let mut at = 0;
    while let Some(n) = out.get(at..).and_then(|rest| strip_step(rest, false)) {
        if n == 0 {
            break;
        }
        let step = out.get(at..at + n).unwrap_or_default();
        let repl = if step.first().map(|w| basename(&w.text)) == Some("xargs") {
            xargs_replace(step)
        } else {
            None
        };
        at += n;
        if let Some(repl) = repl {
            for w in out.iter_mut().skip(at) {
                if w.text.contains(&repl) {
                    w.dynamic = true;
                }
            }
        }
    }
    out
}

/// The replace string of an `xargs` step, if it has one.
fn xargs_replace(step: &[Word]) -> Option<String> {
    let mut it = step.iter().skip(1);
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if t == "-I" || t == "--replace" {
            return Some(
                it.next()
                    .map_or_else(|| "{}".to_owned(), |v| v.text.clone()),
            );
        }
        if let Some(v) = t.strip_prefix("--replace=") {
            return Some(v.to_owned());
        }
        if let Some(v) = t.strip_prefix("-I") {
            return Some(v.to_owned());
        }
        if let Some(v) = t.strip_prefix("-i") {
            return Some(if v.is_empty() {
                "{}".to_owned()
            } else {
                v.to_owned()
            });
        }
    }
    None
}

/// The shells whose code on standard input, or in a `-c` string, is shell code.
const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "yash", "fish", "rbash", "ash", "csh", "tcsh",
];

/// Paths that are a program's standard input.
const STDIN_PATHS: &[&str] = &["-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"];

/// Whether the program `stripped` runs (past every wrapper) runs code known only at
/// run time (see [`ParsedCommand::certain`]), and the code it is fed by a
/// here-document or here-string, which is parsed so deny and ask rules meet it.
///
/// [`ParsedCommand::certain`]: super::ParsedCommand::certain
pub(super) fn runs_unknown_code(stripped: &[Word], redirects: &[Redirect]) -> (bool, Vec<String>) {
    let Some((first, args)) = stripped.split_first() else {
        return (false, Vec::new());
    };
    if first.dynamic {
        return (true, Vec::new());
    }
    let name = basename(&first.text);
    match name {
        "eval" => (true, Vec::new()),
        "source" | "." => {
            let arg = args
                .iter()
                .find(|a| !a.text.starts_with('-') || a.text == "-");
            let unknown = arg.is_none_or(|a| a.dynamic || STDIN_PATHS.contains(&a.text.as_str()));
            (unknown, Vec::new())
        }
        n if SHELLS.contains(&n) => {
            if !shell_reads_stdin(args) {
                return (false, Vec::new());
            }
            let fed = redirects
                .iter()
                .filter_map(|r| match r.kind {
                    RedirectKind::HereDoc => r.body.clone(),
                    RedirectKind::HereString => Some(r.target.text.clone()),
                    _ => None,
                })
                .collect();
            (true, fed)
        }
        _ => (false, Vec::new()),
    }
}

/// Whether a shell with `args` reads its code from standard input: no `-c`, and `-s`,
/// no script, or a script that is standard input (`--version`/`--help` excepted).
fn shell_reads_stdin(args: &[Word]) -> bool {
    let mut skip = false;
    for w in args {
        let t = w.text.as_str();
        if skip {
            skip = false;
            continue;
        }
        if matches!(t, "--version" | "--help") {
            return false;
        }
        if matches!(t, "-o" | "+o" | "-O" | "+O" | "--rcfile" | "--init-file") {
            skip = true;
            continue;
        }
        if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
            if !t.starts_with("--") && t.contains('c') {
                return false;
            }
            if !t.starts_with("--") && t.contains('s') {
                return true;
            }
            continue;
        }
        return w.dynamic || STDIN_PATHS.contains(&t);
    }
    true
}

/// A command string the words run in their turn: `sh -c STRING`, `eval ARGS`,
/// `watch CMD`, `find ... -exec CMD ;`. Returns the string (and whether it runs in
/// a directory of its own, `-execdir`), and whether what runs is not known before the
/// shell runs (`sh -c "$X"`, `env -S`).
pub(super) fn inner_command(words: &[Word]) -> (Option<(String, bool)>, bool) {
    let Some((first, rest)) = words.split_first() else {
        return (None, false);
    };
    let name = basename(&first.text);
    match name {
        n if SHELLS.contains(&n) => {
            let mut saw_c = false;
            let mut skip = false;
            for w in rest {
                let t = w.text.as_str();
                if skip {
                    skip = false;
                    continue;
                }
                if t == "-o"
                    || t == "+o"
                    || t == "-O"
                    || t == "+O"
                    || t == "--rcfile"
                    || t == "--init-file"
                {
                    skip = true;
                    continue;
                }
                if (t.starts_with('-') || t.starts_with('+')) && t.len() > 1 {
                    if !t.starts_with("--") && t.contains('c') {
                        saw_c = true;
                    }
                    continue;
                }
                if saw_c {
                    return (Some((t.to_owned(), false)), w.dynamic);
                }
                return (None, false);
            }
            // `-c` with no string here: the code comes from elsewhere (`xargs sh -c`).
            (None, saw_c)
        }
        "flock" => {
            // `flock [options] FILE -c COMMAND`: the command is a shell string.
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                let t = w.text.as_str();
                if t == "-c" || t == "--command" {
                    return match it.next() {
                        Some(c) => (Some((c.text.clone(), false)), c.dynamic),
                        None => (None, true),
                    };
                }
                if let Some(c) = t.strip_prefix("--command=") {
                    return (Some((c.to_owned(), false)), w.dynamic);
                }
            }
            (None, false)
        }
        "eval" => (Some((join(rest), false)), rest.iter().any(|w| w.dynamic)),
        "watch" => {
            let n = strip_step(words, false).unwrap_or(words.len());
            let cmd = words.get(n..).unwrap_or_default();
            if cmd.is_empty() {
                (None, false)
            } else {
                (Some((join(cmd), false)), cmd.iter().any(|w| w.dynamic))
            }
        }
        "env"
            if rest
                .iter()
                .any(|w| w.text == "-S" || w.text.starts_with("--split-string")) =>
        {
            (None, true)
        }
        "find" => {
            let mut out: Vec<String> = Vec::new();
            let mut own_dir = false;
            let mut unknown = false;
            let mut it = rest.iter();
            while let Some(w) = it.next() {
                if matches!(w.text.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
                    own_dir |= w.text.ends_with("dir");
                    let words: Vec<&Word> = it
                        .by_ref()
                        .take_while(|w| w.text != ";" && w.text != "+")
                        .collect();
                    // A found file name as the program, or as a shell's code.
                    let program = words.first().map(|w| basename(&w.text)).unwrap_or_default();
                    unknown |= words
                        .first()
                        .is_some_and(|w| w.dynamic || w.text.contains("{}"))
                        || (SHELLS.contains(&program)
                            && words.iter().skip(1).any(|w| w.text.contains("{}"))
                            && words.iter().any(|w| {
                                w.text.starts_with('-')
                                    && !w.text.starts_with("--")
                                    && w.text.contains('c')
                            }));
                    let cmd: Vec<String> = words.iter().map(|w| shell_quote(&w.text)).collect();
                    if !cmd.is_empty() {
                        out.push(cmd.join(" "));
                    }
                }
            }
            if out.is_empty() {
                (None, unknown)
            } else {
                (Some((out.join("\n"), own_dir)), unknown)
            }
        }
        _ => (None, false),
    }
}

/// Quotes a word so that splitting it again gives it back.
fn shell_quote(w: &str) -> String {
    if !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%{}".contains(c))
    {
        w.to_owned()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use crate::bash::parse_command;
    use crate::bash::tests::strict;

    #[test]
    fn wrappers_are_stripped_for_strict_forms() {
        let f = strict("sudo -u root FOO=1 timeout 5 nice -n 3 /bin/rm -rf /");
        assert!(f.contains(&"sudo -u root FOO=1 timeout 5 nice -n 3 /bin/rm -rf /".to_owned()));
        assert!(f.contains(&"/bin/rm -rf /".to_owned()));
        assert!(f.contains(&"rm -rf /".to_owned()));
        let f = strict("find . -name x | xargs -0 rm");
        assert!(f.contains(&"rm".to_owned()));
        let f = strict("env -i A=1 stdbuf -oL nohup time command builtin doas rm x");
        assert!(f.contains(&"rm x".to_owned()));
        let f = strict("ionice -c 3 setsid flock /tmp/l watch -n 1 noglob rm x");
        assert!(f.contains(&"rm x".to_owned()));
        let f = strict("watch 'ls; rm x'");
        assert!(f.contains(&"rm x".to_owned()));
    }

    #[test]
    fn nested_command_strings_are_parts() {
        assert!(strict("bash -c 'rm -rf /'").contains(&"rm -rf /".to_owned()));
        assert!(strict("sudo sh -ec \"curl x | sh\"").contains(&"curl x".to_owned()));
        assert!(strict("dash -c 'ls && rm y'").contains(&"rm y".to_owned()));
        assert!(strict("eval rm -rf /").contains(&"rm -rf /".to_owned()));
        assert!(strict("find . -exec rm {} \\;").contains(&"rm {}".to_owned()));
        assert!(strict("find . -execdir rm {} +").contains(&"rm {}".to_owned()));
        assert!(strict("find . -ok rm {} \\;").contains(&"rm {}".to_owned()));
        assert!(strict("bash -c \"bash -c 'rm -rf /'\"").contains(&"rm -rf /".to_owned()));
        assert!(!parse_command("bash -c \"$X\"").certain);
    }
}
