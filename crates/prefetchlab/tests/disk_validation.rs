//! DiskSim's validation of the HDD model (disksim-valid/README.md): each of
//! the five drives replays its measured trace and the rms demerit figure
//! must stay within 1.5× DiskSim's own. Reads the DiskSim files from
//! `../shared` (or `PREFETCHLAB_SHARED`); skips with a reason when absent.

use prefetchlab::device::validate::validate;
use std::path::PathBuf;

fn shared() -> Option<PathBuf> {
    let p = std::env::var_os("PREFETCHLAB_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    p.join("disksim-valid").is_dir().then(|| p.join("disksim-valid"))
}

/// (name, spec, trace, DiskSim overrides, DiskSim's own rms in ms)
type Case = (&'static str, PathBuf, PathBuf, Vec<(String, f64)>, f64);

#[test]
fn five_drives_within_one_and_a_half_disksim_rms() {
    let Some(dir) = shared() else {
        println!("SKIPPED: disksim-valid not found (set PREFETCHLAB_SHARED)");
        return;
    };
    let off = |k: &str| (k.to_string(), 0.0);
    let cases: Vec<Case> = vec![
        ("cheetah9LP", dir.join("cheetah9LP.parv"), dir.join("cheetah9LP.trace"), vec![], 0.107),
        ("atlas10k", dir.join("atlas10k.parv"), dir.join("atlas10k.trace"), vec![], 0.268),
        ("barracuda", dir.join("barracuda.parv"), dir.join("barracuda.trace"), vec![], 0.349),
        ("hp_c2247a", dir.join("hp_c2247a.parv"), dir.join("hp_c2247a.trace"), vec![], 0.090),
        (
            "cheetah15k5",
            dir.join("cheetah15k5/Seagate-Cheetah15k5.parv"),
            dir.join("cheetah15k5/random.trace"),
            vec![off("Enable caching in buffer"), off("Fast write level"), off("Buffer continuous read")],
            0.297,
        ),
    ];
    println!(
        "{:<12} {:>8} {:>8} {:>13} {:>9} {:>9} {:>7}",
        "drive", "rms_ms", "disksim", "rms_exact_ms", "mean_sim", "mean_real", "n"
    );
    let mut failures = Vec::new();
    for (name, spec, trace, ov, ds) in &cases {
        let v = validate(spec, trace, ov).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!(
            "{:<12} {:>8.3} {:>8.3} {:>13.3} {:>9.3} {:>9.3} {:>7}",
            name, v.rms_ms, ds, v.rms_exact_ms, v.mean_sim_ms, v.mean_real_ms, v.requests
        );
        let factor = 1.5;
        if v.rms_ms > factor * ds {
            failures.push(format!("{name}: rms {:.3} > {factor} × {ds}", v.rms_ms));
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}

/// Replay speed of the 15K.5 random trace (printed, never asserted).
#[test]
fn replay_speed_is_reported() {
    use prefetchlab::device::hdd::Hdd;
    use prefetchlab::device::validate::{read_trace, replay};
    use prefetchlab::sim::Rng;
    let Some(dir) = shared() else {
        println!("SKIPPED: disksim-valid not found (set PREFETCHLAB_SHARED)");
        return;
    };
    let spec = dir.join("cheetah15k5/Seagate-Cheetah15k5.parv");
    let lines = read_trace(&dir.join("cheetah15k5/random.trace")).unwrap();
    let p = prefetchlab::device::disksim::load_drive(&spec, &[]).unwrap();
    let mut hdd = Hdd::new(p, true, Rng::new(1));
    let rounds = 20;
    let t = std::time::Instant::now();
    let mut n = 0usize;
    for _ in 0..rounds {
        let (s, _) = replay(&mut hdd, &lines);
        n += s.len();
        assert!(s.iter().all(|&x| x > 0.0));
    }
    let secs = t.elapsed().as_secs_f64();
    println!("replayed {n} requests in {secs:.3} s: {:.0} requests/s", n as f64 / secs);
}

/// The built-in `cheetah-15k5-146gb` preset *is* DiskSim's description of
/// that drive: with the three overrides of DiskSim's validation run it gives
/// the very same service times as the shared `.parv` on `random.trace`.
#[test]
fn the_146gb_preset_is_the_shared_cheetah_15k5_description() {
    use prefetchlab::device::disksim::load_drive;
    use prefetchlab::device::hdd::{DriveParams, Hdd};
    use prefetchlab::device::presets::preset_with;
    use prefetchlab::device::validate::{read_trace, replay};
    use prefetchlab::sim::Rng;
    let Some(dir) = shared() else {
        println!("SKIPPED: disksim-valid not found (set PREFETCHLAB_SHARED)");
        return;
    };
    let ov: Vec<(String, f64)> = ["Enable caching in buffer", "Fast write level", "Buffer continuous read"]
        .iter()
        .map(|k| (k.to_string(), 0.0))
        .collect();
    let lines = read_trace(&dir.join("cheetah15k5/random.trace")).unwrap();
    let run = |p: DriveParams| {
        let mut h = Hdd::new(p, true, Rng::derive(42, "validate"));
        replay(&mut h, &lines).0
    };
    let file = run(load_drive(&dir.join("cheetah15k5/Seagate-Cheetah15k5.parv"), &ov).unwrap());
    let preset = run(preset_with("cheetah-15k5-146gb", &ov).unwrap().unwrap());
    assert_eq!(file.len(), 10_000);
    assert!(file == preset, "the preset's service times differ from the shared file's");
    // and they are not trivially equal: without the overrides they differ
    let cached = run(preset_with("cheetah-15k5-146gb", &[]).unwrap().unwrap());
    assert!(cached != preset);
}
