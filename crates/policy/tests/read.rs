//! `read_policy` over managed folders written on disk (SPEC §2.1).

mod common;

use std::path::{Path, PathBuf};

use common::{managed_folder, write_file};
use policy::{
    platform_folder, read_policy, ManagedLocation, Policy, PolicyError, SourceFile, SourceKind,
};
use pretty_assertions::assert_eq;
use serde_json::{json, Value};

fn read(files: Value) -> (tempfile::TempDir, Result<Policy, PolicyError>) {
    let dir = managed_folder(&files);
    let result = read_policy(&ManagedLocation::Explicit(dir.path().to_path_buf()));
    (dir, result)
}

#[allow(clippy::unwrap_used)]
fn read_ok(files: Value) -> (tempfile::TempDir, Policy) {
    let (dir, result) = read(files);
    let policy = result.unwrap();
    (dir, policy)
}

fn settings(policy: &Policy) -> Value {
    Value::Object(policy.settings.clone())
}

/// The error's message with the temporary folder replaced by `<managed>`.
fn message(dir: &Path, e: &PolicyError) -> String {
    e.to_string()
        .replace(&dir.display().to_string(), "<managed>")
}

#[test]
fn a_folder_with_no_managed_files_reads_as_the_empty_policy() {
    let (_dir, policy) = read_ok(json!({}));
    assert_eq!(policy, Policy::empty());
    assert!(policy.managed() == policy::ManagedSettings::default());
}

#[test]
fn an_explicit_folder_that_does_not_exist_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope");
    let err = read_policy(&ManagedLocation::Explicit(missing.clone())).unwrap_err();
    assert_eq!(
        err,
        PolicyError::FolderNotFound {
            path: missing.clone()
        }
    );
    assert!(!err.is_fail_closed());
    assert_eq!(err.path(), missing);
    assert_eq!(
        message(dir.path(), &err),
        "<managed>/nope: the managed folder given does not exist"
    );
}

#[test]
fn the_platform_folder_absent_is_the_empty_policy() {
    assert_eq!(
        ManagedLocation::Platform.folder(),
        platform_folder(),
        "Platform names the platform folder"
    );
    if cfg!(target_os = "linux") {
        assert_eq!(platform_folder(), PathBuf::from("/etc/claude-code"));
    }
    // Tests never write to /etc; where the folder is absent (as on CI), the
    // platform read is the empty policy, not an error.
    if !platform_folder().exists() {
        assert_eq!(read_policy(&ManagedLocation::Platform), Ok(Policy::empty()));
    }
}

#[test]
fn an_explicit_path_that_is_a_file_fails() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("f");
    std::fs::write(&file, "{}").unwrap();
    let err = read_policy(&ManagedLocation::Explicit(file)).unwrap_err();
    assert!(matches!(err, PolicyError::Io { .. }), "{err:?}");
}

#[test]
fn an_empty_file_fails_the_read() {
    for name in ["managed-settings.json", "managed-settings.d/10-x.json"] {
        let (dir, result) = read(json!({ name: {"$raw": ""} }));
        let err = result.unwrap_err();
        assert_eq!(
            err,
            PolicyError::Empty {
                path: dir.path().join(name)
            }
        );
        assert!(err.is_fail_closed());
        assert_eq!(
            message(dir.path(), &err),
            format!("<managed>/{name}: the file is empty (0 bytes); the managed policy cannot be read, so everything it guards holds")
        );
    }
}

#[test]
fn json_that_is_not_an_object_fails_the_read() {
    for content in [json!([]), json!("x"), json!(null), json!(3)] {
        let (dir, result) =
            read(json!({ "managed-settings.d/x.json": {"$raw": content.to_string()} }));
        assert_eq!(
            result.unwrap_err(),
            PolicyError::NotObject {
                path: dir.path().join("managed-settings.d/x.json")
            }
        );
    }
}

