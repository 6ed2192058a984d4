//! Writing a scenario's files to disk: the managed folder (`policy`, `change_policy`),
//! settings sources, and `session.files` (SCENARIOS.md `policy`, "Files and the
//! tool-use flow").
//!
//! Everything is written under a destination folder the runner owns (a temporary
//! folder). Paths come from [`RelPath`]s, so nothing is written outside it.
//!
//! `{"$unreadable": true}` must make reading fail even as root (where file modes do
//! not stop reads), so it is written as a *folder* at that path: opening it as a file
//! and reading gives an I/O error (`EISDIR`) on every platform we run on.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use crate::error::MaterializeError;
use crate::format::{FileEntry, FileSpec, PolicySpec, RelPath, SettingsSpec};

/// Writes the managed folder of `spec` into `dest` (which should exist and be empty).
///
/// - `{"$dir": ...}`: the folder (resolved relative to `scenario_file`) is copied
///   recursively: files copied, folders created, symbolic links recreated as links.
/// - a map: each file written with [`write_file_spec`], parent folders created
///   (`managed-settings.d/20-x.json`).
///
/// # Errors
///
/// [`MaterializeError`] naming the path that could not be read, created or written.
pub fn write_policy(
    spec: &PolicySpec,
    scenario_file: &Path,
    dest: &Path,
) -> Result<(), MaterializeError> {
    fs::create_dir_all(dest).map_err(|e| MaterializeError::new("create folder", dest, e))?;
    match spec {
        PolicySpec::Dir(_) => {
            let Some(src) = spec.resolved_dir(scenario_file) else {
                return Ok(());
            };
            copy_dir(&src, dest)
        }
        PolicySpec::Files(files) => {
            for (path, file) in files {
                write_file_spec(file, &dest.join(path.as_path()))?;
            }
            Ok(())
        }
    }
}

/// Applies a `change_policy` step to the managed folder at `dest`: each listed file is
/// removed (a file, a link, or the folder an `$unreadable` left there), then written
/// again unless its spec is `None` (`null`: the file is deleted). Files not listed stay.
///
/// # Errors
///
/// [`MaterializeError`] naming the path that could not be removed or written.
pub fn apply_change(
    change: &BTreeMap<RelPath, Option<FileSpec>>,
    dest: &Path,
) -> Result<(), MaterializeError> {
    for (path, spec) in change {
        let target = dest.join(path.as_path());
        remove_entry(&target)?;
        if let Some(spec) = spec {
            write_file_spec(spec, &target)?;
        }
    }
    Ok(())
}

/// Writes one file spec at `path`, replacing whatever was there and creating parent
/// folders: JSON content pretty-printed (with a final newline), `$raw` text as-is,
/// `$unreadable` as a folder.
///
/// # Errors
///
/// [`MaterializeError`] naming the path.
pub fn write_file_spec(spec: &FileSpec, path: &Path) -> Result<(), MaterializeError> {
    remove_entry(path)?;
    create_parent(path)?;
    match spec {
        FileSpec::Content(value) => {
            let mut bytes = serde_json::to_vec_pretty(value)
                .map_err(|e| MaterializeError::new("write", path, io::Error::other(e)))?;
            bytes.push(b'\n');
            fs::write(path, bytes).map_err(|e| MaterializeError::new("write", path, e))
        }
        FileSpec::Raw(text) => {
            fs::write(path, text.as_bytes()).map_err(|e| MaterializeError::new("write", path, e))
        }
        FileSpec::Unreadable => {
            fs::create_dir_all(path).map_err(|e| MaterializeError::new("create folder", path, e))
        }
    }
}

/// Creates `session.files` under `dest`: text files, symbolic links (target as
/// written, on Unix), empty folders; parent folders are created as needed.
///
/// # Errors
///
/// [`MaterializeError`] naming the path; on platforms without symbolic links a
/// `symlink` entry is an error of kind `Unsupported`.
pub fn write_files(
    files: &BTreeMap<RelPath, FileEntry>,
    dest: &Path,
) -> Result<(), MaterializeError> {
    for (rel, entry) in files {
        let path = dest.join(rel.as_path());
        create_parent(&path)?;
        match entry {
            FileEntry::Content(text) => fs::write(&path, text.as_bytes())
                .map_err(|e| MaterializeError::new("write", &path, e))?,
            FileEntry::Symlink { symlink } => make_symlink(Path::new(symlink), &path)?,
            FileEntry::Dir { .. } => fs::create_dir_all(&path)
                .map_err(|e| MaterializeError::new("create folder", &path, e))?,
        }
    }
    Ok(())
}

