//! Path patterns of `Read(...)`/`Edit(...)` rules (SPEC §4 "Rule syntax", "Paths";
//! reference §3.2 "Read and Edit paths").
//!
//! Gitignore-style: `//abs` is absolute, `~/x` is under the home directory, `/x` is
//! relative to the settings source (absolute for the policy source), `./x` and bare
//! `x` are relative to the working directory; a pattern with no `/` inside matches
//! at any depth below its anchor; `*` stays within one segment and `**` crosses
//! directories; a pattern that matches a directory covers everything below it.
//! Both sides are NFC-normalized and `.`/`..` resolved lexically.
//!
//! Where `/x` is anchored (reference §3.2): project, local, flag, cli and session
//! rules at the working directory (the project root: this crate takes the session's
//! working directory as the folder that holds `.claude/`, and the launch directory
//! for the others); user rules at `~/.claude`; **policy rules at the filesystem
//! root** (an administrator who writes `Read(/etc/shadow)` means that file; the
//! managed folder holds no project).
//!
//! A path is met by its form as typed and by its canonical form ([`canonical`]:
//! symlinks resolved through the longest existing ancestor); a deny or ask rule
//! matching either applies, an allow rule must cover both (SPEC §4 "Paths").
//! Windows paths are normalized to POSIX form: `C:\Users\a` is `/c/Users/a`, a UNC
//! `\\server\share` is `//server/share` ([`posix_form`]).

use crate::facts::{SessionFacts, SettingsSource};
use globset::{GlobBuilder, GlobMatcher};
use std::path::{Component, Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

/// What a path pattern is relative to.
///
/// SPEC §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// `//path`: the filesystem root.
    Root,
    /// `~/path`: the home directory.
    Home,
    /// `/path`: the settings source's own root (see [`PathPattern::anchor_dir`]).
    Settings,
    /// `./path` or `path`: the working directory.
    Cwd,
}

/// Why a path rule's pattern does not compile (SPEC §4 "Paths"); the
/// [`Display`](std::fmt::Display) form is the rule warning's reason.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathPatternError {
    /// The pattern is empty (or only spaces).
    #[error("an empty path pattern")]
    Empty,
    /// The pattern is not a glob the glob engine compiles.
    #[error("not a valid path pattern: {message}")]
    Invalid {
        /// The glob engine's reason.
        message: String,
    },
}

/// A compiled path pattern (SPEC §4).
#[derive(Debug, Clone)]
pub struct PathPattern {
    /// What the pattern is relative to.
    pub anchor: Anchor,
    /// The glob below the anchor, as compiled.
    pub glob: String,
    matcher: GlobMatcher,
    case_insensitive: bool,
}

