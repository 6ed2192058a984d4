#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]

use std::fs::{File, Metadata};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// What a path turned out to be when it is not a regular file (SPEC §2.1: a FIFO, a
/// device, a socket; a folder where a file is expected).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileType {
    /// A folder.
    Directory,
    /// A named pipe: reading it waits for a writer, maybe forever.
    Fifo,
    /// A character device (`/dev/zero`, a terminal): it may never end.
    CharDevice,
    /// A block device (a disk).
    BlockDevice,
    /// A Unix socket.
    Socket,
    /// Anything else that is not a regular file.
    Other,
}

impl FileType {
    /// What the opened file is, from its metadata; `None` for a regular file.
    ///
    /// SPEC §2.1
    #[must_use]
    pub fn of(meta: &Metadata) -> Option<FileType> {
        let t = meta.file_type();
        if t.is_file() {
            return None;
        }
        if t.is_dir() {
            return Some(FileType::Directory);
        }
        Some(special(&t))
    }

    /// The article and name, as a reason says it: `a FIFO`, `a directory`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            FileType::Directory => "a directory",
            FileType::Fifo => "a FIFO",
            FileType::CharDevice => "a character device",
            FileType::BlockDevice => "a block device",
            FileType::Socket => "a socket",
            FileType::Other => "a special file",
        }
    }
}

impl std::fmt::Display for FileType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(unix)]
fn special(t: &std::fs::FileType) -> FileType {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        FileType::Fifo
    } else if t.is_char_device() {
        FileType::CharDevice
    } else if t.is_block_device() {
        FileType::BlockDevice
    } else if t.is_socket() {
        FileType::Socket
    } else {
        FileType::Other
    }
}

#[cfg(not(unix))]
fn special(_t: &std::fs::FileType) -> FileType {
    FileType::Other
}

/// Why a file was not opened or read: the path, and the [`Reason`].
///
/// Its `Display` is `<path>: <reason>`; a caller that names the file its own way (a
/// mod's folder and file, a `--settings` flag) shows [`Error::reason`] alone.
///
/// SPEC §2.1
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct Error {
    /// The path, as given.
    pub path: PathBuf,
    /// Why.
    pub reason: Reason,
}

impl Error {
    /// Whether the file does not exist (many callers read an absent file as empty).
    #[must_use]
    pub fn is_not_found(&self) -> bool {
        matches!(self.reason, Reason::NotFound)
    }
}

/// Why a file was not read (SPEC §2.1).
#[derive(Debug, thiserror::Error)]
pub enum Reason {
    /// The file does not exist.
    #[error("the file does not exist")]
    NotFound,
    /// Not a regular file: never read.
    #[error("it is {0}, not a regular file, so it is not read")]
    NotRegular(FileType),
    /// Over the cap: `size` is the size at the open, or the bytes read when it grew past
    /// the cap while read.
    #[error("it holds {size} bytes or more, over the {cap}-byte limit, so it is not read")]
    TooLarge {
        /// The size found (at least).
        size: u64,
        /// The cap.
        cap: u64,
    },
    /// The operating system refused (permission, an I/O error).
    #[error(transparent)]
    Io(io::Error),
}

/// A regular file opened by [`open_bounded`] (or [`open_regular`]): reads of it end
/// with an error once more than its cap would be read, so a file that grows while read
/// cannot flood memory.
///
/// SPEC §2.1
#[derive(Debug)]
pub struct BoundedFile {
    file: File,
    path: PathBuf,
    meta: Metadata,
    cap: u64,
    /// The bytes returned by reads.
    read: u64,
    /// A byte past the cap was found.
    over: bool,
}

impl BoundedFile {
    /// The path it was opened at.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Its metadata as of the open (size, permissions), from the opened descriptor.
    #[must_use]
    pub fn metadata(&self) -> &Metadata {
        &self.meta
    }

    /// The cap on the bytes read from it (`u64::MAX`: none, for [`open_regular`]).
    #[must_use]
    pub fn cap(&self) -> u64 {
        self.cap
    }

    /// The bytes read so far (never more than the cap).
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    fn grew(&self) -> Error {
        Error {
            path: self.path.clone(),
            reason: Reason::TooLarge {
                size: self.cap.saturating_add(1),
                cap: self.cap,
            },
        }
    }
}

impl Read for BoundedFile {
    /// Reads as [`File`] does, up to the cap: a read that finds a byte past it returns
    /// the bytes up to the cap, and the next read is an error of kind
    /// [`io::ErrorKind::FileTooLarge`] whose text is the reason.
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let too_large =
            |me: &Self| io::Error::new(io::ErrorKind::FileTooLarge, me.grew().reason.to_string());
        if self.over {
            return Err(too_large(self));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let room = self.cap - self.read;
        let want = usize::try_from(room.saturating_add(1))
            .unwrap_or(usize::MAX)
            .min(buf.len());
        let n = self.file.read(buf.get_mut(..want).unwrap_or_default())?;
        if n as u64 > room {
            // One byte past the cap was read: the file is larger than the cap.
            self.over = true;
            self.read = self.cap;
            if room == 0 {
                return Err(too_large(self));
            }
            return Ok(usize::try_from(room).unwrap_or(n));
        }
        self.read += n as u64;
        Ok(n)
    }
}

