//! Shared by the integration tests: where the real-drive data lives.

use std::path::PathBuf;

/// Writes `text` to the file `name` in this process's temporary folder for
/// `area` (a test's own name where tests of one file run at once), and gives
/// its path.
#[allow(dead_code)]
pub fn temp_file(area: &str, name: &str, text: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prefetchlab-{area}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// `../shared/disksim-valid` beside the repository (or under
/// `$PREFETCHLAB_SHARED`). `None` (the test skips, saying why) when it is
/// absent — except in CI (`CI=true`), where its absence fails the test.
#[allow(dead_code)]
pub fn disksim_valid() -> Option<PathBuf> {
    shared("disksim-valid")
}

/// `../shared/traces`, as [`disksim_valid`] finds its folder.
#[allow(dead_code)]
pub fn traces() -> Option<PathBuf> {
    shared("traces")
}

fn shared(folder: &str) -> Option<PathBuf> {
    let root = std::env::var_os("PREFETCHLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let dir = root.join(folder);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{} is missing: CI must run with ../shared beside the repository", dir.display());
    }
    println!("SKIPPED: {} not found (set PREFETCHLAB_SHARED)", dir.display());
    None
}

/// The cells of the README's row for `first_cell` in the table that follows
/// `heading` (up to the next `## ` heading), trimmed.
#[allow(dead_code)]
pub fn readme_row(heading: &str, first_cell: &str) -> Option<Vec<String>> {
    let text =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .ok()?;
    let table = &text[text.find(heading)?..];
    table
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("## "))
        .find(|l| l.starts_with(&format!("| {first_cell} ")))
        .map(|l| l.trim().trim_matches('|').split('|').map(|c| c.trim().to_string()).collect())
}
