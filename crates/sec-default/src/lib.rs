//! `sec-default`: the organization security default, `cc-plugin-sec-default@builtin`
//! (SPEC §0, §3; the seed `sec-default.txt`).
//!
//! Seated outermost (the first link of the `prepend` tier), it keeps what the
//! organization already controls out of reach of the plugins a person installs, and
//! adds no policy of its own. It has three moves and nothing else:
//!
//! 1. **continue past the user tier** — `next.to(e, append)` ([`past_users`]);
//! 2. **refuse by name** — `{deny}` to a `user`-tier caller ([`tool_register_refusal`],
//!    [`pinned_variables`]), `{refuse}` to a `user`-tier module at admission;
//! 3. **pass** — `next(e)`.
//!
//! Both inputs fail closed: provenance is pinned by the engine, and the policy is read
//! through `settings.read({source: "policy"})` ([`policy::read`]); a policy that cannot
//! be read counts as a policy in force. Every user-visible message lives in
//! [`refusals`].
//!
//! ```
//! let plugin = sec_default::plugin();
//! assert_eq!(plugin.info.id, sec_default::ID);
//! assert_eq!(plugin.info.tier, fnhooks::Tier::Prepend);
//! assert!(plugin.info.worker.is_none());
//! ```
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod admission;
pub mod fold;
pub mod held_verdict;
pub mod managed_tools;
pub mod past_users;
pub mod pinned_variables;
pub mod policy;
pub mod refusals;
mod register;
pub mod skill_row;
pub mod state;
pub mod tool_register_refusal;

pub use register::{plugin, ID, NAME};
