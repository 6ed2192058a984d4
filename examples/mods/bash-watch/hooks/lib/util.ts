// Generic helpers. register.ts imports this file as './lib/util.js' (the
// spelling TypeScript's own module resolution wants): only util.ts exists, and
// the engine loads it for that specifier (SPEC §6).

/** The first item the predicate accepts. */
export function firstMatch<T>(items: readonly T[], accept: (item: T) => boolean): T | undefined {
  for (const item of items) if (accept(item)) return item;
  return undefined;
}

/** Comma-separated list, trimmed, empties dropped. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part): part is string => part.length > 0);
}

/** The parts of a compound command, split at `&&`, `||`, `;` and `|`. */
export function commandParts(command: string): string[] {
  return command
    .split(/&&|\|\||;|\|/)
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export function pick<T, K extends keyof T>(value: T, ...keys: K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) out[key] = value[key];
  return out;
}
