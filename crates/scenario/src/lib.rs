//! `scenario`: the scenario file format `sec-default test` runs (SCENARIOS.md).
//!
//! - [`format`](mod@format): serde types of a scenario file ([`Scenario`], [`PolicySpec`],
//!   [`PluginSpec`], [`Behaviour`], [`Step`], ...), every closed object rejecting
//!   unknown keys;
//! - [`load`]: [`load_file`] / [`load_paths`], with errors that name the file, the
//!   JSON pointer and what was expected ([`FormatError`]);
//! - [`materialize`]: writing the managed folder, `change_policy` steps and
//!   `session.files` to a folder the runner owns;
//! - [`expect`]: the expectation matcher ([`match_value`], [`match_log`],
//!   [`match_ran`], [`match_answer`]);
//! - [`schema`]: the JSON Schema of the format (checked in as `scenario.schema.json`).
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod error;
pub mod expect;
pub mod format;
pub mod load;
pub mod materialize;
pub mod run;
pub mod schema;

pub use error::{FormatError, MaterializeError};
pub use expect::{
    match_answer, match_log, match_ran, match_value, Channel, Expectation, LineMatch, LogExpect,
    MatchSpec, Mismatch,
};
pub use format::{
    Behaviour, FileEntry, FileSpec, HookSpec, PluginSpec, PolicyChange, PolicySpec, ProviderSpec,
    RaiseStep, RelPath, Scenario, ScenarioList, SessionSpec, SettingsSpec, Step, ToolSpec,
};
pub use load::{load_file, load_paths, load_str, LoadedScenario};
pub use materialize::{apply_change, write_files, write_policy, SettingsInput};
