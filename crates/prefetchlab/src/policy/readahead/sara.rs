//! SARA, striping-aware readahead (\[IEICE13\]; algorithms.md §4,
//! decisions.md #4–#4d), on the on-demand readahead of Linux 2.6.35 (the
//! 2.6.31–3.11 logic, [`OnDemand`] with variant 3.10).
//!
//! * **Basic SARA** (§4.1): the on-demand logic sizes each window from
//!   `intact_size`, the size before SARA changed the previous window; the
//!   window is then cut at its first strip change or physical
//!   discontinuity, never below the demand pages ([`Fit::Cut`], the same
//!   [`StripAligned`] wrapper as SASEQP). Once cut, windows start aligned
//!   and stay inside one strip: the effective maximum is the strip.
//! * **Extended SARA** (§4.2): a window with a split grows by its first
//!   fragment instead (`size = async_size = intact_size + fs`,
//!   [`Fit::Extend`]), so its end lines up with a strip boundary and later
//!   windows stay aligned without shrinking — also on fragmented files.
//!   `sara.extend_aligned` picks the reading of an aligned window longer
//!   than one strip (decisions.md #4d, literal by default).
//! * **Dynamic max** (extended only, §4.2): each time readahead is demanded
//!   (a sync miss or a marker hit), the device's smoothed concurrency is
//!   updated, `D ← 0.9·D + 0.1·N`, with `N` the pending I/Os (queued and in
//!   service) per member disk (decisions.md #4). `D > threshold` is high
//!   concurrency: `max` = the small max, `readahead.max` (the sysfs
//!   `read_ahead_kb`, the strip when not set); otherwise (the tie too,
//!   #4b) the large max `strip_kb × factor` (by default 2 × the data disks:
//!   two stripes). `D` lives in the block device's [`RaDeviceState`], shared
//!   by every file on the array, as the paper keeps it per device. The
//!   max chosen is then bounded by `max_sane_readahead` as the on-demand
//!   logic bounds `ra_pages` (the paper does not say SARA bypasses it; only
//!   a page cache smaller than about four windows notices).
//!
//! Names follow the sysfs knobs (`striping_aware_read_ahead_strip_kb`,
//! `_factor`, `_threshold`): `[sara] strip_kb`, `factor`, `threshold`.
//!
//! Golden (§4.3; 2 disks, strip = max = 16 pages, two pages per read):
//! basic `[0,3] [4,11] [12,15] [16,31] [32,47] [48,63]`; extended
//! `[0,3] [4,11] [12,31] [32,47] [48,63] [64,79]`, every window one strip's
//! disk request once aligned.
//!
//! [`RaDeviceState`]: super::RaDeviceState

use super::ondemand::OnDemand;
use super::strip_align::{Fit, StripAligned};
use super::{PageStatus, RaContext, Readahead};
use crate::config::{Config, LinuxVariant, ReadaheadPolicy};
use crate::units::PAGE_BYTES;

/// Weight of the old `D` in the concurrency average (§4.2: C = 0.90).
pub const CONCURRENCY_WEIGHT: f64 = 0.9;
/// Weight of the new sample, `1 − C`, written out (`1.0 − 0.9` is not 0.1
/// in binary floating point).
pub const SAMPLE_WEIGHT: f64 = 0.1;

/// Basic or extended SARA for one open file.
#[derive(Debug, Clone)]
pub struct Sara {
    aligned: StripAligned<OnDemand>,
    /// Extended SARA's dynamic max; `None` for basic SARA.
    dynamic: Option<DynamicMax>,
}

/// Extended SARA's choice between a small and a large `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DynamicMax {
    pub small_max_pages: u64,
    pub large_max_pages: u64,
    /// Pending I/Os per member disk above which concurrency is high.
    pub threshold: f64,
}

impl Sara {
    /// Basic SARA: windows up to `max_pages`, cut to strips of `strip_pages`.
    pub fn basic(max_pages: u64, strip_pages: u64) -> Self {
        Sara {
            aligned: StripAligned::new(OnDemand::new(max_pages, LinuxVariant::V3_10), Fit::Cut, strip_pages),
            dynamic: None,
        }
    }

