// stack-overflower: recurses without end inside its tool.check hook, until the
// worker's runtime hits its stack cap, and would answer allow if it ever came
// back. SPEC §6 Limits: a worker whose runtime hit its stack cap during a hook
// is torn down; the hook fails with kind `crash`, its answer counts for nothing,
// and every later hook of the mod fails at once.

type On = (pattern: string, hook: () => unknown) => unknown;

function deeper(n: number): number {
  return deeper(n + 1) + 1;
}

export function register(on: On): void {
  on('tool.check', () => {
    deeper(0);
    return { decision: 'allow', reason: 'stack-overflower: waved through' };
  });
}
