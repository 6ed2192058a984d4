//! The rules in force, compiled once at [`crate::RuleSet`] build time so that a
//! question only meets the rules that can apply to it (a core decision
//! over 1,000 rules).
//!
//! For each behavior (deny, ask, allow) the index keeps:
//!
//! - **by tool**: the rules whose tool position is one exact tool, under every
//!   question tool they can speak about (a `Read` deny also under `Edit`, `Write`,
//!   ..., and under `Bash` for the shell's file commands); rules with a tool-name glob
//!   or an MCP server are scanned for every question;
//! - **commands**: the `Bash(...)` pattern rules whose first word is spelled out
//!   (`Bash(git push *)`, `Bash(rm:*)`), keyed by that word, so a part of a command
//!   meets only the rules of its first word; the others (`Bash(* install)`,
//!   `Bash(git*)`) stay in the by-tool lists;
//! - **paths**: the `Read(...)`/`Edit(...)` path rules, grouped by anchor and case
//!   folding into [`globset::GlobSet`]s, so one path meets all of a group's globs at
//!   once;
//! - **domains**: the `WebFetch(domain:...)` rules without a `*`, keyed by every
//!   spelling of their host, so a URL meets only the rules of its hosts (an
//!   audit of 30,000 rules);
//! - **servers**: the `mcp__<server>` rules keyed by the server, so a tool meets only
//!   the rules of the servers its name can belong to.
//!
//! The index only narrows the search: every candidate is still judged by the same
//! matchers as before, and the one named is the first matching in deciding order
//! (the position in [`crate::RuleSet::rules`]). The reference model
//! (`reference.rs`) scans every rule linearly and is the oracle of the
//! differential property test.

use crate::matcher::{tool_applies, EDIT_TOOLS, READ_TOOLS};
use crate::path::{normalize, Anchor};
use crate::rule::{canonical_tool, Behavior, Rule, Specifier, ToolPattern};
use crate::wildcard::first_words;
use crate::{SessionFacts, SettingsSource};
use globset::{GlobSet, GlobSetBuilder};
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Where a path rule's glob is rooted, once the settings source is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum AnchorKey {
    Root,
    Home,
    Cwd,
    /// `~/.claude`: `/path` in user settings.
    UserClaude,
}

fn anchor_key(anchor: Anchor, source: SettingsSource) -> AnchorKey {
    match anchor {
        Anchor::Root => AnchorKey::Root,
        Anchor::Home => AnchorKey::Home,
        Anchor::Cwd => AnchorKey::Cwd,
        Anchor::Settings => match source {
            SettingsSource::Policy => AnchorKey::Root,
            SettingsSource::User => AnchorKey::UserClaude,
            _ => AnchorKey::Cwd,
        },
    }
}

/// The anchors of one session (its working and home directories), normalized, and
/// lowercased for the case-insensitive groups; and its working directories.
#[derive(Debug)]
pub(crate) struct Anchors {
    home: Vec<String>,
    cwd: Vec<String>,
    user_claude: Vec<String>,
    folded: [Vec<String>; 3],
    /// The session's working directory and `additionalDirectories`, normalized.
    pub working_dirs: Vec<Vec<String>>,
}

impl Anchors {
    fn new(facts: &SessionFacts, additional_dirs: &[(SettingsSource, String)]) -> Self {
        let home = normalize(&facts.home, &facts.cwd, &facts.home);
        let cwd = normalize(&facts.cwd, &facts.cwd, &facts.home);
        let mut user_claude = home.clone();
        user_claude.push(".claude".to_owned());
        let fold = |v: &[String]| v.iter().map(|s| s.to_lowercase()).collect::<Vec<_>>();
        let mut working_dirs = vec![cwd.clone()];
        for (_, d) in additional_dirs {
            let d = d
                .strip_prefix('/')
                .filter(|r| r.starts_with('/'))
                .unwrap_or(d);
            let n = normalize(Path::new(d), &facts.cwd, &facts.home);
            if !working_dirs.contains(&n) {
                working_dirs.push(n);
            }
        }
        Anchors {
            folded: [fold(&home), fold(&cwd), fold(&user_claude)],
            home,
            cwd,
            user_claude,
            working_dirs,
        }
    }

