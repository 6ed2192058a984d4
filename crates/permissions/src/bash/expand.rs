//! Expansion as the shell would do it (SPEC §4 **\[decision\]** "What the core cannot
//! see, it never lets through"): brace expansion, tilde forms (`~`, `~user`, `~+`,
//! `~-`), parameters (`$HOME`, `$PWD`, variables set earlier in the command or in the
//! session's environment, `${X:-word}` and its kin), field splitting of unquoted
//! results and globs against the file system as it stands, with the shell's rules
//! for dot files.
//!
//! [`expand_word`] gives every value a word may take, or `None` when one stays
//! unknown (a command substitution, an unknown variable, a glob in a folder the core
//! cannot read, or work past [`MAX_EXPANSION`]). The work is bounded: a brace range, a
//! glob walk (entries visited, not only matches) or an expansion past
//! [`MAX_EXPANSION`] words is unknown, not expanded.

use super::walker::Bases;

mod extglob;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// How many words an expansion may give, and how many directory entries a glob may
/// visit, before it counts as unknown (bounded at 10,000).
pub const MAX_EXPANSION: usize = 10_000;

/// How many alternatives of a whole command are judged one by one before the command's
/// unknown words are left unknown.
pub(super) const MAX_ALTERNATIVES: usize = 64;

/// What the shell knows before a command runs: the session's working and home
/// folders and its environment (SPEC §4).
#[derive(Debug, Clone, Default)]
pub struct ShellContext {
    /// The working directory (absolute), as text.
    pub cwd: String,
    /// The home directory (absolute), as text.
    pub home: String,
    /// The session's environment; `None` when it is not known (every variable not set
    /// in the command is then unknown, `HOME` and `PWD` excepted).
    pub env: Option<Arc<BTreeMap<String, String>>>,
    /// Whether the working directory exists on this machine (else a relative glob is
    /// unknown).
    pub cwd_exists: bool,
    /// Whether globs are expanded against the file system at all (`false` for a
    /// command parsed with no session, or one that may change the shell's glob
    /// options: every glob is unknown).
    pub globs: bool,
    /// Whether the session's environment makes every shell run code of its own
    /// (`BASH_ENV`, `ENV`, an exported function `BASH_FUNC_*`, `LD_PRELOAD`,
    /// `LD_AUDIT`): every command may then run anything.
    pub env_runs_code: bool,
    /// Whether `IFS` may not be the default (the command or the environment sets
    /// it): an unquoted expansion's fields are then unknown.
    pub ifs_unknown: bool,
    users: OnceLock<Option<BTreeMap<String, String>>>,
    /// The work spent expanding this command so far (words made, entries visited):
    /// past [`MAX_COMMAND_EXPANSION`], every further expansion is unknown.
    spent: std::cell::Cell<usize>,
}

/// How much expansion work one command may cost in all (words made and directory
/// entries visited, over all its words).
pub const MAX_COMMAND_EXPANSION: usize = 2 * MAX_EXPANSION;

impl ShellContext {
    /// The context of a session in `cwd` with home `home` and environment `env`.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn new(cwd: &Path, home: &Path, env: Option<Arc<BTreeMap<String, String>>>) -> Self {
        ShellContext {
            cwd: cwd.to_string_lossy().into_owned(),
            home: home.to_string_lossy().into_owned(),
            cwd_exists: cwd.is_absolute() && cwd.is_dir(),
            globs: !env
                .as_ref()
                .is_some_and(|e| GLOB_VARIABLES.iter().any(|v| e.contains_key(*v))),
            ifs_unknown: env.as_ref().is_some_and(|e| e.contains_key("IFS")),
            env_runs_code: env.as_ref().is_some_and(|e| {
                e.keys().any(|k| {
                    matches!(k.as_str(), "BASH_ENV" | "ENV" | "LD_PRELOAD" | "LD_AUDIT")
                        || k.starts_with("BASH_FUNC_")
                })
            }),
            env,
            users: OnceLock::new(),
            spent: std::cell::Cell::new(0),
        }
    }

    /// Spends `n` units of the command's expansion budget; `false` once it is gone.
    fn spend(&self, n: usize) -> bool {
        let total = self.spent.get().saturating_add(n);
        self.spent.set(total);
        total <= MAX_COMMAND_EXPANSION
    }

    /// A fingerprint of what expansion reads (for the parse memo's key).
    pub(super) fn key(&self) -> String {
        let mut k = format!(
            "{}\0{}\0{}{}{}{}\0",
            self.cwd, self.home, self.cwd_exists, self.globs, self.ifs_unknown, self.env_runs_code
        );
        if let Some(env) = &self.env {
            for (n, v) in env.iter() {
                k.push_str(n);
                k.push('=');
                k.push_str(v);
                k.push('\0');
            }
        } else {
            k.push('-');
        }
        k
    }

    /// The home folder of `user` from `/etc/passwd` (`None`: the file cannot be read;
    /// `Some(None)`: no such user, so the shell leaves `~user` as written).
    fn user_home(&self, user: &str) -> Option<Option<String>> {
        let users = self.users.get_or_init(|| {
            let text = read_small("/etc/passwd")?;
            let mut m = BTreeMap::new();
            for line in text.lines() {
                let f: Vec<&str> = line.split(':').collect();
                if let (Some(name), Some(home)) = (f.first(), f.get(5)) {
                    m.entry((*name).to_owned())
                        .or_insert_with(|| (*home).to_owned());
                }
            }
            Some(m)
        });
        users.as_ref().map(|m| m.get(user).cloned())
    }
}

