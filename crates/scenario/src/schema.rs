//! The JSON Schema of the scenario format (SCENARIOS.md), generated with `schemars`.
//!
//! The derived parts follow the serde types of [`crate::format`]; the shapes with
//! hand-written deserializers (behaviours, file specs, `policy`, steps, `expect`) have
//! hand-written schemas here. The schema is checked in at
//! `crates/scenario/scenario.schema.json`; a test fails when it differs from
//! [`schema_json`], and `UPDATE_SCHEMA=1 cargo test -p scenario schema` rewrites it.
//!
//! The schema describes shapes; a few checks only the loader makes (a `$dir` that
//! exists, unique plugin ids, relative paths without `..`, operators nested inside
//! answer patterns).

use schemars::gen::{SchemaGenerator, SchemaSettings};
use schemars::schema::{RootSchema, Schema};
use schemars::JsonSchema;
use serde_json::{json, Value};

use crate::expect::{Expectation, LineMatch, LogExpect};
use crate::format::{
    Behaviour, FileEntry, FileSpec, PolicySpec, Scenario, ScenarioList, Step, ALL_TIER_NAMES,
    BEHAVIOURS, HOSTS, LOOPS, MODES, PLUGIN_TIERS,
};

/// Builds a schema from its JSON form. The forms below are fixed and valid (a test
/// checks none of them falls back to `true`).
fn from_json(value: Value) -> Schema {
    serde_json::from_value(value).unwrap_or(Schema::Bool(true))
}

fn to_json(schema: &Schema) -> Value {
    serde_json::to_value(schema).unwrap_or(Value::Bool(true))
}

pub(crate) fn string_schema(description: &str) -> Schema {
    from_json(json!({ "type": "string", "description": description }))
}

fn enum_schema(values: &[&str], description: &str) -> Schema {
    from_json(json!({ "type": "string", "enum": values, "description": description }))
}

pub(crate) fn mode_schema(_: &mut SchemaGenerator) -> Schema {
    from_json(json!({
        "type": "string", "enum": MODES,
        "description": "The permission mode the session was given. Absent: none given, so the session starts in the `defaultMode` of the highest-precedence settings source that sets one (policy first), else `default` (SPEC §4 \"Mode at start\")."
    }))
}

pub(crate) fn loop_schema(_: &mut SchemaGenerator) -> Schema {
    from_json(json!({
        "type": "string", "enum": LOOPS, "default": "main",
        "description": "The loop the session runs in."
    }))
}

pub(crate) fn host_schema(_: &mut SchemaGenerator) -> Schema {
    from_json(json!({
        "type": "string", "enum": HOSTS, "default": "none",
        "description": "Who answers asks in the person's place."
    }))
}

pub(crate) fn source_schema(_: &mut SchemaGenerator) -> Schema {
    enum_schema(
        crate::format::SOURCES,
        "How the loader found the plugin's copy (SPEC §3.4 exemption); default directory",
    )
}

pub(crate) fn plugin_tier_schema(_: &mut SchemaGenerator) -> Schema {
    enum_schema(PLUGIN_TIERS, "The plugin's tier (never `core`).")
}

pub(crate) fn any_tier_schema(_: &mut SchemaGenerator) -> Schema {
    enum_schema(ALL_TIER_NAMES, "A tier of the chain.")
}

/// `{"<key>": <value schema>}` with nothing else.
fn one_key(key: &str, value: Value, description: &str) -> Value {
    json!({
        "type": "object",
        "properties": { key: value },
        "required": [key],
        "additionalProperties": false,
        "description": description
    })
}

impl JsonSchema for FileSpec {
    fn schema_name() -> String {
        "FileSpec".to_owned()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        from_json(json!({
            "description": "A file's content: any JSON value (written pretty-printed), or the one-key objects {\"$raw\": \"text\"} (raw bytes) and {\"$unreadable\": true} (the file exists but reading it fails).",
            "anyOf": [
                one_key("$raw", json!({"type": "string"}), "Raw bytes, written as-is."),
                one_key("$unreadable", json!({"const": true}), "The file exists but reading it fails."),
                { "description": "The file's content as JSON." }
            ]
        }))
    }
}

