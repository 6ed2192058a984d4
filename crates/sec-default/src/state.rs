//! What one seated instance of the plugin remembers (SPEC §2.3: a plugin seated afresh
//! starts with a fresh notice set and id map).

use crate::tool_register_refusal::ReservedScopes;
use fnhooks::CopySource;
use parking_lot::Mutex;
use policy::ManagedSettings;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The plugin instance's memory: the held notices already told, and the provenance
/// heard at admission keyed by id.
///
/// SPEC §3.4 (exemption), §3.6 step 7, §3.9
#[derive(Debug, Default)]
pub struct State {
    /// Told of each `tool.check` this instance answered (a decision log's witness).
    pub observer: Option<CheckObserver>,
    told: Mutex<HashSet<String>>,
    admitted: Mutex<HashMap<String, Admitted>>,
    /// The reservations compiled from the last policy read, with that read.
    scopes: Mutex<Option<(Arc<ManagedSettings>, Arc<ReservedScopes>)>>,
}

/// What the security default did with one `tool.check` (the decision log's
/// `rewritten_by` and `held`), SPEC §3.6.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckNote {
    /// The check's `tool_use_id`, when it has one.
    pub tool_use_id: Option<String>,
    /// The person's plugins (names, a batch's joined) that rewrote the verdict they were
    /// handed without tightening it (SPEC §3.6 step 2).
    pub rewritten_by: Vec<String>,
    /// Whether the verdict past the user tier was returned in place of theirs.
    pub held: bool,
}

/// A callback told of each [`CheckNote`]; called on the chain's thread: keep it short.
#[derive(Clone)]
pub struct CheckObserver(pub Arc<dyn Fn(&CheckNote) + Send + Sync>);

impl std::fmt::Debug for CheckObserver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CheckObserver")
    }
}

/// What the plugin heard at a module's admission: the provenance (the id the loader
/// resolved) and how the loader found the copy.
///
/// SPEC §3.4 (exemption), §3.9
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admitted {
    /// The id the loader resolved (`<name>@<marketplace>`, `<name>@inline`).
    pub provenance: String,
    /// How the copy was found; `None` when the engine did not say.
    pub source: Option<CopySource>,
}

impl State {
    /// A fresh state telling `observer` of each `tool.check`.
    #[must_use]
    pub fn observed(observer: Option<CheckObserver>) -> Self {
        State {
            observer,
            ..State::default()
        }
    }

    /// Marks the notice `key` told; returns `true` the first time only.
    ///
    /// SPEC §3.6 step 7
    pub fn first_telling(&self, key: String) -> bool {
        self.told.lock().insert(key)
    }

    /// Records the provenance and copy source heard at a module's admission, keyed by
    /// that id (NFC, then lower case).
    ///
    /// SPEC §3.9, §1.1 (**\[decision\]**: keyed by id)
    pub fn admit(&self, provenance: &str, source: Option<CopySource>) {
        let heard = Admitted {
            provenance: provenance.to_owned(),
            source,
        };
        self.admitted
            .lock()
            .insert(::policy::id_key(provenance), heard);
    }

    /// What was heard at admission for the caller whose pinned id is `id`.
    ///
    /// SPEC §3.4 (exemption)
    #[must_use]
    pub fn admitted_as(&self, id: &str) -> Option<Admitted> {
        self.admitted.lock().get(&::policy::id_key(id)).cloned()
    }

    /// The reservations of `policy`, compiled once per policy content (SPEC §3.4; a
    /// burst of registrations under one policy compiles them once).
    /// The same shared policy is known without a comparison of its content.
    pub fn reserved_scopes(&self, policy: &Arc<ManagedSettings>) -> Arc<ReservedScopes> {
        let mut cached = self.scopes.lock();
        if let Some((seen, scopes)) = cached.as_ref() {
            if Arc::ptr_eq(seen, policy) || **seen == **policy {
                return Arc::clone(scopes);
            }
        }
        let scopes = Arc::new(ReservedScopes::new(policy));
        *cached = Some((Arc::clone(policy), Arc::clone(&scopes)));
        scopes
    }
}
