//! File-level readahead (algorithms.md §1–§2), one file per scheme:
//!
//! | policy | file | spec |
//! |---|---|---|
//! | `none` | [`none`] | §2 "No prefetching" |
//! | `obl` | [`obl`] | §2 OBL, miss-triggered (decisions.md #6f) |
//! | `seqp` | [`seqp`] | \[TC09\] Fig. 3 didactic synchronous SEQP (decisions.md #3) |
//! | `linux` 2.6.18 | [`linux_2_6_18`] | §1.2 old ahead-window readahead |
//! | `linux` 2.6.24 / 3.10 / 3.12 | [`ondemand`] | §1.3 on-demand readahead |
//! | `saseqp` | [`saseqp`] | §3.1 SASEQP: 2.6.18 (or SEQP) windows cut at the first strip change |
//! | `sara-basic` / `sara-extended` | [`sara`] | §4 SARA on the on-demand readahead |
//!
//! The window-size helpers both Linux schemes use (§1.1) are in [`sizing`].
//! Strip alignment, shared by SASEQP and SARA, is one wrapper around any
//! window policy: [`strip_align::StripAligned`] sits between a policy's
//! window sizing and the submission, and [`RaContext::submit`] hands the
//! policy back the window as it went out, so the policy advances by the
//! actual window and grows from its own uncut size (`intact_size`).
//!
//! The page cache drives a policy through [`Readahead`]: for every page of a
//! buffered read it reports the page's state, and the policy answers by
//! submitting windows through [`RaContext`]. All offsets and sizes are in
//! file pages (4 KiB).

pub mod linux_2_6_18;
pub mod none;
pub mod obl;
pub mod ondemand;
pub mod sara;
pub mod saseqp;
pub mod seqp;
pub mod sizing;
pub mod strip_align;

use crate::config::{Config, LinuxVariant, ReadaheadPolicy, SaseqpBase};
use crate::units::PAGE_BYTES;

/// What the page cache found for one page of a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PageStatus {
    /// Not in the cache (neither uptodate nor in flight).
    Missing,
    /// In the cache (uptodate or being read), without a readahead marker.
    Cached,
    /// In the cache and carrying the PG_readahead marker. The page cache has
    /// already cleared the marker when the policy sees this (as the kernel's
    /// async entry does first thing).
    Marker,
}

/// Why a window was submitted (for the io_log and the metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowKind {
    /// Read because the reader needs it now (a miss).
    Sync,
    /// Read ahead of the reader (a marker hit / ahead window).
    Async,
}

/// A readahead window `[start, start+size)`; the marker goes on page
/// `start + size - async_size` when `async_size > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Window {
    pub start: u64,
    pub size: u64,
    pub async_size: u64,
}

impl Window {
    pub fn new(start: u64, size: u64, async_size: u64) -> Self {
        Window { start, size, async_size }
    }
    /// The page that gets PG_readahead, if any.
    pub fn marker(&self) -> Option<u64> {
        (self.async_size > 0 && self.async_size <= self.size)
            .then(|| self.start + self.size - self.async_size)
    }
}

/// A window as it was submitted: after strip alignment (if any), with the
/// pages actually issued (those not already cached, before EOF).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Submitted {
    pub window: Window,
    pub issued_pages: u64,
}

/// Readahead state kept per block device rather than per open file
/// (\[IEICE13\] keeps SARA's concurrency per device; issue 8's "per-device
/// policy state has a home"). The page cache owns one per array and hands it
/// to every file's policy through [`RaContext::device_state`].
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RaDeviceState {
    /// SARA's smoothed concurrency `D` (pending I/Os per member disk), §4.2.
    pub sara_concurrency: f64,
    /// Extended SARA's choices of `max`, one per readahead demanded: the
    /// large max (low concurrency), the small one (high).
    pub sara_large_max_choices: u64,
    pub sara_small_max_choices: u64,
    /// The `N` (pending I/Os per member disk) and `D` sampled at those
    /// choices: sums and largest.
    pub sara_pending_sum: f64,
    pub sara_pending_max: f64,
    pub sara_concurrency_sum: f64,
    pub sara_concurrency_max: f64,
}

