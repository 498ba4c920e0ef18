//! Property-based fuzzing of the DiskSim reader (stable Rust, no external
//! fuzzer): random mutations of DiskSim descriptions — the shared
//! `disksim-valid` files when present, and small made-up ones (a g1 drive
//! with slips and defects, a g4 tree, a g2 map, an extracted seek curve) —
//! are read from memory; every outcome must be a drive or one clean,
//! one-line input/config error: no panic, no abort, no internal error.
//!
//! Mutations: truncation, deleted / duplicated / swapped tokens, numbers
//! replaced by huge, negative, zero, fractional, `nan`, `inf` values, deep
//! nesting of `[` or blocks, and lines of junk. Cases, seeds and replaying
//! one case are the shared fuzz plumbing's (`tests/fuzz/mod.rs`): 300 cases
//! by default, `make fuzz` many more.

mod fuzz;

use prefetchlab::device::disksim::parse::MemFiles;
use prefetchlab::device::disksim::{load_drive_with, Options};
use prefetchlab::device::hdd::Hdd;
use prefetchlab::device::{Device, DiskRequest};
use prefetchlab::error::Error;
use prefetchlab::sim::Rng;
use std::path::Path;

const SPECS: &str = "disksim_disk D {\n Model = source m.model,\n Bulk sector transfer time = 0.01,\n Number of buffer segments = 2,\n Segment size (in blks) = 100,\n Enable caching in buffer = 1,\n Buffer continuous read = 3,\n Maximum read-ahead (blks) = 50,\n Max queue length = 1,\n Scheduler = disksim_ioqueue { Scheduling policy = 1, Cylinder mapping strategy = 0 },\n Read hit over. after read = 0.1,\n Read miss over. after read = 0.3\n}\n";

const G1: &str = "dm_disk M {\n Number of data surfaces = 2,\n Number of cylinders = 20,\n Block count = 700,\n Layout Model = dm_layout_g1 {\n  LBN-to-PBN mapping scheme = 1,\n  Sparing scheme used = 2,\n  Rangesize for sparing = 2,\n  Skew units = sectors,\n  Zones = [\n   dm_layout_g1_zone { First cylinder number = 0, Last cylinder number = 9, Blocks per track = 20, Offset of first block = 3, Empty space at zone front = 4, Skew for track switch = 2, Skew for cylinder switch = 5, Number of spares = 2, slips = [ 5, 44 ], defects = [ 70, 78 ] },\n   dm_layout_g1_zone { First cylinder number = 11, Last cylinder number = 19, Blocks per track = 15, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = 1, Skew for cylinder switch = 3, Number of spares = 1, slips = [], defects = [] }\n  ]\n },\n Mechanical Model = dm_mech_g1 {\n  Access time type = trackSwitchPlusRotation,\n  Seek type = extracted,\n  Full seek curve = s.seek,\n  Add. write settling delay = 0.1,\n  Head switch time = 0.5,\n  Rotation speed (in rpms) = 6000,\n  Percent error in rpms = 0.5\n }\n}\n";

const G4: &str = "dm_disk M {\n Number of data surfaces = 2,\n Number of cylinders = 4,\n Block count = 78,\n Layout Model = dm_layout_g4 {\n  TP = [ 0, 9, 10 ],\n  IDX = [\n   [ 0, 0, 0.0, 10, 1, 0.1, 20, 2, TRACK, 0, 0,\n     20, 1, 0.5, 10, 1, 0.1, 20, -2, TRACK, 0, 1 ],\n   [ 0, 0, 0.0, 40, 2, 0.25, 80, 4, IDX, 0 ]\n  ],\n  Slips = [ 5, 2, 12, -2 ],\n  Remaps = [ 8, 2, 3, 1, 3, 10 ]\n },\n Mechanical Model = dm_mech_g1 {\n  Access time type = averageRotation,\n  Seek type = hplplus10,\n  HPL seek equation values = [ 30, 1.0, 0.5, 5.0, 0.01, -1 ],\n  First ten seek times = [ 1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9 ],\n  Add. write settling delay = 0.0,\n  Head switch time = 0.2,\n  Rotation speed (in rpms) = 10000,\n  Percent error in rpms = 0.0\n }\n}\n";

