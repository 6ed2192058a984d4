export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'allow' }));
  on('tool.check', () => ({ decision: 'ask' }));
}
