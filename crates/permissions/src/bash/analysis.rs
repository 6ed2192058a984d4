//! The analysis: [`parse_command`] turns each simple command the walker finds into a
//! [`Part`]: the forms deny and ask rules meet (as written and after each stripping
//! step, with basename variants), the forms allow rules meet and their guards, the
//! files it reads and writes, whether it is in the read-only command set, and
//! whether what it runs is known only at run time. The command strings a part runs
//! in its turn are parsed and analysed too, and a command the walker refuses gets the
//! coarse fallback split (SPEC §4 "Compound shell commands", "Read and Edit rules
//! meet shell commands").

use super::expand::{expand_word, Scope, ShellContext, Var, Vars};
use super::file_commands::{file_words, folder_reads, follows_links, history_files};
use super::parts::{FileArg, ParsedCommand, Part, WriteTarget};
use super::read_only::{is_read_only, FIND_ACTIONS};
use super::walker::{Bases, RedirectKind, SimpleCommand, Walker};
use super::words::{basename, join, Word};
use super::wrappers::{
    final_words, git_directory_moves, inline_code, inner_command, is_assignment, is_keyword,
    mark_replaced, runs_unknown_code, strip_step, strip_steps, words_change_dir, Inner,
    GIT_OPTIONS_WITH_VALUE,
};

/// Parses and analyses `command` (SPEC §4 "Compound shell commands") with nothing
/// known of the session: no environment, no working folder to glob in. Never fails:
/// a command [`split`] refuses is met by a coarse split and marked not
/// [`certain`](ParsedCommand::certain).
///
/// [`split`]: super::split
#[must_use]
pub fn parse_command(command: &str) -> ParsedCommand {
    parse_command_in(command, &ShellContext::default())
}

/// [`parse_command`] in a session: words expanded as the shell would there (SPEC §4
/// **\[decision\]** "What the core cannot see, it never lets through").
#[must_use]
pub fn parse_command_in(command: &str, ctx: &ShellContext) -> ParsedCommand {
    if command.len() > MAX_PARSED_COMMAND_BYTES {
        return unread(command);
    }
    let outer = Outer {
        ctx,
        vars: &Vars::new(),
        late: false,
    };
    let parsed = parse_at(command, 0, &Bases::default(), &outer);
    if (ctx.globs || !ctx.ifs_unknown) && may_change_expansion(&parsed) {
        // Read again with globs and splitting unknown: the command may change them.
        let ctx = ctx.without_options();
        let outer = Outer { ctx: &ctx, ..outer };
        return parse_at(command, 0, &Bases::default(), &outer);
    }
    parsed
}

/// The longest command read (256 KiB). A longer one is not read at all: it
/// may run anything and read and write any file, so it meets every deny and ask rule it
/// may meet, uncertain, and nothing in it is allowed (SPEC §4 "What the core cannot
/// see, it never lets through"). Real commands, heredocs included, are far shorter; a
/// hostile one of 14 MB took 2.4 GB to parse.
pub const MAX_PARSED_COMMAND_BYTES: usize = 256 * 1024;

/// Whether a command may change how the shell expands words for what follows:
/// `shopt`, `set` (`-f`, `-o noglob`), `enable`, an assignment to `IFS`,
/// `GLOBIGNORE`, `BASHOPTS` or `SHELLOPTS`, or code the core cannot read; or, where
/// it globbed, whether it may create files before a glob is expanded (a part that is
/// not read-only, a write): the glob's result as the file system stands now is then
/// not what the shell will see (`ln -s /bin/rm rx; ./r? -rf build`).
fn may_change_expansion(parsed: &ParsedCommand) -> bool {
    let creates_files = parsed.files.iter().any(|f| f.write)
        || parsed
            .parts
            .iter()
            .any(|p| !p.writes_nothing && !only_sets_extglob(&p.words));
    // One simple command expands every word before it runs (or writes through a
    // redirect): only another part can create files before its glob.
    let acting = parsed
        .parts
        .iter()
        .filter(|p| !only_sets_extglob(&p.words))
        .count();
    if parsed.looked_at_files && creates_files && acting > 1 {
        return true;
    }
    parsed.parts.iter().any(|p| {
        p.uncertain
            || (!only_sets_extglob(&p.words)
                && p.words.iter().any(|w| {
                    matches!(w.as_str(), "shopt" | "set" | "enable")
                        || ["IFS", "GLOBIGNORE", "BASHOPTS", "SHELLOPTS"]
                            .iter()
                            .any(|v| {
                                w.strip_prefix(v)
                                    .is_some_and(|r| r.starts_with('=') || r.starts_with("+="))
                            })
                }))
    })
}

