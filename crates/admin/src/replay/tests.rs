#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::files::MAX_DEPTH;
use super::judge::{home_of, mode_of, posix_cwd};
use super::*;
use permissions::Mode;

#[test]
fn a_recorded_mode_is_the_mode_it_names_and_codex_reads_as_the_closest() {
    assert_eq!(mode_of(None), (None, None));
    assert_eq!(mode_of(Some("acceptEdits")).0, Some(Mode::AcceptEdits));
    assert_eq!(
        mode_of(Some("bypassPermissions")).0,
        Some(Mode::BypassPermissions)
    );
    let (m, note) = mode_of(Some("yolo"));
    assert_eq!(m, None);
    assert!(note.unwrap().contains("\"yolo\""));
    assert_eq!(
        mode_of(Some(
            "codex approval_policy=never sandbox=danger-full-access"
        ))
        .0,
        Some(Mode::BypassPermissions)
    );
    assert_eq!(
        mode_of(Some(
            "codex approval_policy=on-request sandbox=workspace-write"
        ))
        .0,
        Some(Mode::Default)
    );
    // Never asking inside a sandbox is not bypassing it.
    assert_eq!(
        mode_of(Some("codex approval_policy=never sandbox=workspace-write")).0,
        Some(Mode::Default)
    );
}

#[test]
fn a_recorded_folder_is_an_absolute_path_here_and_shows_its_home() {
    assert_eq!(posix_cwd("/home/dev/p"), PathBuf::from("/home/dev/p"));
    assert_eq!(
        posix_cwd(r"C:\Users\dev\RAVE-ERA"),
        PathBuf::from("/C:/Users/dev/RAVE-ERA")
    );
    assert_eq!(posix_cwd("relative/x"), PathBuf::from("/relative/x"));
    assert_eq!(
        home_of(Path::new("/home/dev/p/q")),
        Some(PathBuf::from("/home/dev"))
    );
    assert_eq!(
        home_of(Path::new("/Users/ann/x")),
        Some(PathBuf::from("/Users/ann"))
    );
    assert_eq!(
        home_of(&posix_cwd(r"C:\Users\dev\RAVE-ERA")),
        Some(PathBuf::from("/C:/Users/dev"))
    );
    assert_eq!(home_of(Path::new("/root/w")), Some(PathBuf::from("/root")));
    assert_eq!(home_of(Path::new("/srv/app")), None);
    assert_eq!(home_of(Path::new("/home")), None);
}

#[test]
fn a_folder_is_searched_for_transcripts_and_a_session_brings_its_subagents() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("projects/-home-dev-p");
    std::fs::create_dir_all(project.join("s1/subagents")).unwrap();
    std::fs::write(project.join("s1.jsonl"), "").unwrap();
    std::fs::write(project.join("s1/subagents/agent-a1.jsonl"), "").unwrap();
    std::fs::write(project.join("s1/subagents/other.jsonl"), "").unwrap();
    std::fs::write(project.join("notes.txt"), "").unwrap();
    // A session file alone brings its subagent files (agent-*.jsonl only).
    let (one, notes) = transcripts(&[project.join("s1.jsonl")]);
    assert_eq!(
        one,
        vec![
            project.join("s1.jsonl"),
            project.join("s1/subagents/agent-a1.jsonl")
        ]
    );
    assert!(notes.is_empty());
    // A folder, and the same files named again, are each read once.
    let (all, _) = transcripts(&[dir.path().to_path_buf(), project.join("s1.jsonl")]);
    assert_eq!(
        all,
        vec![
            project.join("s1/subagents/agent-a1.jsonl"),
            project.join("s1/subagents/other.jsonl"),
            project.join("s1.jsonl")
        ]
    );
    // A path that is not there is listed, to be reported as no transcript.
    let (missing, _) = transcripts(&[dir.path().join("nope")]);
    assert_eq!(missing, vec![dir.path().join("nope")]);
}

#[test]
fn a_folder_too_deep_to_search_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let mut deep = dir.path().to_path_buf();
    for _ in 0..MAX_DEPTH + 1 {
        deep.push("d");
    }
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::write(deep.join("x.jsonl"), "").unwrap();
    std::fs::write(dir.path().join("top.jsonl"), "").unwrap();
    let (found, notes) = transcripts(&[dir.path().to_path_buf()]);
    assert_eq!(found, vec![dir.path().join("top.jsonl")]);
    assert_eq!(notes.len(), 1);
    assert!(notes[0].contains("folders deep; not searched"), "{notes:?}");
}

#[cfg(unix)]
#[test]
fn a_symbolic_link_loop_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("a")).unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("a/loop")).unwrap();
    std::fs::write(dir.path().join("a/x.jsonl"), "").unwrap();
    let (found, _) = transcripts(&[dir.path().to_path_buf()]);
    assert_eq!(found, vec![dir.path().join("a/x.jsonl")]);
}
