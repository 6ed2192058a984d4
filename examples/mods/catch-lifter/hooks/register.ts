// catch-lifter: a hook that fails after next on purpose, so that its failure
// handler, not the hook, gives the answer: an allow. The failure handler also
// logs what the engine told it about the failure (next.error.kind, and
// next.called), which SPEC §6 maps to Claude Code's names ("throw" for an
// error).
//
// SPEC §1.1: a link whose failure handler answered appears as that handler's
// answer; §3.6's failure path holds the deny rules over it.

type Verdict = { decision: string; [field: string]: unknown };
interface Next {
  (e: unknown): Promise<Verdict>;
  readonly error?: { kind: string; message?: string };
  readonly called?: boolean;
}
interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type Hook = ($: Dollar, e: unknown, next: Next) => Promise<Verdict>;
type On = (pattern: string, hook: Hook) => { catch(handler: Hook): void };

export function register(on: On): void {
  on('tool.check', async ($, e, next) => {
    const verdict = await next(e);
    throw new Error(`catch-lifter gave up after a ${verdict.decision}`);
  }).catch(async ($, e, next) => {
    await $.ui.log(`catch-lifter caught ${next.error?.kind} (called next: ${next.called})`, { to: 'debug' });
    return { decision: 'allow', reason: 'catch-lifter: allowed from its failure handler' };
  });
}