/// A settings source as the runner hands it to the engine (SCENARIOS.md `settings`):
/// the session's own type.
pub use session::SettingsInput;

/// The source a scenario's `settings` entry describes; no entry is an absent source.
fn settings_input(spec: Option<&FileSpec>) -> SettingsInput {
    match spec {
        None => SettingsInput::Absent,
        Some(FileSpec::Content(v)) => SettingsInput::Value(v.clone()),
        Some(FileSpec::Raw(s)) => SettingsInput::Raw(s.clone()),
        Some(FileSpec::Unreadable) => SettingsInput::Unreadable,
    }
}

impl SettingsSpec {
    /// The four sources in the order `user`, `project`, `local`, `flag`, each named as
    /// SPEC §1.5 `settings.read` names it.
    #[must_use]
    pub fn inputs(&self) -> [(&'static str, SettingsInput); 4] {
        [
            ("user", settings_input(self.user.as_ref())),
            ("project", settings_input(self.project.as_ref())),
            ("local", settings_input(self.local.as_ref())),
            ("flag", settings_input(self.flag.as_ref())),
        ]
    }
}

fn create_parent(path: &Path) -> Result<(), MaterializeError> {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => fs::create_dir_all(parent)
            .map_err(|e| MaterializeError::new("create folder", parent, e)),
        _ => Ok(()),
    }
}

/// Removes a file, link or folder at `path`; nothing there is fine.
fn remove_entry(path: &Path) -> Result<(), MaterializeError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(MaterializeError::new("remove", path, e)),
    };
    let result = if meta.is_dir() {
        fs::remove_dir_all(path)
    } else {
        fs::remove_file(path)
    };
    result.map_err(|e| MaterializeError::new("remove", path, e))
}

fn copy_dir(src: &Path, dest: &Path) -> Result<(), MaterializeError> {
    fs::create_dir_all(dest).map_err(|e| MaterializeError::new("create folder", dest, e))?;
    let entries = fs::read_dir(src).map_err(|e| MaterializeError::new("read", src, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| MaterializeError::new("read", src, e))?;
        let from = entry.path();
        let to = dest.join(entry.file_name());
        let kind = entry
            .file_type()
            .map_err(|e| MaterializeError::new("read", &from, e))?;
        if kind.is_symlink() {
            let target =
                fs::read_link(&from).map_err(|e| MaterializeError::new("read", &from, e))?;
            make_symlink(&target, &to)?;
        } else if kind.is_dir() {
            copy_dir(&from, &to)?;
        } else {
            copy_file(&from, &to)?;
        }
    }
    Ok(())
}

/// Copies one regular file, its permissions too, opened with the bounded opener (SPEC
/// §2.1 "Reading never hangs"): a FIFO, a device or a socket in the copied folder is
/// refused naming it and what it is, never read (a plain copy would wait on a FIFO for
/// ever).
/// The largest file of a `$dir` policy folder copied (64 MiB): four times what the
/// policy read takes at most, so a file too large for the read is still copied too large,
/// and a sparse hole of terabytes is refused, not copied.
const MAX_COPIED_BYTES: u64 = 64 << 20;

fn copy_file(from: &Path, to: &Path) -> Result<(), MaterializeError> {
    let src = boundedfs::open_bounded(from, MAX_COPIED_BYTES).map_err(|e| {
        let source = match e.reason {
            boundedfs::Reason::Io(e) => e,
            reason => io::Error::other(reason.to_string()),
        };
        MaterializeError::new("copy", from, source)
    })?;
    let mut dest = fs::File::create(to).map_err(|e| MaterializeError::new("write", to, e))?;
    let permissions = src.metadata().permissions();
    let mut src = io::Read::take(src, MAX_COPIED_BYTES);
    io::copy(&mut src, &mut dest).map_err(|e| MaterializeError::new("copy", from, e))?;
    fs::set_permissions(to, permissions).map_err(|e| MaterializeError::new("write", to, e))
}

#[cfg(unix)]
fn make_symlink(target: &Path, link: &Path) -> Result<(), MaterializeError> {
    std::os::unix::fs::symlink(target, link).map_err(|e| MaterializeError::new("link", link, e))
}

