//! The corpora: tool calls, each with the policy, mode, settings and files it runs
//! under, grouped so that one Claude Code process runs many calls.
//!
//! - **scenarios**: every `tool.check` step of `examples/scenarios` and
//!   `../shared/cases`, under its scenario's own policy, settings, mode and files;
//! - **everyday**: `crates/conformance/corpora/everyday.json` (a developer's day)
//!   under each real managed folder in `../shared/real-inputs/managed`, in every mode.
//!
//! Paths in a call's input are written with placeholders: `$CWD`/`{cwd}` for the
//! working folder and `$HOME`/`{home}` for the home folder (each side substitutes its
//! own folders), and a scenario's own `session.cwd`/`session.home` stand for them too.

use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The permission modes every everyday call runs in: the scenario format's modes
/// but `auto`, which needs a classifier the fake API does not serve.
pub fn modes() -> impl Iterator<Item = &'static str> {
    scenario::format::MODES
        .iter()
        .copied()
        .filter(|m| *m != "auto")
}

/// One call of a corpus.
#[derive(Debug, Clone)]
pub struct Call {
    /// A stable name: `file#pointer/steps/N` or `everyday#N`.
    pub key: String,
    /// The tool.
    pub tool: String,
    /// Its input, with placeholders for the folders.
    pub input: Value,
    /// The family it belongs to (a scenario file's stem, an everyday family).
    pub family: String,
}

/// Settings files of a group (JSON text), by source.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Settings {
    /// `~/.claude/settings.json`.
    pub user: Option<String>,
    /// `.claude/settings.json` of the working folder.
    pub project: Option<String>,
    /// `.claude/settings.local.json` of the working folder.
    pub local: Option<String>,
}

/// Calls that share one policy, mode, settings and files: one session on each side.
#[derive(Debug, Clone)]
pub struct Group {
    /// The corpus (`scenarios`, `everyday`).
    pub corpus: String,
    /// The policy's name in reports (a managed folder's name, or `scenario`).
    pub policy_name: String,
    /// The managed folder's files, by relative path (empty: no policy).
    pub policy: BTreeMap<PathBuf, Vec<u8>>,
    /// The mode given (`None`: as the settings start it).
    pub mode: Option<String>,
    /// The settings files.
    pub settings: Settings,
    /// Files of the working folder (`work/...`) and home (`home/...`).
    pub files: BTreeMap<String, Vec<u8>>,
    /// The scenario's own folder names, substituted like the placeholders.
    pub aliases: Vec<(String, Alias)>,
    /// The calls.
    pub calls: Vec<Call>,
    /// A person's mod seated on both sides (`--plugin-dir` for Claude Code, a `user`
    /// tier plugin `<name>@inline` here).
    pub plugin_dir: Option<PathBuf>,
}

impl Group {
    /// The files a session of this group starts with, by path under its root
    /// (`work/…`, `home/…`): the seeded files, and the settings files where Claude Code
    /// reads them.
    #[must_use]
    pub fn session_files(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = self.files.clone();
        for (text, rel) in [
            (&self.settings.user, "home/.claude/settings.json"),
            (&self.settings.project, "work/.claude/settings.json"),
            (&self.settings.local, "work/.claude/settings.local.json"),
        ] {
            if let Some(t) = text {
                out.insert(rel.to_owned(), t.clone().into_bytes());
            }
        }
        out
    }
}

/// Which folder an alias stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alias {
    /// The working folder.
    Cwd,
    /// The home folder.
    Home,
}

