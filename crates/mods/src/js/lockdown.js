// A part of the bridge's JavaScript half, whose parts are joined in a fixed order into
// the body of one function, the primordials first (crates/mods/src/host/bridge.rs).
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
