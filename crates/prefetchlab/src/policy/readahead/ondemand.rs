//! Linux on-demand readahead, 2.6.23 → 3.x (algorithms.md §1.3), in three
//! variants (decisions.md #11): `2.6.24`, `3.10` (default: the 2.6.31–3.11
//! logic that SARA \[IEICE13\] modified) and `3.12` (conservative context
//! readahead).
//!
//! Each piece of §1.3, in the kernel's order:
//!
//! * **Call sites** (driven by the page cache through [`Readahead`]): a
//!   `Missing` page is the **sync entry**, a `Marker` page (marker already
//!   cleared by the page cache) the **async entry**; [`Readahead::on_read_end`]
//!   records `prev_pos`. With `ra_pages == 0` neither entry does anything.
//!   FADV_RANDOM and writeback pages are not modelled.
//! * **Async entry congestion rule** (§1.3, decisions.md #11b): if the queue
//!   is read-congested the async entry returns without reading; the marker is
//!   gone, so the trigger is lost and the stream continues by a sync miss at
//!   the window end (an "expected offset").
//! * **`ondemand(offset, req, hit_marker)`** steps 1–9: `ondemand`,
//!   with `max = ra_pages`, from 2.6.31 on (3.10, 3.12) bounded by
//!   `max_sane_readahead`: half of the inactive file pages plus the free
//!   pages ([`RaContext::sane_max_pages`]; the kernel's guard against a huge
//!   `ra_pages`, which only bites when the page cache is smaller than about
//!   four windows; algorithms.md §1.3 leaves it out "unless memory is
//!   modelled", and the page cache models it). Sizes from [`sizing`](super::sizing) (§1.1).
//! * **Submit** (`__do_page_cache_readahead`: skip cached pages, stop at EOF,
//!   marker on `start + size − async_size` if newly allocated) is
//!   [`RaContext::submit`].
//!
//! **Version differences** (§1.3 table), as implemented:
//!
//! | aspect | 2.6.24 | 3.10 | 3.12 |
//! |---|---|---|---|
//! | offset 0 → *initial* | no (sequential via `prev_pos = −1`) | yes | yes |
//! | expected-offset test | yes, skipped at offset 0 | yes | yes |
//! | marker-hit scan | hole from `offset`, `max+1` pages; `size = hole − offset` | from `offset+1`, `max` pages; `+ req` | as 3.10 |
//! | sequential test | `offset − prev ≤ 1 or req > max` in one test | oversize, then sequential miss | as 3.10 |
//! | context readahead | none | v1 | v2 (`history > req`, `async_size = 1`) |
//! | self-marker merge at *readit* | no | yes | yes (no cap: the 4.10 cap is later) |
//! | async congestion check | yes | yes | yes |
//!
//! Without the merge (2.6.24) a sync window can put its marker on the very
//! page being read; the page cache then reports that page again as
//! `Marker` (see [`Readahead::on_page`]) and the async entry runs at once,
//! as the kernel's read loop does.
//!
//! The sequential-miss test `offset − (prev_pos >> PAGE_SHIFT) <= 1` is done
//! in unsigned 64-bit arithmetic, as on a 64-bit kernel (§1.3 step 5); the
//! 3.13 fix of this test ("readahead: fix sequential read cache miss
//! detection") only changed 32-bit kernels, where the difference was signed.
//!
//! Window kinds: windows from the sync entry are [`WindowKind::Sync`], from
//! the async entry [`WindowKind::Async`].
//!
//! Golden (§1.3): \[IEICE13\] Fig. 1 (max 32, 2 pages per call)
//! `[0,3]` async 2, `[4,11]`, `[12,27]`, `[28,59]`, `[60,91]`, …; one page per
//! call the windows of the 2.6.18 trace; \[IEICE13\] Fig. 3 (max 16)
//! `[0,3] [4,11] [12,27] [28,43] [44,59] [60,75]`.

