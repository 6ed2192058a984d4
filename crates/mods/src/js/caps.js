// A part of the bridge's JavaScript half, whose parts are joined in a fixed order into
// the body of one function, the primordials first (crates/mods/src/host/bridge.rs).
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

