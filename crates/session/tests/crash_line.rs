//! SPEC §6 "Limits": "a person's mod that crashes its worker three times in a session
//! is unloaded, with a screen line naming it, written when the third crash happens" —
//! by the raise in which it crashed, not by the next one.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use fnhooks::{
    Cx, Event, FailureKind, HookError, HookFailure, Next, Plugin, PluginInfo, Registration, Tier,
};
use parking_lot::Mutex;
use serde_json::{json, Value};
use session::{Activate, BlockingSession, Listed, SessionConfig};
use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

/// A module whose `tool.check` hook "crashes its worker" every time: it fails with kind
/// `crash` and leaves the crash for the session to take, as the mods host does.
#[derive(Default)]
struct Crasher {
    crashes: Arc<Mutex<VecDeque<String>>>,
}

impl Activate for Crasher {
    fn activate(&self, _info: &PluginInfo) -> Result<Vec<fnhooks::Registration>, String> {
        let crashes = Arc::clone(&self.crashes);
        Ok(vec![Registration::on(
            "tool.check",
            move |_cx: Cx, _e: Event, _next: Next| {
                let crashes = Arc::clone(&crashes);
                async move {
                    crashes.lock().push_back(
                        "its worker was torn down: the runtime hit its stack cap of 1 MiB".into(),
                    );
                    Err::<Value, _>(HookError::Failed(HookFailure::new(
                        FailureKind::Crash,
                        "its worker was torn down",
                    )))
                }
            },
        )])
    }

    fn take_crash(&self) -> Option<String> {
        self.crashes.lock().pop_front()
    }
}

fn start(seated: bool) -> (BlockingSession, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("managed-settings.json"), "{}").unwrap();
    let config = SessionConfig {
        seated,
        ..SessionConfig::new(
            dir.path(),
            Path::new("/home/dev/repo"),
            Path::new("/home/dev"),
        )
    };
    let info = PluginInfo::new("crasher@community", "crasher", Tier::User);
    let listed = vec![
        Listed::module(info, Arc::new(Crasher::default())),
        Listed::from(Plugin::new(PluginInfo::new(
            "bystander@community",
            "bystander",
            Tier::User,
        ))),
    ];
    (BlockingSession::start_listed(config, listed).unwrap(), dir)
}

fn check(s: &BlockingSession, id: &str) -> Vec<(String, String)> {
    let _ = s
        .raise(Event::from_value(
            "tool.check",
            json!({"tool": "Bash", "input": {"command": "make"}, "tool_use_id": id}),
        ))
        .unwrap();
    s.take_log()
        .into_iter()
        .map(|l| (l.channel.as_str().to_owned(), l.text))
        .collect()
}

#[test]
fn the_unload_line_is_written_by_the_raise_of_the_third_crash() {
    for seated in [true, false] {
        let (s, _dir) = start(seated);
        s.take_log();
        let first = check(&s, "t1");
        assert!(
            first.iter().any(|(c, l)| c == "debug"
                && l.starts_with("crasher crashed its worker (")
                && l.ends_with("started afresh (crash 1 of 3)")),
            "seated {seated}: {first:?}"
        );
        let second = check(&s, "t2");
        assert!(
            second
                .iter()
                .any(|(_, l)| l.ends_with("started afresh (crash 2 of 3)")),
            "{second:?}"
        );
        assert!(s.session().is_admitted("crasher@community"));
        let third = check(&s, "t3");
        assert!(
            third.contains(&(
                "screen".to_owned(),
                "crasher was unloaded: it crashed its worker 3 times (its worker was torn down: the runtime hit its stack cap of 1 MiB)".to_owned()
            )),
            "{third:?}"
        );
        // Unseated in that same raise.
        assert!(!s.session().is_admitted("crasher@community"));
        // Nothing is counted twice: the next raise writes no line about it.
        let fourth = check(&s, "t4");
        assert!(
            fourth.iter().all(|(_, l)| !l.contains("crasher")),
            "{fourth:?}"
        );
    }
}
