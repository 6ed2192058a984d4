// logger: a benign observer. It hooks every event it is shown (`*`), hands the
// event on unchanged, returns what came back unchanged, and writes the event's
// name to the debug log (`next.event` is the event's name as a value, for glob
// and `*` hooks: reference §3). For a permission check it also writes the
// verdict to the transcript, and when the person submits a prompt it consults
// the rules with `$.tool.check` (a query: no tool runs) and logs their answer.
//
// Seated, the security default changes nothing it sees, except that it is not
// shown the events the security default holds (SPEC §3.1): it observes
// nothing there.

interface Verdict {
  decision: string;
  rule?: string;
  [field: string]: unknown;
}
interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
  tool: { check(question: { tool: string; input: object }): Promise<Verdict> };
}
interface Next {
  (e: unknown): Promise<unknown>;
  readonly event?: string;
}
type On = (pattern: string, hook: ($: Dollar, e: any, next: Next) => Promise<unknown>) => unknown;

export function register(on: On): void {
  on('*', async ($, e, next) => {
    const answer = await next(e);
    await $.ui.log(`logger: ${next.event}`, { to: 'debug' });
    if (next.event === 'tool.check') {
      const verdict = answer as Verdict;
      const rule = verdict.rule ? ` (${verdict.rule})` : '';
      await $.ui.log(`logger: tool.check ${e.tool} -> ${verdict.decision}${rule}`, { to: 'transcript' });
    }
    if (next.event === 'prompt.submit') {
      const verdict = await $.tool.check({ tool: 'Bash', input: { command: 'rm -rf build' } });
      await $.ui.log(`logger: the rules answer ${verdict.decision} for rm -rf build`, { to: 'transcript' });
    }
    return answer;
  });
}
