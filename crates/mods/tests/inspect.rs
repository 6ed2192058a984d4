//! The static analysis behind `mods check` (SPEC §6; reference §1.3, §8 `claude plugin
//! validate`): what each rule finds in a mod that breaks it, and does not find in one
//! that keeps it; every example mod is analysed without a panic.

// Helpers of an integration test fail loudly, like its tests (see clippy.toml).
#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;
use mods::inspect::{Inspection, ModuleReport, Problem, Rule, Severity};
use mods::{inspect, load_folder};
use std::path::{Path, PathBuf};

/// A fresh folder holding `files` (path, text).
fn folder_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    common::folder_with("inspect-tests", name, files)
}

const HOOKS: &str = r#"{ "modules": ["./register.ts"] }"#;

/// A mod `m` whose hooks module is `hooks/register.ts`, plus `more` files.
fn mod_with(register: &str, more: &[(&str, &str)]) -> PathBuf {
    let mut files = vec![
        (".claude-plugin/plugin.json", r#"{ "name": "m" }"#),
        ("hooks/hooks.json", HOOKS),
        ("hooks/register.ts", register),
    ];
    files.extend_from_slice(more);
    folder_with("m", &files)
}

/// What the session's catalogue answers (`events::catalogue()`, SPEC §1.5).
fn known(pattern: &str) -> bool {
    events::catalogue().pattern_is_declared(pattern)
}

fn inspect_dir(dir: &Path) -> Inspection {
    let source = load_folder(dir).unwrap_or_else(|e| panic!("{e}"));
    inspect(&source, &known)
}

/// The hooks module's report of a mod whose `hooks/register.ts` is `register`.
fn entry_of(register: &str) -> ModuleReport {
    let i = inspect_dir(&mod_with(register, &[]));
    assert!(i.modules[0].entry);
    i.modules[0].clone()
}

fn problems(report: &ModuleReport, rule: Rule) -> Vec<&Problem> {
    report.problems.iter().filter(|p| p.rule == rule).collect()
}

/// The one problem of `rule` in `register`, asserting there is exactly one.
fn only(register: &str, rule: Rule) -> Problem {
    let report = entry_of(register);
    let found = problems(&report, rule);
    assert_eq!(
        found.len(),
        1,
        "{rule:?} in {register}: {:#?}",
        report.problems
    );
    found[0].clone()
}

fn messages(report: &ModuleReport) -> Vec<String> {
    report
        .problems
        .iter()
        .map(|p| format!("{}:{} {}", p.line, p.column, p.message))
        .collect()
}

const CLEAN: &str = r#"// a clean mod
type On = any;

function audit($: any, text: string) {
  return $.ui.log(text, { to: 'debug' });
}

export function register(on: On, options: { level?: string }): void {
  const reg = on('tool.check', { tool: 'Bash', input: { command: ['ls', 'make'] } }, async ($, e, next) => {
    const home = await $.env.get('HOME');
    await $.env.set({ name: 'EDITOR', value: 'vim' });
    await audit($, `home ${home}`);
    const seen = await $.state.get('seen');
    await $.state.set('seen', (seen ?? 0) + 1);
    if ($.plugin.name === 'x') return next.to(e, 'append');
    return next(e);
  });
  reg.catch(async ($, e, next) => {
    await $.ui.log('caught');
    return next(e);
  });
  on('command.run', { command: 'tally' }, ($, e, next) => next(e));
  on('session.start', async ($, e, next) => {
    await $.env.set('X', '1');
    return next(e);
  });
  on('classic.*', ($, e, next) => next(e));
  on('!tool.check', ($, e, next) => next(e));
}
"#;

#[test]
fn a_clean_mod_lists_its_hooks_calls_names_and_options_and_has_no_problem() {
    let manifest = r#"{ "name": "m", "userConfig": {
        "level": { "type": "string", "default": "low", "required": true },
        "max": { "type": "number" } } }"#;
    let dir = folder_with(
        "clean",
        &[
            (".claude-plugin/plugin.json", manifest),
            ("hooks/hooks.json", HOOKS),
            ("hooks/register.ts", CLEAN),
        ],
    );
    let i = inspect_dir(&dir);
    assert_eq!(i.plugin, "m");
    assert_eq!(i.modules.len(), 1);
    let m = &i.modules[0];
    assert_eq!(m.file, "hooks/register.ts");
    assert!(m.problems.is_empty(), "{:#?}", m.problems);
    assert_eq!(
        m.hook_summary(),
        [
            "tool.check{tool=Bash,input={command=[ls,make]}}",
            "command.run{command=tally}",
            "session.start",
            "classic.*",
            "!tool.check",
        ]
    );
    assert_eq!(m.hooks[0].line, 9);
    assert_eq!(m.hooks[0].column, 15);
    assert_eq!(
        m.call_summary(),
        [
            "$.env.get",
            "$.env.set",
            "$.state.get",
            "$.state.set",
            "$.ui.log",
            "$.ui.log (via audit)",
        ]
    );
    let via: Vec<_> = m.calls.iter().filter(|c| c.via.is_some()).collect();
    assert_eq!(via.len(), 1);
    assert_eq!((via[0].line, via[0].via.as_deref()), (5, Some("audit")));
    let names =
        |s: &[mods::inspect::NameSite]| s.iter().map(|n| n.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&m.env_reads), ["HOME"]);
    assert_eq!(names(&m.env_writes), ["EDITOR", "X"]);
    assert_eq!(m.env_writes[1].line, 24);
    assert_eq!(names(&m.state_reads), ["seen"]);
    assert_eq!(names(&m.state_writes), ["seen"]);

    assert_eq!(i.options.len(), 2);
    assert_eq!(i.options[0].name, "level");
    assert_eq!(i.options[0].kind.as_deref(), Some("string"));
    assert!(i.options[0].required);
    assert_eq!(i.options[0].default, Some(serde_json::json!("low")));
    assert_eq!(i.options[1].name, "max");
    assert!(!i.options[1].required);
    assert_eq!(i.options[1].default, None);

    let text = i.render();
    assert!(
        text.contains("❯ ./hooks/register.ts hooks: tool.check{tool=Bash,input={command=[ls,make]}}, command.run{command=tally}, session.start, classic.*, !tool.check\n"),
        "{text}"
    );
    assert!(
        text.contains("  calls: $.env.get, $.env.set, $.state.get, $.state.set, $.ui.log, $.ui.log (via audit)\n"),
        "{text}"
    );
    assert!(text.contains("  env reads: HOME\n"), "{text}");
    assert!(text.contains("  env writes: EDITOR, X\n"), "{text}");
    assert!(text.contains("  state reads: seen\n"), "{text}");
    assert!(text.contains("  state writes: seen\n"), "{text}");
    assert!(
        text.contains("  option level (string, required, default \"low\")\n"),
        "{text}"
    );
    assert!(text.contains("✔ no problems"), "{text}");
    assert!(!i.has_errors());

    let json = serde_json::to_value(&i).unwrap();
    assert_eq!(json["modules"][0]["env_reads"][0]["name"], "HOME");
    assert_eq!(json["options"][0]["type"], "string");
}

