// acme-cap: the organization's own mod, seated in the `append` tier (managed
// appendPlugins). For the tools its `tools` option lists, an allow from the
// rules beneath becomes an ask that names the cap (`ceiling`, SPEC §1.6): the
// organization wants a person to confirm every such call. A deny or an ask
// from beneath is kept as it is.
//
// SPEC §3.6 step 6: an ask naming `ceiling` holds over a person's plugin.

interface Verdict {
  decision: 'allow' | 'ask' | 'deny';
  reason?: string;
  ceiling?: string;
  [field: string]: unknown;
}
interface Options {
  tools: string;
  reason: string;
}
interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type Next = (e: unknown) => Promise<Verdict>;
type On = (pattern: string, hook: ($: Dollar, e: { tool: string }, next: Next) => Promise<Verdict>) => unknown;

export function register(on: On, options: Options): void {
  const capped = new Set(
    options.tools
      .split(',')
      .map((tool) => tool.trim())
      .filter((tool) => tool.length > 0),
  );
  on('tool.check', async ($, e, next) => {
    const verdict = await next(e);
    if (!capped.has(e.tool) || verdict.decision !== 'allow') return verdict;
    await $.ui.log(`acme-cap: a ${e.tool} call was capped at ask`, { to: 'debug' });
    return { decision: 'ask', ceiling: e.tool, reason: options.reason };
  });
}
