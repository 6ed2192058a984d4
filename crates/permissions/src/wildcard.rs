//! `*` wildcards of rule specifiers (SPEC §4 "Rule syntax").
//!
//! A [`Wildcard`] is the pattern language of `Bash(...)`, `Skill(...)`, `Agent(...)`
//! and parameter rules: `*` matches any characters (spaces included), and a space
//! right before a `*` keeps a word boundary while also matching nothing at all, so
//! `curl *` matches `curl`, `curl x`, but not `curlx`.

/// One element of a compiled wildcard.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    /// One literal character.
    Lit(char),
    /// `*`: any run of characters.
    Any,
    /// ` *`: nothing, or a space followed by any run of characters.
    SpaceAny,
}

/// A compiled `*` pattern (SPEC §4 "Rule syntax").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wildcard {
    tokens: Vec<Token>,
    case_insensitive: bool,
    /// The literal characters before the first wildcard (folded): a cheap first test.
    prefix: Vec<char>,
}

impl Wildcard {
    /// Compiles `pattern`; with `case_insensitive` letters match either case (deny and
    /// ask rules, SPEC §4). Never fails: every text is a pattern.
    #[must_use]
    pub fn new(pattern: &str, case_insensitive: bool) -> Self {
        let mut tokens = Vec::new();
        let mut chars = pattern.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                ' ' if chars.peek() == Some(&'*') => {
                    chars.next();
                    tokens.push(Token::SpaceAny);
                }
                '*' => tokens.push(Token::Any),
                c => tokens.push(Token::Lit(fold(c, case_insensitive))),
            }
        }
        // Runs of stars mean one star.
        tokens.dedup_by(|a, b| *a == Token::Any && *b == Token::Any);
        let prefix = tokens
            .iter()
            .map_while(|t| match t {
                Token::Lit(c) => Some(*c),
                _ => None,
            })
            .collect();
        Wildcard {
            tokens,
            case_insensitive,
            prefix,
        }
    }

    /// Whether the pattern is `*` alone (matches everything).
    ///
    /// SPEC §4.
    #[must_use]
    pub fn is_any(&self) -> bool {
        self.tokens == [Token::Any]
    }

    /// How many characters the pattern spells out before its first `*` (` *`
    /// counts from its space). An allow rule covers a form behind a wrapper only
    /// when this reaches past the wrapped program's name (SPEC §4; reference §3.2).
    #[must_use]
    pub fn literal_prefix_len(&self) -> usize {
        self.prefix.len()
    }

    /// The pattern's first word when it is spelled out in full (literal characters
    /// followed by a space, ` *`, or the end), folded as the pattern folds: a text
    /// the pattern matches then starts with exactly this word ([`first_word`]).
    /// `None` when a `*` comes first (`git*`, `* install`).
    #[must_use]
    pub fn first_word_key(&self) -> Option<String> {
        let mut key = String::new();
        for t in &self.tokens {
            match t {
                Token::Lit(' ') | Token::SpaceAny => break,
                Token::Lit(c) => key.push(*c),
                Token::Any => return None,
            }
        }
        (!key.is_empty()).then_some(key)
    }

    /// The pattern's first words spelled out in full, at most `max` of them, joined
    /// by one space and folded as the pattern folds (each literal characters followed
    /// by a space, ` *`, or the end): a text the pattern matches then starts with
    /// exactly these words, [`first_words`] of it with as many words. `None` when a
    /// `*` comes before the first word ends (`git*`, `* install`). A doubled space ends
    /// the key (`git  push` gives `git`).
    #[must_use]
    pub fn word_key(&self, max: usize) -> Option<(String, usize)> {
        let mut words: Vec<String> = Vec::new();
        let mut current = String::new();
        let mut done = false;
        for t in &self.tokens {
            match t {
                Token::Lit(' ') => {
                    if current.is_empty() {
                        done = true;
                        break;
                    }
                    words.push(std::mem::take(&mut current));
                    if words.len() >= max {
                        done = true;
                        break;
                    }
                }
                Token::Lit(c) => current.push(*c),
                Token::SpaceAny => break,
                Token::Any => {
                    current.clear();
                    done = true;
                    break;
                }
            }
        }
        if !done && !current.is_empty() && words.len() < max {
            words.push(current);
        }
        let n = words.len();
        (n > 0).then(|| (words.join(" "), n))
    }

    /// Whether `text` matches the whole pattern. Linear in `text` times the pattern
    /// length; never panics.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn matches(&self, text: &str) -> bool {
        let mut chars = text.chars();
        for p in &self.prefix {
            match chars.next() {
                Some(c) if fold(c, self.case_insensitive) == *p => {}
                _ => return false,
            }
        }
        let text: Vec<char> = text
            .chars()
            .map(|c| fold(c, self.case_insensitive))
            .collect();
        // reach[j]: the pattern prefix consumed so far can end at text position j.
        let n = text.len();
        let mut reach = vec![false; n + 1];
        if let Some(first) = reach.first_mut() {
            *first = true;
        }
        for token in &self.tokens {
            let mut next = vec![false; n + 1];
            match token {
                Token::Lit(c) => {
                    for (j, t) in text.iter().enumerate() {
                        if t == c && reach.get(j).copied().unwrap_or(false) {
                            if let Some(slot) = next.get_mut(j + 1) {
                                *slot = true;
                            }
                        }
                    }
                }
                Token::Any => {
                    let mut on = false;
                    for (j, slot) in next.iter_mut().enumerate() {
                        on = on || reach.get(j).copied().unwrap_or(false);
                        *slot = on;
                    }
                }
                Token::SpaceAny => {
                    // Nothing at all ...
                    next.clone_from(&reach);
                    // ... or a space and then anything.
                    let mut on = false;
                    for j in 0..n {
                        let after_space =
                            text.get(j) == Some(&' ') && reach.get(j).copied().unwrap_or(false);
                        on = on || after_space;
                        if on {
                            if let Some(slot) = next.get_mut(j + 1) {
                                *slot = true;
                            }
                        }
                    }
                }
            }
            reach = next;
        }
        reach.last().copied().unwrap_or(false)
    }
}

