//! One glob segment with bash's extended patterns (`extglob`): `@(a|b)` (one of),
//! `?(a|b)` (zero or one), `*(a|b)` (zero or more), `+(a|b)` (one or more) and
//! `!(a|b)` (anything but), nested and beside `*`, `?` and `[...]`. SPEC §4
//! **\[decision\]** "What the core cannot see, it never lets through": a program or
//! path written as a pattern (`/usr/bin/@(rm) -rf build`) is what the pattern meets on
//! the file system, so a deny rule that surely meets it denies.
//!
//! The core reads these patterns whether or not `shopt -s extglob` is in sight: a
//! person's shell snapshot may turn it on, and without it bash refuses the command
//! outright, so reading the pattern never lets through what bash would run.
//!
//! Matching is over sets of positions in the name (no backtracking), bounded by
//! [`MAX_STEPS`]: past it, or for a pattern that does not parse (an unbalanced
//! `@(`, nesting past [`MAX_NESTING`]), the answer is "unknown" and the glob stays
//! unknown.

use super::{class, Atom};

/// The deepest nesting of extended patterns read (`@(@(@(x)))`).
const MAX_NESTING: usize = 16;
/// The most position steps one match may take (a name of 255 characters against a
/// pattern of a few dozen nodes takes a few thousand).
const MAX_STEPS: usize = 200_000;

/// One element of a pattern.
enum Node<'a> {
    Lit(char),
    /// `?`
    Any,
    /// `*`
    Star,
    /// `[...]`, as its atoms.
    Class(&'a [Atom]),
    /// `@(...)`, `?(...)`, `*(...)`, `+(...)`, `!(...)`: the operator and the
    /// alternatives.
    Ext(char, Vec<Vec<Node<'a>>>),
}

/// Whether an unquoted extended pattern opens at `i` (`@(`, `+(`, `!(`, `?(`, `*(`).
pub(super) fn opens_at(pat: &[Atom], i: usize) -> bool {
    matches!(
        pat.get(i),
        Some(Atom::Ch('@' | '+' | '!' | '?' | '*', true))
    ) && matches!(pat.get(i + 1), Some(Atom::Ch('(', true)))
}

/// Whether the segment holds an extended pattern.
pub(super) fn has_extended(pat: &[Atom]) -> bool {
    (0..pat.len()).any(|i| opens_at(pat, i))
}

/// Whether `name` matches the segment `pat`; `None` when the pattern does not parse
/// or the match is past [`MAX_STEPS`]. A name starting with `.` is matched only by a
/// pattern that starts with a literal `.` or an extended pattern other than `!(`
/// (whose own alternatives then decide), as bash does without `dotglob`.
pub(super) fn matches(pat: &[Atom], name: &str) -> Option<bool> {
    let mut i = 0;
    let alts = parse(pat, &mut i, 0, false)?;
    let seq = alts.into_iter().next().unwrap_or_default();
    if name.starts_with('.') {
        let led = match seq.first() {
            Some(Node::Lit('.')) => true,
            Some(Node::Ext(op, _)) => *op != '!',
            _ => false,
        };
        if !led {
            return Some(false);
        }
    }
    let name: Vec<char> = name.chars().collect();
    let mut start = vec![false; name.len() + 1];
    if let Some(s) = start.first_mut() {
        *s = true;
    }
    let mut steps = 0usize;
    let ends = run(&seq, &name, start, &mut steps)?;
    Some(ends.last().copied().unwrap_or(false))
}

/// The alternatives from `*i` to the closing `)` (`inside`) or to the end.
fn parse<'a>(
    pat: &'a [Atom],
    i: &mut usize,
    depth: usize,
    inside: bool,
) -> Option<Vec<Vec<Node<'a>>>> {
    if depth > MAX_NESTING {
        return None;
    }
    let mut alts = vec![Vec::new()];
    while let Some(a) = pat.get(*i) {
        let Atom::Ch(c, active) = *a else {
            return None;
        };
        let current = alts.last_mut()?;
        if active && opens_at(pat, *i) {
            *i += 2;
            let inner = parse(pat, i, depth + 1, true)?;
            current.push(Node::Ext(c, inner));
            continue;
        }
        *i += 1;
        match (c, active) {
            ('*', true) => current.push(Node::Star),
            ('?', true) => current.push(Node::Any),
            ('[', true) => match pat.get(*i - 1..).and_then(|rest| class(rest, None)) {
                Some((len, _)) => {
                    current.push(Node::Class(pat.get(*i - 1..*i - 1 + len)?));
                    *i += len - 1;
                }
                None => current.push(Node::Lit('[')),
            },
            ('|', true) if inside => alts.push(Vec::new()),
            (')', true) if inside => return Some(alts),
            (c, _) => current.push(Node::Lit(c)),
        }
    }
    // An extended pattern never closed: bash refuses it.
    (!inside).then_some(alts)
}

