//! The manifest reader's rules, on folders made for each test.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]

use super::*;
use pretty_assertions::assert_eq;
use serde_json::json;

/// A plugin folder whose manifest holds `bytes`.
fn folder_with(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(MANIFEST_FILE);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
    dir
}

fn read(text: &str) -> Result<Option<Manifest>, ManifestError> {
    let dir = folder_with(text.as_bytes());
    read_manifest(dir.path())
}

#[test]
fn a_valid_manifest_is_read_whole() {
    let text = json!({
        "name": "deployment-tools",
        "version": "1.2.0",
        "description": "Deploy helpers",
        "userConfig": { "level": { "type": "string", "default": "low" } },
        "dependencies": ["helper-lib", { "name": "secrets-vault", "version": "~2.1.0" }],
        "somethingNew": [1, 2],
    })
    .to_string();
    let m = read(&text).unwrap().expect("there is one");
    assert_eq!(m.name, "deployment-tools");
    assert_eq!(m.version.as_deref(), Some("1.2.0"));
    assert_eq!(m.user_config["level"]["default"], "low");
    assert_eq!(m.dependencies, ["helper-lib", "secrets-vault"]);
    // Unknown fields are ignored, and kept as read.
    assert_eq!(m.raw["somethingNew"], json!([1, 2]));
}

#[test]
fn only_the_name_is_required_and_null_is_absent() {
    let m = read(r#"{"name": "x", "version": null, "userConfig": null, "dependencies": null}"#)
        .unwrap()
        .expect("there is one");
    assert_eq!(m.name, "x");
    assert_eq!(m.version, None);
    assert!(m.user_config.is_empty());
    assert!(m.dependencies.is_empty());
}

#[test]
fn no_manifest_is_none() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(read_manifest(dir.path()), Ok(None));
}

#[test]
fn malformed_json_names_the_file_and_the_position() {
    let dir = folder_with(b"{\n  \"name\": \"x\",\n  oops\n}");
    let e = read_manifest(dir.path()).unwrap_err();
    let path = dir.path().join(MANIFEST_FILE);
    assert_eq!(
        e,
        ManifestError::NotJson {
            path: path.clone(),
            line: 3,
            column: 3,
            reason: "key must be a string".to_owned(),
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "{}:3:3: the manifest is not JSON: key must be a string",
            path.display()
        )
    );
    assert_eq!(e.path(), path);
}

#[test]
fn text_that_is_not_utf8_is_refused_naming_the_file() {
    let dir = folder_with(b"{\"name\": \"\xff\"}");
    assert_eq!(
        read_manifest(dir.path()),
        Err(ManifestError::NotUtf8 {
            path: dir.path().join(MANIFEST_FILE)
        })
    );
}

#[test]
fn a_field_of_the_wrong_type_names_its_pointer_and_why() {
    for (text, pointer, reason) in [
        ("[1]", "", "not a JSON object"),
        (
            "{}",
            "/name",
            "no `name`: a plugin manifest names its plugin",
        ),
        (r#"{"name": 3}"#, "/name", "`name` is not a string"),
        (r#"{"name": " "}"#, "/name", "`name` is empty"),
        (
            r#"{"name": "my plugin"}"#,
            "/name",
            "`name` holds a space: a plugin name is kebab-case",
        ),
        (
            r#"{"name": "x", "version": 1}"#,
            "/version",
            "`version` is not a string",
        ),
        (
            r#"{"name": "x", "userConfig": []}"#,
            "/userConfig",
            "`userConfig` is not an object",
        ),
        (
            r#"{"name": "x", "dependencies": "a"}"#,
            "/dependencies",
            "`dependencies` is not an array of strings",
        ),
        (
            r#"{"name": "x", "dependencies": ["a", 2]}"#,
            "/dependencies/1",
            "`dependencies[1]` is not a string",
        ),
        (
            r#"{"name": "x", "dependencies": [{"version": "1"}]}"#,
            "/dependencies/0",
            "`dependencies[0]` has no string `name`",
        ),
        (
            r#"{"name": "x", "dependencies": [{"name": "a", "version": 1}]}"#,
            "/dependencies/0",
            "`dependencies[0]` has a `version` that is not a string",
        ),
    ] {
        let dir = folder_with(text.as_bytes());
        let path = dir.path().join(MANIFEST_FILE);
        let e = read_manifest(dir.path()).unwrap_err();
        assert_eq!(
            e,
            ManifestError::Invalid {
                path: path.clone(),
                pointer: pointer.to_owned(),
                reason: reason.to_owned(),
            },
            "{text}"
        );
        assert_eq!(e.to_string(), format!("{}: {reason}", path.display()));
    }
}

#[test]
fn a_manifest_over_the_cap_is_not_read() {
    let mut text = br#"{"name": "x", "description": ""#.to_vec();
    let cap = usize::try_from(MAX_MANIFEST_BYTES).unwrap();
    text.resize(cap + 1, b' ');
    let dir = folder_with(&text);
    let path = dir.path().join(MANIFEST_FILE);
    let e = read_manifest(dir.path()).unwrap_err();
    assert!(
        matches!(&e, ManifestError::TooLarge { path: p, cap, .. } if *p == path && *cap == MAX_MANIFEST_BYTES),
        "{e:?}"
    );
    assert!(
        e.to_string()
            .starts_with(&format!("{}: cannot read: ", path.display())),
        "{e}"
    );
}

#[test]
fn a_manifest_at_the_cap_is_read() {
    let mut text = br#"{"name": "x", "description": ""#.to_vec();
    let cap = usize::try_from(MAX_MANIFEST_BYTES).unwrap();
    text.resize(cap - 2, b'a');
    text.extend_from_slice(b"\"}");
    assert_eq!(text.len(), cap);
    let dir = folder_with(&text);
    assert_eq!(read_manifest(dir.path()).unwrap().unwrap().name, "x");
}

#[cfg(unix)]
#[test]
fn a_folder_in_place_of_the_manifest_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(MANIFEST_FILE);
    std::fs::create_dir_all(&path).unwrap();
    assert_eq!(
        read_manifest(dir.path()),
        Err(ManifestError::Unreadable {
            path,
            reason: "it is a directory, not a regular file, so it is not read".to_owned(),
        })
    );
}