const G2: &str = "dm_disk M {\n Number of data surfaces = 2,\n Number of cylinders = 2,\n Block count = 39,\n Layout Model = dm_layout_g2 {\n  Layout Map File = g2.map,\n  Zones = [ dm_layout_g2_zone { First cylinder number = 0, Last cylinder number = 1, First LBN = 0, Last LBN = 38, Blocks per track = 10, Zone Skew = 2, Skew for track switch = 1, Skew for cylinder switch = 3 } ]\n },\n Mechanical Model = dm_mech_g1 {\n  Access time type = trackSwitchPlusRotation,\n  Seek type = curve,\n  Single cylinder seek time = 1.0,\n  Average seek time = 5.0,\n  Full strobe seek time = 10.0,\n  Add. write settling delay = 0.0,\n  Head switch time = 0.5,\n  Rotation speed (in rpms) = 7200,\n  Percent error in rpms = 0.0\n }\n}\n";

const MAP: &str = "vendor model\nsecond line\n2 cylinders, 6000 rot, 2 heads\nlbn 0 --> cyl 0, head 0, sect 0, seqcnt 9\nlbn 10 --> cyl 0, head 1, sect 0, seqcnt 9\nlbn 20 --> cyl 1, head 1, sect 0, seqcnt 4\nlbn 25 --> cyl 1, head 1, sect 6, len 4\nlbn 29 --> cyl 1, head 0, sect 0, seqcnt 9\nDefect at cyl 1, head 1, sect 5\n";

const SEEK: &str = "Seek distances measured: 4\n1, 0.8\n2, 0.9\n10, 1.5\n19, 2.5\n";

/// A set of files, the first of which is the description to load.
#[derive(Debug, Clone)]
struct Case {
    files: Vec<(String, String)>,
}

fn made_up() -> Vec<Case> {
    let specs = |model: &str, extra: &[(&str, &str)]| {
        let mut files = vec![
            ("/f/d.diskspecs".to_string(), SPECS.to_string()),
            ("/f/m.model".to_string(), model.to_string()),
        ];
        files.extend(extra.iter().map(|(p, t)| (p.to_string(), t.to_string())));
        Case { files }
    };
    vec![specs(G1, &[("/f/s.seek", SEEK)]), specs(G4, &[]), specs(G2, &[("/f/g2.map", MAP)])]
}

fn shared_cases() -> Vec<Case> {
    let dir = fuzz::shared_dir("disksim-valid");
    if !dir.is_dir() {
        println!("shared disksim-valid not found: fuzzing the made-up descriptions only");
        return Vec::new();
    }
    let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).ok();
    let mut out = Vec::new();
    for (specs, model, seek) in [
        ("cheetah9LP.diskspecs", "cheetah9LP.model", "cheetah9LP.seek"),
        ("atlas10k.diskspecs", "atlas10k.model", "atlas10k.seek"),
        ("barracuda.diskspecs", "barracuda.model", "barracuda.seek"),
        ("hp_c2247a.diskspecs", "hp_c2247a_validate.model", ""),
        (
            "cheetah15k5/Seagate-Cheetah15k5.diskspecs",
            "cheetah15k5/Seagate-Cheetah15k5.model",
            "cheetah15k5/Seagate-Cheetah15k5.seeks",
        ),
    ] {
        let mut files = Vec::new();
        for rel in [specs, model, seek] {
            if rel.is_empty() {
                continue;
            }
            let Some(t) = read(rel) else { return Vec::new() };
            files.push((format!("/v/{rel}"), t));
        }
        if model.starts_with("cheetah15k5") {
            let Some(t) = read("cheetah15k5/Seagate-Cheetah15k5-skews.layout") else { return Vec::new() };
            files.push(("/v/cheetah15k5/Seagate-Cheetah15k5-skews.layout".into(), t));
        }
        out.push(Case { files });
    }
    out
}

