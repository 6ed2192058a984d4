//! Shared helpers: a managed folder written from a JSON description, the way
//! scenario files describe one (SCENARIOS.md): each entry is the file's JSON
//! content, `{"$raw": "text"}` (raw bytes) or `{"$unreadable": true}` (a
//! directory at that path, so reading fails even as root).

use std::fs;
use std::path::Path;

use serde_json::Value;
use tempfile::TempDir;

#[allow(clippy::unwrap_used)]
pub(crate) fn write_file(folder: &Path, name: &str, content: &Value) {
    let path = folder.join(name);
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).unwrap();
    }
    if path.is_dir() {
        fs::remove_dir_all(&path).unwrap();
    }
    match content {
        Value::Null => {
            let _ = fs::remove_file(&path);
        }
        Value::Object(o) if o.len() == 1 && o.get("$unreadable") == Some(&Value::Bool(true)) => {
            let _ = fs::remove_file(&path);
            fs::create_dir_all(&path).unwrap();
        }
        Value::Object(o) if o.len() == 1 && o.get("$raw").is_some_and(Value::is_string) => {
            fs::write(&path, o["$raw"].as_str().unwrap()).unwrap();
        }
        other => fs::write(&path, serde_json::to_vec_pretty(other).unwrap()).unwrap(),
    }
}

#[allow(clippy::expect_used, clippy::unwrap_used)]
pub(crate) fn managed_folder(files: &Value) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, content) in files.as_object().expect("an object of files") {
        write_file(dir.path(), name, content);
    }
    dir
}
