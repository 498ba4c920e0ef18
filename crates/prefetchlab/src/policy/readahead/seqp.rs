//! The didactic synchronous SEQP of \[TC09\] Fig. 3 (algorithms.md §2 and the
//! SEQP column of §3.1's golden table; decisions.md #3).
//!
//! \[TC09\]'s experiments call the Linux 2.6.18 readahead "SEQP" (that is
//! [`super::linux_2_6_18`]); its Fig. 3 explains SEQP with a simpler rule,
//! which this module implements so that the figure can be reproduced:
//!
//! * **Sequential miss** — a miss on the page right after the last window
//!   (`index == next`): the window size grows, doubling (`growth = "double"`)
//!   or adding `init` (`"linear"`), clamped to `max`, and
//!   `[index, index + size)` is read synchronously in one request.
//! * **Any other miss** restarts the stream: size = `init` (default 1).
//! * Hits do nothing: there is no trigger page, reading is synchronous only.
//!
//! Choices the figure leaves open (each written here, per common rules):
//! * the window always covers the demand pages, i.e. it is
//!   `max(size, req)` pages long; the size sequence itself (and so the next
//!   window) does not depend on the request size;
//! * `init` is clamped to `1..=max`, and `max` to at least 1.
//!
//! Golden (\[TC09\] Fig. 3, §3.1 SEQP column): a 20-page file read one page per
//! call with `max = 4` gives 7 windows `[0,1) [1,3) [3,7) [7,11) [11,15)
//! [15,19) [19,20)`.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};
use crate::config::Growth;

#[derive(Debug)]
pub struct Seqp {
    init_pages: u64,
    growth: Growth,
    max_pages: u64,
    /// Size of the last window's size sequence (0 = no stream yet).
    size_pages: u64,
    /// First page after the last window (where a sequential miss lands).
    next_index: u64,
}

impl Seqp {
    pub fn new(init: u64, growth: Growth, max: u64) -> Self {
        let max_pages = max.max(1);
        Seqp { init_pages: init.clamp(1, max_pages), growth, max_pages, size_pages: 0, next_index: 0 }
    }

    fn grown(&self) -> u64 {
        let next = match self.growth {
            Growth::Double => self.size_pages.saturating_mul(2),
            Growth::Linear => self.size_pages.saturating_add(self.init_pages),
        };
        next.min(self.max_pages)
    }
}

impl Readahead for Seqp {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        if status != PageStatus::Missing {
            return;
        }
        self.size_pages =
            if self.size_pages > 0 && index == self.next_index { self.grown() } else { self.init_pages };
        let window_pages = self.size_pages.max(req_pages);
        // a strip-aligning wrapper may cut the window: the next one starts
        // after the window as read, its size grows from `size_pages`
        let w = ctx.submit(Window::new(index, window_pages, 0), WindowKind::Sync).window;
        self.next_index = w.start + w.size;
    }

    fn set_max_pages(&mut self, max_pages: u64) {
        self.max_pages = max_pages.max(1);
    }

    /// Only a missing page starts a read.
    fn ignores_cached_pages(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::MockFile;
    use super::*;

    /// \[TC09\] Fig. 3/4, SEQP column of §3.1: 7 prefetches, 11 disk requests
    /// (file at physical blocks B16–B35, 4-block strips).
    #[test]
    fn golden_tc09_fig3() {
        let mut f = MockFile::new(20);
        f.first_block = 16;
        f.strip_blocks = 4;
        let mut ra = Seqp::new(1, Growth::Double, 4);
        f.read_sequential(&mut ra, 1, 100);
        let got: Vec<(u64, u64)> = f.ranges().iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(got, vec![(0, 1), (1, 3), (3, 7), (7, 11), (11, 15), (15, 19), (19, 20)]);
        assert!(f.windows.iter().all(|w| w.1 == WindowKind::Sync));
        let per_window: Vec<u64> = got.iter().map(|&(s, e)| f.strips_touched(s, e)).collect();
        assert_eq!(per_window, vec![1, 1, 2, 2, 2, 2, 1]);
        assert_eq!(per_window.iter().sum::<u64>(), 11);
        assert!(f.fallback_reads.is_empty());
    }

    #[test]
    fn linear_growth_adds_init() {
        let mut f = MockFile::new(40);
        let mut ra = Seqp::new(2, Growth::Linear, 7);
        f.read_sequential(&mut ra, 1, 100);
        let sizes: Vec<u64> = f.triples().iter().map(|t| t.1).collect();
        assert_eq!(sizes, vec![2, 4, 6, 7, 7, 7, 7]);
    }

    /// A miss elsewhere restarts at `init`; returning to the old stream's
    /// next page is then not sequential either (the state follows the last
    /// window).
    #[test]
    fn non_sequential_miss_restarts() {
        let mut f = MockFile::new(1000);
        let mut ra = Seqp::new(1, Growth::Double, 8);
        f.read_sequential(&mut ra, 1, 4); // [0,1) [1,3) [3,7)
        f.read(&mut ra, 500, 1);
        f.read(&mut ra, 501, 1);
        f.read(&mut ra, 7, 1);
        assert_eq!(f.triples(), vec![(0, 1, 0), (1, 2, 0), (3, 4, 0), (500, 1, 0), (501, 2, 0), (7, 1, 0)]);
    }

    /// The window never leaves demand pages out; growth continues from the
    /// size sequence.
    #[test]
    fn window_covers_the_request() {
        let mut f = MockFile::new(1000);
        let mut ra = Seqp::new(1, Growth::Double, 16);
        f.read_sequential(&mut ra, 3, 4);
        // miss@0 size 1 → 3 pages; miss@3 size 2 → 3; miss@6 size 4 → 4; miss@10 size 8.
        assert_eq!(f.triples(), vec![(0, 3, 0), (3, 3, 0), (6, 4, 0), (10, 8, 0)]);
    }
}
