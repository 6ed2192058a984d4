//! Calls synthesized to meet a permission rule (SPEC §4 "Rule syntax"), for the
//! `audit` attacks on deny and ask rules (issue #2 item 7).
//!
//! The synthesis is a guess, made from the rule's text alone: each rule gives a short
//! list of candidate calls, and the audit keeps the first one that a session with no
//! person's plugins (the oracle session) actually decides by that rule. So a wrong
//! guess can never make an attack pass; at worst the rule is listed as not exercised.

use serde_json::{json, Value};

/// The working directory of every audit session (the scenario format's default).
pub(super) const CWD: &str = "/home/dev/repo";
/// The home directory of every audit session (the scenario format's default).
pub(super) const HOME: &str = "/home/dev";

/// What a wildcard stands for in a synthesized call.
const PROBE: &str = "probe";

/// One tool call: the pinned question of `tool.check` (SPEC §1.6, §3.6).
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Call {
    /// The tool's name.
    pub tool: String,
    /// The tool's input.
    pub input: Value,
}

/// Building calls.
impl Call {
    /// A call of `tool` with `input`.
    fn new(tool: &str, input: Value) -> Self {
        Call {
            tool: tool.to_owned(),
            input,
        }
    }

    /// The call as JSON `{tool, input}`.
    pub(super) fn to_value(&self) -> Value {
        json!({ "tool": self.tool, "input": self.input })
    }
}

/// The tools whose specifier is a path (SPEC §4 "Rule syntax").
const PATH_TOOLS: &[&str] = &[
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Glob",
    "Grep",
    "LS",
];

/// Splits `Tool(specifier)` into its tool position and specifier; `Tool` alone has
/// none. Text that is not of that shape is taken as a bare tool name.
fn split_rule(rule: &str) -> (String, Option<String>) {
    let rule = rule.trim();
    match rule.find('(') {
        Some(open) => {
            let name = rule.get(..open).unwrap_or_default().trim().to_owned();
            let inner = rule.get(open + 1..).unwrap_or_default();
            let inner = inner.strip_suffix(')').unwrap_or(inner);
            (name, Some(inner.to_owned()))
        }
        None => (rule.to_owned(), None),
    }
}

/// The candidate calls for `rule`, most likely first (SPEC §4): Bash prefix rules
/// give a command starting with the prefix, `*` wildcards are filled in, Read/Edit
/// path globs give a concrete path under the session's working or home folder,
/// `WebFetch(domain:x)` gives `https://x/`, `mcp__server` gives one of its tools, a
/// bare tool gives that tool with a plausible input. The last candidate is always
/// the rule's tool with a plausible input (an unparseable deny rule stands for its
/// whole tool).
pub(super) fn candidates(rule: &str) -> Vec<Call> {
    let (name, spec) = split_rule(rule);
    let tool = fill_tool_name(&name);
    let mut out = Vec::new();
    if let Some(spec) = spec.as_deref() {
        let canonical = if tool == "Task" {
            "Agent"
        } else {
            tool.as_str()
        };
        match canonical {
            "Bash" => out.extend(bash_candidates(spec)),
            t if PATH_TOOLS.contains(&t) => {
                for path in path_candidates(spec) {
                    out.push(Call::new(&tool, path_input(&tool, &path)));
                }
            }
            "WebFetch" => out.extend(webfetch_candidates(spec)),
            "Agent" => out.push(Call::new(
                &tool,
                json!({"subagent_type": fill(spec.trim()), "description": PROBE, "prompt": PROBE}),
            )),
            "Skill" => out.push(Call::new(
                &tool,
                json!({"skill": fill(spec.trim().trim_start_matches('/'))}),
            )),
            _ => {}
        }
        out.extend(param_candidates(&tool, spec));
    }
    out.push(Call::new(&tool, plausible_input(&tool)));
    out
}

/// A tool-name position with its wildcards filled: `mcp__server` becomes one of the
/// server's tools.
fn fill_tool_name(name: &str) -> String {
    let filled = fill(name);
    match filled.strip_prefix("mcp__") {
        Some(rest) if !rest.is_empty() && !rest.contains("__") => format!("{filled}__{PROBE}"),
        _ => filled,
    }
}

/// Fills every `*` (and `?`) of a pattern with a plain word.
fn fill(pattern: &str) -> String {
    pattern.replace("**", PROBE).replace(['*', '?'], PROBE)
}

