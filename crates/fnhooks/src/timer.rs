//! A hook's own-time clock (SPEC §1.1 **\[decision\]**: a hook's timeout counts only its
//! own time, never the time spent inside `next` or in events it raises).
//!
//! The clock is read only once the hook has suspended (DESIGN: no clock read on the hot
//! path): a hook that answers on its first poll reads no clock and arms no timer. The
//! part of a hook that runs before its first suspension runs on the caller's thread, and
//! no timer could stop it anyway; its own time is what passes from its first suspension
//! on, less the time it spends inside `next` or in events it raises.

use std::time::{Duration, Instant};

/// One hook's own-time clock, kept by the chain driver.
#[derive(Debug, Default, Clone)]
pub(crate) struct Clock {
    /// Whether the hook has suspended, so that its own time is being measured.
    timing: bool,
    /// Own time counted so far.
    own: Duration,
    /// Since when the clock runs (timing, and not inside `next` or a raised event).
    since: Option<Instant>,
    /// How many `next` calls and raised events are under way: the clock stands still
    /// while any is.
    depth: u32,
}

impl Clock {
    /// Whether the hook is inside `next` or a raised event.
    pub(crate) fn paused(&self) -> bool {
        self.depth > 0
    }

    /// The hook enters `next` or a raised event.
    pub(crate) fn pause(&mut self) {
        if self.depth == 0 {
            if let Some(since) = self.since.take() {
                self.own += since.elapsed();
            }
        }
        self.depth += 1;
    }

    /// A `next` call or raised event of the hook returned (or was dropped).
    pub(crate) fn resume(&mut self) {
        self.depth = self.depth.saturating_sub(1);
        if self.depth == 0 && self.timing && self.since.is_none() {
            self.since = Some(Instant::now());
        }
    }

    /// The hook suspended outside `next`: starts the clock if it has not started, and
    /// answers the own time left of `budget` (zero when it has run out).
    pub(crate) fn suspended(&mut self, budget: Duration) -> Duration {
        let now = Instant::now();
        self.timing = true;
        if self.depth == 0 && self.since.is_none() {
            self.since = Some(now);
        }
        let running = self
            .since
            .map_or(Duration::ZERO, |s| now.saturating_duration_since(s));
        budget.saturating_sub(self.own + running)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_inside_next_is_not_counted() {
        let mut c = Clock::default();
        let budget = Duration::from_secs(60);
        assert!(c.suspended(budget) > Duration::from_secs(59));
        c.pause();
        assert!(c.paused());
        let before = c.own;
        std::thread::sleep(Duration::from_millis(20));
        // Paused: no time passes on the hook's own clock.
        assert_eq!(c.own, before);
        assert!(c.since.is_none());
        c.resume();
        assert!(!c.paused());
        assert!(c.since.is_some());
        assert!(c.own < Duration::from_millis(20), "{:?}", c.own);
    }

    #[test]
    fn a_hook_that_never_suspends_reads_no_clock() {
        let mut c = Clock::default();
        c.pause();
        c.resume();
        assert!(c.since.is_none());
        assert_eq!(c.own, Duration::ZERO);
    }

    #[test]
    fn the_budget_runs_out() {
        let mut c = Clock::default();
        let _ = c.suspended(Duration::from_millis(5));
        std::thread::sleep(Duration::from_millis(10));
        assert_eq!(c.suspended(Duration::from_millis(5)), Duration::ZERO);
    }
}
