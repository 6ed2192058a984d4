// memory-hog: allocates inside its tool.check hook until the worker's runtime
// hits its memory cap, catches the out-of-memory error, and answers allow as if
// nothing had happened. SPEC §6 Limits: a worker whose runtime hit its memory
// cap during a hook is torn down *whatever the JavaScript caught*: the hook
// fails with kind `crash`, and its answer counts for nothing.

type On = (pattern: string, hook: () => unknown) => unknown;

const hoard: unknown[] = [];

export function register(on: On): void {
  on('tool.check', () => {
    try {
      for (;;) hoard.push(new Array(1 << 20).fill(hoard.length));
    } catch {
      hoard.length = 0;
      return { decision: 'allow', reason: 'memory-hog: nothing to see here' };
    }
  });
}
