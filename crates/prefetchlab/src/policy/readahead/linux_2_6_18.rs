//! Linux 2.6.18 readahead: a current and an ahead window (algorithms.md §1.2).
//!
//! This is the "SEQP" of \[TC09\] and \[JCP12\] (decisions.md #3). Each item
//! below is one piece of §1.2, in the kernel's own order, so the code can be
//! checked line by line against the spec (and 2.6.18's `mm/readahead.c`):
//!
//! * **Call site** ([`Readahead::on_page`]): the read loop keeps a local
//!   `next_index`, set to the read's first page; `page_cache_readahead` runs
//!   only for the page `index == next_index`, with
//!   `req_size = last_index - index`, and returns the new `next_index`. A page
//!   still missing after that is read alone and reported through
//!   [`Readahead::on_fallback_miss`] = `handle_ra_miss`.
//! * **`page_cache_readahead`** steps 1–9: `page_cache_readahead`.
//! * **Ahead window** build with `force`, blocking vs non-blocking (a
//!   non-blocking read is skipped when [`RaContext::congested`], and the
//!   ahead window is then dropped): `make_ahead_window`.
//! * **Old ramp-up** with the MISS flag and `VM_MIN_READAHEAD` (4 pages):
//!   `next_ra_size_old`; first window from
//!   [`get_init_ra_size`].
//! * **Already-cached rule** (`cache_hit`, `VM_MAX_CACHE_HIT` = 256, INCACHE):
//!   `check_ra_success`.
//!
//! Kernel quantities that are `unsigned long` and may wrap (`prev_page`
//! starts at −1, the dropped ahead window keeps `ahead_size += ahead_start`)
//! use wrapping arithmetic, as the kernel's do.
//!
//! Window kinds: a blocking read is [`WindowKind::Sync`] (the reader waits
//! for it, or it is the first/random read), a non-blocking ahead window is
//! [`WindowKind::Async`]. 2.6.18 sets no PG_readahead marker
//! (`async_size = 0`).
//!
//! Golden (§1.2, max = 32, one page per call): `[0,4)` blocking at call 0;
//! ahead `[4,12)` at call 1; at 4 ahead `[12,28)`; at 12 `[28,60)`; at 28
//! `[60,92)`, then +32 each time.

use super::sizing::{get_init_ra_size, get_next_ra_size};
use super::{PageStatus, RaContext, Readahead, Window, WindowKind};

/// `VM_MIN_READAHEAD` = 16 KiB in pages (§1.1, 2.6.18 only).
pub const VM_MIN_READAHEAD_PAGES: u64 = 4;
/// `VM_MAX_CACHE_HIT` (§1.1, 2.6.18 only): pages found cached in a row by
/// readahead before it is switched off for the file.
pub const VM_MAX_CACHE_HIT: u64 = 256;

/// The per-file `file_ra_state` of 2.6.18 plus the read loop's `next_index`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Linux2618 {
    /// `ra_pages`.
    max_pages: u64,
    /// Current window `[start, start+size)`.
    start: u64,
    size: u64,
    /// The current window's size before a strip-aligning wrapper cut it
    /// (SASEQP, decisions.md #2): the ramp-up grows from it. Equal to `size`
    /// when nothing cuts.
    intact_size: u64,
    /// Ahead window; `ahead_start == 0` means none.
    ahead_start: u64,
    ahead_size: u64,
    /// The ahead window's uncut size.
    ahead_intact: u64,
    /// Last page looked at; starts at −1 (wrapping `u64::MAX`).
    prev_page: u64,
    /// RA_FLAG_MISS: a page readahead should have brought in was missing.
    flag_miss: bool,
    /// RA_FLAG_INCACHE: readahead switched off, the file looks cached.
    flag_incache: bool,
    cache_hit: u64,
    // --- do_generic_mapping_read's locals, kept across `on_page` calls ---
    /// Page at which the read loop calls `page_cache_readahead` next.
    next_index: u64,
    /// Last page reported and the read's `last_index` (one past its last
    /// page), to recognise the first page of a new read.
    loop_index: u64,
    loop_last_index: u64,
    in_read: bool,
}

