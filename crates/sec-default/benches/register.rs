//! `tool.register` judged against 1,000 reserved scopes (target ≤ 1 µs): the
//! judgement of a person's registration once the policy's reservations are compiled
//! (the plugin compiles them once per policy content), for a name that reads as no
//! scope (every scope considered) and one that reads as the last server.
//!
//! Run with `cargo bench -p sec-default`.

#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use divan::{black_box, Bencher};
use policy::ManagedSettings;
use sec_default::tool_register_refusal::ReservedScopes;
use serde_json::{json, Map, Value};

fn main() {
    divan::main();
}

fn policy(servers: usize) -> ManagedSettings {
    let servers: Map<String, Value> = (0..servers)
        .map(|i| (format!("corp-server-{i}"), json!({})))
        .collect();
    ManagedSettings::from_value(&json!({"managedMcpServers": servers}))
}

#[divan::bench(args = [10, 1_000])]
fn judge_a_free_name(bencher: Bencher, servers: usize) {
    let scopes = ReservedScopes::new(&policy(servers));
    bencher
        .bench_local(|| black_box(scopes.why_refused(black_box("notes"), black_box("add"), None)));
}

#[divan::bench(args = [10, 1_000])]
fn judge_an_impersonation(bencher: Bencher, servers: usize) {
    let scopes = ReservedScopes::new(&policy(servers));
    let plugin = format!("CORP_SERVER_{}", servers - 1);
    bencher.bench_local(|| {
        black_box(scopes.why_refused(black_box(&plugin), black_box("search"), None))
    });
}

#[divan::bench]
fn compile_1000_reservations(bencher: Bencher) {
    let p = policy(1_000);
    bencher.bench_local(|| black_box(ReservedScopes::new(&p)));
}
