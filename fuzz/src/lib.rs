//! Shared by the fuzz targets: the panic hook.
//!
//! libfuzzer-sys installs a panic hook that aborts on *every* panic, even one
//! the code under test catches on purpose: `permissions::bash` runs the shell
//! parser (brush-parser) under `catch_unwind` and treats its panic as a
//! command that cannot be parsed. [`init`] replaces that hook: a panic raised
//! inside brush-parser's own source is noted once per location on stderr and
//! left to unwind (if nobody catches it, libfuzzer-sys still aborts when it
//! reaches the target's boundary, so it is still a crash); every other panic
//! prints and aborts, as before.
#![forbid(unsafe_code)]

use std::collections::HashSet;
use std::panic;
use std::sync::{Mutex, Once};

/// Installs the hook (once per process).
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        let seen: Mutex<HashSet<String>> = Mutex::new(HashSet::new());
        panic::set_hook(Box::new(move |info| {
            let location = info
                .location()
                .map(|l| format!("{}:{}", l.file(), l.line()))
                .unwrap_or_default();
            if location.contains("brush-parser") {
                if let Ok(mut seen) = seen.lock() {
                    if seen.insert(location.clone()) {
                        eprintln!("note: brush-parser panicked at {location} (caught by permissions::bash): {info}");
                    }
                }
                return;
            }
            previous(info);
        }));
    });
}
