#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod fold_target;
mod json_target;
mod prescan_target;
mod rules;
mod scenario_target;
mod settings;
mod shell;
mod transcript;

pub use fold_target::fold;
pub use json_target::json_positions;
pub use prescan_target::mod_prescan;
pub use rules::permission_rule;
pub use scenario_target::{scenario_file, SCENARIO_FILE};
pub use settings::{managed_mcp, managed_settings, SEPARATOR};
pub use shell::shell_split;
pub use transcript::transcript;

/// The largest input a body looks at (64 KiB); longer inputs are skipped.
pub const MAX_INPUT: usize = 64 * 1024;

/// What a body says of one input: `Ok(())` when the oracle holds, `Err` with
/// the [`Finding`] when it does not.
pub type Outcome = Result<(), Finding>;

/// What a body found when its oracle did not hold: a description of the finding and
/// the input, shortened (or a harness failure, said as `harness: ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding(pub String);

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Finding {}

/// A [`Finding`] of the text `format!` makes of its arguments.
macro_rules! finding {
    ($($arg:tt)*) => {
        $crate::Finding(format!($($arg)*))
    };
}
pub(crate) use finding;

/// A body by its target name.
pub type Body = fn(&[u8]) -> Outcome;

/// Every target, by the name its cargo-fuzz binary and its regression folder
/// carry.
pub const TARGETS: &[(&str, Body)] = &[
    ("managed_settings", managed_settings),
    ("managed_mcp", managed_mcp),
    ("scenario_file", scenario_file),
    ("permission_rule", permission_rule),
    ("shell_split", shell_split),
    ("fold", fold),
    ("json_positions", json_positions),
    ("mod_prescan", mod_prescan),
    ("transcript", transcript),
];

/// `text` for a finding's message: debug-quoted, cut to 400 characters.
pub(crate) fn shown(text: &str) -> String {
    const MAX: usize = 400;
    if text.chars().count() <= MAX {
        format!("{text:?}")
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut:?}... ({} bytes)", text.len())
    }
}

/// `data` for a finding's message, as text (lossy) when it is not UTF-8.
pub(crate) fn shown_bytes(data: &[u8]) -> String {
    shown(&String::from_utf8_lossy(data))
}
