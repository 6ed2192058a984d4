//! The transcripts a replay reads: the files and folders named, each file once, a
//! session's subagent files beside it, and every `*.jsonl` under a folder.

use super::shown_path;
use std::path::{Path, PathBuf};

/// How deep a folder is searched for transcripts.
pub(super) const MAX_DEPTH: usize = 64;

/// The transcripts `paths` name, in order, each once: a file (one that cannot be read
/// is listed too, and reported as no transcript), and beside a session file its
/// `<session>/subagents/agent-*.jsonl`; every `*.jsonl` under a folder (symbolic links
/// to folders are not followed, nor folders deeper than [`MAX_DEPTH`]: each such
/// folder is named in the notes); `-` for standard input.
pub(super) fn transcripts(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut notes = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |p: PathBuf, out: &mut Vec<PathBuf>| {
        let key = std::fs::canonicalize(&p).unwrap_or_else(|_| p.clone());
        if seen.insert(key) {
            out.push(p);
        }
    };
    for p in paths {
        if p.as_os_str() != "-" && p.is_dir() {
            let mut found = Vec::new();
            walk(p, 0, &mut found, &mut notes);
            found.sort();
            for f in found {
                push(f, &mut out);
            }
            continue;
        }
        push(p.clone(), &mut out);
        if let (Some(parent), Some(stem)) = (p.parent(), p.file_stem()) {
            let sub = parent.join(stem).join("subagents");
            let mut found: Vec<PathBuf> = std::fs::read_dir(&sub)
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                .map(|e| e.path())
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with("agent-") && n.ends_with(".jsonl"))
                })
                .collect();
            found.sort();
            for f in found {
                push(f, &mut out);
            }
        }
    }
    (out, notes)
}

fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, notes: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            if depth + 1 >= MAX_DEPTH {
                notes.push(format!(
                    "{}: more than {MAX_DEPTH} folders deep; not searched",
                    shown_path(&path)
                ));
            } else {
                walk(&path, depth + 1, out, notes);
            }
        } else if path.extension().is_some_and(|x| x == "jsonl") {
            out.push(path);
        }
    }
}