/// The most bytes of `/etc/passwd` read to find a home folder (4 MiB).
const MAX_PASSWD_BYTES: u64 = 4 << 20;

/// A small system file as text, read with the bounded opener (SPEC §2.1 "Reading never
/// hangs"): `None` when it cannot be read, is not a regular file, is over
/// [`MAX_PASSWD_BYTES`] or is not UTF-8 (the shell's `~user` is then not known).
fn read_small(path: &str) -> Option<String> {
    let bytes = boundedfs::read_bounded(std::path::Path::new(path), MAX_PASSWD_BYTES).ok()?;
    String::from_utf8(bytes).ok()
}

/// Variables that make the shell, or the programs it starts, run code of their own
/// choosing: setting one makes a command one that may run anything (SPEC §4 "What the
/// core cannot see"). `PS4` and `PROMPT_COMMAND` are followed instead.
const CODE_VARIABLES: &[&str] = &[
    "BASH_ENV",
    "ENV",
    "LESSOPEN",
    "LESSCLOSE",
    "GIT_SSH_COMMAND",
    "GIT_SSH",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PAGER",
    "GIT_EXTERNAL_DIFF",
    "GIT_ASKPASS",
    "GIT_PROXY_COMMAND",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
    "GIT_EXEC_PATH",
    "GIT_TEMPLATE_DIR",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_DIR",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "MANPAGER",
    "SYSTEMD_PAGER",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "LD_PRELOAD",
    "LD_LIBRARY_PATH",
    "LD_AUDIT",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "NODE_OPTIONS",
    "NODE_PATH",
    "RUBYOPT",
    "RUBYLIB",
    "SHELLOPTS",
    "BASHOPTS",
    "TAR_OPTIONS",
    "MAKEFLAGS",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "SHELL",
    "MAKE",
    "MAKESHELL",
    "MAKEFILES",
    "MANROFFOPT",
    "GROFF_COMMAND_PREFIX",
    "HISTFILE",
    "CDPATH",
    "BASH_CMDS",
    "BASH_ALIASES",
    "ZIPOPT",
    "RSYNC_RSH",
    "CVS_RSH",
    "BROWSER",
    "INPUTRC",
];

/// Whether setting the variable `name` makes what runs next run code of its own.
#[must_use]
pub(super) fn is_code_variable(name: &str) -> bool {
    CODE_VARIABLES.contains(&name)
        || name.starts_with("BASH_FUNC_")
        || name.starts_with("GIT_CONFIG_KEY_")
        || name.starts_with("GIT_CONFIG_VALUE_")
        || name.starts_with("DYLD_")
}

/// Variables that change how globs expand (`GLOBIGNORE` also turns `dotglob` on).
const GLOB_VARIABLES: &[&str] = &["GLOBIGNORE", "BASHOPTS", "SHELLOPTS", "BASH_ENV", "ENV"];

impl ShellContext {
    /// This context where the command may change how words expand (`shopt`, `set
    /// -f`, `IFS=`, code the core cannot read): globs and splitting are unknown.
    #[must_use]
    pub(super) fn without_options(&self) -> Self {
        ShellContext {
            globs: false,
            ifs_unknown: true,
            users: self.users.clone(),
            spent: std::cell::Cell::new(0),
            ..self.clone()
        }
    }
}

/// What a variable holds where a word is expanded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Var {
    /// One of these values.
    Values(Vec<String>),
    /// A number (the result of arithmetic): unknown as text, but never code when
    /// arithmetic reads it.
    Number,
    /// Not known before the shell runs.
    Unknown,
}

/// The variables the command set before a word, by name.
pub(super) type Vars = BTreeMap<String, Var>;

/// One piece of a word as written, for expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Seg {
    /// Literal text; `active` when unquoted (braces and glob characters work).
    Lit { text: String, active: bool },
    /// `~` or `~user` at the word's start (`user` may be `+` or `-`).
    Tilde(String),
    /// A parameter expansion as written (`$X`, `${X:-d}`), and whether it is quoted.
    Param { src: String, quoted: bool },
    /// Known only when the shell runs: a command substitution.
    Unknown,
    /// Arithmetic: known only when the shell runs, but a number.
    Arith,
}

/// Where a word is expanded: the session, the variables set before it, the
/// directories the command may be in, and whether lookups are all unknown (a function
/// body or a string run later, where any variable may have changed).
pub(super) struct Scope<'a> {
    pub ctx: &'a ShellContext,
    pub vars: &'a Vars,
    pub bases: &'a Bases,
    pub late: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Atom {
    /// A character; `active` when unquoted.
    Ch(char, bool),
    /// The start of a tilde prefix with this user.
    Tilde(usize),
    /// A parameter, by index into the word's segments.
    Param(usize),
    /// A field break (whitespace from an unquoted expansion).
    Break,
}

