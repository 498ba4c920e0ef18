//! Shared plumbing of the property-based fuzz tests (`tests/fuzz_*.rs`), on the
//! engine's own seeded generator (no extra dependency).
//!
//! A fuzz target is an ordinary integration test that calls [`run`] with a
//! generator of inputs and a property; `run` makes `PREFETCHLAB_FUZZ_CASES`
//! inputs (the target's small default under `make test`; `make fuzz` sets it
//! large), each from its own generator seeded by `PREFETCHLAB_FUZZ_SEED`, the
//! target's name and the case number, so every case is reproducible on its
//! own. A panic in the property is caught and reported like a failed property,
//! with the input and the command that replays just that case
//! (`PREFETCHLAB_FUZZ_CASE=N`). What cannot be caught — an abort (a failed
//! allocation) or a stack overflow — ends the process; run again with
//! `PREFETCHLAB_FUZZ_TRACE=1`, which prints each case before it runs, and the
//! last one printed is the culprit.
//!
//! To add a target, e.g. for the DiskSim reader: create `tests/fuzz_disksim.rs`
//! with `mod fuzz;`, read seed inputs with [`corpus`], and write
//!
//! ```ignore
//! #[test]
//! fn disksim_reader_never_panics() {
//!     let seeds = fuzz::corpus(&fuzz::shared_dir("disksim-valid"), &["parv", "diskspecs"]);
//!     fuzz::run("disksim", 300, |g| g.mutate(&g.pick(&seeds).1, &["{", "}", ",", "="]), |text| {
//!         match parse(text) { Ok(_) => Ok(()), Err(e) => fuzz::one_line(&e.to_string()) }
//!     });
//! }
//! ```
//!
//! `make fuzz` runs every `fuzz_*` test file at the long case count.

#![allow(dead_code)] // each fuzz target uses part of this module

use prefetchlab::sim::Rng;
use std::fmt::Debug;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// A source of random choices for one case.
pub struct Gen {
    rng: Rng,
}

impl Gen {
    pub fn new(seed: u64, target: &str, case: u64) -> Gen {
        Gen { rng: Rng::derive(seed, &format!("fuzz/{target}/{case}")) }
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.below(n as u64) as usize
    }

    /// True `percent` times in 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.rng.below(100) < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// A raw 64-bit value.
    pub fn u64(&mut self) -> u64 {
        self.rng.next_u64()
    }

    /// `text` after one to four random edits: deleting, duplicating or
    /// truncating a span, inserting one of `tokens` or a random character,
    /// duplicating or swapping lines. Edits keep to character boundaries.
    pub fn mutate(&mut self, text: &str, tokens: &[&str]) -> String {
        let mut s = text.to_string();
        for _ in 0..1 + self.below(4) {
            s = self.edit(&s, tokens);
        }
        s
    }

    fn edit(&mut self, s: &str, tokens: &[&str]) -> String {
        let cuts: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
        let at = cuts[self.below(cuts.len())];
        let to = cuts[self.below(cuts.len())];
        let (a, b) = (at.min(to), at.max(to).min(at.min(to) + 64));
        let b = *cuts.iter().find(|&&c| c >= b).unwrap_or(&s.len());
        match self.below(8) {
            0 => format!("{}{}", &s[..a], &s[b..]),
            1 => format!("{}{}{}", &s[..b], &s[a..b], &s[b..]),
            2 => s[..a].to_string(),
            3 | 4 if !tokens.is_empty() => format!("{}{}{}", &s[..at], self.pick(tokens), &s[at..]),
            5 => {
                let c = char::from_u32(self.u64() as u32 % 0x250).unwrap_or('\u{fffd}');
                format!("{}{}{}", &s[..at], c, &s[at..])
            }
            6 => {
                let mut lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let i = self.below(lines.len());
                    lines.insert(self.below(lines.len() + 1), lines[i]);
                }
                lines.join("\n")
            }
            _ => {
                let mut lines: Vec<&str> = s.lines().collect();
                if lines.len() > 1 {
                    let (i, j) = (self.below(lines.len()), self.below(lines.len()));
                    lines.swap(i, j);
                }
                lines.join("\n")
            }
        }
    }
}

/// How many cases to make, from which seed, and whether to replay only one.
#[derive(Debug, Clone, Copy)]
pub struct Settings {
    pub seed: u64,
    pub cases: u64,
    pub only_case: Option<u64>,
}

fn env_u64(name: &str) -> Option<u64> {
    let v = std::env::var(name).ok()?;
    Some(v.trim().parse().unwrap_or_else(|_| panic!("{name} must be a whole number, got `{v}`")))
}

