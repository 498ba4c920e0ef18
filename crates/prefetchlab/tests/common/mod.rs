//! Shared by the integration tests: where the real-drive data lives.

use std::path::PathBuf;

/// `../shared/disksim-valid` beside the repository (or under
/// `$PREFETCHLAB_SHARED`). `None` (the test skips, saying why) when it is
/// absent — except in CI (`CI=true`), where its absence fails the test.
#[allow(dead_code)]
pub fn disksim_valid() -> Option<PathBuf> {
    let root = std::env::var_os("PREFETCHLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = root.join("disksim-valid");
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{} is missing: CI must run with ../shared beside the repository", dir.display());
    }
    println!("SKIPPED: {} not found (set PREFETCHLAB_SHARED)", dir.display());
    None
}