    /// The working directory, normalized.
    pub(crate) fn cwd(&self) -> &[String] {
        &self.cwd
    }

    /// The home directory, normalized.
    pub(crate) fn home(&self) -> &[String] {
        &self.home
    }

    fn get(&self, key: AnchorKey, folded: bool) -> &[String] {
        match (key, folded) {
            (AnchorKey::Root, _) => &[],
            (AnchorKey::Home, false) => &self.home,
            (AnchorKey::Cwd, false) => &self.cwd,
            (AnchorKey::UserClaude, false) => &self.user_claude,
            (AnchorKey::Home, true) => &self.folded[0],
            (AnchorKey::Cwd, true) => &self.folded[1],
            (AnchorKey::UserClaude, true) => &self.folded[2],
        }
    }
}

/// The anchors of the sessions a rule set was asked about, by (cwd, home): resolved
/// once per session, not once per rule and question.
#[derive(Debug, Default)]
pub(crate) struct AnchorCache {
    map: Mutex<Vec<(PathBuf, PathBuf, Arc<Anchors>)>>,
}

impl Clone for AnchorCache {
    fn clone(&self) -> Self {
        AnchorCache::default()
    }
}

/// How many sessions' anchors a rule set keeps.
const ANCHOR_CACHE: usize = 8;

impl AnchorCache {
    pub(crate) fn get(
        &self,
        facts: &SessionFacts,
        additional_dirs: &[(SettingsSource, String)],
    ) -> Arc<Anchors> {
        let Ok(mut map) = self.map.lock() else {
            return Arc::new(Anchors::new(facts, additional_dirs));
        };
        if let Some((_, _, a)) = map
            .iter()
            .find(|(c, h, _)| *c == facts.cwd && *h == facts.home)
        {
            return Arc::clone(a);
        }
        let a = Arc::new(Anchors::new(facts, additional_dirs));
        if map.len() >= ANCHOR_CACHE {
            map.remove(0);
        }
        map.push((facts.cwd.clone(), facts.home.clone(), Arc::clone(&a)));
        a
    }
}

/// A path, as normalized segments and lowercased for the case-insensitive groups.
pub(crate) struct PathQuery<'p> {
    raw: &'p [String],
    folded: Vec<String>,
}

impl<'p> PathQuery<'p> {
    pub(crate) fn new(raw: &'p [String]) -> Self {
        PathQuery {
            raw,
            folded: raw.iter().map(|s| s.to_lowercase()).collect(),
        }
    }
}

/// The path rules of one anchor and one case folding, as one glob set.
#[derive(Debug)]
struct PathGroup {
    anchor: AnchorKey,
    folded: bool,
    set: GlobSet,
    /// Glob index -> rule position.
    rules: Vec<u32>,
    /// Glob index -> whether the glob is `**` (matches the anchor itself).
    star_star: Vec<bool>,
    /// Glob index -> whether `dir/**` also covers `dir` (deny and ask).
    dir_self: Vec<bool>,
}

