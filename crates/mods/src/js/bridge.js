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

  // ---- caps hit whatever the JavaScript caught (SPEC §6 "Limits") -----------------
  // Every `catch` of the mod's compiled code, every rejection handler given to `then`,
  // every rejection nobody handles, and the bridge's own catches hand what they caught
  // to noteCap first. It allocates nothing (a runtime at its memory cap may have no byte
  // to give), so it can run where the error was thrown; `take` tells Rust.
  const RangeErrorProto = RangeError.prototype;
  const SyntaxErrorProto = SyntaxError.prototype;
  const InternalErrorProto = typeof InternalError === 'function' ? InternalError.prototype : null;
  const ArrayBufferCtor = ArrayBuffer;
  let capHit = '';
  function noteCap(err) {
    if (err === null) {
      // QuickJS throws null where it cannot even build the out-of-memory error: a
      // `throw null` of the mod's own leaves room to allocate, a runtime at its cap not.
      try { new ArrayBufferCtor(1 << 16); } catch (_) { capHit = 'memory'; }
      return;
    }
    if (typeof err !== 'object') return;
    const p = getPrototypeOf(err);
    if (p === RangeErrorProto) {
      if (err.message === 'Maximum call stack size exceeded') capHit = 'stack';
    } else if (p === SyntaxErrorProto) {
      // The regular-expression compiler's own stack check.
      if (err.message === 'stack overflow') capHit = 'stack';
    } else if (p === InternalErrorProto && p !== null) {
      const m = err.message;
      if (m === 'out of memory' || m === 'out of memory in regexp execution') capHit = 'memory';
    }
  }
  // Each compiled module's own slot (crates/mods/src/load/caught.rs): its catch clauses
  // store 1 (stack) or 2 (memory) there with no call; `take` reads every slot.
  const capSlots = list();
  function capTake() {
    const slot = new Uint8ArrayCtor(1);
    push(capSlots, slot);
    return slot;
  }
  function slotsHit() {
    let hit = '';
    for (let i = 0; i < capSlots.length; i++) {
      const v = capSlots[i][0];
      if (v !== 0) {
        capSlots[i][0] = 0;
        if (hit === '') hit = v === 2 ? 'memory' : 'stack';
      }
    }
    return hit;
  }
  defineProperty(P.prototype, 'then', {
    value: {
      then(ok, bad) {
        const onRejected = typeof bad === 'function'
          ? (reason) => { noteCap(reason); return bad(reason); }
          : bad;
        return apply(nativeThen, this, [ok, onRejected]);
      },
    }.then,
    writable: true,
    enumerable: false,
    configurable: true,
  });

  // Iterative, so that an event nested deeper than the JavaScript stack freezes too.
  function deepFreeze(v) {
    const todo = list();
    todo[0] = v;
    while (todo.length > 0) {
      const o = todo[todo.length - 1];
      todo.length = todo.length - 1;
      if (o !== null && typeof o === 'object' && !isFrozen(o)) {
        freeze(o);
        const ks = keys(o);
        for (let i = 0; i < ks.length; i++) todo[todo.length] = o[ks[i]];
      }
    }
    return v;
  }

  function messageOf(err) {
    try {
      if (err !== null && typeof err === 'object' && 'message' in err) {
        const name = typeof err.name === 'string' ? err.name : 'Error';
        return wellFormed(name + ': ' + Str(err.message));
      }
      return wellFormed(Str(err));
    } catch (inner) {
      noteCap(inner);
      return 'a value that cannot be printed';
    }
  }

  function stackOf(err) {
    try {
      return err !== null && typeof err === 'object' && typeof err.stack === 'string'
        ? wellFormed(err.stack) : '';
    } catch (inner) {
      noteCap(inner);
      return '';
    }
  }

  // ---- registrations: register(on, options) --------------------------------------

  const regs = list();
  let open = false;
  const regexps = list();
  const MAX_MATCHER_DEPTH = 8;

  // A matcher as data for Rust: {"$eq": v} | {"$re": i} | {"$any": [..]} |
  // {"$obj": {k: node}} (reference §2.2: scalar ===, RegExp, one-of, nested partial).
  function matcherNode(v, depth) {
    if (depth > MAX_MATCHER_DEPTH) {
      throw new RangeErrorCtor('the matcher is nested deeper than ' + MAX_MATCHER_DEPTH + ' levels');
    }
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol' || typeof v === 'bigint') {
        throw new TypeErrorCtor('a matcher value is a ' + typeof v + ', which never matches data');
      }
      return { __proto__: null, $eq: v === undefined ? null : v };
    }
    if (isRegExp(v)) {
      // A private copy, run through the intrinsic exec: the mod's own exec, lastIndex
      // or prototype changes never run inside matching.
      push(regexps, new RegExpCtor(v.source, v.flags));
      return { __proto__: null, $re: regexps.length - 1 };
    }
    if (isArray(v)) {
      const any = list();
      for (let i = 0; i < v.length; i++) push(any, matcherNode(v[i], depth + 1));
      return { __proto__: null, $any: any };
    }
    const obj = create(null);
    const ks = keys(v);
    for (let i = 0; i < ks.length; i++) {
      if (v[ks[i]] !== undefined) obj[ks[i]] = matcherNode(v[ks[i]], depth + 1);
    }
    return { __proto__: null, $obj: obj };
  }

  function on(pattern, a, b) {
    if (!open) throw new ErrorCtor('on() may only be called while register runs');
    let matcher;
    let hook;
    if (b === undefined && typeof a === 'function') {
      hook = a;
    } else {
      matcher = a;
      hook = b;
    }
    if (typeof pattern !== 'string') {
      throw new TypeErrorCtor('the event name passed to on() is not a string');
    }
    if (typeof hook !== 'function') {
      throw new TypeErrorCtor('on("' + pattern + '"): the hook is not a function');
    }
    if (matcher !== undefined && (matcher === null || typeof matcher !== 'object' || isArray(matcher))) {
      throw new TypeErrorCtor('on("' + pattern + '"): the matcher is not an object');
    }
    if (matcher === undefined) {
      for (let i = 0; i < regs.length; i++) {
        if (regs[i].pattern === pattern && regs[i].matcher === undefined) {
          throw new ErrorCtor('on("' + pattern + '") is registered twice without a matcher');
        }
      }
    }
    const reg = {
      __proto__: null,
      pattern,
      matcher,
      node: matcher === undefined ? null : matcherNode(matcher, 1),
      hook,
      catch: undefined,
    };
    push(regs, reg);
    const registration = freeze({
      catch(handler) {
        if (!open) throw new ErrorCtor('.catch may only be set while register runs');
        if (reg.catch !== undefined) throw new ErrorCtor('.catch is set twice on one registration');
        if (typeof handler !== 'function') throw new TypeErrorCtor('.catch takes a function');
        reg.catch = handler;
        return registration;
      },
    });
    return registration;
  }

  // Runs the module's register(on, options); resolves with the registrations as JSON.
  function register(fn, optionsText) {
    if (typeof fn !== 'function') {
      return reject(new TypeErrorCtor('the hooks module does not export a function named register'));
    }
    const options = deepFreeze(parse(optionsText));
    open = true;
    let r;
    try {
      r = fn(on, options);
    } catch (err) {
      noteCap(err);
      open = false;
      return reject(err);
    }
    return then(resolved(r), () => {
      open = false;
      const out = list();
      for (let i = 0; i < regs.length; i++) {
        // Records without a prototype: a `toJSON` the mod put on `Object.prototype`
        // is never called on them (JSON.stringify looks it up on each object).
        push(out, { __proto__: null, pattern: regs[i].pattern, matcher: regs[i].node, catch: regs[i].catch !== undefined });
      }
      return stringify(out);
    }, (err) => {
      noteCap(err);
      open = false;
      throw err;
    });
  }

  // ---- calls: a hook's run ------------------------------------------------------

  const calls = new Map();
  let outbox = list();
  const send = (id, kind, req, a, b) => {
    const n = outbox.length;
    outbox[n] = id;
    outbox[n + 1] = kind;
    outbox[n + 2] = req;
    outbox[n + 3] = a;
    outbox[n + 4] = b;
  };
  let current = 0;

  function originOf(call) {
    if (call.origin === undefined) call.origin = deepFreeze(parse(host.origin(call.id)));
    return call.origin;
  }

  function traceOf(call) {
    if (call.trace === undefined || call.traceAt !== call.settled) {
      call.trace = mapHas(calls, call.id) ? deepFreeze(parse(host.trace(call.id))) : freeze([]);
      call.traceAt = call.settled;
    }
    return call.trace;
  }

  const withResolvers = typeof nativeWithResolvers === 'function'
    ? () => apply(nativeWithResolvers, P, [])
    : () => {
      const r = create(null);
      r.promise = new P((res, rej) => { r.resolve = res; r.reject = rej; });
      return r;
    };

  function request(call, e, tier, argc) {
    if (!mapHas(calls, call.id)) {
      return reject(new ErrorCtor('next belongs to a hook that has answered; it runs nothing'));
    }
    if (argc === 0 || e === undefined || e === null || typeof e !== 'object' || isArray(e)) {
      return reject(new TypeErrorCtor('next() takes the event (an object)'));
    }
    let text = '';
    if (e !== call.e) {
      try {
        text = stringify(e);
      } catch (err) {
        noteCap(err);
        return reject(err);
      }
    }
    const reqId = ++call.seq;
    const r = withResolvers();
    call.pending[reqId] = r;
    send(call.id, NEXT, reqId, text, tier);
    return r.promise;
  }

  // What every `next` shares: `next.to`, `next.is` and the getters, on a prototype of
  // their own (a hook run makes one function, not six); each finds its run in a WeakMap.
  const nextCalls = new WeakMap();
  const callOf = (next) => weakGet(nextCalls, next);
  const NextProto = O.create(Function.prototype, {
    to: {
      value: function to(e, tier) {
        const call = callOf(this);
        if (call === undefined) return reject(new TypeErrorCtor('next.to must be called on next'));
        return request(call, e, typeof tier === 'string' ? tier : Str(tier), arguments.length);
      },
    },
    is: {
      value: function is(p, e) {
        const call = callOf(this);
        return call !== undefined && typeof p === 'string' && e === call.e &&
          (p === call.name || p === '*' ||
            (stringSlice(p, -2) === '.*' && startsWith(call.name, stringSlice(p, 0, -1))));
      },
    },
    origin: { get() { const c = callOf(this); return c === undefined ? undefined : originOf(c); } },
    trace: { get() { const c = callOf(this); return c === undefined ? freeze([]) : traceOf(c); } },
    event: { get() { const c = callOf(this); return c === undefined ? undefined : c.name; } },
    budget: {
      get() {
        const c = callOf(this);
        return c === undefined ? undefined : freeze({ ms: c.budget, remainingMs: c.budget });
      },
    },
    signal: { get() { return neverAborted; } },
    called: { get() { const c = callOf(this); return c !== undefined && c.failed !== undefined && c.failed.called === true; } },
    error: { get() { const c = callOf(this); return c === undefined || c.failed === undefined ? undefined : c.failed.error; } },
  });
  freeze(NextProto);

  function makeNext(call) {
    const next = function next(e) { return request(call, e, '', arguments.length); };
    setPrototypeOf(next, NextProto);
    weakSet(nextCalls, next, call);
    return freeze(next);
  }

  function done(call, v) {
    if (!mapHas(calls, call.id)) return;
    mapDelete(calls, call.id);
    if (v === undefined) {
      send(call.id, INVALID, 0, 'returned nothing (undefined)', '');
      return;
    }
    for (let i = 0; i < call.answers.length; i += 2) {
      if (call.answers[i] === v) {
        send(call.id, DONE_SAME, call.answers[i + 1], '', '');
        return;
      }
    }
    let text;
    try {
      text = stringify(v);
    } catch (err) {
      // The bridge's own walk of the answer: a cap hit there (an answer nested past the
      // stack cap, a toJSON that recurses) is a cap hit of the hook's all the same.
      noteCap(err);
      send(call.id, INVALID, 0, 'its answer is not JSON: ' + messageOf(err), '');
      return;
    }
    if (typeof text !== 'string') {
      send(call.id, INVALID, 0, 'its answer is a ' + typeof v + ', not JSON', '');
      return;
    }
    send(call.id, DONE, 0, text, '');
  }

  function failed(call, err) {
    noteCap(err);
    if (!mapHas(calls, call.id)) return;
    mapDelete(calls, call.id);
    for (let i = 0; i < call.rejections.length; i += 2) {
      if (call.rejections[i] === err) {
        send(call.id, THREW_CHAIN, call.rejections[i + 1], '', '');
        return;
      }
    }
    send(call.id, THREW, 0, messageOf(err), stackOf(err));
  }

  // Starts hook `regIndex` (its .catch when `isCatch`) on the event `eText` (JSON).
  function start(id, regIndex, isCatch, name, eText, failedText, budget) {
    const reg = regs[regIndex];
    const fn = reg === undefined ? undefined : (isCatch ? reg.catch : reg.hook);
    const call = {
      __proto__: null,
      id, name, budget, e: deepFreeze(parse(eText)), seq: 0, settled: 0,
      pending: list(), answers: list(), rejections: list(), forward: 0,
      origin: undefined, trace: undefined, traceAt: -1,
      failed: failedText === '' ? undefined : deepFreeze(parse(failedText)),
    };
    mapSet(calls, id, call);
    const next = makeNext(call);
    current = id;
    if (typeof fn !== 'function') {
      failed(call, new ErrorCtor('no such hook'));
      return;
    }
    let r;
    try {
      r = fn($, call.e, next);
    } catch (err) {
      failed(call, err);
      return;
    }
    if (r === null || (typeof r !== 'object' && typeof r !== 'function')) {
      done(call, r);
      return;
    }
    // `return next(e)`: the hook's answer is what that request settles to, taken when
    // it settles (no await of our own in between).
    for (let i = 1; i < call.pending.length; i++) {
      const p = call.pending[i];
      if (p !== undefined && p.promise === r) {
        call.forward = i;
        return;
      }
    }
    let then;
    try {
      then = r.then;
    } catch (err) {
      failed(call, err);
      return;
    }
    if (typeof then !== 'function') {
      done(call, r);
      return;
    }
    awaitHook(call, r);
  }

  async function awaitHook(call, r) {
    let v;
    try {
      v = await r;
    } catch (err) {
      failed(call, err);
      return;
    }
    done(call, v);
  }

  // Settles request reqId of call id: kind NEXT_ANSWER next's answer (JSON), OP_VALUE a
  // $ call's value (JSON, '' for undefined), REJECTED a rejection with this message.
  function settle(id, reqId, kind, text) {
    const call = mapGet(calls, id);
    if (call === undefined) return;
    const p = call.pending[reqId];
    if (p === undefined) return;
    call.pending[reqId] = undefined;
    call.settled++;
    current = id;
    if (kind === NEXT_ANSWER) {
      // Frozen like `e`: a hook rewrites an answer coming up by returning a copy.
      const v = deepFreeze(parse(text));
      push(call.answers, v);
      push(call.answers, reqId);
      p.resolve(v);
      if (call.forward === reqId) done(call, v);
    } else if (kind === OP_VALUE) {
      const v = text === '' ? undefined : parse(text);
      p.resolve(v);
      if (call.forward === reqId) done(call, v);
    } else if (kind === REJECTED) {
      const err = new ErrorCtor(text);
      push(call.rejections, err);
      push(call.rejections, reqId);
      p.reject(err);
      if (call.forward === reqId) failed(call, err);
    }
  }

  // The outbox; a cap hit since the last take, as kind CAP with a = the cap.
  function take() {
    const slot = slotsHit();
    if (capHit === '') capHit = slot;
    if (capHit !== '') {
      send(0, CAP, 0, capHit, '');
      capHit = '';
    }
    const out = outbox;
    outbox = list();
    return out;
  }

  function forget(id) {
    mapDelete(calls, id);
  }

  function testRegExp(i, s) {
    const re = regexps[i];
    if (re === undefined) return false;
    re.lastIndex = 0;
    return apply(regexpExec, re, [s]) !== null;
  }

  // ---- $: the plugin's cx ---------------------------------------------------------

  function op(name, fields) {
    const call = mapGet(calls, current);
    if (call === undefined) {
      return reject(new ErrorCtor('$.' + name + ' may only be called while a hook runs'));
    }
    if (!setHas(answered, name)) return reject(new ErrorCtor('no implementation for ' + name));
    let text;
    try {
      text = stringify(fields === undefined ? {} : fields);
    } catch (err) {
      noteCap(err);
      return reject(err);
    }
    if (typeof text !== 'string' || text[0] !== '{') {
      return reject(new TypeErrorCtor('$.' + name + ' takes an object'));
    }
    const reqId = ++call.seq;
    const r = withResolvers();
    call.pending[reqId] = r;
    send(call.id, OP, reqId, name, text);
    return r.promise;
  }

  const objectArg = (v) => v !== null && typeof v === 'object' && !isArray(v);
  const named = (v) => (objectArg(v) ? v : { name: v });
  const shapes = {
    __proto__: null,
    'env.get': (a) => named(a),
    'env.set': (a, b) => (objectArg(a) ? a : { name: a, value: b === undefined ? null : b }),
    'ui.log': (a, b) => {
      const f = objectArg(a) ? a : { text: a, to: objectArg(b) ? b.to : undefined };
      const text = f.text !== undefined ? f.text : f.line;
      return { line: typeof text === 'string' ? text : Str(text), to: f.to === 'debug' ? 'debug' : 'screen' };
    },
    'settings.read': (a) => (objectArg(a) ? a : (a === undefined ? {} : { source: a })),
    'session.append': (a) => {
      const f = objectArg(a) ? a : { text: a };
      const row = objectArg(f.message) ? f.message : f;
      const out = create(null);
      const ks = keys(row);
      for (let i = 0; i < ks.length; i++) out[ks[i]] = row[ks[i]];
      return out; // the door is the Rust half's to set: always `note`
    },
  };
  const nouns = {
    ui: ['notice', 'invalidate', 'blit', 'resolve', 'log', 'ask', 'toast', 'status', 'open', 'close',
      'panes', 'scroll', 'focus', 'copy', 'selection'],
    model: ['complete', 'fork', 'classify'],
    audio: ['play', 'speak'],
    mcp: ['call', 'connect'],
    session: ['messages', 'cwd', 'root', 'model', 'turns', 'id', 'repo', 'surfaces', 'surface',
      'usage', 'version', 'compact', 'authorize', 'send', 'append'],
    turn: ['abort'],
    prompt: ['submit', 'read', 'fill', 'suggest', 'compose'],
    tool: ['list', 'call', 'check', 'register'],
    command: ['list', 'run', 'register'],
    config: ['list', 'set'],
    agent: ['spawn', 'list', 'register'],
    fs: ['read', 'write', 'list', 'exists', 'stat', 'ancestors'],
    store: ['get', 'set', 'delete', 'keys'],
    clock: ['now', 'sleep', 'after', 'every'],
    http: ['fetch'],
    process: ['run', 'spawn'],
    settings: ['read'],
    env: ['get', 'set'],
    state: ['get', 'set'],
  };
  const $ = {};
  const nounNames = keys(nouns);
  for (let i = 0; i < nounNames.length; i++) {
    const noun = nounNames[i];
    const methods = {};
    for (let j = 0; j < nouns[noun].length; j++) {
      const name = noun + '.' + nouns[noun][j];
      const shape = shapes[name];
      methods[nouns[noun][j]] = function () {
        let fields;
        try {
          fields = shape !== undefined ? shape(arguments[0], arguments[1])
            : (arguments.length === 1 && objectArg(arguments[0]) ? arguments[0]
              : { args: arraySlice(arguments) });
        } catch (err) {
          noteCap(err);
          return reject(err);
        }
        return op(name, fields);
      };
    }
    $[noun] = freeze(methods);
  }
  $.plugin = freeze({ name: host.pluginName, root: host.pluginRoot });
  deepFreeze($);

  // ---- the globals Claude Code gives a mod (SPEC §6 "Sandbox") --------------------

  const g = globalThis;
  const define = (name, value) => defineProperty(g, name, { value, writable: true, configurable: true });
  // What the compiled `catch` clauses call (crates/mods/src/load/caught.rs); the mod
  // can neither replace it nor name it.
  defineProperty(g, host.caughtHook, { value: noteCap, writable: false, configurable: false });
  defineProperty(g, host.capTake, { value: capTake, writable: false, configurable: false });
  // The engine runs Error.prepareStackTrace on its own cap errors before any catch (it
  // could rewrite them), and discards what it or stackTraceLimit's conversion throws: a
  // mod's callback is not honoured, and stackTraceLimit takes numbers only.
  const limitDesc = O.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
  const setLimit = limitDesc !== undefined ? limitDesc.set : undefined;
  const getLimit = limitDesc !== undefined ? limitDesc.get : undefined;
  defineProperty(Error, 'prepareStackTrace', {
    get() { return undefined; },
    set(_) { /* not honoured (SPEC §6 "Limits") */ },
    enumerable: false,
    configurable: false,
  });
  defineProperty(Error, 'stackTraceLimit', {
    get() { return getLimit !== undefined ? apply(getLimit, Error, []) : 10; },
    set(v) { if (typeof v === 'number' && setLimit !== undefined) apply(setLimit, Error, [v]); },
    enumerable: false,
    configurable: false,
  });
  // A FinalizationRegistry callback runs as a job of its own, whose exception the engine
  // drops: what it throws is checked first.
  if (typeof FinalizationRegistry === 'function') {
    const FR = FinalizationRegistry;
    const Registry = class FinalizationRegistry extends FR {
      constructor(cleanup) {
        if (typeof cleanup !== 'function') {
          super(cleanup);
          return;
        }
        super(function (held) {
          try {
            return cleanup(held);
          } catch (err) {
            noteCap(err);
            throw err;
          }
        });
      }
    };
    define('FinalizationRegistry', Registry);
  }

  class AbortSignalImpl {
    constructor() { this.aborted = false; this.reason = undefined; this.onabort = null; this._l = []; }
    addEventListener(type, fn) { if (type === 'abort' && typeof fn === 'function') push(this._l, fn); }
    removeEventListener(type, fn) { this._l = this._l.filter((f) => f !== fn); }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    _abort(reason) {
      if (this.aborted) return;
      this.aborted = true;
      this.reason = reason === undefined ? new Error('This operation was aborted') : reason;
      const ev = { type: 'abort', target: this };
      if (typeof this.onabort === 'function') this.onabort(ev);
      for (const f of this._l) f(ev);
    }
    static abort(reason) { const s = new AbortSignalImpl(); s._abort(reason); return s; }
    static any(signals) {
      const s = new AbortSignalImpl();
      for (const x of signals) {
        if (x.aborted) { s._abort(x.reason); break; }
        x.addEventListener('abort', () => s._abort(x.reason));
      }
      return s;
    }
    static timeout() { throw new Error('AbortSignal.timeout: a mod has no timers'); }
  }
  class AbortControllerImpl {
    constructor() { this.signal = new AbortSignalImpl(); }
    abort(reason) { this.signal._abort(reason); }
  }
  const neverAborted = freeze(new AbortSignalImpl());
  define('AbortSignal', AbortSignalImpl);
  define('AbortController', AbortControllerImpl);

  class TextEncoderImpl {
    get encoding() { return 'utf-8'; }
    encode(s) {
      s = s === undefined ? '' : String(s);
      const out = [];
      for (let i = 0; i < s.length; i++) {
        let c = s.charCodeAt(i);
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
          const d = s.charCodeAt(i + 1);
          if (d >= 0xdc00 && d <= 0xdfff) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; } else c = 0xfffd;
        } else if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
        if (c < 0x80) push(out, c);
        else if (c < 0x800) { push(out, 0xc0 | (c >> 6)); push(out, 0x80 | (c & 63)); }
        else if (c < 0x10000) { push(out, 0xe0 | (c >> 12)); push(out, 0x80 | ((c >> 6) & 63)); push(out, 0x80 | (c & 63)); }
        else { push(out, 0xf0 | (c >> 18)); push(out, 0x80 | ((c >> 12) & 63)); push(out, 0x80 | ((c >> 6) & 63)); push(out, 0x80 | (c & 63)); }
      }
      return new Uint8Array(out);
    }
  }
  class TextDecoderImpl {
    constructor(label) {
      const l = label === undefined ? 'utf-8' : String(label).toLowerCase();
      if (l !== 'utf-8' && l !== 'utf8') throw new RangeError('TextDecoder: only utf-8 is supported');
    }
    get encoding() { return 'utf-8'; }
    decode(buf) {
      if (buf === undefined) return '';
      const b = buf instanceof Uint8Array ? buf : new Uint8Array(buf.buffer !== undefined ? buf.buffer : buf);
      let s = '';
      for (let i = 0; i < b.length;) {
        const c = b[i];
        let cp = 0xfffd;
        let n = 1;
        if (c < 0x80) cp = c;
        else if (c >= 0xc2 && c < 0xe0 && (b[i + 1] & 0xc0) === 0x80) { cp = ((c & 31) << 6) | (b[i + 1] & 63); n = 2; }
        else if (c >= 0xe0 && c < 0xf0 && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80) {
          cp = ((c & 15) << 12) | ((b[i + 1] & 63) << 6) | (b[i + 2] & 63); n = 3;
          if (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
        } else if (c >= 0xf0 && c < 0xf5 && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80 && (b[i + 3] & 0xc0) === 0x80) {
          cp = ((c & 7) << 18) | ((b[i + 1] & 63) << 12) | ((b[i + 2] & 63) << 6) | (b[i + 3] & 63); n = 4;
          if (cp < 0x10000 || cp > 0x10ffff) cp = 0xfffd;
        }
        s += String.fromCodePoint(cp);
        i += n;
      }
      return s;
    }
  }
  define('TextEncoder', TextEncoderImpl);
  define('TextDecoder', TextDecoderImpl);

  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  define('btoa', function btoa(s) {
    s = String(s);
    let out = '';
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i);
      const b = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      const c = i + 2 < s.length ? s.charCodeAt(i + 2) : 0;
      if (a > 255 || b > 255 || c > 255) throw new Error('btoa: the string has characters outside Latin-1');
      const n = (a << 16) | (b << 8) | c;
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] +
        (i + 1 < s.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < s.length ? B64[n & 63] : '=');
    }
    return out;
  });
  define('atob', function atob(s) {
    s = String(s).replace(/[\t\n\f\r ]/g, '');
    if (s.length % 4 === 0) s = s.replace(/==?$/, '');
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw new Error('atob: the string is not base64');
    let out = '';
    let bits = 0;
    let acc = 0;
    for (let i = 0; i < s.length; i++) {
      acc = (acc << 6) | B64.indexOf(s[i]);
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((acc >> bits) & 255); }
    }
    return out;
  });

  function clone(v, seen) {
    if (v === null || typeof v !== 'object') {
      if (typeof v === 'function' || typeof v === 'symbol') throw new Error('structuredClone: the value cannot be cloned');
      return v;
    }
    if (seen.has(v)) return seen.get(v);
    let out;
    if (isArray(v)) { out = []; seen.set(v, out); for (let i = 0; i < v.length; i++) out[i] = clone(v[i], seen); return out; }
    if (v instanceof Date) return new Date(v.getTime());
    if (isRegExp(v)) return new RegExp(v.source, v.flags);
    if (v instanceof Map) { out = new Map(); seen.set(v, out); v.forEach((x, k) => out.set(clone(k, seen), clone(x, seen))); return out; }
    if (v instanceof Set) { out = new Set(); seen.set(v, out); v.forEach((x) => out.add(clone(x, seen))); return out; }
    if (ArrayBuffer.isView(v)) return new v.constructor(v);
    out = {};
    seen.set(v, out);
    const ks = keys(v);
    for (let i = 0; i < ks.length; i++) out[ks[i]] = clone(v[ks[i]], seen);
    return out;
  }
  define('structuredClone', function structuredClone(v) { return clone(v, new Map()); });

  const hex = (n) => (n + 0x100).toString(16).slice(1);
  define('crypto', freeze({
    getRandomValues(a) {
      if (!ArrayBuffer.isView(a) || a instanceof Float32Array || a instanceof Float64Array) {
        throw new TypeError('crypto.getRandomValues takes an integer typed array');
      }
      if (a.byteLength > 65536) throw new RangeError('crypto.getRandomValues: more than 65536 bytes');
      const bytes = host.random(a.byteLength);
      new Uint8Array(a.buffer, a.byteOffset, a.byteLength).set(bytes);
      return a;
    },
    randomUUID() {
      const b = host.random(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      let s = '';
      for (let i = 0; i < 16; i++) s += hex(b[i]) + (i === 3 || i === 5 || i === 7 || i === 9 ? '-' : '');
      return s;
    },
  }));
  define('performance', freeze({ now: () => host.now(), timeOrigin: 0 }));

  class URLSearchParamsImpl {
    constructor(init) {
      this._p = [];
      if (init === undefined || init === null) return;
      if (typeof init === 'object') {
        const entries = isArray(init) ? init : keys(init).map((k) => [k, init[k]]);
        for (const [k, v] of entries) push(this._p, [String(k), String(v)]);
        return;
      }
      let s = String(init);
      if (s[0] === '?') s = s.slice(1);
      for (const part of s.split('&')) {
        if (part === '') continue;
        const at = part.indexOf('=');
        const dec = (x) => { try { return decodeURIComponent(x.replace(/\+/g, ' ')); } catch (err) { noteCap(err); return x; } };
        push(this._p, at < 0 ? [dec(part), ''] : [dec(part.slice(0, at)), dec(part.slice(at + 1))]);
      }
    }
    get size() { return this._p.length; }
    append(k, v) { push(this._p, [String(k), String(v)]); }
    delete(k) { this._p = this._p.filter((e) => e[0] !== String(k)); }
    get(k) { const e = this._p.find((x) => x[0] === String(k)); return e === undefined ? null : e[1]; }
    getAll(k) { return this._p.filter((x) => x[0] === String(k)).map((x) => x[1]); }
    has(k) { return this._p.some((x) => x[0] === String(k)); }
    set(k, v) {
      const i = this._p.findIndex((x) => x[0] === String(k));
      if (i < 0) { push(this._p, [String(k), String(v)]); return; }
      this._p[i][1] = String(v);
      this._p = this._p.filter((x, j) => j <= i || x[0] !== String(k));
    }
    sort() { this._p.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)); }
    forEach(fn) { for (const [k, v] of this._p) fn(v, k, this); }
    keys() { return this._p.map((x) => x[0])[Symbol.iterator](); }
    values() { return this._p.map((x) => x[1])[Symbol.iterator](); }
    entries() { return this._p.map((x) => [x[0], x[1]])[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() {
      const enc = (x) => encodeURIComponent(x).replace(/%20/g, '+');
      return this._p.map((x) => enc(x[0]) + '=' + enc(x[1])).join('&');
    }
  }
  class URLImpl {
    constructor(input, base) {
      const parts = parse(host.url(String(input), base === undefined ? '' : String(base)));
      if (parts === null) throw new TypeError('Invalid URL: ' + String(input));
      this._u = parts;
    }
    static canParse(input, base) {
      return parse(host.url(String(input), base === undefined ? '' : String(base))) !== null;
    }
    get href() { return this._u.href; }
    get origin() { return this._u.origin; }
    get protocol() { return this._u.protocol; }
    get username() { return this._u.username; }
    get password() { return this._u.password; }
    get host() { return this._u.host; }
    get hostname() { return this._u.hostname; }
    get port() { return this._u.port; }
    get pathname() { return this._u.pathname; }
    get search() { return this._u.search; }
    get hash() { return this._u.hash; }
    get searchParams() { return new URLSearchParamsImpl(this._u.search); }
    toString() { return this._u.href; }
    toJSON() { return this._u.href; }
  }
  define('URL', URLImpl);
  define('URLSearchParams', URLSearchParamsImpl);

  // JSX in the classic runtime (SPEC §6): h(type, props, ...children), Fragment.
  const Fragment = freeze({ type: 'Fragment' });
  define('Fragment', Fragment);
  define('h', function h(type, props) {
    const children = Array.prototype.slice.call(arguments, 2);
    return { type, props: props === null || props === undefined ? {} : props, children };
  });

  // ---- no string compilation (SPEC §6 "Sandbox") ----------------------------------

  const refuse = (what) => function () {
    throw new EvalError(what + ' cannot compile code in a mod (SPEC §6: no string compilation)');
  };
  defineProperty(g, 'eval', { value: refuse('eval'), writable: false, configurable: false });
  const ctors = [
    [Function, 'Function'],
    [getPrototypeOf(async function () {}).constructor, 'AsyncFunction'],
    [getPrototypeOf(function* () {}).constructor, 'GeneratorFunction'],
    [getPrototypeOf(async function* () {}).constructor, 'AsyncGeneratorFunction'],
  ];
  for (let i = 0; i < ctors.length; i++) {
    const [F, what] = ctors[i];
    const fake = refuse(what);
    defineProperty(fake, 'prototype', { value: F.prototype, writable: false, configurable: false });
    defineProperty(F.prototype, 'constructor', { value: fake, writable: false, configurable: false });
    if (what === 'Function') defineProperty(g, 'Function', { value: fake, writable: false, configurable: false });
  }
  for (const name of ['WebAssembly', 'setTimeout', 'setInterval', 'setImmediate', 'clearTimeout',
    'clearInterval', 'queueMicrotask', 'require', 'process', 'Deno', 'Bun', 'fetch', 'XMLHttpRequest',
    'WebSocket', 'window', 'document', 'navigator', 'print', 'console', 'scriptArgs', 'std', 'os',
    '__loadScript']) {
    try { delete g[name]; } catch (_) { /* not there */ }
  }

  // ---- the Rust half's handle ----------------------------------------------------
  // Kept on the global object behind a getter that answers the bridge only while the
  // Rust half has unsealed it for the one read it makes (`host.unsealed` answers true
  // once): the mod reads `undefined` there, can neither replace nor delete the getter,
  // and so can never call `settle`, `take` or `start` itself.
  const bridge = freeze({ __proto__: null, register, start, settle, take, forget, testRegExp });
  const unsealed = host.unsealed;
  defineProperty(g, host.bridgeGlobal, {
    get: function () { return unsealed() === true ? bridge : undefined; },
    enumerable: false,
    configurable: false,
  });
  return bridge;
})
