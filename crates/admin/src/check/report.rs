//! What `check` reports of one call, as types: `--json` prints them serialized, and
//! [`CheckReport::render`] is their one rendering in words, one line per fact. What
//! settings files, plugins and calls hold is written escaped ([`crate::text::escape`],
//! SPEC §3.6.1): a rule that only looks like another must not read as it.

use crate::text::escape;
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;

/// What `check` reports of one call.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum CheckReport {
    /// The call, read and explained.
    Explained(Box<Explained>),
    /// A call that cannot be read: the engine asks before it (exit 2).
    Unreadable(Unreadable),
}

/// A call read and explained (SPEC §1.6, §3.6, §4).
#[derive(Debug, Clone, Serialize)]
pub struct Explained {
    /// The call: its tool and input.
    pub call: Call,
    /// The engine's answer to `tool.check` with the security default seated as the
    /// engine seats it, exactly as it answered: a verdict (`decision`, `reason`,
    /// `rule`, `source`, `uncertain`, `setting`, SPEC §1.6), or `{"error"}` when the
    /// session could not start.
    pub verdict: Value,
    /// The rule that decided, with where it is written; `None` when no rule did (the
    /// mode's default, a setting or a hook).
    pub decided_by: Option<RuleMet>,
    /// Every rule that meets the call, each judged alone by the core
    /// ([`permissions::explain()`]).
    pub matched: Vec<RuleMet>,
    /// A shell command's parts (its first 64), each with the rules it meets.
    pub shell_parts: Vec<ShellPart>,
    /// How many parts past the first 64 are not itemized.
    pub shell_parts_not_itemized: usize,
    /// The classic `PreToolUse` hooks that would run.
    pub classic_hooks: ClassicHooksReport,
    /// The mode the session started in (SPEC §4 "Mode at start").
    pub mode: &'static str,
    /// The working folder the call is judged in.
    pub cwd: String,
    /// Whether the security default holds the verdict over a person's plugin that
    /// answers `allow` to every check.
    pub over_a_persons_plugin: Held,
    /// The settings files read (the `--settings` file only when given).
    pub sources: Vec<SourceFile>,
    /// The managed folder read.
    pub managed: String,
    /// What could not be used, and why (a settings file, the managed policy).
    pub problems: Vec<Problem>,
    /// Whether the managed policy could not be read (exit 3; it counts as in force).
    #[serde(skip)]
    pub policy_unreadable: bool,
}

/// A call: a tool and its input.
#[derive(Debug, Clone, Serialize)]
pub struct Call {
    /// The tool's name.
    pub tool: String,
    /// The tool's input.
    pub input: Value,
}

/// A rule that meets the call, with where it is written.
#[derive(Debug, Clone, Serialize)]
pub struct RuleMet {
    /// `deny`, `ask` or `allow`.
    pub behavior: &'static str,
    /// The rule, exactly as written.
    pub rule: String,
    /// Its settings source (`policy`, `user`, `project`, `local`, `flag`, ...).
    pub source: &'static str,
    /// The file that gives it (a managed drop-in where it comes from one).
    pub file: String,
    /// The 1-based line within it, where known.
    pub line: Option<usize>,
    /// The JSON pointer within it (`/permissions/deny/0`).
    pub pointer: String,
    /// Whether it meets the call only uncertainly (SPEC §4 "What the core cannot see").
    pub uncertain: bool,
}

/// One part of a shell command.
#[derive(Debug, Clone, Serialize)]
pub struct ShellPart {
    /// The part as written.
    pub part: String,
    /// Whether the core cannot see through it (or it runs anything it is given).
    pub uncertain: bool,
    /// Whether it only reads.
    pub read_only: bool,
    /// The rules it meets (no allow rule for an uncertain part).
    pub meets: Vec<PartMeets>,
}

/// A rule a shell command's part meets.
#[derive(Debug, Clone, Serialize)]
pub struct PartMeets {
    /// `deny`, `ask` or `allow`.
    pub behavior: &'static str,
    /// The rule, exactly as written.
    pub rule: String,
    /// Whether only uncertainly.
    pub uncertain: bool,
}

/// The classic hooks that would run (SPEC §4 "Classic hooks").
#[derive(Debug, Clone, Serialize)]
pub struct ClassicHooksReport {
    /// Whether `check` runs them (`--run-hooks`); never otherwise.
    pub run: bool,
    /// The hooks whose matcher meets the call.
    pub hooks: Vec<ClassicHook>,
}

