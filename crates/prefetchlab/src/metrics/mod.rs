//! What a run measured. Every name carries its unit. The scalar figures are
//! in [`Metrics`] (one column each in a results table); per-stream and
//! per-disk figures in [`StreamMetrics`] and [`DiskMetrics`].
//!
//! Definitions:
//! * `bandwidth_mb_s` — application bytes read / simulated time, MB = 10^6 B.
//! * `latency_*_ms` — application request response time, issue to completion.
//! * `hit_ratio`, `prefetch_accuracy` — of the first cache the workload
//!   meets: the page cache for a file workload (pages found uptodate / pages
//!   read; prefetched pages later read / prefetched pages), the array cache
//!   for a block trace, which was recorded below a page cache, and for
//!   O_DIRECT readers, which bypass it (blocks hit / blocks accessed;
//!   prefetched blocks later accessed / prefetched blocks).
//! * `hits`, `misses`, `prefetched_blocks`, `prefetch_used_blocks`,
//!   `wasted_blocks` — the array cache's, in its blocks (`array_cache.block`);
//!   0 without an array cache.
//! * `wasted_prefetch_pages` (wastage) — prefetched pages evicted unread.
//! * `disk_requests` — requests dispatched to member devices (after merging).
//! * `request_splits` — extra disk requests made by splitting logical
//!   requests at strip boundaries (a request over 3 strips adds 2).
//! * `disk_utilization` — mean over disks of busy time / simulated time.
//!
//! A figure that is a mean or a ratio over nothing — `prefetch_accuracy` of
//! a run that prefetched nothing, a hit ratio with no access, the latencies
//! with no timed request, a mean disk request or seek with no disk request —
//! is `None`, `null` in JSON and NULL in a results table: undefined, not 0
//! (an accuracy of 0 would say every prefetch was wasted). [`ratio_of`]
//! gives it.

pub mod iolog;

pub use iolog::{IoEvent, IoLog, IoRow};

use crate::config::RunMode;
use serde::Serialize;