#[test]
fn invalid_json_fails_with_line_and_column() {
    let (dir, result) = read(json!({
        "managed-settings.json": {"permissions": {"deny": ["Bash(rm:*)"]}},
        "managed-settings.d/20-bad.json": {"$raw": "{\n  \"permissions\": {\n    \"deny\": [\"x\"] \"ask\": []\n  }\n}"}
    }));
    let err = result.unwrap_err();
    let PolicyError::Json { line, column, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!((*line, *column), (3, 19));
    insta::assert_snapshot!(message(dir.path(), &err));
}

#[test]
fn comments_and_trailing_commas_are_not_json() {
    let (_dir, result) = read(json!({ "managed-settings.json": {"$raw": "{ // c\n}"} }));
    assert!(matches!(result, Err(PolicyError::Json { line: 1, .. })));
    let (_dir, result) = read(json!({ "managed-settings.json": {"$raw": "{\"a\": 1,}"} }));
    assert!(matches!(result, Err(PolicyError::Json { .. })));
}

#[test]
fn an_unreadable_file_fails_the_read() {
    for name in ["managed-settings.json", "managed-settings.d/50-x.json"] {
        let (dir, result) = read(json!({
            "managed-settings.json": {"permissions": {"deny": ["Bash"]}},
            name: {"$unreadable": true}
        }));
        let err = result.unwrap_err();
        assert!(
            matches!(&err, PolicyError::Io { path, .. } if path == &dir.path().join(name)),
            "{err:?}"
        );
        let text = message(dir.path(), &err);
        assert!(text.starts_with(&format!("<managed>/{name}: ")), "{text}");
        assert!(
            text.ends_with("; the managed policy cannot be read, so everything it guards holds")
        );
    }
}

#[test]
fn a_drop_in_folder_that_is_a_file_fails_the_read() {
    let (dir, result) = read(json!({ "managed-settings.d": {"$raw": "{}"} }));
    assert!(
        matches!(result, Err(PolicyError::Io { ref path, .. }) if path == &dir.path().join("managed-settings.d"))
    );
}

#[test]
fn drop_ins_merge_in_file_name_order_skipping_hidden_and_non_json() {
    let (dir, policy) = read_ok(json!({
        "managed-settings.json": {"model": "base", "permissions": {"deny": ["A"]}},
        "managed-settings.d/2-b.json": {"model": "2", "permissions": {"deny": ["C", "A"]}},
        "managed-settings.d/10-a.json": {"model": "10", "permissions": {"deny": ["B"]}},
        "managed-settings.d/.hidden.json": {"model": "hidden"},
        "managed-settings.d/notes.txt": {"$raw": "not json"},
        "managed-settings.d/x.json.bak": {"$raw": "not json"},
        "managed-settings.d/X.JSON": {"model": "upper"}
    }));
    assert_eq!(
        settings(&policy),
        json!({"model": "2", "permissions": {"deny": ["A", "B", "C"]}})
    );
    assert_eq!(
        policy.sources,
        vec![
            SourceFile {
                path: dir.path().join("managed-settings.json"),
                kind: SourceKind::Settings
            },
            SourceFile {
                path: dir.path().join("managed-settings.d/10-a.json"),
                kind: SourceKind::DropIn
            },
            SourceFile {
                path: dir.path().join("managed-settings.d/2-b.json"),
                kind: SourceKind::DropIn
            },
        ]
    );
    assert!(policy.warnings.is_empty());
}

#[test]
fn drop_ins_without_a_base_file() {
    let (_dir, policy) = read_ok(json!({
        "managed-settings.d/10.json": {"allowManagedHooksOnly": true}
    }));
    assert_eq!(settings(&policy), json!({"allowManagedHooksOnly": true}));
}

/// /work/shared/cases/fail-closed/empty-drop-in.json
#[test]
fn an_empty_drop_in_never_erases_the_base_files_rules() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/cases/fail-closed/empty-drop-in.json");
    let case: Value = match std::fs::read(&case) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap(),
        // The case's policy, inline, should the shared folder not be there.
        Err(_) => json!({"policy": {
            "managed-settings.json": {"permissions": {"deny": ["Bash(batch_submit:*)"]}},
            "managed-settings.d/50-empty.json": {},
            "managed-settings.d/60-clear.json": {"permissions": {"deny": []}}
        }}),
    };
    let (_dir, policy) = read_ok(case["policy"].clone());
    assert_eq!(policy.managed().deny, vec!["Bash(batch_submit:*)"]);
    assert!(policy.warnings.is_empty());
}

#[test]
fn a_type_conflict_between_files_later_wins_with_a_warning_in_the_later_file() {
    let (dir, policy) = read_ok(json!({
        "managed-settings.json": {"sandbox": {"network": {"httpProxyPort": 8080}}},
        "managed-settings.d/20.json": {"sandbox": {"network": {"httpProxyPort": "8080"}}}
    }));
    assert_eq!(
        settings(&policy),
        json!({"sandbox": {"network": {"httpProxyPort": "8080"}}})
    );
    assert_eq!(policy.warnings.len(), 1);
    let w = &policy.warnings[0];
    assert_eq!(w.file, dir.path().join("managed-settings.d/20.json"));
    assert_eq!(w.pointer, "/sandbox/network/httpProxyPort");
    assert_eq!(
        w.to_string().replace(&dir.path().display().to_string(), "<managed>"),
        "<managed>/managed-settings.d/20.json:4: /sandbox/network/httpProxyPort: a string here, a number in an earlier managed file; this file's value wins"
    );
}

