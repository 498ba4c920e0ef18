//! Workloads: closed-loop generators of application reads (models.md §5).
//!
//! * `iozone` — IOzone's throughput test (`-t N -i 1`): N streams, each
//!   reading its own file sequentially from offset 0 to EOF in `record`-byte
//!   requests; buffered, or O_DIRECT with `direct = true`.
//! * `random` — N streams, each reading record-aligned random offsets of its
//!   own file (`requests` per stream; 0 = as many as the file has records):
//!   the contrast case where readahead can only waste.
//!
//! * `webserver`, `fileserver` — FileBench's personalities as \[TC09\] and
//!   \[IEICE13\] ran them, read side: a file set of `workload.files` files
//!   whose sizes are drawn from a gamma distribution with mean `file_size`
//!   and shape `gamma_shape` (FileBench's `filesizegamma`, 1.5), rounded up
//!   to whole pages; each of `streams` threads picks a file uniformly at
//!   random and reads it whole in `record`-byte requests, `requests` files
//!   in all (0: `files / streams`, at least 1). Opening a new file starts a
//!   new readahead state, as a new `struct file` does. The fileserver's
//!   writes are left out (\[IEICE13\] removed them too).
//! * The webserver's log append (FileBench's webserver.f: after every 10
//!   whole-file reads, `appendfilerand` to the one file of `logfiles`: 1 to
//!   `$meanappendsize` = 16 KiB bytes, uniformly drawn):
//!   after every [`LOG_EVERY_FILES`] files a thread appends a size drawn
//!   uniformly from 1 to `workload.log_append` bytes (0: no log) to a log
//!   file placed after the file set, from a random stream of its own (so the
//!   files a thread chooses are those of a run without the log). The append is a
//!   buffered write: the thread goes on at once, and the engine writes the
//!   pages dirtied to the disks at the next journal commit (see
//!   [`crate::engine`]). The log file is sized for the appends the run's
//!   threads make, at most 64 MiB, beyond which appends wrap to its start
//!   ([`log_capacity_pages`]); it is never read.
//! * `videoserver` — each stream reads its own file sequentially at
//!   `workload.rate` bytes per second: request `k` is issued no earlier than
//!   `k × record / rate` after the first (0: as fast as served).
//!
//! All are closed loops: a stream issues its next request `think_time`
//! after the previous one completed.
//!
//! * [`replay`] — a block trace's records as requests (open or closed loop,
//!   time-shifted scale-up), entering the stack at the array.

pub mod replay;

use crate::config::{Config, WorkloadKind};
use crate::sim::Rng;
use crate::units::{NS_PER_S, PAGE_BYTES};

/// One stream's read pattern.
#[derive(Debug, Clone)]
pub struct StreamSpec {
    /// The stream's own file (`iozone`, `random`, `videoserver`).
    pub file: u32,
    pub file_bytes: u64,
    pub record_bytes: u64,
    /// Requests (records) to issue; for a file set, whole files to read.
    pub requests: u64,
    pub random: bool,
    pub direct: bool,
    pub think_ns: u64,
    /// `videoserver`: the least time between two request issues (0: none).
    pub interval_ns: u64,
    /// A file set (`webserver`, `fileserver`): the bytes of each file.
    pub fileset: Option<std::sync::Arc<[u64]>>,
    /// `webserver`: the largest log append, bytes (0: no log).
    pub log_append_bytes: u64,
}

/// The request generator of one stream.
pub struct Generator {
    pub spec: StreamSpec,
    issued: u64,
    rng: Rng,
    /// A file set: the file being read, its size and the next offset.
    cur_file: u32,
    cur_bytes: u64,
    cur_offset: u64,
    /// The log append's sizes (a stream of its own, so that the log leaves
    /// the files read as they are without it).
    log_rng: Rng,
    /// Files read whole at the last log append.
    appended_at: u64,
}

/// Files a webserver thread reads between two log appends (webserver.f's
/// ten `readwholefile` flowops per `appendfilerand`).
pub const LOG_EVERY_FILES: u64 = 10;

/// FileBench's `$meanappendsize` (webserver.f), the default of
/// `workload.log_append`.
pub const FILEBENCH_MEAN_APPEND_BYTES: u64 = 16 << 10;

/// The most pages the webserver's log file holds (64 MiB: some 8,000 appends
/// of FileBench's mean 8 KiB); appends beyond it start again at its
/// beginning, as a rotated log would.
pub const LOG_MAX_PAGES: u64 = (64 << 20) / PAGE_BYTES;

/// The pages of the webserver's log file: room for every append the run's
/// threads make (one per [`LOG_EVERY_FILES`] files read whole, of at most
/// `log_append` bytes), at most [`LOG_MAX_PAGES`]; 0 without a log, or when
/// no thread reads enough files to append.
pub fn log_capacity_pages(cfg: &Config) -> u64 {
    let w = &cfg.workload;
    let appends = u64::from(w.streams).saturating_mul(files_per_thread(cfg) / LOG_EVERY_FILES);
    appends.saturating_mul(w.log_append_bytes()).div_ceil(PAGE_BYTES).min(LOG_MAX_PAGES)
}

