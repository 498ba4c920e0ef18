//! Workloads: closed-loop generators of application reads (models.md §5).
//!
//! * `iozone` — IOzone's throughput test (`-t N -i 1`): N streams, each
//!   reading its own file sequentially from offset 0 to EOF in `record`-byte
//!   requests; buffered, or O_DIRECT with `direct = true`.
//! * `random` — N streams, each reading record-aligned random offsets of its
//!   own file (`requests` per stream; 0 = as many as the file has records):
//!   the contrast case where readahead can only waste.
//!
//! Both are closed loops: a stream issues its next request `think_time`
//! after the previous one completed.
//!
//! * [`replay`] — a block trace's records as requests (open or closed loop,
//!   time-shifted scale-up), entering the stack at the array.

pub mod replay;

use crate::config::{Config, WorkloadKind};
use crate::sim::Rng;
use crate::units::PAGE_BYTES;

/// One stream's read pattern.
#[derive(Debug, Clone)]
pub struct StreamSpec {
    pub file: u32,
    pub file_bytes: u64,
    pub record_bytes: u64,
    pub requests: u64,
    pub random: bool,
    pub direct: bool,
    pub think_ns: u64,
}

/// The request generator of one stream.
pub struct Generator {
    pub spec: StreamSpec,
    issued: u64,
    rng: Rng,
}

impl Generator {
    /// The next request as `(offset_bytes, len_bytes)`, or `None` when done.
    pub fn next_request(&mut self) -> Option<(u64, u64)> {
        let s = &self.spec;
        if self.issued >= s.requests {
            return None;
        }
        let records = s.file_bytes.div_ceil(s.record_bytes);
        let index = if s.random { self.rng.below(records) } else { self.issued };
        self.issued += 1;
        let offset = index * s.record_bytes;
        Some((offset, s.record_bytes.min(s.file_bytes - offset)))
    }
}

/// The streams of a configuration and the sizes (pages) of the files they read.
pub fn build(cfg: &Config) -> (Vec<Generator>, Vec<u64>) {
    let w = &cfg.workload;
    if w.kind == WorkloadKind::Trace {
        return (Vec::new(), Vec::new()); // a trace has no files: see `replay`
    }
    let file_bytes = w.file_size.0;
    let records = file_bytes.div_ceil(w.record.0);
    let random = w.kind == WorkloadKind::Random;
    let requests = if random && w.requests > 0 { w.requests } else { records };
    let gens = (0..w.streams)
        .map(|i| Generator {
            spec: StreamSpec {
                file: i,
                file_bytes,
                record_bytes: w.record.0,
                requests,
                random,
                direct: w.direct,
                think_ns: w.think_time.0,
            },
            issued: 0,
            rng: Rng::derive(cfg.run.seed, &format!("stream{i}")),
        })
        .collect();
    let pages = vec![file_bytes.div_ceil(PAGE_BYTES); w.streams as usize];
    (gens, pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iozone_reads_each_file_once_in_records() {
        let cfg =
            Config::from_toml("[workload]\nstreams=2\nrecord='64KiB'\nfile_size='200KiB'", &[]).unwrap();
        let (mut g, pages) = build(&cfg);
        assert_eq!(pages, vec![50, 50]);
        let reqs: Vec<_> = std::iter::from_fn(|| g[1].next_request()).collect();
        assert_eq!(reqs, vec![(0, 65536), (65536, 65536), (131072, 65536), (196608, 8192)]);
        assert_eq!(g[1].spec.file, 1);
    }

    #[test]
    fn random_offsets_are_aligned_seeded_and_bounded() {
        let cfg = Config::from_toml(
            "[workload]\nkind='random'\nrecord='4KiB'\nfile_size='1MiB'\nrequests=100",
            &[],
        )
        .unwrap();
        let (mut a, _) = build(&cfg);
        let (mut b, _) = build(&cfg);
        let ra: Vec<_> = std::iter::from_fn(|| a[0].next_request()).collect();
        let rb: Vec<_> = std::iter::from_fn(|| b[0].next_request()).collect();
        assert_eq!(ra.len(), 100);
        assert_eq!(ra, rb);
        assert!(ra.iter().all(|&(o, l)| o % 4096 == 0 && o < 1 << 20 && l == 4096));
        assert!(ra.windows(2).any(|w| w[1].0 != w[0].0 + 4096), "not sequential");
    }
}
