//! A hook's own-time limit (SPEC §1.1 **\[decision\]**: a hook's timeout counts only its
//! own time, never the time spent inside `next`). Runtime-free: `futures-timer`.

use futures::future::Either;
use std::future::Future;
use std::time::{Duration, Instant};

/// How long a delay waits while the hook is inside `next`, before looking again.
const INSIDE_NEXT_RECHECK: Duration = Duration::from_millis(50);

/// Drives `fut` until it finishes (`Some`) or its own time passes `budget` (`None`).
/// `in_next` reports the time spent inside `next` so far and, while inside, since when.
pub(crate) async fn own_time_limit<F, T>(
    fut: F,
    budget: Duration,
    in_next: impl Fn() -> (Duration, Option<Instant>),
) -> Option<T>
where
    F: Future<Output = T> + Send,
{
    let started = Instant::now();
    let mut fut = Box::pin(fut);
    // Most hooks finish on their first poll: no timer for them.
    if let Some(out) = futures::FutureExt::now_or_never(&mut fut) {
        return Some(out);
    }
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
