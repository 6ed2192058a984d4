#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

pub mod error;
pub mod expect;
pub mod format;
pub mod load;
pub mod materialize;
pub mod run;
pub mod schema;

pub use error::{FileSpecError, FormatError, MaterializeError, RelPathError};
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
