//! What one seated instance of the plugin remembers (SPEC §2.3: a plugin seated afresh
//! starts with a fresh notice set and id map).

use crate::tool_register_refusal::ReservedScopes;
use policy::ManagedSettings;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The plugin instance's memory: the held notices already told, and the provenance
/// heard at admission keyed by id.
///
/// SPEC §3.4 (exemption), §3.6 step 7, §3.9
#[derive(Debug, Default)]
pub struct State {
    told: Mutex<HashSet<String>>,
    admitted: Mutex<HashMap<String, String>>,
    /// The reservations compiled from the last policy read, with that read.
    scopes: Mutex<Option<(ManagedSettings, Arc<ReservedScopes>)>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    /// Marks the notice `key` told; returns `true` the first time only.
    ///
    /// SPEC §3.6 step 7
    pub fn first_telling(&self, key: String) -> bool {
        lock(&self.told).insert(key)
    }

    /// Records the provenance heard at a module's admission, keyed by that id (NFC,
    /// then lower case).
    ///
    /// SPEC §3.9, §1.1 (**\[decision\]**: keyed by id)
    pub fn admit(&self, provenance: &str) {
        lock(&self.admitted).insert(::policy::id_key(provenance), provenance.to_owned());
    }

    /// The provenance heard at admission for the caller whose pinned id is `id`.
    ///
    /// SPEC §3.4 (exemption)
    #[must_use]
    pub fn admitted_as(&self, id: &str) -> Option<String> {
        lock(&self.admitted).get(&::policy::id_key(id)).cloned()
    }

    /// The reservations of `policy`, compiled once per policy content (SPEC §3.4; a
    /// burst of registrations under one policy compiles them once).
    pub fn reserved_scopes(&self, policy: &ManagedSettings) -> Arc<ReservedScopes> {
        let mut cached = lock(&self.scopes);
        if let Some((seen, scopes)) = cached.as_ref() {
            if seen == policy {
                return Arc::clone(scopes);
            }
        }
        let scopes = Arc::new(ReservedScopes::new(policy));
        *cached = Some((policy.clone(), Arc::clone(&scopes)));
        scopes
    }
}
