//! Writes a synthetic block trace of N records in the SPC format
//! (`ASU,LBA,size,op,timestamp`), gzip-compressed, for the scale benchmark
//! (`benches/cache_only.py`) and memory tests:
//! `cargo run --release --example gen_trace -- N OUT.spc.gz [SEED]`.
//!
//! The mix, drawn from a seeded xoshiro generator (the same N and seed give
//! the same bytes): 8 sequential readers of 8 KiB requests, each over its
//! own 8 GiB region of ASU 0, and random 4 KiB reads and writes (one in
//! four a write) over a 64 GiB region of ASU 1; half the records each,
//! 100 µs apart. Its footprint grows with N, so a cache of any fixed size
//! sees a trace far longer than itself.

use rand_core::{RngCore, SeedableRng};
use std::io::{BufWriter, Write};

const SEQ_STREAMS: u64 = 8;
const SEQ_REGION_SECTORS: u64 = (8 << 30) / 512;
const SEQ_REQUEST_BYTES: u64 = 8 << 10;
const RANDOM_REGION_BLOCKS: u64 = (64 << 30) / 4096;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(n), Some(out)) = (args.first().and_then(|s| s.parse::<u64>().ok()), args.get(1)) else {
        eprintln!("usage: gen_trace N OUT.spc.gz [SEED]");
        std::process::exit(2);
    };
    let seed = args.get(2).and_then(|s| s.parse::<u64>().ok()).unwrap_or(1);
    if let Err(e) = write(n, out, seed) {
        eprintln!("error: {out}: {e}");
        std::process::exit(2);
    }
}

fn write(n: u64, out: &str, seed: u64) -> std::io::Result<()> {
    let file = std::fs::File::create(out)?;
    let gz =
        flate2::write::GzEncoder::new(BufWriter::with_capacity(1 << 20, file), flate2::Compression::fast());
    let mut w = BufWriter::with_capacity(1 << 20, gz);
    let mut rng = rand_xoshiro::Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut next_sector = [0u64; SEQ_STREAMS as usize];
    for i in 0..n {
        let r = rng.next_u64();
        let (t_s, t_us) = (i / 10_000, (i % 10_000) * 100);
        if r & 1 == 0 {
            let s = (r >> 1) % SEQ_STREAMS;
            let at = &mut next_sector[s as usize];
            let lba = s * SEQ_REGION_SECTORS + *at;
            *at = (*at + SEQ_REQUEST_BYTES / 512) % SEQ_REGION_SECTORS;
            writeln!(w, "0,{lba},{SEQ_REQUEST_BYTES},r,{t_s}.{t_us:06}")?;
        } else {
            let block = (r >> 8) % RANDOM_REGION_BLOCKS;
            let op = if (r >> 1) & 3 == 0 { 'w' } else { 'r' };
            writeln!(w, "1,{},4096,{op},{t_s}.{t_us:06}", block * 8)?;
        }
    }
    let gz = w.into_inner().map_err(|e| e.into_error())?;
    gz.finish()?.flush()
}