impl PathGroup {
    fn push_matches(&self, q: &PathQuery<'_>, anchors: &Anchors, out: &mut Vec<u32>) {
        let anchor = anchors.get(self.anchor, self.folded);
        let path: &[String] = if self.folded { &q.folded } else { q.raw };
        if path.len() < anchor.len() || anchor.iter().zip(path).any(|(a, p)| a != p) {
            return;
        }
        let rel = path.get(anchor.len()..).unwrap_or_default();
        if rel.is_empty() {
            for (g, r) in self.rules.iter().enumerate() {
                if self.star_star.get(g).copied().unwrap_or(false) {
                    out.push(*r);
                }
            }
            return;
        }
        let mut hits: Vec<usize> = Vec::new();
        let mut prefix = String::new();
        for seg in rel {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(seg);
            self.set.matches_into(prefix.as_str(), &mut hits);
            out.extend(hits.iter().filter_map(|g| self.rules.get(*g).copied()));
        }
        if self.dir_self.iter().any(|d| *d) {
            prefix.push_str("/-");
            self.set.matches_into(prefix.as_str(), &mut hits);
            out.extend(hits.iter().filter_map(|g| {
                self.dir_self
                    .get(*g)
                    .copied()
                    .unwrap_or(false)
                    .then(|| self.rules.get(*g).copied())
                    .flatten()
            }));
        }
    }
}

/// One path rule on its way into a [`PathGroup`].
struct PathEntry {
    anchor: AnchorKey,
    folded: bool,
    rule: u32,
    glob: globset::Glob,
    star_star: bool,
    dir_self: bool,
}

/// The most globs one set holds (a set too big for the regex engine is split).
const GROUP_CHUNK: usize = 512;

fn build_groups(entries: Vec<PathEntry>) -> Vec<PathGroup> {
    let mut by_key: Vec<((AnchorKey, bool), Vec<PathEntry>)> = Vec::new();
    for e in entries {
        let key = (e.anchor, e.folded);
        match by_key.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(e),
            None => by_key.push((key, vec![e])),
        }
    }
    let mut groups = Vec::new();
    for ((anchor, folded), globs) in by_key {
        for chunk in globs.chunks(GROUP_CHUNK) {
            build_chunk(anchor, folded, chunk, &mut groups);
        }
    }
    groups
}

fn build_chunk(anchor: AnchorKey, folded: bool, chunk: &[PathEntry], groups: &mut Vec<PathGroup>) {
    let mut b = GlobSetBuilder::new();
    for e in chunk {
        b.add(e.glob.clone());
    }
    match b.build() {
        Ok(set) => groups.push(PathGroup {
            anchor,
            folded,
            set,
            rules: chunk.iter().map(|e| e.rule).collect(),
            star_star: chunk.iter().map(|e| e.star_star).collect(),
            dir_self: chunk.iter().map(|e| e.dir_self).collect(),
        }),
        // Too big for one set: halve it (a single glob always builds).
        Err(_) if chunk.len() > 1 => {
            let (a, b) = chunk.split_at(chunk.len() / 2);
            build_chunk(anchor, folded, a, groups);
            build_chunk(anchor, folded, b, groups);
        }
        Err(_) => {}
    }
}

/// How many first words of a command rule key it in the index.
pub(crate) const COMMAND_KEY_WORDS: usize = 4;

/// The index of one behavior's rules.
#[derive(Debug, Default)]
pub(crate) struct Stage {
    /// Question tool (canonical) -> positions of the rules that may speak about it,
    /// path rules and first-word command rules excepted.
    by_tool: HashMap<String, Vec<u32>>,
    /// Rules whose tool position is a glob: met by every question.
    always: Vec<u32>,
    /// `mcp__<server>` rules by `mcp__<server>` (SPEC §4: the server's tools).
    servers: HashMap<String, Vec<u32>>,
    /// Exact `WebFetch(domain:<host>)` rules by (question tool, host spelling).
    domains: HashMap<(String, String), Vec<u32>>,
    /// `Bash(...)` pattern rules by their spelled-out first words, up to
    /// [`COMMAND_KEY_WORDS`] (folded for deny and ask): many rules of one program
    /// (`git push ...`, `git reset ...`) do not all meet every form of it.
    commands: HashMap<String, Vec<u32>>,
    /// Path rules whose glob failed to go into a set (never in practice): judged one
    /// by one.
    loose_paths: Vec<u32>,
    paths: Vec<PathGroup>,
}

