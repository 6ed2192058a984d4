//! The catalogue of SPEC §1.5: pins (§1.2) and answer shapes (§1.7, §1.7b), as the
//! engine checks a JSON hook's answer against them.

use events::{EnvSet, ToolCheck, UiLog};
use fnhooks::{EventType, Pins};
use serde_json::json;

#[test]
fn every_answer_shape_of_spec_1_7() {
    let c = events::catalogue();
    let cases = [
        (
            "tool.check",
            json!({"decision": "deny", "rule": "Bash(rm:*)"}),
            true,
        ),
        ("tool.check", json!({"decision": "maybe"}), false),
        ("tool.check", json!({"decision": "allow", "rule": 5}), false),
        ("tool.register", json!({"registered": "mcp__x__y"}), true),
        ("tool.register", json!({"deny": "no"}), true),
        ("tool.register", json!({"registered": 1}), false),
        ("env.set", json!({}), true),
        ("env.set", json!({"deny": null}), false),
        ("plugin.register", json!({"admitted": true}), true),
        ("plugin.register", json!({"refuse": ["x"]}), false),
        ("prompt.section", json!({"text": "t", "extra": 1}), true),
        ("prompt.section", json!({"text": null}), false),
        ("session.append", json!({"text": 3}), false),
        ("prompt.context", json!({"items": []}), true),
        ("prompt.context", json!({"items": {}}), false),
        ("prompt.compose", json!({"sections": "x"}), false),
        ("tool.list", json!({"tools": [{"name": "Bash"}]}), true),
        ("tool.list", json!({"tools": "Bash"}), false),
        ("settings.read", json!({"anything": 1}), true),
        ("classic.PreToolUse", json!({}), true),
        ("turn.start", json!("not an object"), false),
    ];
    for (event, answer, ok) in cases {
        assert_eq!(c.answer_ok(event, &answer), ok, "{event} {answer}");
    }
}

#[test]
fn the_pins_of_spec_1_2() {
    let c = events::catalogue();
    assert_eq!(c.pins("tool.check"), Pins::All);
    assert_eq!(
        c.pins("plugin.register"),
        Pins::Fields(&["name", "tier", "provenance", "source"])
    );
    assert_eq!(c.pins("session.append"), Pins::Fields(&["door", "tool"]));
    assert_eq!(c.pins("tool.describe"), Pins::Fields(&["provider"]));
    assert_eq!(c.pins("prompt.section"), Pins::NONE);
    assert!(c.is_declared("session.compact") && c.is_declared("turn.start"));
    assert!(c.pattern_is_declared("prompt.*") && !c.pattern_is_declared("tool.chek"));
}

#[test]
fn typed_reads_keep_unknown_fields_and_never_invent_missing_ones() {
    let e = fnhooks::Event::from_value(
        "tool.check",
        json!({"tool": "Read", "input": {"file_path": "/x"}, "tool_use_id": "t", "v": 2}),
    );
    let check = ToolCheck::read(&e).unwrap();
    assert_eq!(ToolCheck::event(&check), e, "the round trip keeps `v`");
    let nameless = fnhooks::Event::from_value("tool.check", json!({"input": {}}));
    assert!(ToolCheck::read(&nameless).is_none());
    // A value that is not a string unsets, as the core always did (SPEC §3.8).
    let set = EnvSet::read(&fnhooks::Event::from_value(
        "env.set",
        json!({"name": "X", "value": 5}),
    ))
    .unwrap();
    assert_eq!(set.value, None);
    // `ui.log`'s `to` is the screen unless it says `debug`.
    let log = UiLog::read(&fnhooks::Event::from_value(
        "ui.log",
        json!({"line": "hi", "to": "nowhere"}),
    ))
    .unwrap();
    assert_eq!(log.to, Some(fnhooks::Channel::Screen));
    // Another event's fields are not a tool.check.
    assert!(
        ToolCheck::read(&fnhooks::Event::from_value("env.set", json!({"tool": "x"}))).is_none()
    );
}