/// The first word of `text` (up to its first space), folded as a pattern compiled
/// with `case_insensitive` folds: the key [`Wildcard::first_word_key`] is compared to.
#[must_use]
pub fn first_word(text: &str, case_insensitive: bool) -> String {
    text.split(' ')
        .next()
        .unwrap_or_default()
        .chars()
        .map(|c| fold(c, case_insensitive))
        .collect()
}

/// The first `n` words of `text` (split at single spaces, as [`first_word`]), joined
/// by one space and folded: the key [`Wildcard::word_key`] is compared to, with the
/// key's word count as `n`. A text of fewer words gives what it has.
///
/// SPEC §4 (the rule index).
#[must_use]
pub fn first_words(text: &str, n: usize, case_insensitive: bool) -> String {
    let mut out = String::new();
    for (i, w) in text.split(' ').take(n).enumerate() {
        if i > 0 {
            out.push(' ');
        }
        out.extend(w.chars().map(|c| fold(c, case_insensitive)));
    }
    out
}

fn fold(c: char, case_insensitive: bool) -> char {
    if case_insensitive {
        // Simple one-to-one folding; multi-char lowercase forms keep their first char.
        c.to_lowercase().next().unwrap_or(c)
    } else {
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, t: &str) -> bool {
        Wildcard::new(p, false).matches(t)
    }

    #[test]
    fn exact_and_star() {
        assert!(m("npm run build", "npm run build"));
        assert!(!m("npm run build", "npm run build2"));
        assert!(m("ls*", "lsof"));
        assert!(m("ls*", "ls"));
        assert!(m("* install", "npm install"));
        assert!(m("git * main", "git push origin main"));
        assert!(!m("git * main", "git push origin mainx"));
        assert!(m("*", ""));
        assert!(m("a**b", "axxb"));
    }

    #[test]
    fn space_star_keeps_a_word_boundary() {
        assert!(m("curl *", "curl https://x"));
        assert!(m("curl *", "curl"));
        assert!(!m("curl *", "curlx"));
        assert!(!m("ls *", "lsof"));
        assert!(m("git push *", "git push origin main"));
        assert!(!m("git push *", "git pushx"));
    }

    #[test]
    fn word_keys_are_what_every_matching_text_starts_with() {
        let key = |p: &str| Wildcard::new(p, false).word_key(3).map(|(k, _)| k);
        assert_eq!(key("git push *").as_deref(), Some("git push"));
        assert_eq!(key("git push").as_deref(), Some("git push"));
        assert_eq!(
            key("git push --force *").as_deref(),
            Some("git push --force")
        );
        assert_eq!(
            key("git push --force x y").as_deref(),
            Some("git push --force")
        );
        assert_eq!(key("git push*").as_deref(), Some("git"));
        assert_eq!(key("git *").as_deref(), Some("git"));
        assert_eq!(key("git").as_deref(), Some("git"));
        assert_eq!(key("git  push").as_deref(), Some("git"));
        assert_eq!(key("*git push"), None);
        assert_eq!(key(" git"), None);
        for (p, t) in [
            ("git push *", "git push origin main"),
            ("git push", "git push"),
            ("git push --force *", "git push --force x"),
            ("git push --force *", "git push --force"),
            ("git push*", "git pushy"),
            ("git  push", "git  push"),
        ] {
            assert!(m(p, t));
            let (k, n) = Wildcard::new(p, false).word_key(3).unwrap();
            assert_eq!(k, first_words(t, n, false), "{p} / {t}");
        }
        assert_eq!(first_words("RM -rf x", 2, true), "rm -rf");
        assert_eq!(first_words("ls", 2, false), "ls");
    }

    #[test]
    fn case_folding_only_when_asked() {
        assert!(!m("rm *", "RM -rf"));
        assert!(Wildcard::new("rm *", true).matches("RM -rf"));
    }
}
