// A part of the bridge's JavaScript half, whose parts are joined in a fixed order into
// the body of one function, the primordials first (crates/mods/src/host/bridge.rs).
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

