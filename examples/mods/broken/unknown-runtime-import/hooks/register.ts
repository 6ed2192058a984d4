import { definitelyNotProvided } from 'claude-code';

export function register(on: (p: string, h: () => unknown) => unknown): void {
  on('tool.check', () => definitelyNotProvided());
}