impl PathPattern {
    /// Compiles `pattern`. `case_insensitive` for deny and ask rules (SPEC §4 "Paths");
    /// `any_depth_dirs` makes a single-segment directory pattern (`src/**`) match at
    /// any depth (deny and ask rules, reference §3.2).
    ///
    /// # Errors
    ///
    /// [`PathPatternError`] when the pattern is empty or not a valid glob.
    pub fn new(
        pattern: &str,
        case_insensitive: bool,
        any_depth_dirs: bool,
    ) -> Result<Self, PathPatternError> {
        let pattern: String = pattern.trim().nfc().collect();
        if pattern.is_empty() {
            return Err(PathPatternError::Empty);
        }
        let (anchor, rest) = if let Some(r) = pattern.strip_prefix("//") {
            (Anchor::Root, r.to_owned())
        } else if pattern == "~" {
            (Anchor::Home, String::new())
        } else if let Some(r) = pattern.strip_prefix("~/") {
            (Anchor::Home, r.to_owned())
        } else if let Some(r) = pattern.strip_prefix('/') {
            (Anchor::Settings, r.to_owned())
        } else if let Some(r) = pattern.strip_prefix("./") {
            (Anchor::Cwd, r.to_owned())
        } else {
            let bare = pattern.trim_end_matches('/');
            let glob = if !bare.contains('/') || (any_depth_dirs && is_single_segment_dir(bare)) {
                format!("**/{bare}")
            } else {
                bare.to_owned()
            };
            (Anchor::Cwd, glob)
        };
        let rest = rest.trim_start_matches('/').trim_end_matches('/');
        let glob = if rest.is_empty() {
            "**".to_owned()
        } else {
            rest.to_owned()
        };
        // Case folding is done here (full Unicode lowercase on both sides), not by
        // the glob engine.
        let folded = if case_insensitive {
            glob.to_lowercase()
        } else {
            glob.clone()
        };
        let matcher = GlobBuilder::new(&folded)
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| PathPatternError::Invalid {
                message: e.to_string(),
            })?
            .compile_matcher();
        Ok(PathPattern {
            anchor,
            glob,
            matcher,
            case_insensitive,
        })
    }

    /// Whether the pattern matches case-insensitively (deny and ask rules).
    pub(crate) fn case_insensitive(&self) -> bool {
        self.case_insensitive
    }

    /// The compiled glob below the anchor (case already folded for deny and ask).
    pub(crate) fn compiled(&self) -> &globset::Glob {
        self.matcher.glob()
    }

    /// The directory the pattern is anchored at, for a rule of `source` in a session
    /// with `facts` (reference §3.2: `/path` is under `~/.claude` for user settings,
    /// the filesystem root for the policy source, the working directory otherwise).
    #[must_use]
    pub fn anchor_dir(&self, source: SettingsSource, facts: &SessionFacts) -> Vec<String> {
        match self.anchor {
            Anchor::Root => Vec::new(),
            Anchor::Home => normalize(&facts.home, &facts.cwd, &facts.home),
            Anchor::Cwd => normalize(&facts.cwd, &facts.cwd, &facts.home),
            Anchor::Settings => match source {
                SettingsSource::Policy => Vec::new(),
                SettingsSource::User => {
                    let mut v = normalize(&facts.home, &facts.cwd, &facts.home);
                    v.push(".claude".to_owned());
                    v
                }
                _ => normalize(&facts.cwd, &facts.cwd, &facts.home),
            },
        }
    }

    /// Whether the absolute, normalized `path` (see [`normalize`]) matches, for a rule
    /// of `source`: the path, or one of its ancestors below the anchor, matches the glob.
    ///
    /// SPEC §4.
    #[must_use]
    pub fn matches(&self, path: &[String], source: SettingsSource, facts: &SessionFacts) -> bool {
        let anchor = self.anchor_dir(source, facts);
        if path.len() < anchor.len() {
            return false;
        }
        let under = anchor.iter().zip(path).all(|(a, p)| {
            if self.case_insensitive {
                a.to_lowercase() == p.to_lowercase()
            } else {
                a == p
            }
        });
        if !under {
            return false;
        }
        let rel = path.get(anchor.len()..).unwrap_or_default();
        if rel.is_empty() {
            return self.glob == "**";
        }
        let rel: Vec<String> = if self.case_insensitive {
            rel.iter().map(|s| s.to_lowercase()).collect()
        } else {
            rel.to_vec()
        };
        let hit = (1..=rel.len()).any(|k| {
            rel.get(..k)
                .is_some_and(|segs| self.matcher.is_match(segs.join("/")))
        });
        // Deny and ask: `dir/**` also covers `dir` itself (searching it reads what is inside).
        hit || (self.case_insensitive
            && self.glob.ends_with("/**")
            && self.matcher.is_match(format!("{}/-", rel.join("/"))))
    }
}

