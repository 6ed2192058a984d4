//! The answer (SPEC §1.7b `classic.<Event>`, §4 "Classic hooks"; reference §4.4): a
//! hook's JSON output read ([`read_answer`]), what each run contributes (a failed
//! managed hook's deny naming it, a person's failure nothing), and the answers of one
//! call combined ([`Combined`]): deny > ask > allow, the reasons of the deciding hooks,
//! the first `updatedInput`.

use super::sources::{truncate, Handler};
use super::PRE_TOOL_USE;
use crate::Decision;
use serde_json::{json, Map, Value};

/// Strings taken from a hook's output are capped at this many characters (reference §4.4).
const STRING_CAP: usize = 10_000;

/// How one hook ran and what it said (SPEC §4 "Classic hooks").
#[derive(Debug, Clone)]
pub struct HookRun {
    /// The handler.
    pub handler: Handler,
    /// Its result.
    pub result: RunResult,
}

/// What one hook's run settled on (SPEC §4 "Classic hooks").
#[derive(Debug, Clone, PartialEq)]
pub enum RunResult {
    /// It ran and answered (possibly nothing).
    Answered(HookAnswer),
    /// It failed, with why (a managed hook's failure denies; a person's changes nothing).
    Failed(String),
    /// An `async` hook: started, not awaited.
    Started,
    /// Not started, with why ([`HookRunner::NotRun`]): it decides nothing.
    ///
    /// [`HookRunner::NotRun`]: super::HookRunner::NotRun
    NotRun(String),
}

/// One hook's answer, or the combined answer of several (SPEC §1.7b `classic.<Event>`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookAnswer {
    /// `allow`, `ask` or `deny`; `None`: no decision.
    pub decision: Option<Decision>,
    /// Why (`permissionDecisionReason`, `reason`, exit 2's stderr).
    pub reason: Option<String>,
    /// A new input for the tool (replaces the whole input).
    pub updated_input: Option<Value>,
    /// Context for the model.
    pub additional_context: Option<String>,
}

pub(super) fn capped(s: &str) -> String {
    truncate(s.trim(), STRING_CAP)
}

/// Reads a hook's (or a combined) JSON output: `hookSpecificOutput.permissionDecision`
/// (`allow|ask|deny|defer`, `defer` read as `ask`), `permissionDecisionReason`,
/// `updatedInput`, `additionalContext`; the top-level `decision` (`approve|block`, and
/// `allow|ask|deny` as the combined answer spells it) and `reason`; `continue: false`
/// (a deny, reason `stopReason`). The strictest decision given stands. `None` when the
/// value is not an object or names a decision this engine does not know.
///
/// SPEC §1.7b, §4 "Classic hooks"; reference §4.4.
#[must_use]
pub fn read_answer(v: &Value) -> Option<HookAnswer> {
    let obj = v.as_object()?;
    let hso = obj.get("hookSpecificOutput").and_then(Value::as_object);
    let word = |w: Option<&Value>| -> Result<Option<Decision>, ()> {
        match w {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => match s.as_str() {
                "allow" | "approve" => Ok(Some(Decision::Allow)),
                "ask" | "defer" => Ok(Some(Decision::Ask)),
                "deny" | "block" => Ok(Some(Decision::Deny)),
                _ => Err(()),
            },
            Some(_) => Err(()),
        }
    };
    let specific = word(hso.and_then(|h| h.get("permissionDecision"))).ok()?;
    let top = word(obj.get("decision")).ok()?;
    let stop = (obj.get("continue") == Some(&Value::Bool(false))).then_some(Decision::Deny);
    let decision = [specific, top, stop].into_iter().flatten().max();
    let text = |v: Option<&Value>| v.and_then(Value::as_str).map(capped);
    let reason = match decision {
        Some(d) if stop == Some(d) && specific != Some(d) && top != Some(d) => {
            text(obj.get("stopReason"))
        }
        Some(d) if specific == Some(d) => text(hso.and_then(|h| h.get("permissionDecisionReason")))
            .or_else(|| text(obj.get("reason"))),
        _ => text(obj.get("reason"))
            .or_else(|| text(hso.and_then(|h| h.get("permissionDecisionReason")))),
    };
    let updated_input = hso
        .and_then(|h| h.get("updatedInput"))
        .or_else(|| obj.get("updatedInput"))
        .filter(|u| u.is_object())
        .cloned();
    let additional_context = text(hso.and_then(|h| h.get("additionalContext")))
        .or_else(|| text(obj.get("additionalContext")));
    Some(HookAnswer {
        decision,
        reason,
        updated_input,
        additional_context,
    })
}

