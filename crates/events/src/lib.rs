#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod catalogue;
mod cx;
pub mod names;
mod names_spell;
mod types;
mod verdict;

pub use catalogue::catalogue;
pub use cx::CxExt;
pub use names_spell::{registered_tool_name, spell};
pub use types::*;
pub use verdict::{Decision, Verdict};
