// acme-overflow: the organization's own policy mod, with a bug: its tool.check
// hook recurses without end on a Bash call and crashes its worker. SPEC §6
// Limits and §1.8: an organization's mod that crashes fails closed: its
// tool.check link stands as the unchecked deny that names it. Other calls pass
// through it untouched.

interface Event {
  tool: string;
  [field: string]: unknown;
}
type Next = (e: Event) => Promise<unknown>;
type On = (pattern: string, hook: ($: unknown, e: Event, next: Next) => Promise<unknown>) => unknown;

function walk(depth: number): number {
  return walk(depth + 1) + depth;
}

export function register(on: On): void {
  on('tool.check', async (_$, e, next) => {
    if (e.tool === 'Bash') walk(0);
    return next(e);
  });
}
