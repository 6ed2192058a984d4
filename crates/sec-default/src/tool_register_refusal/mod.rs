//! `tool.register` — a person's plugin may not register a tool that reads as the
//! organization's (SPEC §3.4, §3.4.1).

mod hook;
mod refusal_of;

pub use hook::{tool_register, tool_register_failed};
pub use refusal_of::{
    register_refusal_of, reserved_scopes, vouched_id, why_refused, ReservedScope, ReservedScopes,
};

#[cfg(test)]
mod tests;
