import { helper } from './lib/helper';

export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => helper());
}