use super::sizing::{get_init_ra_size, get_next_ra_size};
use super::{PageStatus, RaContext, Readahead, Window, WindowKind};
use crate::config::LinuxVariant;
use crate::units::PAGE_BYTES;

/// The kernel generations this module distinguishes (§1.3 table columns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Generation {
    /// 2.6.23/24.
    V2_6_24,
    /// 2.6.31–3.11.
    V3_10,
    /// 3.12–4.9.
    V3_12,
}

/// The per-file `file_ra_state` of the on-demand kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnDemand {
    /// `ra_pages`.
    max_pages: u64,
    generation: Generation,
    /// Last window `[start, start+size)`, marker at `start+size-async_size`,
    /// as submitted.
    start: u64,
    size: u64,
    async_size: u64,
    /// The last window's size before a strip-aligning wrapper changed it
    /// (SARA's `intact_size`, §4.1): the next size grows from it. Equal to
    /// `size` when nothing aligns the windows.
    intact_size: u64,
    /// Byte position of the end of the previous read; −1 before the first.
    prev_pos: i64,
}

impl OnDemand {
    /// `variant` 2.6.18 is not an on-demand kernel (the factory builds
    /// [`super::linux_2_6_18`] for it); here it falls back to the default 3.10.
    pub fn new(max: u64, variant: LinuxVariant) -> Self {
        let generation = match variant {
            LinuxVariant::V2_6_24 => Generation::V2_6_24,
            LinuxVariant::V3_12 => Generation::V3_12,
            LinuxVariant::V3_10 | LinuxVariant::V2_6_18 => Generation::V3_10,
        };
        OnDemand {
            max_pages: max,
            generation,
            start: 0,
            size: 0,
            async_size: 0,
            intact_size: 0,
            prev_pos: -1,
        }
    }

    /// `prev_pos >> PAGE_SHIFT` as the kernel's `pgoff_t`: an arithmetic
    /// shift of the signed position, so −1 becomes `u64::MAX`.
    fn prev_index(&self) -> u64 {
        (self.prev_pos >> PAGE_BYTES.trailing_zeros()) as u64
    }

    /// `ondemand_readahead`, §1.3 steps 1–9 with the version differences.
    fn ondemand(
        &mut self,
        ctx: &mut dyn RaContext,
        offset: u64,
        req: u64,
        hit_marker: bool,
        kind: WindowKind,
    ) {
        let v2_6_24 = self.generation == Generation::V2_6_24;
        // max_sane_readahead(ra->ra_pages), since 2.6.31
        let max = if v2_6_24 { self.max_pages } else { self.max_pages.min(ctx.sane_max_pages()) };

        // 1. Start of file (2.6.31+).
        if offset == 0 && !v2_6_24 {
            self.initial(offset, req, max);
            return self.readit(ctx, offset, kind, max);
        }

        // 2. Expected offset: the marker page or the page after the window
        // (2.6.24 skips the test at offset 0; later kernels never get here
        // with offset 0).
        let window_end = self.start.wrapping_add(self.size);
        if offset != 0 && (offset == window_end.wrapping_sub(self.async_size) || offset == window_end) {
            self.start = window_end;
            self.size = get_next_ra_size(self.intact_size, max);
            self.async_size = self.size;
            return self.readit(ctx, offset, kind, max);
        }

        // 3. Marker hit that does not match the state: ask the page cache.
        if hit_marker {
            let (hole, old_async) = if v2_6_24 {
                let hole = next_hole(ctx, offset, max + 1);
                (hole, hole - offset)
            } else {
                let hole = next_hole(ctx, offset + 1, max);
                (hole, hole - offset + req)
            };
            if hole - offset > max {
                return;
            }
            self.start = hole;
            self.size = get_next_ra_size(old_async, max);
            self.async_size = self.size;
            return self.readit(ctx, offset, kind, max);
        }

        let sequential_miss = offset.wrapping_sub(self.prev_index()) <= 1;
        if v2_6_24 {
            // 4+5 in one test (2.6.24): sequential or oversize → initial;
            // otherwise 7, a small random read.
            if !(sequential_miss || req > max) {
                return self.random_read(ctx, offset, req, kind);
            }
        } else if req > max {
            // 4. Oversize read → initial.
        } else if sequential_miss {
            // 5. Sequential cache miss → initial.
        } else if self.try_context_readahead(ctx, offset, req, max) {
            // 6. Context readahead → readit.
            return self.readit(ctx, offset, kind, max);
        } else {
            // 7. Standalone small random read.
            return self.random_read(ctx, offset, req, kind);
        }

        // 8. initial
        self.initial(offset, req, max);
        self.readit(ctx, offset, kind, max)
    }

