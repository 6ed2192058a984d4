//! The core answer of `tool.check` (SPEC §1.6, §4) and what the engine does with it.

use crate::matcher::{
    allowing_rule, first_strict, first_uncertain, mode_allows_edit, Subject, EDIT_TOOLS, READ_TOOLS,
};
use crate::rule::{Behavior, Rule};
use crate::{Decision, Verdict};
use crate::{Loop, Mode, RuleSet, SessionFacts};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The tools that only read: a plain allow when no rule decides (SPEC §4 "Defaults").
pub const READ_ONLY_TOOLS: &[&str] = &[
    "Read",
    "Glob",
    "Grep",
    "LS",
    "NotebookRead",
    "TodoWrite",
    "ToolSearch",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskUpdate",
    "TaskOutput",
];

/// The setting an unreadable policy's ask names (SPEC §2.1).
pub const MANAGED_SETTINGS: &str = "managed-settings";

/// The setting the read block's asks and denies name (SPEC §3.6, §4).
pub const BLOCK_READS_SETTING: &str = "permissions.blockReadsOutsideWorkingDirectories";

/// The question `tool.check` asks: a tool and its input (SPEC §1.6).
#[derive(Debug, Clone, Copy)]
pub struct Question<'a> {
    /// The tool's name (`Bash`, `mcp__github__get_issue`).
    pub tool: &'a str,
    /// The tool's input.
    pub input: &'a serde_json::Value,
}

/// The core answer of `tool.check` (SPEC §1.6, §4).
///
/// Takes the rules in force, the question and the session facts; returns the verdict.
///
/// 1. **Deny, then ask, then allow**; the first matching rule decides regardless of
///    specificity. When several match at the deciding stage, the one named is the
///    first in source order policy, cli, flag, session, local, project, user, and
///    within a source in file order. The verdict names the `rule` (text exactly as
///    written) and its `source`.
/// 2. Deny and ask rules win over every mode. In `bypassPermissions` (unless
///    `disableBypassPermissionsMode` is `"disable"`) everything else is a plain
///    allow; in `plan` allow rules are not consulted.
/// 3. When no rule decides, the mode's default: read-only tools and read-only shell
///    commands a plain allow; in `acceptEdits` edits inside the working directory
///    (protected paths excepted) a plain allow; everything else a plain ask.
/// 4. **What the core cannot see, it never lets through** (SPEC §4
///    **\[decision\]**): a shell command whose program or path stays unknown after
///    expansion is judged as meeting every deny and ask rule it could meet
///    ([`crate::bash::ParsedCommand::certain`]); where one exists (a deny rule
///    before an ask rule, each after the rules the command surely meets), the
///    verdict is an `ask` naming it, its `source`, and `uncertain: true`, whatever
///    an allow rule or a mode says. A command the parser refuses is never allowed by
///    a rule or a mode: at least a plain ask. A call that writes a protected path
///    (`.git`, `.claude` but `.claude/worktrees`, `.vscode`, `.idea`, `.husky`,
///    shell startup files, `.npmrc`, ...) is never allowed by a rule or a mode,
///    `bypassPermissions` included (SPEC §4: never auto-approved); nor is an
///    `rm`/`rmdir` of a critical path (`/`, `/*`, `/etc`, `~`, a folder above the
///    working directory; reference §3.3).
/// 5. The read block (`permissions.blockReadsOutsideWorkingDirectories`, SPEC
///    §3.6): a file tool reading outside the working directories (the session's and
///    `additionalDirectories`) is denied, after the deny rules; a shell command that
///    reads outside them (or reads a path not known before it runs), or asks to run
///    outside the sandbox, is asked, after the ask rules. Both name
///    `setting: "permissions.blockReadsOutsideWorkingDirectories"`.
/// 6. `bypassPermissions` with `disableBypassPermissionsMode: "disable"`, and `auto`
///    with `disableAutoMode: "disable"`, decide as `default`
///    ([`RuleSet::effective_mode`]).
///
/// Every ask carries `decider: "host"` when the session has a host, the loop is
/// `main` or `subagent`, and the mode is not `dontAsk` (SPEC §4 "Hosts"); an ask on a
/// tool of the `claude-in-chrome` MCP server carries it in `dontAsk` too
/// ([`SessionFacts::host_decides_for`], SPEC §3.6), so its outcome is `host`.
#[must_use]
pub fn decide(rules: &RuleSet, q: &Question<'_>, facts: &SessionFacts) -> Verdict {
    let subject = Subject::new(q, facts, rules);
    decide_subject(rules, &subject, q, facts)
}

