// A part of the bridge's JavaScript half, whose parts are joined in a fixed order into
// the body of one function, the primordials first (crates/mods/src/host/bridge.rs).
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