impl JsonSchema for PolicySpec {
    fn schema_name() -> String {
        "PolicySpec".to_owned()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        let file = to_json(&gen.subschema_for::<FileSpec>());
        from_json(json!({
            "description": "The managed folder: {\"$dir\": \"folder\"} (relative to the scenario file, must exist) or its files by relative path.",
            "oneOf": [
                one_key("$dir", json!({"type": "string", "minLength": 1}), "A real folder, copied for the run."),
                {
                    "type": "object",
                    "propertyNames": { "pattern": "^[^$]" },
                    "additionalProperties": file,
                    "description": "Relative path -> content; a file not listed is absent."
                }
            ]
        }))
    }
}

impl JsonSchema for FileEntry {
    fn schema_name() -> String {
        "FileEntry".to_owned()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        from_json(json!({
            "description": "A file of session.files: its text, a symbolic link, or an empty folder.",
            "oneOf": [
                { "type": "string", "description": "A text file." },
                one_key("symlink", json!({"type": "string"}), "A symbolic link to this target."),
                one_key("dir", json!({"const": true}), "An empty folder.")
            ]
        }))
    }
}

impl JsonSchema for Behaviour {
    fn schema_name() -> String {
        "Behaviour".to_owned()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let string = json!({"type": "string"});
        let object = json!({"type": "object"});
        from_json(json!({
            "description": format!("What a scripted hook does: one of {}.", BEHAVIOURS.join(", ")),
            "oneOf": [
                { "type": "string", "enum": ["pass", "hang"],
                  "description": "pass: returns next(e); hang: never returns." },
                one_key("answer", json!({}), "Returns the value without calling next."),
                one_key("replace", json!({}), "Calls next(e), then returns the value."),
                one_key("patch", object.clone(), "Calls next(e), returns its answer with these top-level fields set (null removes)."),
                one_key("hand", object, "Calls next with the event's top-level fields set as given."),
                one_key("drop", json!({"type": "array", "items": {"type": "string"}}), "Calls next with these top-level fields left out (SPEC §1.2: a pinned field left out is put back)."),
                one_key("skip_to", json!({"type": "string", "enum": ALL_TIER_NAMES}), "Returns next.to(e, tier)."),
                one_key("fail", string.clone(), "Fails without calling next."),
                one_key("fail_after_next", string.clone(), "Calls next(e), then fails."),
                one_key("panic", string, "Panics.")
            ]
        }))
    }
}

impl JsonSchema for LineMatch {
    fn schema_name() -> String {
        "LineMatch".to_owned()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        from_json(json!({
            "description": "An expected log line: the exact text, or {\"$contains\": \"text\"}.",
            "oneOf": [
                { "type": "string" },
                one_key("$contains", json!({"type": "string"}), "The line contains this text.")
            ]
        }))
    }
}

/// The schema of an answer pattern (`$contains`, `$not`, `$absent`, `$any`, or a value).
fn pattern_schema() -> Value {
    json!({
        "description": "An answer pattern: objects match as subsets, arrays element by element; \"$absent\", \"$any\", {\"$contains\": \"text\"}, {\"$not\": pattern}; other values must be equal."
    })
}

impl JsonSchema for Expectation {
    fn schema_name() -> String {
        "Expectation".to_owned()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        let log = to_json(&gen.subschema_for::<LogExpect>());
        let ids = json!({"type": "array", "items": {"type": "string"}});
        from_json(json!({
            "description": "What the step's answer must be.",
            "oneOf": [
                { "type": "string", "enum": ["$held", "$unchanged"],
                  "description": "$held: SPEC §5 invariants 1-2; $unchanged: invariant 7." },
                {
                    "type": "object",
                    "properties": {
                        "$log": log,
                        "$ran": ids.clone(),
                        "$not_ran": ids,
                        "$error": pattern_schema()
                    },
                    "patternProperties": { "^[^$]": pattern_schema() },
                    "additionalProperties": false
                }
            ]
        }))
    }
}

