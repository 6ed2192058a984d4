//! The checks, one per invariant, each over a whole case.

use super::*;

pub(crate) type Check = Result<(), String>;

fn fail(r: &Rendered, i: usize, what: String) -> Check {
    Err(format!(
        "step {i} ({}): {what}\n--- scenario ---\n{}",
        r.steps.get(i).map_or("", |s| s.raise.as_str()),
        r.repro("generated counterexample")
    ))
}

/// SPEC §5.1: with deny rules holding, the final `tool.check` verdict is never looser
/// than the same question past the user tier (`past`) whenever that verdict holds, and
/// is returned whole unless stricter. The verdict past the user tier is that of the
/// chain with only the `user` hooks removed: the security default's `next.to(e,
/// append)` skips the `user` tier and nothing else (SPEC §1.1 **[decision, revised]**),
/// so the organization's other `prepend` plugins take part in it.
pub(crate) fn check_held_verdict(r: &Rendered, main: &World, past: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    for (i, s) in r.steps.iter().enumerate() {
        let tiers = [Tier::Prepend, Tier::Append, Tier::Builtin];
        let comparable = same_admissions(c, main, past, &tiers);
        let (a, b) = (main.step(s), past.step(s));
        if s.raise != "tool.check" || !f.deny_holds || !comparable {
            continue;
        }
        let Some(held) = verdict(&b.answer) else {
            continue;
        };
        if !holds(&held) {
            continue;
        }
        let got = verdict(&a.answer);
        // SPEC §3.6 step 2 (seed: a link that never called `next` is measured against a
        // deny): a bare `{decision: deny}` a link answered on its own is no rewrite, so
        // it stands over a held deny, as strict but without the rule's name — decided in
        // `examples/scenarios/regressions/bare-deny-over-held-deny.json`.
        if held.decision == Decision::Deny && got == Some(Verdict::plain(Decision::Deny)) {
            continue;
        }
        // SPEC §3.6 steps 2–3: a person's plugin that only tightened what it was handed
        // rewrote nothing, so the chain's answer stands (when it is not looser) —
        // decided in `examples/pending/invariant-held-deny-whole.json`'s note.
        let not_looser = got.as_ref().is_some_and(|v| v.decision >= held.decision);
        if not_looser && users_only_tightened(&a.trace, &user_ids(c)) {
            continue;
        }
        let whole = got
            .as_ref()
            .is_some_and(|v| v.decision > held.decision || *v == held);
        let looser = got.as_ref().is_none_or(|v| v.decision < held.decision);
        if a.answer != b.answer && (looser || !whole) {
            return fail(
                r,
                i,
                format!(
                    "held verdict {} not returned whole; got {} (trace {})",
                    b.answer, a.answer, a.trace
                ),
            );
        }
    }
    Ok(())
}

/// SPEC §5.2: no `user` plugin runs at a held event, and its answer is the answer past
/// the user tier.
pub(crate) fn check_no_user_hook_at_held(r: &Rendered, main: &World, past: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    let users = user_ids(c);
    for (i, s) in r.steps.iter().enumerate() {
        let comparable =
            same_admissions(c, main, past, &[Tier::Prepend, Tier::Append, Tier::Builtin])
                && same_env_for(main, past, s);
        let (a, b) = (main.step(s), past.step(s));
        if !held(c, &f, s) {
            continue;
        }
        if let Some(u) = a.ran.iter().find(|id| users.contains(&id.as_str())) {
            return fail(r, i, format!("user plugin {u} ran at a held event"));
        }
        // A caller admitted in one world only (a `prepend` or `user` hook refused it at
        // admission in the other) raises nothing to compare.
        let raised =
            a.answer.get("$raise_error").is_none() && b.answer.get("$raise_error").is_none();
        if comparable && raised && a.answer != b.answer {
            return fail(
                r,
                i,
                format!(
                    "answer {} differs from the answer past the user tier {}",
                    a.answer, b.answer
                ),
            );
        }
    }
    Ok(())
}