/// `shopt -s extglob` (`-u`, `-q` too) and nothing else: the core reads extended
/// patterns whether or not the option is on (see `expand::extglob`), so turning it on
/// or off changes nothing the core expands.
pub(super) fn only_sets_extglob(words: &[String]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    program == "shopt"
        && args.iter().any(|a| a == "extglob")
        && args
            .iter()
            .all(|a| matches!(a.as_str(), "extglob" | "-s" | "-u" | "-q" | "-su" | "-qs"))
}

/// Where a command string is parsed: the session, the variables set before it, and
/// whether it runs at some later time.
struct Outer<'a> {
    ctx: &'a ShellContext,
    vars: &'a Vars,
    late: bool,
}

fn parse_at(command: &str, depth: usize, bases: &Bases, outer: &Outer<'_>) -> ParsedCommand {
    let mut parsed = ParsedCommand {
        full: command.trim().to_owned(),
        certain: true,
        parsed: true,
        ..ParsedCommand::default()
    };
    let mut walker = Walker::new(depth, bases.clone(), outer.ctx);
    walker.vars = outer.vars.clone();
    walker.late = outer.late;
    let walked = walker.text(command);
    let refused = walked.is_err() || walker.error.is_some();
    parsed.looked_at_files = walker.looked_at_files;
    for simple in &walker.out {
        analyse(simple, depth, outer.ctx, &mut parsed);
    }
    if refused {
        coarse(command, &mut parsed);
    }
    if parsed.files.iter().any(|f| !f.resolvable()) {
        parsed.certain = false;
    }
    parsed
}

/// A command too long to read at all: one part that may run anything and a file read
/// and a file written whose paths are unknown, so every deny and ask rule it may meet
/// meets it, uncertain, and nothing is allowed; its memory does not grow with the text
/// (a coarse reading of a 14 MB command took 1.2 GB).
fn unread(command: &str) -> ParsedCommand {
    let mut parsed = ParsedCommand {
        certain: false,
        parsed: false,
        ..ParsedCommand::default()
    };
    let unknown = Bases {
        unknown: true,
        ..Bases::default()
    };
    for write in [false, true] {
        parsed
            .files
            .push(FileArg::new(String::new(), write, true, unknown.clone()));
    }
    let shown: String = command.chars().take(200).collect();
    parsed
        .parts
        .push(unknown_part(shown, Vec::new(), Vec::new()));
    parsed
}

/// A part whose program is unknown: it may run anything, is judged as meeting every
/// deny and ask rule it may meet, and nothing allows it.
fn unknown_part(raw: String, words: Vec<String>, strict_forms: Vec<String>) -> Part {
    Part {
        raw,
        words,
        strict_forms,
        allow_forms: Vec::new(),
        allow_guards: Vec::new(),
        allowable: false,
        read_only: false,
        writes_nothing: false,
        edits_files: false,
        uncertain: true,
        runs_anything: true,
        code_words: Vec::new(),
    }
}

/// The fallback when the command cannot be parsed: every run of text between
/// operator characters is a part for deny and ask rules; nothing is allowed.
fn coarse(command: &str, parsed: &mut ParsedCommand) {
    parsed.certain = false;
    parsed.parsed = false;
    for chunk in command.split(|c: char| ";&|()\n`<>{}$".contains(c)) {
        let words: Vec<String> = chunk
            .split_whitespace()
            .map(|w| {
                w.chars()
                    .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                    .collect::<String>()
            })
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            continue;
        }
        let plain: Vec<Word> = words.iter().map(Word::literal).collect();
        let mut strict = vec![chunk.trim().to_owned()];
        strict_forms(&plain, &mut strict, &mut |_| {});
        let stripped = final_words(&plain);
        let remove = removes(stripped);
        for (word, write) in file_words(stripped) {
            let unknown = Bases {
                unknown: true,
                ..Bases::default()
            };
            let mut f = FileArg::new(word.text.clone(), write, true, unknown);
            f.remove = remove && write;
            parsed.files.push(f);
        }
        parsed
            .parts
            .push(unknown_part(chunk.trim().to_owned(), words, dedup(strict)));
    }
}