impl PathPattern {
    /// Whether something beneath the folder `dir` (absolute, normalized) may match:
    /// the folder itself matches, lies beneath the pattern's literal base, or holds
    /// it (SPEC §4 "Folders read whole meet every `Read` rule beneath them").
    #[must_use]
    pub fn may_match_beneath(
        &self,
        dir: &[String],
        source: SettingsSource,
        facts: &SessionFacts,
    ) -> bool {
        if self.matches(dir, source, facts) {
            return true;
        }
        let eq = |a: &String, b: &String| {
            if self.case_insensitive {
                a.to_lowercase() == b.to_lowercase()
            } else {
                a == b
            }
        };
        let mut base = self.anchor_dir(source, facts);
        let mut segs = self.glob.split('/');
        let mut rest: Vec<&str> = Vec::new();
        for seg in segs.by_ref() {
            if seg.is_empty() || seg.contains(['*', '?', '[', '{']) {
                rest.push(seg);
                break;
            }
            base.push(seg.to_owned());
        }
        rest.extend(segs);
        let n = base.len().min(dir.len());
        if !base.iter().zip(dir).take(n).all(|(a, b)| eq(a, b)) {
            return false;
        }
        // The folder holds the pattern's literal base: what the pattern names is inside.
        let Some(deeper) = dir.len().checked_sub(base.len()).filter(|d| *d > 0) else {
            return true;
        };
        // The folder lies `deeper` segments beneath the base: the pattern reaches into it
        // only if it spans any depth (`**`, an empty segment) or has more segments left
        // than that (`*` never crosses a `/`). A pattern with nothing left after its base
        // names the base itself, and what lies in it.
        rest.is_empty()
            || rest.iter().any(|s| s.is_empty() || s.contains("**"))
            || rest.len() > deeper
    }
}

fn is_single_segment_dir(p: &str) -> bool {
    p.strip_suffix("/**")
        .is_some_and(|seg| !seg.is_empty() && !seg.contains('/') && !seg.contains('*'))
}

/// `path` as absolute, NFC-normalized segments with `.` and `..` resolved lexically;
/// a relative path is taken from `cwd`, and `~` / `~/x` from `home` (SPEC §4 "Paths").
#[must_use]
pub fn normalize(path: &Path, cwd: &Path, home: &Path) -> Vec<String> {
    let posix = posix_form(&path.to_string_lossy());
    let text = posix.as_str();
    let path = Path::new(text);
    let joined = if text == "~" {
        home.to_path_buf()
    } else if let Some(rest) = text.strip_prefix("~/") {
        home.join(rest)
    } else if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    let mut out: Vec<String> = Vec::new();
    for c in joined.components() {
        match c {
            Component::RootDir | Component::Prefix(_) => out.clear(),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(s) => {
                let s = s.to_string_lossy();
                // ASCII is already NFC.
                out.push(if s.is_ascii() {
                    s.into_owned()
                } else {
                    s.nfc().collect()
                });
            }
        }
    }
    out
}

/// A Windows-style path in POSIX form (reference §3.2 "Windows"): a drive path
/// `C:\\x\\y` or `C:/x/y` becomes `/c/x/y`, a UNC path `\\\\server\\share` becomes
/// `//server/share`; any other text is returned as it is.
///
/// SPEC §4 "Paths".
#[must_use]
pub fn posix_form(path: &str) -> String {
    let mut chars = path.chars();
    let (Some(drive), Some(':'), Some(sep)) = (chars.next(), chars.next(), chars.next()) else {
        return unc(path);
    };
    if drive.is_ascii_alphabetic() && (sep == '\\' || sep == '/') {
        let rest = chars.as_str().replace('\\', "/");
        return format!("/{}/{rest}", drive.to_ascii_lowercase());
    }
    unc(path)
}

fn unc(path: &str) -> String {
    if path.starts_with("\\\\") {
        path.replace('\\', "/")
    } else {
        path.to_owned()
    }
}

/// `path` with every backslash read as a separator: deny and ask rules also meet
/// this form of a path that holds one (SPEC §4 "Paths").
#[must_use]
pub fn backslashes_as_separators(path: &str) -> Option<String> {
    path.contains('\\').then(|| path.replace('\\', "/"))
}

