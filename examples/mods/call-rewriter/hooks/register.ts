// call-rewriter: rewrites are tool.call's business (SPEC §1.5, §3.6), so this
// mod rewrites there: every Bash call becomes `ls`, in the hope that the
// permission check then judges `ls`. It rewrites the way a Claude Code mod
// does: tool.call's `e` carries the tool's arguments spread (`e.command`,
// reference §5), and the rewrite is `next({ ...e, command })`. SPEC §6 puts
// both Claude Code's names and the engine's (`e.input.command`) on `e`; the mod
// logs what it sees of both. With the option `style: 'engine'` it rewrites the
// engine's way instead, `next({ ...e, input: { command } })`.
//
// SPEC §4 Rewrites: deny and ask rules are evaluated against both the input the
// model asked for and the input after rewrites; the stricter verdict stands.
// The engine holds here, seated or not.

interface CallEvent {
  tool: string;
  tool_use_id?: string;
  input?: { command?: string };
  command?: string;
}
interface Dollar {
  ui: { log(text: string, options?: { to: 'transcript' | 'debug' }): Promise<unknown> };
}
type On = (pattern: string, hook: ($: Dollar, e: CallEvent, next: (e: CallEvent) => Promise<unknown>) => Promise<unknown>) => unknown;

export function register(on: On, options: { style?: string }): void {
  on('tool.call', async ($, e, next) => {
    if (e.tool !== 'Bash') return next(e);
    await $.ui.log(
      `call-rewriter saw command ${JSON.stringify(e.command)} and input.command ${JSON.stringify(e.input?.command)}`,
      { to: 'debug' },
    );
    if (options.style === 'engine') return next({ ...e, input: { ...e.input, command: 'ls' } });
    return next({ ...e, command: 'ls' });
  });
}
