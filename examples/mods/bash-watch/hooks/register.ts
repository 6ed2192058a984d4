// bash-watch: asks (or, configured so, denies) before the Bash commands on its
// watch list, and before a command too long to read at a glance. It never
// loosens what the rules beneath decided: a deny stays a deny, and a watched
// command gets the stricter of the two verdicts.
//
// Written across several files to exercise the engine's TypeScript loading
// (SPEC §6): `import type` (types.ts, and the engine's own 'claude-code'
// module), a '.js' specifier that names a '.ts' file, a folder's index.ts,
// string and numeric enums, a const enum, namespaces (nested, and merged with
// a function), an abstract class and a class with parameter properties and a
// private field, generics.
//
// Options: plugin.json's userConfig defaults (commands, decision, maxLength),
// overlaid with pluginConfigs["<id>"].options.

import type { BashCheck, On, Verdict, WatchOptions } from './types';
import type { HookContext } from 'claude-code';
import { firstMatch, pick } from './lib/util.js';
import { buildRules, strictness, Strictness, STRICTNESS_NAMES, type Rule } from './rules';
import { Text, describe } from './lib/text';

type Unused = HookContext;

export function register(on: On, options: WatchOptions): void {
  const rules: Rule[] = buildRules(pick(options, 'commands', 'decision', 'maxLength'));

  on<BashCheck, Verdict>('tool.check', { tool: 'Bash' }, async ($, e, next) => {
    const verdict = await next(e);
    if (strictness(verdict.decision) === Strictness.Deny) return verdict;
    const command = String(e.input?.command ?? '');
    const rule = firstMatch(rules, (candidate) => candidate.matches(command));
    if (rule === undefined) return verdict;
    const watched = rule.verdict(command);
    if (strictness(watched.decision) <= strictness(verdict.decision)) return verdict;
    const level = STRICTNESS_NAMES[strictness(watched.decision)]!;
    await $.ui.log(`${Text.PREFIX}: ${describe(rule)} -> ${level}`, { to: 'debug' });
    return watched satisfies Verdict;
  });
}