/// The canonical form of `path` (symlinks resolved), as absolute NFC segments: the
/// path itself when it exists, otherwise its longest existing ancestor resolved and
/// the rest appended (`.`/`..` in the rest resolved lexically). A dangling symbolic
/// link (a link to a file not yet created) is followed too, so a write through
/// `future.conf -> /etc/x.conf` is met as `/etc/x.conf` (at most 40 links are
/// followed). A relative path is taken from `cwd`, `~` from `home`. `None` when
/// nothing of it resolves.
///
/// SPEC §4 "Paths".
#[must_use]
pub fn canonical(path: &Path, cwd: &Path, home: &Path) -> Option<Vec<String>> {
    Resolver::default().canonical(path, cwd, home)
}

/// What `lstat` said about one path.
#[derive(Debug, Clone)]
enum Node {
    /// Nothing there (or nothing this process may see).
    Missing,
    /// A symbolic link to this target.
    Link(PathBuf),
    /// A file or a folder.
    Other,
}

/// Resolves paths as [`canonical`] does, walking each path from the root with one
/// `lstat` per component, and remembering what it saw for the length of one decision
/// (the files of one shell command share their folders).
#[derive(Debug, Default)]
pub(crate) struct Resolver {
    seen: Vec<(PathBuf, Node)>,
}

impl Resolver {
    fn node(&mut self, p: &Path) -> Node {
        if let Some((_, n)) = self.seen.iter().find(|(q, _)| q == p) {
            return n.clone();
        }
        let n = match std::fs::symlink_metadata(p) {
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(p) {
                Ok(t) => Node::Link(t),
                Err(_) => Node::Other,
            },
            Ok(_) => Node::Other,
            Err(_) => Node::Missing,
        };
        if self.seen.len() < 64 {
            self.seen.push((p.to_path_buf(), n.clone()));
        }
        n
    }

    /// [`canonical`], with this resolver's memory.
    pub(crate) fn canonical(
        &mut self,
        path: &Path,
        cwd: &Path,
        home: &Path,
    ) -> Option<Vec<String>> {
        let posix = posix_form(&path.to_string_lossy());
        let text = posix.as_str();
        let joined = if text == "~" {
            home.to_path_buf()
        } else if let Some(rest) = text.strip_prefix("~/") {
            home.join(rest)
        } else if Path::new(text).is_absolute() {
            Path::new(text).to_path_buf()
        } else {
            cwd.join(text)
        };
        if !joined.is_absolute() {
            return None;
        }
        let mut todo: std::collections::VecDeque<std::ffi::OsString> = joined
            .components()
            .filter_map(|c| match c {
                Component::Normal(s) => Some(s.to_os_string()),
                Component::ParentDir => Some("..".into()),
                _ => None,
            })
            .collect();
        let mut cur = PathBuf::from("/");
        let mut hops = 40usize;
        while let Some(c) = todo.pop_front() {
            if c == ".." {
                cur.pop();
                continue;
            }
            let next = cur.join(&c);
            match self.node(&next) {
                Node::Other => cur = next,
                Node::Link(target) if hops > 0 => {
                    hops -= 1;
                    if target.is_absolute() {
                        cur = PathBuf::from("/");
                    }
                    for t in target.components().rev() {
                        match t {
                            Component::Normal(s) => todo.push_front(s.to_os_string()),
                            Component::ParentDir => todo.push_front("..".into()),
                            _ => {}
                        }
                    }
                }
                Node::Link(_) | Node::Missing => {
                    // The rest is appended; `..` in it resolved lexically.
                    cur = next;
                    for rest in todo.drain(..) {
                        cur.push(rest);
                    }
                    break;
                }
            }
        }
        Some(normalize(&cur, cwd, home))
    }
}

/// Whether `path` (normalized) is the directory `dir` (normalized) or below it.
///
/// SPEC §4.
#[must_use]
pub fn is_within(path: &[String], dir: &[String]) -> bool {
    path.len() >= dir.len() && dir.iter().zip(path).all(|(a, b)| a == b)
}