/// The combined answer of the `PreToolUse` hooks of one call (SPEC §1.7b, §4).
#[derive(Debug, Clone, Default)]
pub struct Combined {
    /// The combined answer (deny > ask > allow).
    pub answer: HookAnswer,
    /// Every hook run, in source order.
    pub runs: Vec<HookRun>,
}

impl Combined {
    /// Combines runs in source order: a managed hook's failure is a deny naming it; a
    /// person's failure is nothing; deny > ask > allow; the reasons of the hooks that
    /// gave the winning decision, joined; the first `updatedInput` and the
    /// `additionalContext`s joined.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn of(runs: Vec<HookRun>) -> Combined {
        let answers: Vec<HookAnswer> = runs.iter().map(HookRun::effective).collect();
        let decision = answers.iter().filter_map(|a| a.decision).max();
        let reasons: Vec<String> = answers
            .iter()
            .filter(|a| a.decision.is_some() && a.decision == decision)
            .filter_map(|a| a.reason.clone())
            .collect();
        let contexts: Vec<String> = answers
            .iter()
            .filter_map(|a| a.additional_context.clone())
            .collect();
        let answer = HookAnswer {
            decision,
            reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
            updated_input: answers.iter().find_map(|a| a.updated_input.clone()),
            additional_context: (!contexts.is_empty()).then(|| contexts.join("\n")),
        };
        Combined { answer, runs }
    }

    /// The answer of `classic.PreToolUse` (SPEC §1.7b): `decision`, `reason`,
    /// `updatedInput`, `additionalContext` (each when present), the same in
    /// `hookSpecificOutput`, and `hooks`: one `{command, source, pointer, result}` per
    /// hook run (`result`: the decision, `none`, `started`, `failed: <why>`, or `not run:
    /// <why>`).
    ///
    /// SPEC §1.7b.
    #[must_use]
    pub fn to_value(&self) -> Value {
        let a = &self.answer;
        let mut top = Map::new();
        let mut hso = Map::new();
        hso.insert("hookEventName".to_owned(), json!(PRE_TOOL_USE));
        if let Some(d) = a.decision {
            top.insert("decision".to_owned(), json!(d.as_str()));
            hso.insert("permissionDecision".to_owned(), json!(d.as_str()));
        }
        if let Some(r) = &a.reason {
            top.insert("reason".to_owned(), json!(r));
            hso.insert("permissionDecisionReason".to_owned(), json!(r));
        }
        if let Some(u) = &a.updated_input {
            top.insert("updatedInput".to_owned(), u.clone());
            hso.insert("updatedInput".to_owned(), u.clone());
        }
        if let Some(c) = &a.additional_context {
            top.insert("additionalContext".to_owned(), json!(c));
            hso.insert("additionalContext".to_owned(), json!(c));
        }
        top.insert("hookSpecificOutput".to_owned(), Value::Object(hso));
        let hooks: Vec<Value> = self
            .runs
            .iter()
            .map(|r| {
                let result = match &r.result {
                    RunResult::Answered(ans) => {
                        ans.decision.map_or("none", Decision::as_str).to_owned()
                    }
                    RunResult::Started => "started".to_owned(),
                    RunResult::Failed(why) => format!("failed: {why}"),
                    RunResult::NotRun(why) => format!("not run: {why}"),
                };
                json!({
                    "command": r.handler.name(),
                    "source": r.handler.source.as_str(),
                    "pointer": r.handler.pointer,
                    "result": result,
                })
            })
            .collect();
        top.insert("hooks".to_owned(), Value::Array(hooks));
        Value::Object(top)
    }
}

impl HookRun {
    /// What this run contributes: its answer; for a failed managed hook a deny naming
    /// it; for a failed person's hook (or an `async` one) nothing.
    ///
    /// SPEC §4 "Classic hooks".
    #[must_use]
    pub fn effective(&self) -> HookAnswer {
        match &self.result {
            RunResult::Answered(a) => a.clone(),
            RunResult::Started | RunResult::NotRun(_) => HookAnswer::default(),
            RunResult::Failed(why) if self.handler.managed() => HookAnswer {
                decision: Some(Decision::Deny),
                reason: Some(managed_failure_reason(&self.handler, why)),
                ..HookAnswer::default()
            },
            RunResult::Failed(_) => HookAnswer::default(),
        }
    }
}