/// One classic hook that would run.
#[derive(Debug, Clone, Serialize)]
pub struct ClassicHook {
    /// Its event (`PreToolUse`).
    pub event: String,
    /// Its group's matcher as written (`None`: no matcher).
    pub matcher: Option<String>,
    /// What it runs.
    pub command: String,
    /// Its settings source.
    pub source: &'static str,
    /// Its JSON pointer within the source.
    pub pointer: String,
}

/// The verdict with a person's plugin answering `allow` to every check.
#[derive(Debug, Clone, Serialize)]
pub struct Held {
    /// Whether the seated verdict is the verdict without that plugin.
    pub held: bool,
    /// The engine's answer with the security default seated.
    pub seated: Value,
    /// The engine's answer without it.
    pub unseated: Value,
}

/// A settings file read.
#[derive(Debug, Clone, Serialize)]
pub struct SourceFile {
    /// Its settings source.
    pub source: &'static str,
    /// The file.
    pub file: String,
    /// Whether it exists.
    pub present: bool,
}

/// Something read that cannot be used.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    /// Its settings source (`policy` for the managed policy).
    pub source: &'static str,
    /// Why, with the file and position.
    pub problem: String,
}

/// A call that cannot be read.
#[derive(Debug, Clone, Serialize)]
pub struct Unreadable {
    /// The call as given.
    pub call: Vec<String>,
    /// Why it cannot be read, and the exit code.
    pub error: UnreadableError,
    /// The engine's verdict on what it cannot read: `ask`.
    pub verdict: AskVerdict,
}

/// Why a call cannot be read.
#[derive(Debug, Clone, Serialize)]
pub struct UnreadableError {
    /// Why.
    pub reason: String,
    /// 2 (bad input).
    pub exit_code: u8,
}

/// An `ask` and its reason.
#[derive(Debug, Clone, Serialize)]
pub struct AskVerdict {
    /// `ask`.
    pub decision: &'static str,
    /// Why.
    pub reason: String,
}

/// A string field of an engine answer (`decision`, `reason`), or nothing.
fn answer_str<'a>(answer: &'a Value, key: &str) -> &'a str {
    answer.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// Where a rule is written, in words: `file:line pointer`.
fn place(m: &RuleMet) -> String {
    let line = m.line.map(|l| format!(":{l}")).unwrap_or_default();
    format!("{}{line} {}", escape(&m.file), escape(&m.pointer))
}

/// `, uncertain` when `uncertain`.
fn uncertain(uncertain: bool) -> &'static str {
    if uncertain {
        ", uncertain"
    } else {
        ""
    }
}

impl CheckReport {
    /// The exit code: 0 with the verdict, 2 for a call that cannot be read, 3 for a
    /// managed policy that cannot be read ([`crate::exit`]).
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            CheckReport::Unreadable(_) => crate::exit::BAD_INPUT,
            CheckReport::Explained(e) if e.policy_unreadable => crate::exit::POLICY_UNREADABLE,
            CheckReport::Explained(_) => crate::exit::OK,
        }
    }

    /// The explanation in words, one line per fact.
    #[must_use]
    pub fn render(&self) -> String {
        match self {
            CheckReport::Unreadable(u) => format!(
                "cannot read the call: {}\nverdict: ask ({})\n",
                escape(&u.error.reason),
                escape(&u.verdict.reason)
            ),
            CheckReport::Explained(e) => e.render(),
        }
    }
}

