// Types only: every import of this file is `import type`, so it never loads at
// run time (SPEC §6: types are erased).

export type DecisionName = 'allow' | 'ask' | 'deny';

export interface Verdict {
  decision: DecisionName;
  reason?: string;
  rule?: string;
  source?: string;
  [field: string]: unknown;
}

export interface BashCheck {
  readonly tool: 'Bash';
  readonly input: { readonly command?: string };
  readonly tool_use_id?: string;
}

/** What `register` receives: plugin.json's userConfig defaults, overlaid. */
export interface WatchOptions {
  commands: string;
  decision: string;
  maxLength: number;
}

export interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}

export type Next<E, A> = (e: E) => Promise<A>;
export type Hook<E, A> = ($: Dollar, e: E, next: Next<E, A>) => Promise<A>;
export type On = <E, A>(pattern: string, matcher: Partial<Record<keyof E, unknown>>, hook: Hook<E, A>) => unknown;
