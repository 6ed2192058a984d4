//! Permission rule parsing (`permissions::RuleSet`, `permissions::decide`).

use permissions::rule::parse_rule;
use permissions::Decision;
use permissions::{decide, Behavior, Question, RuleSet, SessionFacts, SettingsSource};
use serde_json::{json, Value};

use crate::{finding, shown, Outcome, MAX_INPUT};

/// The working directory and home of the facts the bodies decide with.
pub(crate) const CWD: &str = "/home/dev/repo";
pub(crate) const HOME: &str = "/home/dev";

/// The fixed questions every rule is asked about: one per kind of specifier.
fn questions() -> Vec<(&'static str, Value)> {
    vec![
        (
            "Bash",
            json!({"command": "rm -rf build && git push origin main"}),
        ),
        ("Bash", json!({"command": "ls -la"})),
        ("Read", json!({"file_path": "/home/dev/repo/.env"})),
        (
            "Edit",
            json!({"file_path": "src/main.rs", "old_string": "a", "new_string": "b"}),
        ),
        ("Write", json!({"file_path": "/etc/passwd", "content": "x"})),
        (
            "WebFetch",
            json!({"url": "https://example.com/x", "prompt": "p"}),
        ),
        (
            "Agent",
            json!({"subagent_type": "general-purpose", "prompt": "p"}),
        ),
        ("Skill", json!({"skill": "deploy"})),
        ("mcp__corp__tool", json!({"q": "x"})),
        ("deploy_agent", json!({"target": "prod"})),
    ]
}

/// Target `permission_rule`: `data` (lossily decoded when it is not UTF-8) as
/// one permission rule, written in each of `deny`, `ask` and `allow` of the
/// policy source.
///
/// The oracle:
/// - `RuleSet::from_sources` and `decide` on a few fixed questions do not
///   panic;
/// - a managed deny rule is never silently inert: it is kept in the rule set
///   (by its text), and either `parse_rule` reads it (with or without
///   warnings) or it stands for its whole tool: when the text before its
///   `(` (or `)`) is a plain identifier, `decide` denies a call of the tool of
///   that name whatever its input.
///
/// # Errors
///
/// A description of the finding when the oracle does not hold.
pub fn permission_rule(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let rule = String::from_utf8_lossy(data);
    let rule: &str = &rule;
    let facts = SessionFacts::new(CWD, HOME);

    // The rule in every list: nothing panics.
    let everywhere = json!({"permissions": {"deny": [rule], "ask": [rule], "allow": [rule]}});
    let user = json!({"permissions": {"allow": [rule]}});
    let (rules, _warnings) = RuleSet::from_sources(&[
        (SettingsSource::User, &user),
        (SettingsSource::Policy, &everywhere),
    ]);
    for (tool, input) in questions() {
        let _ = decide(
            &rules,
            &Question {
                tool,
                input: &input,
            },
            &facts,
        );
    }

    // The rule as a managed deny rule alone: never silently inert. A string that names
    // no tool is no rule (SPEC §4 [decision, revised]): dropped, but never in silence.
    let policy = json!({"permissions": {"deny": [rule]}});
    let (rules, warnings) = RuleSet::from_sources(&[(SettingsSource::Policy, &policy)]);
    let kept = rules
        .rules()
        .iter()
        .any(|r| r.behavior == Behavior::Deny && r.text == rule);
    let names_no_tool = parse_rule(rule, Behavior::Deny).is_err_and(|e| e.tool.is_none());
    if names_no_tool {
        if kept
            || !warnings
                .iter()
                .any(|w| w.rule == rule && w.reason.contains("not a rule"))
        {
            return Err(finding!(
                "{} names no tool, but it was kept or dropped without a warning",
                shown(rule)
            ));
        }
        return Ok(());
    }
    if !kept {
        return Err(finding!(
            "the managed deny rule {} is not in the rule set (warnings: {:?})",
            shown(rule),
            warnings.iter().map(ToString::to_string).collect::<Vec<_>>()
        ));
    }
    if parse_rule(rule, Behavior::Deny).is_ok() {
        return Ok(());
    }
    let Some(tool) = leading_tool(rule) else {
        return Ok(());
    };
    let inputs = [
        json!({}),
        json!({"command": "true"}),
        json!({"file_path": "/tmp/x"}),
        json!({"url": "https://example.com"}),
    ];
    for input in &inputs {
        let verdict = decide(&rules, &Question { tool, input }, &facts);
        if verdict.decision != Decision::Deny {
            return Err(finding!(
                "the managed deny rule {} does not parse, yet a call of {tool} with {input} is {:?}, not denied (warnings: {:?})",
                shown(rule),
                verdict.decision,
                warnings.iter().map(ToString::to_string).collect::<Vec<_>>()
            ));
        }
    }
    Ok(())
}

/// The tool a rule's text starts with: the trimmed text before its first `(`
/// or `)` (the whole text when it has neither), when that is a plain
/// identifier (`[A-Za-z_][A-Za-z0-9_]*`).
fn leading_tool(rule: &str) -> Option<&str> {
    let text = rule.trim();
    let name = text.split(['(', ')']).next().unwrap_or(text).trim();
    let mut chars = name.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    ident.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::leading_tool;

    #[test]
    fn leading_tool_reads_plain_identifiers_only() {
        assert_eq!(leading_tool("Bash(rm"), Some("Bash"));
        assert_eq!(leading_tool("  Read ( x )"), Some("Read"));
        assert_eq!(leading_tool("Bash)"), Some("Bash"));
        assert_eq!(leading_tool("mcp__corp"), Some("mcp__corp"));
        assert_eq!(leading_tool("Bash-x(y)"), None);
        assert_eq!(leading_tool("(x)"), None);
        assert_eq!(leading_tool("9abc"), None);
    }
}
