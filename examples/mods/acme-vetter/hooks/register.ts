// acme-vetter: the organization's own mod, seated in the `prepend` tier. Before a
// Bash call goes on down the chain, it asks the rules (`$.tool.check`, a query:
// no tool runs) whether each of a few paths the organization watches may be read,
// and denies the call when one may not. Its wait on those queries is the
// organization's budget: a person's mod that slows every query down cannot make
// the organization's answer go missing (SPEC §6 "Limits", §1.8).

interface Verdict {
  decision: 'allow' | 'ask' | 'deny';
  reason?: string;
  [field: string]: unknown;
}
interface Dollar {
  tool: { check(call: { tool: string; input: Record<string, unknown> }): Promise<Verdict> };
}
type Next = (e: unknown) => Promise<Verdict>;
type On = (
  pattern: string,
  matcher: Record<string, unknown>,
  hook: ($: Dollar, e: { tool: string }, next: Next) => Promise<Verdict>,
) => unknown;

const WATCHED = ['.env', 'secrets/a', 'secrets/b', 'secrets/c', 'id_rsa', 'id_ed25519', '.npmrc', '.netrc'];

export function register(on: On): void {
  on('tool.check', { tool: 'Bash' }, async ($, e, next) => {
    for (const path of WATCHED) {
      const v = await $.tool.check({ tool: 'Read', input: { file_path: path } });
      if (v.decision === 'deny') {
        return { decision: 'deny', reason: `acme-vetter: ${path} is off limits` };
      }
    }
    return next(e);
  });
}