impl Stage {
    /// The positions of the rules that may speak about `tool` (path and first-word
    /// command rules excepted), in deciding order; `hosts` are the spellings of the
    /// hosts of the call's URL (the domain rules' keys).
    pub(crate) fn candidates<'s>(&'s self, tool: &str, hosts: &[String]) -> Merge<'s> {
        let exact: &[u32] = self
            .by_tool
            .get(canonical_tool(tool))
            .map_or(&[], Vec::as_slice);
        let mut extra: Vec<u32> = Vec::new();
        if !self.servers.is_empty() {
            // `mcp__s` names the server's tools `mcp__s__...` and the tool `mcp__s`.
            let ends = tool.match_indices("__").map(|(i, _)| i);
            for end in ends.chain(std::iter::once(tool.len())) {
                if let Some(list) = tool.get(..end).and_then(|k| self.servers.get(k)) {
                    extra.extend_from_slice(list);
                }
            }
        }
        if !self.domains.is_empty() {
            let tool = canonical_tool(tool).to_owned();
            for h in hosts {
                if let Some(list) = self.domains.get(&(tool.clone(), h.clone())) {
                    extra.extend_from_slice(list);
                }
            }
        }
        let b = if extra.is_empty() {
            Cow::Borrowed(self.always.as_slice())
        } else {
            extra.extend_from_slice(&self.always);
            extra.sort_unstable();
            extra.dedup();
            Cow::Owned(extra)
        };
        Merge { a: exact, b, at: 0 }
    }

    /// The command rules (their first words spelled out, up to [`COMMAND_KEY_WORDS`])
    /// a form may match, in deciding order; the form is folded as the behavior's rules
    /// fold.
    pub(crate) fn commands_for(&self, form: &str, folded: bool) -> Vec<u32> {
        let mut out: Vec<u32> = Vec::new();
        let words = form.split(' ').count().min(COMMAND_KEY_WORDS);
        for n in 1..=words {
            if let Some(list) = self.commands.get(&first_words(form, n, folded)) {
                out.extend_from_slice(list);
            }
        }
        if words > 1 {
            out.sort_unstable();
        }
        out
    }

    /// Pushes the positions of the path rules whose glob matches `q` (whatever their
    /// tool: callers check it), unsorted, with repeats.
    pub(crate) fn path_matches(&self, q: &PathQuery<'_>, anchors: &Anchors, out: &mut Vec<u32>) {
        for g in &self.paths {
            g.push_matches(q, anchors, out);
        }
    }

    /// Whether the stage has path rules in glob sets.
    pub(crate) fn has_paths(&self) -> bool {
        !self.paths.is_empty()
    }

    /// Path rules judged one by one.
    pub(crate) fn loose_paths(&self) -> &[u32] {
        &self.loose_paths
    }
}

/// Two ascending lists merged, ascending (a rule in both comes once).
pub(crate) struct Merge<'s> {
    a: &'s [u32],
    b: Cow<'s, [u32]>,
    /// How far into `b` the merge is.
    at: usize,
}

impl Iterator for Merge<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        let b = self.b.get(self.at..).unwrap_or_default();
        match (self.a.split_first(), b.first()) {
            (Some((x, rest)), Some(y)) if x < y => {
                self.a = rest;
                Some(*x)
            }
            (Some((x, rest)), Some(y)) if x == y => {
                self.a = rest;
                self.at += 1;
                Some(*x)
            }
            (_, Some(y)) => {
                self.at += 1;
                Some(*y)
            }
            (Some((x, rest)), None) => {
                self.a = rest;
                Some(*x)
            }
            (None, None) => None,
        }
    }
}

/// The compiled index of a rule set.
#[derive(Debug, Default)]
pub(crate) struct Index {
    stages: [Stage; 3],
}

fn slot(b: Behavior) -> usize {
    match b {
        Behavior::Deny => 0,
        Behavior::Ask => 1,
        Behavior::Allow => 2,
    }
}

