//! The verdict of one call as the replay judged it (SPEC §1.6, §4): the decision, the
//! rule or setting that decided it with where it is written, and the notes on its
//! mode.

use crate::text::escape;
use permissions::{Decision, Mode, Verdict};
use session::{DecisionRecord, ToolUse};

/// The verdict of one call as the replay judged it.
#[derive(Debug, Clone)]
pub(crate) struct Judged {
    /// The verdict the engine acts on (the strictest of the call's parts).
    pub verdict: Verdict,
    /// `run`, `prompt`, `host`, `refused` (SPEC §1.6).
    pub outcome: &'static str,
    /// The file and line of the rule that decided, when a rule did and it is known.
    pub rule_file: Option<String>,
    /// Its 1-based line.
    pub rule_line: Option<usize>,
    /// Whether the security default held the verdict over a person's plugin.
    pub held: bool,
    /// The person's plugins that rewrote it.
    pub rewritten_by: Vec<String>,
    /// Which of the call's engine calls gave it (0 for most calls).
    pub part: usize,
    /// The mode the session judged it in.
    pub mode: Option<Mode>,
    /// Why the transcript's mode was not used, when it names no mode.
    pub mode_note: Option<String>,
    /// The transcript's mode, when the session refused it (managed
    /// `disableBypassPermissionsMode`, SPEC §4 "Mode at start") and started in `mode`.
    pub mode_refused: Option<Mode>,
}

impl Judged {
    /// A call that could not be judged: denied, saying why (fail closed).
    pub(crate) fn failed(why: String) -> Judged {
        Judged {
            verdict: Verdict::plain(Decision::Deny).with_reason(why),
            outcome: "refused",
            rule_file: None,
            rule_line: None,
            held: false,
            rewritten_by: Vec::new(),
            part: 0,
            mode: None,
            mode_note: None,
            mode_refused: None,
        }
    }

    /// What the session did with the call `used`, with what its decision sink heard.
    pub(crate) fn from_use(
        used: &ToolUse,
        record: Option<&DecisionRecord>,
        origins: &super::Origins,
        part: usize,
        mode: Mode,
    ) -> Judged {
        let v = &used.verdict;
        let (mut rule_file, mut rule_line) =
            record.map_or((None, None), |r| (r.file.clone(), r.line));
        if v.source.as_deref() != Some("policy") {
            if let Some(rule) = &v.rule {
                let found = [v.decision.as_str(), "deny", "ask", "allow"]
                    .iter()
                    .find_map(|b| origins.get(&((*b).to_owned(), rule.clone())));
                if let Some((f, l)) = found {
                    rule_file = Some(f.clone());
                    rule_line = *l;
                }
            }
        }
        Judged {
            verdict: v.clone(),
            outcome: used.outcome.as_str(),
            rule_file,
            rule_line,
            held: record.is_some_and(|r| r.held),
            rewritten_by: record.map(|r| r.rewritten_by.clone()).unwrap_or_default(),
            part,
            mode: Some(mode),
            mode_note: None,
            mode_refused: None,
        }
    }

    /// What decided it, as a report names it.
    pub(super) fn decided_by(&self) -> String {
        let v = &self.verdict;
        if let Some(rule) = &v.rule {
            let at = match (&self.rule_file, self.rule_line) {
                (Some(f), Some(l)) => format!(" ({f}:{l})"),
                (Some(f), None) => format!(" ({f})"),
                _ => String::new(),
            };
            let uncertain = if v.uncertain { ", uncertain" } else { "" };
            let source = v
                .source
                .as_deref()
                .map(|s| format!(" [{s}{uncertain}]"))
                .unwrap_or_default();
            return format!("{}{source}{at}", escape(rule));
        }
        if let Some(s) = &v.setting {
            return format!("setting {}", escape(s));
        }
        if let Some(h) = &v.hook {
            return format!("{h} hook");
        }
        if v.ceiling.is_some() {
            return "the organization's ask cap".to_owned();
        }
        let refused = self.mode_refused.map_or_else(String::new, |m| {
            format!(
                " (the transcript's {} is refused by the policy)",
                m.as_str()
            )
        });
        match (v.decision, self.mode) {
            (Decision::Allow, Some(m)) => {
                format!("no rule: the {} mode allows it{refused}", m.as_str())
            }
            (Decision::Ask, Some(m)) => format!("no rule: the {} mode asks{refused}", m.as_str()),
            _ => v.reason.as_deref().map_or_else(
                || "no rule".to_owned(),
                |r| format!("no rule: {}", escape(r)),
            ),
        }
    }
}
