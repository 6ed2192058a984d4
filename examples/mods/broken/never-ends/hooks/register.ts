// Top-level code that never ends: the engine must stop it, and refuse the module.
let turns = 0;
for (;;) {
  turns++;
}

export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'allow' }));
}