/// What expanding a word did: its alternatives, and whether it looked at the file
/// system (such a result is not memoized).
#[derive(Debug, Default)]
pub(super) struct Expanded {
    pub alternatives: Vec<Vec<String>>,
    pub looked_at_files: bool,
}

/// Every value the word `segs` may take, as alternatives of fields (a brace or glob
/// gives several fields; a variable with several values gives several alternatives);
/// `None` when part of it is only known when the shell runs. `assignment`: the value
/// of `NAME=value` (no brace expansion, splitting or globbing).
///
/// SPEC §4 **\[decision\]** "What the core cannot see".
pub(super) fn expand_word(segs: &[Seg], scope: &Scope<'_>, assignment: bool) -> Option<Expanded> {
    let mut atoms = Vec::new();
    for (i, s) in segs.iter().enumerate() {
        match s {
            Seg::Lit { text, active } => atoms.extend(text.chars().map(|c| Atom::Ch(c, *active))),
            Seg::Tilde(_) => atoms.push(Atom::Tilde(i)),
            Seg::Param { .. } => atoms.push(Atom::Param(i)),
            Seg::Unknown | Seg::Arith => return None,
        }
    }
    if atoms.len() > MAX_EXPANSION * 4 {
        return None;
    }
    // What is left of the command's budget bounds this word's work too.
    let left = MAX_COMMAND_EXPANSION.saturating_sub(scope.ctx.spent.get());
    if left == 0 {
        return None;
    }
    let braced = if assignment {
        vec![atoms]
    } else {
        let mut budget = MAX_EXPANSION.min(left);
        braces(&atoms, &mut budget)?
    };
    let mut out = Expanded {
        alternatives: vec![Vec::new()],
        looked_at_files: false,
    };
    let mut total = 0usize;
    for word in braced {
        // The fields of one brace word, for each value its parameters may take.
        let mut word_alts: Vec<Vec<String>> = Vec::new();
        for alt in params(&word, segs, scope, assignment)? {
            let fields = if assignment {
                vec![alt]
            } else {
                split_fields(alt)
            };
            let mut expanded_fields = Vec::new();
            for f in fields {
                if !assignment && has_glob(&f) {
                    out.looked_at_files = true;
                    expanded_fields.extend(glob(&f, scope)?);
                } else {
                    expanded_fields.push(text_of(&f));
                }
            }
            total += expanded_fields.len().max(1);
            if total > MAX_EXPANSION || !scope.ctx.spend(expanded_fields.len().max(1)) {
                return None;
            }
            word_alts.push(expanded_fields);
        }
        // Brace words follow one another as fields; values are alternatives. One
        // value (the common case) extends every alternative in place.
        if let [only] = word_alts.as_slice() {
            for done in &mut out.alternatives {
                done.extend(only.iter().cloned());
            }
            continue;
        }
        let mut next = Vec::new();
        for done in &out.alternatives {
            for w in &word_alts {
                let mut n = done.clone();
                n.extend(w.iter().cloned());
                next.push(n);
            }
        }
        if next.len() > MAX_ALTERNATIVES {
            return None;
        }
        out.alternatives = next;
    }
    Some(out)
}

fn text_of(atoms: &[Atom]) -> String {
    atoms
        .iter()
        .filter_map(|a| match a {
            Atom::Ch(c, _) => Some(*c),
            _ => None,
        })
        .collect()
}

/// Brace expansion (`{a,b}`, `{1..5}`, `{a..e..2}`) on active characters; the fields
/// of a word in order. `None` past the budget (words made, counted with their atoms).
///
/// The braces are matched once (a stack), the word read into a tree of literal atoms
/// and groups of alternatives, and the tree expanded with the budget checked before
/// each product: the work is linear in the word and in what it makes.
fn braces(atoms: &[Atom], budget: &mut usize) -> Option<Vec<Vec<Atom>>> {
    if !atoms.contains(&Atom::Ch('{', true)) {
        return Some(vec![atoms.to_vec()]);
    }
    // Matching braces and the top-level commas of each pair.
    let mut close = vec![usize::MAX; atoms.len()];
    let mut commas: Vec<Vec<usize>> = vec![Vec::new(); atoms.len()];
    let mut stack: Vec<usize> = Vec::new();
    for (i, a) in atoms.iter().enumerate() {
        match a {
            Atom::Ch('{', true) => stack.push(i),
            Atom::Ch('}', true) => {
                if let Some(open) = stack.pop() {
                    if let Some(c) = close.get_mut(open) {
                        *c = i;
                    }
                }
            }
            Atom::Ch(',', true) => {
                if let Some(&open) = stack.last() {
                    if let Some(list) = commas.get_mut(open) {
                        list.push(i);
                    }
                }
            }
            _ => {}
        }
    }
    let tree = brace_tree(atoms, 0, atoms.len(), &close, &commas, budget)?;
    expand_tree(&tree, budget)
}