/// [`decide`] on a question already prepared for matching: `subject` is
/// `Subject::new(q, facts, r)` for any rule set `r` with the same
/// `additionalDirectories` as `rules` (the subject depends on the rules through the
/// working directories only), so one subject serves every rule of a set judged
/// alone ([`crate::explain()`]).
pub(crate) fn decide_subject(
    rules: &RuleSet,
    subject: &Subject<'_>,
    q: &Question<'_>,
    facts: &SessionFacts,
) -> Verdict {
    let mode = rules.effective_mode(facts.mode);
    if let Some(rule) = first_strict(rules, Behavior::Deny, subject, facts) {
        return named(
            Decision::Deny,
            rule,
            format!(
                "denied by the permission rule {} in {} settings",
                rule.text, rule.source
            ),
        );
    }
    if rules.blocks_reads_outside()
        && READ_TOOLS.contains(&subject.tool)
        && !subject.paths.is_empty()
        && subject.reads_outside()
    {
        let mut v = Verdict::plain(Decision::Deny).with_reason(format!(
            "{} outside the working directories is blocked by {BLOCK_READS_SETTING}",
            subject.tool
        ));
        v.setting = Some(BLOCK_READS_SETTING.to_owned());
        return v;
    }
    if let Some(rule) = first_uncertain(rules, Behavior::Deny, subject) {
        return host(uncertain(rule, subject), facts, q.tool);
    }
    if let Some(rule) = first_strict(rules, Behavior::Ask, subject, facts) {
        let v = named(
            Decision::Ask,
            rule,
            format!(
                "the permission rule {} in {} settings asks before this call",
                rule.text, rule.source
            ),
        );
        return host(v, facts, q.tool);
    }
    if let Some(rule) = first_uncertain(rules, Behavior::Ask, subject) {
        return host(uncertain(rule, subject), facts, q.tool);
    }
    if rules.blocks_reads_outside() && subject.command.is_some() {
        let unsandboxed = q
            .input
            .get("dangerouslyDisableSandbox")
            .is_some_and(|v| *v == serde_json::Value::Bool(true));
        let reason = if subject.reads_outside() {
            Some("this shell command reads outside the working directories")
        } else if unsandboxed {
            Some("this shell command asks to run outside the sandbox while reads outside the working directories are blocked")
        } else {
            None
        };
        if let Some(reason) = reason {
            let mut v = Verdict::plain(Decision::Ask)
                .with_reason(format!("{reason} ({BLOCK_READS_SETTING})"));
            v.setting = Some(BLOCK_READS_SETTING.to_owned());
            return host(v, facts, q.tool);
        }
    }
    if subject.unknown_path {
        return host(
            Verdict::plain(Decision::Ask).with_reason(format!(
                "the path of this {} call cannot be read from its input, so it is asked",
                subject.tool
            )),
            facts,
            q.tool,
        );
    }
    if subject.unparsed_command() {
        return host(
            Verdict::plain(Decision::Ask)
                .with_reason("this shell command cannot be parsed with confidence, so it is asked"),
            facts,
            q.tool,
        );
    }
    if subject.writes_protected() {
        return host(
            Verdict::plain(Decision::Ask).with_reason(
                "this call writes a protected path (.git, .claude, shell startup files, ...), which is never approved automatically",
            ),
            facts,
            q.tool,
        );
    }
    if subject.removes_critical() {
        return host(
            Verdict::plain(Decision::Ask).with_reason(
                "this command removes a critical path (the root, a top-level folder, the home directory or a folder above the working directory), which is never approved automatically",
            ),
            facts,
            q.tool,
        );
    }
    if mode == Mode::BypassPermissions {
        return Verdict::plain(Decision::Allow)
            .with_reason("bypassPermissions mode allows this call");
    }
    if mode != Mode::Plan {
        if let Some(rule) = allowing_rule(rules, subject, facts, mode) {
            return named(
                Decision::Allow,
                rule,
                format!(
                    "allowed by the permission rule {} in {} settings",
                    rule.text, rule.source
                ),
            );
        }
    }
    mode_default(subject, facts, mode)
}

