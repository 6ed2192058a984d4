// sandbox-probe: what can a mod reach? SPEC §6 Sandbox: a module sees the
// ECMAScript built-ins, the globals Claude Code gives a mod, and `$`; nothing
// else. No way to compile a string: eval and the Function, AsyncFunction,
// GeneratorFunction and AsyncGeneratorFunction constructors all throw. No
// timers, no Node, no DOM, no WebAssembly.
//
// When the person submits a prompt, the probe logs one line per check, to the
// transcript: "sandbox-probe: <check> <result>". A line that says ALLOWED,
// PRESENT, MISSING or BROKEN is a hole (or a missing global).
//
// (A dynamic import() is refused at load, so it lives in
// examples/mods/broken/dynamic-import.)

interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
  fs: { read(args: { path: string }): Promise<unknown> };
  process: { run(args: { argv: string[] }): Promise<unknown> };
  http: { fetch(args: { url: string }): Promise<unknown> };
}
type On = (pattern: string, hook: ($: Dollar, e: any, next: (e: unknown) => Promise<unknown>) => Promise<unknown>) => unknown;

const g = globalThis as any;

/** "blocked" when compiling a string throws, "ALLOWED" when it ran. */
function compiles(run: () => unknown): string {
  try {
    run();
    return 'ALLOWED';
  } catch {
    return 'blocked';
  }
}

const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const GeneratorFunction = Object.getPrototypeOf(function* () {}).constructor;
const AsyncGeneratorFunction = Object.getPrototypeOf(async function* () {}).constructor;

function stringCompilers(): Array<[string, string]> {
  return [
    ['eval', compiles(() => g.eval('1 + 1'))],
    ['indirect eval', compiles(() => (0, g.eval)('1 + 1'))],
    ['Function', compiles(() => Function('return this')())],
    ['new Function', compiles(() => new Function('a', 'return a')(1))],
    ['Function through a constructor chain', compiles(() => ({}).constructor.constructor('return this')())],
    ['AsyncFunction', compiles(() => AsyncFunction('return 1'))],
    ['GeneratorFunction', compiles(() => GeneratorFunction('yield 1'))],
    ['AsyncGeneratorFunction', compiles(() => AsyncGeneratorFunction('yield 1'))],
  ];
}

// Measured at load time too: the module's top level is no less sandboxed.
const atLoad = stringCompilers().every(([, result]) => result === 'blocked') ? 'blocked' : 'ALLOWED';

const ABSENT = [
  'setTimeout',
  'setInterval',
  'setImmediate',
  'clearTimeout',
  'require',
  'process',
  'Buffer',
  'module',
  'fetch',
  'XMLHttpRequest',
  'WebSocket',
  'WebAssembly',
  'Deno',
  'Bun',
  'window',
  'document',
  'navigator',
  'importScripts',
  'console',
];

function works(check: () => boolean): string {
  try {
    return check() ? 'works' : 'BROKEN';
  } catch {
    return 'MISSING';
  }
}

function givenGlobals(): Array<[string, string]> {
  return [
    ['URL', works(() => new g.URL('https://a.example/x?y=1').searchParams.get('y') === '1')],
    ['URLSearchParams', works(() => new g.URLSearchParams('a=1&b=2').get('b') === '2')],
    ['TextEncoder and TextDecoder', works(() => new g.TextDecoder().decode(new g.TextEncoder().encode('é')) === 'é')],
    ['structuredClone', works(() => g.structuredClone({ a: [1] }).a[0] === 1)],
    ['AbortController and AbortSignal', works(() => new g.AbortController().signal instanceof g.AbortSignal)],
    ['atob and btoa', works(() => g.atob(g.btoa('hi')) === 'hi')],
    ['crypto.randomUUID', works(() => /^[0-9a-f-]{36}$/.test(g.crypto.randomUUID()))],
    ['crypto.getRandomValues', works(() => g.crypto.getRandomValues(new Uint8Array(4)).length === 4)],
    ['performance.now', works(() => typeof g.performance.now() === 'number')],
  ];
}

function frozen(e: any): Array<[string, string]> {
  const assign = (target: any, key: string): string => {
    try {
      target[key] = 'changed';
      return target[key] === 'changed' ? 'ALLOWED' : 'blocked';
    } catch {
      return 'blocked';
    }
  };
  return [
    ['assigning to e', assign(e, 'prompt')],
    ['assigning inside e', e.extra && typeof e.extra === 'object' ? assign(e.extra, 'nested') : 'blocked'],
  ];
}

async function rejects(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
    return 'ALLOWED';
  } catch (err) {
    return `rejected (${(err as Error).message})`;
  }
}

export function register(on: On): void {
  on('prompt.submit', async ($, e, next) => {
    const lines: string[] = [];
    for (const [name, result] of stringCompilers()) lines.push(`${name} ${result}`);
    lines.push(`string compilers at load ${atLoad}`);
    for (const name of ABSENT) lines.push(`${name} ${name in g ? 'PRESENT' : 'absent'}`);
    for (const [name, result] of givenGlobals()) lines.push(`${name} ${result}`);
    for (const [name, result] of frozen(e)) lines.push(`${name} ${result}`);
    lines.push(`$.fs.read ${await rejects(() => $.fs.read({ path: '/etc/passwd' }))}`);
    lines.push(`$.process.run ${await rejects(() => $.process.run({ argv: ['id'] }))}`);
    lines.push(`$.http.fetch ${await rejects(() => $.http.fetch({ url: 'https://example.com/' }))}`);
    for (const line of lines) await $.ui.log(`sandbox-probe: ${line}`);
    return next(e);
  });
}