#[test]
fn warnings_point_inside_the_file_they_came_from() {
    let (dir, policy) = read_ok(json!({
        "managed-settings.json": {"permissions": {"deny": ["A", 1]}},
        "managed-settings.d/10.json": {"permissions": {"deny": [2, "B"]}}
    }));
    assert_eq!(policy.managed().deny, vec!["A", "B"]);
    let got: Vec<(PathBuf, &str)> = policy
        .warnings
        .iter()
        .map(|w| (w.file.clone(), w.pointer.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![
            (
                dir.path().join("managed-settings.json"),
                "/permissions/deny/1"
            ),
            (
                dir.path().join("managed-settings.d/10.json"),
                "/permissions/deny/0"
            ),
        ]
    );
}

#[test]
fn a_dropped_env_value_keeps_its_name_pinned_across_files() {
    let (_dir, policy) = read_ok(json!({
        "managed-settings.json": {"env": {"FOO": 1, "BAR": "b"}},
        "managed-settings.d/10.json": {"env": {"FOO": "x", "BAZ": true}}
    }));
    assert_eq!(
        settings(&policy),
        json!({"env": {"BAR": "b", "FOO": "x"}, "managedEnvDropped": ["FOO", "BAZ"]})
    );
    let managed = policy.managed();
    assert_eq!(managed.env_names, vec!["BAR", "FOO", "BAZ"]);
    assert_eq!(
        managed.env,
        vec![
            ("BAR".to_owned(), "b".to_owned()),
            ("FOO".to_owned(), "x".to_owned())
        ]
    );
}

#[test]
fn a_later_drop_in_cannot_void_a_valid_plugin_configs() {
    let (_dir, policy) = read_ok(json!({
        "managed-settings.json": {"pluginConfigs": {"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": true}}}},
        "managed-settings.d/10.json": {"pluginConfigs": {"cc-plugin-sec-default@builtin": {"options": {"allowManagedModsOnly": null}}}}
    }));
    assert!(policy.managed().options.allow_managed_mods_only);
    assert_eq!(policy.warnings.len(), 1);
}

#[test]
fn managed_mcp_json_servers_are_named() {
    let (dir, policy) = read_ok(json!({
        "managed-mcp.json": {"_comment": "x", "mcpServers": {"raven": {"command": "python3"}, "odd": 3}}
    }));
    assert_eq!(
        settings(&policy),
        json!({"managedMcpServers": {"raven": {"command": "python3"}, "odd": {}}})
    );
    assert_eq!(
        policy.warnings.len(),
        1,
        "a server with a bad config is still named"
    );
    assert_eq!(policy.warnings[0].pointer, "/mcpServers/odd");
    assert_eq!(
        policy.sources,
        vec![SourceFile {
            path: dir.path().join("managed-mcp.json"),
            kind: SourceKind::Mcp
        }]
    );
    let managed = policy.managed();
    assert_eq!(managed.managed_mcp_servers, vec!["raven", "odd"]);
    assert!(!managed.managed_mcp_servers_unreadable);
}

#[test]
fn an_empty_mcp_servers_object_names_nobody_but_is_readable() {
    let (_dir, policy) = read_ok(json!({"managed-mcp.json": {"mcpServers": {}}}));
    assert_eq!(settings(&policy), json!({"managedMcpServers": {}}));
    assert!(policy.warnings.is_empty());
}

#[test]
fn a_managed_mcp_json_that_cannot_be_read_whole_names_nobody() {
    for content in [
        json!([{"name": "github-managed"}]),
        json!({"_comment": "no servers"}),
        json!({"mcpServers": ["a"]}),
        json!({"$raw": "{ not json"}),
        json!({"$raw": ""}),
        json!({"$unreadable": true}),
    ] {
        let (_dir, policy) = read_ok(json!({
            "managed-settings.json": {"managedMcpServers": ["corp"]},
            "managed-mcp.json": content.clone()
        }));
        assert_eq!(
            settings(&policy),
            json!({"managedMcpServers": {"corp": {}}, "managedMcpServersUnreadable": true}),
            "{content}"
        );
        assert_eq!(policy.warnings.len(), 1, "{content}");
        assert!(policy.warnings[0].reason.contains("names nobody"));
        let managed = policy.managed();
        assert!(managed.managed_mcp_servers_unreadable);
        assert_eq!(policy.sources.len(), 2);
    }
}