fn mode_default(s: &Subject<'_>, facts: &SessionFacts, mode: Mode) -> Verdict {
    if READ_ONLY_TOOLS.contains(&s.tool) {
        return Verdict::plain(Decision::Allow).with_reason(format!("{} only reads", s.tool));
    }
    if let Some(cmd) = &s.command {
        if cmd.is_read_only() {
            return Verdict::plain(Decision::Allow)
                .with_reason("every part of this command only reads");
        }
        if mode == Mode::AcceptEdits
            && cmd.certain
            && !cmd.parts.is_empty()
            && cmd.parts.iter().all(|p| p.read_only || p.edits_files)
            && s.files
                .iter()
                .filter(|f| f.write)
                .all(|f| f.resolvable && f.forms.iter().all(|p| mode_allows_edit(s, p, mode)))
        {
            return Verdict::plain(Decision::Allow)
                .with_reason("acceptEdits mode allows writes inside the working directories");
        }
    }
    if EDIT_TOOLS.contains(&s.tool)
        && !s.paths.is_empty()
        && s.paths
            .iter()
            .all(|p| p.forms.iter().all(|f| mode_allows_edit(s, f, mode)))
    {
        return Verdict::plain(Decision::Allow)
            .with_reason("acceptEdits mode allows edits inside the working directories");
    }
    let reason = match (mode, s.command.is_some()) {
        (Mode::Plan, _) => format!("plan mode asks before {} changes anything", s.tool),
        (_, true) => "Claude wants to run a shell command".to_owned(),
        (_, false) => format!("Claude wants to use {}", s.tool),
    };
    host(
        Verdict::plain(Decision::Ask).with_reason(reason),
        facts,
        s.tool,
    )
}

/// The ask an uncertain command gets where `rule` could meet it (SPEC §4).
fn uncertain(rule: &Rule, subject: &Subject<'_>) -> Verdict {
    let kind = if rule.behavior == Behavior::Deny {
        "denies"
    } else {
        "asks before"
    };
    let mut v = named(
        Decision::Ask,
        rule,
        if subject.unknown_path {
            format!(
                "the path of this {} call cannot be read from its input, and the permission rule {} in {} settings, which {kind} what it may meet, may meet it; so it is asked",
                subject.tool, rule.text, rule.source
            )
        } else {
            format!(
                "this shell command runs something known only when it runs, and the permission rule {} in {} settings, which {kind} what it may meet, may meet it; so it is asked",
                rule.text, rule.source
            )
        },
    );
    v.uncertain = true;
    v
}

fn named(decision: Decision, rule: &Rule, reason: String) -> Verdict {
    let mut v = Verdict::plain(decision).with_reason(reason);
    v.rule = Some(rule.text.clone());
    v.source = Some(rule.source.as_str().to_owned());
    v
}

/// `decider: "host"` on an ask on `tool` where the host answers asks: also in
/// `dontAsk` for a Chrome tool (SPEC §4 "Hosts", §3.6).
fn host(mut v: Verdict, facts: &SessionFacts, tool: &str) -> Verdict {
    if v.decision == Decision::Ask && facts.host_decides_for(tool) {
        v.decider = Some("host".to_owned());
    }
    v
}

/// The core's answer when the managed policy cannot be read (SPEC §2.1, fail
/// closed): a deny of the readable sources' rules still denies; anything else is an
/// ask naming `setting: "managed-settings"`, with a reason saying the organization's
/// policy cannot be read (and `decider: "host"` where a host answers asks).
///
/// `rules_without_policy` are the rules of every source but the policy.
#[must_use]
pub fn decide_unreadable_policy(
    rules_without_policy: &RuleSet,
    q: &Question<'_>,
    facts: &SessionFacts,
) -> Verdict {
    let inner = decide(rules_without_policy, q, facts);
    if inner.decision == Decision::Deny {
        return inner;
    }
    let mut v = Verdict::plain(Decision::Ask).with_reason(
        "the organization's policy (managed settings) cannot be read, so this call is asked",
    );
    v.setting = Some(MANAGED_SETTINGS.to_owned());
    host(v, facts, q.tool)
}

/// What the engine does with the chain's final verdict (SPEC §1.6 **\[decision\]**).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The call runs.
    Run,
    /// The person is prompted.
    Prompt,
    /// The host is asked.
    Host,
    /// The call is refused (a deny, or an ask nobody can answer).
    Refused,
}

impl Outcome {
    /// `run`, `prompt`, `host`, `refused`.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Run => "run",
            Outcome::Prompt => "prompt",
            Outcome::Host => "host",
            Outcome::Refused => "refused",
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the engine does with the chain's final `verdict` in a session with `facts`
/// (SPEC §1.6): `allow` runs, `deny` is refused; an `ask` goes to the host when it
/// names `decider: "host"`, is refused when nobody can be asked (`dontAsk`, a
/// background loop, a non-interactive run), and prompts the person otherwise.
#[must_use]
pub fn outcome(verdict: &Verdict, facts: &SessionFacts) -> Outcome {
    match verdict.decision {
        Decision::Allow => Outcome::Run,
        Decision::Deny => Outcome::Refused,
        Decision::Ask => {
            if verdict.decider.as_deref() == Some("host") {
                Outcome::Host
            } else if facts.mode == Mode::DontAsk
                || facts.loop_kind == Loop::Background
                || !facts.interactive
            {
                Outcome::Refused
            } else {
                Outcome::Prompt
            }
        }
    }
}
