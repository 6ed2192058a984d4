import type { Verdict } from '../types';
import { Decision } from './decision';
import { Text } from '../lib/text';
import { commandParts } from '../lib/util.js';

const enum Kind {
  Prefix = 1,
  Length = 2,
}

/** A rule the mod checks a Bash command against. */
export abstract class Rule {
  abstract readonly kind: number;
  abstract readonly label: string;
  abstract matches(command: string): boolean;
  abstract verdict(command: string): Verdict;
}

/** Watches one command prefix. Its fields are parameter properties. */
export class PrefixRule extends Rule {
  readonly kind = Kind.Prefix;

  constructor(
    public readonly prefix: string,
    private readonly decision: Decision,
  ) {
    super();
  }

  get label(): string {
    return `${Text.quote(this.prefix)} is on the watch list`;
  }

  matches(command: string): boolean {
    return commandParts(command).some((part) => part === this.prefix || part.startsWith(`${this.prefix} `));
  }

  verdict(): Verdict {
    return { decision: this.decision, reason: Text.reason(this.label) };
  }
}

/** Asks before a command too long for a person to read at a glance. */
export class LengthRule extends Rule {
  readonly kind = Kind.Length;
  readonly label: string;
  #limit: number;

  constructor(limit: number) {
    super();
    this.#limit = limit;
    this.label = `longer than ${Text.Plural.characters(limit)}`;
  }

  matches(command: string): boolean {
    return command.length > this.#limit;
  }

  verdict(command: string): Verdict {
    const detail = `a command of ${Text.Plural.characters(command.length)} is too long to let through unread (over ${this.#limit})`;
    return { decision: Decision.Ask, reason: Text.reason(detail) };
  }
}
