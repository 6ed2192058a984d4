//! The options a plugin's `register` receives (reference §1.4), from the settings the
//! loader reads.

use crate::{Found, Inputs};
use fnhooks::Tier;
use serde_json::{Map, Value};

/// The options a plugin's `register` receives (reference §1.4): the `options` of its
/// `pluginConfigs` entry, keyed by its id (or, for a `--plugin-dir` plugin, also
/// `<name>@inline`), else by its bare name. An organization's plugin reads managed
/// settings only (a person's settings never configure the organization's policy); a
/// person's reads their user settings with managed settings over them, never project
/// or local settings (a repository must not configure the plugins of whoever opens
/// it).
#[must_use]
pub fn options_for(found: &Found, inputs: &Inputs<'_>) -> Map<String, Value> {
    let org = matches!(found.tier, Tier::Prepend | Tier::Append);
    let mut sources: Vec<&Map<String, Value>> = Vec::new();
    if !org {
        sources.extend(
            inputs
                .person
                .iter()
                .filter(|p| p.source == "user")
                .map(|p| p.settings),
        );
    }
    sources.push(inputs.managed);
    let mut out = Map::new();
    for settings in sources {
        let Some(Value::Object(configs)) = settings.get("pluginConfigs") else {
            continue;
        };
        let entry = configs
            .iter()
            .find(|(k, _)| policy::ids_equal(k, &found.id))
            .or_else(|| configs.iter().find(|(k, _)| **k == found.name))
            .map(|(_, v)| v);
        if let Some(Value::Object(options)) = entry.and_then(|e| e.get("options")) {
            for (k, v) in options {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    out
}