/// Commands a `Bash(...)` specifier meets: `prefix:*` gives the prefix with an
/// argument and alone, ` *` and `*` are filled in (SPEC §4).
fn bash_candidates(spec: &str) -> Vec<Call> {
    let spec = spec.trim();
    let bash = |command: String| Call::new("Bash", json!({ "command": command }));
    if spec == "*" {
        return vec![bash("make deploy".to_owned())];
    }
    if let Some(prefix) = spec.strip_suffix(":*") {
        let prefix = prefix.trim_end();
        return vec![
            bash(format!("{prefix} https://example.invalid")),
            bash(prefix.to_owned()),
        ];
    }
    if spec.contains('*') {
        let bare = spec.replace(" *", "").replace('*', "");
        return vec![
            bash(spec.replace('*', "https://example.invalid")),
            bash(spec.replace('*', PROBE)),
            bash(bare),
        ];
    }
    vec![bash(spec.to_owned())]
}

/// A URL on the host `domain:<host>` names; `*.x` gives a subdomain (SPEC §4 "WebFetch").
fn webfetch_candidates(spec: &str) -> Vec<Call> {
    let Some(host) = spec.trim().strip_prefix("domain:") else {
        return Vec::new();
    };
    let host = host.trim();
    let host = match host.strip_prefix("*.") {
        Some(rest) => format!("{PROBE}.{}", fill(rest)),
        None => fill(host),
    };
    vec![Call::new(
        "WebFetch",
        json!({"url": format!("https://{host}/"), "prompt": "summarize the page"}),
    )]
}

/// `Tool(key:value)` rules: the tool's plausible input with `key` set to the value,
/// as a string and, when it reads as JSON (`true`, `3`), as that value.
fn param_candidates(tool: &str, spec: &str) -> Vec<Call> {
    let Some((key, value)) = spec.split_once(':') else {
        return Vec::new();
    };
    let key = key.trim();
    let ident = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !ident {
        return Vec::new();
    }
    let value = fill(value.trim());
    let mut values = vec![Value::String(value.clone())];
    if let Ok(v) = serde_json::from_str::<Value>(&value) {
        if !v.is_string() && !v.is_object() && !v.is_array() {
            values.insert(0, v);
        }
    }
    values
        .into_iter()
        .map(|v| {
            let mut input = plausible_input(tool);
            if let Some(obj) = input.as_object_mut() {
                obj.insert(key.to_owned(), v);
            }
            Call::new(tool, input)
        })
        .collect()
}

/// Concrete paths a gitignore-style path pattern matches (SPEC §4 "Paths"): `//abs`
/// is absolute, `~/x` under the home folder, `/x` absolute for the policy source,
/// `./x` and bare `x` under the working folder (bare: at any depth).
fn path_candidates(spec: &str) -> Vec<String> {
    let spec = spec.trim();
    let (bases, rest): (Vec<String>, &str) = if let Some(r) = spec.strip_prefix("//") {
        (vec![String::new()], r)
    } else if spec == "~" {
        (vec![HOME.to_owned()], "")
    } else if let Some(r) = spec.strip_prefix("~/") {
        (vec![HOME.to_owned()], r)
    } else if let Some(r) = spec.strip_prefix('/') {
        (vec![String::new(), CWD.to_owned()], r)
    } else if let Some(r) = spec.strip_prefix("./") {
        (vec![CWD.to_owned()], r)
    } else {
        (vec![CWD.to_owned(), format!("{CWD}/src")], spec)
    };
    let rest = rest.trim_matches('/');
    let mut fills = vec![fill_path(rest, "")];
    if rest.contains("**/") {
        fills.push(fill_path(rest, "sub/"));
    }
    let mut out = Vec::new();
    for base in &bases {
        for f in &fills {
            let path = if f.is_empty() {
                base.clone()
            } else {
                format!("{base}/{f}")
            };
            let path = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            push_unique(&mut out, path.clone());
            push_unique(&mut out, format!("{}/{PROBE}", path.trim_end_matches('/')));
        }
    }
    out
}

/// Adds `s` unless already there (candidates stay in order, once each).
fn push_unique(v: &mut Vec<String>, s: String) {
    if !v.contains(&s) {
        v.push(s);
    }
}