impl RaDeviceState {
    /// The readahead policy's device-wide counters, the `readahead_policy_state`
    /// metric: extended SARA's concurrency and choices of `max`; `{}` when
    /// no policy kept any.
    pub fn state_json(&self) -> serde_json::Value {
        let choices = self.sara_large_max_choices + self.sara_small_max_choices;
        if choices == 0 {
            return serde_json::json!({});
        }
        let round = |x: f64| (x * 1e3).round() / 1e3;
        let mean = |sum: f64| round(sum / choices as f64);
        serde_json::json!({
            "sara_large_max_choices": self.sara_large_max_choices,
            "sara_small_max_choices": self.sara_small_max_choices,
            "sara_pending_ios_mean": mean(self.sara_pending_sum),
            "sara_pending_ios_max": round(self.sara_pending_max),
            "sara_concurrency_mean": mean(self.sara_concurrency_sum),
            "sara_concurrency_max": round(self.sara_concurrency_max),
            "sara_concurrency_final": round(self.sara_concurrency),
        })
    }
}

/// What a readahead policy may ask of the page cache for the file being read.
pub trait RaContext {
    /// Whether `page` is in the cache (uptodate or in flight).
    fn is_cached(&self, page: u64) -> bool;
    /// Pages in the file (EOF = this index).
    fn file_pages(&self) -> u64;
    /// Whether the backing device is read-congested (113/103 hysteresis).
    fn congested(&self) -> bool;
    /// Physical array block of a file page (the file system's bmap).
    fn phys_block(&self, page: u64) -> u64;
    /// Blocks per strip of the array below (for striping-aware schemes).
    fn strip_blocks(&self) -> u64;
    /// Requests pending at the member disks (queued plus in service),
    /// averaged over the members: SARA's `N` (decisions.md #4).
    fn pending_ios_per_disk(&self) -> f64;
    /// The simulated clock, ns.
    fn now_ns(&self) -> u64;
    /// Streams (readers) that have not finished.
    fn active_streams(&self) -> u32;
    /// `max_sane_readahead`'s bound on a window (Linux 2.6.31 on; the
    /// on-demand readahead caps `ra_pages` by it): half of the inactive
    /// file pages plus the free pages of the cache the window's pages go
    /// to. `u64::MAX` where no such bound applies.
    fn sane_max_pages(&self) -> u64;
    /// The block device's readahead state, shared by every file on it.
    fn device_state(&mut self) -> &mut RaDeviceState;
    /// Reads the pages of `window` that are not cached (stopping at EOF),
    /// sets the marker on `window.marker()` if that page was newly
    /// allocated, and returns the window as submitted (a strip-aligning
    /// wrapper may have cut or extended it) with the pages actually issued.
    fn submit(&mut self, window: Window, kind: WindowKind) -> Submitted;
}

/// A readahead policy for one open file.
pub trait Readahead {
    /// Called for page `index` of a buffered read whose last page is
    /// `index + req_pages - 1`, in page order.
    ///
    /// As in the kernel's read loop (§1.3 "Call sites"), a page reported
    /// `Missing` is looked up again after this call: if it is then cached
    /// and carries the marker (a window that put its marker on the page
    /// being read), the page cache clears the marker and reports the same
    /// page again as `Marker`.
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus);
    /// Whether `on_page` does nothing for a page reported `Cached`, so the
    /// page cache may read runs of such pages without calling it (the read
    /// loop's hot path). False unless a policy promises it.
    fn ignores_cached_pages(&self) -> bool {
        false
    }
    /// The page at `index` was still missing after `on_page` and the page
    /// cache read it alone (2.6.18's `handle_ra_miss`).
    fn on_fallback_miss(&mut self, _index: u64) {}
    /// The read ended; `end_pos_bytes` is the position of its last byte (the
    /// kernel's `prev_pos`).
    fn on_read_end(&mut self, _end_pos_bytes: u64) {}
    /// Changes `ra_pages` (the largest window) from the next window on;
    /// extended SARA switches between its small and large max (§4.2).
    fn set_max_pages(&mut self, _max_pages: u64) {}
}

impl<R: Readahead + ?Sized> Readahead for Box<R> {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        (**self).on_page(ctx, index, req_pages, status)
    }
    fn ignores_cached_pages(&self) -> bool {
        (**self).ignores_cached_pages()
    }
    fn on_fallback_miss(&mut self, index: u64) {
        (**self).on_fallback_miss(index)
    }
    fn on_read_end(&mut self, end_pos_bytes: u64) {
        (**self).on_read_end(end_pos_bytes)
    }
    fn set_max_pages(&mut self, max_pages: u64) {
        (**self).set_max_pages(max_pages)
    }
}

