//! The drop-in merge: base file first, then `managed-settings.d/*.json` in
//! file-name order (SPEC §2.1; reference §1.4).
//!
//! Scalars: the later value wins. Arrays: concatenated, duplicates removed.
//! Objects: merged key by key, recursively. `fallbackModel` is replaced whole
//! and `extraKnownMarketplaces` entries of the same name are replaced whole.
//! A type conflict between files: the later wins, with a warning (not for
//! unknown top-level keys, which are ignored silently).

use std::mem::discriminant;
use std::path::Path;

use serde_json::{Map, Value};

use crate::pointer;
use crate::salvage::{is_known_key, type_name};
use crate::Warning;

struct Merger<'a> {
    file: &'a Path,
    warnings: &'a mut Vec<Warning>,
    warn_conflicts: bool,
}

/// Merges one salvaged file (`later`, read from `file`) into the settings
/// merged so far. Conflict warnings point inside `file`.
///
/// SPEC §2.1 "Drop-ins merge as Claude Code merges them"
pub(crate) fn merge_file(
    merged: &mut Map<String, Value>,
    later: Map<String, Value>,
    file: &Path,
    warnings: &mut Vec<Warning>,
) {
    for (key, value) in later {
        let at = pointer::key("", &key);
        let mut merger = Merger {
            file,
            warnings: &mut *warnings,
            warn_conflicts: is_known_key(&key),
        };
        match merged.get_mut(&key) {
            None => {
                merged.insert(key, value);
            }
            Some(existing) => match (key.as_str(), existing, value) {
                ("fallbackModel", existing, value) => *existing = value,
                ("extraKnownMarketplaces", Value::Object(existing), Value::Object(later)) => {
                    for (name, entry) in later {
                        existing.insert(name, entry);
                    }
                }
                (_, existing, value) => merger.merge_value(existing, value, &at),
            },
        }
    }
}

impl Merger<'_> {
    fn merge_value(&mut self, existing: &mut Value, later: Value, at: &str) {
        match (existing, later) {
            (Value::Object(existing), Value::Object(later)) => {
                for (key, value) in later {
                    match existing.get_mut(&key) {
                        Some(slot) => {
                            let here = pointer::key(at, &key);
                            self.merge_value(slot, value, &here);
                        }
                        None => {
                            existing.insert(key, value);
                        }
                    }
                }
            }
            (Value::Array(existing), Value::Array(later)) => {
                for item in later {
                    if !existing.contains(&item) {
                        existing.push(item);
                    }
                }
            }
            (existing, later) => {
                if self.warn_conflicts && discriminant(existing) != discriminant(&later) {
                    self.warnings.push(Warning {
                        file: self.file.to_path_buf(),
                        line: None,
                        pointer: at.to_owned(),
                        reason: format!(
                            "{} here, {} in an earlier managed file; this file's value wins",
                            type_name(&later),
                            type_name(existing)
                        ),
                    });
                }
                *existing = later;
            }
        }
    }
}

#[cfg(test)]
mod tests {

    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn merge_all(files: &[Value]) -> (Value, Vec<Warning>) {
        let mut merged = Map::new();
        let mut warnings = Vec::new();
        for (i, f) in files.iter().enumerate() {
            let name = format!("f{i}.json");
            merge_file(&mut merged, obj(f.clone()), Path::new(&name), &mut warnings);
        }
        (Value::Object(merged), warnings)
    }

    #[test]
    fn scalars_later_wins_arrays_union_objects_deep() {
        let (merged, warnings) = merge_all(&[
            json!({"model": "a", "permissions": {"deny": ["A", "B"]}, "env": {"X": "1"}}),
            json!({"model": "b", "permissions": {"deny": ["B", "C"], "ask": ["D"]}, "env": {"Y": "2"}}),
        ]);
        assert_eq!(
            merged,
            json!({"model": "b", "permissions": {"deny": ["A", "B", "C"], "ask": ["D"]}, "env": {"X": "1", "Y": "2"}})
        );
        assert!(warnings.is_empty());
    }

    #[test]
    fn empty_drop_ins_never_erase() {
        let (merged, _) = merge_all(&[
            json!({"permissions": {"deny": ["Bash(batch_submit:*)"]}}),
            json!({}),
            json!({"permissions": {"deny": []}}),
        ]);
        assert_eq!(
            merged,
            json!({"permissions": {"deny": ["Bash(batch_submit:*)"]}})
        );
    }

    #[test]
    fn type_conflict_later_wins_with_warning_in_the_later_file() {
        let (merged, warnings) = merge_all(&[
            json!({"sandbox": {"network": {"allowedDomains": ["a"]}}, "_comment": "x"}),
            json!({"sandbox": {"network": {"allowedDomains": "b"}}, "_comment": ["y"]}),
        ]);
        assert_eq!(
            merged,
            json!({"sandbox": {"network": {"allowedDomains": "b"}}, "_comment": ["y"]})
        );
        assert_eq!(
            warnings.len(),
            1,
            "unknown top-level keys conflict silently"
        );
        assert_eq!(warnings[0].file, Path::new("f1.json"));
        assert_eq!(warnings[0].pointer, "/sandbox/network/allowedDomains");
    }

    #[test]
    fn fallback_model_and_marketplaces_replace_whole() {
        let (merged, _) = merge_all(&[
            json!({"fallbackModel": ["a", "b"], "extraKnownMarketplaces": {"m": {"source": {"x": 1}}, "n": {}}}),
            json!({"fallbackModel": ["c"], "extraKnownMarketplaces": {"m": {"other": 2}}}),
        ]);
        assert_eq!(
            merged,
            json!({"fallbackModel": ["c"], "extraKnownMarketplaces": {"m": {"other": 2}, "n": {}}})
        );
    }
}