#[test]
fn dollar_used_as_a_value_is_an_error_in_each_form() {
    let cases: &[(&str, &str)] = &[
        (
            "const ui = $.ui; return ui.log('x');",
            "$.ui is used as a value",
        ),
        ("const d = $; return next(e);", "$ is used as a value"),
        ("const { ui } = $; return next(e);", "$ is used as a value"),
        (
            "const k = 'ui'; return $[k].log('x');",
            "$ is used as a value",
        ),
        ("return $.ui['log']('x');", "$.ui is used as a value"),
        (
            "const f = $.ui.log; return f('x');",
            "$.ui.log is used as a value",
        ),
        (
            "return ($ as any).ui.log.call(null, 'x');",
            "$.ui.log is used as a value",
        ),
        ("return elsewhere($);", "$ is used as a value"),
    ];
    for (body, message) in cases {
        let src = format!(
            "import {{ elsewhere }} from './lib';\nexport function register(on) {{\n  on('tool.check', async ($, e, next) => {{ {body} }});\n}}\n"
        );
        let dir = mod_with(
            &src,
            &[(
                "hooks/lib.ts",
                "export function elsewhere(x: any) { return x; }\n",
            )],
        );
        let i = inspect_dir(&dir);
        let m = &i.modules[0];
        let found = problems(m, Rule::DollarValue);
        assert_eq!(found.len(), 1, "{body}: {:#?}", m.problems);
        assert_eq!(found[0].message, *message, "{body}");
        assert_eq!(found[0].line, 3, "{body}");
        assert_eq!(found[0].severity, Severity::Error);
        assert!(
            i.render().contains(&format!(
                "  error: hooks/register.ts:3:{}: {message}\n",
                found[0].column
            )),
            "{}",
            i.render()
        );
    }
    // A destructured `$` parameter.
    let p = only(
        "export function register(on) {\n  on('tool.check', ({ ui }, e, next) => next(e));\n}\n",
        Rule::DollarValue,
    );
    assert_eq!((p.line, p.column), (2, 21));
    assert_eq!(p.message, "$ is used as a value (destructured)");
    // The allowed forms: full calls, `$.plugin.name`, `$` to a top-level function here.
    let clean = entry_of(
        "function h($, x) { return $.ui.log(x); }\nexport function register(on) {\n  on('tool.check', async ($, e, next) => { await h($, $.plugin.name); await $?.ui?.log?.('y'); return next(e); });\n}\n",
    );
    assert!(clean.problems.is_empty(), "{:#?}", clean.problems);
    assert_eq!(clean.call_summary(), ["$.ui.log", "$.ui.log (via h)"]);
}

