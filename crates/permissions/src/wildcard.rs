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
    fn case_folding_only_when_asked() {
        assert!(!m("rm *", "RM -rf"));
        assert!(Wildcard::new("rm *", true).matches("RM -rf"));
    }
}