/// Whether removing `path` (normalized) removes a critical path (reference §3.3
/// "Critical paths"): the filesystem root or a folder right below it (`/etc`,
/// `/usr`, ...), the home directory or one of its ancestors, or an ancestor of the
/// working directory. `cwd` and `home` are normalized. An `rm`/`rmdir` of one is
/// never approved by a rule or a mode, `bypassPermissions` included.
///
/// SPEC §4.
#[must_use]
pub fn is_critical(path: &[String], cwd: &[String], home: &[String]) -> bool {
    path.len() <= 1 || is_within(home, path) || (is_within(cwd, path) && path.len() < cwd.len())
}

/// The part of a path argument a glob cannot change: the text before the first
/// segment holding `*`, `?` or `[` (`/*` -> `/`, `~/*.log` -> `~`, `a/b*` -> `a`);
/// the text itself when it holds none.
///
/// SPEC §4.
#[must_use]
pub fn glob_base(text: &str) -> String {
    let Some(i) = text.find(['*', '?', '[']) else {
        return text.to_owned();
    };
    let head = text.get(..i).unwrap_or_default();
    match head.rfind('/') {
        Some(0) => "/".to_owned(),
        Some(j) => head.get(..j).unwrap_or_default().to_owned(),
        None => String::new(),
    }
}