#[test]
fn a_non_literal_event_name_is_an_error() {
    let p = only(
        "const name = 'tool.check';\nexport function register(on) {\n  on(name, ($, e, next) => next(e));\n}\n",
        Rule::EventNotLiteral,
    );
    assert_eq!(
        p.message,
        "the event name passed to on() is not a string literal"
    );
    assert_eq!((p.line, p.column), (3, 6));
    // A template without substitutions is a literal.
    let clean = entry_of(
        "export function register(on) {\n  on(`tool.check`, ($, e, next) => next(e));\n}\n",
    );
    assert!(clean.problems.is_empty(), "{:#?}", clean.problems);
    assert_eq!(clean.hook_summary(), ["tool.check"]);
    let p = only(
        "export function register(on) {\n  const n = 'check';\n  on(`tool.${n}`, ($, e, next) => next(e));\n}\n",
        Rule::EventNotLiteral,
    );
    assert_eq!(p.line, 3);
}

#[test]
fn a_second_binding_of_on_inside_register_is_an_error() {
    let p = only(
        "export function register(on) {\n  on('tool.check', ($, e, next) => next(e));\n  { const on = 1; }\n}\n",
        Rule::OnShadowed,
    );
    assert_eq!(p.message, "\"on\" is declared again (shadowed)");
    assert_eq!((p.line, p.column), (3, 11));
    // A parameter of a nested function, and a renamed `on`.
    let p = only(
        "export function register(reg) {\n  reg('tool.check', ($, e, next) => next(e));\n  [1].forEach((reg) => reg);\n}\n",
        Rule::OnShadowed,
    );
    assert_eq!(p.message, "\"reg\" is declared again (shadowed)");
    assert_eq!(p.line, 3);
    // `on` declared outside `register` is not inside it.
    let clean = entry_of("const on = 1;\nexport function register(o) {\n  o('tool.check', ($, e, next) => next(e));\n}\n");
    assert!(
        problems(&clean, Rule::OnShadowed).is_empty(),
        "{:#?}",
        clean.problems
    );
    assert_eq!(clean.hook_summary(), ["tool.check"]);
}

#[test]
fn an_unknown_event_or_a_malformed_pattern_is_an_error() {
    let p = only(
        "export function register(on) {\n  on('tool.calls', ($, e, next) => next(e));\n}\n",
        Rule::NotAnEvent,
    );
    assert_eq!(p.message, "\"tool.calls\" is not an event");
    assert_eq!((p.line, p.column), (2, 3));
    let p = only(
        "export function register(on) {\n  on('!*', ($, e, next) => next(e));\n}\n",
        Rule::NotAnEvent,
    );
    assert_eq!(p.message, "\"!*\" is not a pattern");
    let p = only(
        "export function register(on) {\n  on('!tool.calls', ($, e, next) => next(e));\n}\n",
        Rule::NotAnEvent,
    );
    assert_eq!(p.message, "\"tool.calls\" is not an event");
    let clean = entry_of("export function register(on) {\n  on('*', ($, e, next) => next(e));\n  on('classic.PreToolUse', ($, e, next) => next(e));\n  on('session.*', ($, e, next) => next(e));\n}\n");
    assert!(clean.problems.is_empty(), "{:#?}", clean.problems);
}

