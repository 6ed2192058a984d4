// guard: the organization's own policy mod, deployed in a directory marketplace the
// managed settings name. It denies deploys from a laptop; everything else goes on.
type Verdict = { decision: 'allow' | 'ask' | 'deny'; reason?: string };
type Check = { tool: string; input: { command?: string } };
type Next = (e: Check) => Promise<Verdict>;
type On = (pattern: string, hook: ($: unknown, e: Check, next: Next) => Promise<Verdict> | Verdict) => unknown;

export function register(on: On): void {
  on('tool.check', (_$, e, next) => {
    if (e.tool === 'Bash' && (e.input.command ?? '').startsWith('deploy')) {
      return { decision: 'deny', reason: 'corp guard: deploys run from CI only' };
    }
    return next(e);
  });
}