#[test]
fn managed_mcp_servers_is_the_union_of_settings_and_managed_mcp_json() {
    let (_dir, policy) = read_ok(json!({
        "managed-settings.json": {"managedMcpServers": {"a": {"url": "1"}}},
        "managed-settings.d/10.json": {"managedMcpServers": ["b", {"name": "c", "url": "3"}]},
        "managed-mcp.json": {"mcpServers": {"d": {"command": "x"}, "a": {"command": "y"}}}
    }));
    assert_eq!(
        settings(&policy),
        json!({"managedMcpServers": {"a": {"command": "y"}, "b": {}, "c": {"url": "3"}, "d": {"command": "x"}}})
    );
}

#[test]
fn managed_mcp_servers_of_another_shape_mark_the_read() {
    let (_dir, policy) = read_ok(json!({
        "managed-settings.json": {"managedMcpServers": "corp"},
        "managed-mcp.json": {"mcpServers": {"raven": {}}}
    }));
    assert_eq!(
        settings(&policy),
        json!({"managedMcpServers": {"raven": {}}, "managedMcpServersUnreadable": true})
    );
}

#[test]
fn a_file_changed_between_reads_is_seen() {
    let (dir, policy) = read_ok(json!({"managed-settings.json": {"permissions": {"deny": ["A"]}}}));
    assert_eq!(policy.managed().deny, vec!["A"]);
    write_file(
        dir.path(),
        "managed-settings.json",
        &json!({"$unreadable": true}),
    );
    assert!(read_policy(&ManagedLocation::Explicit(dir.path().to_path_buf())).is_err());
    write_file(dir.path(), "managed-settings.json", &Value::Null);
    assert_eq!(
        read_policy(&ManagedLocation::Explicit(dir.path().to_path_buf())),
        Ok(Policy::empty())
    );
}

#[test]
fn warnings_and_sources_serialize() {
    let w = policy::Warning {
        file: PathBuf::from("/m/managed-settings.json"),
        line: None,
        pointer: "/env/X".into(),
        reason: "r".into(),
    };
    assert_eq!(
        serde_json::to_value(&w).unwrap(),
        json!({"file": "/m/managed-settings.json", "pointer": "/env/X", "reason": "r"})
    );
    assert_eq!(w.to_string(), "/m/managed-settings.json: /env/X: r");
    let whole = policy::Warning {
        pointer: String::new(),
        ..w.clone()
    };
    assert_eq!(whole.to_string(), "/m/managed-settings.json: r");
    let located = policy::Warning { line: Some(7), ..w };
    assert_eq!(located.to_string(), "/m/managed-settings.json:7: /env/X: r");
    assert_eq!(serde_json::to_value(&located).unwrap()["line"], 7);
    assert_eq!(
        serde_json::to_value(SourceKind::DropIn).unwrap(),
        json!("drop-in")
    );
    assert_eq!(serde_json::to_value(SourceKind::Mcp).unwrap(), json!("mcp"));
    assert_eq!(
        serde_json::to_value(SourceKind::Settings).unwrap(),
        json!("settings")
    );
}

#[test]
fn deeply_nested_input_fails_cleanly_instead_of_overflowing() {
    let deep = format!(
        "{{\"sandbox\": {}1{}}}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let (_dir, result) = read(json!({"managed-settings.json": {"$raw": deep}}));
    assert!(matches!(result, Err(PolicyError::Json { .. })));
}

// ---------------------------------------------------------------- hostile files

fn explicit(dir: &Path) -> ManagedLocation {
    ManagedLocation::Explicit(dir.to_path_buf())
}

#[cfg(unix)]
#[test]
fn a_fifo_named_managed_settings_fails_closed_without_hanging() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("managed-settings.json");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    let err = read_policy(&explicit(dir.path())).unwrap_err();
    assert!(err.is_fail_closed());
    assert_eq!(
        message(dir.path(), &err),
        "<managed>/managed-settings.json: it is a FIFO, not a regular file, so it is not read; the managed policy cannot be read, so everything it guards holds"
    );
    // a FIFO drop-in, too
    std::fs::remove_file(&fifo).unwrap();
    std::fs::create_dir(dir.path().join("managed-settings.d")).unwrap();
    let drop_in = dir.path().join("managed-settings.d/10.json");
    std::process::Command::new("mkfifo")
        .arg(&drop_in)
        .status()
        .unwrap();
    assert!(read_policy(&explicit(dir.path()))
        .unwrap_err()
        .is_fail_closed());
}

