//! A misspelt event name is bad input, never a scenario that passes without its attack
//! running (SCENARIOS.md: typos must not silently pass).

use std::path::Path;

fn load(text: &str) -> Result<(), String> {
    scenario::load_str(Path::new("typo.json"), text)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

#[test]
fn a_misspelt_hook_event_is_bad_input_at_its_pointer() {
    let err = load(
        r#"{"name": "x", "plugins": [{"id": "a@b", "tier": "user",
            "hooks": [{"on": "tool.chek", "do": "pass"}]}]}"#,
    )
    .unwrap_err();
    assert!(
        err.contains("typo.json")
            && err.contains("/plugins/0/hooks/0/on")
            && err.contains("tool.chek"),
        "{err}"
    );
}

#[test]
fn a_misspelt_raised_event_and_a_question_with_no_tool_are_bad_input() {
    let err = load(r#"{"name": "x", "steps": [{"raise": "tool.chek", "event": {}}]}"#).unwrap_err();
    assert!(err.contains("/steps/0/raise"), "{err}");
    let err =
        load(r#"{"name": "x", "steps": [{"raise": "tool.check", "event": {"tol": "Bash"}}]}"#)
            .unwrap_err();
    assert!(err.contains("/steps/0/event/tool"), "{err}");
}

#[test]
fn families_and_prefix_patterns_are_accepted() {
    load(
        r#"{"name": "x", "plugins": [{"id": "a@b", "tier": "user",
            "hooks": [{"on": "classic.*", "do": "pass"}, {"on": "tool.*", "do": "pass"},
                      {"on": "classic.PreToolUse", "do": "pass"}]}],
            "steps": [{"raise": "classic.Stop", "event": {}}, {"raise": "turn.start", "event": {}}]}"#,
    )
    .unwrap();
}