/// Whether a write to `path` (normalized) is never auto-approved by a mode: inside
/// `.git`, `.claude` (except `.claude/worktrees`), `.vscode`, `.idea`, `.husky`, or a
/// shell rc and tool config file (reference §3.3 "Protected paths").
#[must_use]
pub fn is_protected(path: &[String]) -> bool {
    const DIRS: &[&str] = &[".git", ".vscode", ".idea", ".husky"];
    const FILES: &[&str] = &[
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".npmrc",
        ".mcp.json",
        ".claude.json",
        ".gitconfig",
        ".gitmodules",
        ".envrc",
        ".pre-commit-config.yaml",
    ];
    for (i, seg) in path.iter().enumerate() {
        let is_last = i + 1 == path.len();
        if DIRS.contains(&seg.as_str()) {
            return true;
        }
        if seg == ".claude" && path.get(i + 1).map(String::as_str) != Some("worktrees") {
            return true;
        }
        if is_last && FILES.contains(&seg.as_str()) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn facts() -> SessionFacts {
        SessionFacts::new("/home/dev/repo", "/home/dev")
    }

    fn m(pattern: &str, ci: bool, source: SettingsSource, path: &str) -> bool {
        let f = facts();
        let p = PathPattern::new(pattern, ci, ci).unwrap();
        p.matches(
            &normalize(&PathBuf::from(path), &f.cwd, &f.home),
            source,
            &f,
        )
    }

    /// Whether a folder read whole (`grep -r`, `rg`) may read something `pattern` names.
    fn beneath(pattern: &str, dir: &str) -> bool {
        let f = facts();
        let p = PathPattern::new(pattern, true, true).unwrap();
        p.may_match_beneath(
            &normalize(&PathBuf::from(dir), &f.cwd, &f.home),
            SettingsSource::Policy,
            &f,
        )
    }

    #[test]
    fn a_folder_read_whole_meets_the_patterns_that_reach_into_it_and_no_other() {
        // What the pattern names lies in the folder (or is it).
        assert!(beneath("./.env.*", "."));
        assert!(beneath("./.env.*", "/home/dev"));
        assert!(beneath("./app/.env", "app"));
        assert!(beneath("//etc/**", "/"));
        // Patterns of any depth reach into every folder beneath their base.
        assert!(beneath("**/.env", "app"));
        assert!(beneath(".env", "app/deep"));
        assert!(beneath("src/**", "lib"));
        assert!(beneath("./a/**/k.pem", "a/b/c"));
        // A pattern that names a folder names what is in it.
        assert!(beneath("./secrets", "secrets/sub"));
        // A pattern with segments left below the folder reaches into it.
        assert!(beneath("./a/*/k.pem", "a/b"));
        assert!(beneath("./*/x", "app"));
        // A pattern whose last segment sits above the folder names nothing in it: `*`
        // never crosses a `/`, so `./.env.*` is not under `app/` (replay found `rg x app`
        // denied by it).
        assert!(!beneath("./.env.*", "app"));
        assert!(!beneath("./.env", "app"));
        assert!(!beneath("./a/*.pem", "a/b"));
        assert!(!beneath("./*/x", "app/sub"));
        // Another folder altogether.
        assert!(!beneath("./secrets/**", "public"));
        assert!(!beneath("~/.ssh/**", "/home/dev/repo"));
    }

    #[test]
    fn anchors() {
        use SettingsSource::*;
        assert!(m("//etc/passwd", false, User, "/etc/passwd"));
        assert!(m("~/.ssh/**", false, User, "/home/dev/.ssh/id_rsa"));
        assert!(!m("~/.ssh/**", false, User, "/home/other/.ssh/id_rsa"));
        assert!(m("/secrets/**", false, User, "/home/dev/.claude/secrets/a"));
        assert!(m("/secrets/**", false, Project, "/home/dev/repo/secrets/a"));
        assert!(m("/etc/**", false, Policy, "/etc/shadow"));
        assert!(m("./.env", false, User, "/home/dev/repo/.env"));
        assert!(!m("./.env", false, User, "/home/dev/repo/sub/.env"));
        assert!(m(".env", false, User, "/home/dev/repo/sub/.env"));
        assert!(m("**/.env", false, User, "/home/dev/repo/.env"));
        assert!(!m(".env", false, User, "/etc/.env"));
        assert!(m("//**/.env", false, User, "/etc/.env"));
        assert!(m(".env", false, User, "sub/../.env"));
    }

    #[test]
    fn globs_and_directories() {
        use SettingsSource::*;
        assert!(m("src/*.rs", false, User, "/home/dev/repo/src/a.rs"));
        assert!(!m("src/*.rs", false, User, "/home/dev/repo/src/x/a.rs"));
        assert!(m("src/**/*.rs", false, User, "/home/dev/repo/src/x/a.rs"));
        assert!(m("./secrets", false, User, "/home/dev/repo/secrets/key"));
        assert!(m(
            "**/secrets/**",
            false,
            User,
            "/home/dev/repo/a/secrets/key"
        ));
        // Single-segment directory patterns: any depth for deny/ask only.
        assert!(m("src/**", true, User, "/home/dev/repo/lib/src/a"));
        assert!(!m("src/**", false, User, "/home/dev/repo/lib/src/a"));
        assert!(m("*.PEM", true, User, "/home/dev/repo/k.pem"));
        assert!(!m("*.PEM", false, User, "/home/dev/repo/k.pem"));
        assert!(PathPattern::new("[", false, false).is_err());
        assert!(PathPattern::new("  ", false, false).is_err());
    }

    #[test]
    fn nfc_on_both_sides() {
        let decomposed = "cafe\u{301}.txt";
        let composed = "caf\u{e9}.txt";
        assert!(m(
            decomposed,
            false,
            SettingsSource::User,
            &format!("/home/dev/repo/{composed}")
        ));
    }

    #[test]
    fn protected_paths() {
        let n = |p: &str| normalize(&PathBuf::from(p), Path::new("/r"), Path::new("/h"));
        assert!(is_protected(&n("/r/.git/config")));
        assert!(is_protected(&n("/h/.bashrc")));
        assert!(is_protected(&n("/r/.claude/settings.json")));
        assert!(!is_protected(&n("/r/.claude/worktrees/x/a.rs")));
        assert!(!is_protected(&n("/r/src/a.rs")));
    }
}
