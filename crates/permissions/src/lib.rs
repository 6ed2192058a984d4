//! # permissions — the core of `tool.check`
//!
//! The engine's own answer to "may this tool call run?" (SPEC §1.6, §4): the
//! permission rules of every settings source, the permission mode, and the host
//! that answers asks. The security default (the `sec-default` crate) measures every
//! plugin's answer against this core, so the core must be real.
//!
//! ## What it decides by
//!
//! - **Rules** from every settings source (`permissions.allow`, `.ask`, `.deny`),
//!   gathered with [`RuleSet::from_sources`]. They accumulate across sources; with
//!   the policy's `allowManagedPermissionRulesOnly` only policy rules count.
//! - **Deny beats ask beats allow**; the first match decides regardless of
//!   specificity. Where several rules match at the deciding stage, the verdict names
//!   the first in source order policy, cli, flag, session, local, project, user, and
//!   within a source in file order ([`SettingsSource::precedence`]).
//! - **Rule syntax** ([`rule`]): bare tool names (`Bash`, `WebFetch`,
//!   `deploy_agent`), `Bash(cmd)`, `Bash(cmd *)`, legacy `Bash(cmd:*)`, `*` anywhere;
//!   `mcp__server`, `mcp__server__tool`, `mcp__server__*`; `Read(...)`/`Edit(...)`
//!   gitignore-style paths (`//abs`, `~/`, `/settings-relative`, `./`);
//!   `WebFetch(domain:host)`; `Agent(type)`/`Task(type)`; `Skill(name)`;
//!   `Tool(param:value)` for deny and ask; tool-name globs (`mcp__*`, `*`) in deny and
//!   ask. **A deny or ask rule that does not parse is never inert**: it stands for its
//!   whole tool, with a [`RuleWarning`]. An allow rule that does not parse is dropped.
//! - **Shell commands** ([`bash`]) are split into parts (`&&`, `||`, `;`, `|`, `&`,
//!   newlines, subshells, `$(...)`, backticks, `sh -c` strings, `find -exec`);
//!   deny and ask rules meet every part as written and past each wrapper (`sudo`,
//!   `env`, `timeout`, `xargs`, ...) and by the basename of a program given by path;
//!   an allow rule must cover every part, and never covers a wrapper by the
//!   wrapper's own name (`Bash(setsid:*)` does not allow `setsid make deploy`). A
//!   redirect target is judged as `Edit(<path>)`. A command that cannot be split,
//!   or whose program is known only at run time (`$X`, `$(...)`, globs, `eval`, a
//!   shell fed code on stdin), is never allowed
//!   ([`bash::ParsedCommand::certain`]); nor is an `rm` of a critical path.
//! - **Speed**: the rules are compiled when the [`RuleSet`] is built (an index by
//!   tool, `Bash` patterns by first word, path globs in glob sets, anchors resolved
//!   once per session), so a question meets only the rules that can apply to it.
//! - **Modes** ([`Mode`]): when no rule decides, read-only tools and read-only
//!   commands are a plain allow and everything else a plain ask; `acceptEdits` also
//!   allows edits inside the working directory; `plan` consults no allow rule;
//!   `bypassPermissions` allows what no rule denies or asks (unless the policy says
//!   `disableBypassPermissionsMode: "disable"`); `dontAsk` leaves asks as plain asks
//!   ([`outcome`] refuses them).
//! - **Hosts** ([`Host`]): an ask carries `decider: "host"` when the session has a
//!   host, the loop is `main` or `subagent`, and the mode is not `dontAsk`; an ask on
//!   a tool of the `claude-in-chrome` MCP server ([`is_chrome_tool`]) carries it in
//!   `dontAsk` too.
//! - **Fail closed** ([`decide_unreadable_policy`]): with the managed policy
//!   unreadable, at least an ask naming `setting: "managed-settings"`.
//!
//! ## Example
//!
//! ```
//! use permissions::Decision;
//! use permissions::{decide, outcome, Outcome, Question, RuleSet, SessionFacts, SettingsSource};
//! use serde_json::json;
//!
//! let policy = json!({"permissions": {"deny": ["Bash(rm:*)"], "ask": ["Bash(git push *)"]}});
//! let user = json!({"permissions": {"allow": ["Bash(npm test *)", "Bash(rm:*)"]}});
//! let (rules, warnings) =
//!     RuleSet::from_sources(&[(SettingsSource::User, &user), (SettingsSource::Policy, &policy)]);
//! assert!(warnings.is_empty());
//! assert_eq!(rules.counts(), (1, 1, 2));
//!
//! let facts = SessionFacts::new("/home/dev/repo", "/home/dev");
//! let input = json!({"command": "npm test && sudo /bin/rm -rf build"});
//! let verdict = decide(&rules, &Question { tool: "Bash", input: &input }, &facts);
//! assert_eq!(verdict.decision, Decision::Deny);
//! assert_eq!(verdict.rule.as_deref(), Some("Bash(rm:*)"));
//! assert_eq!(verdict.source.as_deref(), Some("policy"));
//! assert_eq!(outcome(&verdict, &facts), Outcome::Refused);
//!
//! let input = json!({"command": "npm test -- --watch=false"});
//! let verdict = decide(&rules, &Question { tool: "Bash", input: &input }, &facts);
//! assert_eq!(verdict.decision, Decision::Allow);
//! assert_eq!(verdict.rule.as_deref(), Some("Bash(npm test *)"));
//!
//! // No rule decides: the mode's default. Read-only commands run, others ask.
//! let input = json!({"command": "git status && ls -la"});
//! let verdict = decide(&rules, &Question { tool: "Bash", input: &input }, &facts);
//! assert_eq!((verdict.decision, verdict.rule), (Decision::Allow, None));
//! let input = json!({"command": "make build"});
//! let verdict = decide(&rules, &Question { tool: "Bash", input: &input }, &facts);
//! assert_eq!(verdict.decision, Decision::Ask);
//! assert!(!verdict.names_a_cause());
//! assert_eq!(outcome(&verdict, &facts), Outcome::Prompt);
//! ```
//!
//! ## Paths, shell files and the read block
//!
//! Paths are met as typed and canonical (symlinks resolved): a deny or ask rule
//! matching either applies, an allow needs both ([`path`]). The path arguments of the
//! shell's file commands (`cat`, `grep`, `sed`, `tee`, `cp`, `rm`, ...) and redirect
//! targets meet `Read(...)`/`Edit(...)` rules, resolved after any `cd` in the same
//! command ([`bash::FileArg`]). Writes to protected paths are never approved by a
//! rule or a mode. `permissions.blockReadsOutsideWorkingDirectories` denies file-tool
//! reads and asks shell reads outside the working directories
//! ([`BLOCK_READS_SETTING`]). Classic `PreToolUse` hooks are in [`classic`];
//! rewrites are the callers' business.

#![forbid(unsafe_code)]

pub mod bash;
pub mod classic;
mod decide;
mod facts;
mod index;
mod matcher;
pub mod path;
pub mod rule;
mod ruleset;
mod verdict;
pub mod wildcard;

pub use decide::{
    decide, decide_unreadable_policy, outcome, Outcome, Question, BLOCK_READS_SETTING,
    MANAGED_SETTINGS, READ_ONLY_TOOLS,
};
pub use facts::{
    is_chrome_tool, Host, Loop, Mode, ParseNameError, SessionFacts, SettingsSource, CHROME_SERVER,
};
pub use rule::{Behavior, Rule, RuleSpec, RuleWarning};
pub use ruleset::RuleSet;
pub use verdict::{Decision, Verdict};

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
