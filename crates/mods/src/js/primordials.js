// The bridge of SPEC §6, the JavaScript half: evaluated once in each mod's fresh
// context, before any of the mod's code, as a script whose value is a function of the
// host's Rust functions, the `$` calls the session answers, and the wire's kinds. It
// keeps what the mod must not reach (the outbox, the calls, the registrations) in this
// closure, locks string compilation away, adds the globals Claude Code gives a mod, and
// answers the Rust half through the object it returns.
//
// Messages to Rust are runs of five values in `outbox` (checked one by one in Rust,
// `read_outbox`: nothing here is trusted there): callId, kind, reqId, a, b. The kinds,
// and those of `settle`, are the Rust half's (crates/mods/src/wire.rs, `SENT` and
// `SETTLED`, where each is described): handed in as `wire`, never written here as numbers.
//
// It is written in parts by concern, joined in this order into the one function
// (crates/mods/src/host/bridge.rs, `BRIDGE_JS`): primordials.js (this part, first, so
// that every intrinsic is captured before anything else runs), caps.js, register.js,
// calls.js, dollar.js, globals.js, and lockdown.js (the handle, last, and the end).
(function (host, answeredOps, wire) {
  'use strict';
  // ---- primordials (SPEC §6 "Sandbox": nothing the JavaScript side says is trusted) --
  // Every intrinsic the bridge calls after the mod's code has run is captured here,
  // before any of it runs, as Node's internals keep their "primordials": a mod that
  // replaces `Set.prototype.has`, `Map.prototype.get`, `Promise.prototype.then`,
  // `Function.prototype.call` or `JSON.parse`, or defines a setter on
  // `Array.prototype[0]` or `Object.prototype.x`, changes nothing the bridge does. The
  // bridge's own arrays and records have no prototype (an index or key written to them
  // never meets an accessor the mod defined), and methods are called through
  // `Reflect.apply` on the captured functions, never looked up at call time. Every
  // JavaScript the engine adds follows the same rule; the Rust half checks every
  // message all the same (crates/mods/src/wire.rs, `read_outbox`).
  const O = Object;
  const apply = Reflect.apply;
  // `uncurry(f)(self, a, b)` is `f.call(self, a, b)` through the captured `call`,
  // bound once: no lookup and no arguments array at call time (Node's uncurryThis).
  const fnCall = Function.prototype.call;
  const fnBind = Function.prototype.bind;
  const uncurry = (f) => apply(fnBind, fnCall, [f]);
  const freeze = O.freeze;
  const keys = O.keys;
  const isFrozen = O.isFrozen;
  const defineProperty = O.defineProperty;
  const getPrototypeOf = O.getPrototypeOf;
  const setPrototypeOf = O.setPrototypeOf;
  const create = O.create;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const P = Promise;
  const promiseResolve = P.resolve;
  const promiseReject = P.reject;
  const nativeThen = P.prototype.then;
  const reject = (err) => apply(promiseReject, P, [err]);
  const resolved = (v) => apply(promiseResolve, P, [v]);
  const then = (p, ok, bad) => apply(nativeThen, p, [ok, bad]);
  const isArray = Array.isArray;
  const arraySlice = uncurry(Array.prototype.slice);
  const stringSlice = uncurry(String.prototype.slice);
  const startsWith = uncurry(String.prototype.startsWith);
  // What the bridge sends of a mod's own text (a thrown message, a stack) is sent
  // well-formed: a lone surrogate is no Unicode, and the Rust half reads only Unicode.
  const isWellFormed = typeof String.prototype.isWellFormed === 'function'
    ? uncurry(String.prototype.isWellFormed) : () => true;
  const toWellFormed = typeof String.prototype.toWellFormed === 'function'
    ? uncurry(String.prototype.toWellFormed) : (s) => s;
  const wellFormed = (s) => (isWellFormed(s) ? s : toWellFormed(s));
  const Str = String;
  const ErrorCtor = Error;
  const TypeErrorCtor = TypeError;
  const RangeErrorCtor = RangeError;
  const Uint8ArrayCtor = Uint8Array;
  const mapGet = uncurry(Map.prototype.get);
  const mapSet = uncurry(Map.prototype.set);
  const mapHas = uncurry(Map.prototype.has);
  const mapDelete = uncurry(Map.prototype.delete);
  const setHas = uncurry(Set.prototype.has);
  const weakGet = uncurry(WeakMap.prototype.get);
  const weakSet = uncurry(WeakMap.prototype.set);
  const RegExpProto = RegExp.prototype;
  const regexpExec = RegExpProto.exec;
  const RegExpCtor = RegExp;
  const nativeWithResolvers = P.withResolvers;
  // A list of the bridge's own: no prototype, so `a[i] = v` defines an own element.
  const list = () => setPrototypeOf([], null);
  const push = (a, v) => { a[a.length] = v; };
  const isRegExp = (v) => {
    try { apply(regexpExec, v, ['']); return true; } catch (err) { noteCap(err); return false; }
  };
  const answered = new Set(answeredOps);
  // The wire's kinds, read once off the records the Rust half made (frozen, without
  // prototypes) into constants of the bridge's own.
  const { DONE, DONE_SAME, THREW, THREW_CHAIN, INVALID, NEXT, OP, CAP } = wire.sent;
  const { NEXT_ANSWER, OP_VALUE, REJECTED } = wire.settle;

