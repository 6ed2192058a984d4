//! A mod of one JavaScript module given as text, with no folder (what Claude Code's test
//! kit calls an inline mod: `plugins: [{ name, register }]`): for embedders, tests and
//! benchmarks.

use crate::load::{LineMap, Manifest, ModSource, Module};
use serde_json::{json, Map};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The key an inline mod's module has (what its errors name).
pub const INLINE_MODULE: &str = "hooks/register.js";

impl ModSource {
    /// A mod named `name` whose hooks module is the ES module `js` (JavaScript, not
    /// compiled: it imports nothing), at [`INLINE_MODULE`]; its manifest holds only the
    /// name and `userConfig` (SPEC §6 `register(on, options)`).
    #[must_use]
    pub fn inline(name: &str, js: &str, user_config: Map<String, serde_json::Value>) -> Self {
        let mut modules = BTreeMap::new();
        modules.insert(
            INLINE_MODULE.to_owned(),
            Module {
                path: PathBuf::from(INLINE_MODULE),
                js: js.to_owned(),
                imports: BTreeMap::new(),
                lines: LineMap::default(),
            },
        );
        ModSource {
            root: PathBuf::from(format!("<inline {name}>")),
            manifest: Manifest {
                name: name.to_owned(),
                version: None,
                user_config: user_config.clone(),
                dependencies: Vec::new(),
                raw: json!({ "name": name, "userConfig": user_config }),
            },
            entry: INLINE_MODULE.to_owned(),
            modules,
        }
    }
}