/// The scalar figures of one run.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct Metrics {
    pub bandwidth_mb_s: f64,
    pub iops: f64,
    pub app_requests: u64,
    /// Application write requests (of `app_requests`).
    pub writes: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    /// Application bytes written / simulated time, MB/s.
    pub write_bandwidth_mb_s: f64,
    /// RAID-5/6 rows (md stripe heads: one 4 KiB block per member) written
    /// by read-modify-write, by reconstruct-write, and whole (no reads).
    pub rmw_stripes: u64,
    pub rcw_stripes: u64,
    pub full_stripe_rows: u64,
    /// Write-back: array-cache blocks written to the disks after the
    /// writes that dirtied them completed (evicted, or beyond the dirty limit).
    pub writeback_blocks: u64,
    pub latency_mean_ms: Option<f64>,
    pub latency_p50_ms: Option<f64>,
    pub latency_p95_ms: Option<f64>,
    pub latency_p99_ms: Option<f64>,
    pub latency_max_ms: Option<f64>,
    /// Requests with a latency (every application request but a
    /// webserver's buffered log appends): past [`EXACT_LATENCIES`] the
    /// percentiles are bucket floors.
    pub latency_samples: u64,
    pub hit_ratio: Option<f64>,
    pub prefetched_pages: u64,
    pub prefetch_used_pages: u64,
    pub prefetch_accuracy: Option<f64>,
    pub wasted_prefetch_pages: u64,
    pub readahead_windows: u64,
    pub block_requests: u64,
    pub disk_requests: u64,
    pub request_splits: u64,
    pub disk_sectors: u64,
    pub mean_disk_request_kib: Option<f64>,
    pub disk_utilization: f64,
    pub mean_seek_distance_cyl: Option<f64>,
    pub drive_cache_hits: u64,
    pub hits: u64,
    pub misses: u64,
    pub array_cache_hit_ratio: Option<f64>,
    pub prefetched_blocks: u64,
    pub prefetch_used_blocks: u64,
    pub wasted_blocks: u64,
    /// The array cache's block policy's own counters, a JSON object (AMP's
    /// p/g distribution, LSP's areas and holes, …; `{}` for none).
    pub block_policy_state: String,
    /// The readahead policy's device-wide counters, a JSON object (extended
    /// SARA's pending I/Os, concurrency and choices of max; `{}` for none).
    pub readahead_policy_state: String,
    pub peak_cache_pages: u64,
    /// Page-cache pages moved to the active list (read twice), and back to
    /// the inactive list by reclaim (`host.reclaim = "use-once"`; 0 with `lru`).
    pub activated_pages: u64,
    pub deactivated_pages: u64,
    pub congestion_events: u64,
    /// Parts of requests that found a disk queue holding `nr_requests` (with
    /// `block.wait_on_full`, the default, each sleeps for a free request:
    /// `request_sleep_s`; without, the queue grows past it; see the block
    /// layer's doc).
    pub queue_full_events: u64,
    /// Readahead windows whose reader slept for room in the page cache
    /// (`host.readahead_alloc = "wait"`: every cached page was in flight,
    /// held by a waiting reader or on the active list), and of those, windows
    /// read over the budget at the end,
    /// when nothing left could make room (a page cache smaller than the
    /// readers' windows).
    pub room_waits: u64,
    pub windows_over_budget: u64,
    /// Malformed records of the trace skipped (`workload.skip_bad`), in the
    /// part of the file the run read (with fragments, the most any one
    /// fragment's reader passed: the last reads the file to its end); 0
    /// without a trace.
    pub trace_records_skipped: u64,
    /// Time parts of requests slept for a free request of a full disk queue
    /// (`block.wait_on_full`), summed over the parts, s.
    pub request_sleep_s: f64,
    /// The files' layout score (1.0: every file one extent; models.md §5.4),
    /// after `fs.layout` or `fs.aging`; 1.0 with no files.
    pub layout_score: f64,
    /// Mean extents per file (0 with no files).
    pub mean_file_extents: f64,
    pub sim_time_s: f64,
    /// When the application's last read completed (a topology run, issue 11);
    /// a single-host run: the simulated time.
    pub elapsed_s: f64,
    /// Time the application waited past each read's due time (a topology run).
    pub stall_s: f64,
    /// Fetches served by a storage node's upper level (a topology run).
    pub ssd_hits: u64,
    /// Fetches served by a storage node's lower level (a topology run).
    pub hdd_reads: u64,
    pub wall_time_s: f64,
    pub requests_per_wall_s: f64,
}

impl Metrics {
    /// The metrics a cache-only run measures; it reports the others as
    /// `null` (it has no clock, no disks and no page cache).
    pub const CACHE_ONLY: [&'static str; 16] = [
        "app_requests",
        "writes",
        "bytes_read",
        "bytes_written",
        "hit_ratio",
        "prefetch_accuracy",
        "hits",
        "misses",
        "array_cache_hit_ratio",
        "prefetched_blocks",
        "prefetch_used_blocks",
        "wasted_blocks",
        "block_policy_state",
        "trace_records_skipped",
        "wall_time_s",
        "requests_per_wall_s",
    ];
}

/// `a / b`, or `None` when `b` is not positive (a ratio or mean over nothing).
pub fn ratio_of(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

/// Per stream (reader).
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct StreamMetrics {
    pub stream: u32,
    pub requests: u64,
    pub bytes_read: u64,
    pub bandwidth_mb_s: f64,
    /// `None` (null) for a stream that completed no request.
    pub latency_mean_ms: Option<f64>,
    pub finish_time_s: f64,
}

/// Per member disk.
#[derive(Debug, Clone, Serialize, Default, PartialEq)]
pub struct DiskMetrics {
    pub disk: u32,
    pub requests: u64,
    pub sectors: u64,
    pub utilization: f64,
    /// `None` (null), as the queue wait, for a disk that served no request.
    pub mean_seek_distance_cyl: Option<f64>,
    pub cache_hits: u64,
    pub mean_queue_wait_ms: Option<f64>,
}

/// Everything a run produces.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// The resolved configuration, as JSON.
    pub config_json: String,
    pub metrics: Metrics,
    pub streams: Vec<StreamMetrics>,
    pub disks: Vec<DiskMetrics>,
    pub io_log: Option<IoLog>,
    /// What was simulated: a cache-only report leaves out what it did not
    /// measure ([`Metrics::CACHE_ONLY`]).
    pub mode: RunMode,
}

