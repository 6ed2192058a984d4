//! SPEC §5 (what the security default must never allow), as properties over generated
//! sessions.
//!
//! A generated case is a whole session: a managed folder (deny/ask/allow rules from a
//! small pool, `env`, `processWrapper`, the plugin's two options, managed MCP servers,
//! `prependPlugins`/`appendPlugins`/`enabledPlugins`, `allowedMcpServers`, a drop-in, and
//! unreadable files: a broken or empty `managed-settings.json`, a broken drop-in, a
//! garbage `managed-mcp.json`), a chain of `prepend`/`user`/`append`/`builtin` plugins
//! (batches through shared workers) whose hooks follow every scenario behaviour, and a
//! list of events. Each case is run by the scenario crate's own scripted plugins
//! ([`scenario::run::scripted_plugin`]) in a real [`session::Session`], and, as a
//! property needs it, in twins:
//!
//! - **past users**: the same session with the hooks of the `user` plugins stripped
//!   (the plugins stay listed, so they still raise events). That is "the same question
//!   evaluated past the user tier": the security default's `next.to(e, append)` skips
//!   the `user` tier and nothing else, so the organization's other `prepend` plugins
//!   still run (SPEC §1.1 **[decision, revised]**, §3.6 step 5: "the two runs differ by
//!   the user tier alone"). It is the `$held` twin of SCENARIOS.md.
//! - **unseated**: the same session with `seated: false` (SCENARIOS.md `$unchanged`).
//!
//! Every oracle here is written from the SPEC, independently of the plugin's code: the
//! fold (§3.4.1), the reserved scopes and the exemption (§3.4), the pinned variables
//! (§3.8), seating and the options (§2.3), what is held (§3.1–§3.8).
//!
//! Case counts: `PROPTEST_CASES` (default 10 000). A failure prints the
//! scenario file (SCENARIOS.md format) that reproduces it; `PROPTEST_RNG_SEED` replays
//! a run.

use fnhooks::{answer_to_json, Event, Tier};
use parking_lot::Mutex;
use permissions::{Decision, Verdict};
use policy::SEC_DEFAULT_ID;
use proptest::prelude::*;
use proptest::test_runner::Config;
use scenario::format::PluginSpec;
use scenario::run::scripted_plugin;
use serde_json::{json, Map, Value};
use session::{BlockingSession, Raised, SessionConfig, SessionRaise};
use std::sync::{Arc, Once};
use std::time::Duration;

mod case;
mod checks;
mod generate;
mod oracles;
mod pools;
mod render;
mod world;

use case::*;
use checks::*;
use generate::*;
use oracles::*;
use pools::*;
use render::*;
use world::*;

// ---------------------------------------------------------------------------------
// Configuration

/// Cases per property: `PROPTEST_CASES`, default 10 000.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000)
}

fn config() -> Config {
    Config {
        cases: cases(),
        // The failure message carries the reproducing scenario; no files beside the source.
        failure_persistence: None,
        max_shrink_time: std::env::var("PROPTEST_MAX_SHRINK_TIME")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(120_000),
        ..Config::default()
    }
}

/// The per-hook timeout of generated sessions: hangs cost this much each.
const HOOK_TIMEOUT_MS: u64 = 5;

/// Scripted `panic` behaviours panic on purpose (the engine catches them): keep them off
/// stderr. Every other panic is reported as usual.
fn quiet_scripted_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let scripted = info
                .payload()
                .downcast_ref::<String>()
                .is_some_and(|s| s.starts_with("scripted panic"));
            if !scripted {
                previous(info);
            }
        }));
    });
}

// ---------------------------------------------------------------------------------
// The properties

