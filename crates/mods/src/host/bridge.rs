//! The bridge's JavaScript half in a mod's context (SPEC §6 "Sandbox"): evaluated first,
//! before any of the mod's code, with the host functions it may call, the `$` calls the
//! session answers and the wire's kinds ([`crate::wire`]); and the Rust half's handle on
//! it, which the JavaScript half keeps on the global object behind a getter that answers
//! only while the Rust half has unsealed it for its own read.

use super::{caught, Host};
use crate::translate;
use crate::wire::{self, ANSWERED_OPS};
use rquickjs::{Ctx, Function, Object};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// The global the bridge's JavaScript half is kept under: a getter that answers it only
/// while the Rust half has unsealed it for its own read ([`Host::bridge`]); a mod reads
/// `undefined` there, and can neither replace nor delete it.
const BRIDGE_GLOBAL: &str = "__secDefaultBridge";

/// The bridge's JavaScript half: its parts by concern, joined in this fixed order into one
/// function expression. The primordials come first: every intrinsic the bridge calls is
/// captured before any other line runs (SPEC §6 "Sandbox"). The lockdown comes last:
/// string compilation locked away, the Rust half's handle defined on the global object,
/// and the function's end.
pub(crate) const BRIDGE_JS: &str = concat!(
    include_str!("../js/primordials.js"),
    include_str!("../js/caps.js"),
    include_str!("../js/register.js"),
    include_str!("../js/calls.js"),
    include_str!("../js/dollar.js"),
    include_str!("../js/globals.js"),
    include_str!("../js/lockdown.js"),
);

/// The bridge's JavaScript half could not be evaluated or given its host functions: the
/// mod host did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct InstallError {
    /// What the engine threw.
    pub(crate) message: String,
}

impl Host {
    /// Evaluates the bridge's JavaScript half with the host functions.
    pub(super) fn install(&self, plugin_name: &str) -> Result<(), InstallError> {
        let calls_o = Arc::clone(&self.calls);
        let calls_t = Arc::clone(&self.calls);
        let epoch = self.wr.deadline.epoch;
        let root = self.source.root.to_string_lossy().into_owned();
        let extra: Vec<String> = ANSWERED_OPS
            .iter()
            .map(|s| (*s).to_owned())
            .chain(self.config.extra_ops.iter().cloned())
            .collect();
        self.ctx.with(|ctx| -> Result<(), InstallError> {
            let js = |e: rquickjs::Error| InstallError {
                message: caught(&ctx, &e).0,
            };
            let make: Function = ctx.eval(BRIDGE_JS).map_err(js)?;
            let host = Object::new(ctx.clone()).map_err(js)?;
            host.set(
                "now",
                Function::new(ctx.clone(), move || epoch.elapsed().as_secs_f64() * 1000.0)
                    .map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "random",
                Function::new(ctx.clone(), |n: usize| random_bytes(n.min(65536))).map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "url",
                Function::new(ctx.clone(), |input: String, base: String| {
                    translate::url_parts(&input, &base)
                })
                .map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "origin",
                Function::new(ctx.clone(), move |id: u32| {
                    let calls = calls_o.lock();
                    calls.nexts.get(&id).map_or_else(
                        || "null".to_owned(),
                        |(n, _)| translate::origin_to_mod(n.origin()),
                    )
                })
                .map_err(js)?,
            )
            .map_err(js)?;
            host.set(
                "trace",
                Function::new(ctx.clone(), move |id: u32| {
                    let next = calls_t.lock().nexts.get(&id).cloned();
                    next.map_or_else(
                        || "[]".to_owned(),
                        |(n, event)| translate::trace_to_mod(&event, &n.trace()),
                    )
                })
                .map_err(js)?,
            )
            .map_err(js)?;
            host.set("caughtHook", crate::load::caught::CAUGHT_HOOK)
                .map_err(js)?;
            host.set("capTake", crate::load::caught::CAP_TAKE)
                .map_err(js)?;
            host.set("pluginName", plugin_name).map_err(js)?;
            host.set("pluginRoot", root).map_err(js)?;
            let unseal = Arc::clone(&self.unseal);
            host.set(
                "unsealed",
                Function::new(ctx.clone(), move || unseal.swap(false, Ordering::AcqRel))
                    .map_err(js)?,
            )
            .map_err(js)?;
            host.set("bridgeGlobal", BRIDGE_GLOBAL).map_err(js)?;
            let kinds = wire::kinds_for_js(&ctx).map_err(js)?;
            let _: Object = make.call((host, extra, kinds)).map_err(js)?;
            Ok(())
        })
    }

