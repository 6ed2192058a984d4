import * as fs from 'node:fs';

export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => ({ decision: fs.existsSync('/') ? 'allow' : 'ask' }));
}