/// One node of a word read for brace expansion.
enum BraceNode {
    /// A character or piece kept as it is.
    Atom(Atom),
    /// `{a,b}` or a range: one of these sequences.
    Group(Vec<Vec<BraceNode>>),
}

/// The nodes of `atoms[from..to]`.
fn brace_tree(
    atoms: &[Atom],
    from: usize,
    to: usize,
    close: &[usize],
    commas: &[Vec<usize>],
    budget: &mut usize,
) -> Option<Vec<BraceNode>> {
    let mut out = Vec::new();
    let mut i = from;
    while i < to {
        let a = *atoms.get(i)?;
        let end = close.get(i).copied().unwrap_or(usize::MAX);
        if a == Atom::Ch('{', true) && end < to {
            let inner = atoms.get(i + 1..end).unwrap_or_default();
            let cs = commas.get(i).map(Vec::as_slice).unwrap_or_default();
            if !cs.is_empty() {
                let mut alternatives = Vec::new();
                let mut start = i + 1;
                for &c in cs.iter().chain(std::iter::once(&end)) {
                    alternatives.push(brace_tree(atoms, start, c, close, commas, budget)?);
                    start = c + 1;
                }
                out.push(BraceNode::Group(alternatives));
                i = end + 1;
                continue;
            }
            if is_range(inner) {
                let words = range(inner, budget)?;
                out.push(BraceNode::Group(
                    words
                        .into_iter()
                        .map(|w| w.into_iter().map(BraceNode::Atom).collect())
                        .collect(),
                ));
                i = end + 1;
                continue;
            }
        }
        out.push(BraceNode::Atom(a));
        i += 1;
    }
    Some(out)
}

/// Every word a tree makes, in order; `None` past the budget.
fn expand_tree(nodes: &[BraceNode], budget: &mut usize) -> Option<Vec<Vec<Atom>>> {
    let mut words: Vec<Vec<Atom>> = vec![Vec::new()];
    for node in nodes {
        match node {
            BraceNode::Atom(a) => {
                for w in &mut words {
                    w.push(*a);
                }
            }
            BraceNode::Group(alternatives) => {
                let mut made = Vec::new();
                for alt in alternatives {
                    made.extend(expand_tree(alt, budget)?);
                }
                let count = words.len().checked_mul(made.len())?;
                let size: usize = words.iter().map(Vec::len).sum::<usize>() * made.len()
                    + made.iter().map(Vec::len).sum::<usize>() * words.len();
                let cost = count.checked_add(size / 16)?;
                if cost > *budget {
                    return None;
                }
                *budget -= cost;
                let mut next = Vec::with_capacity(count);
                for w in &words {
                    for m in &made {
                        let mut n = w.clone();
                        n.extend_from_slice(m);
                        next.push(n);
                    }
                }
                words = next;
            }
        }
    }
    Some(words)
}

fn plain_text(atoms: &[Atom]) -> Option<String> {
    atoms
        .iter()
        .map(|a| match a {
            Atom::Ch(c, _) => Some(*c),
            _ => None,
        })
        .collect()
}

fn range_parts(inner: &[Atom]) -> Option<(String, String, Option<i64>)> {
    let text = plain_text(inner)?;
    let mut it = text.split("..");
    let a = it.next()?.to_owned();
    let b = it.next()?.to_owned();
    let step = match it.next() {
        Some(s) => Some(s.parse::<i64>().ok()?),
        None => None,
    };
    if it.next().is_some() {
        return None;
    }
    Some((a, b, step))
}

fn is_range(inner: &[Atom]) -> bool {
    range_parts(inner).is_some_and(|(a, b, _)| {
        (a.parse::<i64>().is_ok() && b.parse::<i64>().is_ok())
            || (a.chars().count() == 1
                && b.chars().count() == 1
                && a.chars().all(|c| c.is_ascii_alphabetic())
                && b.chars().all(|c| c.is_ascii_alphabetic()))
    })
}

/// The words of a range `a..b[..step]`; `None` past the budget.
fn range(inner: &[Atom], budget: &mut usize) -> Option<Vec<Vec<Atom>>> {
    let (a, b, step) = range_parts(inner)?;
    let step = step.unwrap_or(1).unsigned_abs().max(1);
    let chars = |s: String| s.chars().map(|c| Atom::Ch(c, false)).collect::<Vec<_>>();
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let count = x.abs_diff(y) / step + 1;
        if count > *budget as u64 {
            return None;
        }
        let width = if (a.starts_with('0') && a.len() > 1) || (b.starts_with('0') && b.len() > 1) {
            a.len().max(b.len())
        } else {
            0
        };
        let mut out = Vec::new();
        let mut v = i128::from(x);
        for _ in 0..count {
            out.push(chars(format!("{v:0width$}")));
            if x <= y {
                v += i128::from(step);
            } else {
                v -= i128::from(step);
            }
        }
        return Some(out);
    }
    let (x, y) = (a.chars().next()?, b.chars().next()?);
    let (lo, hi) = (u32::from(x.min(y)), u32::from(x.max(y)));
    let mut out: Vec<Vec<Atom>> = (lo..=hi)
        .step_by(usize::try_from(step).unwrap_or(1))
        .filter_map(char::from_u32)
        .map(|c| vec![Atom::Ch(c, false)])
        .collect();
    if x > y {
        out.reverse();
    }
    Some(out)
}