/// Every question tool a rule with an exact tool position may speak about.
fn question_tools(rule: &Rule, name: &str) -> Vec<String> {
    let mut out = vec![canonical_tool(name).to_owned()];
    let file_tools = READ_TOOLS.iter().chain(EDIT_TOOLS).copied();
    for t in file_tools {
        if tool_applies(rule, t) && !out.iter().any(|o| o == t) {
            out.push(t.to_owned());
        }
    }
    // A shell command's files are judged as Read and Edit.
    if (tool_applies(rule, "Read") || tool_applies(rule, "Edit"))
        && !out.iter().any(|o| o == "Bash")
    {
        out.push("Bash".to_owned());
    }
    out
}

impl Index {
    /// Compiles `rules` (in deciding order).
    pub(crate) fn build(rules: &[Rule]) -> Self {
        let mut index = Index::default();
        let mut path_entries: [Vec<PathEntry>; 3] = Default::default();
        for (pos, rule) in rules.iter().enumerate() {
            let Ok(pos) = u32::try_from(pos) else { break };
            let s = slot(rule.behavior);
            let Some(stage) = index.stages.get_mut(s) else {
                continue;
            };
            match (&rule.spec.tool, &rule.spec.specifier) {
                (ToolPattern::Exact(_), Specifier::Path(p)) => {
                    if let Some(entries) = path_entries.get_mut(s) {
                        entries.push(PathEntry {
                            anchor: anchor_key(p.anchor, rule.source),
                            folded: p.case_insensitive(),
                            rule: pos,
                            glob: p.compiled().clone(),
                            star_star: p.glob == "**",
                            dir_self: p.case_insensitive() && p.glob.ends_with("/**"),
                        });
                    }
                }
                (ToolPattern::Exact(name), Specifier::Command(w)) if name == "Bash" => {
                    match w.word_key(COMMAND_KEY_WORDS) {
                        Some((key, _)) => stage.commands.entry(key).or_default().push(pos),
                        None => stage
                            .by_tool
                            .entry("Bash".to_owned())
                            .or_default()
                            .push(pos),
                    }
                }
                (ToolPattern::Exact(name), Specifier::Domain(d)) if d.exact_hosts().is_some() => {
                    let tool = canonical_tool(name).to_owned();
                    for h in d.exact_hosts().unwrap_or_default() {
                        let list = stage.domains.entry((tool.clone(), h.clone())).or_default();
                        if list.last() != Some(&pos) {
                            list.push(pos);
                        }
                    }
                }
                (ToolPattern::Exact(name), _) => {
                    for t in question_tools(rule, name) {
                        stage.by_tool.entry(t).or_default().push(pos);
                    }
                }
                (ToolPattern::McpServer(server), _) => {
                    stage.servers.entry(server.clone()).or_default().push(pos);
                }
                (ToolPattern::Glob(..), _) => stage.always.push(pos),
            }
        }
        for (stage, entries) in index.stages.iter_mut().zip(path_entries) {
            let wanted: Vec<u32> = entries.iter().map(|e| e.rule).collect();
            stage.paths = build_groups(entries);
            let mut grouped: Vec<u32> = stage.paths.iter().flat_map(|g| g.rules.clone()).collect();
            grouped.sort_unstable();
            stage.loose_paths = wanted
                .into_iter()
                .filter(|r| grouped.binary_search(r).is_err())
                .collect();
        }
        index
    }

    /// The index of one behavior's rules.
    pub(crate) fn stage(&self, b: Behavior) -> &Stage {
        // `slot` is always within the array.
        match self.stages.get(slot(b)) {
            Some(s) => s,
            None => &EMPTY_STAGE,
        }
    }
}

static EMPTY_STAGE: std::sync::LazyLock<Stage> = std::sync::LazyLock::new(Stage::default);