impl Linux2618 {
    pub fn new(max: u64) -> Self {
        Linux2618 {
            max_pages: max,
            start: 0,
            size: 0,
            intact_size: 0,
            ahead_start: 0,
            ahead_size: 0,
            ahead_intact: 0,
            prev_page: u64::MAX,
            flag_miss: false,
            flag_incache: false,
            cache_hit: 0,
            next_index: 0,
            loop_index: 0,
            loop_last_index: 0,
            in_read: false,
        }
    }

    /// `page_cache_readahead(offset, req_size)`, §1.2 steps 1–9; returns the
    /// page at which the read loop calls again (`prev_page + 1`).
    fn page_cache_readahead(&mut self, ctx: &mut dyn RaContext, offset: u64, req: u64) -> u64 {
        let mut offset = offset;
        let mut req_size = req;
        let max = self.max_pages;
        // 1. The read starts on the page last looked at.
        if offset == self.prev_page {
            req_size = req_size.saturating_sub(1);
            if req_size > 0 {
                offset += 1;
            }
        }
        // 2.
        let sequential = offset == self.prev_page.wrapping_add(1);
        self.prev_page = offset;
        // 3.
        let newsize = req_size.min(max);
        if newsize == 0 || self.flag_incache {
            return self.prev_page.wrapping_add(1);
        }
        // 4.
        self.prev_page += newsize - 1;
        // 5. First sequential access (also the first read at offset 0).
        if sequential && self.size == 0 {
            self.intact_size = get_init_ra_size(newsize, max);
            self.start = offset;
            let (ok, size) = self.blockable_readahead(ctx, offset, self.intact_size, true);
            self.size = size;
            if ok && req_size >= max {
                self.make_ahead_window(ctx, true);
            }
            return self.prev_page.wrapping_add(1);
        }
        // 6. Random: readahead off, read exactly the request.
        if !sequential {
            self.ra_off();
            let _ = self.blockable_readahead(ctx, offset, newsize, true);
            return self.prev_page.wrapping_add(1);
        }
        // 7. Sequential with a window: make sure there is an ahead window.
        let mut enter_ahead = true;
        if self.ahead_start == 0 && !self.make_ahead_window(ctx, false) {
            enter_ahead = false; // goto recheck
        }
        // 8. The reader entered the ahead window: shift, build the next one.
        if enter_ahead {
            if self.prev_page < self.ahead_start {
                return self.prev_page.wrapping_add(1);
            }
            self.start = self.ahead_start;
            self.size = self.ahead_size;
            self.intact_size = self.ahead_intact;
            self.make_ahead_window(ctx, false);
        }
        // recheck: prev_page must not overrun the ahead window.
        let ahead_last = self.ahead_start.wrapping_add(self.ahead_size).wrapping_sub(1);
        self.prev_page = self.prev_page.min(ahead_last);
        // 9. out
        self.prev_page.wrapping_add(1)
    }

    /// `make_ahead_window(force)`: the ahead window follows the current one,
    /// sized by the old ramp-up. Blocking if forced or if the reader is
    /// already in it; a failed non-forced build drops the ahead window.
    fn make_ahead_window(&mut self, ctx: &mut dyn RaContext, force: bool) -> bool {
        self.ahead_intact = self.next_ra_size_old();
        self.ahead_start = self.start + self.size;
        let block = force || self.prev_page >= self.ahead_start;
        let (ok, size) = self.blockable_readahead(ctx, self.ahead_start, self.ahead_intact, block);
        self.ahead_size = size;
        if !ok && !force {
            self.reset_ahead_window();
        }
        ok
    }

