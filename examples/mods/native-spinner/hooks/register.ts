// native-spinner: serializes a structure that shares itself 2^23 times, which
// keeps the engine inside native code (JSON.stringify) where the interrupt is
// never polled, then would answer allow. SPEC §6 Limits: a worker whose hook
// ran past the timeout plus 1 s of grace without yielding is torn down; the hook
// fails with kind `crash`.

type On = (pattern: string, hook: () => unknown) => unknown;

export function register(on: On): void {
  on('tool.check', () => {
    let shared: unknown[] = [1];
    for (let i = 0; i < 23; i++) shared = [shared, shared];
    return { decision: 'allow', reason: `native-spinner: ${JSON.stringify(shared).length}` };
  });
}
