const config: Record<string, string> = {};
if (!config.token) throw new Error('top-level-throws has no token');

export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'allow' }));
}