/// Errors of reading a corpus.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// A scenario file could not be read.
    #[error(transparent)]
    Scenario(#[from] scenario::FormatError),
    /// A scenario's policy or files could not be written.
    #[error(transparent)]
    Materialize(#[from] scenario::MaterializeError),
    /// A file could not be read.
    #[error("{path}: {why}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
}

fn read_err(path: &Path, why: impl std::fmt::Display) -> CorpusError {
    CorpusError::Read {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

/// Every file of `dir` by path relative to it ([`crate::tree::read`]).
///
/// # Errors
/// When a file cannot be read.
pub fn read_tree(dir: &Path) -> Result<BTreeMap<PathBuf, Vec<u8>>, CorpusError> {
    crate::tree::read(dir).map_err(|e| read_err(dir, e))
}

/// Removes the keys that decide sign-in, not permissions (`forceLoginMethod`,
/// `forceLoginOrgUUID`) from every settings file of a policy: with them Claude Code
/// refuses to start on an API key (a declared difference of the harness, not of the
/// engine).
#[must_use]
pub fn without_sign_in(policy: BTreeMap<PathBuf, Vec<u8>>) -> BTreeMap<PathBuf, Vec<u8>> {
    policy
        .into_iter()
        .map(|(path, bytes)| {
            if path.extension().and_then(|e| e.to_str()) != Some("json") {
                return (path, bytes);
            }
            let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(&bytes) else {
                return (path, bytes);
            };
            let had = map.remove("forceLoginMethod").is_some()
                | map.remove("forceLoginOrgUUID").is_some();
            if !had {
                return (path, bytes);
            }
            let text = serde_json::to_vec_pretty(&Value::Object(map)).unwrap_or(bytes);
            (path, text)
        })
        .collect()
}

fn settings_text(spec: Option<&scenario::format::FileSpec>) -> Option<String> {
    match spec? {
        scenario::format::FileSpec::Content(v) => Some(v.to_string()),
        scenario::format::FileSpec::Raw(s) => Some(s.clone()),
        scenario::format::FileSpec::Unreadable => None,
    }
}

/// The scenarios corpus: every `tool.check` step of the scenario files under `roots`
/// (files or folders), grouped by policy, settings, mode and files.
///
/// # Errors
/// When a scenario file cannot be read or its policy or files cannot be written.
pub fn scenarios(roots: &[PathBuf]) -> Result<Vec<Group>, CorpusError> {
    let loaded = scenario::load_paths(roots)?;
    let mut groups: BTreeMap<String, Group> = BTreeMap::new();
    for l in &loaded {
        let sc = &l.scenario;
        let checks: Vec<(usize, &scenario::format::RaiseStep)> = sc
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                scenario::format::Step::Raise(r) if r.raise == "tool.check" && r.from.is_none() => {
                    Some((i, r))
                }
                _ => None,
            })
            .collect();
        if checks.is_empty() || sc.settings.flag.is_some() {
            continue;
        }
        let temp = tempfile::tempdir().map_err(|e| read_err(&l.file, e))?;
        let managed = temp.path().join("managed");
        scenario::write_policy(&sc.policy, &l.file, &managed)?;
        let policy = without_sign_in(read_tree(&managed)?);
        let mut files = BTreeMap::new();
        if let Some(entries) = &sc.session.files {
            let cwd = temp.path().join("cwd");
            std::fs::create_dir_all(&cwd).map_err(|e| read_err(&cwd, e))?;
            scenario::write_files(entries, &cwd)?;
            for (rel, bytes) in read_tree(&cwd)? {
                files.insert(format!("work/{}", rel.to_string_lossy()), bytes);
            }
        }
        let settings = Settings {
            user: settings_text(sc.settings.user.as_ref()),
            project: settings_text(sc.settings.project.as_ref()),
            local: settings_text(sc.settings.local.as_ref()),
        };
        let family = l
            .file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let key = format!(
            "{:?}|{:?}|{:?}|{:?}|{}|{}",
            policy, sc.session.mode, settings, files, sc.session.cwd, sc.session.home
        );
        let group = groups.entry(key).or_insert_with(|| Group {
            corpus: "scenarios".to_owned(),
            policy_name: "scenario".to_owned(),
            policy: policy.clone(),
            mode: sc.session.mode.clone(),
            settings: settings.clone(),
            files: files.clone(),
            aliases: vec![
                (sc.session.cwd.clone(), Alias::Cwd),
                (sc.session.home.clone(), Alias::Home),
            ],
            calls: Vec::new(),
            plugin_dir: None,
        });
        for (i, r) in checks {
            let tool = r
                .event
                .get("tool")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let input = r.event.get("input").cloned().unwrap_or(Value::Null);
            if tool.is_empty() || !input.is_object() {
                continue;
            }
            group.calls.push(Call {
                key: format!("{}#{}/steps/{i}", l.file.display(), l.pointer()),
                tool,
                input,
                family: family.clone(),
            });
        }
    }
    Ok(groups
        .into_values()
        .filter(|g| !g.calls.is_empty())
        .collect())
}

#[derive(Debug, Deserialize)]
struct EverydayFile {
    files: BTreeMap<String, String>,
    calls: Vec<EverydayCall>,
}

#[derive(Debug, Deserialize)]
struct EverydayCall {
    tool: String,
    input: Value,
    family: String,
}

/// The everyday corpus (`file`) under each managed folder in `managed_root` (each
/// sub-folder one organization's policy), in every mode of [`modes`].
///
/// # Errors
/// When the corpus or a policy cannot be read.
pub fn everyday(file: &Path, managed_root: &Path) -> Result<Vec<Group>, CorpusError> {
    let bytes = boundedfs::read_bounded(file, 16 << 20).map_err(|e| read_err(file, e))?;
    let corpus: EverydayFile = serde_json::from_slice(&bytes).map_err(|e| read_err(file, e))?;
    let mut files = BTreeMap::new();
    for (path, content) in &corpus.files {
        let key = match path.strip_prefix("~/") {
            Some(rest) => format!("home/{rest}"),
            None => format!("work/{path}"),
        };
        files.insert(key, content.clone().into_bytes());
    }
    let calls: Vec<Call> = corpus
        .calls
        .iter()
        .enumerate()
        .map(|(i, c)| Call {
            key: format!("everyday#{i}"),
            tool: c.tool.clone(),
            input: c.input.clone(),
            family: c.family.clone(),
        })
        .collect();
    let mut policies: Vec<PathBuf> = std::fs::read_dir(managed_root)
        .map_err(|e| read_err(managed_root, e))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    policies.sort();
    let mut out = Vec::new();
    for dir in policies {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let policy = without_sign_in(read_tree(&dir)?);
        for mode in modes() {
            out.push(Group {
                corpus: "everyday".to_owned(),
                policy_name: name.clone(),
                policy: policy.clone(),
                mode: Some(mode.to_owned()),
                settings: Settings::default(),
                files: files.clone(),
                aliases: Vec::new(),
                calls: calls.clone(),
                plugin_dir: None,
            });
        }
    }
    Ok(out)
}

/// The adversary mods of `examples/mods` whose holds the mods corpus measures: each
/// tries to get a call past the organization's rules (SPEC §3.6, §1.2).
pub const ADVERSARY_MODS: &[&str] = &[
    "yes-man",
    "verdict-flipper",
    "catch-lifter",
    "question-swapper",
    "call-rewriter",
    "env-pinner",
    "settings-forger",
];

/// The mods corpus: the everyday calls under the managed folder `policy`, in the
/// default mode, once with each of [`ADVERSARY_MODS`] (found under `mods_root`)
/// seated as a person's plugin.
///
/// # Errors
/// When the corpus or the policy cannot be read.
pub fn mods(file: &Path, policy: &Path, mods_root: &Path) -> Result<Vec<Group>, CorpusError> {
    let parent = policy.parent().unwrap_or(policy);
    let name = policy
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let base = everyday(file, parent)?
        .into_iter()
        .find(|g| g.policy_name == name && g.mode.as_deref() == Some("default"))
        .ok_or_else(|| read_err(policy, "no such managed folder"))?;
    Ok(ADVERSARY_MODS
        .iter()
        .map(|m| Group {
            corpus: "mods".to_owned(),
            policy_name: format!("{name} + {m}"),
            plugin_dir: Some(mods_root.join(m)),
            ..base.clone()
        })
        .collect())
}

/// `input` with the folder placeholders and `aliases` replaced by `cwd` and `home`.
#[must_use]
pub fn substitute(input: &Value, aliases: &[(String, Alias)], cwd: &str, home: &str) -> Value {
    match input {
        Value::String(s) => {
            let mut t = s.replace("{cwd}", cwd).replace("{home}", home);
            t = t.replace("$CWD", cwd).replace("$HOME", home);
            for (alias, kind) in aliases {
                if alias.is_empty() || alias == "/" {
                    continue;
                }
                let to = match kind {
                    Alias::Cwd => cwd,
                    Alias::Home => home,
                };
                t = t.replace(alias.as_str(), to);
            }
            Value::String(t)
        }
        Value::Array(a) => Value::Array(
            a.iter()
                .map(|v| substitute(v, aliases, cwd, home))
                .collect(),
        ),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), substitute(v, aliases, cwd, home)))
                .collect(),
        ),
        other => other.clone(),
    }
}