/// The positions `seq` may end at, started at each position set in `from`.
fn run(seq: &[Node<'_>], name: &[char], from: Vec<bool>, steps: &mut usize) -> Option<Vec<bool>> {
    let n = name.len();
    let mut cur = from;
    for node in seq {
        *steps += n + 1;
        if *steps > MAX_STEPS {
            return None;
        }
        let mut next = vec![false; n + 1];
        match node {
            Node::Lit(c) => {
                for p in 0..n {
                    if cur.get(p) == Some(&true) && name.get(p) == Some(c) {
                        set(&mut next, p + 1);
                    }
                }
            }
            Node::Any => {
                for p in 0..n {
                    if cur.get(p) == Some(&true) {
                        set(&mut next, p + 1);
                    }
                }
            }
            Node::Star => {
                if let Some(first) = cur.iter().position(|&b| b) {
                    for q in first..=n {
                        set(&mut next, q);
                    }
                }
            }
            Node::Class(atoms) => {
                for p in 0..n {
                    if cur.get(p) == Some(&true)
                        && class(atoms, name.get(p)).is_some_and(|(_, hit)| hit)
                    {
                        set(&mut next, p + 1);
                    }
                }
            }
            Node::Ext(op, alts) => {
                for p in 0..=n {
                    if cur.get(p) != Some(&true) {
                        continue;
                    }
                    let mut only = vec![false; n + 1];
                    set(&mut only, p);
                    let once = one_of(alts, name, only.clone(), steps)?;
                    let reached = match op {
                        '@' => once,
                        '?' => or(&once, &only),
                        '+' | '*' => {
                            // One or more, to a fixed point.
                            let mut reach = once;
                            loop {
                                let more = one_of(alts, name, reach.clone(), steps)?;
                                let grown = or(&reach, &more);
                                if grown == reach {
                                    break;
                                }
                                reach = grown;
                            }
                            if *op == '*' {
                                or(&reach, &only)
                            } else {
                                reach
                            }
                        }
                        // Anything from `p` that no alternative matches whole.
                        _ => (0..=n)
                            .map(|q| q >= p && once.get(q) != Some(&true))
                            .collect(),
                    };
                    for (q, hit) in reached.into_iter().enumerate() {
                        if hit {
                            set(&mut next, q);
                        }
                    }
                }
            }
        }
        cur = next;
    }
    Some(cur)
}

/// The positions any of `alts` may end at from `from`.
fn one_of(
    alts: &[Vec<Node<'_>>],
    name: &[char],
    from: Vec<bool>,
    steps: &mut usize,
) -> Option<Vec<bool>> {
    let mut out = vec![false; name.len() + 1];
    for alt in alts {
        out = or(&out, &run(alt, name, from.clone(), steps)?);
    }
    Some(out)
}

fn or(a: &[bool], b: &[bool]) -> Vec<bool> {
    a.iter().zip(b).map(|(x, y)| *x || *y).collect()
}

fn set(v: &mut [bool], i: usize) {
    if let Some(b) = v.get_mut(i) {
        *b = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str, n: &str) -> Option<bool> {
        let atoms: Vec<Atom> = p.chars().map(|c| Atom::Ch(c, true)).collect();
        matches(&atoms, n)
    }

    #[test]
    fn each_operator_as_bash_reads_it() {
        assert_eq!(m("@(rm)", "rm"), Some(true));
        assert_eq!(m("@(rm)", "rmdir"), Some(false));
        assert_eq!(m("@(ls|rm)", "rm"), Some(true));
        assert_eq!(m("r@(m|x)", "rx"), Some(true));
        assert_eq!(m("+(r)m", "rrrm"), Some(true));
        assert_eq!(m("+(r)m", "m"), Some(false));
        assert_eq!(m("*(r)m", "m"), Some(true));
        assert_eq!(m("?(x)rm", "rm"), Some(true));
        assert_eq!(m("?(x)rm", "xrm"), Some(true));
        assert_eq!(m("?(x)rm", "xxrm"), Some(false));
        assert_eq!(m("!(ls)", "rm"), Some(true));
        assert_eq!(m("!(ls)", "ls"), Some(false));
        assert_eq!(m("!(l*)", "ls"), Some(false));
        assert_eq!(m("!(x)", ""), Some(true));
        assert_eq!(m("@(r[a-z])", "rm"), Some(true));
        assert_eq!(m("@(@(r)m)", "rm"), Some(true));
        assert_eq!(m("*.@(pem|key)", "id.key"), Some(true));
        assert_eq!(m("*.@(pem|key)", "id.pub"), Some(false));
    }

    #[test]
    fn dot_files_and_what_does_not_parse() {
        assert_eq!(m("!(x)", ".env"), Some(false));
        assert_eq!(m("@(.env)", ".env"), Some(true));
        assert_eq!(m(".@(env)", ".env"), Some(true));
        assert_eq!(m("@(rm", "rm"), None);
        let deep = format!("{}x{}", "@(".repeat(40), ")".repeat(40));
        assert_eq!(m(&deep, "x"), None);
        // A hostile pattern ends unknown, not slow.
        let wide = "+(+(a|b)|*(a|b))".repeat(30);
        assert_eq!(m(&wide, &"a".repeat(255)), None);
        // Quoted operators are literal.
        let atoms = vec![
            Atom::Ch('@', false),
            Atom::Ch('(', false),
            Atom::Ch('x', true),
            Atom::Ch(')', false),
        ];
        assert_eq!(matches(&atoms, "@(x)"), Some(true));
    }
}
