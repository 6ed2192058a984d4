//! What rules meet: a command split into [`Part`]s, the files it reads and writes
//! ([`FileArg`], [`WriteTarget`]), and the whole [`ParsedCommand`] with whether it
//! was parsed with confidence (SPEC §4 "Compound shell commands", "Read and Edit
//! rules meet shell commands").

use super::walker::Bases;
use std::fmt;

/// One part of a command as the rules meet it (SPEC §4 "Compound shell commands").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Part {
    /// The part's text as written.
    pub raw: String,
    /// Its words, quotes resolved, redirects taken out.
    pub words: Vec<String>,
    /// What deny and ask rules meet: the part as written, its words, and the words
    /// after each stripping step (assignments, keywords, wrappers), each also with a
    /// program given by path reduced to its basename.
    pub strict_forms: Vec<String>,
    /// What allow rules meet: the words, the text as written, and the words after
    /// stripping the wrappers that change nothing (`timeout`, `time`, `nice`,
    /// `nohup`, `stdbuf`, `command`, `builtin`, `noglob`, bare `xargs`).
    pub allow_forms: Vec<String>,
    /// For each of [`Part::allow_forms`], how many of its leading characters an allow
    /// rule's literal text (before its first `*`) must spell out to cover it
    /// ([`crate::wildcard::Wildcard::literal_prefix_len`]); 0 for most forms.
    ///
    /// **An allow rule never covers a wrapper by its own name** (reference §3.2: exec
    /// wrappers are never auto-approved by a prefix allow rule): for a form that
    /// starts with a wrapper (`setsid`, `sudo`, `timeout`, `flock`, `xargs`, ...), the
    /// rule must spell out everything up to and including the wrapped command's
    /// name, so `Bash(setsid:*)` does not allow `setsid make deploy` while
    /// `Bash(sudo apt update)` allows `sudo apt update`. A `find` with an action that
    /// runs, deletes or writes (`-exec`, `-delete`, `-fprint`, ...) must be spelled
    /// out whole: `Bash(find:*)` does not allow `find . -delete`.
    pub allow_guards: Vec<usize>,
    /// Whether an allow rule with a pattern may cover the part: `false` when the
    /// program is only known at run time (`$CMD`, `$(...)`).
    pub allowable: bool,
    /// Whether the part's command is in the read-only command set (SPEC §4
    /// "Defaults"); what it writes through redirects is in
    /// [`ParsedCommand::files`].
    pub read_only: bool,
    /// Whether the part creates no file as far as the core can see: it is read-only,
    /// or a file command that only reads its paths (`sort x`, `xxd x`); a glob
    /// later in the command sees the file system as it stands only then (SPEC §4).
    pub writes_nothing: bool,
    /// Whether the part is a common filesystem command `acceptEdits` mode accepts in
    /// the working directories (`mkdir`, `touch`, `mv`, `cp`; reference §3.4).
    pub edits_files: bool,
    /// Whether what the part runs, or a path it touches, is known only when the shell
    /// runs (see [`ParsedCommand::certain`] for the cases); such a part makes its
    /// whole command uncertain.
    pub uncertain: bool,
    /// Whether the part may run any program (its program word unknown, code fed on
    /// standard input, inline interpreter code, a sourced file, arithmetic reading an
    /// unknown value): it meets every `Bash` deny and ask rule (SPEC §4 "What the
    /// core cannot see": an unknown program meets every `Bash` rule its words may
    /// spell).
    pub runs_anything: bool,
    /// The words of code the part runs that the core does not read as shell (inline
    /// interpreter code, a sourced file's name, an `awk` or `sed` program that runs
    /// commands), lowercased: a `Bash` rule whose command word is among them is
    /// named before the others an uncertain part meets (SPEC §4).
    pub code_words: Vec<String>,
}

/// A file a command reads or writes: a path argument of a file command the core
/// recognises, or a redirect target (SPEC §4: judged as `Read(<path>)` or
/// `Edit(<path>)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileArg {
    /// The path as written (quotes resolved).
    pub path: String,
    /// Whether the command writes it (else it only reads it).
    pub write: bool,
    /// Whether it is a redirect target (an allow rule for the command does not
    /// cover a redirect write: it needs an Edit allow of its own).
    pub redirect: bool,
    /// Whether the path holds an expansion or a glob (known only at run time).
    pub dynamic: bool,
    /// The directories a relative path is taken from.
    pub bases: Bases,
    /// Whether the command removes it (`rm`, `rmdir`): removing a critical path is
    /// never approved automatically (reference §3.3).
    pub remove: bool,
    /// Whether the command reads the folder whole (`grep -r`, `rg`, `tar -c`, `cp
    /// -r`, `rsync`, `find -exec`, `git grep`, ...): it meets every `Read` rule
    /// beneath it (SPEC §4 "Folders read whole").
    pub folder: bool,
}

impl FileArg {
    /// A path argument read or written by a file command, as written. A path through
    /// `/proc/self/cwd` is the folder the command runs in; through `/proc/self/root`,
    /// the root; through another process's folders or an open descriptor
    /// (`/proc/1/cwd`, `/dev/fd/3`), not known before the shell runs.
    pub(super) fn new(path: String, write: bool, dynamic: bool, bases: Bases) -> Self {
        let (path, dynamic) = through_proc(path, dynamic);
        FileArg {
            path,
            write,
            redirect: false,
            dynamic,
            bases,
            remove: false,
            folder: false,
        }
    }

