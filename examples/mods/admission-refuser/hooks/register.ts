// admission-refuser: a person's gatekeeper. At every plugin.register it is
// asked about, it lets through the modules its `welcome` option names (calling
// next, and logging what the engine answered: Claude Code's `{ allow: true }`,
// SPEC §6) and refuses every other module, the organization's included.
//
// SPEC §3.9 [decision]: the engine raises plugin.register for a prepend,
// append or builtin module with the user tier skipped, at start and at every
// reload: this hook is never asked about them. A person's plugin may still
// refuse another person's.

interface Admission {
  name: string;
  tier: string;
  provenance?: string;
}
interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type Next = (e: Admission) => Promise<unknown>;
type On = (pattern: string, hook: ($: Dollar, e: Admission, next: Next) => Promise<unknown>) => unknown;

export function register(on: On, options: { welcome?: string }): void {
  const welcome = String(options.welcome ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  on('plugin.register', async ($, e, next) => {
    await $.ui.log(`admission-refuser judged ${e.name} (${e.tier}, ${e.provenance})`, { to: 'debug' });
    if (welcome.includes(e.name)) {
      const answer = await next(e);
      await $.ui.log(`admission-refuser: the engine answered ${JSON.stringify(answer)} for ${e.name}`, { to: 'debug' });
      return answer;
    }
    return { refuse: `admission-refuser: ${e.name} is not welcome here` };
  });
}
