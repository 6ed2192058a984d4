// A missing closing brace and a stray token: the module does not parse.
export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'allow' });
  const = 1;
