//! Running.

use super::*;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Twin {
    Main,
    /// `user` hooks stripped: the chain past the user tier (SCENARIOS.md `$held`'s twin;
    /// SPEC §1.1 **[decision, revised]**: the organization's other `prepend` plugins
    /// still run).
    PastUsers,
    /// `seated: false`.
    Unseated,
}

pub(crate) struct World {
    pub(crate) session: BlockingSession,
    ran: Arc<Mutex<Vec<String>>>,
    /// The temporary folder's path, written `$TMP` in answers and traces (messages name
    /// the managed files).
    root: String,
    _temp: Arc<tempfile::TempDir>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Out {
    pub(crate) answer: Value,
    pub(crate) trace: String,
    pub(crate) ran: Vec<String>,
}

#[allow(clippy::unwrap_used)]
pub(crate) fn write_file(path: &std::path::Path, v: &Value) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap();
    }
    let bytes = match v.as_object().and_then(|o| o.get("$raw")) {
        Some(Value::String(raw)) if v.as_object().is_some_and(|o| o.len() == 1) => raw.clone(),
        _ => serde_json::to_string_pretty(v).unwrap(),
    };
    std::fs::write(path, bytes).unwrap();
}

#[allow(clippy::unwrap_used)]
pub(crate) fn world(r: &Rendered, twin: Twin) -> World {
    quiet_scripted_panics();
    let temp = Arc::clone(&r.folder);
    let managed = temp.path().join("managed");
    let mut facts = permissions::SessionFacts::new("/home/dev/repo", "/home/dev");
    facts.loop_kind = r.case.loop_.parse().unwrap();
    facts.host = r.case.host.parse().unwrap();
    let config = SessionConfig {
        mode: Some(r.case.mode.parse().unwrap()),
        facts,
        hook_timeout: Duration::from_millis(HOOK_TIMEOUT_MS),
        seated: twin != Twin::Unseated,
        ..SessionConfig::new(
            &managed,
            std::path::Path::new("/home/dev/repo"),
            std::path::Path::new("/home/dev"),
        )
    };
    let ran = Arc::new(Mutex::new(Vec::new()));
    let plugins = r
        .plugins
        .iter()
        .map(|p| {
            let spec: PluginSpec = serde_json::from_value(p.clone()).unwrap();
            let strip = match twin {
                Twin::PastUsers => spec.tier == Tier::User,
                Twin::Main | Twin::Unseated => false,
            };
            scripted_plugin(&spec, &ran, strip)
        })
        .collect();
    let session = BlockingSession::start(config, plugins).unwrap();
    World {
        session,
        ran,
        root: temp.path().to_string_lossy().into_owned(),
        _temp: temp,
    }
}

impl World {
    #[allow(clippy::unwrap_used)]
    pub(crate) fn step(&self, s: &RStep) -> Out {
        self.ran.lock().clear();
        let (answer, trace) = if let Some(id) = &s.reload {
            match self.session.reload(id) {
                Ok(a) => (answer_to_json(&a), Vec::new()),
                Err(e) => (json!({"$raise_error": e.to_string()}), Vec::new()),
            }
        } else {
            match self.session.raise_traced(
                SessionRaise::new(Event::from_value(s.raise.clone(), s.event.clone()))
                    .from(s.from.as_deref())
                    .core_answer(s.core.clone()),
            ) {
                Ok(Raised { answer, trace }) => (answer_to_json(&answer), trace),
                Err(e) => (json!({"$raise_error": e.to_string()}), Vec::new()),
            }
        };
        let ran = std::mem::take(&mut *self.ran.lock());
        let answer = serde_json::from_str(&self.untemp(&answer.to_string())).unwrap();
        Out {
            answer,
            trace: self.untemp(&serde_json::to_string(&trace).unwrap()),
            ran,
        }
    }

    pub(crate) fn untemp(&self, s: &str) -> String {
        s.replace(&self.root, "$TMP")
    }

    pub(crate) fn admitted(&self, id: &str) -> bool {
        // A person's module under this id is seated (an organization's module may hold
        // the same id; the person's is then never loaded).
        self.session
            .seated()
            .iter()
            .any(|p| p.id == id && p.tier == Tier::User)
    }

    pub(crate) fn env(&self) -> Vec<Option<String>> {
        ENV_NAMES
            .iter()
            .map(|n| self.session.core().env_var(n))
            .collect()
    }
}
