//! Rendering a case as a scenario (the reproduction) and as a session.

use super::*;

fn opt_value(o: Opt) -> Option<Value> {
    match o {
        Opt::Absent => None,
        Opt::False => Some(json!(false)),
        Opt::True => Some(json!(true)),
        Opt::StrTrue => Some(json!("true")),
        Opt::One => Some(json!(1)),
    }
}

impl PolicyGen {
    fn settings(&self) -> Value {
        let mut s = Map::new();
        let mut perms = Map::new();
        for (k, v) in [
            ("deny", &self.deny),
            ("ask", &self.ask),
            ("allow", &self.allow),
        ] {
            if !v.is_empty() {
                perms.insert(k.into(), json!(v));
            }
        }
        if !perms.is_empty() {
            s.insert("permissions".into(), Value::Object(perms));
        }
        if !self.env.is_empty() {
            let env: Map<String, Value> = self
                .env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), json!(v)))
                .collect();
            s.insert("env".into(), Value::Object(env));
        }
        if self.process_wrapper {
            s.insert("processWrapper".into(), json!("/opt/corp/launch"));
        }
        let mut options = Map::new();
        if let Some(v) = opt_value(self.mods_only) {
            options.insert("allowManagedModsOnly".into(), v);
        }
        if let Some(v) = opt_value(self.override_deny) {
            options.insert("allowModsToOverrideDenyRules".into(), v);
        }
        if self.configs_void {
            options.insert("note".into(), Value::Null);
        }
        if !options.is_empty() {
            s.insert(
                "pluginConfigs".into(),
                json!({ SEC_DEFAULT_ID: { "options": options } }),
            );
        }
        if !self.servers.is_empty() {
            s.insert("managedMcpServers".into(), json!(self.servers));
        }
        if let Some((us, others)) = &self.prepend {
            let mut ids: Vec<&str> = us.iter().copied().collect();
            ids.extend(others.iter().copied());
            s.insert("prependPlugins".into(), json!(ids));
        }
        if !self.append.is_empty() {
            s.insert("appendPlugins".into(), json!(self.append));
        }
        if !self.enabled.is_empty() {
            let e: Map<String, Value> = self
                .enabled
                .iter()
                .map(|(id, st)| {
                    let v = match st {
                        Enabled::True => json!(true),
                        Enabled::False => json!(false),
                        Enabled::Versions => json!(["1.0.0"]),
                    };
                    ((*id).to_owned(), v)
                })
                .collect();
            s.insert("enabledPlugins".into(), Value::Object(e));
        }
        if let Some(a) = &self.allowed {
            let entries: Vec<Value> = a.iter().map(|n| json!({"serverName": n})).collect();
            s.insert("allowedMcpServers".into(), json!(entries));
        }
        Value::Object(s)
    }

    /// The managed folder, file by file, as SCENARIOS.md writes it.
    fn files(&self) -> Map<String, Value> {
        let mut files = Map::new();
        match self.file {
            SettingsFile::Absent => {}
            SettingsFile::Content => {
                files.insert("managed-settings.json".into(), self.settings());
            }
            SettingsFile::Broken => {
                files.insert(
                    "managed-settings.json".into(),
                    json!({"$raw": "{ \"permissions\": { not json"}),
                );
            }
            SettingsFile::Empty => {
                files.insert("managed-settings.json".into(), json!({"$raw": ""}));
            }
        }
        match self.dropin {
            None => {}
            Some(true) => {
                files.insert(
                    "managed-settings.d/20-extra.json".into(),
                    json!({"permissions": {"deny": ["Bash(git push:*)"]}}),
                );
            }
            Some(false) => {
                files.insert(
                    "managed-settings.d/20-extra.json".into(),
                    json!({"$raw": "deny everything"}),
                );
            }
        }
        match self.mcp {
            McpFile::Absent => {}
            McpFile::Valid => {
                let servers: Map<String, Value> = self
                    .mcp_servers
                    .iter()
                    .map(|s| ((*s).to_owned(), json!({"command": "corp-mcp"})))
                    .collect();
                files.insert(
                    "managed-mcp.json".into(),
                    json!({"_comment": "corp", "mcpServers": servers}),
                );
            }
            McpFile::Garbage(k) => {
                let v = match k {
                    0 => json!({"$raw": "{ not json"}),
                    1 => json!(["corp-tools"]),
                    2 => json!({"servers": {"corp-tools": {}}}),
                    _ => json!({"mcpServers": ["corp-tools"]}),
                };
                files.insert("managed-mcp.json".into(), v);
            }
        }
        files
    }
}

/// A step, resolved against the listed plugins.
#[derive(Debug, Clone)]
pub(crate) struct RStep {
    pub(crate) raise: String,
    pub(crate) event: Value,
    pub(crate) from: Option<String>,
    pub(crate) core: Option<Value>,
    /// `plugin.register` of a listed plugin: a reload.
    pub(crate) reload: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct Rendered {
    pub(crate) case: Case,
    pub(crate) plugins: Vec<Value>,
    pub(crate) steps: Vec<RStep>,
    /// The managed folder, written once and read by every world of the case.
    pub(crate) folder: Arc<tempfile::TempDir>,
}

fn plugin_json(p: &PluginGen) -> Value {
    let hooks: Vec<Value> = p
        .hooks
        .iter()
        .map(|h| {
            let mut o = Map::new();
            o.insert("on".into(), json!(h.on));
            if let Some(f) = &h.filter {
                o.insert("filter".into(), f.clone());
            }
            o.insert("do".into(), h.do_.clone());
            if let Some(c) = &h.catch {
                o.insert("catch".into(), c.clone());
            }
            Value::Object(o)
        })
        .collect();
    let mut o = Map::new();
    o.insert("id".into(), json!(p.id));
    if let Some(n) = &p.name {
        o.insert("name".into(), json!(n));
    }
    o.insert("tier".into(), json!(p.tier));
    // A worker is a person's or the organization's: one shared across the two is bad
    // input (SPEC §6 "Workers"), so each side's workers have names of their own.
    if let Some(w) = p.worker {
        let side = if p.tier == Tier::User { "w" } else { "org-w" };
        o.insert("worker".into(), json!(format!("{side}{w}")));
    }
    o.insert("hooks".into(), json!(hooks));
    Value::Object(o)
}

impl Case {
    fn of_tier(&self, tier: Tier) -> Vec<&PluginGen> {
        self.plugins.iter().filter(|p| p.tier == tier).collect()
    }