impl Explained {
    /// The explanation in words, one line per fact.
    #[must_use]
    pub fn render(&self) -> String {
        let mut o = String::new();
        let verdict = &self.verdict;
        let _ = writeln!(o, "{} {}", escape(&self.call.tool), self.call.input);
        let _ = writeln!(
            o,
            "verdict: {}{}",
            escape(answer_str(verdict, "decision")),
            verdict
                .get("reason")
                .and_then(Value::as_str)
                .map(|x| format!(" ({x})"))
                .unwrap_or_default()
        );
        match &self.decided_by {
            Some(d) => {
                let _ = writeln!(
                    o,
                    "decided by: {} {} ({} settings) at {}{}",
                    d.behavior,
                    escape(&d.rule),
                    d.source,
                    place(d),
                    uncertain(d.uncertain)
                );
            }
            None => o.push_str("decided by: no rule (the mode's default, a setting or a hook)\n"),
        }
        let _ = writeln!(o, "rules that meet this call: {}", self.matched.len());
        for stage in ["deny", "ask", "allow"] {
            for m in self.matched.iter().filter(|m| m.behavior == stage) {
                let _ = writeln!(
                    o,
                    "  {stage:<5} {} ({}) at {}{}",
                    escape(&m.rule),
                    m.source,
                    place(m),
                    uncertain(m.uncertain)
                );
            }
        }
        if !self.shell_parts.is_empty() {
            o.push_str("shell command parts:\n");
            for p in &self.shell_parts {
                let met: Vec<String> = p
                    .meets
                    .iter()
                    .map(|x| format!("{} {}", x.behavior, escape(&x.rule)))
                    .collect();
                let _ = writeln!(
                    o,
                    "  {}{}: {}",
                    escape(&p.part),
                    if p.uncertain { " (uncertain)" } else { "" },
                    if met.is_empty() {
                        "meets no rule".to_owned()
                    } else {
                        format!("meets {}", met.join(", "))
                    }
                );
            }
        }
        let hooks = &self.classic_hooks.hooks;
        if hooks.is_empty() {
            o.push_str("classic hooks that would run: none\n");
        } else {
            let _ = writeln!(
                o,
                "classic hooks that would run{}: {}",
                if self.classic_hooks.run {
                    " (run with --run-hooks, each in a scratch folder)"
                } else {
                    " (not run)"
                },
                hooks.len()
            );
            for h in hooks {
                let _ = writeln!(
                    o,
                    "  {} [{}] `{}` ({} settings {})",
                    escape(&h.event),
                    h.matcher
                        .as_deref()
                        .map_or_else(|| "no matcher".to_owned(), |m| format!("matcher {m:?}")),
                    escape(&h.command),
                    h.source,
                    escape(&h.pointer)
                );
            }
        }
        let _ = writeln!(
            o,
            "mode: {} (working folder {})",
            self.mode,
            escape(&self.cwd)
        );
        let held = &self.over_a_persons_plugin;
        let _ = writeln!(
            o,
            "over a person's plugin answering allow: {} (seated: {}; without the security default: {})",
            if held.held { "HELD" } else { "not held" },
            escape(answer_str(&held.seated, "decision")),
            escape(answer_str(&held.unseated, "decision"))
        );
        for p in &self.problems {
            let _ = writeln!(o, "problem: {}", escape(&p.problem));
        }
        o
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    #[test]
    fn rules_that_only_look_alike_are_printed_apart() {
        let report = Explained {
            call: Call {
                tool: "Bash".to_owned(),
                input: json!({}),
            },
            verdict: json!({"decision": "allow"}),
            decided_by: Some(RuleMet {
                behavior: "allow",
                rule: "Bash(curl\u{200b}:*)".to_owned(),
                source: "user",
                file: "f".to_owned(),
                line: Some(1),
                pointer: "/p".to_owned(),
                uncertain: false,
            }),
            matched: Vec::new(),
            shell_parts: Vec::new(),
            shell_parts_not_itemized: 0,
            classic_hooks: ClassicHooksReport {
                run: false,
                hooks: Vec::new(),
            },
            mode: "default",
            cwd: "/w".to_owned(),
            over_a_persons_plugin: Held {
                held: true,
                seated: json!({"decision": "allow"}),
                unseated: json!({"decision": "allow"}),
            },
            sources: Vec::new(),
            managed: "/m".to_owned(),
            problems: Vec::new(),
            policy_unreadable: false,
        };
        let text = report.render();
        assert!(text.contains("Bash(curl\\u{200b}:*)"), "{text}");
        assert!(text.contains("f:1 /p"), "{text}");
    }

    #[test]
    fn an_unreadable_call_is_an_ask_with_exit_two() {
        let report = CheckReport::Unreadable(Unreadable {
            call: vec!["Bash(x".to_owned()],
            error: UnreadableError {
                reason: "opens a parenthesis it does not close".to_owned(),
                exit_code: 2,
            },
            verdict: AskVerdict {
                decision: "ask",
                reason: "the call cannot be read".to_owned(),
            },
        });
        assert_eq!(report.exit_code(), crate::exit::BAD_INPUT);
        assert_eq!(
            report.render(),
            "cannot read the call: opens a parenthesis it does not close\nverdict: ask (the call cannot be read)\n"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["verdict"]["decision"], "ask");
        assert_eq!(json["error"]["exit_code"], 2);
    }
}