/// Whole files each thread of a file set reads.
fn files_per_thread(cfg: &Config) -> u64 {
    let w = &cfg.workload;
    if w.requests > 0 {
        w.requests
    } else {
        (w.files as u64 / w.streams as u64).max(1)
    }
}

impl Generator {
    /// `webserver`: the bytes of the log append due before the thread's
    /// next file (after every [`LOG_EVERY_FILES`] files read whole, the
    /// last ones included), or `None`.
    pub fn take_append(&mut self) -> Option<u64> {
        let max = self.spec.log_append_bytes;
        if max == 0 || self.cur_offset < self.cur_bytes {
            return None;
        }
        let done = self.issued;
        if done == 0 || !done.is_multiple_of(LOG_EVERY_FILES) || done == self.appended_at {
            return None;
        }
        self.appended_at = done;
        Some(1 + self.log_rng.below(max))
    }

    /// The next request as `(file, offset_bytes, len_bytes)`, or `None` when done.
    pub fn next_request(&mut self) -> Option<(u32, u64, u64)> {
        if let Some(set) = &self.spec.fileset {
            if self.cur_offset >= self.cur_bytes {
                if self.issued >= self.spec.requests {
                    return None;
                }
                self.issued += 1;
                self.cur_file = self.rng.below(set.len() as u64) as u32;
                self.cur_bytes = set[self.cur_file as usize];
                self.cur_offset = 0;
            }
            let offset = self.cur_offset;
            let len = self.spec.record_bytes.min(self.cur_bytes - offset);
            self.cur_offset += len;
            return Some((self.cur_file, offset, len));
        }
        let s = &self.spec;
        if self.issued >= s.requests {
            return None;
        }
        let records = s.file_bytes.div_ceil(s.record_bytes);
        let index = if s.random { self.rng.below(records) } else { self.issued };
        self.issued += 1;
        let offset = index * s.record_bytes;
        Some((s.file, offset, s.record_bytes.min(s.file_bytes - offset)))
    }
}

/// FileBench's gamma shape for file sizes (`filesizegamma`), the default of
/// `workload.gamma_shape` and the shape of `fs.aging`'s files.
pub const FILEBENCH_GAMMA_SHAPE: f64 = 1.5;

/// A gamma-distributed draw with shape `k` and mean `mean` (Marsaglia and
/// Tsang's method; shapes below 1 by the `U^(1/k)` boost).
pub fn gamma(rng: &mut Rng, k: f64, mean: f64) -> f64 {
    let theta = mean / k;
    if k < 1.0 {
        let u = rng.next_f64().max(f64::MIN_POSITIVE);
        return gamma(rng, k + 1.0, (k + 1.0) * theta) * u.powf(1.0 / k);
    }
    let d = k - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        // a standard normal by Box-Muller
        let (u1, u2) = (rng.next_f64().max(f64::MIN_POSITIVE), rng.next_f64());
        let x = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
        let v = (1.0 + c * x).powi(3);
        if v <= 0.0 {
            continue;
        }
        let u = rng.next_f64().max(f64::MIN_POSITIVE);
        if u.ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v * theta;
        }
    }
}

/// The file set of a `webserver` or `fileserver` workload: each file's
/// bytes, whole pages, at least one.
pub fn fileset(cfg: &Config) -> Vec<u64> {
    let w = &cfg.workload;
    let mut rng = Rng::derive(cfg.run.seed, "fileset");
    (0..w.files)
        .map(|_| {
            let bytes = gamma(&mut rng, w.gamma_shape, w.file_size.0 as f64);
            ((bytes as u64).div_ceil(PAGE_BYTES)).max(1) * PAGE_BYTES
        })
        .collect()
}

