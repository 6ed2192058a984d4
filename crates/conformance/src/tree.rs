//! Small folders (a policy, a plugin, a session's seeded files) as maps of relative
//! paths to bytes, read and written in one place.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// A folder's files by path relative to it.
pub type Tree = BTreeMap<PathBuf, Vec<u8>>;

/// The most files a folder read here may hold.
pub const MAX_FILES: usize = 4096;
/// The largest file read (16 MiB).
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// Every regular file under `dir` (links are not followed); a missing folder is
/// empty.
///
/// # Errors
/// When a folder or file cannot be read, a file is over [`MAX_FILE_BYTES`] or the
/// folder holds more than [`MAX_FILES`] files.
pub fn read(dir: &Path) -> io::Result<Tree> {
    let mut out = Tree::new();
    if !dir.is_dir() {
        return Ok(out);
    }
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in std::fs::read_dir(dir.join(&rel))? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let r = rel.join(entry.file_name());
            if kind.is_dir() {
                stack.push(r);
            } else if kind.is_file() {
                if out.len() >= MAX_FILES {
                    return Err(io::Error::other(format!(
                        "{}: more than {MAX_FILES} files",
                        dir.display()
                    )));
                }
                let bytes = boundedfs::read_bounded(&entry.path(), MAX_FILE_BYTES)
                    .map_err(io::Error::other)?;
                out.insert(r, bytes);
            }
        }
    }
    Ok(out)
}

/// Writes `files` (relative path, content) under `dir`, making folders as needed.
///
/// # Errors
/// When a folder or file cannot be written.
pub fn write<P: AsRef<Path>, B: AsRef<[u8]>>(
    dir: &Path,
    files: impl IntoIterator<Item = (P, B)>,
) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    for (rel, bytes) in files {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)?;
    }
    Ok(())
}
