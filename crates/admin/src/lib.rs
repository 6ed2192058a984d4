//! What an organization's administrator runs, as library code: `audit` (what the
//! security default holds over a person's plugins and mods, attack by attack), `check`
//! (one call's verdict, explained) and `replay` (transcripts judged again under a
//! policy). Each command takes its inputs as plain values ([`inputs::MachineInputs`]),
//! returns a typed report, and has one renderer to text; JSON is the report serialized.
//! The `sec-default` binary is a thin layer over this crate: arguments, output and exit
//! codes.
//!
//! ```no_run
//! use admin::check::{check, CheckRequest};
//! use admin::inputs::{MachineInputs, PolicySource};
//!
//! let request = CheckRequest::new(
//!     vec!["Bash(rm -rf build)".to_owned()],
//!     MachineInputs::new(PolicySource::Folder("/etc/claude-code".into())),
//! );
//! match check(&request) {
//!     Ok(report) => print!("{}", report.render()),
//!     Err(e) => eprintln!("{}", e.message),
//! }
//! ```
//!
//! Where each concern lives:
//!
//! | module | concern |
//! | --- | --- |
//! | [`inputs`] | the inputs commands share: where the policy is read, a person's plugins named and read |
//! | [`audit`] | `audit`, and what the security default holds over a person's mods (`mods check`) |
//! | [`check`] | `check`: one call's verdict, explained |
//! | [`replay`] | `replay`: transcripts read, replayed and reported |
//! | [`policy_view`] | what `policy show` (and the audit's heading) says of a managed policy |
//! | [`source`] | which managed folder a command reads, and the example compiled in |
//! | [`text`] | how reports write chosen text: one escaper, one width-aware fit |
//! | [`error`] | the error a command ends with: file, position, pointer, reason, exit code |
//! | [`exit`] | the exit codes, one per outcome |
//! | [`progress`] | how a long command reports its progress to whoever draws it |
#![forbid(unsafe_code)]

pub mod audit;
pub mod check;
pub mod error;
pub mod inputs;
pub mod policy_view;
pub mod progress;
pub mod replay;
pub mod source;
pub mod text;

pub use error::CommandError;
pub use progress::Progress;

/// The exit codes of the commands, one per outcome (a script reads them).
pub mod exit {
    /// Everything held.
    pub const OK: u8 = 0;
    /// A scenario or attack failed.
    pub const FAILED: u8 = 1;
    /// Bad input.
    pub const BAD_INPUT: u8 = 2;
    /// The managed policy cannot be read (it counts as in force, SPEC §2.1).
    pub const POLICY_UNREADABLE: u8 = 3;
}
