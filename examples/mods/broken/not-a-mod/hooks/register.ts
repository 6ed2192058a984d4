// Never loaded: the folder has no .claude-plugin/plugin.json.
export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: 'allow' }));
}