impl Report {
    /// `{"config": …, "metrics": …, "streams": […], "disks": […], "version": …}`.
    pub fn to_json(&self) -> String {
        #[derive(Serialize)]
        struct Out<'a> {
            version: &'a str,
            config: &'a serde_json::value::RawValue,
            metrics: serde_json::Value,
            streams: &'a [StreamMetrics],
            disks: &'a [DiskMetrics],
        }
        let raw = serde_json::value::RawValue::from_string(self.config_json.clone())
            .unwrap_or_else(|_| serde_json::value::RawValue::from_string("null".into()).expect("null"));
        serde_json::to_string(&Out {
            version: crate::VERSION,
            config: &raw,
            metrics: self.metrics_json(),
            streams: &self.streams,
            disks: &self.disks,
        })
        .expect("report serializes")
    }
}

impl Report {
    /// The metrics as a JSON object, `null` where the run's mode measures
    /// nothing.
    pub fn metrics_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(&self.metrics).expect("metrics serialize");
        if self.mode == RunMode::CacheOnly {
            if let Some(map) = v.as_object_mut() {
                for (name, value) in map.iter_mut() {
                    if !Metrics::CACHE_ONLY.contains(&name.as_str()) {
                        *value = serde_json::Value::Null;
                    }
                }
            }
        }
        v
    }
}

/// Samples kept one by one before [`Latencies`] folds them into its
/// histogram: 2^24 (128 MiB), more than any experiment under `experiments/`
/// records, whose quantiles are therefore exact.
pub const EXACT_LATENCIES: usize = 1 << 24;
/// Sub-buckets per power of two of the histogram: a bucket is at most 2^-10
/// (0.1 %) of its values wide.
const SUB_BITS: u32 = 10;

/// The response times of a run's requests (ns), for their mean, maximum and
/// nearest-rank quantiles. Every sample is kept up to [`EXACT_LATENCIES`]
/// (exact quantiles); past that they are folded into a log-linear histogram
/// (values below 1,024 ns exact, above in buckets 0.1 % wide) and a quantile
/// is the lowest value of the bucket holding it, so memory stays bounded
/// (about 0.5 MiB) however long the run. The mean and maximum stay exact.
#[derive(Debug)]
pub struct Latencies {
    /// Samples kept one by one before folding: [`EXACT_LATENCIES`] (less in tests).
    exact_cap: usize,
    exact: Vec<u64>,
    /// Counts per bucket once folded (empty before).
    buckets: Vec<u64>,
    count: u64,
    sum_ns: u128,
    max_ns: u64,
}

impl Default for Latencies {
    fn default() -> Self {
        Latencies {
            exact_cap: EXACT_LATENCIES,
            exact: Vec::new(),
            buckets: Vec::new(),
            count: 0,
            sum_ns: 0,
            max_ns: 0,
        }
    }
}

impl Latencies {
    #[inline]
    pub fn push(&mut self, ns: u64) {
        self.count += 1;
        self.sum_ns += ns as u128;
        self.max_ns = self.max_ns.max(ns);
        if self.buckets.is_empty() {
            if self.exact.len() < self.exact_cap {
                self.exact.push(ns);
                return;
            }
            // the 2^24+1th sample: fold before it, so the list never grows past the cap
            self.fold();
        }
        self.buckets[bucket_of(ns)] += 1;
    }

    /// Moves the samples kept one by one into the histogram.
    fn fold(&mut self) {
        self.buckets = vec![0; bucket_of(u64::MAX) + 1];
        for ns in std::mem::take(&mut self.exact) {
            self.buckets[bucket_of(ns)] += 1;
        }
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_ns(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum_ns as f64 / self.count as f64
        }
    }

    pub fn max_ns(&self) -> u64 {
        self.max_ns
    }

    /// The nearest-rank `q`-quantiles (0..=1) of the samples (see the type's
    /// doc for their precision once folded); 0 with no samples.
    pub fn quantiles<const N: usize>(&mut self, qs: [f64; N]) -> [u64; N] {
        if self.buckets.is_empty() {
            self.exact.sort_unstable();
            return qs.map(|q| quantile_sorted(&self.exact, q));
        }
        qs.map(|q| {
            let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
            let mut seen = 0;
            for (b, &n) in self.buckets.iter().enumerate() {
                seen += n;
                if seen >= rank {
                    return bucket_floor(b);
                }
            }
            self.max_ns // not reached: the buckets hold `count` samples
        })
    }
}