#[test]
fn env_names_must_be_string_literals() {
    let p = only(
        "export function register(on) {\n  on('tool.check', async ($, e, next) => { const n = 'HOME'; await $.env.get(n); return next(e); });\n}\n",
        Rule::EnvNameNotLiteral,
    );
    assert_eq!(
        p.message,
        "$.env.get names a variable that is not a string literal"
    );
    assert_eq!(p.severity, Severity::Error);
    let p = only(
        "export function register(on) {\n  on('tool.check', async ($, e, next) => { await $.env.set({ name: e.tool, value: '1' }); return next(e); });\n}\n",
        Rule::EnvNameNotLiteral,
    );
    assert_eq!(
        p.message,
        "$.env.set names a variable that is not a string literal"
    );
    let report = entry_of(
        "export function register(on) {\n  on('tool.check', async ($, e, next) => { await $.env.get({ name: 'A' }); await $.env.set(`B`, '1'); return next(e); });\n}\n",
    );
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.env_reads[0].name, "A");
    assert_eq!(report.env_writes[0].name, "B");
}

#[test]
fn state_keys_that_are_not_literals_are_a_warning() {
    let p = only(
        "export function register(on) {\n  on('tool.check', async ($, e, next) => { await $.state.set(e.tool, 1); return next(e); });\n}\n",
        Rule::StateKeyNotLiteral,
    );
    assert_eq!(p.severity, Severity::Warning);
    assert_eq!(
        p.message,
        "$.state.set names a key that is not a string literal"
    );
}

#[test]
fn next_to_must_name_a_literal_target_tier() {
    let p = only(
        "export function register(on) {\n  on('tool.check', ($, e, next) => { const t = 'append'; return next.to(e, t); });\n}\n",
        Rule::NextToTier,
    );
    assert_eq!(
        p.message,
        "next.to(e, <tier>) names a tier that is not a string literal"
    );
    assert_eq!(p.line, 2);
    let p = only(
        "export function register(on) {\n  on('tool.check', ($, e, later) => later.to(e, 'user'));\n}\n",
        Rule::NextToTier,
    );
    assert_eq!(
        p.message,
        "next.to(e, \"user\"): the tier is not one next.to can name (append, builtin, core)"
    );
    for tier in ["append", "builtin", "core"] {
        let clean = entry_of(&format!(
            "export function register(on) {{\n  on('tool.check', ($, e, next) => next.to(e, '{tier}'));\n}}\n"
        ));
        assert!(clean.problems.is_empty(), "{tier}: {:#?}", clean.problems);
    }
}

#[test]
fn process_env_is_a_warning_anywhere_in_the_module() {
    let p = only(
        "const home = process.env.HOME;\nexport function register(on) {\n  on('tool.check', ($, e, next) => next(e));\n}\n",
        Rule::ProcessEnv,
    );
    assert_eq!(p.severity, Severity::Warning);
    assert_eq!((p.line, p.column), (1, 14));
    assert!(
        p.message
            .starts_with("process.env is not available in a mod"),
        "{}",
        p.message
    );
}

