//! The read-only command set (SPEC §4 "Defaults"): the simple commands that only
//! read, which `default` mode allows when no rule decides.

use super::words::Word;
use super::wrappers::is_assignment;

/// The find actions that run, delete or write: a `find` with one is not read-only,
/// and never allowed by a prefix rule.
pub(super) const FIND_ACTIONS: &[&str] = &[
    "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
];

/// Variables whose value changes what a later command runs or how the shell reads it.
const PROGRAM_VARIABLES: &[&str] = &[
    "PATH",
    "BASH_ENV",
    "ENV",
    "IFS",
    "PS4",
    "PS0",
    "PS1",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "GLOBIGNORE",
    "CDPATH",
    "BASH_LOADABLES_PATH",
    "EXECIGNORE",
    "HOME",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "NODE_OPTIONS",
    "PERL5OPT",
    "RUBYOPT",
    "GIT_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_EXEC_PATH",
    "GIT_SSH_COMMAND",
    "GIT_PAGER",
    "PAGER",
    "EDITOR",
    "VISUAL",
];

/// Whether `NAME=value` changes nothing a later command runs.
fn harmless_assignment(text: &str) -> bool {
    let name = text
        .split('=')
        .next()
        .unwrap_or_default()
        .trim_end_matches('+');
    !(PROGRAM_VARIABLES.contains(&name)
        || name.starts_with("LD_")
        || name.starts_with("DYLD_")
        || name.starts_with("GIT_CONFIG")
        || name.starts_with("BASH_FUNC"))
}

/// Whether a simple command's words are in the read-only command set (SPEC §4
/// "Defaults"): `ls`, `pwd`, `cd`, `echo`, `cat`, `head`, `tail`, `wc`, `grep`,
/// `rg`, `find` without actions that run or delete, `which`, `file`, `stat`,
/// `tree`, and `git status|log|diff|show|branch` without writing options.
pub(super) fn is_read_only(words: &[Word]) -> bool {
    // Assignments run nothing, save those that change what runs (`PATH=.`,
    // `LD_PRELOAD=...`, `BASH_ENV=...`).
    let assigned = words.iter().take_while(|w| is_assignment(w)).count();
    if words
        .iter()
        .take(assigned)
        .any(|w| w.dynamic || !harmless_assignment(&w.text))
    {
        return false;
    }
    let words = words.get(assigned..).unwrap_or_default();
    if words.is_empty() {
        return assigned > 0;
    }
    let Some((first, rest)) = words.split_first() else {
        return false;
    };
    if first.dynamic || first.text.contains('/') || first.quoted {
        return false;
    }
    let args: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
    match first.text.as_str() {
        "ls" | "pwd" | "cd" | "echo" | "cat" | "head" | "tail" | "wc" | "grep" | "which"
        | "stat" => true,
        "rg" => !args
            .iter()
            .any(|a| *a == "--pre" || a.starts_with("--pre=")),
        "file" => !args.iter().any(|a| *a == "-C" || *a == "--compile"),
        "tree" => !args
            .iter()
            .any(|a| a.starts_with("-o") || a.starts_with("--output")),
        "find" => !args.iter().any(|a| FIND_ACTIONS.contains(a)),
        "git" => git_read_only(&args),
        _ => false,
    }
}

fn git_read_only(args: &[&str]) -> bool {
    let Some((sub, rest)) = args.split_first() else {
        return false;
    };
    let no_output = |a: &&str| a.starts_with("--output") || *a == "--ext-diff" || *a == "-o";
    match *sub {
        "status" | "log" | "diff" | "show" => !rest.iter().any(no_output),
        "branch" => {
            let listing = [
                "-a",
                "-r",
                "-l",
                "-v",
                "-vv",
                "--list",
                "--all",
                "--remotes",
                "--verbose",
                "--show-current",
                "--no-color",
                "--color",
                "--column",
                "--no-column",
            ];
            let with_value = [
                "--sort=",
                "--format=",
                "--color=",
                "--contains",
                "--no-contains",
                "--merged",
                "--no-merged",
                "--points-at",
            ];
            let is_list = rest.iter().any(|a| *a == "--list" || *a == "-l");
            rest.iter().all(|a| {
                listing.contains(a)
                    || with_value.iter().any(|p| a.starts_with(p))
                    || (is_list && !a.starts_with('-'))
            })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::bash::parse_command;

    #[test]
    fn read_only_set() {
        for cmd in [
            "ls -la",
            "pwd",
            "cd src && ls",
            "cat a | grep b | wc -l",
            "git status",
            "git log --oneline -5",
            "git branch -a",
            "find . -name '*.rs'",
            "rg foo",
            "echo hi > /dev/null",
            "echo $(pwd)",
        ] {
            assert!(parse_command(cmd).is_read_only(), "{cmd}");
        }
        for cmd in [
            "rm x",
            "ls; rm x",
            "echo hi > f",
            "find . -delete",
            "find . -exec rm {} +",
            "git push",
            "git branch new",
            "git -c core.pager=x log",
            "git diff --output=x",
            "rg --pre sh x",
            "/tmp/ls",
            "PATH=. ls",
            "LD_PRELOAD=/tmp/x.so ls",
            "echo 'x",
            "tree -o out",
            "echo $(rm x)",
        ] {
            assert!(!parse_command(cmd).is_read_only(), "{cmd}");
        }
    }
}
