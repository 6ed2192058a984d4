//! Classic (settings) hooks: the `hooks` key of every settings source, run as real
//! processes (SPEC §1.5 `classic.<Event>`, §1.7b, §4 "Classic hooks"; reference
//! `claude-code-formats.md` §4).
//!
//! - **Shape** (reference §4.1): event → matcher groups `{matcher?, hooks: [...]}` →
//!   handlers `{type: "command", command, args?, timeout?, if?, async?}`.
//! - **Matchers** ([`Matcher`]): `""`, `"*"` or none match every tool; a matcher made
//!   only of `[A-Za-z0-9_-]`, spaces, `,` and `|` is an exact name or a list of exact
//!   names; anything else is an unanchored regular expression (the `regex-automata`
//!   engine already in the tree through `globset`; JavaScript regex features it lacks,
//!   such as look-around, make the matcher invalid). An invalid regex never matches for
//!   a person's hook; for a managed hook it matches every tool (never silently inert).
//! - **The `if` field**: one permission-rule pattern, evaluated as a deny rule would be
//!   (every part of a shell command, `$(...)` and backticks included). It fails open: a
//!   command the core cannot split runs the hook.
//! - **Sources** ([`ClassicHooks::from_sources`]): user, project, local, flag and
//!   policy (managed). `allowManagedHooksOnly` (policy, present and not `false`) keeps
//!   only managed hooks; `strictPluginOnlyCustomization` naming `"hooks"` (or `true`)
//!   drops user, project and local hooks; `disableAllHooks: true` in the policy turns
//!   every classic hook off, and elsewhere (the value of the highest source that sets it,
//!   the policy's `false` included) only the non-managed ones. Identical handlers in
//!   several sources run once (the highest source's).
//! - **Running** ([`ClassicHooks::run_pre_tool_use`]): each matching `PreToolUse`
//!   command handler runs as `sh -c <command>` (or `command` with `args`, no shell) in
//!   the working directory, in parallel, with the documented JSON on stdin
//!   ([`pre_tool_use_input`]), `CLAUDE_PROJECT_DIR` set, and its `timeout` (seconds,
//!   default [`DEFAULT_TIMEOUT`]); on timeout its process group is killed. How the
//!   commands run is the embedding program's choice ([`HookRunner`]): as above
//!   (sessions), never (an audit of a policy it did not write: each hook answers "not
//!   run"), or each in a scratch home and working folder with `PATH` only and a cap of
//!   the program's own.
//! - **Reading** (reference §4.4): exit 2 denies with stderr as the reason, whatever
//!   the JSON says; exit 0 reads stdout as JSON when it starts with `{`
//!   (`hookSpecificOutput.permissionDecision` `allow|ask|deny|defer`,
//!   `permissionDecisionReason`, `updatedInput`, `additionalContext`; the deprecated
//!   top-level `decision` `approve|block`; `continue: false` denies); any other exit
//!   code counts only when stdout is valid JSON carrying a decision. `defer` is read as
//!   `ask` (this engine cannot defer a call).
//! - **Failures** (SPEC §4 **\[decision\]**): a hook that times out, crashes (killed by a
//!   signal), cannot start, has no command, exits with another code without a
//!   decision, or prints output that is not the documented JSON **fails**. A
//!   **managed** hook that fails denies, naming the hook; a person's failing hook
//!   changes nothing (it is reported in [`HookRun`]). A managed handler of a type this
//!   engine cannot run (`http`, `prompt`, `agent`, `mcp_tool`, a `powershell` shell)
//!   fails too; a person's is skipped with a warning. `async: true` handlers are
//!   started and never awaited: they decide nothing.
//! - **Combining**: deny > ask > allow; the reason of the deciding hooks; the first
//!   `updatedInput` in source order (policy first). [`apply_to_verdict`] puts the
//!   combined answer over the rules' verdict: a hook's deny or ask is named
//!   `hook: "PreToolUse"`; its allow never lifts a deny, nor an ask that names a rule
//!   or a setting; a hook allow over the mode's own ask allows.
//!
//! One concern a file:
//!
//! - `sources`: the `hooks` of each settings source read into handlers
//!   ([`ClassicHooks::from_sources`], [`Handler`], [`HookWarning`]), and the handlers
//!   that match a call ([`ClassicHooks::matching`]).
//! - `matcher`: a matcher group's [`Matcher`].
//! - `answer`: a hook's output read ([`read_answer`], [`HookAnswer`]) and the answers of
//!   one call combined ([`Combined`], [`HookRun`], [`RunResult`]).
//! - `process`: running one handler: [`HookRunner`], [`ClassicHooks::run_pre_tool_use`],
//!   sandboxing, timeouts and process groups.
//! - `verdict`: the classic input ([`pre_tool_use_input`]) and the combined answer put
//!   over the rules' verdict ([`apply_to_verdict`], [`stricter_with_rules`]).

mod answer;
mod matcher;
mod process;
mod sources;
mod verdict;

#[cfg(test)]
mod tests;

pub use answer::{managed_failure_reason, read_answer, Combined, HookAnswer, HookRun, RunResult};
pub use matcher::Matcher;
pub use process::{HookRunner, DEFAULT_TIMEOUT, NOT_RUN_REASON};
pub use sources::{ClassicHooks, Handler, HandlerKind, HookWarning};
pub use verdict::{apply_to_verdict, is_rule_strict, pre_tool_use_input, stricter_with_rules};

/// The classic hook event this engine runs inside the core of `tool.check` (SPEC §4).
pub const PRE_TOOL_USE: &str = "PreToolUse";

/// The engine event the classic `PreToolUse` hooks run through (SPEC §1.5).
pub const CLASSIC_PRE_TOOL_USE: &str = "classic.PreToolUse";