fn analyse(simple: &SimpleCommand, depth: usize, ctx: &ShellContext, parsed: &mut ParsedCommand) {
    let scope = Scope {
        ctx,
        vars: &simple.vars,
        bases: &simple.bases,
        late: simple.late,
    };
    for r in &simple.redirects {
        let write = match r.kind {
            RedirectKind::Write => true,
            RedirectKind::Read => false,
            _ => continue,
        };
        for target in redirect_targets(&r.target, &scope, parsed) {
            if target.text == "/dev/null" {
                continue;
            }
            let mut file = FileArg::new(
                target.text.clone(),
                write,
                target.dynamic,
                simple.bases.clone(),
            );
            file.redirect = true;
            if write {
                parsed.write_targets.push(WriteTarget {
                    path: file.path.clone(),
                    resolvable: file.resolvable(),
                });
            }
            parsed.files.push(file);
        }
    }
    if simple.expanded.is_empty() {
        analyse_words(simple, &simple.words, None, depth, ctx, parsed);
    } else {
        for (k, words) in simple.expanded.iter().enumerate() {
            // The words as written meet deny and ask rules too.
            let written = (k == 0).then_some(simple.words.as_slice());
            analyse_words(simple, words, written, depth, ctx, parsed);
        }
    }
}

/// A redirect's target after expansion: one word for each value it may take (the
/// shell refuses a target that expands to several words), or the target as written.
fn redirect_targets(target: &Word, scope: &Scope<'_>, parsed: &mut ParsedCommand) -> Vec<Word> {
    if !target.dynamic {
        return vec![target.clone()];
    }
    match expand_word(&target.segs, scope, false) {
        Some(e) if e.alternatives.iter().all(|a| a.len() == 1) => {
            parsed.looked_at_files |= e.looked_at_files;
            e.alternatives
                .into_iter()
                .flatten()
                .map(Word::literal)
                .collect()
        }
        _ => vec![target.clone()],
    }
}