/// The streams of a configuration and the sizes (pages) of the files they
/// read (for a webserver with a log, the log file last).
pub fn build(cfg: &Config) -> (Vec<Generator>, Vec<u64>) {
    let w = &cfg.workload;
    if w.kind == WorkloadKind::Trace {
        return (Vec::new(), Vec::new()); // a trace has no files: see `replay`
    }
    let file_bytes = w.file_size.0;
    let records = file_bytes.div_ceil(w.record.0);
    let random = w.kind == WorkloadKind::Random;
    let set = matches!(w.kind, WorkloadKind::Webserver | WorkloadKind::Fileserver);
    let fileset: Option<std::sync::Arc<[u64]>> = set.then(|| fileset(cfg).into());
    let log_pages = log_capacity_pages(cfg);
    let requests = if set {
        files_per_thread(cfg)
    } else if random && w.requests > 0 {
        w.requests
    } else {
        records
    };
    let interval_ns = if w.kind == WorkloadKind::Videoserver && w.rate.0 > 0 {
        (w.record.0 as u128 * NS_PER_S as u128 / w.rate.0 as u128) as u64
    } else {
        0
    };
    let gens = (0..w.streams)
        .map(|i| Generator {
            spec: StreamSpec {
                file: if set { 0 } else { i },
                file_bytes,
                record_bytes: w.record.0,
                requests,
                random,
                direct: w.direct,
                think_ns: w.think_time.0,
                interval_ns,
                fileset: fileset.clone(),
                log_append_bytes: if log_pages > 0 { w.log_append_bytes() } else { 0 },
            },
            issued: 0,
            rng: Rng::derive(cfg.run.seed, &format!("stream{i}")),
            cur_file: 0,
            cur_bytes: 0,
            cur_offset: 0,
            log_rng: Rng::derive(cfg.run.seed, &format!("log{i}")),
            appended_at: 0,
        })
        .collect();
    let mut pages: Vec<u64> = match &fileset {
        Some(f) => f.iter().map(|b| b / PAGE_BYTES).collect(),
        None => vec![file_bytes.div_ceil(PAGE_BYTES); w.streams as usize],
    };
    if log_pages > 0 {
        pages.push(log_pages); // the log file, after the file set
    }
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
        assert_eq!(reqs, vec![(1, 0, 65536), (1, 65536, 65536), (1, 131072, 65536), (1, 196608, 8192)]);
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
        assert!(ra.iter().all(|&(f, o, l)| f == 0 && o % 4096 == 0 && o < 1 << 20 && l == 4096));
        assert!(ra.windows(2).any(|w| w[1].1 != w[0].1 + 4096), "not sequential");
    }

    #[test]
    fn a_file_set_is_read_whole_file_by_file() {
        let cfg = Config::from_toml(
            "[workload]\nkind='fileserver'\nstreams=2\nfiles=50\nfile_size='1MiB'\nrecord='256KiB'\nrequests=10",
            &[],
        )
        .unwrap();
        let (mut g, pages) = build(&cfg);
        assert_eq!(pages.len(), 50);
        let mean = pages.iter().sum::<u64>() as f64 / 50.0 * 4096.0;
        assert!((0.6..1.5).contains(&(mean / (1 << 20) as f64)), "mean {mean}");
        let reqs: Vec<_> = std::iter::from_fn(|| g[0].next_request()).collect();
        // whole files: each file's requests run from offset 0 to its size
        let mut files = 0;
        let mut at = 0;
        for &(f, o, l) in &reqs {
            if o == 0 {
                files += 1;
                at = 0;
            }
            assert_eq!(o, at);
            at += l;
            if at == pages[f as usize] * 4096 {
                at = 0;
            }
        }
        assert_eq!(files, 10);
        let (mut h, _) = build(&cfg);
        assert_eq!(reqs, std::iter::from_fn(|| h[0].next_request()).collect::<Vec<_>>(), "seeded");
    }

    /// A webserver thread appends to the log after every 10th file, the
    /// last included, 1 to `log_append` bytes from a stream of its own: the
    /// files it reads are those of a run without the log.
    #[test]
    fn a_webserver_thread_appends_after_every_ten_files() {
        let toml = "[workload]\nkind='webserver'\nstreams=2\nfiles=50\nfile_size='64KiB'\nrecord='1MiB'\nrequests=25";
        let read = |sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            let cfg = Config::from_toml(toml, &sets).unwrap();
            let (mut g, pages) = build(&cfg);
            let mut files = Vec::new();
            let mut appends = Vec::new();
            loop {
                if let Some(bytes) = g[1].take_append() {
                    appends.push((files.len(), bytes));
                }
                let Some((f, o, _)) = g[1].next_request() else { break };
                if o == 0 {
                    files.push(f);
                }
            }
            (files, appends, pages.len(), log_capacity_pages(&cfg))
        };
        let (files, appends, n, capacity) = read(&[]);
        assert_eq!(files.len(), 25);
        // after files 10 and 20 (the 25th ends no tenth: no append)
        assert_eq!(appends.iter().map(|a| a.0).collect::<Vec<_>>(), vec![10, 20]);
        assert!(appends.iter().all(|a| (1..=16384).contains(&a.1)), "{appends:?}");
        // the log file after the file set, room for 2 threads × 2 appends of 16 KiB
        assert_eq!((n, capacity), (51, 2 * 2 * 4));
        let (files0, appends0, n0, capacity0) = read(&["workload.log_append=0"]);
        assert_eq!((files0, appends0.len(), n0, capacity0), (files, 0, 50, 0));
        let (_, appends1, _, _) = read(&["workload.requests=20"]);
        assert_eq!(appends1.iter().map(|a| a.0).collect::<Vec<_>>(), vec![10, 20], "the last tenth too");
        assert_eq!(appends1, appends, "seeded");
    }

    #[test]
    fn gamma_draws_have_the_mean_asked() {
        let mut rng = Rng::new(7);
        for k in [0.5, 1.5, 4.0] {
            let n = 20_000;
            let mean = (0..n).map(|_| gamma(&mut rng, k, 10.0)).sum::<f64>() / n as f64;
            assert!((mean - 10.0).abs() < 0.4, "shape {k}: mean {mean}");
        }
    }
}
