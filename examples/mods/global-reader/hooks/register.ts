// global-reader: looks for what global-writer left (SPEC §6 Sandbox). When the
// person submits a prompt, after global-writer's hook ran above it, it logs
// one line per place: "absent" everywhere is the sandbox working.

interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type On = (pattern: string, hook: ($: Dollar, e: unknown, next: (e: unknown) => Promise<unknown>) => Promise<unknown>) => unknown;

const g = globalThis as any;

function seen(value: unknown): string {
  return value === undefined ? 'absent' : `SEEN ${JSON.stringify(value)}`;
}

export function register(on: On): void {
  on('prompt.submit', async ($, e, next) => {
    const lines = [
      `globalThis.sharedSecret ${seen(g.sharedSecret)}`,
      `globalThis.setInRegister ${seen(g.setInRegister)}`,
      `globalThis.setInHook ${seen(g.setInHook)}`,
      `Object.prototype.pwnedBy ${seen(({} as any).pwnedBy)}`,
      `Array.prototype.includes ${[].includes('anything at all' as never) ? 'SEEN replaced' : 'absent'}`,
    ];
    for (const line of lines) await $.ui.log(`global-reader: ${line}`);
    return next(e);
  });
}