/// One simple command's words (as written, or one value they may take after
/// expansion) turned into a [`Part`] and its files; `written`: the words as written,
/// whose forms deny and ask rules meet too.
fn analyse_words(
    simple: &SimpleCommand,
    words: &[Word],
    written: Option<&[Word]>,
    depth: usize,
    ctx: &ShellContext,
    parsed: &mut ParsedCommand,
) {
    let marked = mark_replaced(words);
    let words = marked.as_slice();
    let texts: Vec<String> = words.iter().map(|w| w.text.clone()).collect();

    // Deny/ask forms, and nested commands found along the stripping steps.
    let mut strict = vec![simple.raw.clone()];
    if let Some(w) = written {
        strict_forms(w, &mut strict, &mut |_| {});
    }
    let mut nested: Vec<Inner> = Vec::new();
    let mut uncertain = false;
    let mut runs_anything = false;
    let mut fed: Vec<String> = Vec::new();
    strict_forms(words, &mut strict, &mut |step: &[Word]| {
        if step.is_empty() {
            uncertain = true;
            runs_anything = true;
            return;
        }
        let (inner, unknown) = inner_command(step);
        // A shell fed code on its standard input, at any step (`sudo -s <<< ...`).
        let (stdin_code, code) = runs_unknown_code(step, &simple.redirects);
        uncertain |= unknown || stdin_code;
        runs_anything |= unknown || stdin_code;
        nested.extend(inner);
        for c in code {
            if !fed.contains(&c) {
                fed.push(c);
            }
        }
    });
    // `rm${IFS}-rf`: also met with `$IFS` read as the space it usually is.
    for form in strict.clone() {
        if form.contains("$IFS") || form.contains("${IFS}") {
            strict.push(form.replace("${IFS}", " ").replace("$IFS", " "));
        }
    }

    // What runs: past every wrapper and assignment.
    let stripped = final_words(words);
    nested.extend(fed.into_iter().map(Inner::shell));
    // Arithmetic that reads code, and code the core does not read as shell (inline
    // interpreter code, a sourced file): it may run anything and touch any file.
    let code_words = inline_code(stripped);
    if simple.runs_unknown || code_words.is_some() {
        uncertain = true;
        runs_anything = true;
    }
    // `echo rm -rf build | xargs env`: a wrapper handed its program by `xargs`.
    let steps: Vec<(&[Word], &[Word])> = strip_steps(words, false).collect();
    let handed_by_xargs = stripped.is_empty()
        && steps
            .iter()
            .any(|(step, _)| step.first().is_some_and(|w| basename(&w.text) == "xargs"))
        && steps
            .last()
            .is_some_and(|(step, _)| step.first().is_some_and(|w| basename(&w.text) != "xargs"));
    // `xargs xargs`: the inner one's program comes from standard input too.
    let xargs_steps = steps
        .iter()
        .filter(|(step, _)| step.first().is_some_and(|w| basename(&w.text) == "xargs"))
        .count();
    if handed_by_xargs || (xargs_steps >= 2 && stripped.is_empty()) {
        uncertain = true;
        runs_anything = true;
    }
    // `xargs -a FILE`: it reads FILE for the arguments.
    for (step, _) in &steps {
        if step.first().is_some_and(|w| basename(&w.text) == "xargs") {
            if let Some(Some((file, dynamic))) =
                super::wrappers::option_value(step.get(1..).unwrap_or_default(), 'a', "arg-file")
            {
                parsed
                    .files
                    .push(FileArg::new(file, false, dynamic, simple.bases.clone()));
            }
        }
    }
    // A program copied, linked or hashed under another name (`cp /usr/bin/rm ls`,
    // `hash -p /usr/bin/rm ls`) meets the rules that name it.
    for program in renamed_programs(stripped) {
        strict.push(program);
    }

    // Allow forms: only the wrappers that change nothing are stripped.
    let mut allow = vec![
        (texts.join(" "), allow_guard(words)),
        (simple.raw.clone(), raw_guard(words, &simple.raw)),
    ];
    let mut rest: &[Word] = words;
    for (_, after) in strip_steps(words, true).take(MAX_STRIP_STEPS) {
        rest = after;
        allow.push((join(rest), allow_guard(rest)));
    }
    // A program word only known at run time, or one holding whitespace (`rm\ -rf`
    // runs a program named "rm -rf"), is covered by no pattern.
    let allowable = rest.first().is_none_or(|w| !w.dynamic)
        && stripped
            .first()
            .is_none_or(|w| !w.text.contains(char::is_whitespace));
    let mut seen = std::collections::HashSet::new();
    allow.retain(|(f, _)| seen.insert(f.clone()));
    let (allow_forms, allow_guards): (Vec<String>, Vec<usize>) = allow.into_iter().unzip();

    // The files the command reads and writes, past every wrapper.
    let chdir = words_change_dir(words);
    let remove = removes(stripped);
    let mut bases = simple.bases.clone();
    bases.unknown |= chdir;
    // `git -C secrets diff --no-index a b` reads secrets/a and secrets/b.
    for dir in git_directory_moves(stripped).unwrap_or_default() {
        bases.dirs = bases.dirs.iter().map(|b| Bases::join(b, &dir)).collect();
    }
    let files_before = parsed.files.len();
    let paths = file_words(stripped);
    // A file command whose paths it only reads creates nothing.
    let only_reads = !paths.is_empty() && paths.iter().all(|(_, write)| !write);
    for (word, write) in paths {
        let mut f = FileArg::new(word.text.clone(), write, word.dynamic, bases.clone());
        f.remove = remove && write;
        parsed.files.push(f);
    }
    // `... | xargs cat`: the file command's paths come from standard input.
    if fed_by_xargs(words) {
        let mut with_input = stripped.to_vec();
        let placeholder = Word {
            text: "$(xargs input)".to_owned(),
            dynamic: true,
            ..Word::default()
        };
        with_input.push(placeholder);
        for (word, write) in file_words(&with_input) {
            if word.dynamic && word.text == "$(xargs input)" {
                let mut f = FileArg::new(word.text.clone(), write, true, bases.clone());
                f.remove = remove && write;
                parsed.files.push(f);
            }
        }
    }
    // A shell or interpreter reads the script it runs (`bash secrets/key.pem`).
    if let Some(script) = script_operand(stripped) {
        // The script, and the operands after it (`perl -p /dev/null FILE` reads FILE).
        let from = stripped
            .iter()
            .position(|w| std::ptr::eq(w, script))
            .unwrap_or(0);
        for w in stripped.get(from..).unwrap_or_default() {
            if !w.text.starts_with('-') {
                parsed.files.push(FileArg::new(
                    w.text.clone(),
                    false,
                    w.dynamic,
                    bases.clone(),
                ));
            }
        }
    }
    // `sed '1r F'`, `sed 's/x/y/w F'`: files its script reads and writes.
    if stripped
        .first()
        .is_some_and(|w| matches!(basename(&w.text), "sed" | "gsed"))
    {
        for (path, write) in super::sed::sed_effects(stripped.get(1..).unwrap_or_default()).files {
            parsed
                .files
                .push(FileArg::new(path, write, false, bases.clone()));
        }
    }
    // `tar -T LIST`, `--files-from`: the paths it reads are in a file.
    if tar_reads_list(stripped) {
        parsed.files.push(FileArg::new(
            "$(tar file list)".to_owned(),
            false,
            true,
            bases.clone(),
        ));
    }
    for (file, write) in history_files(stripped) {
        let f = match file {
            Some(w) => FileArg::new(w.text.clone(), write, w.dynamic, bases.clone()),
            None => FileArg::new("$HISTFILE".to_owned(), write, true, bases.clone()),
        };
        parsed.files.push(f);
    }
    if code_words.is_some() {
        for write in [false, true] {
            let f = FileArg::new("$(inline code)".to_owned(), write, true, bases.clone());
            parsed.files.push(f);
        }
    }
    let folders = folder_reads(stripped);
    if !folders.is_empty() && follows_links(stripped) {
        // The links inside the folders it reads point anywhere: a read of unknown path.
        parsed.files.push(FileArg::new(
            "$(symbolic links followed)".to_owned(),
            false,
            true,
            bases.clone(),
        ));
    }
    for word in folders {
        let mut f = FileArg::new(word.text.clone(), false, word.dynamic, bases.clone());
        f.folder = true;
        parsed.files.push(f);
    }
    // A path known only at run time makes its part uncertain: the read-only default
    // never allows it.
    uncertain |= parsed
        .files
        .get(files_before..)
        .unwrap_or_default()
        .iter()
        .any(|f| !f.resolvable());
    let edits_files = stripped.first().is_some_and(|w| {
        !w.dynamic
            && !w.quoted
            && matches!(w.text.as_str(), "mkdir" | "touch" | "mv" | "cp")
            && stripped.len() == words.len()
    });

    let read_only = is_read_only(words);
    if uncertain {
        parsed.certain = false;
    }
    if !words.is_empty() {
        parsed.parts.push(Part {
            raw: simple.raw.clone(),
            words: texts,
            strict_forms: dedup(strict),
            allow_forms,
            allow_guards,
            allowable,
            read_only: read_only && !uncertain,
            writes_nothing: (read_only || only_reads) && !runs_anything,
            edits_files,
            uncertain,
            runs_anything,
            code_words: code_words.unwrap_or_default(),
        });
    }

    for inner in nested {
        let mut bases = simple.bases.clone();
        bases.unknown |= inner.own_dir || chdir;
        // Another shell sees only exported variables: those the command set are
        // unknown there; `eval` and the strings builtins run later share the shell.
        let mut vars: Vars = if inner.same_shell {
            (*simple.vars).clone()
        } else {
            simple
                .vars
                .keys()
                .map(|k| (k.clone(), Var::Unknown))
                .collect()
        };
        // `X=rm bash -c '$X ...'`, `env X=rm eval ...`: what runs sees the command's
        // own assignments, whose values are not followed here.
        for w in words.iter().filter(|w| is_assignment(w)) {
            if let Some((name, _)) = w.text.split_once('=') {
                vars.insert(name.trim_end_matches('+').to_owned(), Var::Unknown);
            }
        }
        let outer = Outer {
            ctx,
            vars: &vars,
            late: simple.late || inner.later,
        };
        let sub = parse_at(&inner.code, depth + 1, &bases, &outer);
        parsed.certain &= sub.certain;
        parsed.parsed &= sub.parsed;
        parsed.looked_at_files |= sub.looked_at_files;
        parsed.parts.extend(sub.parts);
        parsed.write_targets.extend(sub.write_targets);
        parsed.files.extend(sub.files);
    }
}

