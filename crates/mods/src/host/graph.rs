//! The mod's module graph in the runtime (SPEC §6): its imports resolved by the graph
//! the loader resolved and loaded from the compiled JavaScript, the hooks module
//! evaluated and `register(on, options)` run under the hook timeout, and the line that
//! names the module file and the line in its source where a load failed.

use super::crash::mib;
use super::{caught, caught_value, describe, Host, RegSpec};
use crate::load::{ModSource, Module as Source};
use crate::wire;
use parking_lot::Mutex;
use rquickjs::loader::{Loader, Resolver};
use rquickjs::promise::PromiseState;
use rquickjs::{Array, Ctx, Function, Module, Promise, Value};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// Why a mod's hooks module did not load or `register` failed: one line naming the module
/// file and, where known, the place in its source (SPEC §6). The lines have many
/// shapes (a throw, the timeout, a cap, a tampered bridge), each built where it is
/// known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub(crate) struct LoadFailure(
    /// The whole line.
    pub(crate) String,
);

/// Resolves import specifiers by the graph the loader resolved (SPEC §6: relative
/// imports inside the plugin folder, `claude-code`); nothing else loads.
/// The contexts of one runtime each resolve by their own mod's graph: found by the
/// context's address.
pub(super) struct GraphResolver(pub(super) Arc<Mutex<HashMap<usize, Arc<ModSource>>>>);

const ENGINE_MODULE: &str = "claude-code";

fn source_of(
    sources: &Mutex<HashMap<usize, Arc<ModSource>>>,
    ctx: &Ctx<'_>,
) -> Option<Arc<ModSource>> {
    sources.lock().get(&ctx.as_raw().as_ptr().addr()).cloned()
}

impl Resolver for GraphResolver {
    fn resolve<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        base: &str,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<String> {
        let source = source_of(&self.0, ctx);
        match source
            .as_ref()
            .and_then(|s| s.modules.get(base))
            .and_then(|m| m.imports.get(name))
        {
            Some(crate::load::Import::Module(key)) => Ok(key.clone()),
            Some(crate::load::Import::Engine) => Ok(ENGINE_MODULE.to_owned()),
            None => Err(rquickjs::Error::new_resolving(base, name)),
        }
    }
}

pub(super) struct GraphLoader(pub(super) Arc<Mutex<HashMap<usize, Arc<ModSource>>>>);

impl Loader for GraphLoader {
    fn load<'js>(
        &mut self,
        ctx: &Ctx<'js>,
        name: &str,
        _attributes: Option<rquickjs::loader::ImportAttributes<'js>>,
    ) -> rquickjs::Result<Module<'js, rquickjs::module::Declared>> {
        if name == ENGINE_MODULE {
            return Module::declare(ctx.clone(), name, "");
        }
        let source = source_of(&self.0, ctx);
        match source.as_ref().and_then(|s| s.modules.get(name)) {
            Some(m) => Module::declare(ctx.clone(), name, m.js.as_str()),
            None => Err(rquickjs::Error::new_loading(name)),
        }
    }
}

impl Host {
    /// Evaluates the module graph and runs `register`: under the hook timeout, as a
    /// hook (SPEC §6 "top-level code that never ends").
    pub(super) fn load_and_register(
        &self,
        options: &serde_json::Value,
    ) -> Result<Vec<RegSpec>, LoadFailure> {
        let entry = self.source.entry.clone();
        let timeout = self.config.hook_timeout;
        let options = options.to_string();
        self.wr.deadline.set(timeout);
        let out = self.ctx.with(|ctx| -> Result<String, LoadFailure> {
            let module = Module::declare(ctx.clone(), entry.as_str(), self.entry_js())
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let (module, promise) = module
                .eval()
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            self.settle_promise(&ctx, &promise, "did not load")?;
            let ns = module
                .namespace()
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let register: Value = ns
                .get("register")
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let bridge = self
                .bridge(&ctx)
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let run: Function = bridge
                .get("register")
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let promise: Promise = run
                .call((register, options))
                .map_err(|e| self.failure(&ctx, &e, "register threw"))?;
            self.settle_promise(&ctx, &promise, "register threw")?;
            let take: Function = bridge
                .get("take")
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let outbox: Array = take
                .call(())
                .map_err(|e| self.failure(&ctx, &e, "did not load"))?;
            let read = wire::read_outbox(&outbox, &|name| self.answers(name)).map_err(|why| {
                LoadFailure(format!(
                    "hooks module {}: did not load: the bridge was tampered with: {why}",
                    self.source.entry
                ))
            })?;
            if let Some(cap) = read.cap {
                return Err(LoadFailure(format!(
                    "hooks module {}: did not load: the runtime hit its {cap} cap of {} while it loaded",
                    self.source.entry,
                    mib(self.cap_size(cap))
                )));
            }
            promise
                .result::<String>()
                .unwrap_or(Ok(String::new()))
                .map_err(|e| self.failure(&ctx, &e, "register threw"))
        });
        self.wr.deadline.clear();
        let text = out?;
        serde_json::from_str(&text)
            .map_err(|e| LoadFailure(format!("{}: the registrations: {e}", entry)))
    }

