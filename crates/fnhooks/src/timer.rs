//! A hook's own-time limit (SPEC §1.1 **\[decision\]**: a hook's timeout counts only its
//! own time, never the time spent inside `next`). Runtime-free: `futures-timer`.

use futures::future::Either;
use std::future::Future;
use std::time::{Duration, Instant};

/// How long a delay waits while the hook is inside `next`, before looking again.
const INSIDE_NEXT_RECHECK: Duration = Duration::from_millis(50);

/// Drives `fut` until it finishes (`Some`) or its own time passes `budget` (`None`).
/// `in_next` reports the time spent inside `next` so far and, while inside, since when.
///
/// The clock starts only when the hook first suspends (DESIGN: no clock read on the hot
/// path): a hook that finishes on its first poll reads no clock and arms no timer.
/// `on_suspend` is told then, so that time inside `next` is counted from that moment
/// too. A hook's first poll runs on the caller's thread and no timer could stop it
/// anyway; its own time is what it spends suspended, minus its time in `next`.
pub(crate) async fn own_time_limit<F, T>(
    fut: F,
    budget: Duration,
    on_suspend: impl FnOnce(Instant),
    in_next: impl Fn() -> (Duration, Option<Instant>),
) -> Option<T>
where
    F: Future<Output = T> + Send,
{
    let mut fut = Box::pin(fut);
    // Most hooks finish on their first poll: no clock and no timer for them.
    if let Some(out) = futures::FutureExt::now_or_never(&mut fut) {
        return Some(out);
    }
    let started = Instant::now();
    on_suspend(started);
    loop {
        let (spent_in_next, entered) = in_next();
        let now = Instant::now();
        let inside = entered.map_or(Duration::ZERO, |t| now.saturating_duration_since(t));
        let own = now
            .saturating_duration_since(started)
            .saturating_sub(spent_in_next + inside);
        let wait = if entered.is_some() {
            INSIDE_NEXT_RECHECK
        } else if own >= budget {
            return None;
        } else {
            budget - own
        };
        let delay = futures_timer::Delay::new(wait);
        match futures::future::select(fut, delay).await {
            Either::Left((out, _)) => return Some(out),
            Either::Right(((), rest)) => fut = rest,
        }
    }
}
