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

/// Why a settings source cannot be used. The session names the source before it (`the
/// user settings: ...`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    /// The file exists but reading it fails.
    #[error("the file cannot be read")]
    Unreadable,
    /// The text is not JSON.
    #[error("line {line}, column {column}: {message}")]
    NotJson {
        /// 1-based line of the error.
        line: usize,
        /// 1-based column of the error.
        column: usize,
        /// The parser's reason.
        message: String,
    },
    /// JSON, but not an object.
    #[error("the settings are not a JSON object")]
    NotAnObject,
}

impl SettingsInput {
    /// The source's settings object.
    ///
    /// # Errors
    ///
    /// [`SettingsError`] when the source cannot be read, is not JSON, or is not an
    /// object.
    pub fn read(&self) -> Result<Map<String, Value>, SettingsError> {
        let value = match self {
            SettingsInput::Absent => return Ok(Map::new()),
            SettingsInput::Value(v) => v.clone(),
            SettingsInput::Raw(text) => {
                policy::json::parse(text.as_bytes())
                    .map_err(|e| SettingsError::NotJson {
                        line: e.at.line,
                        column: e.at.column,
                        message: e.message,
                    })?
                    .value
            }
            SettingsInput::Unreadable => return Err(SettingsError::Unreadable),
        };
        match value {
            Value::Object(m) => Ok(m),
            _ => Err(SettingsError::NotAnObject),
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