    fn entry_js(&self) -> &str {
        self.source
            .modules
            .get(&self.source.entry)
            .map_or("", |m| m.js.as_str())
    }

    /// Runs jobs until `promise` settles; its rejection (or the deadline) as the line.
    fn settle_promise<'js>(
        &self,
        ctx: &Ctx<'js>,
        promise: &Promise<'js>,
        what: &str,
    ) -> Result<(), LoadFailure> {
        loop {
            match promise.state() {
                PromiseState::Resolved => return Ok(()),
                PromiseState::Rejected if self.wr.deadline.fired.load(Ordering::Relaxed) => {
                    return Err(self.timeout_line(what));
                }
                PromiseState::Rejected => {
                    let reason: Value =
                        promise.result::<Value>().and_then(Result::err).map_or_else(
                            || Value::new_undefined(ctx.clone()),
                            |e| caught_value(ctx, &e),
                        );
                    let (message, stack) = describe(&reason);
                    return Err(self.line(what, &message, &stack));
                }
                PromiseState::Pending => {}
            }
            if self.wr.deadline.fired.load(Ordering::Relaxed) || self.wr.deadline.passed() {
                return Err(self.timeout_line(what));
            }
            if !ctx.execute_pending_job() {
                if self.wr.deadline.fired.load(Ordering::Relaxed) {
                    return Err(self.timeout_line(what));
                }
                return Err(self.line(
                    what,
                    "its promise never settles (it awaits something nothing resolves)",
                    "",
                ));
            }
        }
    }

    fn timeout_line(&self, what: &str) -> LoadFailure {
        let msg = format!(
            "ran past the hook timeout of {} ms",
            self.config.hook_timeout.as_millis()
        );
        LoadFailure(format!("hooks module {}: {what}: {msg}", self.source.entry))
    }

    /// The line for an exception thrown at load.
    fn failure(&self, ctx: &Ctx<'_>, e: &rquickjs::Error, what: &str) -> LoadFailure {
        if self.wr.deadline.fired.load(Ordering::Relaxed) {
            return self.timeout_line(what);
        }
        let (message, stack) = caught(ctx, e);
        self.line(what, &message, &stack)
    }

    /// `hooks module <file>: <what>: <message> (<file>:<line>)`, the place mapped to the
    /// source file (SPEC §6: "naming the module file and the line in its source").
    fn line(&self, what: &str, message: &str, stack: &str) -> LoadFailure {
        let place = self.place(stack);
        let place = place.map(|p| format!(" ({p})")).unwrap_or_default();
        LoadFailure(format!(
            "hooks module {}: {what}: {message}{place}",
            self.source.entry
        ))
    }

    /// The first place of the graph's modules a stack names, mapped to its source:
    /// `hooks/register.ts:12:5`.
    pub(crate) fn place(&self, stack: &str) -> Option<String> {
        for line in stack.lines() {
            for (key, module) in &self.source.modules {
                if let Some(at) = line.find(key.as_str()) {
                    let rest = line.get(at + key.len()..).unwrap_or("");
                    let nums: Vec<u32> = rest
                        .trim_start_matches(':')
                        .split(|c: char| !c.is_ascii_digit())
                        .take(2)
                        .filter_map(|s| s.parse().ok())
                        .collect();
                    let (l, c) = match nums.as_slice() {
                        [l, c, ..] => (*l, *c),
                        [l] => (*l, 1),
                        _ => continue,
                    };
                    return Some(source_place(key, module, l, c));
                }
            }
        }
        None
    }
}

fn source_place(key: &str, module: &Source, line: u32, column: u32) -> String {
    match module.lines.source_position(line, column) {
        Some((l, c)) => format!("{key}:{l}:{c}"),
        None => format!("{key}:{line}:{column} of its compiled JavaScript"),
    }
}
