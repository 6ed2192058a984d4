//! The plugins the organization seats itself (SPEC §3.4 step 4, §3.5).

use policy::ManagedSettings;
use unicode_normalization::UnicodeNormalization;

/// One plugin the organization seats itself: its id as policy lists it, its name (the
/// id before the last `@`), and the policy key that names it.
///
/// SPEC §3.4 step 4
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrgPlugin {
    /// The id as policy lists it.
    pub id: String,
    /// Everything before the id's last `@` (the whole id when it has none).
    pub name: String,
    /// `prependPlugins`, `appendPlugins` or `enabledPlugins`.
    pub key: &'static str,
}

impl OrgPlugin {
    /// The plugin's name composed (NFC) and decomposed (NFD); one form when they agree.
    ///
    /// SPEC §3.4 step 4
    #[must_use]
    pub fn name_forms(&self) -> Vec<String> {
        let nfc: String = self.name.nfc().collect();
        let nfd: String = self.name.nfd().collect();
        if nfc == nfd {
            vec![nfc]
        } else {
            vec![nfc, nfd]
        }
    }
}

/// Every plugin the organization seats itself, in policy order: every id in
/// `prependPlugins`, then `appendPlugins`, then every id managed `enabledPlugins` turns
/// on (by `true` or by a version list).
///
/// Takes the policy read; returns the plugins (an id listed under several keys appears
/// once per key).
///
/// SPEC §3.4 step 4, §3.5
#[must_use]
pub fn org_plugins(policy: &ManagedSettings) -> Vec<OrgPlugin> {
    let plugin = |id: &String, key: &'static str| OrgPlugin {
        id: id.clone(),
        // SPEC §2.2: the name is everything before the last `@`, so `@acme` names "",
        // which folds to nothing and refuses every person's registration (§3.4 step 5).
        name: ::policy::id_name(id).to_owned(),
        key,
    };
    policy
        .prepend_plugins
        .iter()
        .map(|id| plugin(id, "prependPlugins"))
        .chain(
            policy
                .append_plugins
                .iter()
                .map(|id| plugin(id, "appendPlugins")),
        )
        .chain(
            policy
                .enabled_plugins
                .iter()
                .filter(|(_, state)| state.is_on())
                .map(|(id, _)| plugin(id, "enabledPlugins")),
        )
        .collect()
}