/// The script a shell or interpreter runs from a file (`bash x.sh`, `python3 t.py`):
/// it reads it.
fn script_operand(stripped: &[Word]) -> Option<&Word> {
    let (first, args) = stripped.split_first()?;
    let name = basename(&first.text);
    let family = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let interpreter = matches!(
        family,
        "sh" | "bash"
            | "zsh"
            | "dash"
            | "ksh"
            | "mksh"
            | "ash"
            | "fish"
            | "python"
            | "perl"
            | "ruby"
            | "node"
            | "php"
            | "lua"
            | "tclsh"
            | "Rscript"
            | "awk"
            | "source"
    ) || name == ".";
    if !interpreter {
        return None;
    }
    if args.iter().any(|a| {
        a.text.starts_with('-')
            && !a.text.starts_with("--")
            && a.text.contains(['c', 'e', 'm'])
            && !a.text.contains(['p', 'n'])
    }) {
        return None;
    }
    args.iter()
        .find(|a| !a.text.starts_with('-') && !a.text.starts_with('+'))
        .filter(|a| a.text != "-")
}

/// Whether `tar` takes the names it reads from a file (`-T`, `--files-from`).
fn tar_reads_list(stripped: &[Word]) -> bool {
    stripped
        .first()
        .is_some_and(|w| matches!(basename(&w.text), "tar" | "bsdtar" | "gtar"))
        && stripped.iter().skip(1).any(|a| {
            a.text == "-T"
                || a.text.starts_with("--files-from")
                || (a.text.starts_with('-') && !a.text.starts_with("--") && a.text.contains('T'))
        })
}

