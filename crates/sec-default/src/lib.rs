#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

mod admission;
pub mod fold;
pub mod held_verdict;
pub mod managed_tools;
pub mod past_users;
pub mod pinned_variables;
pub mod policy;
pub mod refusals;
mod register;
pub mod skill_row;
pub mod state;
pub mod tool_register_refusal;

pub use register::{plugin, plugin_observed, ID, NAME};
pub use state::{CheckNote, CheckObserver};
