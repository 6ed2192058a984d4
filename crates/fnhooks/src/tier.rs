//! Tiers: where a plugin sits in every chain (SPEC §0).

use serde::{Deserialize, Serialize};
use std::fmt;

/// A tier of the chain, outermost first (SPEC §0).
///
/// The derived order is chain order: `Prepend < User < Append < Builtin < Core`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Plugins the organization seats ahead of everyone (managed `prependPlugins`, ...).
    Prepend,
    /// Plugins a person installed (`enabledPlugins`, `--plugin-dir`, their mods folder).
    User,
    /// Plugins the organization seats after the person's (managed `appendPlugins`).
    Append,
    /// Plugins built into the engine.
    Builtin,
    /// The engine's own handler: the default answer of the event.
    Core,
}

impl Tier {
    /// Every tier, in chain order.
    pub const ALL: [Tier; 5] = [
        Tier::Prepend,
        Tier::User,
        Tier::Append,
        Tier::Builtin,
        Tier::Core,
    ];

    /// Whether this is one of the organization's managed tiers (`prepend`, `append`),
    /// the only tiers whose hooks may call `next.to` (SPEC §1.1).
    #[must_use]
    pub fn is_managed(self) -> bool {
        matches!(self, Tier::Prepend | Tier::Append)
    }

    /// The tier's name as SPEC and scenario files spell it (`prepend`, `user`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Prepend => "prepend",
            Tier::User => "user",
            Tier::Append => "append",
            Tier::Builtin => "builtin",
            Tier::Core => "core",
        }
    }

    /// Parses a tier name as [`Tier::as_str`] spells it; `None` for anything else.
    #[must_use]
    pub fn parse(s: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