    /// Step 8, *initial*: a fresh window sized for the request; the marker
    /// goes on the first page after the request (or on `start` when the
    /// window is not larger than the request).
    fn initial(&mut self, offset: u64, req: u64, max: u64) {
        self.start = offset;
        self.size = get_init_ra_size(req, max);
        self.async_size = if self.size > req { self.size - req } else { self.size };
    }

    /// Step 9, *readit*: if this read would hit the window's own marker
    /// (`offset == start`, `size == async_size`), merge the next window in
    /// now (2.6.31+); then submit.
    ///
    /// The state keeps the window as submitted (a strip-aligning wrapper may
    /// have cut or extended it) and, in `intact_size`, the size before that.
    fn readit(&mut self, ctx: &mut dyn RaContext, offset: u64, kind: WindowKind, max: u64) {
        if self.generation != Generation::V2_6_24 && offset == self.start && self.size == self.async_size {
            let add = get_next_ra_size(self.size, max);
            self.async_size = add;
            self.size += add;
        }
        self.intact_size = self.size;
        if self.size == 0 {
            // max_sane_readahead of a cache of one page: `__do_page_cache_readahead`
            // of nothing; the read loop reads the page alone
            return;
        }
        let w = ctx.submit(Window::new(self.start, self.size, self.async_size), kind).window;
        self.size = w.size;
        self.async_size = w.async_size;
    }

    /// Step 7: read exactly the request, no marker, state untouched.
    fn random_read(&mut self, ctx: &mut dyn RaContext, offset: u64, req: u64, kind: WindowKind) {
        ctx.submit(Window::new(offset, req, 0), kind);
    }

    /// Step 6, `try_context_readahead`: size the window from the pages a
    /// sequential stream would have left cached just before `offset`.
    fn try_context_readahead(&mut self, ctx: &mut dyn RaContext, offset: u64, req: u64, max: u64) -> bool {
        let mut history = count_history_pages(ctx, offset, max);
        match self.generation {
            Generation::V2_6_24 => false,
            Generation::V3_10 => {
                if history == 0 {
                    return false;
                }
                if history >= offset {
                    history *= 2;
                }
                self.start = offset;
                self.size = get_init_ra_size(history + req, max);
                self.async_size = self.size;
                true
            }
            Generation::V3_12 => {
                if history <= req {
                    return false;
                }
                if history >= offset {
                    history *= 2;
                }
                self.start = offset;
                self.size = (history + req).min(max);
                self.async_size = 1;
                true
            }
        }
    }
}

/// `radix_tree_next_hole(from, max_scan)`: the first page in
/// `[from, from + max_scan)` that is not cached, else `from + max_scan`.
fn next_hole(ctx: &dyn RaContext, from: u64, max_scan: u64) -> u64 {
    (from..from + max_scan).find(|&p| !ctx.is_cached(p)).unwrap_or(from + max_scan)
}

