//! Reading verdicts out of answers and traces (SPEC §3.6 steps 2 and 6).

use crate::refusals::names_together;
use fnhooks::{Answer, Reply, Tier, TraceEntry};
use permissions::{Decision, Verdict};
use std::cell::RefCell;

/// The verdict an answer carries: `None` for an error or a value that is not a verdict.
///
/// SPEC §1.6
#[must_use]
pub fn verdict_of(answer: &Answer) -> Option<Verdict> {
    let reply = answer.as_ref().ok()?;
    READ.with(|memo| {
        let mut memo = memo.borrow_mut();
        if let Some((_, v)) = memo.iter().flatten().find(|(r, _)| Reply::ptr_eq(r, reply)) {
            return v.clone();
        }
        let v = Verdict::from_value(reply);
        memo.rotate_right(1);
        if let Some(first) = memo.first_mut() {
            *first = Some((reply.clone(), v.clone()));
        }
        v
    })
}

/// An answer and the verdict read from it.
type ReadVerdict = (Reply, Option<Verdict>);

thread_local! {
    /// The verdicts read last, by the very answer each was read from (the memo holds
    /// the answer, so its address cannot be reused by another). One held check reads
    /// the core's verdict and a person's rewrite several times over (SPEC §3.6 steps 2,
    /// 6 and 7): each is read once.
    static READ: RefCell<[Option<ReadVerdict>; 2]> = const { RefCell::new([None, None]) };
}

/// What an entry is measured against when it is not a verdict (an error): a bare deny.
fn measured(answer: &Answer) -> Verdict {
    verdict_of(answer).unwrap_or_else(|| Verdict::plain(Decision::Deny))
}

/// Whether the entry handed on the very value its `next` answered: then it rewrote
/// nothing, known by a pointer comparison, with no verdict read.
fn handed_on_as_answered(entry: &TraceEntry) -> bool {
    match (&entry.handed, &entry.answer, entry.called_next) {
        (Some(Ok(handed)), Ok(answer), true) => fnhooks::Reply::ptr_eq(handed, answer),
        _ => false,
    }
}

/// Whether `answer` rewrote `handed` without tightening it: a more permissive decision,
/// or the same decision with another reason or other named causes.
fn rewrote(handed: &Verdict, answer: &Verdict) -> bool {
    answer.decision < handed.decision || (answer.decision == handed.decision && answer != handed)
}

/// The names of the person's plugins an entry stands for: its members whose own pinned
/// tier is `user` (SPEC §3.6 step 2 **\[decision, revised\]**: a `user` entry, or a batch
/// entry under `prepend` holding a person's plugin; an entry of the organization's
/// plugins alone stands for nobody).
fn people_of(entry: &TraceEntry) -> Vec<String> {
    if entry.member_tiers.len() == entry.plugins.len() {
        entry
            .plugins
            .iter()
            .zip(&entry.member_tiers)
            .filter(|(_, t)| **t == Tier::User)
            .map(|(p, _)| p.clone())
            .collect()
    } else if entry.tier == Tier::User {
        entry.plugins.clone()
    } else {
        Vec::new()
    }
}

/// The person's plugins of `trace` that rewrote the verdict they were handed without
/// tightening it (SPEC §3.6 step 2).
///
/// Takes `next.trace` of a `tool.check` run (the entries beneath the caller). Counts
/// every entry that stands for a person's plugin (a `user` entry, or a batch holding a
/// `user` member; never an entry of the organization's plugins alone), that answered
/// itself (a link with a failure kind never counts, SPEC §1.1), and whose answer is
/// looser than what its `next` handed it, or as strict but with another reason or other
/// named causes; an entry that never called `next` is measured against a bare
/// `{decision: deny}`. Returns one name per rewriting entry, in trace order, without
/// repeats: a batch's `user` members named together (`a, b and c`, SPEC §3.6.1), never
/// an organization's plugin.
///
/// SPEC §3.6 step 2
#[must_use]
pub fn rewritten_by_users(trace: &[TraceEntry]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for entry in trace {
        if !entry.answered_itself() || handed_on_as_answered(entry) {
            continue;
        }
        let people = people_of(entry);
        if people.is_empty() {
            continue;
        }
        let handed = match (&entry.handed, entry.called_next) {
            (Some(handed), true) => measured(handed),
            _ => Verdict::plain(Decision::Deny),
        };
        if rewrote(&handed, &measured(&entry.answer)) {
            let name = names_together(&people);
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Whether `held` (the verdict past the user tier) holds over the chain's `answer`
/// (SPEC §3.6 step 6): `held` is a deny (whatever decided it), or an ask that names a
/// `rule`, `hook`, `setting`, `ceiling` or `decider`; `answer` is not stricter; and
/// **\[decision\]** `held` differs from `answer` (an organization's `prepend` plugin
/// that rewords in both runs changes nothing here).
///
/// Takes the held verdict and the chain's answer (an error or a non-verdict answer is
/// never the stricter, and always differs); returns `true` when `held` is to be returned
/// whole.
///
/// SPEC §3.6 step 6
#[must_use]
pub fn holds_over(held: &Verdict, answer: &Answer) -> bool {
    let holds = match held.decision {
        Decision::Deny => true,
        Decision::Ask => held.names_a_cause(),
        Decision::Allow => false,
    };
    let chain = verdict_of(answer);
    holds && chain.as_ref() != Some(held) && chain.is_none_or(|a| a.decision <= held.decision)
}

/// Whether the chain's `answer` is looser than `held` (a *lift*; otherwise a *reword*).
///
/// SPEC §3.6 step 7
#[must_use]
pub fn is_looser(answer: &Answer, held: &Verdict) -> bool {
    verdict_of(answer).is_some_and(|a| a.decision < held.decision)
}