    /// Whether the path can be resolved before the shell runs: no expansion, and
    /// absolute or `~`, or relative to directories all known.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn resolvable(&self) -> bool {
        !self.dynamic
            && (self.path.starts_with('/') || self.path.starts_with('~') || !self.bases.unknown)
    }

    /// The path as written, taken from each of the directories it may be relative
    /// to (absolute and `~` paths as they are).
    ///
    /// SPEC §4.
    #[must_use]
    pub fn candidates(&self) -> Vec<String> {
        self.bases
            .dirs
            .iter()
            .map(|b| Bases::join(b, &self.path))
            .collect()
    }
}

/// `path` with `/proc`'s views of the shell's own process read as what they show.
fn through_proc(path: String, dynamic: bool) -> (String, bool) {
    for own in ["/proc/self/cwd", "/proc/thread-self/cwd"] {
        if let Some(rest) = path.strip_prefix(own) {
            if rest.is_empty() || rest.starts_with('/') {
                let rest = rest.trim_start_matches('/');
                return (
                    if rest.is_empty() {
                        ".".to_owned()
                    } else {
                        rest.to_owned()
                    },
                    dynamic,
                );
            }
        }
    }
    for own in ["/proc/self/root", "/proc/thread-self/root"] {
        if let Some(rest) = path.strip_prefix(own) {
            if rest.is_empty() || rest.starts_with('/') {
                return (format!("/{}", rest.trim_start_matches('/')), dynamic);
            }
        }
    }
    let elsewhere = path.starts_with("/dev/fd/")
        || path
            .strip_prefix("/proc/")
            .and_then(|r| r.split('/').nth(1))
            .is_some_and(|view| matches!(view, "cwd" | "root" | "fd" | "exe" | "map_files"));
    (path, dynamic || elsewhere)
}

/// A file a command writes through a redirect (SPEC §4: judged as `Edit(<path>)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteTarget {
    /// The target as written (quotes resolved).
    pub path: String,
    /// Whether the path can be resolved: `false` when it holds an expansion, or when
    /// it is relative and the command changes directory somewhere unknown first.
    pub resolvable: bool,
}

/// A shell command split into parts (SPEC §4 "Compound shell commands").
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedCommand {
    /// The whole command, trimmed (deny and ask rules meet it too).
    pub full: String,
    /// Its parts, nested ones included.
    pub parts: Vec<Part>,
    /// Files written through redirects (`/dev/null` excepted).
    pub write_targets: Vec<WriteTarget>,
    /// Every file the command reads or writes that the core recognises: redirect
    /// targets (`/dev/null` excepted) and the path arguments of file commands.
    pub files: Vec<FileArg>,
    /// Whether the core can see everything the command runs and touches: it was
    /// parsed, and after expansion as the shell would do it in the session
    /// (`super::expand`) no part runs something known only at run time and no path is
    /// unknown.
    ///
    /// **\[decision, revised\]** SPEC §4 "What the core cannot see, it never lets
    /// through". A part is uncertain ([`Part::uncertain`]) when what it runs stays
    /// unknown after expansion:
    ///
    /// - its program word ([`Part::runs_anything`]): a command substitution, an
    ///   unknown variable, a glob the core cannot expand (`$(printf r)m`, `$X`,
    ///   `${CMD:-rm}` with `CMD` unknown), a word `xargs -I` replaces, a shell or
    ///   interpreter fed code on its standard input (`… | sh`, `bash <<< '…'`,
    ///   `python3 -`), `sudo -s`/`su`/`script` reading a shell from standard input,
    ///   `sh -c "$X"`, arithmetic that reads a variable whose value is unknown (it may
    ///   hold `a[$(cmd)]`);
    /// - code the core does not read as shell: inline interpreter code (`python -c`,
    ///   `perl -e`, `node -e`, ...), `source`/`.` of a file, an `awk` program with
    ///   `system`, a `sed` script with `e` ([`Part::code_words`] holds its words): it
    ///   may run any program and read or write any file;
    /// - a path argument or redirect target that stays unknown (`cat $NOPE`, `cd $D &&
    ///   cat key`, a relative glob where the working folder does not exist, paths
    ///   `xargs` reads from standard input): [`FileArg::resolvable`] is `false`.
    ///
    /// An uncertain command is judged as meeting every deny and ask rule an uncertain
    /// part could meet (`crate::decide`): a program that may be anything every `Bash`
    /// rule, an unknown path every `Read`/`Edit` rule of its kind. Where one exists
    /// the verdict is an ask naming it with `uncertain: true`, whatever an allow rule
    /// or a mode says. Where none could meet it, an allow rule must cover its words as
    /// written and a mode may allow it, but the read-only default never does. A
    /// command the parser refuses ([`ParsedCommand::parsed`] `false`) may run
    /// anything, and is never allowed by a rule or a mode.
    pub certain: bool,
    /// Whether the shell parser accepted the command (else deny and ask rules meet
    /// the coarse split, and no rule and no mode allows it: SPEC §4 "a command that
    /// cannot be parsed is never allowed by a rule").
    pub parsed: bool,
    /// Whether expanding it looked at the file system (a glob): such a parse holds
    /// only for the file system as it stood, so it is not memoized.
    pub looked_at_files: bool,
}

impl ParsedCommand {
    /// Whether every part is read-only and nothing is written: the command is in the
    /// read-only command set (SPEC §4 "Defaults").
    #[must_use]
    pub fn is_read_only(&self) -> bool {
        self.certain
            && !self.parts.is_empty()
            && self.parts.iter().all(|p| p.read_only)
            && !self.files.iter().any(|f| f.write)
    }
}

impl fmt::Display for ParsedCommand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<&str> = self.parts.iter().map(|p| p.raw.as_str()).collect();
        write!(f, "{}", parts.join(" ; "))
    }
}
