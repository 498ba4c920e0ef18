//! How good is the datasheet method the datasheet presets (`cheetah-15k4`,
//! `barracuda-7200.10`, `wd5000aaks`, `wd10evvs`) are built by? Each of the
//! five drives DiskSim describes is rebuilt from the figures a datasheet
//! gives (read off its description: rpm, capacity, surfaces, the three seek
//! figures, outer/inner sustained rates, cache size, interface time; and its
//! write-back setting, which is the host's choice; `presets::sheet_of`), by
//! the same method (`presets::datasheet_twin`), and replays the drive's
//! measured trace. The README gives the rms of both
//! beside each other; this test holds that table to what the model gives.

mod common;

use prefetchlab::device::disksim::load_drive;
use prefetchlab::device::presets::datasheet_twin;
use prefetchlab::device::validate::{read_trace, validate_params, Validation};
use std::path::Path;

/// (name, spec, trace, DiskSim overrides of its validation run)
type Drive = (&'static str, std::path::PathBuf, std::path::PathBuf, Vec<(String, f64)>);

fn drives(dir: &Path) -> Vec<Drive> {
    let off = |k: &str| (k.to_string(), 0.0);
    vec![
        ("cheetah9LP", dir.join("cheetah9LP.parv"), dir.join("cheetah9LP.trace"), vec![]),
        ("atlas10k", dir.join("atlas10k.parv"), dir.join("atlas10k.trace"), vec![]),
        ("barracuda", dir.join("barracuda.parv"), dir.join("barracuda.trace"), vec![]),
        ("hp_c2247a", dir.join("hp_c2247a.parv"), dir.join("hp_c2247a.trace"), vec![]),
        (
            "cheetah15k5",
            dir.join("cheetah15k5/Seagate-Cheetah15k5.parv"),
            dir.join("cheetah15k5/random.trace"),
            vec![off("Enable caching in buffer"), off("Fast write level"), off("Buffer continuous read")],
        ),
    ]
}

/// (file, datasheet twin) validations of each drive.
fn measure(dir: &Path) -> Vec<(&'static str, Validation, Validation)> {
    drives(dir)
        .into_iter()
        .map(|(name, spec, trace, ov)| {
            let lines = read_trace(&trace).unwrap();
            let file = load_drive(&spec, &ov).unwrap();
            // the drive as DiskSim validated it (its write-back setting too)
            let twin = datasheet_twin(name, &load_drive(&spec, &ov).unwrap()).unwrap();
            (
                name,
                validate_params(file, &trace, &lines).unwrap(),
                validate_params(twin, &trace, &lines).unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_readme_gives_the_datasheet_methods_error_on_each_drive() {
    let Some(dir) = common::disksim_valid() else { return };
    let mut want = String::new();
    let mut stale = Vec::new();
    for (name, file, twin) in measure(&dir) {
        let row = vec![
            name.to_string(),
            format!("{:.3}", file.rms_ms),
            format!("{:.3}", twin.rms_ms),
            format!("{:.2}", twin.rms_ms / file.rms_ms),
            format!("{:.3} / {:.3}", twin.mean_sim_ms, twin.mean_real_ms),
        ];
        want.push_str(&format!("| {} |\n", row.join(" | ")));
        if common::readme_row("### The datasheet method", name).as_ref() != Some(&row) {
            stale.push(name);
        }
        assert!(twin.rms_ms.is_finite() && twin.rms_ms > 0.0 && twin.requests == file.requests, "{name}");
    }
    assert!(
        stale.is_empty(),
        "README's datasheet-method table is stale for {stale:?}; it should read:\n{want}"
    );
}