/// Fills a path glob: `**/` becomes `dirs` (nothing or one folder), a remaining `**`
/// or `*` a plain word, `?` one letter, a class `[...]` its first member.
fn fill_path(glob: &str, dirs: &str) -> String {
    let glob = glob.replace("**/", dirs).replace("**", PROBE);
    let mut out = String::new();
    let mut chars = glob.chars();
    while let Some(c) = chars.next() {
        match c {
            '*' => out.push_str(PROBE),
            '?' => out.push('p'),
            '[' => {
                let class: String = chars.by_ref().take_while(|&c| c != ']').collect();
                let first = class.trim_start_matches(['!', '^']).chars().next();
                out.push(first.unwrap_or('p'));
            }
            '{' => {
                let alt: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push_str(alt.split(',').next().unwrap_or_default());
            }
            '\\' => {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The input of a path tool for `path`.
fn path_input(tool: &str, path: &str) -> Value {
    match tool {
        "Edit" => json!({"file_path": path, "old_string": "a", "new_string": "b"}),
        "Write" => json!({"file_path": path, "content": "x"}),
        "MultiEdit" => {
            json!({"file_path": path, "edits": [{"old_string": "a", "new_string": "b"}]})
        }
        "NotebookEdit" => json!({"notebook_path": path, "new_source": "x"}),
        "NotebookRead" => json!({"notebook_path": path}),
        "Glob" => json!({"pattern": "*", "path": path}),
        "Grep" => json!({"pattern": PROBE, "path": path}),
        "LS" => json!({"path": path}),
        _ => json!({"file_path": path}),
    }
}

/// A plausible input for a call of `tool` with nothing in particular asked.
fn plausible_input(tool: &str) -> Value {
    match tool {
        "Bash" => json!({"command": "make deploy"}),
        "WebFetch" => json!({"url": "https://example.invalid/", "prompt": "summarize the page"}),
        "WebSearch" => json!({"query": "example"}),
        "Agent" | "Task" => {
            json!({"subagent_type": "general-purpose", "description": PROBE, "prompt": PROBE})
        }
        "Skill" => json!({"skill": PROBE}),
        t if PATH_TOOLS.contains(&t) => path_input(t, &format!("{CWD}/README.md")),
        _ => json!({}),
    }
}

#[cfg(test)]
mod tests {
    #![allow(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )]
    use super::*;

    fn first(rule: &str) -> Value {
        candidates(rule)[0].to_value()
    }

    #[test]
    fn bash_prefix_and_wildcards() {
        assert_eq!(
            first("Bash(rm -rf:*)")["input"]["command"],
            "rm -rf https://example.invalid"
        );
        assert_eq!(
            first("Bash(curl *)")["input"]["command"],
            "curl https://example.invalid"
        );
        assert_eq!(first("Bash(git status)")["input"]["command"], "git status");
        assert_eq!(first("Bash")["input"]["command"], "make deploy");
    }

    #[test]
    fn paths_land_under_the_session_folders() {
        assert_eq!(
            first("Read(~/.ssh/**)")["input"]["file_path"],
            "/home/dev/.ssh/probe"
        );
        assert_eq!(
            first("Read(./.env)")["input"]["file_path"],
            "/home/dev/repo/.env"
        );
        assert_eq!(
            first("Read(**/*.pem)")["input"]["file_path"],
            "/home/dev/repo/probe.pem"
        );
        assert_eq!(
            first("Edit(//etc/hosts)")["input"]["file_path"],
            "/etc/hosts"
        );
        assert_eq!(
            first("Read(src/[ab]?.{rs,toml})")["input"]["file_path"],
            "/home/dev/repo/src/ap.rs"
        );
    }

    #[test]
    fn web_mcp_agents_and_params() {
        assert_eq!(
            first("WebFetch(domain:*.corp.example)")["input"]["url"],
            "https://probe.corp.example/"
        );
        assert_eq!(first("mcp__github")["tool"], "mcp__github__probe");
        assert_eq!(
            first("mcp__github__create_issue")["tool"],
            "mcp__github__create_issue"
        );
        assert_eq!(first("mcp__*")["tool"], "mcp__probe__probe");
        assert_eq!(first("Task(Explore)")["input"]["subagent_type"], "Explore");
        assert!(candidates("Bash(run_in_background:true)")
            .iter()
            .any(|c| c.input["run_in_background"] == true));
        assert_eq!(candidates("Foo(bar").last().unwrap().tool, "Foo");
    }
}