#[cfg(unix)]
#[test]
fn a_link_to_a_device_fails_closed_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("managed-settings.json")).unwrap();
    let err = read_policy(&explicit(dir.path())).unwrap_err();
    assert!(message(dir.path(), &err).contains("it is a character device, not a regular file"));
    // managed-mcp.json as a device names nobody, it never hangs or floods memory
    std::fs::remove_file(dir.path().join("managed-settings.json")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("managed-mcp.json")).unwrap();
    let policy = read_policy(&explicit(dir.path())).unwrap();
    assert_eq!(policy.settings["managedMcpServersUnreadable"], true);
}

#[test]
fn a_file_over_16_mib_fails_closed() {
    let dir = tempfile::tempdir().unwrap();
    let f = std::fs::File::create(dir.path().join("managed-settings.json")).unwrap();
    f.set_len(policy::json::MAX_FILE_BYTES + 1).unwrap();
    let err = read_policy(&explicit(dir.path())).unwrap_err();
    assert!(err.is_fail_closed());
    assert!(message(dir.path(), &err).contains("over the 16777216-byte limit"));
}

#[test]
fn a_byte_order_mark_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        b"\xEF\xBB\xBF{\"permissions\": {\"deny\": [\"Bash(rm:*)\"]}}",
    )
    .unwrap();
    let policy = read_policy(&explicit(dir.path())).unwrap();
    assert_eq!(policy.managed().deny, ["Bash(rm:*)"]);
    assert_eq!(policy.warnings.len(), 1);
    assert_eq!(
        policy.warnings[0]
            .to_string()
            .replace(&dir.path().display().to_string(), "<managed>"),
        "<managed>/managed-settings.json:1: a UTF-8 byte-order mark at the start was skipped"
    );
}

#[test]
fn a_duplicated_permissions_key_keeps_the_last_and_says_what_was_lost() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        "{\n  \"permissions\": {\"deny\": [\"Bash(rm:*)\", \"Read(./.env)\"]},\n  \"env\": {},\n  \"permissions\": {\"allow\": [\"Bash(npm test)\"]}\n}\n",
    )
    .unwrap();
    let policy = read_policy(&explicit(dir.path())).unwrap();
    assert!(
        policy.managed().deny.is_empty(),
        "Claude Code keeps the last, so do we"
    );
    assert_eq!(policy.warnings.len(), 1, "{:?}", policy.warnings);
    let w = &policy.warnings[0];
    assert_eq!((w.pointer.as_str(), w.line), ("/permissions", Some(4)));
    assert_eq!(
        w.reason,
        "this key is given twice in one object (line 2, then line 4); the last is kept, and what line 2 gives is lost on every machine that reads this file"
    );
}

#[test]
fn salvage_warnings_name_their_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("managed-settings.json"),
        "{\n  \"env\": {\n    \"RETRIES\": 3\n  }\n}\n",
    )
    .unwrap();
    let policy = read_policy(&explicit(dir.path())).unwrap();
    assert_eq!(policy.warnings.len(), 1);
    assert_eq!(policy.warnings[0].line, Some(3));
}

#[test]
fn a_rule_from_a_drop_in_is_named_by_that_file_its_pointer_and_line() {
    let (dir, policy) = read_ok(json!({
        "managed-settings.json": {"permissions": {"deny": ["Bash(rm:*)"]}},
        "managed-settings.d/20-more.json": {"permissions": {"deny": ["Bash(rm:*)", "// not a rule"]}}
    }));
    let merged = policy.managed().deny;
    assert_eq!(merged, ["Bash(rm:*)", "// not a rule"]);
    let first = policy
        .rule_origin("/permissions/deny/0", "Bash(rm:*)")
        .unwrap();
    assert_eq!(
        first.file,
        dir.path().join("managed-settings.json"),
        "the first file that gives it"
    );
    let comment = policy
        .rule_origin("/permissions/deny/1", "// not a rule")
        .unwrap();
    assert_eq!(
        comment.file,
        dir.path().join("managed-settings.d/20-more.json")
    );
    assert_eq!(
        comment.pointer, "/permissions/deny/1",
        "its own pointer there"
    );
    assert_eq!(comment.line, Some(5));
    assert!(policy.rule_origin("/env/X", "Bash(rm:*)").is_none());
}
