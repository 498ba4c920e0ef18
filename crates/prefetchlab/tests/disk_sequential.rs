//! Back-to-back sequential reads on the five DiskSim drives, side by side
//! with DiskSim 4.0 (issue: "sequential reads lose a revolution per
//! request"). Each case replays, in DiskSim's validate mode (one request
//! outstanding, the next issued when the last completes, zero gap), 2,000
//! reads of `n` sectors from block 0 and compares the mean access time
//! with DiskSim's, which must agree within 2 %.
//!
//! DiskSim's figures were produced with DiskSim 4.0 built by
//! `../shared/tools/build-disksim.sh`, on traces of lines
//! `R Miss <i·n> <n> 1000.0 0.0` (i = 0..1999), from the drive's folder:
//!
//! ```sh
//! disksim DRIVE.parv out.outv validate seqN.trace 0 [disk0 "NAME" VALUE]...
//! grep '^IOdriver Response time average' out.outv
//! ```
//!
//! (`benches/disksim_sequential.py` reruns them when `DISKSIM` points at
//! the binary.)

mod common;

use prefetchlab::device::disksim::load_drive;
use prefetchlab::device::hdd::{Hdd, Start};
use prefetchlab::device::validate::{replay, TraceLine};
use prefetchlab::sim::Rng;

/// The Cheetah 15K.5 file's variants: the three overrides of its README
/// (the cache off), the file as is, and each of the single overrides with
/// which DiskSim streams again.
const C15K5_VARIANTS: [(&str, &[(&str, f64)]); 5] = [
    (
        "readme-overrides",
        &[("Enable caching in buffer", 0.0), ("Fast write level", 0.0), ("Buffer continuous read", 0.0)],
    ),
    ("as-is", &[]),
    ("no-read-ahead", &[("Buffer continuous read", 0.0)]),
    ("almost-read-hits", &[("Allow almost read hits", 1.0)]),
    ("stop-prefetch-in-sector", &[("Stop prefetch in sector", 1.0)]),
];

const SIZES: [u64; 5] = [16, 64, 128, 256, 512];

/// DiskSim's mean access time (ms) per size, in the order of `SIZES`.
const DISKSIM_C15K5: [[f64; 5]; 5] = [
    [0.060623, 0.243154, 0.486696, 0.973750, 1.948245],
    [4.001369, 4.183899, 4.427442, 4.914496, 5.888991],
    [0.060623, 0.243154, 0.486696, 0.973750, 1.948245],
    [0.219079, 0.243152, 0.486695, 0.973749, 1.948245],
    [0.060623, 0.243154, 0.486696, 0.973750, 1.948245],
];

/// The four older drives, their files as they are.
const DISKSIM_OLDER: [(&str, [f64; 5]); 4] = [
    ("cheetah9LP", [1.844858, 6.971021, 13.707777, 27.135008, 53.828965]),
    ("atlas10k", [1.780173, 6.541727, 12.855917, 25.527917, 50.871917]),
    ("barracuda", [2.230148, 8.662148, 17.238148, 34.390148, 68.694148]),
    ("hp_c2247a", [3.760873, 11.927756, 22.816933, 44.596099, 88.141699]),
];

fn sequential(n: u64) -> Vec<TraceLine> {
    (0..2000u64)
        .map(|i| TraceLine {
            write: false,
            lba: i * n,
            sectors: n as u32,
            service_us: 1000.0,
            next_interarrival_us: 0.0,
        })
        .collect()
}

fn mean_ms(spec: &std::path::Path, overrides: &[(&str, f64)], n: u64) -> f64 {
    let ov: Vec<(String, f64)> = overrides.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let p = load_drive(spec, &ov).unwrap_or_else(|e| panic!("{}: {e}", spec.display()));
    let mut hdd = Hdd::with_start(p, true, Start::Index, Rng::new(1));
    let (sim, _) = replay(&mut hdd, &sequential(n));
    sim.iter().sum::<f64>() / sim.len() as f64
}

fn check(failures: &mut Vec<String>, what: &str, ours: f64, disksim: f64) {
    let ratio = ours / disksim;
    println!("{what:<42} prefetchlab {ours:>9.4} ms  DiskSim {disksim:>9.4} ms  ratio {ratio:.4}");
    if !(0.98..=1.02).contains(&ratio) {
        failures.push(format!("{what}: {ours:.4} ms vs DiskSim {disksim:.4} ms"));
    }
}

#[test]
fn cheetah_15k5_streams_as_disksim_does_in_every_cache_variant() {
    let Some(dir) = common::disksim_valid() else { return };
    let spec = dir.join("cheetah15k5/Seagate-Cheetah15k5.parv");
    let mut failures = Vec::new();
    for (v, (name, ov)) in C15K5_VARIANTS.iter().enumerate() {
        for (i, &n) in SIZES.iter().enumerate() {
            let ours = mean_ms(&spec, ov, n);
            check(&mut failures, &format!("cheetah15k5 {name} n={n}"), ours, DISKSIM_C15K5[v][i]);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn older_drives_stream_as_disksim_does() {
    let Some(dir) = common::disksim_valid() else { return };
    let mut failures = Vec::new();
    for (drive, ds) in DISKSIM_OLDER {
        let spec = dir.join(format!("{drive}.parv"));
        for (i, &n) in SIZES.iter().enumerate() {
            let ours = mean_ms(&spec, &[], n);
            check(&mut failures, &format!("{drive} as-is n={n}"), ours, ds[i]);
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn without_its_cache_the_cheetah_15k5_reads_at_the_media_rate() {
    // The README's overrides: no read-ahead, so nothing but the platter
    // stands between two requests: 256 sectors take 256 sector times of
    // the outer zone (1200 per revolution at 15,020 rpm) plus, now and
    // then, a track switch (at most 0.37 revolution, where the layout's
    // serpentine bands change head) — never a lost revolution.
    let Some(dir) = common::disksim_valid() else { return };
    let spec = dir.join("cheetah15k5/Seagate-Cheetah15k5.parv");
    let ov: Vec<(String, f64)> = C15K5_VARIANTS[0].1.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let p = load_drive(&spec, &ov).unwrap();
    let mut hdd = Hdd::with_start(p, true, Start::Index, Rng::new(1));
    let (sim, _) = replay(&mut hdd, &sequential(256));
    let rev_ms = 60_000.0 / 15_020.0;
    let media_ms = 256.0 * rev_ms / 1200.0;
    let worst = sim.iter().skip(1).cloned().fold(0.0f64, f64::max);
    assert!(worst < media_ms + 0.5 * rev_ms, "a request took {worst} ms (media {media_ms} ms)");
}