/// The histogram bucket of `ns`.
#[inline]
fn bucket_of(ns: u64) -> usize {
    let sub = 1u64 << SUB_BITS;
    if ns < sub {
        return ns as usize;
    }
    let e = 63 - ns.leading_zeros(); // >= SUB_BITS
    let shift = e - SUB_BITS;
    ((shift as u64 + 1) * sub + ((ns >> shift) & (sub - 1))) as usize
}

/// The lowest value of bucket `b`.
fn bucket_floor(b: usize) -> u64 {
    let sub = 1u64 << SUB_BITS;
    let b = b as u64;
    if b < sub {
        return b;
    }
    let shift = b / sub - 1;
    (sub + b % sub) << shift
}

/// The `q`-quantile (0..=1) of sorted values, nearest-rank.
pub fn quantile_sorted(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_over_nothing_is_none() {
        assert_eq!(ratio_of(3.0, 4.0), Some(0.75));
        assert_eq!((ratio_of(0.0, 0.0), ratio_of(1.0, 0.0)), (None, None));
    }

    #[test]
    fn nearest_rank_quantiles() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile_sorted(&v, 0.5), 50);
        assert_eq!(quantile_sorted(&v, 0.99), 99);
        assert_eq!(quantile_sorted(&v, 1.0), 100);
        assert_eq!(quantile_sorted(&[], 0.5), 0);
    }

    #[test]
    fn buckets_cover_every_value_in_order_within_a_thousandth() {
        for ns in [0u64, 1, 1023, 1024, 1025, 2047, 2048, 123_456_789, u64::MAX / 3, u64::MAX] {
            let b = bucket_of(ns);
            let lo = bucket_floor(b);
            assert!(lo <= ns && ns - lo <= ns >> SUB_BITS, "{ns}: bucket {b} from {lo}");
            assert_eq!(bucket_of(lo), b, "{ns}");
            if ns > 0 {
                assert!(bucket_of(ns - 1) <= b);
            }
        }
        assert_eq!(bucket_of(u64::MAX) + 1, 55 << SUB_BITS);
    }

    #[test]
    fn the_cap_s_worth_of_samples_stays_exact_and_the_next_one_folds() {
        let mut l = Latencies { exact_cap: 4, ..Latencies::default() };
        for ns in [4_000, 1_000, 3_000, 2_000] {
            l.push(ns);
        }
        assert!(l.buckets.is_empty() && l.exact.len() == 4);
        assert_eq!(l.quantiles([0.5]), [2_000]);
        l.push(5_000);
        assert!(l.exact.is_empty() && !l.buckets.is_empty());
        assert_eq!((l.count(), l.max_ns(), l.quantiles([1.0])[0]), (5, 5_000, 5_000));
    }

    #[test]
    fn latencies_are_exact_until_folded_then_within_a_thousandth() {
        let mut exact = Latencies::default();
        let mut folded = Latencies::default();
        // a spread of values, pushed in a scrambled order
        let xs: Vec<u64> = (0..100_000u64).map(|i| (i * 7919) % 100_000 * 997 + 300).collect();
        for &x in &xs {
            exact.push(x);
            folded.push(x);
        }
        folded.fold();
        assert!(exact.buckets.is_empty() && folded.exact.is_empty() && !folded.buckets.is_empty());
        let mut sorted = xs.clone();
        sorted.sort_unstable();
        let qs = [0.5, 0.95, 0.99, 1.0];
        let want = qs.map(|q| quantile_sorted(&sorted, q));
        assert_eq!(exact.quantiles(qs), want);
        for (got, want) in folded.quantiles(qs).iter().zip(want) {
            assert!(*got <= want && want - got <= want >> SUB_BITS, "{got} against {want}");
        }
        for l in [&exact, &folded] {
            assert_eq!((l.count(), l.max_ns()), (100_000, *sorted.last().unwrap()));
            let mean = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
            assert!((l.mean_ns() - mean).abs() < 1e-6 * mean);
        }
        assert_eq!(Latencies::default().quantiles([0.5]), [0]);
    }
}
