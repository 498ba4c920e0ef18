//! Fingerprints the engine's sources for `ENGINE_BUILD` (lib.rs): stored
//! results are reused only when the engine that made them was built from the
//! same sources, since the crate's version stays the same across changes to
//! the model.
//!
//! The fingerprint is FNV-1a (64 bits) over every file under `src/` and
//! `data/`, in path order, each as its path relative to the crate, a zero
//! byte, its length and its bytes; then `Cargo.toml` and, when present, the
//! workspace's `Cargo.lock` (a dependency's version can change results too).
//! It depends on the bytes alone, so every machine building the same sources
//! gets the same fingerprint.

use std::fs;
use std::path::{Path, PathBuf};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// The files under `dir`, recursively.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    for dir in ["src", "data"] {
        files(&root.join(dir), &mut paths);
        println!("cargo:rerun-if-changed={dir}");
    }
    // path order, with '/' separators whatever the platform
    let mut named: Vec<(String, PathBuf)> = paths
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&root).expect("under the crate").components();
            let name =
                rel.map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/");
            (name, p)
        })
        .collect();
    named.sort();
    for extra in ["Cargo.toml", "../../Cargo.lock"] {
        println!("cargo:rerun-if-changed={extra}");
        if root.join(extra).exists() {
            named.push((extra.to_string(), root.join(extra)));
        }
    }
    let mut h = FNV_OFFSET;
    for (name, path) in &named {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
        h = fnv(h, name.as_bytes());
        h = fnv(h, &[0]);
        h = fnv(h, &(bytes.len() as u64).to_le_bytes());
        h = fnv(h, &bytes);
    }
    println!("cargo:rustc-env=PREFETCHLAB_ENGINE_BUILD={h:016x}");
}
