// api-edges: the edges of the mod API, each observable in a scenario.
//
// - A RegExp matcher (`{ tool: /^mcp__corp__/ }`) tests the field as a string,
//   and a nested object matcher (`{ input: { command: 'make sloppy' } }`)
//   matches a partial of the field (SPEC §1.1: "nested objects partially";
//   reference §2.2).
// - A hook that returns nothing fails (SPEC §1.7b: an answer of the wrong shape
//   is kind invalid-answer; reference §2.4): it is dropped and the chain goes
//   on without it.
// - `next()` with no event rejects (reference §3); `.catch` set twice on one
//   registration, or after register returned, throws (reference §2.3).
//
// What register and the hooks found is logged when the person submits a
// prompt: "api-edges: <finding>".

type Verdict = { decision: string; reason?: string; [field: string]: unknown };
interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type Hook = ($: Dollar, e: any, next: (e?: unknown) => Promise<any>) => unknown;
interface Registration {
  catch(handler: Hook): void;
}
type On = (pattern: string, matcher: Record<string, unknown> | Hook, hook?: Hook) => Registration;

const findings: string[] = [];

function attempt(what: string, run: () => void): void {
  try {
    run();
    findings.push(`${what} was accepted`);
  } catch {
    findings.push(`${what} throws`);
  }
}

export function register(on: On): void {
  const corp = on('tool.check', { tool: /^mcp__corp__/ }, async ($, e, next) => {
    const verdict: Verdict = await next(e);
    if (verdict.decision === 'deny') return verdict;
    return { decision: 'ask', reason: `api-edges: the RegExp matcher matched ${e.tool}` };
  });
  corp.catch(async ($, e, next) => next(e));
  attempt('a second .catch on one registration', () => corp.catch(async ($, e, next) => next(e)));

  on('tool.check', { input: { command: 'make sloppy' } }, () => undefined);

  on('prompt.submit', async ($, e, next) => {
    attempt('a .catch set after register returned', () => corp.catch(async ($2, e2, next2) => next2(e2)));
    try {
      await next();
      findings.push('next() with no event resolved');
    } catch {
      findings.push('next() with no event rejects');
    }
    for (const finding of findings.splice(0)) await $.ui.log(`api-edges: ${finding}`);
    return next(e);
  });
}
