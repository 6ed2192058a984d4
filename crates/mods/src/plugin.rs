//! A mod as a plugin of the chain (SPEC §6): its folder loaded once, and at every
//! admission a fresh runtime, its module evaluated, `register(on, options)` run, and one
//! [`fnhooks::Registration`] for each `on`, with its matcher and `.catch`.

use crate::hook::JsHook;
use crate::host::{Host, RegSpec, SharedWorker};
use crate::load::{Manifest, ModSource};
use crate::matcher::{matches_fields, Node};
use crate::{translate, HostConfig};
use fnhooks::{Event, PluginInfo, Registration};
use serde_json::{Map, Value};
use std::sync::{Arc, Weak};

/// A mod, loaded: what it needs to be activated (SPEC §6 `register(on, options)`), as
/// often as it is admitted. Cheap to clone.
#[derive(Clone)]
pub struct ModPlugin {
    source: Arc<ModSource>,
    options: Value,
    config: HostConfig,
    observer: Option<Observer>,
    crashes: Arc<crate::host::CrashLog>,
    shared: Option<SharedWorker>,
}

/// Called each time one of a mod's hooks (or failure handlers) starts.
pub(crate) type Observer = Arc<dyn Fn() + Send + Sync>;

impl std::fmt::Debug for ModPlugin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModPlugin")
            .field("root", &self.source.root)
            .field("options", &self.options)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

/// Why a mod's options do not fit its manifest's `userConfig` (SPEC §6; reference
/// §1.4: `options do not fit plugin.json userConfig`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("options do not fit plugin.json userConfig: {0}")]
pub struct OptionsError(pub String);

impl ModPlugin {
    /// The mod `source`, configured with `options` (`pluginConfigs["<id>"].options`, as
    /// the session read them) over the manifest's `userConfig` defaults, run under
    /// `config`.
    ///
    /// # Errors
    ///
    /// [`OptionsError`] when an option is of another type than its `userConfig`
    /// declaration says, or a `required` one has no value.
    pub fn new(
        source: ModSource,
        options: &Map<String, Value>,
        config: HostConfig,
    ) -> Result<Self, OptionsError> {
        let options = effective_options(&source.manifest, options)?;
        Ok(ModPlugin {
            source: Arc::new(source),
            options: Value::Object(options),
            config,
            observer: None,
            crashes: Arc::default(),
            shared: None,
        })
    }

    /// This mod with `seen` called each time one of its hooks (or failure handlers)
    /// starts: what a harness uses to say which plugins ran (SCENARIOS.md `$ran`).
    #[must_use]
    pub fn observed(mut self, seen: impl Fn() + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(seen));
        self
    }

    /// The oldest teardown of one of this mod's workers not taken yet, and why (SPEC §6
    /// "Limits"): the session takes it to start the mod afresh (admitting it again) or
    /// to unload it after its third.
    #[must_use]
    pub fn take_crash(&self) -> Option<String> {
        self.crashes.take(true)
    }

    /// The oldest teardown of a worker this mod shares that another mod's run brought
    /// about, not taken yet, and why (SPEC §6 "Workers"): the session starts the mod
    /// afresh and counts no crash against it.
    #[must_use]
    pub fn take_restart(&self) -> Option<String> {
        self.crashes.take(false)
    }

    /// This mod, run in `worker` with the other mods given the same one (SPEC §6
    /// "Workers"); without it, in a worker of its own.
    #[must_use]
    pub fn in_worker(mut self, worker: SharedWorker) -> Self {
        self.shared = Some(worker);
        self
    }

    /// The mod's manifest.
    #[must_use]
    pub fn manifest(&self) -> &Manifest {
        &self.source.manifest
    }

    /// The options `register` receives.
    #[must_use]
    pub fn options(&self) -> &Value {
        &self.options
    }

    /// Activates the mod afresh (SPEC §6: after `plugin.register` admitted it, at start
    /// and at every reload): a new runtime, its module graph evaluated under the hook
    /// timeout, `register(on, options)` run, and its registrations as the chain's, in
    /// `on` order.
    ///
    /// # Errors
    ///
    /// The line that says why, naming the module file and the line in its source (a
    /// throw in top-level code or in `register`, top-level code past the hook timeout,
    /// an `on` the mod may not make).
    pub fn activate(&self, info: &PluginInfo) -> Result<Vec<Registration>, String> {
        self.activate_host(info)
            .map(|(_, regs)| regs)
            .map_err(|e| e.to_string())
    }

    /// [`ModPlugin::activate`], with the runtime's own count of the memory it holds
    /// after activation, in bytes (target: ≤ 1 MiB an idle mod).
    ///
    /// # Errors
    ///
    /// As [`ModPlugin::activate`].
    pub fn activate_measured(&self, info: &PluginInfo) -> Result<(Vec<Registration>, i64), String> {
        self.activate_host(info)
            .map(|(host, regs)| (regs, host.memory_used()))
            .map_err(|e| e.to_string())
    }

    fn activate_host(
        &self,
        info: &PluginInfo,
    ) -> Result<(Arc<Host>, Vec<Registration>), ActivateError> {
        let (host, specs) = Host::start(
            Arc::clone(&self.source),
            &info.name,
            info.tier,
            &self.options,
            self.config.clone(),
            Arc::clone(&self.crashes),
            self.shared.as_ref(),
        )?;
        let regs = specs
            .into_iter()
            .enumerate()
            .map(|(i, spec)| {
                let i = u32::try_from(i).unwrap_or(u32::MAX);
                registration(&host, i, spec, self.observer.as_ref())
            })
            .collect::<Result<Vec<_>, RegistrationError>>()
            .map_err(|error| ActivateError::Registration {
                entry: self.source.entry.clone(),
                error,
            })?;
        Ok((host, regs))
    }
}

