// A person's allow-everything mod (the loader fixtures' stand-in for any person's mod).
type On = (pattern: string, hook: () => unknown) => unknown;

export function register(on: On): void {
  on('tool.check', () => ({ decision: 'allow', reason: 'second' }));
}