/// The tilde prefix and parameters of one word resolved: its alternatives, each a run
/// of atoms with field breaks where an unquoted expansion held whitespace.
fn params(
    word: &[Atom],
    segs: &[Seg],
    scope: &Scope<'_>,
    assignment: bool,
) -> Option<Vec<Vec<Atom>>> {
    let mut alts: Vec<Vec<Atom>> = vec![Vec::new()];
    let mut at_start = true;
    for a in word {
        let values: Vec<(String, bool)> = match a {
            Atom::Ch(..) | Atom::Break => {
                for alt in &mut alts {
                    alt.push(*a);
                }
                at_start = false;
                continue;
            }
            Atom::Tilde(i) => {
                let Some(Seg::Tilde(user)) = segs.get(*i) else {
                    return None;
                };
                if !at_start {
                    vec![(format!("~{user}"), false)]
                } else {
                    tilde(user, scope)?
                        .into_iter()
                        .map(|v| (v, false))
                        .collect()
                }
            }
            Atom::Param(i) => {
                let Some(Seg::Param { src, quoted }) = segs.get(*i) else {
                    return None;
                };
                let split = !quoted && !assignment;
                if split && scope.ctx.ifs_unknown {
                    return None;
                }
                parameter(src, scope)?
                    .into_iter()
                    .map(|v| (v, split))
                    .collect()
            }
        };
        at_start = false;
        let mut next = Vec::new();
        for alt in &alts {
            for (v, split) in &values {
                let mut n = alt.clone();
                for c in v.chars() {
                    if *split && matches!(c, ' ' | '\t' | '\n') {
                        n.push(Atom::Break);
                    } else {
                        // Unquoted results are globbed too.
                        n.push(Atom::Ch(c, *split));
                    }
                }
                next.push(n);
                if next.len() > MAX_ALTERNATIVES {
                    return None;
                }
            }
        }
        alts = next;
    }
    Some(alts)
}

/// The directory a part runs in, if known: the working directory joined with the
/// bases, one per base.
fn pwd(scope: &Scope<'_>) -> Option<Vec<String>> {
    if scope.bases.unknown || scope.late {
        return None;
    }
    Some(
        scope
            .bases
            .dirs
            .iter()
            .map(|d| absolute(d, scope.ctx))
            .collect(),
    )
}

/// A base directory as written (`""`, relative, `~/x` or absolute) made absolute.
fn absolute(dir: &str, ctx: &ShellContext) -> String {
    if dir.is_empty() {
        ctx.cwd.clone()
    } else if dir == "~" {
        ctx.home.clone()
    } else if let Some(r) = dir.strip_prefix("~/") {
        format!("{}/{r}", ctx.home.trim_end_matches('/'))
    } else if dir.starts_with('/') {
        dir.to_owned()
    } else {
        format!("{}/{dir}", ctx.cwd.trim_end_matches('/'))
    }
}

fn tilde(user: &str, scope: &Scope<'_>) -> Option<Vec<String>> {
    match user {
        "" => Some(vec![lookup("HOME", scope)?.first()?.clone()]),
        "+" => pwd(scope),
        "-" => lookup("OLDPWD", scope),
        // `~N`, `~+N`, `~-N`: entries of the folder stack `pushd` builds (bash 5.2:
        // `pushd secrets && pushd .. && cat ~1/key.pem` reads `secrets/key.pem`);
        // `~0` and `~+0` are the current folder, the others not followed.
        name if name
            .strip_prefix(['+', '-'])
            .unwrap_or(name)
            .chars()
            .all(|c| c.is_ascii_digit()) =>
        {
            match name {
                "0" | "+0" => pwd(scope),
                _ => None,
            }
        }
        name => match scope.ctx.user_home(name)? {
            Some(home) => Some(vec![home]),
            None => Some(vec![format!("~{name}")]),
        },
    }
}

/// The values of variable `name` where the word is expanded.
pub(super) fn lookup(name: &str, scope: &Scope<'_>) -> Option<Vec<String>> {
    if scope.late {
        return None;
    }
    if let Some(v) = scope.vars.get(name) {
        return match v {
            Var::Values(vs) => Some(vs.clone()),
            Var::Number | Var::Unknown => None,
        };
    }
    match name {
        "PWD" => return pwd(scope),
        "OLDPWD" => match &scope.bases.old {
            Some(old) if !scope.bases.unknown => {
                return Some(old.iter().map(|d| absolute(d, scope.ctx)).collect());
            }
            Some(_) => return None,
            None if scope.bases.dirs.iter().any(|d| !d.is_empty()) || scope.bases.unknown => {
                return None;
            }
            None => {}
        },
        _ => {}
    }
    if let Some(v) = scope.ctx.env.as_ref().and_then(|e| e.get(name)) {
        return Some(vec![v.clone()]);
    }
    match name {
        "HOME" if !scope.ctx.home.is_empty() => Some(vec![scope.ctx.home.clone()]),
        _ => None,
    }
}

