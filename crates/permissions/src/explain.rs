//! Which rules meet a call, and how surely (SPEC §4): the verdict of
//! [`crate::decide`] together with every rule of the set that meets the call, as
//! cedar-policy returns the policies that determined a response next to the
//! decision.
//!
//! A rule *meets* a call when, alone among the rules but with every other setting of
//! the machine unchanged (the mode, `additionalDirectories`,
//! `disableBypassPermissionsMode`, `disableAutoMode`,
//! `blockReadsOutsideWorkingDirectories`), it decides the call by itself: the verdict
//! of that machine names it. So a deny rule meets what it denies, an ask rule what it
//! asks before, an allow rule what it alone would let through (never a command the
//! core cannot see, a protected path, or a call in `plan` or `bypassPermissions`
//! mode); and a deny or ask rule that only *may* meet a shell command the core
//! cannot see through meets it `uncertain`ly (SPEC §4 "What the core cannot see, it
//! never lets through").
//!
//! Each rule is judged by [`crate::decide`]'s own flow over a rule set holding only
//! that rule, built from the parsed rule; the question is prepared (command parsed,
//! paths resolved) once for the whole set.

use crate::decide::decide_subject;
use crate::matcher::Subject;
use crate::rule::{Behavior, Rule};
use crate::{Question, RuleSet, SessionFacts, SettingsSource, Verdict};
use serde::ser::SerializeStruct;
use serde::{Serialize, Serializer};

/// One rule of the set that meets a call (SPEC §4).
///
/// Serialized as `{"behavior", "rule", "source", "index", "uncertain"}`: the rule's
/// list (`deny`, `ask`, `allow`), its text exactly as written, its settings source,
/// its position in that source's list, and `uncertain`.
#[derive(Debug, Clone, Copy)]
pub struct Met<'r> {
    /// The rule, as it stands in the [`RuleSet`] explained.
    pub rule: &'r Rule,
    /// Whether the rule meets the call only uncertainly: the call is a shell command
    /// (or a file call) the core cannot see through, and the rule is a deny or ask
    /// rule it may meet; alone, the rule makes the call an `ask` marked `uncertain`
    /// (SPEC §4 "What the core cannot see, it never lets through"). `false` when the
    /// rule surely meets the call.
    pub uncertain: bool,
}

impl Met<'_> {
    /// The rule's list: `deny`, `ask` or `allow` (SPEC §4).
    #[must_use]
    pub fn behavior(&self) -> Behavior {
        self.rule.behavior
    }

    /// The settings source the rule is written in (SPEC §4 "Sources").
    #[must_use]
    pub fn source(&self) -> SettingsSource {
        self.rule.source
    }
}

impl Serialize for Met<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("Met", 5)?;
        s.serialize_field("behavior", &self.rule.behavior)?;
        s.serialize_field("rule", &self.rule.text)?;
        s.serialize_field("source", self.rule.source.as_str())?;
        s.serialize_field("index", &self.rule.index)?;
        s.serialize_field("uncertain", &self.uncertain)?;
        s.end()
    }
}

/// The verdict on a call with the rules that meet it (SPEC §1.6, §4).
///
/// Serialized as `{"verdict": {...}, "met": [...]}`.
#[derive(Debug, Clone, Serialize)]
pub struct Explanation<'r> {
    /// Exactly what [`crate::decide`] answers for the call with the whole set.
    pub verdict: Verdict,
    /// Every rule of the set that meets the call, in deciding order (the order of
    /// [`RuleSet::rules`]): deny, ask and allow rules alike, each once.
    pub met: Vec<Met<'r>>,
}

/// Explains many calls against one rule set: each rule's one-rule machine is built
/// once, here, and serves every call (a shell command's parts, say) (SPEC §4).
#[derive(Debug, Clone)]
pub struct Explainer<'r> {
    rules: &'r RuleSet,
    /// For each rule of `rules`, in order, the machine with that rule alone.
    alone: Vec<RuleSet>,
}

impl<'r> Explainer<'r> {
    /// Prepares the explanation of calls against `rules` (SPEC §4).
    #[must_use]
    pub fn new(rules: &'r RuleSet) -> Self {
        let alone = rules.rules().iter().map(|r| rules.alone(r)).collect();
        Explainer { rules, alone }
    }

    /// The rule set explained (SPEC §4).
    #[must_use]
    pub fn rules(&self) -> &'r RuleSet {
        self.rules
    }

    /// The verdict on `q` in a session with `facts`, and the rules that meet it
    /// (SPEC §4; see [`explain()`]).
    #[must_use]
    pub fn explain(&self, q: &Question<'_>, facts: &SessionFacts) -> Explanation<'r> {
        let subject = Subject::new(q, facts, self.rules);
        let verdict = decide_subject(self.rules, &subject, q, facts);
        let met = self
            .rules
            .rules()
            .iter()
            .zip(&self.alone)
            .filter_map(|(rule, alone)| {
                let v = decide_subject(alone, &subject, q, facts);
                (v.rule.as_deref() == Some(rule.text.as_str())).then_some(Met {
                    rule,
                    uncertain: v.uncertain,
                })
            })
            .collect();
        Explanation { verdict, met }
    }
}

/// The verdict on `q` in a session with `facts` — exactly [`crate::decide`]'s — and
/// every rule of `rules` that meets the call: the rules that, each alone among the
/// rules with every other setting unchanged, decide the call, with whether only
/// uncertainly (SPEC §4).
///
/// To explain several calls against one set, make an [`Explainer`] once.
#[must_use]
pub fn explain<'r>(rules: &'r RuleSet, q: &Question<'_>, facts: &SessionFacts) -> Explanation<'r> {
    Explainer::new(rules).explain(q, facts)
}
