//! RFC 6901 JSON pointers, built one step at a time.

/// `parent` extended by the object key `key` (escaped: `~` -> `~0`, `/` -> `~1`).
pub(crate) fn key(parent: &str, key: &str) -> String {
    let mut out = String::with_capacity(parent.len() + key.len() + 1);
    out.push_str(parent);
    out.push('/');
    for c in key.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
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