/// Opens a regular file for reading, with no cap on its size: for streams read a line
/// at a time ([`Lines`]). Opened non-blocking and checked on the opened descriptor as
/// [`open_bounded`] is.
///
/// # Errors
///
/// [`Error`]: absent, not a regular file, or refused by the system.
///
/// SPEC §2.1 **\[decision\]**
pub fn open_regular(path: &Path) -> Result<BoundedFile, Error> {
    open_bounded(path, u64::MAX)
}

/// Opens a regular file of at most `cap` bytes for reading.
///
/// The open is non-blocking (opening a FIFO returns at once instead of waiting for a
/// writer; a terminal never becomes the controlling one); the type is checked on the
/// opened descriptor, never by a look at the path before the open (which would race
/// with a swap): a FIFO, a device, a socket or a folder is refused. On a regular file
/// the non-blocking flag changes nothing: reads behave as they always do.
///
/// # Errors
///
/// [`Error`]: absent, not a regular file, over `cap`, or refused by the system.
///
/// SPEC §2.1 **\[decision\]** "Reading never hangs"
pub fn open_bounded(path: &Path, cap: u64) -> Result<BoundedFile, Error> {
    let fail = |reason| Error {
        path: path.to_path_buf(),
        reason,
    };
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    nonblocking(&mut options);
    let file = options.open(path).map_err(|e| refused_open(path, e))?;
    let meta = file.metadata().map_err(|e| fail(Reason::Io(e)))?;
    if let Some(kind) = FileType::of(&meta) {
        return Err(fail(Reason::NotRegular(kind)));
    }
    if meta.len() > cap {
        return Err(fail(Reason::TooLarge {
            size: meta.len(),
            cap,
        }));
    }
    Ok(BoundedFile {
        file,
        path: path.to_path_buf(),
        meta,
        cap,
        read: 0,
        over: false,
    })
}

/// Reads a whole regular file of at most `cap` bytes ([`open_bounded`], then read with
/// the cap: a file that grows past it while read is refused too).
///
/// # Errors
///
/// [`Error`]: absent, not a regular file, over `cap` (at the open or while read), or an
/// I/O error.
///
/// SPEC §2.1 **\[decision\]**
pub fn read_bounded(path: &Path, cap: u64) -> Result<Vec<u8>, Error> {
    let mut file = open_bounded(path, cap)?;
    let mut bytes = Vec::with_capacity(usize::try_from(file.meta.len()).unwrap_or_default());
    match file.read_to_end(&mut bytes) {
        Ok(_) => Ok(bytes),
        Err(_) if file.over => Err(file.grew()),
        Err(e) => Err(Error {
            path: path.to_path_buf(),
            reason: Reason::Io(e),
        }),
    }
}

/// Opens a regular file for appending, created when missing (a log): non-blocking and
/// checked on the opened descriptor as [`open_bounded`] is, so a FIFO put where the log
/// goes is refused instead of waiting for a reader (with none, the open itself fails
/// and the path's type says why). Writes are not capped.
///
/// # Errors
///
/// [`Error`]: not a regular file, or refused by the system.
///
/// SPEC §2.1 **\[decision\]** "Reading never hangs"
pub fn open_append(path: &Path) -> Result<File, Error> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    nonblocking(&mut options);
    let file = options.open(path).map_err(|e| refused_open(path, e))?;
    let meta = file.metadata().map_err(|e| Error {
        path: path.to_path_buf(),
        reason: Reason::Io(e),
    })?;
    match FileType::of(&meta) {
        Some(kind) => Err(Error {
            path: path.to_path_buf(),
            reason: Reason::NotRegular(kind),
        }),
        None => Ok(file),
    }
}

/// The error of an open that failed: not found, or the system's words, or (a socket
/// cannot be opened at all, ENXIO; nor a FIFO for writing with no reader, nor a folder
/// for writing) what the path is, looked at after the failed open, which says why
/// better.
fn refused_open(path: &Path, e: io::Error) -> Error {
    let reason = match e.kind() {
        io::ErrorKind::NotFound => Reason::NotFound,
        _ => match std::fs::metadata(path).ok().as_ref().and_then(FileType::of) {
            Some(kind) => Reason::NotRegular(kind),
            None => Reason::Io(e),
        },
    };
    Error {
        path: path.to_path_buf(),
        reason,
    }
}

#[cfg(unix)]
fn nonblocking(options: &mut std::fs::OpenOptions) {
    use std::os::unix::fs::OpenOptionsExt;
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
}

