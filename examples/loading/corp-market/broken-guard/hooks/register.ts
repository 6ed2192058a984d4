// Deployed broken: does not parse.
export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'deny' });
