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

/// The options of the dynamic loader (`ld-linux-x86-64.so.2 [options] PROGRAM`) that
/// take a value.
const LD_SO_OPTS: &[&str] = &[
    "--library-path",
    "--preload",
    "--audit",
    "--argv0",
    "--inhibit-rpath",
];

impl Wrapper {
    /// The fields an entry of [`WRAPPERS`] does not spell out: no options with an
    /// argument, no positional arguments before the command, and stripping it
    /// changes what runs.
    const DEFAULT: Wrapper = Wrapper {
        name: "",
        opts_with_arg: &[],
        positional: 0,
        harmless: false,
    };
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
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "nice",
        opts_with_arg: &["-n", "--adjustment"],
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "nohup",
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "stdbuf",
        opts_with_arg: &["-i", "-o", "-e", "--input", "--output", "--error"],
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "command",
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "builtin",
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "noglob",
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "env",
        opts_with_arg: &["-u", "--unset", "-C", "--chdir"],
        ..Wrapper::DEFAULT
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
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "doas",
        opts_with_arg: &["-u", "-C"],
        ..Wrapper::DEFAULT
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
        harmless: true,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "watch",
        opts_with_arg: &["-n", "--interval"],
        ..Wrapper::DEFAULT
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
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "setsid",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "flock",
        opts_with_arg: &["-w", "--timeout", "--wait", "-E", "--conflict-exit-code"],
        positional: 1,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "busybox",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "exec",
        opts_with_arg: &["-a"],
        ..Wrapper::DEFAULT
    },
    // Runners that run their arguments as a command (SPEC §4 "Programs that run
    // their arguments as a command are wrappers too").
    Wrapper {
        name: "chronic",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "unbuffer",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "pkexec",
        opts_with_arg: &["--user"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "nsenter",
        opts_with_arg: &[
            "-t",
            "--target",
            "-S",
            "--setuid",
            "-G",
            "--setgid",
            "-w",
            "--wd",
            "-r",
            "--root",
            "-N",
            "--net-socket",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "chroot",
        opts_with_arg: &["--userspec", "--groups"],
        positional: 1,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "runuser",
        opts_with_arg: &[
            "-u",
            "--user",
            "-g",
            "--group",
            "-G",
            "--supp-group",
            "-s",
            "--shell",
        ],
        ..Wrapper::DEFAULT
    },
    // `taskset MASK CMD`, or `taskset -c LIST CMD` (then no mask).
    Wrapper {
        name: "taskset",
        opts_with_arg: &["-c", "--cpu-list"],
        positional: 1,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "unshare",
        opts_with_arg: &[
            "-S",
            "--setuid",
            "-G",
            "--setgid",
            "-R",
            "--root",
            "-w",
            "--wd",
            "--propagation",
            "--setgroups",
            "--map-user",
            "--map-group",
            "--map-users",
            "--map-groups",
            "--kill-child",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "setpriv",
        opts_with_arg: &[
            "--reuid",
            "--regid",
            "--ruid",
            "--rgid",
            "--euid",
            "--egid",
            "--groups",
            "--inh-caps",
            "--ambient-caps",
            "--bounding-set",
            "--securebits",
            "--selinux-label",
            "--apparmor-profile",
            "--pdeathsig",
            "--landlock-access",
            "--landlock-rule",
        ],
        ..Wrapper::DEFAULT
    },
    // `chrt [options] PRIORITY CMD`.
    Wrapper {
        name: "chrt",
        opts_with_arg: &[
            "-T",
            "--sched-runtime",
            "-P",
            "--sched-period",
            "-D",
            "--sched-deadline",
        ],
        positional: 1,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "prlimit",
        opts_with_arg: &["-p", "--pid", "-o", "--output"],
        ..Wrapper::DEFAULT
    },
    // `setarch ARCH CMD`; `linux32`/`linux64` take no arch.
    Wrapper {
        name: "setarch",
        positional: 1,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "linux32",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "i386",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "x86_64",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "i686",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "aarch64",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "choom",
        opts_with_arg: &["-n", "--adjust", "-p", "--pid"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "ssh-agent",
        opts_with_arg: &["-a", "-E", "-t", "-P", "-O"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "linux64",
        ..Wrapper::DEFAULT
    },
    // `perf stat|record|trace [options] CMD` (the subcommand is skipped first).
    Wrapper {
        name: "perf",
        opts_with_arg: &[
            "-o",
            "--output",
            "-e",
            "--event",
            "-p",
            "--pid",
            "-t",
            "--tid",
            "-r",
            "--repeat",
            "-G",
            "--cgroup",
            "-C",
            "--cpu",
            "-I",
            "--interval-print",
            "-x",
            "--field-separator",
            "-F",
            "--freq",
            "-c",
            "--count",
            "-m",
            "--mmap-pages",
        ],
        ..Wrapper::DEFAULT
    },
    // The dynamic loader runs the program it is given.
    Wrapper {
        name: "ld-linux-x86-64.so.2",
        opts_with_arg: LD_SO_OPTS,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "ld-linux-aarch64.so.1",
        opts_with_arg: LD_SO_OPTS,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "ld-linux.so.2",
        opts_with_arg: LD_SO_OPTS,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "ld.so",
        opts_with_arg: LD_SO_OPTS,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "numactl",
        opts_with_arg: &[
            "-N",
            "--cpunodebind",
            "-m",
            "--membind",
            "-C",
            "--physcpubind",
            "-i",
            "--interleave",
            "-p",
            "--preferred",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "cgexec",
        opts_with_arg: &["-g"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "systemd-run",
        opts_with_arg: &[
            "-u",
            "--unit",
            "-p",
            "--property",
            "-E",
            "--setenv",
            "--uid",
            "--gid",
            "--slice",
            "-M",
            "--machine",
            "-H",
            "--host",
            "--description",
            "--working-directory",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "run0",
        opts_with_arg: &[
            "-u",
            "--user",
            "-g",
            "--group",
            "--unit",
            "--property",
            "-D",
            "--chdir",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "firejail",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "fakeroot",
        opts_with_arg: &["-l", "--lib", "--faked", "-s", "-i"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "fakechroot",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "eatmydata",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "nocache",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "torsocks",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "proxychains",
        opts_with_arg: &["-f"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "proxychains4",
        opts_with_arg: &["-f"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "rlwrap",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "valgrind",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "xvfb-run",
        opts_with_arg: &[
            "-n",
            "--server-num",
            "-s",
            "--server-args",
            "-f",
            "--auth-file",
            "-e",
            "--error-file",
            "-p",
            "--xauth-protocol",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "dbus-run-session",
        opts_with_arg: &["--config-file", "--dbus-daemon"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "caffeinate",
        opts_with_arg: &["-t", "-w"],
        ..Wrapper::DEFAULT
    },
    // macOS `arch -x86_64 CMD`.
    Wrapper {
        name: "arch",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "sandbox-exec",
        opts_with_arg: &["-f", "-n", "-p", "-D"],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "faketime",
        positional: 1,
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "catchsegv",
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "strace",
        opts_with_arg: &[
            "-e", "-o", "-p", "-s", "-u", "-E", "-a", "-b", "-I", "-O", "-P", "-S", "-X",
        ],
        ..Wrapper::DEFAULT
    },
    Wrapper {
        name: "ltrace",
        opts_with_arg: &[
            "-e", "-o", "-p", "-s", "-u", "-a", "-A", "-D", "-n", "-F", "-l", "-L", "-w",
        ],
        ..Wrapper::DEFAULT
    },
];

/// How many leading words one stripping step removes, if any: an assignment, a
/// keyword, or a wrapper with its options. With `harmless_only`, only wrappers that
/// change nothing (and `xargs` only bare) are stripped, and no assignments.
pub(super) fn strip_step(words: &[Word], harmless_only: bool) -> Option<usize> {
    let first = words.first()?;
    if (is_keyword(&first.text) || first.text == "--") && !first.quoted {
        // `time -- cmd` leaves `--` before the command once `time` is read as a
        // keyword (SPEC §4 "`time --`, `time -p --`").
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
    // `perf stat [options] CMD`: options follow the subcommand.
    let mut i = if name == "perf" { 2 } else { 1 };
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
        // A bundle whose last letter takes a value (`env -iu X`, `strace -fo F`).
        if t.len() > 2 && t.starts_with('-') && !t.starts_with("--") {
            let last = t
                .chars()
                .last()
                .map(|c| format!("-{c}"))
                .unwrap_or_default();
            if wrapper.opts_with_arg.contains(&last.as_str()) {
                had_options = true;
                i += 2;
                continue;
            }
        }
        // `env -`: the same as `env -i`.
        if t == "-" && name == "env" {
            had_options = true;
            i += 1;
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
    // `taskset -c LIST CMD` and `taskset -p ...`: no mask before the command.
    let positional = if name == "taskset"
        && words.iter().skip(1).take(i.saturating_sub(1)).any(|w| {
            (w.text.starts_with('-') && !w.text.starts_with("--") && w.text.contains(['c', 'p']))
                || w.text.starts_with("--cpu-list")
                || w.text == "--pid"
        }) {
        0
    } else {
        wrapper.positional
    };
    i += positional;
    // `setarch ARCH [options] CMD`: options come after the architecture too.
    if matches!(name, "setarch" | "choom") {
        while let Some(w) = words.get(i) {
            if w.text == "--" {
                i += 1;
                break;
            }
            if !w.text.starts_with('-') {
                break;
            }
            i += if wrapper.opts_with_arg.contains(&w.text.as_str()) {
                2
            } else {
                1
            };
        }
    }
    Some(i.min(words.len()))
}

/// The stripping steps of `words`, in order: each step's words and the words left
/// after it ([`strip_step`]).
pub(super) fn strip_steps(words: &[Word], harmless_only: bool) -> StripSteps<'_> {
    StripSteps {
        rest: words,
        harmless_only,
    }
}

/// The iterator of [`strip_steps`].
pub(super) struct StripSteps<'w> {
    rest: &'w [Word],
    harmless_only: bool,
}

impl<'w> Iterator for StripSteps<'w> {
    type Item = (&'w [Word], &'w [Word]);

    fn next(&mut self) -> Option<Self::Item> {
        let n = strip_step(self.rest, self.harmless_only).filter(|n| *n > 0)?;
        let (step, rest) = self.rest.split_at(n.min(self.rest.len()));
        self.rest = rest;
        Some((step, rest))
    }
}

/// The words past every stripping step: what runs.
pub(super) fn final_words(words: &[Word]) -> &[Word] {
    strip_steps(words, false)
        .last()
        .map_or(words, |(_, rest)| rest)
}

/// Whether a wrapper among the leading words runs the command in a directory the
/// core does not follow (`env -C`, `sudo -D`, `tar -C`). `git -C DIR` with every
/// `DIR` known is followed instead ([`git_directory_moves`]).
pub(super) fn words_change_dir(words: &[Word]) -> bool {
    // Each wrapper step, and the program past them (`git -C`, `tar -C`, `make -C`).
    let mut steps: Vec<&[Word]> = strip_steps(words, false).map(|(step, _)| step).collect();
    let last = final_words(words);
    steps.push(last);
    for step in steps {
        if std::ptr::eq(step, last) && git_directory_moves(step).is_some() {
            continue;
        }
        let name = step.first().map(|w| basename(&w.text)).unwrap_or_default();
        let (letter, long) = match name {
            "env" => ('C', "chdir"),
            "sudo" => ('D', "chdir"),
            "nsenter" | "unshare" => ('w', "wd"),
            "git" | "tar" | "make" => ('C', "directory"),
            _ => continue,
        };
        if option_value(step.get(1..).unwrap_or_default(), letter, long).is_some() {
            return true;
        }
    }
    false
}

/// git's global options that take a value as the next word.
pub(super) const GIT_OPTIONS_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--config-env",
    "--super-prefix",
    "--list-cmds",
    "--attr-source",
];

/// `git -C a -C b SUBCOMMAND ...`: the folders git's global `-C` options move it to,
/// in order, each taken from the one before (as git does); empty when there is none.
/// `None` when `words` is not git, or a folder is known only at run time (then the
/// folder git runs in is unknown). SPEC §4 "Read and Edit rules meet shell commands".
pub(super) fn git_directory_moves(words: &[Word]) -> Option<Vec<String>> {
    let (first, tail) = words.split_first()?;
    if basename(&first.text) != "git" || first.dynamic {
        return None;
    }
    let mut moves = Vec::new();
    let mut i = 0;
    while let Some(w) = tail.get(i) {
        let t = w.text.as_str();
        if w.dynamic {
            // An option known only at run time may be `-C`.
            return None;
        }
        if t == "-C" {
            let dir = tail.get(i + 1)?;
            if dir.dynamic {
                return None;
            }
            moves.push(dir.text.clone());
            i += 2;
        } else if GIT_OPTIONS_WITH_VALUE.contains(&t) {
            i += 2;
        } else if t.starts_with('-') && t.len() > 1 {
            i += 1;
        } else {
            break;
        }
    }
    Some(moves)
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

/// Whether a script operand is code the command feeds it, not a file on disk:
/// standard input, an open descriptor (`/dev/fd/3`, `/proc/self/fd/3`, fed by a
/// here-string or `exec 3<<<`), or a process substitution (`<(...)`).
pub(super) fn is_fed_path(w: &Word) -> bool {
    let t = w.text.as_str();
    STDIN_PATHS.contains(&t)
        || t.starts_with("/dev/fd/")
        || (t.starts_with("/proc/") && t.contains("/fd/"))
        || (w.dynamic && (t.starts_with("<(") || t.starts_with(">(")))
}

/// Whether the program `stripped` runs (past every wrapper) runs code known only at
/// run time (see [`ParsedCommand::certain`]), and the code it is fed by a
/// here-document or here-string, which is parsed so deny and ask rules meet it.
///
/// [`ParsedCommand::certain`]: super::ParsedCommand::certain
pub(super) fn runs_unknown_code(stripped: &[Word], redirects: &[Redirect]) -> (bool, Vec<String>) {
    let Some((first, args)) = stripped.split_first() else {
        return (false, Vec::new());
    };
    if is_assignment(first) || (is_keyword(&first.text) && !first.quoted) {
        return (false, Vec::new());
    }
    if first.dynamic {
        return (true, Vec::new());
    }
    let name = basename(&first.text);
    match name {
        "source" | "." => {
            let arg = args
                .iter()
                .find(|a| !a.text.starts_with('-') || a.text == "-");
            let unknown = arg.is_none_or(|a| a.dynamic || is_fed_path(a));
            (unknown, Vec::new())
        }
        n if SHELLS.contains(&n) || login_shell(n, args) => {
            if SHELLS.contains(&n) && !shell_reads_stdin(args) {
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

/// Whether `name args` starts a shell that reads its code from standard input: `su`
/// or `script` with no `-c`, `sudo -s`/`-i`, `doas -s`, `runuser -l` with no `-c`.
fn login_shell(name: &str, args: &[Word]) -> bool {
    let flag = |letters: &[char], longs: &[&str]| {
        args.iter().any(|a| {
            let t = a.text.as_str();
            longs.contains(&t)
                || (t.starts_with('-') && !t.starts_with("--") && t.contains(letters))
        })
    };
    match name {
        "su" | "script" | "runuser" => option_value(args, 'c', "command").is_none(),
        "sudo" => flag(&['s', 'i'], &["--shell", "--login"]),
        "doas" => flag(&['s'], &[]),
        _ => false,
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
        if SHELL_OPTS_WITH_ARG.contains(&t) {
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
        return w.dynamic || is_fed_path(w);
    }
    true
}

/// A command string a part runs in its turn (SPEC §4 "Compound shell commands",
/// "Strings that builtins run later are commands", "Programs that run their
/// arguments as a command").
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Inner {
    /// The code, as shell text.
    pub code: String,
    /// Whether it runs in a directory of its own (`find -execdir`).
    pub own_dir: bool,
    /// Whether it runs in the same shell (`eval`, `trap`), seeing the variables the
    /// command set.
    pub same_shell: bool,
    /// Whether it runs at some later time (`trap`, `complete -C`, `bind -x`), when
    /// any variable may have changed.
    pub later: bool,
}

impl Inner {
    /// Code another shell runs now (`sh -c`, a here-document fed to a shell).
    pub(super) fn shell(code: String) -> Self {
        Inner {
            code,
            own_dir: false,
            same_shell: false,
            later: false,
        }
    }

    fn same(code: String, later: bool) -> Self {
        Inner {
            code,
            own_dir: false,
            same_shell: true,
            later,
        }
    }
}

/// The value of an option among `args`: `-c VALUE`, `-cVALUE` (a one-letter option
/// bundled after others too: `-lc VALUE`), `--command VALUE`, `--command=VALUE`.
/// `Some(None)` when the option is there with no value; the value's text, and whether
/// it is known only at run time.
pub(super) fn option_value(
    args: &[Word],
    short: char,
    long: &str,
) -> Option<Option<(String, bool)>> {
    let mut it = args.iter();
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        if t == "--" {
            return None;
        }
        if let Some(l) = t.strip_prefix("--") {
            if long.is_empty() {
                continue;
            }
            // getopt_long takes any unambiguous prefix (`--upload-pa=`, `--expr=`).
            let (name, value) = match l.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (l, None),
            };
            if long_prefix(name, long) {
                return Some(match value {
                    Some(v) => Some((v.to_owned(), w.dynamic)),
                    None => it.next().map(|v| (v.text.clone(), v.dynamic)),
                });
            }
            continue;
        }
        if let Some(flags) = t.strip_prefix('-') {
            if let Some(at) = flags.find(short) {
                if flags
                    .get(..at)
                    .is_some_and(|f| f.chars().all(|c| c.is_ascii_alphabetic()))
                {
                    let attached = flags.get(at + short.len_utf8()..).unwrap_or_default();
                    if !attached.is_empty() {
                        return Some(Some((attached.to_owned(), w.dynamic)));
                    }
                    return Some(it.next().map(|v| (v.text.clone(), v.dynamic)));
                }
            }
        }
    }
    None
}

/// Whether `given` (a long option's name as written, without `--`) names `long`:
/// equal, or an abbreviation of at least two letters, as getopt_long reads it.
pub(super) fn long_prefix(given: &str, long: &str) -> bool {
    given == long || (given.len() >= 2 && long.starts_with(given))
}

/// Whether `w` is a bundle of short options ending in `opt` (so its value is the next
/// word, not attached).
fn w_ends_with_option(w: Option<&Word>, opt: char) -> bool {
    w.is_some_and(|w| w.text.starts_with('-') && !w.text.starts_with("--") && w.text.ends_with(opt))
}

/// The command strings the words run in their turn, and whether what runs is not
/// known before the shell runs (`sh -c "$X"`, a trap string held in a variable).
/// `words` start at a program (one stripping step's words).
pub(super) fn inner_command(words: &[Word]) -> (Vec<Inner>, bool) {
    let Some((first, rest)) = words.split_first() else {
        return (Vec::new(), false);
    };
    let one = |w: &Word, inner: Inner| (vec![inner], w.dynamic);
    let valued = |v: Option<Option<(String, bool)>>, f: &dyn Fn(String) -> Inner| match v {
        Some(Some((code, dynamic))) => (vec![f(code)], dynamic),
        Some(None) => (Vec::new(), true),
        None => (Vec::new(), false),
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
                if SHELL_OPTS_WITH_ARG.contains(&t) {
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
                    return one(w, Inner::shell(t.to_owned()));
                }
                return (Vec::new(), false);
            }
            // `-c` with no string here: the code comes from elsewhere (`xargs sh -c`).
            (Vec::new(), saw_c)
        }
        // `flock [options] FILE -c COMMAND`, `su [user] -c COMMAND`, `runuser -l U -c
        // COMMAND`, `script -c COMMAND`: the command is a shell string.
        "flock" | "su" | "runuser" | "script" => {
            valued(option_value(rest, 'c', "command"), &Inner::shell)
        }
        // `sg GROUP -c COMMAND` or `sg GROUP COMMAND...`: run by `/bin/sh -c`.
        "sg" => match option_value(rest, 'c', "") {
            Some(v) => valued(Some(v), &Inner::shell),
            None => {
                let cmd = rest.get(1..).unwrap_or_default();
                if cmd.is_empty() {
                    (Vec::new(), false)
                } else {
                    (vec![Inner::shell(join(cmd))], cmd.iter().any(|w| w.dynamic))
                }
            }
        },
        "eval" => (
            vec![Inner::same(join(rest), false)],
            rest.iter().any(|w| w.dynamic),
        ),
        // `trap STRING SIGNAL...` runs the string when the signal comes.
        "trap" => {
            let args: Vec<&Word> = rest.iter().skip_while(|w| w.text == "--").collect();
            match args.first() {
                Some(w) if !w.text.starts_with('-') && args.len() > 1 => {
                    one(w, Inner::same(w.text.clone(), true))
                }
                _ => (Vec::new(), false),
            }
        }
        // `fc -e EDITOR`: the editor is run as a command in this shell (bash
        // 5.2 parses `EDITOR FILE`); what it leaves in the file runs after it.
        "fc" if runs_history(words) => match option_value(rest, 'e', "") {
            Some(Some((code, dynamic))) if code != "-" => (vec![Inner::same(code, false)], dynamic),
            _ => (Vec::new(), false),
        },
        // `mapfile -C CALLBACK`, `readarray -C CALLBACK`, `complete -C COMMAND`.
        "mapfile" | "readarray" | "complete" | "compgen" => {
            valued(option_value(rest, 'C', ""), &|c| Inner::same(c, true))
        }
        // `bind -x 'KEYSEQ:COMMAND'`.
        "bind" => valued(option_value(rest, 'x', ""), &|c| {
            let code = c.split_once(':').map_or("", |(_, v)| v);
            let code = code.trim().trim_matches(|ch| ch == '"' || ch == '\'');
            Inner::same(code.to_owned(), true)
        }),
        // `alias NAME='CODE'`: the code runs wherever the name is used later.
        "alias" => {
            let out: Vec<Inner> = rest
                .iter()
                .filter_map(|w| w.text.split_once('='))
                .map(|(_, code)| Inner::same(code.to_owned(), true))
                .collect();
            (out, rest.iter().any(|w| w.dynamic))
        }
        // `env -S 'STRING'` splits the string into a command line; the words after it
        // are its arguments.
        "env" => valued(option_value(rest, 'S', "split-string"), &|code| {
            let mut code = code;
            let after = rest
                .iter()
                .position(|w| w.text.contains('S') && w.text.starts_with('-'))
                .map_or(rest.len(), |i| {
                    i + usize::from(w_ends_with_option(rest.get(i), 'S')) + 1
                });
            for w in rest.iter().skip(after) {
                code.push(' ');
                code.push_str(&shell_quote(&w.text));
            }
            Inner::shell(code)
        }),
        // `ssh [options] HOST COMMAND...`: the command runs in a shell there, which may
        // be this machine.
        "ssh" => {
            let (mut out, mut unknown) = command_options("ssh", rest);
            let mut it = rest.iter().enumerate();
            while let Some((i, w)) = it.next() {
                let t = w.text.as_str();
                if t.starts_with('-') {
                    if t.len() == 2
                        && "BbcDEeFIiJLlmOopQRSWw".contains(t.get(1..).unwrap_or_default())
                    {
                        let _ = it.next();
                    }
                    continue;
                }
                let cmd = rest.get(i + 1..).unwrap_or_default();
                if !cmd.is_empty() {
                    unknown |= cmd.iter().any(|w| w.dynamic);
                    out.push(Inner::shell(join(cmd)));
                }
                break;
            }
            (out, unknown)
        }
        // `parallel [options] COMMAND ::: ARGS`: the command with each argument.
        "parallel" => {
            let Some(sep) = rest.iter().position(|w| w.text.starts_with(":::")) else {
                // Commands read from standard input.
                return (Vec::new(), !rest.iter().any(|w| !w.text.starts_with('-')));
            };
            let cmd: Vec<&Word> = rest
                .get(..sep)
                .unwrap_or_default()
                .iter()
                .skip_while(|w| w.text.starts_with('-'))
                .collect();
            let args = rest.get(sep + 1..).unwrap_or_default();
            let unknown = cmd
                .first()
                .is_none_or(|w| w.dynamic || w.text.contains('{'));
            let template: Vec<String> = cmd.iter().map(|w| w.text.clone()).collect();
            let mut out = Vec::new();
            for a in args.iter().filter(|a| !a.text.starts_with(":::")).take(64) {
                let code = if template.iter().any(|t| t.contains("{}")) {
                    template
                        .iter()
                        .map(|t| shell_quote(&t.replace("{}", &a.text)))
                        .collect::<Vec<_>>()
                        .join(" ")
                } else {
                    let mut c: Vec<String> = template.iter().map(|t| shell_quote(t)).collect();
                    c.push(shell_quote(&a.text));
                    c.join(" ")
                };
                out.push(Inner::shell(code));
            }
            (out, unknown)
        }
        // `git -c alias.x='!cmd'`, `git -c core.pager=cmd`: configuration that runs a
        // command.
        "git" => git_commands(rest),
        // `start-stop-daemon -S -x PROGRAM -- ARGS`: the program and its arguments.
        "start-stop-daemon" => {
            let program = option_value(rest, 'x', "exec")
                .or_else(|| option_value(rest, 'a', "startas"))
                .flatten();
            match program {
                Some((p, d)) => {
                    let args: Vec<String> = rest
                        .iter()
                        .skip_while(|w| w.text != "--")
                        .skip(1)
                        .map(|w| shell_quote(&w.text))
                        .collect();
                    let mut code = shell_quote(&p);
                    for a in args {
                        code.push(' ');
                        code.push_str(&a);
                    }
                    (vec![Inner::shell(code)], d)
                }
                None => (Vec::new(), false),
            }
        }
        // `tmux -c CMD`; `tmux new[-session]|new-window|split-window|run-shell [options]
        // [--] CMD...`: a shell command.
        "tmux" => {
            if let Some(v) = option_value(rest, 'c', "") {
                return valued(Some(v), &Inner::shell);
            }
            let sub = rest.iter().position(|w| !w.text.starts_with('-'));
            let Some(at) = sub else {
                return (Vec::new(), false);
            };
            let name = rest.get(at).map(|w| w.text.as_str()).unwrap_or_default();
            if !matches!(
                name,
                "new"
                    | "new-session"
                    | "neww"
                    | "new-window"
                    | "splitw"
                    | "split-window"
                    | "run"
                    | "run-shell"
                    | "respawn-pane"
                    | "respawnp"
                    | "respawn-window"
                    | "display-popup"
                    | "popup"
            ) {
                return (Vec::new(), false);
            }
            let mut it = rest.get(at + 1..).unwrap_or_default().iter();
            let mut cmd: Vec<&Word> = Vec::new();
            while let Some(w) = it.next() {
                let t = w.text.as_str();
                if t == "--" {
                    cmd.extend(it.by_ref());
                    break;
                }
                if t.starts_with('-') {
                    if matches!(
                        t,
                        "-s" | "-n"
                            | "-c"
                            | "-t"
                            | "-x"
                            | "-y"
                            | "-e"
                            | "-F"
                            | "-f"
                            | "-l"
                            | "-p"
                            | "-w"
                            | "-h"
                            | "-d"
                            | "-E"
                            | "-S"
                    ) && t != "-d"
                    {
                        let _ = it.next();
                    }
                    continue;
                }
                cmd.push(w);
                cmd.extend(it.by_ref());
                break;
            }
            if cmd.is_empty() {
                (Vec::new(), false)
            } else {
                let text: Vec<String> = cmd.iter().map(|w| w.text.clone()).collect();
                (
                    vec![Inner::shell(text.join(" "))],
                    cmd.iter().any(|w| w.dynamic),
                )
            }
        }
        // `npx -c CMD`, `npm exec -c CMD` (and pnpm, yarn): a shell string.
        "npx" | "npm" | "pnpm" | "yarn" | "bunx" | "pnpx" => {
            valued(option_value(rest, 'c', "call"), &Inner::shell)
        }
        // Options whose value is a command the program runs: `tar
        // --to-command`/`--checkpoint-action=exec=`/`-I`, `zip -TT`, `ssh -o
        // ProxyCommand=`, `rsync -e`.
        "tar" | "bsdtar" | "gtar" | "zip" | "scp" | "sftp" | "rsync" => command_options(name, rest),
        "watch" => {
            let n = strip_step(words, false).unwrap_or(words.len());
            let cmd = words.get(n..).unwrap_or_default();
            if cmd.is_empty() {
                (Vec::new(), false)
            } else {
                (vec![Inner::shell(join(cmd))], cmd.iter().any(|w| w.dynamic))
            }
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
                (Vec::new(), unknown)
            } else {
                let mut inner = Inner::shell(out.join("\n"));
                inner.own_dir = own_dir;
                (vec![inner], unknown)
            }
        }
        _ => (Vec::new(), false),
    }
}

/// git's own command strings (SPEC §4, "git's configuration runs commands"): `-c
/// KEY=VALUE` and `git config KEY VALUE` for the keys whose value is a command
/// (`alias.x=!cmd`, `core.pager`, `diff.external`, `core.sshCommand`, ...), the
/// options `--upload-pack`/`-u`/`--receive-pack`/`--exec`, and an `ext::` remote; a
/// hooks path or a configuration read from elsewhere may run anything.
fn git_commands(rest: &[Word]) -> (Vec<Inner>, bool) {
    let mut out = Vec::new();
    let mut unknown = false;
    let judge = |key: &str, value: &str, dynamic: bool, out: &mut Vec<Inner>| {
        let key = key.to_ascii_lowercase();
        if key.starts_with("alias.") {
            if let Some(code) = value.strip_prefix('!') {
                out.push(Inner::shell(code.to_owned()));
            }
        } else if GIT_COMMAND_KEYS.iter().any(|k| key.ends_with(k)) {
            out.push(Inner::shell(value.to_owned()));
        } else if GIT_CODE_KEYS.iter().any(|k| key.ends_with(k)) {
            return true;
        } else {
            return dynamic && key.is_empty();
        }
        dynamic
    };
    let mut it = rest.iter();
    let mut sub: Option<&str> = None;
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        match t {
            "-c" => {
                if let Some(setting) = it.next() {
                    let (key, value) = setting.text.split_once('=').unwrap_or((&setting.text, ""));
                    unknown |= judge(key, value, setting.dynamic, &mut out);
                }
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" | "--config-env"
            | "--super-prefix" => {
                let _ = it.next();
            }
            "--upload-pack" | "-u" | "--receive-pack" | "--exec" | "-x" | "--extcmd"
            | "--tree-filter" | "--index-filter" | "--msg-filter" | "--env-filter"
            | "--commit-filter"
                if sub.is_some() =>
            {
                if let Some(v) = it.next() {
                    unknown |= v.dynamic;
                    out.push(Inner::shell(v.text.clone()));
                }
            }
            t if t.starts_with("--")
                && t.contains('=')
                && t.split_once('=').is_some_and(|(n, _)| {
                    let n = n.trim_start_matches('-');
                    [
                        "upload-pack",
                        "receive-pack",
                        "exec",
                        "extcmd",
                        "tree-filter",
                        "index-filter",
                        "msg-filter",
                        "env-filter",
                        "commit-filter",
                        "parent-filter",
                        "tag-name-filter",
                    ]
                    .iter()
                    .any(|l| long_prefix(n, l) && n.len() >= 3)
                }) =>
            {
                let v = t.split_once('=').map_or("", |(_, v)| v);
                unknown |= w.dynamic;
                out.push(Inner::shell(v.to_owned()));
            }
            // `git --config-env=KEY=ENV`: a configuration from the environment.
            t if t.starts_with("--config-env") => unknown = true,
            t if t.starts_with("ext::") => unknown = true,
            t if t.starts_with('-') => {}
            t if sub.is_none() => sub = Some(t),
            _ => {}
        }
    }
    // `git config [--global] KEY VALUE`: a command stored for later.
    if sub == Some("config") {
        let mut ops: Vec<&Word> = Vec::new();
        let mut it = rest.iter().skip_while(|w| w.text != "config").skip(1);
        while let Some(w) = it.next() {
            match w.text.as_str() {
                "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment" => {
                    let _ = it.next();
                }
                t if t.starts_with('-') => {}
                _ => ops.push(w),
            }
        }
        // `git config set KEY VALUE` (git 2.46): the subcommand comes first.
        if ops
            .first()
            .is_some_and(|w| matches!(w.text.as_str(), "set" | "add" | "replace-all"))
        {
            ops.remove(0);
        }
        if let [key, value, ..] = ops.as_slice() {
            unknown |= judge(&key.text, &value.text, value.dynamic, &mut out);
        }
    }
    (out, unknown)
}

/// git configuration keys whose value makes git run code from elsewhere (a hooks
/// folder, a configuration file, a remote's helper).
const GIT_CODE_KEYS: &[&str] = &[
    "hookspath",
    "include.path",
    ".path",
    "protocol.ext.allow",
    "protocol.allow",
    "core.worktree",
    "gitproxy",
    "program",
];

/// The commands `tar`, `zip`, `ssh`/`scp`/`sftp` and `rsync` run from their options.
fn command_options(name: &str, rest: &[Word]) -> (Vec<Inner>, bool) {
    let mut out = Vec::new();
    let mut unknown = false;
    let mut fed: Vec<bool> = Vec::new();
    let mut push = |code: &str, dynamic: bool, out: &mut Vec<Inner>| {
        fed.push(dynamic);
        out.push(Inner::shell(code.to_owned()));
    };
    let mut it = rest.iter().peekable();
    while let Some(w) = it.next() {
        let t = w.text.as_str();
        let next_value = |it: &mut std::iter::Peekable<std::slice::Iter<'_, Word>>| {
            it.next().map(|v| (v.text.clone(), v.dynamic))
        };
        match name {
            "tar" | "bsdtar" | "gtar" => {
                const CODE: &[&str] = &[
                    "to-command",
                    "use-compress-program",
                    "info-script",
                    "new-volume-script",
                    "rsh-command",
                ];
                if let Some(long) = t.strip_prefix("--") {
                    // Long options by any unambiguous prefix (`--to-c=`, `--use=`).
                    let (name, value) = match long.split_once('=') {
                        Some((n, v)) => (n, Some(v.to_owned())),
                        None => (long, None),
                    };
                    let runs = CODE.iter().any(|c| long_prefix(name, c) && name.len() >= 3);
                    let checkpoint = long_prefix(name, "checkpoint-action") && name.len() >= 12;
                    if runs || checkpoint {
                        let value = match value {
                            Some(v) => Some((v, w.dynamic)),
                            None => next_value(&mut it),
                        };
                        if let Some((v, d)) = value {
                            if runs {
                                push(&v, d, &mut out);
                            } else if let Some(code) = v.strip_prefix("exec=") {
                                push(code, d, &mut out);
                            }
                        }
                    }
                } else if t == "-F" {
                    if let Some((v, d)) = next_value(&mut it) {
                        push(&v, d, &mut out);
                    }
                } else if t.contains('I')
                    && (t.starts_with('-') || rest.first().is_some_and(|f| std::ptr::eq(f, w)))
                {
                    // `-Iprog`, `-I prog`, and bundled (`cIf prog file`).
                    let flags = t.trim_start_matches('-');
                    let at = flags.find('I').unwrap_or(0);
                    let attached = flags.get(at + 1..).unwrap_or_default();
                    if t.starts_with('-') && !attached.is_empty() {
                        push(attached, w.dynamic, &mut out);
                    } else {
                        unknown = true;
                    }
                }
            }
            "zip" => {
                let unzip = t.strip_prefix("--").and_then(|l| {
                    let (name, value) = l.split_once('=').map_or((l, None), |(n, v)| (n, Some(v)));
                    (name.len() >= 3 && long_prefix(name, "unzip-command")).then_some(value)
                });
                if let Some(Some(v)) = unzip {
                    push(v, w.dynamic, &mut out);
                } else if t == "-TT" || unzip.is_some() {
                    if let Some((v, d)) = next_value(&mut it) {
                        push(&v, d, &mut out);
                    }
                }
            }
            "rsync" => {
                if let Some(v) = t
                    .strip_prefix("--rsh=")
                    .or_else(|| t.strip_prefix("--rsync-path="))
                {
                    push(v, w.dynamic, &mut out);
                } else if matches!(t, "-e" | "--rsh" | "--rsync-path") {
                    if let Some((v, d)) = next_value(&mut it) {
                        push(&v, d, &mut out);
                    }
                }
            }
            _ => {
                // ssh, scp, sftp: `-o Key=Value` / `-oKey=Value`; `-F FILE` reads
                // options (a ProxyCommand) from a file.
                // `-o Key=Value`, `-oKey=Value`, and bundled (`-vo`, `-qoKey=V`).
                let option = match t.strip_prefix('-').filter(|f| !f.starts_with('-')) {
                    Some(flags) => match flags.find('o') {
                        Some(at)
                            if flags.get(..at).is_some_and(|f| {
                                f.chars().all(|c| c.is_ascii_alphanumeric() && c != 'o')
                            }) =>
                        {
                            let attached = flags.get(at + 1..).unwrap_or_default();
                            if attached.is_empty() {
                                next_value(&mut it)
                            } else {
                                Some((attached.to_owned(), w.dynamic))
                            }
                        }
                        _ => None,
                    },
                    None => None,
                };
                // `scp -S PROGRAM`, `sftp -S PROGRAM`/`-D PROGRAM`: the program to run.
                if matches!(name, "scp" | "sftp") && matches!(t, "-S" | "-D") {
                    if let Some((v, d)) = next_value(&mut it) {
                        push(&v, d, &mut out);
                    }
                    continue;
                }
                if let Some((opt, d)) = option {
                    let (key, value) = opt
                        .split_once(['=', ' '])
                        .map_or((opt.as_str(), ""), |(k, v)| (k, v));
                    if matches!(
                        key.to_ascii_lowercase().as_str(),
                        "proxycommand" | "localcommand" | "knownhostscommand" | "remotecommand"
                    ) {
                        push(value, d, &mut out);
                    } else if key.eq_ignore_ascii_case("permitlocalcommand") || d {
                        unknown = true;
                    }
                } else if t == "-F" {
                    unknown = true;
                }
            }
        }
    }
    unknown |= fed.iter().any(|d| *d);
    (out, unknown)
}

/// The options of a shell that take a separate argument.
const SHELL_OPTS_WITH_ARG: &[&str] = &["-o", "+o", "-O", "+O", "--rcfile", "--init-file"];

/// git configuration keys whose value is a command git runs.
const GIT_COMMAND_KEYS: &[&str] = &[
    "external",
    "uploadpack",
    "receivepack",
    "sequence.editor",
    "pager",
    "editor",
    "sshcommand",
    "fsmonitor",
    "askpass",
    ".command",
    ".textconv",
    ".clean",
    ".smudge",
    ".process",
    "helper",
    ".cmd",
    ".tool",
];

/// The options that give vim and its aliases commands to run (`-c`, `--cmd`, a
/// script with `-S`/`-s`, ex mode reading commands).
const VIM_CODE: &[&str] = &["-c", "--cmd", "-S", "-s", "-e", "-es", "-E", "-Es"];

/// The options that give node inline code or modules to load first.
const NODE_CODE: &[&str] = &[
    "-e",
    "--eval",
    "-p",
    "--print",
    "--import",
    "--require",
    "-r",
    "--loader",
    "--experimental-loader",
];

/// The interpreters that take inline code, and the options that give it.
const INTERPRETERS: &[(&str, &[&str])] = &[
    ("python", &["-c"]),
    ("perl", &["-e", "-E", "-M", "-m"]),
    ("ruby", &["-e"]),
    ("node", NODE_CODE),
    ("nodejs", NODE_CODE),
    ("bun", &["-e", "--eval", "-p", "--print"]),
    ("deno", &["eval"]),
    ("php", &["-r"]),
    ("osascript", &["-e"]),
    ("lua", &["-e"]),
    ("luajit", &["-e"]),
    ("Rscript", &["-e"]),
    ("tclsh", &[]),
    ("pwsh", &["-c", "-Command", "-command"]),
    ("powershell", &["-c", "-Command", "-command"]),
    ("julia", &["-e", "--eval"]),
    ("groovy", &["-e"]),
    ("jshell", &[]),
    ("expect", &["-c"]),
    (
        "gdb",
        &[
            "-ex",
            "--ex",
            "--eval-command",
            "-x",
            "--command",
            "-iex",
            "-batch",
            "--batch",
        ],
    ),
    ("wish", &[]),
    ("vim.basic", VIM_CODE),
    ("vim.tiny", VIM_CODE),
    ("vimdiff", VIM_CODE),
    ("editor", VIM_CODE),
    ("sensible-editor", VIM_CODE),
    ("gcc", &["-wrapper"]),
    ("cc", &["-wrapper"]),
    ("g++", &["-wrapper"]),
    ("cpp", &["-wrapper"]),
    ("clang", &["-wrapper"]),
    ("groff", &["-U"]),
    ("nroff", &["-U"]),
    ("troff", &["-U"]),
    ("pic", &["-U"]),
    ("make", &["--eval", "-E"]),
    ("gmake", &["--eval", "-E"]),
    ("vim", VIM_CODE),
    ("vi", VIM_CODE),
    (
        "nvim",
        &["-c", "--cmd", "-S", "-s", "-e", "-es", "-E", "-Es", "-l"],
    ),
    ("view", &["-c", "--cmd", "-S", "-s"]),
    ("ex", &["-c", "--cmd", "-S", "-s"]),
    ("rvim", &["-c", "--cmd"]),
    (
        "emacs",
        &["--eval", "-l", "--load", "--script", "-batch", "--batch"],
    ),
    ("sqlite3", &["-cmd", "-init"]),
    ("ed", &[]),
    ("red", &[]),
];

/// The code a part runs that the core does not read as shell, as words (SPEC §4:
/// "interpreters given inline code are uncertain", "`source`/`.` of a file is
/// uncertain"): inline interpreter code (`python -c`, `perl -e`, `node -e`, ...),
/// an `awk` program that runs commands or writes files, a `sed` script with its
/// `e` command, and a sourced file's name. `None` when the part runs none.
pub(super) fn inline_code(stripped: &[Word]) -> Option<Vec<String>> {
    let (first, args) = stripped.split_first()?;
    let name = basename(&first.text);
    let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    if let Some((entry, opts)) = INTERPRETERS
        .iter()
        .find(|(n, _)| *n == name || *n == family)
    {
        let family = *entry;
        for opt in *opts {
            let value = match opt.strip_prefix("--") {
                Some(long) => option_value(args, '\u{0}', long),
                None => match opt.strip_prefix('-').map(|o| o.chars().collect::<Vec<_>>()) {
                    Some(letters) if letters.len() == 1 => {
                        option_value(args, letters.first().copied().unwrap_or('c'), "")
                    }
                    // `-Command`, `eval`: a word of its own.
                    _ => args
                        .iter()
                        .position(|a| a.text == *opt)
                        .map(|i| args.get(i + 1).map(|w| (w.text.clone(), w.dynamic))),
                },
            };
            if let Some(v) = value {
                return Some(code_words(&v.map(|(c, _)| c).unwrap_or_default()));
            }
        }
        // `python3 -m code|asyncio|timeit|trace|profile|...`: modules that run the code
        // they are given or read.
        if family == "python" {
            if let Some(m) = args.iter().position(|a| a.text == "-m") {
                let module = args.get(m + 1).map(|w| w.text.as_str()).unwrap_or_default();
                if matches!(
                    module,
                    "code"
                        | "asyncio"
                        | "timeit"
                        | "trace"
                        | "profile"
                        | "cProfile"
                        | "pdb"
                        | "doctest"
                        | "runpy"
                        | "idlelib"
                        | "py_compile"
                        | "compileall"
                        | "ipykernel"
                        | "IPython"
                        | "pytest"
                        | "unittest"
                ) {
                    return Some(code_words(
                        &args
                            .iter()
                            .map(|a| a.text.as_str())
                            .collect::<Vec<_>>()
                            .join(" "),
                    ));
                }
                return None;
            }
        }
        match family {
            // A target, not a script; the makefile is `-f`'s (standard input: code).
            // `make CC=rm x`: a variable make's rules run as a command.
            "make" | "gmake"
                if args
                    .iter()
                    .any(|a| !a.text.starts_with('-') && a.text.contains('=')) =>
            {
                return Some(Vec::new());
            }
            "make" | "gmake" => {
                return option_value(args, 'f', "file")
                    .or_else(|| option_value(args, '\u{0}', "makefile"))
                    .flatten()
                    .filter(|(f, d)| {
                        *d || STDIN_PATHS.contains(&f.as_str())
                            || f.starts_with("/dev/fd/")
                            || f.starts_with("<(")
                    })
                    .map(|_| Vec::new());
            }
            // Editors and shells of their own run `!cmd`: code when they read their
            // commands from a fed input, or are given one (`.shell`, `+cmd`).
            "ed" | "red" | "ex" | "vim" | "vi" | "nvim" | "view" => {
                let plus = args
                    .iter()
                    .find(|a| a.text.starts_with('+') && a.text.len() > 1);
                if let Some(p) = plus {
                    return Some(code_words(p.text.get(1..).unwrap_or_default()));
                }
                return matches!(family, "ed" | "red" | "ex").then(Vec::new);
            }
            "sqlite3" => {
                let dot = args.iter().find(|a| {
                    let t = a.text.to_ascii_lowercase();
                    t.trim_start().starts_with('.')
                        || [
                            "edit(",
                            "readfile(",
                            "writefile(",
                            "load_extension(",
                            "fts3_tokenizer(",
                        ]
                        .iter()
                        .any(|f| t.contains(f))
                });
                return match dot {
                    Some(d) => Some(code_words(&d.text)),
                    None => (args.iter().filter(|a| !a.text.starts_with('-')).count() < 2)
                        .then(Vec::new),
                };
            }
            "gdb" | "emacs" | "expect" | "jshell" | "gcc" | "cc" | "g++" | "cpp" | "clang"
            | "groff" | "nroff" | "troff" | "pic" => return None,
            _ => {}
        }
        // No script named, or `-`: the code comes from standard input.
        let informational = args
            .iter()
            .any(|a| matches!(a.text.as_str(), "--version" | "-V" | "--help" | "-h" | "-v"));
        let script = args
            .iter()
            .find(|a| !a.text.starts_with('-') || a.text == "-");
        let from_stdin = script.is_none_or(is_fed_path);
        return (from_stdin && !informational).then(Vec::new);
    }
    if runs_history(stripped) {
        return Some(code_words(&join(stripped)));
    }
    match name {
        "source" | "." => {
            let file = args.iter().find(|a| !a.text.starts_with('-'))?;
            Some(vec![name.to_owned(), file.text.clone()])
        }
        "awk" | "gawk" | "mawk" | "nawk" | "busybox-awk" => {
            // A program file (`-f`), or mawk's `-W exec`/`-W interactive`/`-W ...`:
            // code the core cannot read.
            if option_value(args, 'f', "file").is_some() || option_value(args, 'W', "").is_some() {
                return Some(Vec::new());
            }
            let mut it = args.iter();
            let mut program = None;
            while let Some(a) = it.next() {
                let t = a.text.as_str();
                if matches!(
                    t,
                    "-v" | "-F"
                        | "-i"
                        | "-l"
                        | "-E"
                        | "--assign"
                        | "--field-separator"
                        | "--include"
                        | "--load"
                ) {
                    let _ = it.next();
                } else if t == "--" {
                    program = it.next();
                    break;
                } else if !t.starts_with('-') || t == "-" {
                    program = Some(a);
                    break;
                }
            }
            let program = program.map(|w| w.text.as_str())?;
            // `system()`, pipes, redirects and `getline` run commands or touch files.
            (program.contains("system")
                || program.contains('|')
                || program.contains('>')
                || program.contains('<')
                || program.contains("getline"))
            .then(|| code_words(program))
        }
        "sed" | "gsed" => super::sed::sed_effects(args)
            .runs
            .then(|| args.iter().flat_map(|a| code_words(&a.text)).collect()),
        _ => None,
    }
}

/// Whether the builtin `stripped` runs runs strings from the history list, which
/// `history -s STRING`, `history -r FILE` or earlier lines put there (SPEC §4
/// "Strings that builtins run later are commands"):
///
/// - `fc` in every form but a listing: `fc -s [old=new] [cmd]` and `fc -e -` re-run
///   an entry, `fc [-e EDITOR]` runs the editor (`-e`'s string, or `$FCEDIT`,
///   `$EDITOR`, as a command) and then what it leaves; `-s` re-runs even beside
///   `-l` (bash 5.2: `fc -l -s` runs);
/// - `set -H`, `set -o histexpand`, `shopt -s -o histexpand`: a later line's `!!`,
///   `!rm`, `^a^b`, double-quoted ones too, is replaced from the history list
///   before the shell reads it (with `set -o history`, bash 5.2 does it in `bash -c`).
///
/// An option word known only at run time may be any of these.
pub(super) fn runs_history(stripped: &[Word]) -> bool {
    let Some((first, args)) = stripped.split_first() else {
        return false;
    };
    let options = || {
        args.iter()
            .take_while(|a| a.text != "--")
            .filter(|a| a.dynamic || (a.text.starts_with('-') && a.text.len() > 1))
    };
    match first.text.as_str() {
        "fc" => {
            let mut listing = false;
            let mut it = args.iter();
            while let Some(a) = it.next() {
                let t = a.text.as_str();
                if a.dynamic {
                    return true;
                }
                // `--`, an operand (`-1`, `rm`, `old=new`) ends the options.
                if t == "--"
                    || !t.starts_with('-')
                    || t.len() == 1
                    || t.chars().nth(1).is_some_and(|c| c.is_ascii_digit())
                {
                    break;
                }
                // The letters after `e` are its value (`-evi`); else the next word is.
                let flags = t.get(1..).unwrap_or_default();
                let head = match flags.find('e') {
                    Some(at) => {
                        if at + 1 == flags.len() {
                            let _ = it.next();
                        }
                        flags.get(..at).unwrap_or_default()
                    }
                    None => flags,
                };
                if head.contains('s') {
                    return true;
                }
                // `-l` lists, and ignores `-e`.
                listing |= head.contains('l');
            }
            !listing
        }
        "set" => {
            let mut prev_o = false;
            for a in args.iter().take_while(|a| a.text != "--") {
                let t = a.text.as_str();
                if a.dynamic
                    || (t.starts_with('-') && !t.starts_with("--") && t.contains('H'))
                    || (prev_o && t == "histexpand")
                {
                    return true;
                }
                prev_o = t.starts_with('-') && t.ends_with('o');
            }
            false
        }
        "shopt" => {
            let opts: Vec<&Word> = options().collect();
            opts.iter().any(|a| a.dynamic)
                || (opts.iter().any(|a| a.text.contains('s'))
                    && opts.iter().any(|a| a.text.contains('o'))
                    && args.iter().any(|a| a.dynamic || a.text == "histexpand"))
        }
        _ => false,
    }
}

/// The words of code text: runs of letters, digits and `_-./+`, each also by its
/// basename, lowercased (deny and ask rules match case-insensitively).
fn code_words(code: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in code.split(|c: char| !(c.is_alphanumeric() || "_-./+".contains(c))) {
        if w.is_empty() {
            continue;
        }
        for v in [w, basename(w)] {
            let v = v.to_lowercase();
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    out
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
