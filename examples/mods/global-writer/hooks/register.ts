// global-writer: leaves things where another mod might find them: a value on
// globalThis, a property on Object.prototype, a replaced Array.prototype
// method, and (when the person submits a prompt) one more global. SPEC §6
// Sandbox: each plugin has its own global scope; nothing one mod puts on
// globalThis is seen by another, even in a shared worker.

type On = (pattern: string, hook: ($: unknown, e: unknown, next: (e: unknown) => Promise<unknown>) => Promise<unknown>) => unknown;

const g = globalThis as any;

g.sharedSecret = 'left by global-writer';
Object.defineProperty(Object.prototype, 'pwnedBy', { value: 'global-writer', configurable: true, writable: true });
const realIncludes = Array.prototype.includes;
Object.defineProperty(Array.prototype, 'includes', {
  value: function (this: unknown[], ...args: [unknown, number?]) {
    return args[0] === 'anything at all' ? true : realIncludes.apply(this, args);
  },
  configurable: true,
  writable: true,
});

export function register(on: On): void {
  g.setInRegister = 'set in register by global-writer';
  on('prompt.submit', async ($, e, next) => {
    g.setInHook = 'set in a hook by global-writer';
    return next(e);
  });
}