    #[allow(clippy::indexing_slicing)]
    fn resolve(&self, f: FromGen) -> Option<String> {
        match f {
            FromGen::Engine => None,
            FromGen::SecDefault => Some(SEC_DEFAULT_ID.to_owned()),
            FromGen::Plugin(t, i) => {
                let ps = self.of_tier(t);
                if ps.is_empty() {
                    None
                } else {
                    Some(ps[i % ps.len()].id.clone())
                }
            }
        }
    }

    #[allow(clippy::unwrap_used)]
    pub(crate) fn render(&self) -> Rendered {
        let steps = self
            .steps
            .iter()
            .filter_map(|s| self.render_step(s))
            .collect();
        let folder = tempfile::tempdir().unwrap();
        let managed = folder.path().join("managed");
        std::fs::create_dir_all(&managed).unwrap();
        for (path, v) in self.policy.files() {
            write_file(&managed.join(path), &v);
        }
        Rendered {
            case: self.clone(),
            plugins: self.plugins.iter().map(plugin_json).collect(),
            steps,
            folder: Arc::new(folder),
        }
    }

    #[allow(clippy::indexing_slicing)]
    fn render_step(&self, s: &StepGen) -> Option<RStep> {
        let plain = |raise: &str, event: Value, from: Option<String>, core: Option<Value>| RStep {
            raise: raise.to_owned(),
            event,
            from,
            core,
            reload: None,
        };
        Some(match s {
            StepGen::Check(q) => {
                let (tool, input) = question(*q);
                plain(
                    "tool.check",
                    json!({"tool": tool, "input": input, "tool_use_id": format!("t{q}")}),
                    None,
                    None,
                )
            }
            StepGen::EnvSet { from, name, value } => {
                let mut e = json!({"name": ENV_NAMES[*name]});
                if *value {
                    e["value"] = json!("/tmp/evil.so");
                } else {
                    e["value"] = Value::Null;
                }
                plain("env.set", e, self.resolve(*from), None)
            }
            StepGen::EnvGet { from, name } => plain(
                "env.get",
                json!({"name": ENV_NAMES[*name]}),
                self.resolve(*from),
                None,
            ),
            StepGen::Register { from, tool } => plain(
                "tool.register",
                json!({"name": tool, "schema": {"type": "object"}}),
                self.resolve(*from),
                None,
            ),
            StepGen::Reload(i) => {
                if self.plugins.is_empty() {
                    return None;
                }
                let id = self.plugins[i % self.plugins.len()].id.clone();
                RStep {
                    raise: "plugin.register".into(),
                    event: json!({"plugin": id}),
                    from: None,
                    core: None,
                    reload: Some(id),
                }
            }
            StepGen::Append { door, tool, from } => {
                let mut e = json!({"door": door, "text": "row text"});
                if let Some(t) = tool {
                    e["tool"] = json!(t);
                }
                let from = if *door == "note" {
                    self.resolve(*from)
                } else {
                    None
                };
                plain(
                    "session.append",
                    e,
                    from,
                    Some(json!({"text": "row text", "stored": true})),
                )
            }
            StepGen::Describe { raise, provider } => plain(
                raise,
                match provider {
                    Some(p) => json!({"subject": "corp-search", "provider": p}),
                    None => json!({"subject": "corp-search"}),
                },
                None,
                Some(json!({"description": "the org's search"})),
            ),
            StepGen::UiLog { from } => plain(
                "ui.log",
                json!({"line": "a line", "to": "screen"}),
                self.resolve(*from),
                None,
            ),
            StepGen::Simple(i) => {
                let (raise, event, core) = simple(*i);
                plain(raise, event, None, core)
            }
        })
    }
}

impl Rendered {
    /// The case as a scenario file (SCENARIOS.md), each step expecting `expect(step)`.
    fn scenario(&self, name: &str, expect: impl Fn(usize, &RStep) -> Option<Value>) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut o = Map::new();
                o.insert("raise".into(), json!(s.raise));
                o.insert("event".into(), s.event.clone());
                if let Some(f) = &s.from {
                    o.insert("from".into(), json!(f));
                }
                if let Some(c) = &s.core {
                    o.insert("core".into(), c.clone());
                }
                if let Some(e) = expect(i, s) {
                    o.insert("expect".into(), e);
                }
                Value::Object(o)
            })
            .collect();
        json!({
            "name": name,
            "about": "generated by crates/scenario/tests/invariants (SPEC §5)",
            "policy": self.case.policy.files(),
            "session": {
                "mode": self.case.mode,
                "loop": self.case.loop_,
                "host": self.case.host,
                "hook_timeout_ms": HOOK_TIMEOUT_MS,
            },
            "plugins": self.plugins,
            "steps": steps,
        })
    }

    pub(crate) fn repro(&self, name: &str) -> String {
        serde_json::to_string_pretty(&self.scenario(name, |_, _| None)).unwrap_or_default()
    }
}
