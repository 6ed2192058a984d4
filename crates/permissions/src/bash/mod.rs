//! Shell commands, split into the parts permission rules meet (SPEC §4 "Compound
//! shell commands").
//!
//! [`split`] parses a command with a real shell parser (`brush-parser`, a POSIX/bash
//! grammar) and walks the syntax tree: `&&`, `||`, `;`, `|`, `|&`, `&`, newlines,
//! subshells, brace groups, `if`/`while`/`until`/`for`/`case`, function bodies,
//! `[[ ... ]]` and arithmetic. Every word is resolved (quotes, escapes, `$'...'`
//! removed); the commands inside `$(...)`, backticks, `<(...)`/`>(...)`, `${...}`
//! defaults, arithmetic and unquoted here-documents are parsed and walked too and
//! become simple commands of their own. What it cannot parse is an error.
//!
//! [`parse_command`] then turns each simple command into a [`Part`]: the forms deny
//! and ask rules meet (as written, and after each stripping step of leading
//! `VAR=value` assignments, shell keywords and wrappers such as `sudo`, `env`,
//! `timeout`, `xargs`; a program given by path also by its basename), the forms allow
//! rules meet, and whether the part is in the read-only command set. The `-c` string
//! of `sh`/`bash`/`zsh`/`dash`/`ksh`, `eval` arguments, `watch` commands and the
//! commands of `find -exec/-execdir/-ok` are parsed recursively and become parts too.
//! The path arguments of the file commands the core recognises, and redirect
//! targets, become [`FileArg`]s, with the directories a `cd` earlier in the command
//! may have moved to.
//!
//! Words are expanded as the shell would in the session ([`parse_command_in`] with a
//! [`ShellContext`]: tilde forms, `$HOME`/`$PWD`, variables set earlier in the command
//! or in the session's environment, braces, globs against the file system), and each
//! value a part may take becomes a part of its own; what stays unknown makes its part
//! uncertain ([`ParsedCommand::certain`], SPEC §4 **\[decision\]** "What the core
//! cannot see, it never lets through").
//!
//! A command that cannot be parsed is still met by deny and ask rules through a
//! coarse fallback split, but [`ParsedCommand::parsed`] is `false`: it may run
//! anything, and no rule and no mode default allows it. [`parse_command_cached_in`]
//! memoizes whole parses in a bounded LRU keyed by the command string and what
//! expansion reads of the session (a parse that globbed is not kept).
//!
//! One concern a file:
//!
//! - `walker`: the syntax tree walked into [`SimpleCommand`]s, with their redirects
//!   and the directories a `cd` may have moved them to; [`split`] and the limits
//!   past which a command is not parsed.
//! - `expand`: expansion as the shell would do it in the session ([`ShellContext`]):
//!   braces, tilde forms, parameters, field splitting, globs against the file system,
//!   bounded by [`MAX_EXPANSION`]; what stays unknown makes its part uncertain.
//! - `words`: one word resolved into a [`Word`] (quotes, escapes, `$'...'`), the
//!   substitutions and expansions inside it walked in their turn.
//! - `parts`: what rules meet: [`Part`], [`FileArg`], [`WriteTarget`] and
//!   [`ParsedCommand`].
//! - `analysis`: [`parse_command`]: each simple command turned into a [`Part`], the
//!   command strings it runs parsed in their turn, the coarse fallback.
//! - `cache`: [`parse_command_cached`], the bounded LRU memo.
//! - `file_commands`: the file-command table: which arguments of the file commands
//!   the core recognises are paths, read or written.
//! - `wrappers`: wrappers and runners: the stripping steps (assignments, keywords,
//!   wrappers) and the programs that run code of their own.
//! - `read_only`: the read-only command set.
//! - `sed`: a `sed` script read as sed reads it: the commands it runs, the files it
//!   reads and writes.

mod analysis;
mod arith;
mod cache;
mod expand;
mod file_commands;
mod parts;
mod read_only;
mod sed;
mod walker;
mod words;
mod wrappers;

#[cfg(test)]
mod tests;

pub use analysis::{parse_command, parse_command_in, MAX_PARSED_COMMAND_BYTES};
pub use cache::{parse_command_cached, parse_command_cached_in, MEMO_CAPACITY};
pub use expand::{ShellContext, MAX_COMMAND_EXPANSION, MAX_EXPANSION};
pub use parts::{FileArg, ParsedCommand, Part, WriteTarget};
pub use walker::{split, Bases, Redirect, RedirectKind, SimpleCommand, SplitError};
pub use words::{basename, Word};