#[cfg(not(unix))]
fn make_symlink(_target: &Path, link: &Path) -> Result<(), MaterializeError> {
    Err(MaterializeError::new(
        "link",
        link,
        io::Error::new(io::ErrorKind::Unsupported, "symbolic links need Unix"),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::PolicySpec;
    use pretty_assertions::assert_eq;
    use serde_json::{json, Value};

    fn rel(s: &str) -> RelPath {
        RelPath::parse(s).unwrap()
    }

    fn policy(value: Value) -> PolicySpec {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn files_raw_and_unreadable() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path().join("managed");
        let spec = policy(json!({
            "managed-settings.json": {"permissions": {"deny": ["Bash(rm:*)"]}},
            "managed-settings.d/20-mcp.json": [],
            "managed-mcp.json": {"$raw": "{ not json"},
            "managed-settings.d/30-x.json": {"$unreadable": true}
        }));
        write_policy(&spec, Path::new("x.json"), &dest).unwrap();
        let base: Value =
            serde_json::from_str(&fs::read_to_string(dest.join("managed-settings.json")).unwrap())
                .unwrap();
        assert_eq!(base, json!({"permissions": {"deny": ["Bash(rm:*)"]}}));
        assert_eq!(
            fs::read_to_string(dest.join("managed-settings.d/20-mcp.json")).unwrap(),
            "[]\n"
        );
        assert_eq!(
            fs::read(dest.join("managed-mcp.json")).unwrap(),
            b"{ not json"
        );
        // Exists, but reading fails, even as root.
        let unreadable = dest.join("managed-settings.d/30-x.json");
        assert!(unreadable.exists());
        assert!(fs::read(&unreadable).is_err());
        assert!(fs::read_to_string(&unreadable).is_err());
    }

    #[test]
    fn change_policy_replaces_and_deletes() {
        let tmp = tempfile::tempdir().unwrap();
        let dest = tmp.path();
        let spec = policy(json!({
            "managed-settings.json": {"a": 1},
            "managed-mcp.json": {"$unreadable": true},
            "keep.json": {"k": true},
            "managed-settings.d/10.json": {}
        }));
        write_policy(&spec, Path::new("x.json"), dest).unwrap();
        let mut change = BTreeMap::new();
        change.insert(
            rel("managed-settings.json"),
            Some(FileSpec::Raw("{ broken".into())),
        );
        change.insert(
            rel("managed-mcp.json"),
            Some(FileSpec::Content(json!({"mcpServers": {}}))),
        );
        change.insert(rel("managed-settings.d/10.json"), None);
        change.insert(rel("never-there.json"), None);
        change.insert(rel("new/deep.json"), Some(FileSpec::Unreadable));
        apply_change(&change, dest).unwrap();
        assert_eq!(
            fs::read_to_string(dest.join("managed-settings.json")).unwrap(),
            "{ broken"
        );
        // The $unreadable folder was replaced by a readable file.
        let mcp = dest.join("managed-mcp.json");
        assert!(mcp.is_file());
        assert_eq!(
            serde_json::from_str::<Value>(&fs::read_to_string(mcp).unwrap()).unwrap(),
            json!({"mcpServers": {}})
        );
        assert!(!dest.join("managed-settings.d/10.json").exists());
        assert!(dest.join("keep.json").is_file());
        assert!(fs::read(dest.join("new/deep.json")).is_err());
        // And back: a file made unreadable, then deleted.
        let mut change = BTreeMap::new();
        change.insert(rel("keep.json"), Some(FileSpec::Unreadable));
        apply_change(&change, dest).unwrap();
        assert!(fs::read(dest.join("keep.json")).is_err());
        let mut change = BTreeMap::new();
        change.insert(rel("keep.json"), None);
        apply_change(&change, dest).unwrap();
        assert!(!dest.join("keep.json").exists());
    }

    #[test]
    fn dir_is_copied_recursively() {
        let tmp = tempfile::tempdir().unwrap();
        let suite = tmp.path().join("suite");
        let managed = suite.join("managed");
        fs::create_dir_all(managed.join("managed-settings.d")).unwrap();
        fs::write(managed.join("managed-settings.json"), "{\"a\": 1}").unwrap();
        fs::write(managed.join("managed-settings.d/20.json"), "{ raw").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("managed-settings.json", managed.join("link.json")).unwrap();
        fs::create_dir_all(suite.join("cases")).unwrap();
        let scenario_file = suite.join("cases/one.json");
        let spec = PolicySpec::Dir("../managed".into());
        let dest = tmp.path().join("run");
        write_policy(&spec, &scenario_file, &dest).unwrap();
        assert_eq!(
            fs::read_to_string(dest.join("managed-settings.json")).unwrap(),
            "{\"a\": 1}"
        );
        assert_eq!(
            fs::read_to_string(dest.join("managed-settings.d/20.json")).unwrap(),
            "{ raw"
        );
        #[cfg(unix)]
        assert_eq!(
            fs::read_link(dest.join("link.json")).unwrap(),
            Path::new("managed-settings.json")
        );
        // The copy is the runner's: changing it leaves the original alone.
        let mut change = BTreeMap::new();
        change.insert(rel("managed-settings.json"), None);
        apply_change(&change, &dest).unwrap();
        assert!(managed.join("managed-settings.json").is_file());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_in_a_copied_dir_is_refused_naming_it_never_read() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        let managed = tmp.path().join("managed");
        fs::create_dir_all(&managed).unwrap();
        fs::write(managed.join("run.sh"), "#!/bin/sh\n").unwrap();
        fs::set_permissions(managed.join("run.sh"), fs::Permissions::from_mode(0o755)).unwrap();
        let scenario_file = tmp.path().join("one.json");
        let spec = PolicySpec::Dir("managed".into());
        // A regular file is copied with its mode (a hook script stays executable).
        write_policy(&spec, &scenario_file, &tmp.path().join("run")).unwrap();
        let mode = fs::metadata(tmp.path().join("run/run.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        // A FIFO: refused at once, naming it (a guard thread: a plain copy waits for ever).
        let fifo = managed.join("managed-settings.json");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo");
        let (tx, rx) = std::sync::mpsc::channel();
        let dest = tmp.path().join("run2");
        std::thread::spawn(move || {
            let _ = tx.send(write_policy(&spec, &scenario_file, &dest).map_err(|e| e.to_string()));
        });
        let err = rx
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("answered, not hung")
            .unwrap_err();
        assert_eq!(
            err,
            format!(
                "cannot copy {}: it is a FIFO, not a regular file, so it is not read",
                fifo.display()
            )
        );
    }

    /// A sparse hole of 256 GiB in a copied folder is refused at the open (its size is
    /// over the copy's cap), never copied.
    #[test]
    fn a_huge_file_in_a_copied_dir_is_refused_not_copied() {
        let tmp = tempfile::tempdir().unwrap();
        let managed = tmp.path().join("managed");
        fs::create_dir_all(&managed).unwrap();
        let huge = managed.join("managed-settings.json");
        fs::File::create(&huge).unwrap().set_len(256 << 30).unwrap();
        let spec = PolicySpec::Dir("managed".into());
        let err = write_policy(&spec, &tmp.path().join("one.json"), &tmp.path().join("run"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with(&format!("cannot copy {}", huge.display())),
            "{err}"
        );
        assert!(err.contains("over the"), "{err}");
        assert!(
            !tmp.path().join("run/managed-settings.json").exists()
                || fs::metadata(tmp.path().join("run/managed-settings.json"))
                    .unwrap()
                    .len()
                    == 0
        );
    }

    #[test]
    fn session_files() {
        let tmp = tempfile::tempdir().unwrap();
        let files: BTreeMap<RelPath, FileEntry> = serde_json::from_value(json!({
            "a/b.txt": "hello",
            "empty": {"dir": true},
            "notes.txt": {"symlink": "/etc/hostname"}
        }))
        .unwrap();
        write_files(&files, tmp.path()).unwrap();
        assert_eq!(
            fs::read_to_string(tmp.path().join("a/b.txt")).unwrap(),
            "hello"
        );
        assert!(tmp.path().join("empty").is_dir());
        #[cfg(unix)]
        assert_eq!(
            fs::read_link(tmp.path().join("notes.txt")).unwrap(),
            Path::new("/etc/hostname")
        );
    }

    #[test]
    fn settings_inputs() {
        let settings: SettingsSpec = serde_json::from_value(json!({
            "user": {"permissions": {}},
            "project": {"$raw": "x"},
            "flag": {"$unreadable": true}
        }))
        .unwrap();
        let inputs = settings.inputs();
        assert_eq!(
            inputs[0],
            ("user", SettingsInput::Value(json!({"permissions": {}})))
        );
        assert_eq!(inputs[1], ("project", SettingsInput::Raw("x".into())));
        assert_eq!(inputs[2], ("local", SettingsInput::Absent));
        assert_eq!(inputs[3], ("flag", SettingsInput::Unreadable));
    }
}
