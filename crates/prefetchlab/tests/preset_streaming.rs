//! The drive presets stream a sequential reader as the real drives do
//! (issue: one Cheetah 15K.5 read 25 MB/s where the real drive streams
//! 73–125 MB/s). One IOzone stream of 64 KiB records over a 256 MiB file, on
//! one drive, under Linux readahead (max 128 KiB), through the whole stack.

use prefetchlab::device::presets::{self, PresetKind};
use prefetchlab::{simulate, Config};

fn stream_mb_s(model: &str) -> f64 {
    stream_mb_s_seeded(model, 0)
}

/// The same stream with `run.seed = seed` (the drive's starting angle and
/// its rpm, drawn within the description's `Percent error in rpms`).
fn stream_mb_s_seeded(model: &str, seed: u64) -> f64 {
    let cfg = Config::from_toml(
        &format!(
            "[array]\nlayout='single'\n[disk]\nmodel='{model}'\n[readahead]\npolicy='linux'\nmax='128KiB'\n\
             [workload]\nkind='iozone'\nstreams=1\nrecord='64KiB'\nfile_size='256MiB'\n[run]\nseed={seed}\n"
        ),
        &[],
    )
    .unwrap();
    let r = simulate(&cfg).unwrap();
    assert_eq!(r.metrics.bytes_read, 256 << 20);
    r.metrics.bandwidth_mb_s
}

#[test]
fn each_cheetah_15k5_preset_streams_at_the_real_drives_rate() {
    // The datasheets give 73 (inner zone) to 125 MB/s. DIXtrac measured 1,200
    // sectors per track in the outer zone at 15,020 rpm: 134.6 MB/s after the
    // track and cylinder skews (DiskSim's own figure for the file, the
    // issue's table), which the presets are — so at least 73, at most that.
    for model in ["cheetah-15k5", "cheetah-15k5-146gb"] {
        let mb_s = stream_mb_s(model);
        println!("{model}: {mb_s:.1} MB/s");
        assert!((73.0..=134.6).contains(&mb_s), "{model}: {mb_s} MB/s");
    }
}

#[test]
fn the_datasheet_presets_stream_near_their_outer_zone_rate() {
    // their outer-zone sustained rates: the file starts there; the host's
    // readahead and the drive's overheads cost a little
    let od =
        [("cheetah-15k4", 96.0), ("barracuda-7200.10", 78.0), ("wd5000aaks", 106.0), ("wd10evvs", 100.0)];
    for (model, od_mb_s) in od {
        assert_eq!(presets::info(model).unwrap().kind, PresetKind::Datasheet);
        let mb_s = stream_mb_s(model);
        println!("{model}: {mb_s:.1} MB/s (outer zone {od_mb_s} MB/s)");
        assert!(mb_s > 0.8 * od_mb_s && mb_s <= od_mb_s, "{model}: {mb_s} MB/s");
    }
}

#[test]
fn a_drive_streams_alike_whatever_rpm_and_angle_its_seed_draws() {
    // a drive spins within `Percent error in rpms` of its rpm: skews that
    // covered a switch only at the nominal rpm lost a revolution at every
    // track crossing on a drive drawn fast (wd10evvs: 99.6 MB/s at seed 0,
    // 52.5 at seeds 1 and 7)
    for model in presets::NAMES {
        let rates: Vec<f64> = (0..8).map(|seed| stream_mb_s_seeded(model, seed)).collect();
        let (lo, hi) = rates.iter().fold((f64::MAX, 0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
        println!("{model}: {lo:.1} to {hi:.1} MB/s over seeds 0-7");
        assert!(lo >= 0.97 * hi, "{model}: {rates:?}");
    }
}