pub(super) fn is_var_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_')
}

/// The values of a parameter expansion as written: `$X`, `${X}`, and `${X:-w}`,
/// `${X-w}`, `${X:=w}`, `${X=w}`, `${X:+w}`, `${X+w}` with a plain operand; `None`
/// for every other form or an unknown variable.
fn parameter(src: &str, scope: &Scope<'_>) -> Option<Vec<String>> {
    let inner = match src.strip_prefix("${").and_then(|s| s.strip_suffix('}')) {
        Some(i) => i,
        None => src.strip_prefix('$')?,
    };
    if is_var_name(inner) {
        return lookup(inner, scope);
    }
    let end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let (name, rest) = inner.split_at(end);
    if !is_var_name(name) {
        return None;
    }
    let (op, operand) = ["-", ":-", "=", ":=", "+", ":+", "#", "##", "%", "%%"]
        .iter()
        .rev()
        .find_map(|op| rest.strip_prefix(op).map(|w| (*op, w)))?;
    if operand.contains(['$', '`', '"', '\'', '\\', '*', '?', '[', '{', '~']) {
        return None;
    }
    let values = lookup(name, scope)?;
    Some(
        values
            .into_iter()
            .map(|v| {
                let empty = v.is_empty();
                match op {
                    ":-" | ":=" if empty => operand.to_owned(),
                    ":+" if !empty => operand.to_owned(),
                    ":+" => String::new(),
                    "+" => operand.to_owned(),
                    // A literal pattern: the shortest and longest match are the same.
                    "#" | "##" => v.strip_prefix(operand).unwrap_or(&v).to_owned(),
                    "%" | "%%" => v.strip_suffix(operand).unwrap_or(&v).to_owned(),
                    _ => v,
                }
            })
            .collect(),
    )
}

/// A word's atoms split into fields at breaks; an empty field that came from an
/// unquoted expansion alone disappears.
fn split_fields(atoms: Vec<Atom>) -> Vec<Vec<Atom>> {
    let had_any = !atoms.is_empty();
    let mut fields = vec![Vec::new()];
    let mut broke = false;
    for a in atoms {
        if a == Atom::Break {
            broke = true;
            if fields.last().is_some_and(|f| !f.is_empty()) {
                fields.push(Vec::new());
            }
        } else if let Some(f) = fields.last_mut() {
            f.push(a);
        }
    }
    if fields.len() > 1 || broke {
        fields.retain(|f| !f.is_empty());
    }
    if !had_any {
        return vec![Vec::new()];
    }
    fields
}

fn is_glob_char(a: &Atom) -> bool {
    matches!(a, Atom::Ch('*' | '?' | '[', true))
}

fn has_glob(field: &[Atom]) -> bool {
    field.iter().any(is_glob_char) || extglob::has_extended(field)
}

/// One segment of a glob: `*`, `?`, `[...]` active; everything else literal. Whether
/// `name` matches (a leading `.` must be matched by a literal `.`).
fn segment_matches(pat: &[Atom], name: &str) -> bool {
    if name.starts_with('.') && !matches!(pat.first(), Some(Atom::Ch('.', _))) {
        return false;
    }
    let name: Vec<char> = name.chars().collect();
    match_from(pat, &name)
}

fn match_from(pat: &[Atom], name: &[char]) -> bool {
    // Iterative star matching with one backtrack point.
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if let Some(a) = pat.get(p) {
            match a {
                Atom::Ch('*', true) => {
                    star = Some((p, n));
                    p += 1;
                    continue;
                }
                Atom::Ch('?', true) if n < name.len() => {
                    p += 1;
                    n += 1;
                    continue;
                }
                Atom::Ch('[', true) => {
                    if let Some((len, hit)) = class(pat.get(p..).unwrap_or_default(), name.get(n)) {
                        if hit {
                            p += len;
                            n += 1;
                            continue;
                        }
                    } else if name.get(n) == Some(&'[') {
                        p += 1;
                        n += 1;
                        continue;
                    }
                }
                Atom::Ch(c, _) if name.get(n) == Some(c) => {
                    p += 1;
                    n += 1;
                    continue;
                }
                _ => {}
            }
        } else if n == name.len() {
            return true;
        }
        match star {
            Some((sp, sn)) if sn < name.len() => {
                star = Some((sp, sn + 1));
                p = sp + 1;
                n = sn + 1;
            }
            _ => return false,
        }
    }
}

