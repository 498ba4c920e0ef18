//! Replays a DiskSim validation trace on a drive and prints, per request,
//! the block, the size and the simulated access time (ms) — for comparing
//! the drive model with DiskSim request by request:
//! `cargo run --release --example replay -- SPEC TRACE ["NAME" VALUE]...`.

use prefetchlab::device::hdd::{Hdd, Start};
use prefetchlab::device::validate::{read_trace, replay};
use prefetchlab::sim::Rng;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 || !args.len().is_multiple_of(2) {
        eprintln!("usage: replay SPEC TRACE [\"NAME\" VALUE]...");
        std::process::exit(2);
    }
    let mut overrides = Vec::new();
    for kv in args[2..].chunks(2) {
        match kv[1].parse::<f64>() {
            Ok(v) => overrides.push((kv[0].clone(), v)),
            Err(_) => {
                eprintln!("error: `{}` is not a number", kv[1]);
                std::process::exit(2);
            }
        }
    }
    let run = || -> prefetchlab::Result<()> {
        let lines = read_trace(Path::new(&args[1]))?;
        let p = prefetchlab::device::disksim::load_drive(Path::new(&args[0]), &overrides)?;
        let mut hdd = Hdd::with_start(p, true, Start::Index, Rng::new(1));
        let (sim, _) = replay(&mut hdd, &lines);
        for (l, s) in lines.iter().zip(sim) {
            println!("{} {} {:.6}", l.lba, l.sectors, s);
        }
        Ok(())
    };
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
