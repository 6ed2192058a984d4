//! How a long command (`audit`, `replay`) tells its progress: calls on a
//! [`Progress`] the caller hands in. The `sec-default` binary draws a bar on a terminal;
//! an embedding program may count, log, or ignore ([`Silent`]). `audit` runs on two
//! threads, so a `Progress` is `Sync`.

/// What a long command says of its progress, in units of its choosing (`audit`: attacks
/// and rules tried; `replay`: bytes of transcripts read). Every method does nothing
/// unless implemented.
pub trait Progress: Sync {
    /// The work grew by `by` units.
    fn grow(&self, by: u64) {
        let _ = by;
    }
    /// `by` more units are done.
    fn advance(&self, by: u64) {
        let _ = by;
    }
    /// `done` units are done in all.
    fn at(&self, done: u64) {
        let _ = done;
    }
    /// What is being done now, in a few words.
    fn doing(&self, what: String) {
        let _ = what;
    }
    /// The work is over: whatever was drawn may go.
    fn finish(&self) {}
    /// A line for whoever runs the command now (a file skipped), besides the report.
    fn warn(&self, line: &str) {
        let _ = line;
    }
}

/// Progress that goes nowhere.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}
