//! The shell splitter (`permissions::bash`) as `decide` meets it.

use permissions::bash::{basename, parse_command_in, split, ShellContext};
use permissions::Decision;
use permissions::{decide, Question, RuleSet, SessionFacts, SettingsSource};
use serde_json::json;

use crate::rules::{CWD, HOME};
use crate::{finding, shown, Outcome, MAX_INPUT};

/// Target `shell_split`: `data` (lossily decoded when it is not UTF-8) as a
/// `Bash` command, under a policy that allows `Bash` and `Bash(*)` and denies
/// `Bash(rm:*)`.
///
/// The oracle:
/// - `decide` (and `permissions::bash::parse_command_in` and `split`) do not
///   panic;
/// - a command that cannot be parsed is never allowed: when
///   `parse_command` says it was not `parsed`, or `split` refuses it, the
///   verdict is not `allow`;
/// - what the core cannot see never gets past the deny rule (SPEC §4
///   **\[decision, revised\]**): a part that may run any program
///   (`runs_anything`) meets `Bash(rm:*)`, so the verdict is not `allow`;
/// - an allowed command runs no `rm`: when the verdict is `allow`, no part of
///   the parsed command has `rm` as its program (by basename), neither as its
///   first word (past leading `NAME=value` assignments) nor as the first
///   space-separated word of any form deny rules meet (past wrappers such as
///   `sudo`, `env`).
///
/// # Errors
///
/// A description of the finding when the oracle does not hold.
pub fn shell_split(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let command = String::from_utf8_lossy(data);
    let command: &str = &command;
    let policy = json!({"permissions": {"allow": ["Bash", "Bash(*)"], "deny": ["Bash(rm:*)"]}});
    let (rules, _) = RuleSet::from_sources(&[(SettingsSource::Policy, &policy)]);
    let facts = SessionFacts::new(CWD, HOME);
    let input = json!({ "command": command });
    let verdict = decide(
        &rules,
        &Question {
            tool: "Bash",
            input: &input,
        },
        &facts,
    );
    // The command as `decide` sees it in this session.
    let ctx = ShellContext::new(facts.cwd.as_path(), facts.home.as_path(), None);
    let parsed = parse_command_in(command, &ctx);
    let refused = split(command).err();
    if verdict.decision != Decision::Allow {
        return Ok(());
    }
    if !parsed.parsed {
        return Err(finding!(
            "a command parse_command cannot parse is allowed (rule {:?}): {}",
            verdict.rule,
            shown(command)
        ));
    }
    if parsed.parts.iter().any(|p| p.runs_anything) {
        return Err(finding!(
            "a command that may run any program is allowed under a Bash(rm:*) deny (rule {:?}): {}",
            verdict.rule,
            shown(command)
        ));
    }
    if let Some(e) = refused {
        return Err(finding!(
            "a command split refuses ({e}) is allowed (rule {:?}): {}",
            verdict.rule,
            shown(command)
        ));
    }
    for part in &parsed.parts {
        let first_word = part
            .words
            .iter()
            .find(|w| !is_assignment(w))
            .map(String::as_str);
        let form_heads = part
            .strict_forms
            .iter()
            // Split at spaces only, as the forms are joined: a vertical tab or
            // a no-break space inside a word is part of the word, not a
            // separator (the shell's blanks are space and tab, and a tab stays
            // inside a word only when it was quoted).
            .filter_map(|f| f.split(' ').next());
        if let Some(program) = first_word
            .into_iter()
            .chain(form_heads)
            .find(|p| basename(p) == "rm")
        {
            return Err(finding!(
                "an allowed command runs rm (program {}, part {}) despite the deny rule Bash(rm:*): {}",
                shown(program),
                shown(&part.raw),
                shown(command)
            ));
        }
    }
    Ok(())
}

/// Whether a word is a leading `NAME=value` assignment.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}
