//! The JS link's cost on the chain's thread, against its targets: a pass-through mod link
//! (Rust → JS → `next` → Rust → JS → back) against a pass-through Rust link in the same
//! chain, a rewriting mod link, activating a mod, and (printed before the benches) the
//! JavaScript engine's own count of the memory an idle mod holds.
//!
//! Run with `cargo bench -p mods --bench bridge`.

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
use mods::{HostConfig, ModPlugin, ModSource};
use serde_json::{json, Map};
use std::sync::Arc;

const PASS: &str = "export function register(on) { on('tool.check', ($, e, next) => next(e)); }";
const REWRITE: &str = "export function register(on) {
    on('tool.check', async ($, e, next) => ({ ...(await next(e)), seen: true }));
}";

fn main() {
    let (plugin, info) = js(PASS);
    let mut total = 0;
    let n = 20;
    for _ in 0..n {
        let (_, bytes) = plugin.activate_measured(&info).unwrap();
        total += bytes;
    }
    println!(
        "idle mod, as QuickJS counts it (memory_used_size): {} KiB",
        total / n / 1024
    );
    // Target: 50 idle mods, each in a worker of its own, ≤ 100 MiB resident.
    let before = resident_kib();
    let idle: Vec<_> = (0..50).map(|_| plugin.activate(&info).unwrap()).collect();
    let after = resident_kib();
    println!(
        "50 idle mods in 50 workers: {} KiB resident ({} KiB before, {} KiB after)",
        after.saturating_sub(before),
        before,
        after
    );
    drop(idle);
    // The same 50 in one shared worker (SPEC §6 "Workers"): one runtime, a context each.
    let w = mods::SharedWorker::new("bench");
    let before = resident_kib();
    let shared: Vec<_> = (0..50)
        .map(|_| plugin.clone().in_worker(w.clone()).activate(&info).unwrap())
        .collect();
    let after = resident_kib();
    println!(
        "50 idle mods in 1 shared worker: {} KiB resident ({} KiB before, {} KiB after)",
        after.saturating_sub(before),
        before,
        after
    );
    drop(shared);
    divan::main();
}

struct Fixed(Reply);

impl Core for Fixed {
    fn answer(&self, _cx: Cx, _e: Event) -> BoxFuture<'static, Answer> {
        Box::pin(futures::future::ready(Ok(self.0.clone())))
    }
    fn engine_log(&self, _channel: Channel, _line: String) {}
}

fn js(code: &str) -> (ModPlugin, PluginInfo) {
    let info = PluginInfo::new("m@bench", "m", Tier::User);
    let plugin = ModPlugin::new(
        ModSource::inline("m", code, Map::new()).expect("the bench mod compiles"),
        &Map::new(),
        HostConfig::default(),
    )
    .unwrap();
    (plugin, info)
}

fn engine(link: Option<&str>) -> Engine {
    let engine = Engine::new(
        Arc::new(Fixed(Reply::new(json!({"decision": "ask"})))),
        fnhooks::Catalogue::new(),
        fnhooks::DEFAULT_HOOK_TIMEOUT,
    );
    match link {
        Some(code) => {
            let (plugin, info) = js(code);
            let mut p = Plugin::new(info.clone());
            p.registrations = plugin.activate(&info).unwrap();
            engine.seat(p);
        }
        None => engine.seat(
            Plugin::new(PluginInfo::new("r@bench", "r", Tier::User)).with(Registration::on(
                "tool.check",
                |_cx: Cx, e: Event, n: Next| async move { n.run(e).await.map_err(HookError::from) },
            )),
        ),
    }
    engine
}

fn event() -> Event {
    Event::from_value(
        "tool.check",
        json!({"tool": "Bash", "input": {"command": "git status"}, "tool_use_id": "t1"}),
    )
}

fn measured<T>(f: impl FnOnce() -> T) {
    drop(black_box(f()));
}

/// The resident set of this process, in KiB (`/proc/self/statm`; 0 where there is none).
fn resident_kib() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4
}

/// The thread hop alone, 1,000 times (read the figure in ms as µs a hop): an empty job
/// to a worker's thread and back (the hop is reported apart from the call;
/// the worker's start is spread over the 1,000).
#[divan::bench]
fn worker_hop_x1000(bencher: Bencher) {
    bencher.bench_local(|| measured(|| mods::worker_round_trips(1000).unwrap()));
}

/// A worker torn down and a fresh one started with the mod admitted again (target
/// ≤ 50 ms): dropping a mod's runtime and its thread, then a new worker, runtime
/// and `register`.
#[divan::bench]
fn teardown_and_respawn(bencher: Bencher) {
    let (plugin, info) = js(PASS);
    let mut held = Some(plugin.activate(&info).unwrap());
    bencher.bench_local(|| {
        drop(held.take());
        held = Some(plugin.activate(&info).unwrap());
    });
}

/// A pass-through Rust link: the baseline the JS link's figure is read against.
#[divan::bench]
fn rust_pass_through_link(bencher: Bencher) {
    let engine = engine(None);
    let e = event();
    bencher.bench_local(|| measured(|| engine.raise_blocking(e.clone())));
}

/// A pass-through mod link: the event into JavaScript, `next(e)` back out, the answer
/// in, and handed back as it came (target ≤ 3 µs above the raise).
#[divan::bench]
fn js_pass_through_link(bencher: Bencher) {
    let engine = engine(Some(PASS));
    let e = event();
    bencher.bench_local(|| measured(|| engine.raise_blocking(e.clone())));
}

/// A mod link that rewrites the answer coming up (a copy with a field added).
#[divan::bench]
fn js_rewrite_link(bencher: Bencher) {
    let engine = engine(Some(REWRITE));
    let e = event();
    bencher.bench_local(|| measured(|| engine.raise_blocking(e.clone())));
}

/// Activating a mod: a fresh runtime, the bridge, the module evaluated, `register` run.
#[divan::bench]
fn activate_a_mod(bencher: Bencher) {
    let (plugin, info) = js(PASS);
    bencher.bench_local(|| measured(|| plugin.activate(&info).unwrap()));
}