/// Token spans of a text: runs of non-space characters between the
/// punctuation DiskSim's grammar uses.
fn tokens(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in t.char_indices() {
        let punct = matches!(c, '{' | '}' | '[' | ']' | ',' | '=');
        if c.is_whitespace() || punct {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
            if punct {
                out.push((i, i + 1));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        out.push((s, t.len()));
    }
    out
}

fn mutate(g: &mut fuzz::Gen, t: &str) -> String {
    let toks = tokens(t);
    if toks.is_empty() {
        return "{".repeat(g.below(5));
    }
    let (a, b) = toks[g.below(toks.len())];
    let (c, d) = toks[g.below(toks.len())];
    const NUMS: [&str; 16] = [
        "0",
        "-1",
        "-7",
        "1e308",
        "1e999",
        "nan",
        "inf",
        "-inf",
        "2147483648",
        "99999999999999999999",
        "0.5",
        "-0.0",
        "4294967296",
        "1",
        "65536",
        "3.9e9",
    ];
    match g.below(9) {
        0 => {
            let mut cut = g.below(t.len() + 1);
            while !t.is_char_boundary(cut) {
                cut -= 1;
            }
            t[..cut].to_string()
        }
        1 => format!("{}{}", &t[..a], &t[b..]),
        2 => format!("{}{} {}", &t[..b], &t[a..b], &t[b..]),
        3 => format!("{}{}{}", &t[..a], *g.pick(&NUMS), &t[b..]),
        4 => {
            let deep = if g.below(2) == 0 { "[ ".repeat(20_000) } else { "x { k = ".repeat(20_000) };
            format!("{}{}{}", &t[..a], deep, &t[b..])
        }
        5 if a < c => format!("{}{}{}{}{}", &t[..a], &t[c..d], &t[b..c], &t[a..b], &t[d..]),
        6 => format!(
            "{}\n{}\n{}",
            &t[..a],
            *g.pick(&["junk line", "lbn 5 --> cyl 9, head 9, sect 9, seqcnt 99999", "}}}", "source nothere"]),
            &t[a..]
        ),
        7 => {
            // every number of the text replaced by one value
            let v = *g.pick(&NUMS);
            let mut out = String::new();
            let mut last = 0;
            for &(s, e) in &toks {
                if t[s..e].parse::<f64>().is_ok() && g.below(3) == 0 {
                    out.push_str(&t[last..s]);
                    out.push_str(v);
                    last = e;
                }
            }
            out.push_str(&t[last..]);
            out
        }
        _ => {
            const WORDS: [&str; 9] = ["IDX", "TRACK", "source", "revolutions", "sectors", "=", ",", "]", "{"];
            let to = g.pick(&WORDS);
            format!("{}{}", &t[..a], &t[a..].replacen(&t[a..b], to, 1))
        }
    }
}

/// Loads the case with file `mutated` replaced by `text`: `Ok(true)` if it
/// loaded (and serves requests), `Ok(false)` if it was refused cleanly.
fn check(case: &Case, mutated: usize, text: &str) -> Result<bool, String> {
    let mut m = MemFiles::new();
    for (i, (p, t)) in case.files.iter().enumerate() {
        m.add(p.clone(), if i == mutated { text.to_string() } else { t.clone() });
    }
    let ov: Vec<(String, f64)> = Vec::new();
    let got = load_drive_with(
        Path::new(&case.files[0].0),
        &Options { source: &m, overrides: &ov, keep_heads: None },
    );
    match got {
        Ok(p) => {
            // a drive that loads must serve requests anywhere on it
            let cap = p.layout.capacity_sectors;
            for lba in [0, cap / 3, cap - 1] {
                if p.layout.locate(lba).is_none() {
                    return Err(format!("LBA {lba} of {cap} has no track"));
                }
            }
            let mut h = Hdd::new(p, true, Rng::new(1));
            let mut t = 0;
            for lba in [0, cap / 2, cap.saturating_sub(8)] {
                t = h.service(&DiskRequest { lba_sector: lba, sectors: 8, write: lba % 2 == 1 }, t).done_ns;
            }
            Ok(true)
        }
        Err(e) => {
            if !matches!(e, Error::Input { .. } | Error::Config { .. }) {
                return Err(format!("not an input error: {e}"));
            }
            fuzz::one_line(&e.to_string())?;
            Ok(false)
        }
    }
}

/// One case: a description (by index), which of its files is mutated, and
/// the mutated text.
struct Mutated {
    case: usize,
    file: usize,
    text: String,
}

impl std::fmt::Debug for Mutated {
    // the description's name and the mutated file, not the whole corpus
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "description {} file {}:\n{}", self.case, self.file, self.text)
    }
}

#[test]
fn mutated_disksim_descriptions_load_or_fail_cleanly() {
    let mut cases = made_up();
    let small = cases.len();
    cases.extend(shared_cases());
    // the unmutated descriptions load
    for c in &cases {
        assert_eq!(check(c, usize::MAX, ""), Ok(true), "{} does not load", c.files[0].0);
    }
    fuzz::run(
        "disksim",
        300,
        |g| {
            // mostly the small descriptions; one case in ten a shared one
            // (the 15K.5 layout is large: its layout file only now and then)
            let case = if cases.len() > small && g.chance(10) {
                small + g.below(cases.len() - small)
            } else {
                g.below(small)
            };
            let files = &cases[case].files;
            let mut file = g.below(files.len());
            if files[file].1.len() > 100_000 && !g.chance(25) {
                file = 0;
            }
            let mut text = files[file].1.clone();
            for _ in 0..1 + g.below(3) {
                text = mutate(g, &text);
            }
            Mutated { case, file, text }
        },
        |m| check(&cases[m.case], m.file, &m.text).map(|_| ()),
    );
}