#[test]
fn registrations_the_engine_refuses_or_the_analysis_cannot_read() {
    // No hook, or a filter with no hook.
    let report = entry_of(
        "export function register(on) {\n  on('tool.check');\n  on('tool.call', { tool: 'Bash' });\n}\n",
    );
    let found = problems(&report, Rule::HookNotFunction);
    assert_eq!(found.len(), 2, "{:#?}", report.problems);
    assert_eq!(
        found[0].message,
        "on(\"tool.check\"): the hook is not a function"
    );
    assert_eq!(found[1].line, 3);
    // A hook made elsewhere.
    let p = only(
        "declare function make(): any;\nexport function register(on) {\n  on('tool.check', make());\n}\n",
        Rule::HookOpaque,
    );
    assert_eq!(p.severity, Severity::Warning);
    // A filter that is not an object literal.
    let report = entry_of(
        "const f = { tool: 'Bash' };\nexport function register(on) {\n  on('tool.check', f, ($, e, next) => next(e));\n}\n",
    );
    assert_eq!(
        problems(&report, Rule::FilterNotLiteral).len(),
        1,
        "{:#?}",
        report.problems
    );
    assert_eq!(report.hook_summary(), ["tool.check{…}"]);
    // One event twice without a filter; with a filter it is fine.
    let p = only(
        "export function register(on) {\n  on('tool.check', ($, e, next) => next(e));\n  on('tool.check', { tool: 'Bash' }, ($, e, next) => next(e));\n  on('tool.check', ($, e, next) => next(e));\n}\n",
        Rule::DuplicateRegistration,
    );
    assert_eq!(p.line, 4);
    assert_eq!(
        p.message,
        "on(\"tool.check\") is registered twice without a matcher"
    );
    // `on` stored: what it registers is not followed.
    let p = only(
        "export function register(on) {\n  const o = on;\n  o('tool.check', ($, e, next) => next(e));\n}\n",
        Rule::OnEscapes,
    );
    assert_eq!(p.line, 2);
    // A `$` call of no known event.
    let p = only(
        "export function register(on) {\n  on('tool.check', async ($, e, next) => { await $.tool.calls({}); await $.tool.calls({}); return next(e); });\n}\n",
        Rule::UnknownCall,
    );
    assert_eq!(p.severity, Severity::Warning);
    assert!(
        p.message
            .starts_with("$.tool.calls: \"tool.calls\" is not an event"),
        "{}",
        p.message
    );
}

#[test]
fn register_hands_on_to_helpers_and_hooks_may_be_named_functions() {
    let report = entry_of(
        r#"async function check($, e, next) { await $.ui.log('c'); return next(e); }
function wire(o) {
  o('tool.check', check);
  o('ui.log', function ($, e, next) { return next(e); });
}
export const register = (on) => {
  wire(on);
  const local = ($, e, next) => { $.tool.list(); return next(e); };
  on('tool.list', local);
  // A promise's .catch is no registration: its parameter is not `$`.
  Promise.resolve().catch((err) => err.message);
};
"#,
    );
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    assert_eq!(report.hook_summary(), ["tool.check", "ui.log", "tool.list"]);
    assert_eq!(report.hooks[0].via.as_deref(), Some("wire"));
    assert_eq!(report.hooks[2].via, None);
    assert_eq!(report.call_summary(), ["$.tool.list", "$.ui.log"]);
    // `export { f as register }`.
    let report = entry_of("function f(on) { on('tool.check', ($, e, next) => next(e)); }\nexport { f as register };\n");
    assert_eq!(report.hook_summary(), ["tool.check"]);
    // No register at all.
    let p = only("export function reg(on) {}\n", Rule::NoRegister);
    assert_eq!(
        p.message,
        "the hooks module does not export a function named register"
    );
}

#[test]
fn other_modules_of_the_graph_are_reported_after_the_entry() {
    let dir = mod_with(
        "import { log } from './lib/log';\nexport function register(on) {\n  on('tool.check', async ($, e, next) => { await log($); return next(e); });\n}\n",
        &[(
            "hooks/lib/log.ts",
            "export async function log($: any) {\n  await $.ui.log('x');\n  const bad = $.ui;\n}\n",
        )],
    );
    let i = inspect_dir(&dir);
    let files: Vec<_> = i
        .modules
        .iter()
        .map(|m| (m.file.as_str(), m.entry))
        .collect();
    assert_eq!(
        files,
        [("hooks/register.ts", true), ("hooks/lib/log.ts", false)]
    );
    // Passing `$` to an imported function is refused in the entry...
    assert_eq!(problems(&i.modules[0], Rule::DollarValue).len(), 1);
    // ...and the imported function's own `$` use is read where it is written.
    let lib = &i.modules[1];
    assert_eq!(lib.call_summary(), ["$.ui.log (via log)"]);
    assert_eq!(messages(lib), ["3:15 $.ui is used as a value"]);
    assert!(
        i.render()
            .contains("❯ ./hooks/lib/log.ts\n  calls: $.ui.log (via log)\n"),
        "{}",
        i.render()
    );
    assert!(
        i.render().contains("✘ 2 error(s), 0 warning(s)"),
        "{}",
        i.render()
    );
}

