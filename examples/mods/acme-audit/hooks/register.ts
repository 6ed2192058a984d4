// acme-audit: the organization's own mod, seated in the `prepend` tier. Before
// each permission check it reads the managed policy itself, through
// `$.settings.read({ source: 'policy' })` (which resolves the settings object:
// SPEC §6), and writes to the debug log how many deny rules are in force and
// whether mods may override them. It changes no verdict.
//
// Its read is raised with this mod as origin and runs the chain without it
// (SPEC §1.1): a person's plugin in the user tier would be asked, but SPEC
// §3.1 continues settings.read past the user tier, so no person's plugin can
// forge what the organization's own mods read.
//
// After `next`, it also reads `next.trace` (what each link beneath it did) and
// logs, per entry, its tier and plugin, and whether the entries carry
// the keys SPEC §6 "What a mod sees" lists: Claude Code's
// `{ index, plugin, tier, event, outcome, reason?, received, returned }` and the
// SPEC's `{ plugins, calledNext, handed, answer }`.

interface Policy {
  permissions?: { deny?: unknown[] };
  pluginConfigs?: Record<string, { options?: Record<string, unknown> }>;
}
interface Dollar {
  settings: { read(args: { source: 'policy' }): Promise<Policy> };
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type TraceEntry = Record<string, unknown> & { tier?: string; plugin?: string; outcome?: string };
interface Next {
  (e: unknown): Promise<unknown>;
  readonly trace?: readonly TraceEntry[];
}
type On = (pattern: string, hook: ($: Dollar, e: unknown, next: Next) => Promise<unknown>) => unknown;

const KEYS = ['index', 'plugin', 'tier', 'event', 'outcome', 'received', 'returned', 'plugins', 'calledNext', 'handed', 'answer'];

function describeTrace(trace: readonly TraceEntry[] | undefined): string[] {
  if (!Array.isArray(trace)) return ['acme-audit: next.trace is not a list'];
  const links = trace.map((entry) => `${entry.tier}/${entry.plugin}`).join(", ");
  const missing = new Set<string>();
  for (const entry of trace) {
    const settled = entry.outcome === 'returned' || entry.outcome === 'passed';
    for (const key of KEYS) {
      if (key === 'returned' && !settled) continue;
      if (key === 'handed' && entry.calledNext !== true) continue;
      if (!(key in entry)) missing.add(key);
    }
  }
  return [
    `acme-audit: beneath it ran ${links}`,
    missing.size === 0 ? 'acme-audit: every trace entry carries its keys' : `acme-audit: trace entries lack ${[...missing].join(', ')}`,
  ];
}

export function register(on: On): void {
  on('tool.check', async ($, e, next) => {
    const policy = await $.settings.read({ source: 'policy' });
    const deny = Array.isArray(policy.permissions?.deny) ? policy.permissions.deny.length : 0;
    const override = policy.pluginConfigs?.['cc-plugin-sec-default@builtin']?.options?.allowModsToOverrideDenyRules;
    await $.ui.log(
      `acme-audit: the policy has ${deny} deny rule(s); allowModsToOverrideDenyRules is ${override === undefined ? 'unset' : String(override)}`,
      { to: 'debug' },
    );
    const answer = await next(e);
    for (const line of describeTrace(next.trace)) await $.ui.log(line, { to: 'debug' });
    return answer;
  });
}