/// SPEC §5.3: no `user` registration is accepted whose name reads as an org scope.
#[allow(clippy::indexing_slicing)]
pub(crate) fn check_registrations(r: &Rendered, main: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    for (i, s) in r.steps.iter().enumerate() {
        let a = main.step(s);
        if s.raise != "tool.register" || !f.seated || a.answer.get("$raise_error").is_some() {
            continue;
        }
        let Some(p) = c.plugins.iter().find(|p| Some(&p.id) == s.from.as_ref()) else {
            continue;
        };
        if p.tier != Tier::User {
            continue;
        }
        let tool = s.event["name"].as_str().unwrap_or_default();
        if must_refuse_registration(c, &f, p, tool) && a.answer.get("deny").is_none() {
            return fail(
                r,
                i,
                format!(
                    "registration of {tool:?} by {:?} must be refused; got {}",
                    p.name, a.answer
                ),
            );
        }
    }
    Ok(())
}

/// SPEC §5.4: no `user` caller sets or unsets a pinned variable.
#[allow(clippy::indexing_slicing)]
pub(crate) fn check_pinned(r: &Rendered, main: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    for (i, s) in r.steps.iter().enumerate() {
        let before = main.env();
        let a = main.step(s);
        let after = main.env();
        if !f.seated {
            continue;
        }
        let caller = tier_of(c, s.from.as_deref());
        let writer = s.raise == "env.set" && caller != Tier::User;
        for (k, name) in ENV_NAMES.iter().enumerate() {
            if pinned(c, &f, name) && before[k] != after[k] && !writer {
                return fail(
                    r,
                    i,
                    format!(
                        "pinned {name} changed from {:?} to {:?} (answer {})",
                        before[k], after[k], a.answer
                    ),
                );
            }
        }
        let name = s.event["name"].as_str().unwrap_or_default();
        if s.raise == "env.set"
            && caller == Tier::User
            && pinned(c, &f, name)
            && a.answer.get("$raise_error").is_none()
            && a.answer.get("deny").is_none()
        {
            return fail(
                r,
                i,
                format!("a user set of pinned {name} was not refused: {}", a.answer),
            );
        }
    }
    Ok(())
}

/// SPEC §5.5: with `allowManagedModsOnly` on, or the policy unreadable, no `user`
/// module is admitted, at load or reload.
#[allow(clippy::indexing_slicing)]
pub(crate) fn check_admission(r: &Rendered, main: &World) -> Check {
    let c = &r.case;
    let f = facts(c);
    if f.mods_locked {
        for (id, answer) in main.session.admissions() {
            let user = c.plugins.iter().any(|p| p.id == id && p.tier == Tier::User);
            if user && matches!(&answer, Ok(v) if v.get("refuse").is_none()) {
                return Err(format!(
                    "{id} admitted at load: {}\n--- scenario ---\n{}",
                    answer_to_json(&answer),
                    r.repro("generated counterexample")
                ));
            }
        }
    }
    for (i, s) in r.steps.iter().enumerate() {
        let a = main.step(s);
        if !f.mods_locked {
            continue;
        }
        for id in user_ids(c) {
            if main.admitted(id) {
                return fail(r, i, format!("{id} is seated (answer {})", a.answer));
            }
        }
        if s.reload.is_some()
            && user_ids(c).contains(&s.event["plugin"].as_str().unwrap_or_default())
            && a.answer.get("refuse").is_none()
        {
            return fail(r, i, format!("reload admitted: {}", a.answer));
        }
    }
    Ok(())
}

