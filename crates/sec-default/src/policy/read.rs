//! The policy read, through the chain (SPEC §2.1).

use events::CxExt;
use fnhooks::{Cx, FailureKind, HookFailure, Reply};
use parking_lot::Mutex;
use policy::ManagedSettings;
use std::sync::Arc;

/// The settings source the plugin decides by: `policy` (managed settings only).
///
/// SPEC §2.1
pub const SOURCE: &str = "policy";

/// Reads the policy: raises `settings.read({source: "policy"})` as this plugin and
/// types the answer.
///
/// Takes the hook's `cx`; returns the managed settings, shared: the typed view is made
/// once per answer the chain gives (the core answers every read of one policy with one
/// shared object, so a burst of checks under one policy types it once).
///
/// # Errors
///
/// The read's failure when the chain answers an error (the policy cannot be read), or a
/// failure of kind `invalid-answer` when it answers something that is not a settings
/// object: either way the caller acts as if the policy were in force (fail closed).
///
/// SPEC §2.1
pub async fn read(cx: &Cx) -> Result<Arc<ManagedSettings>, HookFailure> {
    match cx.settings_read(SOURCE).await {
        Ok(value) if value.is_object() => Ok(typed(&value)),
        Ok(other) => Err(HookFailure::new(
            FailureKind::InvalidAnswer,
            format!("settings.read answered {other}, which is not a settings object"),
        )),
        Err(e) => Err(e.failure().clone()),
    }
}

/// The last answers typed, with their typed views, the most recent last. Keyed by the
/// answer's identity: holding the answer keeps its address from being reused, so the
/// same address is the same content. Shared by every instance of the plugin (each
/// reads through its own chain; a view made for one answer is right for any holder of
/// that very answer). Several are kept: sessions of one process that take turns (an
/// audit's; an embedder's conversations) each answer with their own
/// object, and typing a large policy on every check would make each check as slow as
/// the policy is long.
static TYPED: Mutex<Vec<(Reply, Arc<ManagedSettings>)>> = Mutex::new(Vec::new());

/// How many typed answers [`TYPED`] keeps.
const TYPED_KEPT: usize = 32;

/// The typed view of a settings answer, made once per answer.
fn typed(answer: &Reply) -> Arc<ManagedSettings> {
    if let Some((_, view)) = TYPED
        .lock()
        .iter()
        .rev()
        .find(|(seen, _)| Reply::ptr_eq(seen, answer))
    {
        return Arc::clone(view);
    }
    let view = Arc::new(ManagedSettings::from_value(answer));
    let mut kept = TYPED.lock();
    if kept.len() >= TYPED_KEPT {
        kept.remove(0);
    }
    kept.push((answer.clone(), Arc::clone(&view)));
    view
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn one_answer_is_typed_once_and_another_afresh() {
        let a = Reply::new(json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
        let first = typed(&a);
        assert!(
            Arc::ptr_eq(&first, &typed(&a.clone())),
            "the same answer, the same view"
        );
        let b = Reply::new(json!({"permissions": {"deny": ["Bash(curl:*)"]}}));
        let second = typed(&b);
        assert_eq!(second.deny, vec!["Bash(curl:*)".to_owned()]);
        assert_eq!(
            typed(&a).deny,
            vec!["Bash(rm:*)".to_owned()],
            "a new answer is typed anew"
        );
    }
}