/// Builds the readahead policy the configuration names.
pub fn build(cfg: &Config) -> Box<dyn Readahead> {
    let max_pages = (cfg.readahead_max_bytes() / PAGE_BYTES).max(1);
    match cfg.readahead.policy {
        ReadaheadPolicy::None => Box::new(none::NoReadahead),
        ReadaheadPolicy::Obl => Box::new(obl::Obl),
        ReadaheadPolicy::Seqp => Box::new(seqp::Seqp::new(cfg.seqp.init as u64, cfg.seqp.growth, max_pages)),
        ReadaheadPolicy::Linux => match cfg.readahead.variant {
            LinuxVariant::V2_6_18 => Box::new(linux_2_6_18::Linux2618::new(max_pages)),
            v => Box::new(ondemand::OnDemand::new(max_pages, v)),
        },
        ReadaheadPolicy::Saseqp => {
            let strip_pages = (cfg.array.strip.0 / PAGE_BYTES).max(1);
            match cfg.saseqp.base {
                SaseqpBase::Linux => {
                    Box::new(saseqp::saseqp(linux_2_6_18::Linux2618::new(max_pages), strip_pages))
                }
                SaseqpBase::Seqp => Box::new(saseqp::saseqp(
                    seqp::Seqp::new(cfg.seqp.init as u64, cfg.seqp.growth, max_pages),
                    strip_pages,
                )),
            }
        }
        ReadaheadPolicy::SaraBasic | ReadaheadPolicy::SaraExtended => Box::new(sara::Sara::from_config(cfg)),
    }
}

