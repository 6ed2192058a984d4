//! The verdict (SPEC §4 "Classic hooks", "Rewrites"; reference §4.3, §4.5): the
//! documented JSON a `PreToolUse` hook reads ([`pre_tool_use_input`]), and the combined
//! answer put over the rules' verdict ([`apply_to_verdict`]: rules first, a hook's
//! deny or ask named `hook: "PreToolUse"`); [`stricter_with_rules`] for verdicts met on
//! another input.

use super::answer::HookAnswer;
use super::PRE_TOOL_USE;
use crate::SessionFacts;
use crate::{Decision, Verdict};
use serde_json::{json, Value};

/// The documented JSON a `PreToolUse` hook reads on stdin (reference §4.3):
/// `session_id`, `transcript_path`, `cwd`, `permission_mode`, `hook_event_name`,
/// `tool_name`, `tool_input`, `tool_use_id`.
///
/// SPEC §1.5 (`classic.<Event>`'s input), §4 "Classic hooks".
#[must_use]
pub fn pre_tool_use_input(
    session_id: &str,
    transcript_path: &str,
    facts: &SessionFacts,
    tool: &str,
    input: &Value,
    tool_use_id: &str,
) -> Value {
    json!({
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": facts.cwd.to_string_lossy(),
        "permission_mode": facts.mode.as_str(),
        "hook_event_name": PRE_TOOL_USE,
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": tool_use_id,
    })
}

/// Fills what a hand-raised `classic.PreToolUse` left out: `tool`/`input` become
/// `tool_name`/`tool_input`, and the common fields get the session's values.
pub(super) fn normalize_input(input: &Value, facts: &SessionFacts) -> Value {
    let mut m = input.as_object().cloned().unwrap_or_default();
    if !m.contains_key("tool_name") {
        if let Some(t) = m.get("tool").cloned() {
            m.insert("tool_name".to_owned(), t);
        }
    }
    if !m.contains_key("tool_input") {
        let i = m.get("input").cloned().unwrap_or_else(|| json!({}));
        m.insert("tool_input".to_owned(), i);
    }
    let defaults = [
        ("session_id", json!("")),
        ("transcript_path", json!("")),
        ("cwd", json!(facts.cwd.to_string_lossy())),
        ("permission_mode", json!(facts.mode.as_str())),
        ("hook_event_name", json!(PRE_TOOL_USE)),
        ("tool_use_id", json!("")),
    ];
    for (k, v) in defaults {
        m.entry(k.to_owned()).or_insert(v);
    }
    Value::Object(m)
}

/// Puts the combined classic `PreToolUse` answer over `base`, the verdict of the rules
/// and the mode (SPEC §4 "Classic hooks", reference §4.5):
///
/// - rules first: a `deny` in `base` stands; an `ask` in `base` that names a rule or a
///   setting stands unless the hook denies;
/// - a hook `deny` → a deny named `hook: "PreToolUse"`, with the hook's reason;
/// - a hook `ask` over an allow or the mode's own ask → an ask named `hook:
///   "PreToolUse"` (with `decider: "host"` where a host answers asks on `tool`,
///   [`SessionFacts::host_decides_for`]);
/// - a hook `allow` over an allow or the mode's own ask (a plain ask, `decider` aside)
///   → an allow named `hook: "PreToolUse"`;
/// - no decision → `base`.
///
/// SPEC §4 "Classic hooks".
#[must_use]
pub fn apply_to_verdict(
    base: Verdict,
    hook: &HookAnswer,
    facts: &SessionFacts,
    tool: &str,
) -> Verdict {
    let Some(d) = hook.decision else {
        return base;
    };
    let rule_stands = base.decision == Decision::Deny
        || (base.decision == Decision::Ask
            && (base.rule.is_some()
                || base.setting.is_some()
                || base.hook.is_some()
                || base.ceiling.is_some()));
    if rule_stands && d <= base.decision {
        return base;
    }
    let mut v = Verdict::plain(d);
    v.hook = Some(PRE_TOOL_USE.to_owned());
    v.reason = Some(hook.reason.clone().unwrap_or_else(|| match d {
        Decision::Deny => "a PreToolUse hook blocked this call".to_owned(),
        Decision::Ask => "a PreToolUse hook asks before this call".to_owned(),
        Decision::Allow => "a PreToolUse hook allowed this call".to_owned(),
    }));
    if d == Decision::Ask && facts.host_decides_for(tool) {
        v.decider = Some("host".to_owned());
    }
    v
}

/// Whether `v` is a verdict the rules stand behind when met on another input (SPEC §4
/// "Rewrites"): a deny, or an ask that names a rule or a setting.
///
/// SPEC §4 "Rewrites".
#[must_use]
pub fn is_rule_strict(v: &Verdict) -> bool {
    v.decision == Decision::Deny
        || (v.decision == Decision::Ask && (v.rule.is_some() || v.setting.is_some()))
}

