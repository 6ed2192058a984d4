//! The positions-keeping JSON reader (`policy::json`, SPEC §2.1), which every managed
//! file goes through.

use policy::json;
use serde_json::Value;

use crate::{finding, shown_bytes, Outcome, MAX_INPUT};

/// Every pointer of `value` (RFC 6901), the root's included.
fn pointers(value: &Value, at: &mut String, out: &mut Vec<String>) {
    out.push(at.clone());
    let len = at.len();
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                policy::pointer::push_key(at, k);
                pointers(v, at, out);
                at.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                at.push('/');
                at.push_str(&i.to_string());
                pointers(v, at, out);
                at.truncate(len);
            }
        }
        _ => {}
    }
}

/// The byte offset of a 1-based (line, byte column) in `data`.
fn offset_of(data: &[u8], at: json::Position) -> Option<usize> {
    let mut line = 1;
    let mut start = 0;
    for (i, b) in data.iter().enumerate() {
        if line == at.line {
            break;
        }
        if *b == b'\n' {
            line += 1;
            start = i + 1;
        }
    }
    (line == at.line).then(|| start + at.column - 1)
}

/// Target `json_positions`: `data` as a managed file's bytes.
///
/// The oracle:
/// - `json::parse` never panics, and accepts exactly what `serde_json` accepts (after a
///   UTF-8 byte-order mark), with the same value;
/// - every pointer of the value is found by `positions_of`, at a byte that can start
///   what is there: `"` for an object member (its key), the first byte of the value for
///   an array element;
/// - every reported duplicate names a member (a non-empty pointer), first before last
///   (its pointer may lie in a subtree a later duplicate replaced).
///
/// # Errors
///
/// A description of the finding when the oracle does not hold.
pub fn json_positions(data: &[u8]) -> Outcome {
    if data.len() > MAX_INPUT {
        return Ok(());
    }
    let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let expected = serde_json::from_slice::<Value>(body);
    let parsed = json::parse(data);
    let doc = match (expected, parsed) {
        (Err(_), Err(_)) => return Ok(()),
        (Ok(_), Err(e)) => {
            return Err(finding!(
                "serde_json accepts but json::parse refuses ({}): {}",
                e.message,
                shown_bytes(data)
            ))
        }
        (Err(e), Ok(_)) => {
            return Err(finding!(
                "serde_json refuses ({e}) but json::parse accepts: {}",
                shown_bytes(data)
            ))
        }
        (Ok(v), Ok(doc)) if v != doc.value => {
            return Err(finding!("another value: {}", shown_bytes(data)))
        }
        (Ok(_), Ok(doc)) => doc,
    };
    let mut all = Vec::new();
    pointers(&doc.value, &mut String::new(), &mut all);
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let found = doc.positions_of(&refs);
    for p in &all {
        let Some(at) = found.get(p) else {
            return Err(finding!("pointer {p:?} not found in {}", shown_bytes(data)));
        };
        if p.is_empty() {
            continue;
        }
        let Some(byte) = offset_of(data, *at).and_then(|o| data.get(o)) else {
            return Err(finding!(
                "{p:?} at {at:?}, outside the input {}",
                shown_bytes(data)
            ));
        };
        let parent = &p[..p.rfind('/').unwrap_or(0)];
        let in_array = matches!(doc.value.pointer(parent), Some(Value::Array(_)));
        let ok = if in_array {
            matches!(
                byte,
                b'"' | b'{' | b'[' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n'
            )
        } else {
            *byte == b'"'
        };
        if !ok {
            return Err(finding!(
                "{p:?} at {at:?} starts at {:?}: {}",
                char::from(*byte),
                shown_bytes(data)
            ));
        }
    }
    for d in &doc.duplicates {
        if d.first >= d.last || d.pointer.is_empty() {
            return Err(finding!(
                "duplicate {d:?} is wrong in {}",
                shown_bytes(data)
            ));
        }
    }
    Ok(())
}