/// How many stripping steps (wrappers, assignments, keywords) a part is followed
/// through one by one; past them it may run anything.
const MAX_STRIP_STEPS: usize = 64;

/// The programs a command makes available under another name: the sources of `cp`,
/// `ln`, `install`, `mv`, `rsync`, `scp` given by a path, and `hash -p PATH NAME`, by
/// basename.
fn renamed_programs(stripped: &[Word]) -> Vec<String> {
    let Some((first, args)) = stripped.split_first() else {
        return Vec::new();
    };
    let ops: Vec<&Word> = args.iter().filter(|a| !a.text.starts_with('-')).collect();
    let sources: Vec<&Word> = match basename(&first.text) {
        "cp" | "ln" | "install" | "mv" | "rsync" | "scp" | "link" => ops
            .iter()
            .take(ops.len().saturating_sub(1))
            .copied()
            .collect(),
        // `cat /usr/bin/rm > ls`, `tee`, `dd if=`: a program's bytes copied out.
        "cat" | "tee" => ops,
        "dd" => args.iter().filter(|a| a.text.starts_with("if=")).collect(),
        "hash" => args
            .windows(2)
            .filter(|p| p.first().is_some_and(|f| f.text == "-p"))
            .filter_map(|p| p.get(1))
            .collect(),
        _ => Vec::new(),
    };
    sources
        .into_iter()
        .filter(|w| w.text.contains('/'))
        .map(|w| basename(w.text.trim_start_matches("if=").trim_end_matches('/')).to_owned())
        .filter(|b| !b.is_empty())
        .collect()
}

/// Whether a stripping step of `words` is `xargs` without `-I` (its input becomes
/// arguments of the command).
fn fed_by_xargs(words: &[Word]) -> bool {
    strip_steps(words, false)
        .any(|(step, _)| step.first().is_some_and(|w| basename(&w.text) == "xargs"))
}