/// The stricter of `verdict` and `other`, where `other` counts only when
/// [`is_rule_strict`] (a deny or a rule's or setting's ask met on another input, SPEC
/// §4 "Rewrites"): `other` replaces `verdict` when it is stricter, or when both ask and
/// `verdict` names nothing that stands behind it.
///
/// SPEC §4 "Rewrites".
#[must_use]
pub fn stricter_with_rules(verdict: Verdict, other: Verdict) -> Verdict {
    if !is_rule_strict(&other) {
        return verdict;
    }
    if other.decision > verdict.decision
        || (other.decision == verdict.decision
            && other.decision == Decision::Ask
            && !verdict.names_a_cause())
    {
        other
    } else {
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classic::tests::{cmd, facts, one};
    use crate::{Host, Mode, SettingsSource};

    #[test]
    fn stdin_is_the_documented_json() {
        let c = one(
            SettingsSource::User,
            cmd(
                r#"read -r l; case "$l" in *'"hook_event_name":"PreToolUse"'*'"tool_name":"Bash"'*) echo '{"decision":"block","reason":"saw it"}';; *) echo "$l" >&2; exit 1;; esac"#,
            ),
        );
        assert_eq!(c.answer.reason.as_deref(), Some("saw it"), "{:?}", c.runs);
        let f = facts();
        let v = pre_tool_use_input("s", "/t.jsonl", &f, "Bash", &json!({"command": "x"}), "u");
        for k in [
            "session_id",
            "transcript_path",
            "cwd",
            "hook_event_name",
            "tool_name",
            "tool_input",
            "tool_use_id",
            "permission_mode",
        ] {
            assert!(v.get(k).is_some(), "{k}");
        }
    }

    #[test]
    fn verdict_combination_rules_first() {
        let f = facts();
        let hook = |d: Decision| HookAnswer {
            decision: Some(d),
            reason: Some("hook says".to_owned()),
            ..HookAnswer::default()
        };
        let mut rule_deny = Verdict::plain(Decision::Deny);
        rule_deny.rule = Some("Bash(rm:*)".to_owned());
        let mut rule_ask = Verdict::plain(Decision::Ask);
        rule_ask.rule = Some("Bash(git push:*)".to_owned());
        let plain_ask = Verdict::plain(Decision::Ask);
        let plain_allow = Verdict::plain(Decision::Allow);

        // Allow never lifts a deny or a rule's ask.
        assert_eq!(
            apply_to_verdict(rule_deny.clone(), &hook(Decision::Allow), &f, "Bash"),
            rule_deny
        );
        assert_eq!(
            apply_to_verdict(rule_ask.clone(), &hook(Decision::Allow), &f, "Bash"),
            rule_ask
        );
        assert_eq!(
            apply_to_verdict(rule_ask.clone(), &hook(Decision::Ask), &f, "Bash"),
            rule_ask
        );
        // A hook deny over a rule's ask stands.
        let v = apply_to_verdict(rule_ask, &hook(Decision::Deny), &f, "Bash");
        assert_eq!(
            (v.decision, v.hook.as_deref()),
            (Decision::Deny, Some("PreToolUse"))
        );
        // Over the mode's own ask, a hook allow allows (named) and an ask names the hook.
        let v = apply_to_verdict(plain_ask.clone(), &hook(Decision::Allow), &f, "Bash");
        assert_eq!(
            (v.decision, v.hook.as_deref()),
            (Decision::Allow, Some("PreToolUse"))
        );
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &f, "Bash");
        assert_eq!(
            (v.decision, v.hook.as_deref()),
            (Decision::Ask, Some("PreToolUse"))
        );
        assert_eq!(v.decider, None);
        let mut hosted = f.clone();
        hosted.host = Host::Sdk;
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &hosted, "Bash");
        assert_eq!(v.decider.as_deref(), Some("host"));
        // In dontAsk only a Chrome tool's ask goes on to the host (SPEC §4 "Hosts").
        hosted.mode = Mode::DontAsk;
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &hosted, "Bash");
        assert_eq!(v.decider, None);
        let chrome = "mcp__claude-in-chrome__navigate";
        let v = apply_to_verdict(plain_allow.clone(), &hook(Decision::Ask), &hosted, chrome);
        assert_eq!(v.decider.as_deref(), Some("host"));
        // No decision: the rules' verdict.
        assert_eq!(
            apply_to_verdict(plain_ask.clone(), &HookAnswer::default(), &f, "Bash"),
            plain_ask
        );
        // A setting's ask stands over a hook allow.
        let mut setting_ask = Verdict::plain(Decision::Ask);
        setting_ask.setting = Some("managed-settings".to_owned());
        assert_eq!(
            apply_to_verdict(setting_ask.clone(), &hook(Decision::Allow), &f, "Bash"),
            setting_ask
        );
    }

    #[test]
    fn stricter_with_rules_keeps_rule_verdicts_only() {
        let mut rule_deny = Verdict::plain(Decision::Deny);
        rule_deny.rule = Some("Bash(rm:*)".to_owned());
        let allow = Verdict::plain(Decision::Allow);
        assert_eq!(
            stricter_with_rules(allow.clone(), rule_deny.clone()),
            rule_deny
        );
        assert_eq!(
            stricter_with_rules(allow.clone(), Verdict::plain(Decision::Ask)),
            allow
        );
        let mut rule_ask = Verdict::plain(Decision::Ask);
        rule_ask.rule = Some("Bash(git push:*)".to_owned());
        assert_eq!(
            stricter_with_rules(Verdict::plain(Decision::Ask), rule_ask.clone()),
            rule_ask
        );
        assert_eq!(stricter_with_rules(rule_deny.clone(), rule_ask), rule_deny);
    }
}
