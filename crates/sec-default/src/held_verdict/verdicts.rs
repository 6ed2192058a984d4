//! Reading verdicts out of answers and traces (SPEC §3.6 steps 2 and 6).

use crate::refusals::names_together;
use fnhooks::{Answer, Decision, Tier, TraceEntry, Verdict};

/// The verdict an answer carries: `None` for an error or a value that is not a verdict.
///
/// SPEC §1.6
#[must_use]
pub fn verdict_of(answer: &Answer) -> Option<Verdict> {
    answer.as_ref().ok().and_then(Verdict::from_value)
}

/// What an entry is measured against when it is not a verdict (an error): a bare deny.
fn measured(answer: &Answer) -> Verdict {
    verdict_of(answer).unwrap_or_else(|| Verdict::plain(Decision::Deny))
}

/// Whether `answer` rewrote `handed` without tightening it: a more permissive decision,
/// or the same decision with another reason or other named causes.
fn rewrote(handed: &Verdict, answer: &Verdict) -> bool {
    answer.decision < handed.decision || (answer.decision == handed.decision && answer != handed)
}

/// Whether an entry may hold a person's plugin: its tier, or one of its members', is
/// `user` or `prepend` (a `prepend` batch may hold a person's plugin).
fn may_hold_a_person(entry: &TraceEntry) -> bool {
    let reachable = |t: &Tier| matches!(t, Tier::User | Tier::Prepend);
    reachable(&entry.tier) || entry.member_tiers.iter().any(reachable)
}

/// The plugins of `trace` that rewrote the verdict they were handed without tightening
/// it (SPEC §3.6 step 2).
///
/// Takes `next.trace` of a `tool.check` run (the entries beneath the caller). Counts
/// every entry in tier `user` or `prepend` that answered itself (a dropped link's
/// answer is not its own, SPEC §1.1) and whose answer is looser than what its `next`
/// handed it, or as strict but with another reason or other named causes; an entry that
/// never called `next` is measured against a bare `{decision: deny}`. Returns one name
/// per rewriting entry, in trace order, without repeats: a batch's members named
/// together (`a, b and c`, SPEC §3.6.1).
///
/// SPEC §3.6 step 2
#[must_use]
pub fn rewritten_by_users(trace: &[TraceEntry]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for entry in trace {
        if !may_hold_a_person(entry) || !entry.answered_itself() {
            continue;
        }
        let handed = match (&entry.handed, entry.called_next) {
            (Some(handed), true) => measured(handed),
            _ => Verdict::plain(Decision::Deny),
        };
        if rewrote(&handed, &measured(&entry.answer)) {
            let name = names_together(&entry.plugins);
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Whether `held` (the verdict past the user tier) holds over the chain's `answer`
/// (SPEC §3.6 step 6): `held` is a deny (whatever decided it), or an ask that names a
/// `rule`, `hook`, `setting`, `ceiling` or `decider`; and `answer` is not stricter.
///
/// Takes the held verdict and the chain's answer (an error or a non-verdict answer is
/// never the stricter); returns `true` when `held` is to be returned whole.
///
/// SPEC §3.6 step 6
#[must_use]
pub fn holds_over(held: &Verdict, answer: &Answer) -> bool {
    let holds = match held.decision {
        Decision::Deny => true,
        Decision::Ask => held.names_a_cause(),
        Decision::Allow => false,
    };
    holds && verdict_of(answer).is_none_or(|a| a.decision <= held.decision)
}

/// Whether the chain's `answer` is looser than `held` (a *lift*; otherwise a *reword*).
///
/// SPEC §3.6 step 7
#[must_use]
pub fn is_looser(answer: &Answer, held: &Verdict) -> bool {
    verdict_of(answer).is_some_and(|a| a.decision < held.decision)
}