/// The reason of the deny a failed managed hook makes (SPEC §4 **\[decision\]**).
///
/// SPEC §4 "Classic hooks".
#[must_use]
pub fn managed_failure_reason(h: &Handler, why: &str) -> String {
    format!(
        "the {} hook `{}` of your organization's managed settings ({}) failed: {why}; denied",
        h.event,
        h.name(),
        h.pointer
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::tests::{cmd, hooks_of, one, run};
    use crate::SettingsSource;
    use std::time::{Duration, Instant};

    #[test]
    fn json_output_decides() {
        let c = one(
            SettingsSource::User,
            cmd(
                r#"echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"check it"}}'"#,
            ),
        );
        assert_eq!(c.answer.decision, Some(Decision::Ask));
        assert_eq!(c.answer.reason.as_deref(), Some("check it"));
        let c = one(
            SettingsSource::User,
            cmd(r#"echo '{"decision":"block","reason":"old style"}'"#),
        );
        assert_eq!(c.answer.decision, Some(Decision::Deny));
        assert_eq!(c.answer.reason.as_deref(), Some("old style"));
        let c = one(SettingsSource::User, cmd("echo just text"));
        assert_eq!(c.answer.decision, None);
        assert!(matches!(c.runs[0].result, RunResult::Answered(_)));
    }

    #[test]
    fn managed_failures_deny_naming_the_hook_and_persons_change_nothing() {
        let failing = [
            cmd("exit 3"),
            cmd("kill -9 $$"),
            cmd("echo '{ not json'"),
            cmd("echo '{\"hookSpecificOutput\":{\"permissionDecision\":\"maybe\"}}'"),
            cmd("/no/such/command-anywhere"),
            json!({"type": "command"}),
            json!({"type": "http", "url": "https://example.invalid"}),
        ];
        for h in failing {
            let c = one(SettingsSource::Policy, h.clone());
            assert_eq!(c.answer.decision, Some(Decision::Deny), "{h}: {:?}", c.runs);
            let reason = c.answer.reason.clone().unwrap_or_default();
            assert!(
                reason.contains("your organization's managed settings"),
                "{reason}"
            );
            assert!(reason.contains("/hooks/PreToolUse/0/hooks/0"), "{reason}");
            let c = one(SettingsSource::User, h.clone());
            assert_eq!(c.answer.decision, None, "{h}: {:?}", c.runs);
        }
    }

    #[test]
    fn hooks_run_in_parallel_and_combine_deny_over_ask_over_allow() {
        let started = Instant::now();
        let s = hooks_of(
            SettingsSource::User,
            json!([
                cmd(r#"sleep 0.4; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'"#),
                cmd(
                    r#"sleep 0.4; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"a"}}'"#
                ),
                cmd(
                    r#"sleep 0.4; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"b","updatedInput":{"command":"make -n build"}}}'"#
                ),
            ]),
        );
        let c = run(
            &[(SettingsSource::User, &s)],
            "Bash",
            json!({"command": "make"}),
        );
        assert!(
            started.elapsed() < Duration::from_millis(1100),
            "{:?}",
            started.elapsed()
        );
        assert_eq!(c.answer.decision, Some(Decision::Ask));
        assert_eq!(c.answer.reason.as_deref(), Some("a; b"));
        assert_eq!(
            c.answer.updated_input,
            Some(json!({"command": "make -n build"}))
        );
        let v = c.to_value();
        assert_eq!(v["decision"], "ask");
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask");
        assert_eq!(v["hooks"].as_array().map(Vec::len), Some(3));
        assert_eq!(read_answer(&v), Some(c.answer.clone()));
    }

    #[test]
    fn read_answer_rejects_unknown_decisions() {
        assert_eq!(read_answer(&json!("x")), None);
        assert_eq!(read_answer(&json!({"decision": "sure"})), None);
        let a = read_answer(&json!({"continue": false, "stopReason": "stop"})).unwrap();
        assert_eq!(
            (a.decision, a.reason.as_deref()),
            (Some(Decision::Deny), Some("stop"))
        );
        let a =
            read_answer(&json!({"hookSpecificOutput": {"permissionDecision": "defer"}})).unwrap();
        assert_eq!(a.decision, Some(Decision::Ask));
    }
}