/// Whether the program past every wrapper removes its path arguments (`rm`, `rmdir`).
fn removes(stripped: &[Word]) -> bool {
    stripped
        .first()
        .is_some_and(|w| matches!(basename(&w.text), "rm" | "rmdir"))
}

/// How many leading characters of `join(words)` an allow rule's literal text must
/// spell out (see [`Part::allow_guards`]): through the program's name when a wrapper
/// comes before it, the whole form for a `find` that runs, deletes or writes.
fn allow_guard(words: &[Word]) -> usize {
    let mut rest = words;
    let mut wrapped = false;
    for (step, after) in strip_steps(words, false) {
        wrapped |= step
            .first()
            .is_some_and(|w| !is_assignment(w) && (w.quoted || !is_keyword(&w.text)));
        rest = after;
    }
    let whole = || join(words).chars().count();
    let find_action = rest.first().is_some_and(|w| basename(&w.text) == "find")
        && rest.iter().any(|w| FIND_ACTIONS.contains(&w.text.as_str()));
    if find_action {
        return whole();
    }
    if !wrapped {
        return 0;
    }
    let through = words.len() - rest.len() + 1;
    match words.get(..through) {
        Some(head) => join(head).chars().count(),
        None => whole(),
    }
}

/// [`allow_guard`] for the text as written: all of it when a guard applies.
fn raw_guard(words: &[Word], raw: &str) -> usize {
    if allow_guard(words) == 0 {
        0
    } else {
        raw.chars().count()
    }
}

fn dedup(mut forms: Vec<String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    forms.retain(|f| seen.insert(f.clone()));
    forms
}

/// Pushes the words as written and after each stripping step (with basename
/// variants) to `forms`; calls `visit` with every step's words.
///
/// **A program word holding whitespace** (`rm\ -rf build`, `'rm -rf' build`,
/// `/bin/rm<U+00A0>`) makes the shell run a program of that odd name, which exists
/// only if someone made it. Deny and ask rules still meet it by the word's first
/// whitespace-separated token (any Unicode whitespace; a word of whitespace alone
/// gives way to the next word), the rest of the word and the other words
/// following, with the basename variant too: `rm\ -rf build` meets
/// `Bash(rm:*)` as `rm -rf build` and stays denied. Allow rules never cover such a
/// program by a pattern ([`Part::allowable`]).
fn strict_forms(words: &[Word], forms: &mut Vec<String>, visit: &mut dyn FnMut(&[Word])) {
    let mut rest: &[Word] = words;
    let mut steps = 0usize;
    loop {
        if rest.is_empty() {
            break;
        }
        steps += 1;
        if steps > MAX_STRIP_STEPS {
            // Past this many wrappers, only what finally runs is met (the work stays
            // linear; the part is marked as one that may run anything).
            let last = final_words(rest);
            forms.push(join(last));
            visit(last);
            visit(&[]);
            break;
        }
        forms.push(join(rest));
        if let Some(form) = git_without_global_options(rest) {
            forms.push(form);
        }
        if let Some((first, tail)) = rest.split_first() {
            let tail = tail.iter().map(|w| w.text.as_str());
            let base = basename(&first.text);
            if base != first.text {
                forms.push(
                    std::iter::once(base)
                        .chain(tail.clone())
                        .collect::<Vec<_>>()
                        .join(" "),
                );
            }
            if first.text.contains(char::is_whitespace) {
                let tokens: Vec<&str> = first.text.split_whitespace().chain(tail).collect();
                if let Some((program, args)) = tokens.split_first() {
                    for p in [*program, basename(program)] {
                        forms.push(
                            std::iter::once(p)
                                .chain(args.iter().copied())
                                .collect::<Vec<_>>()
                                .join(" "),
                        );
                    }
                }
            }
        }
        visit(rest);
        match strip_step(rest, false) {
            Some(n) if n > 0 => rest = rest.get(n..).unwrap_or_default(),
            _ => break,
        }
    }
}