#[cfg(not(unix))]
fn nonblocking(_options: &mut std::fs::OpenOptions) {}

/// Opens a regular file (no cap on its size: [`open_regular`]) to be read a line at a
/// time, each line at most `line_cap` bytes.
///
/// # Errors
///
/// [`Error`]: absent, not a regular file, or refused by the system.
///
/// SPEC §2.1 **\[decision\]**
pub fn open_lines(path: &Path, line_cap: usize) -> Result<Lines<BufReader<BoundedFile>>, Error> {
    let file = open_regular(path)?;
    Ok(Lines::new(
        BufReader::with_capacity(1 << 16, file),
        line_cap,
    ))
}

/// What [`Lines::next_line`] read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The end of the stream: nothing was read.
    End,
    /// A line, now in the buffer without its `\n`; `complete` is false for a last line
    /// that ends without one.
    Read {
        /// Whether it ended with `\n`.
        complete: bool,
    },
    /// A line longer than the cap: consumed up to its `\n` (or the end), never kept; the
    /// buffer is left empty.
    TooLong {
        /// Its length in bytes, without the `\n`.
        bytes: u64,
    },
    /// A line that ran past the skip cap ([`Lines::skip_cap`]) while it was skipped:
    /// `bytes` of it were consumed, and the stream is read no further (a file that is
    /// one endless line, a sparse hole of terabytes, costs the skip cap and no more).
    /// Every later call answers [`Line::End`].
    Abandoned {
        /// The bytes of the line consumed before it was given up.
        bytes: u64,
    },
}

/// The default skip cap of [`Lines`]: 1 GiB of one line skipped, then the stream is
/// given up.
pub const DEFAULT_SKIP_CAP: u64 = 1 << 30;

/// A stream read one line at a time, each line at most a cap (SPEC §2.1 "never floods
/// memory"): a longer line is consumed and reported ([`Line::TooLong`]), never loaded.
/// Any [`BufRead`] works (a file from [`open_lines`], standard input).
///
/// SPEC §2.1
#[derive(Debug)]
pub struct Lines<R> {
    inner: R,
    cap: usize,
    skip_cap: u64,
    consumed: u64,
    abandoned: bool,
}

impl<R: BufRead> Lines<R> {
    /// Lines of `inner`, each at most `cap` bytes (without the `\n`).
    pub fn new(inner: R, cap: usize) -> Self {
        Lines {
            inner,
            cap,
            skip_cap: DEFAULT_SKIP_CAP,
            consumed: 0,
            abandoned: false,
        }
    }

    /// These lines, giving the stream up once one line runs past `skip_cap` bytes
    /// ([`Line::Abandoned`]; [`DEFAULT_SKIP_CAP`] otherwise).
    #[must_use]
    pub fn with_skip_cap(mut self, skip_cap: u64) -> Self {
        self.skip_cap = skip_cap;
        self
    }

    /// The most bytes of one line consumed before the stream is given up.
    #[must_use]
    pub fn skip_cap(&self) -> u64 {
        self.skip_cap
    }

    /// The cap on one line.
    #[must_use]
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Sets the cap on the lines read from now on.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// The bytes consumed so far, newlines and skipped lines included.
    #[must_use]
    pub fn bytes_read(&self) -> u64 {
        self.consumed
    }

    /// The reader underneath.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Reads the next line into `buf` (cleared first), without its `\n`.
    ///
    /// # Errors
    ///
    /// The reader's (an interrupted read is retried).
    pub fn next_line(&mut self, buf: &mut Vec<u8>) -> io::Result<Line> {
        buf.clear();
        if self.abandoned {
            return Ok(Line::End);
        }
        let mut too_long = false;
        let mut any = false;
        let mut length: u64 = 0;
        loop {
            let avail = match self.inner.fill_buf() {
                Ok(a) => a,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if avail.is_empty() {
                return Ok(if !any {
                    Line::End
                } else if too_long {
                    Line::TooLong { bytes: length }
                } else {
                    Line::Read { complete: false }
                });
            }
            any = true;
            let (take, done) = match memchr::memchr(b'\n', avail) {
                Some(i) => (i, true),
                None => (avail.len(), false),
            };
            length += take as u64;
            if !too_long {
                if buf.len().saturating_add(take) > self.cap {
                    too_long = true;
                    buf.clear();
                } else {
                    buf.extend_from_slice(avail.get(..take).unwrap_or_default());
                }
            }
            let used = if done { take + 1 } else { take };
            self.inner.consume(used);
            self.consumed += used as u64;
            if too_long && !done && length > self.skip_cap {
                self.abandoned = true;
                return Ok(Line::Abandoned { bytes: length });
            }
            if done {
                return Ok(if too_long {
                    Line::TooLong { bytes: length }
                } else {
                    Line::Read { complete: true }
                });
            }
        }
    }
}
