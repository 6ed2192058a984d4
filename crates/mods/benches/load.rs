//! Loading a mod (SPEC §6 "A mod"): reading, pre-scanning, compiling (TypeScript → ES
//! module JavaScript with a source map) and resolving a 1,000-line TypeScript mod
//! (`tests/fixtures/big-mod`), and the same folder's small multi-file mod. Target: ≤ 20 ms
//! for the 1,000-line mod in a release build.
//!
//! Run with `cargo bench -p mods --bench load`.

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use divan::{black_box, Bencher};
use std::path::{Path, PathBuf};

fn main() {
    divan::main();
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The 1,000-line TypeScript mod (978 lines, 33 KB): one module.
#[divan::bench(sample_count = 50)]
fn thousand_line_typescript_mod(b: Bencher) {
    let folder = fixture("big-mod");
    let lines = std::fs::read_to_string(folder.join("hooks/register.ts"))
        .unwrap()
        .lines()
        .count();
    assert!(lines > 900);
    b.bench(|| black_box(mods::load_folder(black_box(&folder)).unwrap()));
}

/// Three small TypeScript modules (enums, a namespace, parameter properties, imports).
#[divan::bench(sample_count = 50)]
fn small_multi_file_mod(b: Bencher) {
    let folder = fixture("ts-mod");
    b.bench(|| black_box(mods::load_folder(black_box(&folder)).unwrap()));
}

/// A small `.tsx` mod (JSX compiled to `h`/`Fragment`).
#[divan::bench(sample_count = 50)]
fn tsx_mod(b: Bencher) {
    let folder = fixture("tsx-mod");
    b.bench(|| black_box(mods::load_folder(black_box(&folder)).unwrap()));
}
