//! Error messages of scenario files that are not valid (SCENARIOS.md "Running": the
//! error names the file, the JSON pointer and what was expected). Paths are relative,
//! so snapshots do not depend on where the repository is cloned.

use std::path::Path;

use scenario::load_str;

#[allow(clippy::panic)]
fn error_of(text: &str) -> String {
    match load_str(Path::new("cases/x.json"), text) {
        Ok(loaded) => panic!("expected an error, loaded {loaded:?}"),
        Err(e) => e.to_string(),
    }
}

const PLUGIN: &str =
    r#"{"id": "yes-man@community", "tier": "user", "hooks": [{"on": "tool.check", "do": "pass"}]}"#;

fn with_step(step: &str) -> String {
    format!(r#"{{"name": "n", "plugins": [{PLUGIN}], "steps": [{step}]}}"#)
}

#[test]
fn unknown_key_in_a_step() {
    let text = with_step(r#"{"raise": "tool.check", "event": {}, "expct": {"decision": "deny"}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn unknown_key_at_top_level() {
    insta::assert_snapshot!(error_of(r#"{"name": "n", "seatd": false}"#));
}

#[test]
fn unknown_key_in_session() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "session": {"mode": "plan", "cdw": "/x"}}"#
    ));
}

#[test]
fn bad_behaviour() {
    let text = r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "user",
        "hooks": [{"on": "tool.check", "do": {"answr": {"decision": "allow"}}}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn bad_behaviour_string() {
    let text = r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "user",
        "hooks": [{"on": "tool.check", "do": "pas"}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn behaviour_missing_its_argument() {
    let text = r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "user",
        "hooks": [{"on": "tool.check", "do": "answer"}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn behaviour_with_two_keys() {
    let text = r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "user",
        "hooks": [{"on": "tool.check", "do": {"fail": "x", "panic": "y"}}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn patch_takes_an_object() {
    let text = r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "user",
        "hooks": [{"on": "tool.check", "catch": {"patch": 3}, "do": "pass"}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn bad_tier() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "usr"}]}"#
    ));
}

#[test]
fn core_is_not_a_plugin_tier() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "core"}]}"#
    ));
}

#[test]
fn bad_skip_to_tier() {
    let text = r#"{"name": "n", "plugins": [{"id": "a@b", "tier": "prepend",
        "hooks": [{"on": "tool.check", "do": {"skip_to": "apend"}}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn bad_mode() {
    insta::assert_snapshot!(error_of(r#"{"name": "n", "session": {"mode": "yolo"}}"#));
}

#[test]
fn bad_loop_and_host() {
    insta::assert_snapshot!(
        "bad_loop",
        error_of(r#"{"name": "n", "session": {"loop": "side"}}"#)
    );
    insta::assert_snapshot!(
        "bad_host",
        error_of(r#"{"name": "n", "session": {"host": "cli"}}"#)
    );
}

#[test]
fn unknown_expectation_operator() {
    let text = with_step(r#"{"raise": "tool.check", "expect": {"$lgo": {"screen": []}}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn unknown_nested_operator() {
    let text = with_step(
        r#"{"raise": "tool.check", "expect": {"verdict": {"rule": {"$contans": "rm"}}}}"#,
    );
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn mistyped_absent() {
    let text = with_step(r#"{"raise": "env.set", "expect": {"deny": "$absnet"}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn operator_with_other_keys() {
    let text = with_step(r#"{"raise": "env.set", "expect": {"deny": {"$contains": "x", "y": 1}}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn held_nested() {
    let text = with_step(r#"{"raise": "tool.check", "expect": {"decision": "$held"}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn unknown_log_channel() {
    let text = with_step(r#"{"raise": "tool.check", "expect": {"$log": {"scren": []}}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn bad_log_line() {
    let text =
        with_step(r#"{"raise": "tool.check", "expect": {"$log": {"debug": [{"$has": "x"}]}}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn step_with_neither_raise_nor_change() {
    insta::assert_snapshot!(error_of(&with_step(r#"{"event": {}}"#)));
}

#[test]
fn step_with_both_raise_and_change() {
    insta::assert_snapshot!(error_of(&with_step(
        r#"{"raise": "tool.check", "change_policy": {}}"#
    )));
}

#[test]
fn event_must_be_an_object() {
    insta::assert_snapshot!(error_of(&with_step(
        r#"{"raise": "tool.check", "event": [1]}"#
    )));
}

#[test]
fn duplicate_plugin_id() {
    let text = format!(r#"{{"name": "n", "plugins": [{PLUGIN}, {PLUGIN}]}}"#);
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn sec_default_is_not_listed() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "plugins": [{"id": "cc-plugin-sec-default@builtin", "tier": "prepend"}]}"#
    ));
}

#[test]
fn missing_dir() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "policy": {"$dir": "no/such/folder"}}"#
    ));
}

#[test]
fn dir_with_other_keys() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "policy": {"$dir": "x", "managed-settings.json": {}}}"#
    ));
}

#[test]
fn policy_path_escaping_the_folder() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "policy": {"../etc/passwd": "x"}}"#
    ));
}

#[test]
fn policy_dollar_key() {
    insta::assert_snapshot!(error_of(r#"{"name": "n", "policy": {"$dri": "x"}}"#));
}

#[test]
fn raw_takes_a_string() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "policy": {"managed-settings.d/20-x.json": {"$raw": 5}}}"#
    ));
}

#[test]
fn unreadable_takes_true() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "settings": {"user": {"$unreadable": false}}}"#
    ));
}

#[test]
fn bad_session_file_entry() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "session": {"files": {"a.txt": {"link": "/etc/passwd"}}}}"#
    ));
}

#[test]
fn missing_name() {
    insta::assert_snapshot!(error_of(r#"{"steps": []}"#));
}

#[test]
fn syntax_error() {
    insta::assert_snapshot!(error_of("{\n  \"name\": \"n\",\n  \"steps\": [\n}"));
}

#[test]
fn trailing_characters() {
    insta::assert_snapshot!(error_of("{\"name\": \"n\"} x"));
}

#[test]
fn not_an_object() {
    insta::assert_snapshot!(error_of("[]"));
}

#[test]
fn list_form_with_an_extra_key() {
    insta::assert_snapshot!(error_of(r#"{"scenarios": [], "name": "n"}"#));
}

#[test]
fn error_inside_the_list_form() {
    let text =
        r#"{"scenarios": [{"name": "a"}, {"name": "b", "steps": [{"raise": "x", "expct": {}}]}]}"#;
    insta::assert_snapshot!(error_of(text));
}

#[test]
fn duplicate_id_inside_the_list_form() {
    let text = format!(
        r#"{{"scenarios": [{{"name": "a"}}, {{"name": "b", "plugins": [{PLUGIN}, {PLUGIN}]}}]}}"#
    );
    insta::assert_snapshot!(error_of(&text));
}

#[test]
fn missing_paths_are_errors() {
    let err = scenario::load_paths(&[Path::new("no/such/path").to_path_buf()]).unwrap_err();
    insta::assert_snapshot!(err.to_string());
}

#[test]
fn core_on_an_event_the_engine_always_computes() {
    insta::assert_snapshot!(error_of(
        r#"{"name": "n", "steps": [{"raise": "tool.check", "event": {"tool": "Bash", "input": {}, "tool_use_id": "t"}, "core": {"decision": "allow"}}]}"#
    ));
}