    /// The bridge's JavaScript half, read off the global object: unsealed for this one
    /// read (the mod, reading the same global, gets `undefined`).
    pub(super) fn bridge<'js>(&self, ctx: &Ctx<'js>) -> rquickjs::Result<Object<'js>> {
        self.unseal.store(true, Ordering::Release);
        let bridge = ctx.globals().get(BRIDGE_GLOBAL);
        self.unseal.store(false, Ordering::Release);
        bridge
    }

    /// Whether the session answers a `$` call of this name (SPEC §6 `$`), or the
    /// embedding program declared it.
    pub(crate) fn answers(&self, name: &str) -> bool {
        ANSWERED_OPS.contains(&name) || self.config.extra_ops.iter().any(|o| o == name)
    }
}

/// `n` random bytes from the operating system (`crypto.getRandomValues`); zeros if it
/// has none to give (never a panic).
fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    let _ = getrandom::fill(&mut buf);
    buf
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::BRIDGE_JS;
    use crate::wire::{kinds_for_js, SENT, SETTLED};
    use rquickjs::Function;

    /// `part.NAME` for every kind of `table`, sorted.
    fn named(part: &str, table: &[(&str, u32)]) -> Vec<String> {
        let mut names: Vec<String> = table.iter().map(|(n, _)| format!("{part}.{n}")).collect();
        names.sort();
        names
    }

    /// The agreement of the two halves: [`BRIDGE_JS`], run as the host runs it, reads every
    /// kind it uses off the table the Rust half hands it, and reads exactly the kinds
    /// [`SENT`] and [`SETTLED`] name (a kind the JavaScript half named that the Rust half
    /// does not, or one the Rust half added that the JavaScript half never takes, fails).
    #[test]
    fn the_bridge_reads_exactly_the_kinds_the_wire_names() {
        let rt = rquickjs::Runtime::new().unwrap();
        let ctx = rquickjs::Context::full(&rt).unwrap();
        ctx.with(|ctx| {
            let make: Function = ctx.eval(BRIDGE_JS).unwrap();
            let spy: Function = ctx
                .eval(
                    r"(make, wire) => {
                        const read = [];
                        const spy = (part) => new Proxy(wire[part], {
                          get(target, key) { read.push(part + '.' + String(key)); return target[key]; },
                        });
                        const host = {
                          caughtHook: '__testCaught', capTake: '__testCapTake', unsealed: () => false,
                          bridgeGlobal: '__testBridge', pluginName: 'test', pluginRoot: '/',
                        };
                        make(host, [], { sent: spy('sent'), settle: spy('settle') });
                        return read.join(' ');
                      }",
                )
                .unwrap();
            let read: String = spy.call((make, kinds_for_js(&ctx).unwrap())).unwrap();
            let mut read: Vec<String> = read.split(' ').map(str::to_owned).collect();
            read.sort();
            let mut want = named("sent", SENT);
            want.extend(named("settle", SETTLED));
            want.sort();
            assert_eq!(read, want);
        });
    }

    /// Every message the bridge sends names its kind, and every kind [`SENT`] names is
    /// sent somewhere; `settle` compares its kind with [`SETTLED`]'s names alone.
    #[test]
    fn the_bridge_writes_no_kind_as_a_number() {
        let js = BRIDGE_JS;
        let mut sent: Vec<&str> = js
            .match_indices("send(")
            .filter_map(|(at, _)| js.get(at + "send(".len()..))
            .filter_map(|rest| rest.split(',').nth(1))
            .map(str::trim)
            .collect();
        assert!(sent.len() >= SENT.len(), "{sent:?}");
        for kind in &sent {
            assert!(SENT.iter().any(|(n, _)| n == kind), "send(_, {kind}, ...)");
        }
        sent.sort_unstable();
        sent.dedup();
        assert_eq!(sent.len(), SENT.len(), "{sent:?}");
        let compared: Vec<&str> = js
            .match_indices("kind === ")
            .filter_map(|(at, _)| js.get(at + "kind === ".len()..))
            .filter_map(|rest| rest.split(')').next())
            .collect();
        let mut names: Vec<&str> = SETTLED.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        let mut sorted = compared.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, names, "{compared:?}");
    }
}
