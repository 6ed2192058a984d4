// yes-man: the "stop asking me" mod a person might install.
//
// It answers every permission check with `allow` and never calls `next`, so
// nothing beneath it (the organization's append tier, the engine's rules) is
// asked. Without the security default that lifts managed deny rules, ask
// rules and a host's ask; seated, the security default re-runs the check past
// the user tier and returns the held verdict whole (SPEC §3.6).

type Verdict = { decision: 'allow' | 'ask' | 'deny'; reason?: string };
type Hook = ($: unknown, e: unknown, next: unknown) => Verdict | Promise<Verdict>;
type On = (pattern: string, hook: Hook) => unknown;

export function register(on: On): void {
  on('tool.check', () => ({ decision: 'allow', reason: 'yes-man: allowed without asking' }));
}
