//! What the mods tests share: a core that echoes, an engine over it, inline mods
//! activated as plugins, and a guard against hangs.

#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

pub use fnhooks::testing::info;
use fnhooks::{Answer, Catalogue, Channel, Core, Cx, Engine, Event, Plugin, Tier};
use futures::executor::block_on;
use futures::future::BoxFuture;
use mods::{HostConfig, ModPlugin, ModSource};
use serde_json::{json, Map, Value};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// A core that answers `env.get` with `{value: "v-<name>"}`, refuses `env.set` of
/// `PINNED`, answers `plugin.register` `{admitted: true}`, and echoes every other
/// event's fields with `core: true`; it keeps its log lines and counts its answers.
#[derive(Default)]
pub struct Echo {
    pub log: Mutex<Vec<String>>,
    pub seen: Mutex<Vec<Event>>,
}

impl Core for Echo {
    fn answer(&self, _cx: Cx, e: Event) -> BoxFuture<'static, Answer> {
        self.seen.lock().unwrap().push(e.clone());
        let name = e
            .fields
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let answer = match e.name.as_str() {
            "env.get" => json!({"value": format!("v-{name}")}),
            "env.set" if name == "PINNED" => json!({"deny": "PINNED is pinned by policy"}),
            "ui.log" => {
                let line = e.fields.get("line").and_then(Value::as_str).unwrap_or("");
                let to = e
                    .fields
                    .get("to")
                    .and_then(Value::as_str)
                    .unwrap_or("screen");
                self.log.lock().unwrap().push(format!("{to}: {line}"));
                json!({})
            }
            "env.set" => json!({}),
            "plugin.register" => json!({"admitted": true}),
            _ => {
                let mut f = Map::clone(&e.fields);
                f.insert("core".into(), json!(true));
                Value::Object(f)
            }
        };
        Box::pin(async move { Ok(answer.into()) })
    }
    fn engine_log(&self, _channel: Channel, line: String) {
        self.log.lock().unwrap().push(line);
    }
}

impl Echo {
    /// The names of the events the core answered, in order.
    pub fn seen_names(&self) -> Vec<String> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .map(|e| e.name.to_string())
            .collect()
    }
}

pub const TIMEOUT_MS: u64 = 300;

pub fn engine() -> (Engine, Arc<Echo>) {
    let core = Arc::new(Echo::default());
    let engine = Engine::new(
        core.clone(),
        Catalogue::new(),
        Duration::from_millis(TIMEOUT_MS),
    );
    (engine, core)
}

pub fn config() -> HostConfig {
    HostConfig {
        hook_timeout: Duration::from_millis(TIMEOUT_MS),
        ..HostConfig::default()
    }
}

/// The inline mod `js` activated as `name` in `tier`.
pub fn js_plugin(name: &str, tier: Tier, js: &str) -> Plugin {
    js_plugin_with(name, tier, js, config())
}

pub fn js_plugin_with(name: &str, tier: Tier, js: &str, config: HostConfig) -> Plugin {
    let info = info(name, tier);
    let m = ModPlugin::new(
        ModSource::inline(name, js, Map::new()).unwrap(),
        &Map::new(),
        config,
    )
    .unwrap();
    let mut p = Plugin::new(info.clone());
    p.registrations = m.activate(&info).unwrap();
    p
}

pub fn raise(engine: &Engine, name: &str, fields: Value) -> Answer {
    block_on(engine.raise(Event::from_value(name, fields)))
}

/// Runs `f` on a thread of its own and waits at most `secs` for it: a hang is a
/// failure of the test, not of the suite.
pub fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(v) => v,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("hung: no answer within {secs} s"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("the raise panicked"),
    }
}

/// A fresh folder under the target's temporary folder, `<group>/<name>-<pid>-<n>`,
/// holding `files` (path, text).
pub fn folder_with(group: &str, name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(format!("{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}
