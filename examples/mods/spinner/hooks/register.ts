// spinner: a tool.check hook that never yields. The worker meters a hook's own
// time and interrupts it past the session's hook timeout (SPEC §6 Limits): the
// link fails with kind `timeout` and the chain goes on without it.

type On = (pattern: string, hook: () => never) => unknown;

export function register(on: On): void {
  on('tool.check', () => {
    let spins = 0;
    for (;;) {
      spins = (spins + 1) % 1_000_003;
    }
  });
}