/// `count_history_pages`: contiguously cached pages right before `offset`,
/// counted backward from `offset − 1`, at most `max`; a run that reaches
/// page 0 counts `offset` (the kernel's `radix_tree_prev_hole` wraps to −1).
fn count_history_pages(ctx: &dyn RaContext, offset: u64, max: u64) -> u64 {
    let mut n = 0;
    while n < max && n < offset && ctx.is_cached(offset - 1 - n) {
        n += 1;
    }
    n
}

impl Readahead for OnDemand {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        if self.max_pages == 0 {
            return;
        }
        match status {
            // page_cache_sync_readahead
            PageStatus::Missing => self.ondemand(ctx, index, req_pages, false, WindowKind::Sync),
            // page_cache_async_readahead: marker already cleared; a congested
            // queue loses the trigger.
            PageStatus::Marker => {
                if !ctx.congested() {
                    self.ondemand(ctx, index, req_pages, true, WindowKind::Async);
                }
            }
            PageStatus::Cached => {}
        }
    }

    /// Only a missing page or a marker starts a read.
    fn ignores_cached_pages(&self) -> bool {
        true
    }

    fn on_read_end(&mut self, end_pos_bytes: u64) {
        self.prev_pos = end_pos_bytes as i64;
    }

    fn set_max_pages(&mut self, max_pages: u64) {
        self.max_pages = max_pages;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::MockFile;
    use super::*;
    use LinuxVariant::{V2_6_24, V3_10, V3_12};
    use WindowKind::{Async, Sync};

    fn windows_with_markers(f: &MockFile) -> Vec<(u64, u64, u64, Option<u64>, WindowKind)> {
        f.windows
            .iter()
            .map(|(w, k, _)| (w.start, w.start + w.size - 1, w.async_size, w.marker(), *k))
            .collect()
    }

    /// \[IEICE13\] Fig. 1: max 32, two pages per call. Inclusive ranges as in
    /// the figure.
    #[test]
    fn golden_ieice13_fig1() {
        for v in [V2_6_24, V3_10, V3_12] {
            let mut f = MockFile::new(1000);
            let mut ra = OnDemand::new(32, v);
            f.read_sequential(&mut ra, 2, 62);
            let got = windows_with_markers(&f);
            assert_eq!(
                &got[..6],
                &[
                    (0, 3, 2, Some(2), Sync),
                    (4, 11, 8, Some(4), Async),
                    (12, 27, 16, Some(12), Async),
                    (28, 59, 32, Some(28), Async),
                    (60, 91, 32, Some(60), Async),
                    (92, 123, 32, Some(92), Async),
                ],
                "variant {v:?}"
            );
            assert!(f.fallback_reads.is_empty());
            // Every 32-page window issued in full, reads never miss after 0.
            assert!(f.windows.iter().all(|w| w.2 == w.0.size));
        }
    }

    /// `max_sane_readahead` (2.6.31 on): with 12 pages of half the inactive
    /// and free pages, max 32 reads as max 12 — the ramp stops at it, and a
    /// 20-page read at the start of a file gets a first window of 12 and the
    /// 12 merged into it, the context readahead a window of 12, and a marker
    /// hit that does not match the state scans 12 pages for a hole; a bound
    /// of 0 reads no window; 2.6.24's windows still grow to 32.
    #[test]
    fn a_small_cache_bounds_the_window_from_2_6_31_on() {
        for v in [V3_10, V3_12] {
            let mut f = MockFile::new(1000);
            f.sane_max_pages = 12;
            let mut ra = OnDemand::new(32, v);
            f.read_sequential(&mut ra, 2, 40);
            let got = windows_with_markers(&f);
            assert_eq!(
                &got[..4],
                &[
                    (0, 3, 2, Some(2), Sync),
                    (4, 11, 8, Some(4), Async),
                    (12, 23, 12, Some(12), Async),
                    (24, 35, 12, Some(24), Async)
                ],
                "variant {v:?}"
            );
            assert!(f.windows.iter().all(|w| w.0.size <= 12), "variant {v:?}");
            // a 20-page read: the initial window is the bound, 12 (32 without it),
            // its marker on its own first page, so the next 12 are merged in at once
            let mut f = MockFile::new(1000);
            f.sane_max_pages = 12;
            let mut ra = OnDemand::new(32, v);
            f.read(&mut ra, 0, 20);
            assert_eq!((f.windows[0].0.size, f.windows[0].0.async_size), (24, 12), "variant {v:?}");
            let mut f = MockFile::new(1000);
            let mut ra = OnDemand::new(32, v);
            f.read(&mut ra, 0, 20);
            assert_eq!((f.windows[0].0.size, f.windows[0].0.async_size), (32, 12), "variant {v:?}");
        }
        // context readahead (a read at 50 after pages 0..50 were cached by others): the
        // history counted and the window sized up to the bound, 12 (3.10 then merges the
        // next 12 in, its marker on its own first page); 32 and 64 without it
        for (v, bounded, free) in [(V3_10, 24, 64), (V3_12, 12, 32)] {
            for (sane, size) in [(12, bounded), (u64::MAX, free)] {
                let mut f = MockFile::new(1000);
                f.cached.extend(0..50);
                f.sane_max_pages = sane;
                let mut ra = OnDemand::new(32, v);
                f.read(&mut ra, 50, 2);
                assert_eq!((f.windows[0].0.start, f.windows[0].0.size), (50, size), "{v:?} bound {sane}");
            }
        }
        // a marker on page 20 of a fresh state with pages 0..40 cached: the hole scan
        // covers 12 pages (21..33, all cached), 33 - 20 > 12: no window; unbounded it
        // finds the hole at 40 and reads from there
        for (sane, windows) in [(12, vec![]), (u64::MAX, vec![40])] {
            let mut f = MockFile::new(1000);
            f.cached.extend(0..40);
            f.markers.insert(20);
            f.sane_max_pages = sane;
            let mut ra = OnDemand::new(32, V3_10);
            f.read(&mut ra, 20, 2);
            assert_eq!(f.windows.iter().map(|w| w.0.start).collect::<Vec<u64>>(), windows, "bound {sane}");
        }
        // a bound of 0 (a page cache of one page): no window at all, every page read alone
        let mut f = MockFile::new(1000);
        f.sane_max_pages = 0;
        let mut ra = OnDemand::new(32, V3_10);
        f.read_sequential(&mut ra, 2, 10);
        assert!(f.windows.is_empty());
        assert_eq!(f.fallback_reads, (0..20).collect::<Vec<u64>>());
        let mut f = MockFile::new(1000);
        f.sane_max_pages = 12;
        let mut ra = OnDemand::new(32, V2_6_24);
        f.read_sequential(&mut ra, 2, 62);
        assert_eq!(f.windows.iter().map(|w| w.0.size).max(), Some(32));
    }

    /// One page per call, max 32: the windows of the 2.6.18 trace (§1.2),
    /// issued at the same calls (0, 1, 4, 12, 28, …), here by marker hits.
    #[test]
    fn golden_one_page_per_call() {
        let mut f = MockFile::new(1000);
        let mut ra = OnDemand::new(32, V3_10);
        let mut issued_at = vec![];
        for pos in 0..100 {
            let before = f.windows.len();
            f.read(&mut ra, pos, 1);
            if f.windows.len() != before {
                issued_at.push(pos);
            }
        }
        assert_eq!(
            &windows_with_markers(&f)[..5],
            &[
                (0, 3, 3, Some(1), Sync),
                (4, 11, 8, Some(4), Async),
                (12, 27, 16, Some(12), Async),
                (28, 59, 32, Some(28), Async),
                (60, 91, 32, Some(60), Async),
            ]
        );
        assert_eq!(issued_at, vec![0, 1, 4, 12, 28, 60, 92]);
        // Same windows as the old readahead.
        let mut g = MockFile::new(1000);
        let mut old = super::super::linux_2_6_18::Linux2618::new(32);
        g.read_sequential(&mut old, 1, 100);
        let spans =
            |m: &MockFile| -> Vec<(u64, u64)> { m.windows.iter().map(|w| (w.0.start, w.0.size)).collect() };
        assert_eq!(spans(&f), spans(&g));
    }

    /// \[IEICE13\] Fig. 3: max 16, two pages per call, RAID-0 of 2 disks with
    /// 16-page strips, file from LBA 0: from [12,27] on every window costs 2
    /// disk requests.
    #[test]
    fn golden_ieice13_fig3() {
        let mut f = MockFile::new(1000);
        f.strip_blocks = 16;
        let mut ra = OnDemand::new(16, V3_10);
        f.read_sequential(&mut ra, 2, 38);
        let spans: Vec<(u64, u64)> = f.ranges().iter().map(|r| (r.0, r.1 - 1)).collect();
        assert_eq!(&spans[..6], &[(0, 3), (4, 11), (12, 27), (28, 43), (44, 59), (60, 75)]);
        let reqs: Vec<u64> = spans[..6].iter().map(|&(s, e)| f.strips_touched(s, e + 1)).collect();
        assert_eq!(reqs, vec![1, 1, 2, 2, 2, 2]);
    }

    /// A congested queue drops the async trigger for good; the stream goes on
    /// by a sync miss at the window end, which the expected-offset test
    /// treats as sequential. 3.10 merges the next window in (one read);
    /// 2.6.24 puts the marker on the page being read and triggers at once.
    #[test]
    fn congestion_loses_the_trigger_then_sync_miss_continues() {
        let run = |v| {
            let mut f = MockFile::new(1000);
            let mut ra = OnDemand::new(32, v);
            f.read_sequential(&mut ra, 1, 4); // [0,4) and [4,12) marker 4
            f.congested = true;
            f.read(&mut ra, 4, 1); // trigger on 4 lost
            assert_eq!(f.windows.len(), 2);
            assert!(f.markers.is_empty(), "the marker was cleared");
            f.congested = false;
            for pos in 5..12 {
                f.read(&mut ra, pos, 1); // cached, no marker: nothing
            }
            assert_eq!(f.windows.len(), 2);
            f.read(&mut ra, 12, 1); // sync miss at the window end
            assert!(f.fallback_reads.is_empty());
            (f, ra)
        };
        let (f, _) = run(V3_10);
        assert_eq!(&windows_with_markers(&f)[2..], &[(12, 59, 32, Some(28), Sync)]);
        let (f, _) = run(V2_6_24);
        assert_eq!(
            &windows_with_markers(&f)[2..],
            &[(12, 27, 16, Some(12), Sync), (28, 59, 32, Some(28), Async)]
        );
        // And the 3.10 stream goes on from the merged window's marker.
        let (mut f, mut ra) = run(V3_10);
        for pos in 13..29 {
            f.read(&mut ra, pos, 1);
        }
        assert_eq!(windows_with_markers(&f).last(), Some(&(60, 91, 32, Some(60), Async)));
    }

    /// A small read far from the stream, with no cached history, reads just
    /// itself and leaves the state alone; the stream then continues at its
    /// marker as if nothing happened.
    #[test]
    fn random_small_read_touches_no_state() {
        for v in [V2_6_24, V3_10, V3_12] {
            let mut f = MockFile::new(10_000);
            let mut ra = OnDemand::new(32, v);
            f.read_sequential(&mut ra, 1, 2); // [0,4), [4,12) marker 4
            let before = (ra.start, ra.size, ra.async_size);
            f.read(&mut ra, 5000, 3);
            assert_eq!(f.triples()[2], (5000, 3, 0), "{v:?}");
            assert_eq!((ra.start, ra.size, ra.async_size), before);
            assert!(!f.markers.contains(&5000));
            f.read(&mut ra, 2, 1);
            f.read(&mut ra, 3, 1);
            f.read(&mut ra, 4, 1);
            assert_eq!(f.triples()[3], (12, 16, 16), "{v:?}");
        }
    }

    /// Two streams interleaved on one file descriptor (1-page reads at 0… and
    /// at 5000…): context readahead (3.10) gives the second stream a window
    /// and the marker-hit scan repairs the first one.
    #[test]
    fn interleaved_streams_3_10() {
        let mut f = MockFile::new(10_000);
        let mut ra = OnDemand::new(32, V3_10);
        for i in 0..5 {
            f.read(&mut ra, i, 1);
            f.read(&mut ra, 5000 + i, 1);
        }
        assert_eq!(
            windows_with_markers(&f),
            vec![
                (0, 3, 3, Some(1), Sync),          // A@0 initial
                (5000, 5000, 0, None, Sync),       // B@5000 random (no history)
                (4, 11, 8, Some(4), Async),        // A@1 marker, expected offset
                (5001, 5012, 8, Some(5005), Sync), // B@5001 context: init(1+1)=4, merged
                (12, 29, 18, Some(12), Async),     // A@4 marker, scan: hole 12, (8+1)→18
            ]
        );
        // 5002–5004 were cached: B's next window comes at its marker 5005.
        f.read(&mut ra, 5, 1);
        f.read(&mut ra, 5005, 1);
        let last = *windows_with_markers(&f).last().unwrap();
        // Scan from 5006: hole 5013, size (8+1) → 18.
        assert_eq!(last, (5013, 5030, 18, Some(5013), Async));
        assert!(f.fallback_reads.is_empty());
    }

    /// Context readahead v1 (3.10) vs v2 (3.12) on a miss after cached
    /// history, from a descriptor whose last read was elsewhere.
    #[test]
    fn context_readahead_3_10_vs_3_12() {
        let run = |v, cached: std::ops::Range<u64>, at: u64| {
            let mut f = MockFile::new(10_000);
            f.cached.extend(cached);
            let mut ra = OnDemand::new(32, v);
            f.read(&mut ra, 9000, 1); // moves prev_pos away (a random read)
            f.windows.clear();
            f.read(&mut ra, at, 1);
            windows_with_markers(&f)
        };
        // history 10, req 1: v1 init(11) = 32, merged → 64; v2 min(11, 32), async 1.
        assert_eq!(run(V3_10, 100..110, 110), vec![(110, 173, 32, Some(142), Sync)]);
        assert_eq!(run(V3_12, 100..110, 110), vec![(110, 120, 1, Some(120), Sync)]);
        // history 1 = req: v1 init(2) = 4, merged → 12; v2 not enough history.
        assert_eq!(run(V3_10, 109..110, 110), vec![(110, 121, 8, Some(114), Sync)]);
        assert_eq!(run(V3_12, 109..110, 110), vec![(110, 110, 0, None, Sync)]);
        // History reaching page 0 doubles: 5 → 10; v2 min(10 + 1, 32).
        assert_eq!(run(V3_12, 0..5, 5), vec![(5, 15, 1, Some(15), Sync)]);
        // History is capped at max = 32: v2 min(32 + 1, 32) = 32.
        assert_eq!(run(V3_12, 0..200, 200), vec![(200, 231, 1, Some(231), Sync)]);
        // 2.6.24 has no context readahead: a random read.
        assert_eq!(run(V2_6_24, 100..110, 110), vec![(110, 110, 0, None, Sync)]);
    }

    /// Reads larger than max: 3.10 reads max and merges the next window in;
    /// 2.6.24 reads max with the marker on the page being read and triggers
    /// the marker-hit scan at once.
    #[test]
    fn oversize_reads() {
        let mut f = MockFile::new(1000);
        let mut ra = OnDemand::new(32, V3_10);
        f.read(&mut ra, 0, 64);
        assert_eq!(
            windows_with_markers(&f),
            vec![(0, 63, 32, Some(32), Sync), (64, 95, 32, Some(64), Async)]
        );
        // In mid-file, away from prev_pos: oversize → initial (3.10); the
        // read itself then reaches the marker at 532.
        f.windows.clear();
        f.read(&mut ra, 500, 40);
        assert_eq!(
            windows_with_markers(&f),
            vec![(500, 563, 32, Some(532), Sync), (564, 595, 32, Some(564), Async)]
        );

        let mut g = MockFile::new(1000);
        let mut rb = OnDemand::new(32, V2_6_24);
        g.read(&mut rb, 0, 64);
        assert_eq!(
            windows_with_markers(&g),
            vec![(0, 31, 32, Some(0), Sync), (32, 63, 32, Some(32), Async), (64, 95, 32, Some(64), Async)]
        );
        assert!(g.fallback_reads.is_empty());
    }

    /// 2.6.24's other differences: no offset-0 special case, and the
    /// marker-hit scan from `offset` without `+ req`.
    #[test]
    fn differences_of_2_6_24() {
        // Re-reading page 0 after reading elsewhere: 3.10 → initial,
        // 2.6.24 → a random read of the request.
        for (v, want) in [(V3_10, (0, 4, 2)), (V2_6_24, (0, 2, 0))] {
            let mut f = MockFile::new(1000);
            let mut ra = OnDemand::new(32, v);
            f.read(&mut ra, 700, 1);
            f.windows.clear();
            f.read(&mut ra, 0, 2);
            assert_eq!(f.triples(), vec![want], "{v:?}");
        }
        // A marker hit that does not match the state (2-page reads):
        // hole 112: 3.10 next(8 + 2) = 20, 2.6.24 next(8) = 16.
        for (v, want) in [(V3_10, (112, 20, 20)), (V2_6_24, (112, 16, 16))] {
            let mut f = MockFile::new(1000);
            f.cached.extend(100..112);
            f.markers.insert(104);
            let mut ra = OnDemand::new(32, v);
            f.read(&mut ra, 104, 2);
            assert_eq!(f.triples(), vec![want], "{v:?}");
        }
        // No hole within reach: no readahead.
        for v in [V2_6_24, V3_10] {
            let mut f = MockFile::new(1000);
            f.cached.extend(100..200);
            f.markers.insert(104);
            let mut ra = OnDemand::new(32, v);
            f.read(&mut ra, 104, 2);
            assert!(f.windows.is_empty(), "{v:?}");
        }
    }

    /// Windows stop at EOF: the marker of `[12,28)` (page 12) still fires and
    /// submits `[28,60)`, which issues nothing; no marker is set past EOF
    /// and no page is read alone.
    #[test]
    fn eof() {
        let mut f = MockFile::new(20);
        let mut ra = OnDemand::new(32, V3_10);
        f.read_sequential(&mut ra, 1, 100);
        let issued: Vec<u64> = f.windows.iter().map(|w| w.2).collect();
        assert_eq!(f.triples(), vec![(0, 4, 3), (4, 8, 8), (12, 16, 16), (28, 32, 32)]);
        assert_eq!(issued, vec![4, 8, 8, 0]);
        assert_eq!(f.cached.len(), 20);
        assert!(f.fallback_reads.is_empty());
        assert!(f.markers.is_empty());
    }

    /// `ra_pages == 0`: no readahead; every page is read alone.
    #[test]
    fn zero_max_reads_nothing_ahead() {
        let mut f = MockFile::new(10);
        let mut ra = OnDemand::new(0, V3_10);
        f.read_sequential(&mut ra, 2, 5);
        assert!(f.windows.is_empty());
        assert_eq!(f.fallback_reads, (0..10).collect::<Vec<u64>>());
    }
}