/// A bracket expression at the start of `pat`: its length in atoms and whether `c` is
/// in it; `None` when the `[` opens none (then it is a literal `[`). POSIX classes
/// (`[:alpha:]`), equivalence classes (`[=r=]`) and collating symbols (`[.r.]`)
/// count; one the core does not know matches every character (more candidates only
/// make deny and ask rules meet more).
fn class(pat: &[Atom], c: Option<&char>) -> Option<(usize, bool)> {
    let mut i = 1;
    let negate = matches!(pat.get(1), Some(Atom::Ch('!' | '^', _)));
    if negate {
        i += 1;
    }
    let start = i;
    let ch = c.copied();
    let mut hit = false;
    loop {
        let Atom::Ch(x, _) = *pat.get(i)? else {
            return None;
        };
        if x == ']' && i > start {
            break;
        }
        if x == '[' {
            if let Some(Atom::Ch(kind @ (':' | '=' | '.'), _)) = pat.get(i + 1).copied() {
                let mut j = i + 2;
                let mut name = String::new();
                loop {
                    match (pat.get(j), pat.get(j + 1)) {
                        (Some(Atom::Ch(a, _)), Some(Atom::Ch(']', _))) if *a == kind => break,
                        (Some(Atom::Ch(a, _)), _) => {
                            name.push(*a);
                            j += 1;
                        }
                        _ => return None,
                    }
                }
                hit |= ch.is_some_and(|c| match kind {
                    ':' => posix_class(&name, c),
                    _ => {
                        let mut n = name.chars();
                        match (n.next(), n.next()) {
                            (Some(only), None) => only == c,
                            _ => true,
                        }
                    }
                });
                i = j + 2;
                continue;
            }
        }
        if let (Some(Atom::Ch('-', _)), Some(Atom::Ch(y, _))) = (pat.get(i + 1), pat.get(i + 2)) {
            if *y != ']' {
                hit |= ch.is_some_and(|c| x <= c && c <= *y);
                i += 3;
                continue;
            }
        }
        hit |= ch == Some(x);
        i += 1;
    }
    Some((i + 1, hit != negate && c.is_some()))
}

/// Whether `c` is in the POSIX character class `name` (`alpha`, `digit`, ...); a class
/// the core does not know holds every character.
fn posix_class(name: &str, c: char) -> bool {
    match name {
        "alpha" => c.is_alphabetic(),
        "digit" => c.is_ascii_digit(),
        "alnum" => c.is_alphanumeric(),
        "upper" => c.is_uppercase(),
        "lower" => c.is_lowercase(),
        "space" => c.is_whitespace(),
        "blank" => c == ' ' || c == '\t',
        "punct" => c.is_ascii_punctuation(),
        "print" => !c.is_control(),
        "graph" => !c.is_control() && !c.is_whitespace(),
        "cntrl" => c.is_control(),
        "xdigit" => c.is_ascii_hexdigit(),
        "word" => c.is_alphanumeric() || c == '_',
        _ => true,
    }
}

/// The paths a glob field names on the file system, sorted, as the shell would give
/// them (the pattern itself when nothing matches); `None` when the folder it walks
/// cannot be read or is not known, or past [`MAX_EXPANSION`] entries visited.
fn glob(field: &[Atom], scope: &Scope<'_>) -> Option<Vec<String>> {
    if !scope.ctx.globs {
        return None;
    }
    let absolute = matches!(field.first(), Some(Atom::Ch('/', _)));
    let roots: Vec<(String, String)> = if absolute {
        vec![("/".to_owned(), String::new())]
    } else {
        if !scope.ctx.cwd_exists || scope.bases.unknown || scope.late {
            return None;
        }
        scope
            .bases
            .dirs
            .iter()
            .map(|d| (self::absolute(d, scope.ctx), String::new()))
            .collect()
    };
    let segments: Vec<&[Atom]> = field
        .split(|a| *a == Atom::Ch('/', true) || *a == Atom::Ch('/', false))
        .collect();
    let mut visited = 0usize;
    // (directory on disk, path as the shell prints it)
    let mut current = roots;
    let last = segments.len().saturating_sub(1);
    for (k, seg) in segments.iter().enumerate() {
        if seg.is_empty() {
            if k == 0 && absolute {
                continue;
            }
            for (_, shown) in &mut current {
                shown.push('/');
            }
            continue;
        }
        let mut next = Vec::new();
        if has_glob(seg) {
            let extended = extglob::has_extended(seg);
            for (dir, shown) in &current {
                let entries = match std::fs::read_dir(dir) {
                    Ok(e) => e,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                    Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => continue,
                    Err(_) => return None,
                };
                let mut names = Vec::new();
                for entry in entries {
                    visited += 1;
                    if visited > MAX_EXPANSION || !scope.ctx.spend(1) {
                        return None;
                    }
                    let Ok(entry) = entry else { return None };
                    let name = entry.file_name().to_string_lossy().into_owned();
                    let hit = if extended {
                        extglob::matches(seg, &name)?
                    } else {
                        segment_matches(seg, &name)
                    };
                    if hit {
                        if k < last && !PathBuf::from(dir).join(&name).is_dir() {
                            continue;
                        }
                        names.push(name);
                    }
                }
                names.sort();
                for name in names {
                    let on_disk = PathBuf::from(dir)
                        .join(&name)
                        .to_string_lossy()
                        .into_owned();
                    next.push((on_disk, join_shown(shown, &name, absolute && k == 1)));
                }
            }
        } else {
            let name = text_of(seg);
            for (dir, shown) in &current {
                let on_disk = PathBuf::from(dir)
                    .join(&name)
                    .to_string_lossy()
                    .into_owned();
                next.push((on_disk, join_shown(shown, &name, absolute && k == 1)));
            }
        }
        current = next;
        if current.is_empty() {
            break;
        }
    }
    if current.is_empty() {
        return Some(vec![text_of(field)]);
    }
    let mut out: Vec<String> = current.into_iter().map(|(_, shown)| shown).collect();
    out.dedup();
    Some(out)
}

