// Exports setup, not register: the loader reads nothing else (reference §1.1).
export function setup(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'allow' }));
}
