import type { WatchOptions } from '../types';
import { Decision, decisionFrom } from './decision';
import { LengthRule, PrefixRule, type Rule } from './watch-rule';
import { splitList } from '../lib/util.js';

export function buildRules(options: WatchOptions): Rule[] {
  const decision = decisionFrom(options.decision, Decision.Ask);
  const rules: Rule[] = splitList(options.commands).map((prefix) => new PrefixRule(prefix, decision));
  const limit = Number(options.maxLength);
  if (Number.isFinite(limit) && limit > 0) rules.push(new LengthRule(limit));
  return rules;
}