/// SPEC §5.7: every event and verdict the plugin does not hold is exactly what the chain
/// without it produces; a `tool.check` that differs is the held verdict, returned whole.
pub(crate) fn check_nothing_else(
    r: &Rendered,
    main: &World,
    unseated: &World,
    past: &World,
) -> Check {
    let c = &r.case;
    let f = facts(c);
    let all = [Tier::Prepend, Tier::User, Tier::Append, Tier::Builtin];
    for (i, s) in r.steps.iter().enumerate() {
        let comparable =
            same_admissions(c, main, unseated, &all) && same_env_for(main, unseated, s);
        let past_comparable =
            same_admissions(c, main, past, &[Tier::Prepend, Tier::Append, Tier::Builtin])
                && same_env_for(main, past, s);
        let (a, u, p) = (main.step(s), unseated.step(s), past.step(s));
        if !comparable || a.answer == u.answer {
            continue;
        }
        if s.raise == "tool.check" && f.seated && !f.deny_holds {
            // SPEC §3.6 step 4: deny rules do not hold, the chain's answer is returned.
            return fail(
                r,
                i,
                format!(
                    "tool.check {} differs from unseated {} although deny rules do not hold",
                    a.answer, u.answer
                ),
            );
        }
        if s.raise == "tool.check" && f.deny_holds && past_comparable {
            let ok = verdict(&p.answer).is_some_and(|h| holds(&h) && verdict(&a.answer) == Some(h));
            if ok {
                continue;
            }
            return fail(
                r,
                i,
                format!(
                    "tool.check {} differs from unseated {} and is not the held verdict {}",
                    a.answer, u.answer, p.answer
                ),
            );
        }
        if touched(c, &f, s) {
            continue;
        }
        return fail(
            r,
            i,
            format!(
                "an event sec-default does not hold changed: seated {} vs unseated {}",
                a.answer, u.answer
            ),
        );
    }
    Ok(())
}

/// The same session, step by step: answers and trace JSON.
pub(crate) fn transcript(r: &Rendered) -> Vec<(String, String)> {
    let w = world(r, Twin::Main);
    let mut out: Vec<(String, String)> = w
        .session
        .admissions()
        .iter()
        .map(|(id, a)| (id.clone(), w.untemp(&answer_to_json(a).to_string())))
        .collect();
    out.extend(r.steps.iter().map(|s| {
        let o = w.step(s);
        (o.answer.to_string(), o.trace)
    }));
    out
}

pub(crate) fn same_transcript(
    r: &Rendered,
    a: &[(String, String)],
    b: &[(String, String)],
    what: &str,
) -> Check {
    let admissions = r.plugins.len();
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        if x != y {
            let at = if i < admissions {
                format!("admission {i}")
            } else {
                format!("step {}", i - admissions)
            };
            return Err(format!(
                "{what} differs at {at}:\n  {x:?}\n  {y:?}\n--- scenario ---\n{}",
                r.repro("determinism")
            ));
        }
    }
    if a.len() == b.len() {
        Ok(())
    } else {
        Err(format!("{what} has another length"))
    }
}

/// Whether every entry of `trace` that stands for a person's plugin (tier `user`, or a
/// batch naming one of `people`) passed its verdict on or made it stricter: SPEC §3.6
/// step 2 counts neither as a rewrite. A link that failed never counts; one that never
/// called `next` is measured against a bare deny.
fn users_only_tightened(trace: &str, people: &[&str]) -> bool {
    let trace: Value = serde_json::from_str(trace).unwrap_or(Value::Null);
    let Some(entries) = trace.as_array() else {
        return false;
    };
    entries.iter().all(|e| {
        let names: Vec<&str> = e["plugins"]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let a_person = e["tier"] == "user"
            || names
                .iter()
                .any(|n| people.iter().any(|p| p.starts_with(&format!("{n}@"))));
        if !a_person || e.get("failure").is_some_and(|f| !f.is_null()) {
            return true;
        }
        let Some(answer) = verdict(&e["answer"]) else {
            return false;
        };
        let handed = if e["called_next"] == true {
            verdict(&e["handed"])
        } else {
            Some(Verdict::plain(Decision::Deny))
        };
        handed.is_some_and(|h| answer == h || answer.decision > h.decision)
    })
}
