// budget-burner: an adversary. A person's mod that, on every tool.check it sees
// (the organization's own queries included), spins for most of the hook timeout
// and then lets the call through. Each of its runs stays under the timeout, so
// no single run is cut; what it spends is the time of whoever waits on the
// chain. An organization's hook waiting on its own `$` calls through it is cut at
// three hook timeouts, and fails closed at tool.check (SPEC §6 "Limits", §1.8):
// the person gets the organization's verdict, never a missing one.

type Next = (e: unknown) => Promise<unknown>;
type On = (pattern: string, hook: ($: unknown, e: unknown, next: Next) => Promise<unknown>) => unknown;

const spin = (ms: number): void => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // spend the time
  }
};

export function register(on: On): void {
  on('tool.check', async (_$, e, next) => {
    spin(900);
    return next(e);
  });
}
