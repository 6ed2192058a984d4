//! RFC 6901 JSON pointers, built one step at a time: the pointers that warnings name
//! (SPEC §2.1 "dropped at its own JSON pointer").

/// Appends the object key `key` to the JSON pointer `pointer` as one more reference
/// token: a `/`, then `key` with `~` written `~0` and `/` written `~1` (RFC 6901 §3).
///
/// ```
/// let mut at = String::from("/hooks");
/// policy::pointer::push_key(&mut at, "a/b~c");
/// assert_eq!(at, "/hooks/a~1b~0c");
/// ```
pub fn push_key(pointer: &mut String, key: &str) {
    pointer.push('/');
    for c in key.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// `parent` extended by the object key `key` (escaped as [`push_key`] does).
pub(crate) fn key(parent: &str, key: &str) -> String {
    let mut out = String::with_capacity(parent.len() + key.len() + 1);
    out.push_str(parent);
    push_key(&mut out, key);
    out
}

/// `parent` extended by the array index `index`.
pub(crate) fn index(parent: &str, index: usize) -> String {
    format!("{parent}/{index}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes_tilde_and_slash() {
        assert_eq!(super::key("", "a/b~c"), "/a~1b~0c");
        assert_eq!(super::index("/x", 3), "/x/3");
        assert_eq!(super::key("", ""), "/");
    }
}
