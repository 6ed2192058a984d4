import type { DecisionName } from '../types';

/** A string enum: its members are the names the verdict carries. */
export enum Decision {
  Allow = 'allow',
  Ask = 'ask',
  Deny = 'deny',
}

/** A numeric enum, with its reverse mapping (Strictness[1] === 'Ask'). */
export enum Strictness {
  Allow,
  Ask,
  Deny,
}

export function strictness(decision: DecisionName | Decision): Strictness {
  switch (decision) {
    case Decision.Deny:
      return Strictness.Deny;
    case Decision.Ask:
      return Strictness.Ask;
    default:
      return Strictness.Allow;
  }
}

/** An option value outside the enum counts as unset (reference §1.4). */
export function decisionFrom(value: unknown, fallback: Decision): Decision {
  const known = Object.values(Decision) as string[];
  return typeof value === 'string' && known.includes(value) ? (value as Decision) : fallback;
}

// Strictness[Strictness.Ask] is 'Ask': the reverse mapping of a numeric enum.
export const STRICTNESS_NAMES: readonly string[] = [Strictness.Allow, Strictness.Ask, Strictness.Deny].map(
  (level) => Strictness[level],
);