/// A page cache of one file for the policies' unit tests: it runs the
/// kernel's buffered read loop over a set of cached pages, records every
/// submitted window and every page read alone, and marks pages cached.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use crate::units::PAGE_BYTES;
    use std::collections::BTreeSet;

    pub struct MockFile {
        pub pages: u64,
        pub cached: BTreeSet<u64>,
        pub markers: BTreeSet<u64>,
        /// What [`RaContext::congested`] answers; tests flip it between reads.
        pub congested: bool,
        /// What [`RaContext::pending_ios_per_disk`] answers.
        pub pending_per_disk: f64,
        pub device: RaDeviceState,
        pub strip_blocks: u64,
        pub first_block: u64,
        /// Every submitted window, its kind and the pages it issued.
        pub windows: Vec<(Window, WindowKind, u64)>,
        /// Pages still missing after `on_page` and read alone.
        pub fallback_reads: Vec<u64>,
        /// Physical discontinuities: from page `.0` on, blocks move by `.1`.
        pub breaks: Vec<(u64, u64)>,
        /// What [`RaContext::sane_max_pages`] answers (no bound unless set).
        pub sane_max_pages: u64,
    }

    impl MockFile {
        pub fn new(pages: u64) -> Self {
            MockFile {
                pages,
                cached: BTreeSet::new(),
                markers: BTreeSet::new(),
                congested: false,
                pending_per_disk: 0.0,
                device: RaDeviceState::default(),
                strip_blocks: 16,
                first_block: 0,
                windows: vec![],
                fallback_reads: vec![],
                breaks: vec![],
                sane_max_pages: u64::MAX,
            }
        }

        /// One buffered read of `len_bytes` bytes at byte `pos_bytes`, as the
        /// kernel's loop does it: pages `pos/4K .. ceil((pos+len)/4K)` (cut at
        /// EOF) are each reported; a missing page is looked up again after
        /// the policy ran (sync readahead, then the async check on the page
        /// found, then a page still missing is read alone); finally the
        /// position of the last byte is reported.
        pub fn read_bytes(&mut self, ra: &mut dyn Readahead, pos_bytes: u64, len_bytes: u64) {
            let first = pos_bytes / PAGE_BYTES;
            let last_index = (pos_bytes + len_bytes).div_ceil(PAGE_BYTES).min(self.pages);
            if len_bytes == 0 || first >= last_index {
                return;
            }
            for idx in first..last_index {
                let req = last_index - idx;
                if !self.cached.contains(&idx) {
                    ra.on_page(self, idx, req, PageStatus::Missing);
                    if !self.cached.contains(&idx) {
                        self.cached.insert(idx);
                        self.fallback_reads.push(idx);
                        ra.on_fallback_miss(idx);
                    } else if self.markers.remove(&idx) {
                        ra.on_page(self, idx, req, PageStatus::Marker);
                    }
                } else if self.markers.remove(&idx) {
                    ra.on_page(self, idx, req, PageStatus::Marker);
                } else {
                    ra.on_page(self, idx, req, PageStatus::Cached);
                }
            }
            let end = (pos_bytes + len_bytes).min(self.pages * PAGE_BYTES);
            ra.on_read_end(end - 1);
        }

        /// One read of `req` whole pages from page `pos`.
        pub fn read(&mut self, ra: &mut dyn Readahead, pos: u64, req: u64) {
            self.read_bytes(ra, pos * PAGE_BYTES, req * PAGE_BYTES);
        }

        /// Drives `ra` through a sequential read from page 0 in `req`-page
        /// calls (at most `calls` of them, stopping at EOF).
        pub fn read_sequential(&mut self, ra: &mut dyn Readahead, req: u64, calls: usize) {
            let mut pos = 0;
            for _ in 0..calls {
                if pos >= self.pages {
                    break;
                }
                self.read(ra, pos, req);
                pos += req;
            }
        }

        /// Submitted windows as `(start, end, kind)`, `end` cut at EOF.
        pub fn ranges(&self) -> Vec<(u64, u64, WindowKind)> {
            self.windows.iter().map(|(w, k, _)| (w.start, (w.start + w.size).min(self.pages), *k)).collect()
        }

        /// Submitted windows as `(start, size, async_size)`.
        pub fn triples(&self) -> Vec<(u64, u64, u64)> {
            self.windows.iter().map(|(w, _, _)| (w.start, w.size, w.async_size)).collect()
        }

        /// Disk requests a window `[start, end)` costs: one per distinct
        /// strip its physical blocks touch (algorithms.md §0; the file is
        /// contiguous from `first_block`).
        pub fn strips_touched(&self, start: u64, end: u64) -> u64 {
            if end <= start {
                return 0;
            }
            let first = self.phys_block(start) / self.strip_blocks;
            let last = self.phys_block(end - 1) / self.strip_blocks;
            last - first + 1
        }

        /// Physically moves the file from page `page` on by `gap` blocks
        /// (a fragmented file: a discontinuity before `page`).
        pub fn fragment_at(&mut self, page: u64, gap: u64) {
            self.breaks.push((page, gap));
        }

        /// Drops pages from the cache (eviction before use: thrashing).
        pub fn evict(&mut self, pages: std::ops::Range<u64>) {
            for p in pages {
                self.cached.remove(&p);
                self.markers.remove(&p);
            }
        }
    }

    impl RaContext for MockFile {
        fn is_cached(&self, page: u64) -> bool {
            self.cached.contains(&page)
        }
        fn file_pages(&self) -> u64 {
            self.pages
        }
        fn congested(&self) -> bool {
            self.congested
        }
        fn phys_block(&self, page: u64) -> u64 {
            let gap: u64 = self.breaks.iter().filter(|b| b.0 <= page).map(|b| b.1).sum();
            self.first_block + page + gap
        }
        fn strip_blocks(&self) -> u64 {
            self.strip_blocks
        }
        fn pending_ios_per_disk(&self) -> f64 {
            self.pending_per_disk
        }
        fn now_ns(&self) -> u64 {
            0
        }
        fn active_streams(&self) -> u32 {
            1
        }
        fn sane_max_pages(&self) -> u64 {
            self.sane_max_pages
        }
        fn device_state(&mut self) -> &mut RaDeviceState {
            &mut self.device
        }
        fn submit(&mut self, w: Window, kind: WindowKind) -> Submitted {
            let mut issued = 0;
            for p in w.start..(w.start + w.size).min(self.pages) {
                if self.cached.insert(p) {
                    issued += 1;
                    if Some(p) == w.marker() {
                        self.markers.insert(p);
                    }
                }
            }
            self.windows.push((w, kind, issued));
            Submitted { window: w, issued_pages: issued }
        }
    }
}
