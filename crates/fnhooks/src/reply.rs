//! An answer's value, shared copy-on-write (a pass-through hook copies
//! nothing, and the trace holds what each link answered without a copy of it).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use std::fmt;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

/// The JSON value of an answer (SPEC §1.1), shared: cloning a reply copies nothing, and
/// writing to one (through `DerefMut`: `reply["text"] = json!("x")`) copies the value
/// first when another holder shares it. It reads as a [`serde_json::Value`]
/// (`Deref`), compares with one, and is made from one with `From` (`json!({..}).into()`).
///
/// A hook that hands on what its `next` answered hands on the very value: the engine's
/// trace, the core's cached answer and the caller all share it. The policy the core
/// reads is answered so too, as one shared immutable object.
#[derive(Clone, Default)]
pub struct Reply(Arc<Value>);

impl Reply {
    /// A reply holding `value`.
    #[must_use]
    pub fn new(value: Value) -> Self {
        Reply(Arc::new(value))
    }

    /// A reply sharing `value` (no copy).
    #[must_use]
    pub fn shared(value: Arc<Value>) -> Self {
        Reply(value)
    }

    /// The value, owned: moved out when this is its only holder, copied otherwise.
    #[must_use]
    pub fn into_value(self) -> Value {
        Arc::try_unwrap(self.0).unwrap_or_else(|shared| Value::clone(&shared))
    }

    /// The shared value.
    #[must_use]
    pub fn as_arc(&self) -> &Arc<Value> {
        &self.0
    }

    /// Whether `a` and `b` are the very same shared value (not merely equal ones).
    #[must_use]
    pub fn ptr_eq(a: &Reply, b: &Reply) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }
}

impl Deref for Reply {
    type Target = Value;
    fn deref(&self) -> &Value {
        &self.0
    }
}

/// Writing copies the value first when it is shared (copy on write).
impl DerefMut for Reply {
    fn deref_mut(&mut self) -> &mut Value {
        Arc::make_mut(&mut self.0)
    }
}

impl AsRef<Value> for Reply {
    fn as_ref(&self) -> &Value {
        &self.0
    }
}

impl From<Value> for Reply {
    fn from(value: Value) -> Self {
        Reply::new(value)
    }
}

impl From<Arc<Value>> for Reply {
    fn from(value: Arc<Value>) -> Self {
        Reply(value)
    }
}

impl From<Reply> for Value {
    fn from(reply: Reply) -> Self {
        reply.into_value()
    }
}

/// Replies are equal when their values are; a shared value is equal to itself without a
/// comparison.
impl PartialEq for Reply {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0 == other.0
    }
}

impl PartialEq<Value> for Reply {
    fn eq(&self, other: &Value) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<Reply> for Value {
    fn eq(&self, other: &Reply) -> bool {
        *self == *other.0
    }
}

impl fmt::Debug for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

/// Serialized as the value it holds.
impl Serialize for Reply {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Reply {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(Reply::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_clone_shares_and_a_write_copies() {
        let a = Reply::new(json!({"text": "core"}));
        let mut b = a.clone();
        assert!(Reply::ptr_eq(&a, &b));
        b["text"] = json!("rewritten");
        assert!(!Reply::ptr_eq(&a, &b));
        assert_eq!(a["text"], "core");
        assert_eq!(b["text"], "rewritten");
    }

    #[test]
    fn into_value_moves_out_when_alone_and_copies_when_shared() {
        let a = Reply::new(json!({"n": 1}));
        let keep = a.clone();
        assert_eq!(a.into_value(), json!({"n": 1}));
        assert_eq!(keep, json!({"n": 1}));
        assert_eq!(keep.into_value(), json!({"n": 1}));
    }
}