/// `userConfig` defaults, overlaid with `given`, checked against the declarations.
fn effective_options(
    manifest: &Manifest,
    given: &Map<String, Value>,
) -> Result<Map<String, Value>, OptionsError> {
    let mut out = Map::new();
    for (name, decl) in &manifest.user_config {
        if let Some(d) = decl.get("default") {
            out.insert(name.clone(), d.clone());
        }
    }
    for (name, v) in given {
        if let Some(decl) = manifest.user_config.get(name) {
            // Reference §1.4: a stored value outside a picker's list counts as unset.
            if !listed(decl, v) {
                continue;
            }
            if !fits(decl, v) {
                return Err(OptionsError(format!(
                    "{} is {}, not {}",
                    fnhooks::escaped(name),
                    v,
                    decl.get("type")
                        .and_then(Value::as_str)
                        .unwrap_or("its declared type")
                )));
            }
        }
        out.insert(name.clone(), v.clone());
    }
    for (name, decl) in &manifest.user_config {
        let required = decl.get("required").and_then(Value::as_bool) == Some(true);
        if required && !out.contains_key(name) {
            return Err(OptionsError(format!(
                "{} is required and has no value",
                fnhooks::escaped(name)
            )));
        }
    }
    Ok(out)
}

fn fits(decl: &Value, v: &Value) -> bool {
    let ok = match decl.get("type").and_then(Value::as_str) {
        Some("string" | "directory" | "file") => v.is_string(),
        Some("number") => v.is_number(),
        Some("boolean") => v.is_boolean(),
        Some("array") => v.is_array(),
        Some("object") => v.is_object(),
        _ => true,
    };
    let within = match (decl.get("max").and_then(Value::as_f64), v.as_f64()) {
        (Some(max), Some(n)) => n <= max,
        _ => true,
    };
    ok && within
}

/// Whether `v` is one of a picker's `options` (any value fits a field without them).
fn listed(decl: &Value, v: &Value) -> bool {
    match decl.get("options").and_then(Value::as_array) {
        Some(choices) => choices.iter().any(|c| c == v || c.get("value") == Some(v)),
        None => true,
    }
}

/// Why a mod could not be activated. The public calls hand on its
/// [`Display`](std::fmt::Display) form, the one line the session writes (the session's
/// `Activate` takes a line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum ActivateError {
    /// Its runtime could not be started, or its module or `register` failed.
    #[error("{0}")]
    Start(#[from] crate::host::StartError),
    /// A registration `register` made cannot be taken.
    #[error("hooks module {entry}: {error}")]
    Registration {
        /// The hooks module's key.
        entry: String,
        /// Why the registration cannot be taken.
        error: RegistrationError,
    },
}

