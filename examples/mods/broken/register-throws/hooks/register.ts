// register throws on line 6: the refusal names this file and that line.
type On = (p: string, h: () => unknown) => unknown;

export function register(on: On): void {
  on('tool.check', () => ({ decision: 'allow' }));
  throw new Error('register-throws refuses to start');
}
