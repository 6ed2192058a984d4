//! The policy read, through the chain (SPEC §2.1).

use events::CxExt;
use fnhooks::{Cx, FailureKind, HookFailure};
use policy::ManagedSettings;
use serde_json::Value;

/// The settings source the plugin decides by: `policy` (managed settings only).
///
/// SPEC §2.1
pub const SOURCE: &str = "policy";

/// Reads the policy: raises `settings.read({source: "policy"})` as this plugin and
/// types the answer.
///
/// Takes the hook's `cx`; returns the managed settings.
///
/// # Errors
///
/// The read's failure when the chain answers an error (the policy cannot be read), or a
/// failure of kind `invalid-answer` when it answers something that is not a settings
/// object: either way the caller acts as if the policy were in force (fail closed).
///
/// SPEC §2.1
pub async fn read(cx: &Cx) -> Result<ManagedSettings, HookFailure> {
    match cx.settings_read(SOURCE).await {
        Ok(value @ Value::Object(_)) => Ok(ManagedSettings::from_value(&value)),
        Ok(other) => Err(HookFailure::new(
            FailureKind::InvalidAnswer,
            format!("settings.read answered {other}, which is not a settings object"),
        )),
        Err(e) => Err(e.failure().clone()),
    }
}