/// The settings from `PREFETCHLAB_FUZZ_SEED` (default 1), `PREFETCHLAB_FUZZ_CASES`
/// (default `default_cases`) and `PREFETCHLAB_FUZZ_CASE` (replay that case only).
pub fn settings(default_cases: u64) -> Settings {
    Settings {
        seed: env_u64("PREFETCHLAB_FUZZ_SEED").unwrap_or(1),
        cases: env_u64("PREFETCHLAB_FUZZ_CASES").unwrap_or(default_cases),
        only_case: env_u64("PREFETCHLAB_FUZZ_CASE"),
    }
}

/// Runs fuzz target `target`: for each case, `generate` an input and check
/// `property` on it. Fails on the first case whose property returns an error
/// or panics, naming the seed, the case, the input and how to replay it.
pub fn run<I: Debug>(
    target: &str,
    default_cases: u64,
    generate: impl FnMut(&mut Gen) -> I,
    property: impl Fn(&I) -> Result<(), String>,
) {
    if let Err(report) = run_with(target, settings(default_cases), generate, property) {
        panic!("{report}");
    }
}

/// [`run`] with explicit settings instead of the environment's; the report of
/// the first failing case is returned rather than raised.
pub fn run_with<I: Debug>(
    target: &str,
    st: Settings,
    mut generate: impl FnMut(&mut Gen) -> I,
    property: impl Fn(&I) -> Result<(), String>,
) -> Result<(), String> {
    let cases: Box<dyn Iterator<Item = u64>> = match st.only_case {
        Some(c) => Box::new(std::iter::once(c)),
        None => Box::new(0..st.cases),
    };
    let trace = std::env::var_os("PREFETCHLAB_FUZZ_TRACE").is_some();
    let mut ran = 0u64;
    for case in cases {
        let input = generate(&mut Gen::new(st.seed, target, case));
        if trace {
            eprintln!("fuzz target `{target}`, seed {}, case {case}: {input:?}", st.seed);
        }
        let outcome = panic::catch_unwind(AssertUnwindSafe(|| property(&input)));
        let failure = match outcome {
            Ok(Ok(())) => None,
            Ok(Err(msg)) => Some(msg),
            Err(p) => Some(format!(
                "panicked: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            )),
        };
        if let Some(msg) = failure {
            return Err(format!(
                "fuzz target `{target}`, seed {seed}, case {case}: {msg}\ninput: {input:#?}\nreplay: \
                 PREFETCHLAB_FUZZ_SEED={seed} PREFETCHLAB_FUZZ_CASE={case} cargo test --release -p prefetchlab \
                 --test fuzz_{file}",
                seed = st.seed,
                // a target is named after its test file, `fuzz_<file>.rs`, with a suffix after `_`
                file = target.split('_').next().unwrap_or(target)
            ));
        }
        ran += 1;
    }
    eprintln!("fuzz target `{target}`: {ran} cases from seed {} passed", st.seed);
    Ok(())
}

/// `Ok` when an error message is one non-empty line with no sign of a bug;
/// else what is wrong with it.
pub fn one_line(msg: &str) -> Result<(), String> {
    if msg.trim().is_empty() {
        return Err("empty error message".into());
    }
    if msg.contains('\n') {
        return Err(format!("error message of several lines: {msg:?}"));
    }
    if msg.trim_end().ends_with(':') {
        return Err(format!("error message that stops short: {msg:?}"));
    }
    if msg.contains("internal error") || msg.contains("panicked") {
        return Err(format!("error message of a bug: {msg}"));
    }
    Ok(())
}

/// The repository's root (two levels above this crate).
pub fn repo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A directory of the shared data beside the repository (`../shared`, or
/// `$PREFETCHLAB_SHARED`), e.g. `shared_dir("disksim-valid")`; it may be absent.
pub fn shared_dir(sub: &str) -> PathBuf {
    let shared = std::env::var_os("PREFETCHLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_dir().join("../shared"));
    shared.join(sub)
}

/// The files under `dir` (recursively) whose extension is one of `exts`, as
/// (path, text), sorted by path so a seed always sees the same corpus. Files
/// that are not UTF-8 are skipped; a missing directory gives none.
pub fn corpus(dir: &Path, exts: &[&str]) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().and_then(|x| x.to_str()).is_some_and(|x| exts.contains(&x)) {
                if let Ok(text) = std::fs::read_to_string(&p) {
                    out.push((p, text));
                }
            }
        }
    }
    out.sort();
    out
}