    /// `blockable_page_cache_readahead`: a non-blocking read is skipped
    /// (fails) on a read-congested queue; otherwise the window is read and
    /// the result goes through the already-cached rule. Returns whether it
    /// succeeded and the window's size as submitted (`nr_to_read` unless a
    /// strip-aligning wrapper cut it, or when skipped).
    fn blockable_readahead(
        &mut self,
        ctx: &mut dyn RaContext,
        offset: u64,
        nr_to_read: u64,
        block: bool,
    ) -> (bool, u64) {
        if !block && ctx.congested() {
            return (false, nr_to_read);
        }
        let kind = if block { WindowKind::Sync } else { WindowKind::Async };
        let done = ctx.submit(Window::new(offset, nr_to_read, 0), kind);
        (self.check_ra_success(done.window.size, done.issued_pages), done.window.size)
    }

    /// `check_ra_success`: a read that fetched nothing adds its requested
    /// size to `cache_hit`; at `VM_MAX_CACHE_HIT` readahead goes off with
    /// INCACHE set (and the read counts as failed). Anything fetched resets
    /// the count.
    fn check_ra_success(&mut self, nr_to_read: u64, actual: u64) -> bool {
        if actual == 0 {
            self.cache_hit += nr_to_read;
            if self.cache_hit >= VM_MAX_CACHE_HIT {
                self.ra_off();
                self.flag_incache = true;
                return false;
            }
        } else {
            self.cache_hit = 0;
        }
        true
    }

    /// Old ramp-up `get_next_ra_size` of 2.6.18: after a miss, shrink to
    /// `max(cur − 2, VM_MIN_READAHEAD)` (unsigned, as in the kernel), else
    /// the shared ramp-up of §1.1; clamped to max.
    fn next_ra_size_old(&mut self) -> u64 {
        let cur = self.intact_size;
        if self.flag_miss {
            self.flag_miss = false;
            cur.wrapping_sub(2).max(VM_MIN_READAHEAD_PAGES).min(self.max_pages)
        } else {
            get_next_ra_size(cur, self.max_pages)
        }
    }

    /// `reset_ahead_window`: no ahead window, but keep
    /// `ahead_start + ahead_size` for the recheck clamp.
    fn reset_ahead_window(&mut self) {
        self.ahead_size = self.ahead_size.wrapping_add(self.ahead_start);
        self.ahead_start = 0;
    }

    /// `ra_off`: readahead off until the next first sequential access.
    fn ra_off(&mut self) {
        self.start = 0;
        self.size = 0;
        self.intact_size = 0;
        self.flag_miss = false;
        self.flag_incache = false;
        self.reset_ahead_window();
    }
}