/// Why a registration `register` made cannot be taken: the mod does not load. The
/// [`Display`](std::fmt::Display) form follows `hooks module <entry>: ` in the line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum RegistrationError {
    /// A `!` or `.*` pattern that is malformed (`!*`, `!`, `!!x`, `.*`, `a*.*`).
    #[error("\"{}\" is not a pattern", fnhooks::escaped(pattern))]
    NotAPattern {
        /// The pattern, as the mod wrote it.
        pattern: String,
    },
    /// An exact pattern that is empty or holds a `*`.
    #[error("\"{}\" is not an event", fnhooks::escaped(pattern))]
    NotAnEvent {
        /// The pattern, as the mod wrote it.
        pattern: String,
    },
    /// A matcher that is not an object.
    #[error("on(\"{pattern}\"): the matcher is not an object")]
    MatcherNotObject {
        /// The registration's pattern, as the mod wrote it.
        pattern: String,
    },
}

/// An event pattern (reference §2.1): `noun.event`, `*` (every event but
/// `telemetry.*`), `<namespace>.*`, `!<name>` / `!<glob>`.
enum Pattern {
    Exact(String),
    Prefix(String),
    AllButTelemetry,
    Not(Box<Pattern>),
}

impl Pattern {
    fn parse(s: &str) -> Result<Pattern, RegistrationError> {
        let not_a_pattern = || RegistrationError::NotAPattern {
            pattern: s.to_owned(),
        };
        if let Some(rest) = s.strip_prefix('!') {
            if rest == "*" || rest.is_empty() || rest.starts_with('!') {
                return Err(not_a_pattern());
            }
            return Ok(Pattern::Not(Box::new(Pattern::parse(rest)?)));
        }
        if s == "*" {
            return Ok(Pattern::AllButTelemetry);
        }
        if let Some(ns) = s.strip_suffix(".*") {
            if ns.is_empty() || ns.contains('*') {
                return Err(not_a_pattern());
            }
            return Ok(Pattern::Prefix(format!("{ns}.")));
        }
        if s.is_empty() || s.contains('*') {
            return Err(RegistrationError::NotAnEvent {
                pattern: s.to_owned(),
            });
        }
        Ok(Pattern::Exact(s.to_owned()))
    }

    fn matches(&self, name: &str) -> bool {
        match self {
            Pattern::Exact(n) => n == name,
            Pattern::Prefix(p) => name.starts_with(p.as_str()),
            Pattern::AllButTelemetry => !name.starts_with("telemetry."),
            Pattern::Not(p) => !p.matches(name) && !name.starts_with("telemetry."),
        }
    }

    /// The chain's own pattern: exact where it can be, else every event, narrowed by
    /// [`Pattern::matches`].
    fn chain_pattern(&self) -> (String, bool) {
        match self {
            Pattern::Exact(n) => (n.clone(), false),
            Pattern::Prefix(p) => (format!("{p}*"), false),
            Pattern::AllButTelemetry | Pattern::Not(_) => ("*".to_owned(), true),
        }
    }
}

fn registration(
    host: &Arc<Host>,
    i: u32,
    spec: RegSpec,
    observer: Option<&Observer>,
) -> Result<Registration, RegistrationError> {
    let pattern = Pattern::parse(&spec.pattern)?;
    let (chain_pattern, narrows_name) = pattern.chain_pattern();
    let matcher: Option<Vec<(String, Node)>> = match &spec.matcher {
        None | Some(Value::Null) => None,
        Some(m) => match Node::from_json(m) {
            Some(Node::Obj(fields)) => Some(fields),
            _ => {
                return Err(RegistrationError::MatcherNotObject {
                    pattern: spec.pattern,
                })
            }
        },
    };
    let mut reg = Registration::on(
        &chain_pattern,
        JsHook {
            host: Arc::clone(host),
            reg: i,
            is_catch: false,
            observer: observer.cloned(),
        },
    );
    if narrows_name || matcher.is_some() {
        let has_re = matcher
            .as_ref()
            .is_some_and(|m| m.iter().any(|(_, n)| n.has_regexp()));
        // The predicate holds the runtime weakly: the registration does not keep a
        // runtime alive past its plugin's seat.
        let weak: Weak<Host> = Arc::downgrade(host);
        reg = reg.when(move |e: &Event| {
            if narrows_name && !pattern.matches(&e.name) {
                return false;
            }
            let Some(fields) = &matcher else {
                return true;
            };
            let view = translate::event_view(e);
            if has_re {
                let Some(host) = weak.upgrade() else {
                    return false;
                };
                host.with_regexps(|test| matches_fields(fields, &view, test))
            } else {
                matches_fields(fields, &view, &|_, _| false)
            }
        });
    }
    if spec.has_catch {
        reg = reg.catch(JsHook {
            host: Arc::clone(host),
            reg: i,
            is_catch: true,
            observer: observer.cloned(),
        });
    }
    Ok(reg)
}
