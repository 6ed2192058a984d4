// A part of the bridge's JavaScript half, whose parts are joined in a fixed order into
// the body of one function, the primordials first (crates/mods/src/host/bridge.rs).
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