fn run(check: Check) -> Result<(), TestCaseError> {
    check.map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(config())]

    /// SPEC §5 invariant 1.
    #[test]
    fn held_verdict_never_loosened(c in any_case()) {
        let r = c.render();
        run(check_held_verdict(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
    }

    /// SPEC §5 invariant 2.
    #[test]
    fn no_user_hook_runs_at_held_events(c in any_case()) {
        let r = c.render();
        run(check_no_user_hook_at_held(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
    }

    /// SPEC §5 invariant 3, over arbitrary Unicode plugin and tool names.
    #[test]
    fn no_registration_reads_as_an_org_scope(c in any_case()) {
        let r = c.render();
        run(check_registrations(&r, &world(&r, Twin::Main)))?;
    }

    /// SPEC §5 invariant 4.
    #[test]
    fn no_pinned_variable_set(c in any_case()) {
        let r = c.render();
        run(check_pinned(&r, &world(&r, Twin::Main)))?;
    }

    /// SPEC §5 invariant 5.
    #[test]
    fn no_admission_under_mods_only_or_unreadable_policy(c in any_case()) {
        let r = c.render();
        run(check_admission(&r, &world(&r, Twin::Main)))?;
    }

    /// SPEC §5 invariant 6: invariants 1–5 under a failing policy read, a garbage
    /// `managed-mcp.json`, and hooks that fail, panic and time out.
    #[test]
    fn fail_closed_under_every_failure_kind(c in case(2, 4, 4, 2)) {
        let r = c.render();
        run(check_held_verdict(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
        run(check_no_user_hook_at_held(&r, &world(&r, Twin::Main), &world(&r, Twin::PastUsers)))?;
        let main = world(&r, Twin::Main);
        run(check_registrations(&r, &main))?;
        let main = world(&r, Twin::Main);
        run(check_pinned(&r, &main))?;
        let main = world(&r, Twin::Main);
        run(check_admission(&r, &main))?;
    }

    /// SPEC §5 invariant 7.
    #[test]
    fn nothing_else_changes(c in any_case()) {
        let r = c.render();
        run(check_nothing_else(&r, &world(&r, Twin::Main), &world(&r, Twin::Unseated), &world(&r, Twin::PastUsers)))?;
    }

    /// Unseated vs seated differ only on events SPEC §3 holds — over
    /// sessions where nothing keeps a person's plugins out (readable policy, mods-only
    /// off), so that every step stays comparable.
    #[test]
    fn unseated_vs_seated_differ_only_on_held_events(c in case(8, 0, 1, 1).prop_map(|mut c| {
        c.policy.mods_only = Opt::False;
        c
    })) {
        let r = c.render();
        run(check_nothing_else(&r, &world(&r, Twin::Main), &world(&r, Twin::Unseated), &world(&r, Twin::PastUsers)))?;
    }

    /// The same session gives byte-identical answers and trace JSON
    /// every run, and on any thread count.
    #[test]
    fn determinism(c in any_case()) {
        let r = c.render();
        let first = transcript(&r);
        let again = transcript(&r);
        run(same_transcript(&r, &first, &again, "a second run"))?;
        let threads: Vec<Vec<(String, String)>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4).map(|_| scope.spawn(|| transcript(&r))).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for t in &threads {
            run(same_transcript(&r, &first, t, "a run on one of 4 threads"))?;
        }
        // One session, its `tool.check`s raised from 4 threads at once.
        let checks: Vec<&RStep> = r.steps.iter().filter(|s| s.raise == "tool.check").collect();
        let alone = world(&r, Twin::Main);
        let sequential: Vec<Out> = checks.iter().map(|s| alone.step(s)).collect();
        let shared = world(&r, Twin::Main);
        let concurrent: Vec<Vec<Out>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| checks.iter().map(|s| shared.step(s)).collect::<Vec<_>>()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for outs in &concurrent {
            for (k, (a, b)) in sequential.iter().zip(outs).enumerate() {
                prop_assert!(
                    a.answer == b.answer && a.trace == b.trace,
                    "tool.check {} raised on 4 threads at once differs:\n  {} {}\n  {} {}\n--- scenario ---\n{}",
                    k, a.answer, a.trace, b.answer, b.trace, r.repro("determinism")
                );
            }
        }
    }
}