fn join_shown(shown: &str, name: &str, after_root: bool) -> String {
    if shown.is_empty() {
        if after_root {
            format!("/{name}")
        } else {
            name.to_owned()
        }
    } else if shown.ends_with('/') {
        format!("{shown}{name}")
    } else {
        format!("{shown}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(s: &str) -> Seg {
        Seg::Lit {
            text: s.to_owned(),
            active: true,
        }
    }

    fn scope_with<'a>(ctx: &'a ShellContext, vars: &'a Vars, bases: &'a Bases) -> Scope<'a> {
        Scope {
            ctx,
            vars,
            bases,
            late: false,
        }
    }

    #[test]
    fn braces_give_fields_in_order() {
        let ctx = ShellContext::default();
        let (vars, bases) = (Vars::new(), Bases::default());
        let s = scope_with(&ctx, &vars, &bases);
        let e = expand_word(&[lit("{secrets,x}/key.pem")], &s, false).unwrap();
        assert_eq!(
            e.alternatives,
            vec![vec!["secrets/key.pem".to_owned(), "x/key.pem".to_owned()]]
        );
        let e = expand_word(&[lit("a{1..3}")], &s, false).unwrap();
        let all: Vec<String> = e.alternatives.into_iter().flatten().collect();
        assert_eq!(all, vec!["a1", "a2", "a3"]);
        assert!(expand_word(&[lit("{1..100000}")], &s, false).is_none());
        // Not a brace expansion: kept as written.
        let e = expand_word(&[lit("{}")], &s, false).unwrap();
        assert_eq!(e.alternatives, vec![vec!["{}".to_owned()]]);
    }

    #[test]
    fn parameters_known_and_unknown() {
        let ctx = ShellContext {
            home: "/home/dev".to_owned(),
            cwd: "/w".to_owned(),
            ..ShellContext::default()
        };
        let mut vars = Vars::new();
        vars.insert("X".to_owned(), Var::Values(vec!["rm -rf".to_owned()]));
        let bases = Bases::default();
        let s = scope_with(&ctx, &vars, &bases);
        let p = |src: &str, quoted| Seg::Param {
            src: src.to_owned(),
            quoted,
        };
        let e = expand_word(&[p("$X", false)], &s, false).unwrap();
        assert_eq!(
            e.alternatives,
            vec![vec!["rm".to_owned(), "-rf".to_owned()]]
        );
        let e = expand_word(&[p("$X", true)], &s, false).unwrap();
        assert_eq!(e.alternatives, vec![vec!["rm -rf".to_owned()]]);
        let e = expand_word(&[p("$HOME", false), lit("/x")], &s, false).unwrap();
        assert_eq!(e.alternatives, vec![vec!["/home/dev/x".to_owned()]]);
        let e = expand_word(&[Seg::Tilde("+".to_owned()), lit("/s")], &s, false).unwrap();
        assert_eq!(e.alternatives, vec![vec!["/w/s".to_owned()]]);
        assert!(expand_word(&[p("$NOPE", false)], &s, false).is_none());
        assert!(expand_word(&[p("${NOPE:-secrets}", false)], &s, false).is_none());
        assert!(expand_word(&[Seg::Unknown], &s, false).is_none());
    }

    #[test]
    fn glob_segments_follow_the_dot_file_rule() {
        let m = |p: &str, n: &str| {
            let atoms: Vec<Atom> = p.chars().map(|c| Atom::Ch(c, true)).collect();
            segment_matches(&atoms, n)
        };
        assert!(m("secr?ts", "secrets"));
        assert!(m("*", "key.pem"));
        assert!(!m("*", ".env"));
        assert!(m(".*", ".env"));
        assert!(m("[a-c]at", "bat"));
        assert!(!m("[!a-c]at", "bat"));
        assert!(m("*.pem", "key.pem"));
        assert!(!m("*.pem", "key.pub"));
        assert!(m("sec[[:alpha:]]ets", "secrets"));
        assert!(m("sec[[:punct:][:lower:]]ets", "secrets"));
        assert!(m("sec[[=r=]]ets", "secrets"));
        assert!(m("sec[[.r.]]ets", "secrets"));
        assert!(!m("sec[[:digit:]]ets", "secrets"));
        assert!(m("[[:nosuch:]]ecrets", "secrets"));
    }
}
