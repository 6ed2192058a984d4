//! A mod of one JavaScript module given as text, with no folder (what Claude Code's test
//! kit calls an inline mod: `plugins: [{ name, register }]`): for embedders, tests and
//! benchmarks.

use crate::load::{LoadError, Manifest, ModSource, Module};
use serde_json::{json, Map};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The key an inline mod's module has (what its errors name).
pub const INLINE_MODULE: &str = "hooks/register.js";

impl ModSource {
    /// A mod named `name` whose hooks module is the ES module `js` (JavaScript that
    /// imports nothing), at [`INLINE_MODULE`]; its manifest holds only the name and
    /// `userConfig` (SPEC §6 `register(on, options)`). The module is compiled as a
    /// folder's is (the caps, and the instrumentation of SPEC §6 "Limits"), on a thread
    /// with a large stack; the call blocks until it is done.
    ///
    /// # Errors
    ///
    /// [`LoadError`] naming `<inline NAME>` and [`INLINE_MODULE`]: a syntax error, a cap
    /// passed, a reserved name (`__secDefault...`).
    pub fn inline(
        name: &str,
        js: &str,
        user_config: Map<String, serde_json::Value>,
    ) -> Result<Self, LoadError> {
        let root = PathBuf::from(format!("<inline {name}>"));
        let (r, src) = (root.clone(), js.to_owned());
        let compiled = crate::load::on_compiler_thread(&root, move || {
            let ctx = crate::load::resolve::Ctx {
                folder: &r,
                root: &r,
            };
            crate::load::compile::compile_source(
                &ctx,
                INLINE_MODULE,
                std::path::Path::new(INLINE_MODULE),
                &src,
                crate::load::scan::Dialect {
                    ts: false,
                    jsx: false,
                },
            )
        })?;
        let mut modules = BTreeMap::new();
        modules.insert(
            INLINE_MODULE.to_owned(),
            Module {
                path: PathBuf::from(INLINE_MODULE),
                js: compiled.js,
                imports: BTreeMap::new(),
                lines: compiled.lines,
            },
        );
        Ok(ModSource {
            root,
            manifest: Manifest {
                name: name.to_owned(),
                version: None,
                user_config: user_config.clone(),
                dependencies: Vec::new(),
                raw: json!({ "name": name, "userConfig": user_config }),
            },
            entry: INLINE_MODULE.to_owned(),
            modules,
        })
    }
}