impl JsonSchema for Step {
    fn schema_name() -> String {
        "Step".to_owned()
    }
    fn json_schema(gen: &mut SchemaGenerator) -> Schema {
        let expect = to_json(&gen.subschema_for::<Expectation>());
        let file = to_json(&gen.subschema_for::<FileSpec>());
        from_json(json!({
            "description": "A step: raise an event, or change the managed folder.",
            "oneOf": [
                {
                    "type": "object",
                    "properties": {
                        "raise": { "type": "string", "minLength": 1, "description": "The event's name (SPEC §1.5)." },
                        "event": { "type": "object", "default": {}, "description": "The event's input fields." },
                        "from": { "type": ["string", "null"], "description": "The id of the plugin that raises it." },
                        "core": { "description": "What the engine's own link answers, where not computed." },
                        "expect": { "anyOf": [expect, { "type": "null" }] }
                    },
                    "required": ["raise"],
                    "additionalProperties": false
                },
                one_key("change_policy", json!({
                    "type": "object",
                    "additionalProperties": file,
                    "description": "Files replaced; null deletes one."
                }), "The managed folder changes mid-session.")
            ]
        }))
    }
}

/// The schema of a scenario file: one [`Scenario`] or a [`ScenarioList`].
#[must_use]
pub fn generate() -> RootSchema {
    let mut gen = SchemaGenerator::new(SchemaSettings::draft07());
    let one = to_json(&gen.subschema_for::<Scenario>());
    let many = to_json(&gen.subschema_for::<ScenarioList>());
    let schema = from_json(json!({
        "title": "sec-default scenario file",
        "description": "One scenario object, or {\"scenarios\": [...]} (SCENARIOS.md).",
        "oneOf": [one, many]
    }));
    let mut root = gen.into_root_schema_for::<Scenario>();
    root.schema = schema.into_object();
    root
}

/// The schema as checked in: pretty-printed JSON with a final newline.
#[must_use]
pub fn schema_json() -> String {
    let mut text = serde_json::to_string_pretty(&generate()).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn checked_in() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenario.schema.json")
    }

    /// `UPDATE_SCHEMA=1 cargo test -p scenario schema` rewrites the checked-in schema.
    #[test]
    fn schema_is_up_to_date() {
        let generated = schema_json();
        let path = checked_in();
        if std::env::var_os("UPDATE_SCHEMA").is_some_and(|v| v == "1") {
            std::fs::write(&path, &generated).unwrap();
            return;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            on_disk == generated,
            "{} is out of date: run `UPDATE_SCHEMA=1 cargo test -p scenario schema`",
            path.display()
        );
    }

    #[test]
    fn hand_written_schemas_are_valid() {
        let mut gen = SchemaGenerator::new(SchemaSettings::draft07());
        for schema in [
            FileSpec::json_schema(&mut gen),
            PolicySpec::json_schema(&mut gen),
            FileEntry::json_schema(&mut gen),
            Behaviour::json_schema(&mut gen),
            LineMatch::json_schema(&mut gen),
            Expectation::json_schema(&mut gen),
            Step::json_schema(&mut gen),
            mode_schema(&mut gen),
            loop_schema(&mut gen),
            host_schema(&mut gen),
            plugin_tier_schema(&mut gen),
            any_tier_schema(&mut gen),
            string_schema("x"),
        ] {
            assert!(
                !matches!(schema, Schema::Bool(_)),
                "a schema fell back to `true`"
            );
        }
        let root = serde_json::to_value(generate()).unwrap();
        assert_eq!(root["title"], "sec-default scenario file");
        for name in [
            "Scenario",
            "ScenarioList",
            "Behaviour",
            "Step",
            "Expectation",
            "PolicySpec",
        ] {
            assert!(root["definitions"].get(name).is_some(), "{name} missing");
        }
    }
}
