//! The engine's own cost: the no-hook path (an event nobody hooks,
//! answered by the core directly, SPEC §1.3) and the cost of one pass-through link, from
//! chains of 1, 8 and 32 links.
//!
//! Run with `cargo bench -p fnhooks` (wall times); `scripts/bench-summary` turns them
//! into per-link cost, and `scripts/bench-callgrind` counts instructions. The figures of
//! record are in `BASELINE.md` beside this file.

#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use divan::{black_box, Bencher};
use fnhooks::{
    Answer, Channel, Core, Cx, Engine, Event, HookError, Next, Plugin, PluginInfo, Registration,
    Reply, Tier,
};
use futures::future::BoxFuture;
use serde_json::{json, Map, Value};
use std::sync::Arc;

fn main() {
    divan::main();
}

/// A core that answers every event with one prebuilt answer (shared: its clone copies
/// nothing), so that the benches measure the engine, not the core's own work.
struct Fixed(Reply);

impl Core for Fixed {
    fn answer(&self, _cx: Cx, _e: Event) -> BoxFuture<'static, Answer> {
        Box::pin(futures::future::ready(Ok(self.0.clone())))
    }
    fn engine_log(&self, _channel: Channel, _line: String) {}
}

fn engine(links: usize) -> Engine {
    let engine = Engine::new(
        Arc::new(Fixed(Reply::new(Value::Object(Map::new())))),
        fnhooks::Catalogue::new(),
        fnhooks::DEFAULT_HOOK_TIMEOUT,
    );
    for i in 0..links {
        let info = PluginInfo {
            id: format!("p{i}@bench"),
            name: format!("p{i}"),
            tier: Tier::User,
            worker: None,
            source: None,
        };
        engine.seat(Plugin::new(info).with(Registration::on(
            "prompt.section",
            |_cx: Cx, e: Event, n: Next| async move { n.run(e).await.map_err(HookError::from) },
        )));
    }
    engine
}

fn event() -> Event {
    Event::from_value("prompt.section", json!({"id": "x"}))
}

/// The code a bench measures. `scripts/bench-callgrind` counts instructions inside
/// this function only (callgrind `--toggle-collect='*measured*'`): the answer's drop is
/// counted, the making of the bench's input and divan's own loop are not.
#[inline(never)]
fn measured<T>(f: impl FnOnce() -> T) {
    drop(black_box(f()));
}

/// An event no plugin hooks: the core answers directly (SPEC §1.3). The caller raises
/// a clone of one event it built before (its fields shared), so the figure
/// is the engine's dispatch and the core's answer, not the making and freeing of the
/// caller's map.
#[divan::bench]
fn no_hook_path(bencher: Bencher) {
    let engine = engine(0);
    let prebuilt = event();
    bencher.bench_local(|| measured(|| engine.raise_blocking(prebuilt.clone())));
}

/// A chain of `n` pass-through links in front of the core.
fn chain_of(bencher: Bencher, n: usize) {
    let engine = engine(n);
    bencher
        .with_inputs(event)
        .bench_local_values(|e| measured(|| engine.raise_blocking(e)));
}

/// One pass-through link (with the raise around it).
#[divan::bench]
fn pass_through_chain_of_1(bencher: Bencher) {
    chain_of(bencher, 1);
}

/// Eight pass-through links.
#[divan::bench]
fn pass_through_chain_of_8(bencher: Bencher) {
    chain_of(bencher, 8);
}

/// Thirty-two pass-through links: (32 − 1) / 31 is the cost of one link.
#[divan::bench]
fn pass_through_chain_of_32(bencher: Bencher) {
    chain_of(bencher, 32);
}