#[test]
fn a_file_changed_or_removed_since_loading_is_a_problem_not_a_failure() {
    let dir = mod_with(
        "export function register(on) {\n  on('tool.check', ($, e, next) => next(e));\n}\n",
        &[],
    );
    let source = load_folder(&dir).unwrap();
    std::fs::write(
        dir.join("hooks/register.ts"),
        "export function register(on) {\n  on(\n",
    )
    .unwrap();
    let i = inspect(&source, &known);
    let m = &i.modules[0];
    assert_eq!(m.problems.len(), 1, "{:#?}", m.problems);
    assert_eq!(m.problems[0].rule, Rule::Syntax);
    assert!(m.problems[0].line >= 2, "{:#?}", m.problems);
    std::fs::write(
        dir.join("hooks/register.ts"),
        format!("x = {}1{};", "(".repeat(5000), ")".repeat(5000)),
    )
    .unwrap();
    let i = inspect(&source, &known);
    assert_eq!(i.modules[0].problems[0].rule, Rule::Unreadable);
    std::fs::remove_file(dir.join("hooks/register.ts")).unwrap();
    let i = inspect(&source, &known);
    assert_eq!(i.modules[0].problems[0].rule, Rule::Unreadable);
    assert!(i.has_errors());
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/mods")
        .join(name)
}

#[test]
fn every_example_mod_is_analysed() {
    let root = example("");
    let mut analysed = Vec::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let Ok(source) = load_folder(&dir) else {
            continue; // `broken` and its like do not load.
        };
        let i = inspect(&source, &known);
        let _ = i.render();
        let _ = serde_json::to_string(&i).unwrap();
        analysed.push((dir.file_name().unwrap().to_string_lossy().into_owned(), i));
    }
    assert!(analysed.len() >= 20, "{}", analysed.len());
    for (name, i) in &analysed {
        assert!(!i.has_errors(), "{name}: {}", i.render());
        assert!(!i.modules[0].hooks.is_empty(), "{name}: {}", i.render());
    }
    let get = |name: &str| &analysed.iter().find(|(n, _)| n == name).unwrap().1;

    let yes = get("yes-man");
    assert_eq!(yes.modules[0].hook_summary(), ["tool.check"]);
    assert!(!yes.has_errors(), "{}", yes.render());

    let edges = &get("api-edges").modules[0];
    assert_eq!(
        edges.hook_summary(),
        [
            "tool.check{tool=/^mcp__corp__/}",
            "tool.check{input={command=make sloppy}}",
            "prompt.submit"
        ]
    );
    assert_eq!(edges.call_summary(), ["$.ui.log"]);

    let env = &get("env-pinner").modules[0];
    let writes: Vec<_> = env.env_writes.iter().map(|n| n.name.as_str()).collect();
    assert!(
        writes.contains(&"HTTPS_PROXY") && writes.contains(&"EDITOR"),
        "{writes:?}"
    );
    let reads: Vec<_> = env.env_reads.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(reads, ["HTTPS_PROXY", "LD_PRELOAD"]);
    assert!(
        problems(env, Rule::EnvNameNotLiteral).is_empty(),
        "{:#?}",
        env.problems
    );

    // Hooks made by a factory of the file (`reword('…')`) are read, not reported opaque.
    let notes = &get("session-note-rewriter").modules[0];
    assert!(notes.problems.is_empty(), "{:#?}", notes.problems);
    assert_eq!(notes.hook_summary()[0], "session.append{door=note}");

    let logger = &get("logger").modules[0];
    assert_eq!(logger.hook_summary(), ["*"]);
    assert_eq!(logger.call_summary(), ["$.tool.check", "$.ui.log"]);

    let watch = get("bash-watch");
    assert!(watch.modules.len() > 1);
    assert_eq!(watch.modules[0].hook_summary(), ["tool.check{tool=Bash}"]);
    assert!(!watch.has_errors(), "{}", watch.render());
}