/// `git` with the global options before its subcommand taken out (`git -C dir push`,
/// `git --no-pager -c k=v push` → `git push`): the command a deny or ask rule on the
/// subcommand is written for (SPEC §4 "Bash": a rule meets what runs, so `git -C .
/// push --force` meets `Bash(git push --force *)`). `None` when
/// it is not git or no option comes first.
fn git_without_global_options(words: &[Word]) -> Option<String> {
    let (first, tail) = words.split_first()?;
    if basename(&first.text) != "git" {
        return None;
    }
    let mut i = 0;
    while let Some(w) = tail.get(i) {
        let t = w.text.as_str();
        if GIT_OPTIONS_WITH_VALUE.contains(&t) {
            i += 2;
        } else if t.starts_with('-') && t.len() > 1 {
            // A flag, or an option with its value joined (`--git-dir=x`, `-ckey=v`).
            i += 1;
        } else {
            break;
        }
    }
    if i == 0 || i >= tail.len() {
        return None;
    }
    let rest = tail.get(i..)?;
    Some(
        std::iter::once("git")
            .chain(rest.iter().map(|w| w.text.as_str()))
            .collect::<Vec<_>>()
            .join(" "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_global_options_do_not_hide_the_subcommand_from_deny_rules() {
        for command in [
            "git -C . push --force origin",
            "git --no-pager push --force origin",
            "git -c color.ui=never push --force origin",
            "git --git-dir=.git --work-tree . push --force origin",
            "/usr/bin/git -C /tmp/x -p push --force origin",
        ] {
            let p = parse_command(command);
            let forms = &p.parts.first().unwrap().strict_forms;
            assert!(
                forms.contains(&"git push --force origin".to_owned()),
                "{command}: {forms:?}"
            );
        }
        assert_eq!(git_without_global_options(&parse_words("git push")), None);
        assert_eq!(git_without_global_options(&parse_words("git -C .")), None);
    }

    fn parse_words(command: &str) -> Vec<Word> {
        command.split(' ').map(Word::literal).collect()
    }

    #[test]
    fn allow_forms_strip_only_harmless_wrappers() {
        let p = parse_command("timeout 5 npm test");
        let forms = &p.parts.first().unwrap().allow_forms;
        assert!(forms.contains(&"npm test".to_owned()));
        let p = parse_command("sudo npm test");
        assert!(!p
            .parts
            .first()
            .unwrap()
            .allow_forms
            .contains(&"npm test".to_owned()));
        let p = parse_command("FOO=1 npm test");
        assert!(!p
            .parts
            .first()
            .unwrap()
            .allow_forms
            .contains(&"npm test".to_owned()));
        for cmd in ["$CMD x", "/bin/r? x", "r[m] x", "`which rm` x"] {
            let p = parse_command(cmd);
            assert!(!p.parts.last().unwrap().allowable, "{cmd}");
        }
        assert!(parse_command("[ -f x ]").parts.first().unwrap().allowable);
    }

    #[test]
    fn unparseable_commands_still_have_strict_parts() {
        let p = parse_command("rm -rf / 'oops");
        assert!(!p.certain);
        assert!(p
            .parts
            .iter()
            .any(|part| part.strict_forms.iter().any(|f| f.starts_with("rm -rf /"))));
    }

    #[test]
    fn write_targets() {
        let p = parse_command("echo a > out.txt; echo b >> /dev/null; cat x &> log");
        let t: Vec<_> = p.write_targets.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(t, vec!["out.txt", "log"]);
        let p = parse_command("cd $D && echo x > passwd");
        assert!(!p.write_targets.first().unwrap().resolvable);
        let p = parse_command("echo x > $F");
        assert!(!p.write_targets.first().unwrap().resolvable);
    }

    #[test]
    fn allow_guards_reach_past_wrappers() {
        let p = parse_command("setsid make deploy");
        let part = p.parts.first().unwrap();
        assert_eq!(part.allow_forms, vec!["setsid make deploy".to_owned()]);
        assert_eq!(part.allow_guards, vec!["setsid make".len()]);
        let p = parse_command("find . -delete");
        assert_eq!(
            p.parts.first().unwrap().allow_guards,
            vec!["find . -delete".len()]
        );
        let p = parse_command("make deploy");
        assert_eq!(p.parts.first().unwrap().allow_guards, vec![0]);
    }
}