    /// Extended SARA: windows extended to strip ends, `max` chosen by
    /// concurrency.
    pub fn extended(dynamic: DynamicMax, strip_pages: u64, extend_aligned: bool) -> Self {
        let inner = OnDemand::new(dynamic.large_max_pages, LinuxVariant::V3_10);
        Sara {
            aligned: StripAligned::new(inner, Fit::Extend { aligned: extend_aligned }, strip_pages),
            dynamic: Some(dynamic),
        }
    }

    /// The policy `readahead.policy = "sara-basic" | "sara-extended"` names.
    pub fn from_config(cfg: &Config) -> Self {
        let s = &cfg.sara;
        let strip_pages = (cfg.sara_strip_bytes() / PAGE_BYTES).max(1);
        let max_pages = (cfg.readahead_max_bytes() / PAGE_BYTES).max(1);
        if cfg.readahead.policy == ReadaheadPolicy::SaraBasic {
            return Sara::basic(max_pages, strip_pages);
        }
        let dynamic = DynamicMax {
            small_max_pages: max_pages,
            large_max_pages: strip_pages * cfg.sara_factor() as u64,
            threshold: s.threshold,
        };
        Sara::extended(dynamic, strip_pages, s.extend_aligned)
    }
}

impl Readahead for Sara {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        if let (Some(d), PageStatus::Missing | PageStatus::Marker) = (self.dynamic, status) {
            let n = ctx.pending_ios_per_disk();
            let dev = ctx.device_state();
            dev.sara_concurrency = CONCURRENCY_WEIGHT * dev.sara_concurrency + SAMPLE_WEIGHT * n;
            let high = dev.sara_concurrency > d.threshold;
            if high {
                dev.sara_small_max_choices += 1;
            } else {
                dev.sara_large_max_choices += 1;
            }
            dev.sara_pending_sum += n;
            dev.sara_pending_max = dev.sara_pending_max.max(n);
            dev.sara_concurrency_sum += dev.sara_concurrency;
            dev.sara_concurrency_max = dev.sara_concurrency_max.max(dev.sara_concurrency);
            self.aligned.set_max_pages(if high { d.small_max_pages } else { d.large_max_pages });
        }
        self.aligned.on_page(ctx, index, req_pages, status);
    }
    fn ignores_cached_pages(&self) -> bool {
        self.aligned.ignores_cached_pages()
    }
    fn on_fallback_miss(&mut self, index: u64) {
        self.aligned.on_fallback_miss(index)
    }
    fn on_read_end(&mut self, end_pos_bytes: u64) {
        self.aligned.on_read_end(end_pos_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::MockFile;
    use super::super::WindowKind;
    use super::*;

    fn windows(f: &MockFile) -> Vec<(u64, u64, Option<u64>)> {
        f.windows.iter().map(|(w, _, _)| (w.start, w.start + w.size - 1, w.marker())).collect()
    }

    fn fixed_max(max: u64) -> DynamicMax {
        DynamicMax { small_max_pages: max, large_max_pages: max, threshold: 4.0 }
    }

    /// §4.3 basic column: the window [12,27] is cut to [12,15], and the next
    /// one grows from the intact 16.
    #[test]
    fn golden_ieice13_fig4_basic() {
        let mut f = MockFile::new(1000);
        let mut ra = Sara::basic(16, 16);
        f.read_sequential(&mut ra, 2, 40);
        assert_eq!(
            &windows(&f)[..6],
            &[
                (0, 3, Some(2)),
                (4, 11, Some(4)),
                (12, 15, Some(12)),
                (16, 31, Some(16)),
                (32, 47, Some(32)),
                (48, 63, Some(48))
            ]
        );
        assert!(f.windows[2..6].iter().all(|w| f.strips_touched(w.0.start, w.0.start + w.0.size) == 1));
        assert!(f.fallback_reads.is_empty());
    }

    /// §4.3 extended column: [12,27] becomes [12,31] (intact 16 + fs 4), then
    /// aligned 16-page windows.
    #[test]
    fn golden_ieice13_fig5_extended() {
        let mut f = MockFile::new(1000);
        let mut ra = Sara::extended(fixed_max(16), 16, true);
        f.read_sequential(&mut ra, 2, 40);
        assert_eq!(
            &windows(&f)[..6],
            &[
                (0, 3, Some(2)),
                (4, 11, Some(4)),
                (12, 31, Some(12)),
                (32, 47, Some(32)),
                (48, 63, Some(48)),
                (64, 79, Some(64))
            ]
        );
        assert_eq!(f.strips_touched(12, 32), 2);
        assert!(f.windows[3..6].iter().all(|w| f.strips_touched(w.0.start, w.0.start + w.0.size) == 1));
        assert!(f.windows[1..].iter().all(|w| w.1 == WindowKind::Async));
    }

    /// On a file broken every 8 pages, basic SARA's windows stay at the
    /// fragments, extended SARA's reach past them.
    #[test]
    fn fragmented_file_extended_keeps_windows_large() {
        let run = |mut ra: Sara| {
            let mut f = MockFile::new(400);
            for p in (8..400).step_by(8) {
                f.fragment_at(p, 3);
            }
            f.read_sequential(&mut ra, 2, 200);
            let sizes: Vec<u64> = f.windows.iter().map(|w| w.0.size).collect();
            sizes.iter().skip(4).sum::<u64>() as f64 / (sizes.len() - 4) as f64
        };
        let basic = run(Sara::basic(16, 16));
        let extended = run(Sara::extended(fixed_max(16), 16, true));
        assert!(basic <= 8.0, "basic {basic}");
        assert!(extended > 16.0, "extended {extended}");
    }

    /// The concurrency average picks the max: low → large, high → small,
    /// the tie low (decisions.md #4b); `D` is the device's.
    #[test]
    fn dynamic_max_follows_pending_ios_per_disk() {
        let d = DynamicMax { small_max_pages: 16, large_max_pages: 64, threshold: 4.0 };
        let mut f = MockFile::new(100_000);
        let mut ra = Sara::extended(d, 16, true);
        let mut pos = 0;
        for _ in 0..200 {
            f.read(&mut ra, pos, 2);
            pos += 2;
        }
        assert_eq!(f.device.sara_concurrency, 0.0);
        // large max 64, extended by a strip: max + strip
        assert_eq!(f.windows.iter().map(|w| w.0.size).max(), Some(80));
        f.pending_per_disk = 40.0;
        let before = f.windows.len();
        f.read(&mut ra, pos, 2);
        f.read(&mut ra, pos + 2, 2);
        pos += 4;
        // one demand at most so far (D = 4.0, the tie: still the large max)
        assert!(f.device.sara_concurrency <= 4.0 || f.windows.len() > before);
        for _ in 0..400 {
            f.read(&mut ra, pos, 2);
            pos += 2;
        }
        assert!(f.device.sara_concurrency > 4.0);
        let late = &f.windows[before + 2..];
        assert!(!late.is_empty() && late.iter().all(|w| w.0.size == 16), "{:?}", f.triples());
    }

    #[test]
    fn the_tie_is_low_concurrency() {
        let d = DynamicMax { small_max_pages: 16, large_max_pages: 64, threshold: 4.0 };
        let mut f = MockFile::new(1000);
        f.pending_per_disk = 40.0; // D = 0.1 · 40 = 4.0 = threshold
        let mut ra = Sara::extended(d, 16, true);
        f.read(&mut ra, 0, 2);
        assert_eq!(f.device.sara_concurrency, 4.0);
        assert_eq!(f.windows[0].0.size, 8, "initial window of a 2-page read under the large max 64");
        f.evict(0..1000);
        f.read(&mut ra, 0, 2);
        assert!(f.device.sara_concurrency > 4.0);
        assert_eq!(f.windows[1].0.size, 4, "under the small max 16");
        // the device's counters: one choice of each max, N = 40 both times,
        // D = 4.0 then 0.9 · 4 + 4 = 7.6
        let state = f.device.state_json();
        assert_eq!(
            (state["sara_large_max_choices"].as_u64(), state["sara_small_max_choices"].as_u64()),
            (Some(1), Some(1))
        );
        assert_eq!(
            (state["sara_pending_ios_mean"].as_f64(), state["sara_pending_ios_max"].as_f64()),
            (Some(40.0), Some(40.0))
        );
        assert_eq!(
            (state["sara_concurrency_mean"].as_f64(), state["sara_concurrency_max"].as_f64()),
            (Some(5.8), Some(7.6))
        );
        assert_eq!(state["sara_concurrency_final"].as_f64(), Some(7.6));
    }

    #[test]
    fn basic_sara_keeps_no_device_counters() {
        let mut f = MockFile::new(1000);
        let mut ra = Sara::basic(16, 16);
        f.read(&mut ra, 0, 2);
        assert_eq!(f.device.state_json(), serde_json::json!({}));
    }
}
