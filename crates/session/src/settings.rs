//! The settings sources other than the managed policy (SPEC §4 "Sources").

use serde_json::{Map, Value};

/// One settings source as given to the session: absent, a JSON value, raw text (parsed
/// when read), or a file that exists but cannot be read.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum SettingsInput {
    /// No such file: an empty source.
    #[default]
    Absent,
    /// The file's JSON content.
    Value(Value),
    /// The file's raw text.
    Raw(String),
    /// The file exists but reading it fails.
    Unreadable,
}

impl SettingsInput {
    /// The source's settings object.
    ///
    /// # Errors
    ///
    /// A message when the source cannot be read, is not JSON, or is not an object.
    pub fn read(&self) -> Result<Map<String, Value>, String> {
        let value = match self {
            SettingsInput::Absent => return Ok(Map::new()),
            SettingsInput::Value(v) => v.clone(),
            SettingsInput::Raw(text) => {
                policy::json::parse(text.as_bytes())
                    .map_err(|e| {
                        format!("line {}, column {}: {}", e.at.line, e.at.column, e.message)
                    })?
                    .value
            }
            SettingsInput::Unreadable => return Err("the file cannot be read".to_owned()),
        };
        match value {
            Value::Object(m) => Ok(m),
            _ => Err("the settings are not a JSON object".to_owned()),
        }
    }
}

/// The person's, the project's, the local and the `--settings` sources.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SettingsInputs {
    /// `~/.claude/settings.json`.
    pub user: SettingsInput,
    /// `.claude/settings.json`.
    pub project: SettingsInput,
    /// `.claude/settings.local.json`.
    pub local: SettingsInput,
    /// `--settings`.
    pub flag: SettingsInput,
}

impl SettingsInputs {
    /// Each source with its name (`user`, `project`, `local`, `flag`), lowest first.
    #[must_use]
    pub fn named(&self) -> [(&'static str, &SettingsInput); 4] {
        [
            ("user", &self.user),
            ("project", &self.project),
            ("local", &self.local),
            ("flag", &self.flag),
        ]
    }
}

/// Merges `over` into `base` as settings merge across sources: objects key by key,
/// arrays concatenated without duplicates, other values replaced (SPEC §2.1, §4).
pub fn merge_settings(base: &mut Map<String, Value>, over: &Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => merge_settings(b, o),
            (Some(Value::Array(b)), Value::Array(o)) => {
                for item in o {
                    if !b.contains(item) {
                        b.push(item.clone());
                    }
                }
            }
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}
