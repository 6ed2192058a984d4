//! A mod's matcher (SPEC §6 `on(pattern, matcher?, hook)`, §1.1; reference §2.2):
//! compared field by field with the event as the mod sees it. A scalar matches by
//! `===`; a `RegExp` tests the value as a string; an array matches when any element
//! does (one-of); an object matches an object value partially, recursively; and any
//! matcher value matches an array-valued field when some element matches. Depth is
//! bounded (8 levels) when the matcher is made.

use serde_json::{Map, Value};

/// The deepest level of a matcher, counted from 0 at the object `on` is given: the 8
/// levels the bridge's JavaScript half allows (`MAX_MATCHER_DEPTH` there, counted from
/// 1).
const MAX_DEPTH: usize = 7;

/// One matcher value, as the bridge's JavaScript half hands it over.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// `===` this value.
    Eq(Value),
    /// The registrations' RegExp number `n`, tested against the value as a string.
    Re(u32),
    /// Any of these.
    Any(Vec<Node>),
    /// An object value with these fields matching.
    Obj(Vec<(String, Node)>),
}

impl Node {
    /// Reads `{"$eq": v} | {"$re": n} | {"$any": [..]} | {"$obj": {..}}`, at most
    /// [`MAX_DEPTH`] levels deep as the bridge makes them; `None` for anything else
    /// (never from the honest bridge: the Rust half trusts none of it, SPEC §6
    /// "Sandbox").
    pub(crate) fn from_json(v: &Value) -> Option<Node> {
        Node::read(v, 0)
    }

    fn read(v: &Value, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        let o = v.as_object()?;
        if let Some(v) = o.get("$eq") {
            return Some(Node::Eq(v.clone()));
        }
        if let Some(n) = o.get("$re").and_then(Value::as_u64) {
            return Some(Node::Re(u32::try_from(n).ok()?));
        }
        if let Some(a) = o.get("$any").and_then(Value::as_array) {
            return a
                .iter()
                .map(|v| Node::read(v, depth + 1))
                .collect::<Option<_>>()
                .map(Node::Any);
        }
        let fields = o.get("$obj")?.as_object()?;
        fields
            .iter()
            .map(|(k, v)| Node::read(v, depth + 1).map(|n| (k.clone(), n)))
            .collect::<Option<_>>()
            .map(Node::Obj)
    }

    /// Whether the node has a RegExp anywhere (so matching asks the runtime).
    pub(crate) fn has_regexp(&self) -> bool {
        match self {
            Node::Eq(_) => false,
            Node::Re(_) => true,
            Node::Any(a) => a.iter().any(Node::has_regexp),
            Node::Obj(f) => f.iter().any(|(_, n)| n.has_regexp()),
        }
    }

    /// Whether the node matches `value` (`None`: the field is absent); `test` tests a
    /// RegExp against a string.
    pub(crate) fn matches(&self, value: Option<&Value>, test: &dyn Fn(u32, &str) -> bool) -> bool {
        if let (Some(Value::Array(items)), false) = (value, matches!(self, Node::Any(_))) {
            return items.iter().any(|v| self.matches(Some(v), test));
        }
        match self {
            Node::Eq(want) => match (want, value) {
                (Value::Null, None) => false,
                (_, None) => false,
                (want, Some(got)) => same(want, got),
            },
            Node::Re(n) => match value {
                None => false,
                Some(Value::String(s)) => test(*n, s),
                Some(v) => test(*n, &v.to_string()),
            },
            Node::Any(options) => options.iter().any(|o| o.matches(value, test)),
            Node::Obj(fields) => match value {
                Some(Value::Object(o)) => matches_fields(fields, o, test),
                _ => false,
            },
        }
    }
}

/// Whether every field of a top-level matcher matches the event's fields.
pub(crate) fn matches_fields(
    fields: &[(String, Node)],
    event: &Map<String, Value>,
    test: &dyn Fn(u32, &str) -> bool,
) -> bool {
    fields.iter().all(|(k, n)| n.matches(event.get(k), test))
}

/// JavaScript's `===` on JSON values: numbers by value (`1 === 1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (x, y) => x == y,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(v: Value) -> Node {
        Node::from_json(&v).unwrap()
    }

    fn no_re(_: u32, _: &str) -> bool {
        false
    }

    #[test]
    fn a_matcher_deeper_than_the_bridge_makes_is_refused() {
        let nested = |levels: usize| {
            let mut v = json!({"$eq": 1});
            for _ in 1..levels {
                v = json!({"$obj": {"a": v}});
            }
            v
        };
        assert!(Node::from_json(&nested(8)).is_some());
        assert!(Node::from_json(&nested(9)).is_none());
        assert!(Node::from_json(&nested(50)).is_none());
    }

    #[test]
    fn scalars_one_of_nested_and_array_fields() {
        let m = node(json!({"$obj": {"tool": {"$any": [{"$eq": "Edit"}, {"$eq": "Write"}]}}}));
        let Node::Obj(f) = m else { unreachable!() };
        let ev = |v: Value| v.as_object().unwrap().clone();
        assert!(matches_fields(&f, &ev(json!({"tool": "Edit"})), &no_re));
        assert!(!matches_fields(&f, &ev(json!({"tool": "Bash"})), &no_re));
        assert!(!matches_fields(&f, &ev(json!({})), &no_re));
        let nested = vec![(
            "origin".to_owned(),
            node(json!({"$obj": {"kind": {"$eq": "s"}}})),
        )];
        assert!(matches_fields(
            &nested,
            &ev(json!({"origin": {"kind": "s", "x": 1}})),
            &no_re
        ));
        assert!(!matches_fields(
            &nested,
            &ev(json!({"origin": "s"})),
            &no_re
        ));
        let tags = vec![("tags".to_owned(), node(json!({"$eq": "b"})))];
        assert!(matches_fields(
            &tags,
            &ev(json!({"tags": ["a", "b"]})),
            &no_re
        ));
        let one = vec![("n".to_owned(), node(json!({"$eq": 1})))];
        assert!(matches_fields(&one, &ev(json!({"n": 1.0})), &no_re));
    }

    #[test]
    fn regexps_test_strings() {
        let f = vec![("tool".to_owned(), node(json!({"$re": 0})))];
        let test = |_: u32, s: &str| s.starts_with("mcp__github__");
        let ev = |v: Value| v.as_object().unwrap().clone();
        assert!(matches_fields(
            &f,
            &ev(json!({"tool": "mcp__github__x"})),
            &test
        ));
        assert!(!matches_fields(&f, &ev(json!({"tool": "Bash"})), &test));
        assert!(f[0].1.has_regexp());
    }
}