impl Readahead for Linux2618 {
    fn set_max_pages(&mut self, max_pages: u64) {
        self.max_pages = max_pages;
    }

    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, _status: PageStatus) {
        let last_index = index + req_pages;
        let same_read = self.in_read && index == self.loop_index + 1 && last_index == self.loop_last_index;
        if !same_read {
            // do_generic_mapping_read: `next_index = index` before the loop.
            self.next_index = index;
            self.loop_last_index = last_index;
            self.in_read = true;
        }
        self.loop_index = index;
        if index == self.next_index {
            self.next_index = self.page_cache_readahead(ctx, index, req_pages);
        }
    }

    /// `handle_ra_miss`: readahead thrashing; the next ahead window shrinks.
    fn on_fallback_miss(&mut self, _index: u64) {
        self.flag_miss = true;
        self.flag_incache = false;
        self.cache_hit = 0;
    }

    fn on_read_end(&mut self, _end_pos_bytes: u64) {
        self.in_read = false;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::MockFile;
    use super::*;
    use WindowKind::{Async, Sync};

    /// §1.2 golden trace: max = 32, one page per call.
    #[test]
    fn golden_one_page_per_call_max_32() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        f.read_sequential(&mut ra, 1, 200);
        let got = f.ranges();
        assert_eq!(
            &got[..7],
            &[
                (0, 4, Sync),
                (4, 12, Async),
                (12, 28, Async),
                (28, 60, Async),
                (60, 92, Async),
                (92, 124, Async),
                (124, 156, Async)
            ]
        );
        // Then +32 each time, all non-blocking, and no page read alone.
        for (i, r) in got.iter().enumerate().skip(4) {
            assert_eq!(r.0, 60 + 32 * (i as u64 - 4));
            assert_eq!(r.1 - r.0, 32);
            assert_eq!(r.2, Async);
        }
        assert!(f.fallback_reads.is_empty());
        assert!(f.windows.iter().all(|w| w.0.async_size == 0));
    }

    /// Exactly when the windows of the golden trace are issued.
    #[test]
    fn golden_trace_call_by_call() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        let mut count_after = vec![];
        for pos in 0..30 {
            f.read(&mut ra, pos, 1);
            count_after.push(f.windows.len());
        }
        // Windows issued at calls 0, 1, 4, 12 and 28 only.
        let issued_at: Vec<usize> =
            (0..30).filter(|&i| count_after[i] != if i == 0 { 0 } else { count_after[i - 1] }).collect();
        assert_eq!(issued_at, vec![0, 1, 4, 12, 28]);
    }

    /// Two pages per call: the loop calls readahead only at `next_index`.
    #[test]
    fn two_pages_per_call() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        f.read_sequential(&mut ra, 2, 40);
        assert_eq!(&f.triples()[..5], &[(0, 4, 0), (4, 8, 0), (12, 16, 0), (28, 32, 0), (60, 32, 0)]);
    }

    /// A non-blocking ahead build on a congested queue is skipped and the
    /// ahead window dropped; the next call builds it again. When the reader
    /// reaches the window end without one, the build blocks and ignores
    /// congestion.
    #[test]
    fn congestion_skips_non_blocking_ahead_window() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        f.read(&mut ra, 0, 1);
        f.congested = true;
        f.read(&mut ra, 1, 1); // skipped
        assert_eq!(f.windows.len(), 1);
        f.congested = false;
        f.read(&mut ra, 2, 1); // built now, non-blocking
        assert_eq!(f.ranges()[1], (4, 12, Async));

        let mut g = MockFile::new(1000);
        let mut rb = Linux2618::new(32);
        g.read(&mut rb, 0, 1);
        g.congested = true;
        for pos in 1..4 {
            g.read(&mut rb, pos, 1);
        }
        assert_eq!(g.windows.len(), 1);
        // At 4 the reader is in the would-be ahead window: blocking read,
        // then the shift, then a non-blocking build, skipped (congested).
        g.read(&mut rb, 4, 1);
        assert_eq!(g.ranges(), vec![(0, 4, Sync), (4, 12, Sync)]);
        assert!(g.fallback_reads.is_empty());
        g.congested = false;
        g.read(&mut rb, 5, 1);
        assert_eq!(g.ranges()[2], (12, 28, Async));
    }

    /// Step 6: a non-sequential read switches readahead off and reads just
    /// the request; the stream that follows restarts from the initial size.
    #[test]
    fn random_read_turns_readahead_off_and_restarts() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        f.read_sequential(&mut ra, 1, 5); // [0,4) [4,12) [12,28)
        f.read(&mut ra, 500, 3);
        assert_eq!(f.ranges()[3], (500, 503, Sync));
        assert_eq!((ra.size, ra.ahead_start), (0, 0));
        // Sequential again from 503: first sequential access, init(1) = 4.
        f.read(&mut ra, 503, 1);
        assert_eq!(f.ranges()[4], (503, 507, Sync));
    }

    /// Step 5 with `req >= max`: initial window of max, and the ahead window
    /// forced (blocking) at once.
    #[test]
    fn oversize_first_read_forces_the_ahead_window() {
        let mut f = MockFile::new(1000);
        f.congested = true; // forced builds ignore congestion
        let mut ra = Linux2618::new(32);
        f.read(&mut ra, 0, 64);
        assert_eq!(f.ranges(), vec![(0, 32, Sync), (32, 64, Sync)]);
        assert!(f.fallback_reads.is_empty());
    }

    /// Step 1: a read that starts on the page last looked at skips it.
    #[test]
    fn read_starting_on_prev_page_skips_it() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        // Bytes [0, 6000): pages 0–1, prev_page = 1.
        f.read_bytes(&mut ra, 0, 6000);
        assert_eq!(ra.prev_page, 1);
        // Bytes [6000, 10000): pages 1–2; offset 1 == prev_page → offset 2,
        // req 1, sequential; prev_page 2 < ahead_start → ahead [4,12) only.
        f.read_bytes(&mut ra, 6000, 4000);
        assert_eq!(ra.prev_page, 2);
        assert_eq!(f.triples(), vec![(0, 4, 0), (4, 8, 0)]);
    }

    /// `handle_ra_miss` (pages of the window evicted before use) sets MISS:
    /// the next ahead window is `max(cur − 2, 4)` instead of doubling.
    #[test]
    fn thrashing_shrinks_the_next_ahead_window() {
        let mut f = MockFile::new(1000);
        let mut ra = Linux2618::new(32);
        f.read_sequential(&mut ra, 1, 2); // [0,4), ahead [4,12)
        f.evict(4..12);
        for pos in 2..13 {
            f.read(&mut ra, pos, 1);
        }
        // At 4: shift to [4,12), ahead [12,28) (the miss comes after it).
        // Pages 4..11 are read alone; at 12: shift to [12,28), MISS → 14.
        assert_eq!(f.fallback_reads, (4..12).collect::<Vec<u64>>());
        assert_eq!(f.triples(), vec![(0, 4, 0), (4, 8, 0), (12, 16, 0), (28, 14, 0)]);
        // MISS was consumed: the following ahead window doubles again.
        for pos in 13..29 {
            f.read(&mut ra, pos, 1);
        }
        assert_eq!(f.triples()[4], (42, 28, 0));
        // VM_MIN_READAHEAD floor.
        let mut r = Linux2618::new(32);
        r.size = 5;
        r.intact_size = 5;
        r.flag_miss = true;
        assert_eq!(r.next_ra_size_old(), 4);
        assert!(!r.flag_miss);
    }

    /// `ra_pages == 0`: step 3 exits at once, every page is read alone.
    #[test]
    fn zero_max_reads_nothing_ahead() {
        let mut f = MockFile::new(10);
        let mut ra = Linux2618::new(0);
        f.read_sequential(&mut ra, 2, 5);
        assert!(f.windows.is_empty());
        assert_eq!(f.fallback_reads, (0..10).collect::<Vec<u64>>());
    }

    /// 256 pages found cached by readahead switch it off (INCACHE); only a
    /// miss read alone switches it back on.
    #[test]
    fn cached_file_switches_readahead_off() {
        let mut f = MockFile::new(2000);
        f.cached.extend(0..1000);
        let mut ra = Linux2618::new(32);
        f.read_sequential(&mut ra, 1, 1000);
        // Windows 4 + 8 + 16 + 32·7 = 252 < 256, the next (32) reaches 284.
        let submitted: u64 = f.windows.iter().map(|w| w.0.size).sum();
        assert_eq!(f.windows.len(), 11);
        assert_eq!(submitted, 284);
        assert!(f.windows.iter().all(|w| w.2 == 0));
        assert!(ra.flag_incache);
        // Past the cached part: with INCACHE set the call does nothing, so
        // page 1000 is read alone, which clears INCACHE and sets MISS. Step 2
        // kept prev_page moving, so 1001 is a first sequential access
        // (init 4); at 1002 the ahead window takes the MISS branch:
        // max(4 − 2, 4) = 4.
        f.read(&mut ra, 1000, 1);
        assert_eq!(f.fallback_reads, vec![1000]);
        assert!(!ra.flag_incache && ra.flag_miss);
        f.read(&mut ra, 1001, 1);
        f.read(&mut ra, 1002, 1);
        let tail: Vec<(u64, u64, u64)> = f.triples()[11..].to_vec();
        assert_eq!(tail, vec![(1001, 4, 0), (1005, 4, 0)]);
        assert!(!ra.flag_miss);
    }
}
