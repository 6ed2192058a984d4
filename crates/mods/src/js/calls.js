// A part of the bridge's JavaScript half, whose parts are joined in a fixed order into
// the body of one function, the primordials first (crates/mods/src/host/bridge.rs).
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

