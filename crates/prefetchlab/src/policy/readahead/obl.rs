//! OBL, one-block lookahead (algorithms.md §2), miss-triggered (decisions.md #6f).
//!
//! On a miss of page `index` of a read whose remaining part is
//! `[index, index + req)`, read that part **plus the one page after it** in
//! one synchronous request. Hits do nothing. This is the classic
//! prefetch-on-miss OBL of the AMP comparison (§2: "OBL prefetches one page
//! beyond the request, on misses"); every miss triggers it, with no
//! sequentiality test, as the block-level OBL ([`crate::policy::block`]) does.
//! The page past EOF is never read (the page cache stops windows at EOF).
//! OBL keeps no state.

use super::{PageStatus, RaContext, Readahead, Window, WindowKind};

#[derive(Debug, Default)]
pub struct Obl;

impl Readahead for Obl {
    fn on_page(&mut self, ctx: &mut dyn RaContext, index: u64, req_pages: u64, status: PageStatus) {
        if status == PageStatus::Missing {
            ctx.submit(Window::new(index, req_pages + 1, 0), WindowKind::Sync);
        }
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
    use WindowKind::Sync;

    /// 1-page reads: each miss reads two pages, so every second read hits.
    #[test]
    fn sequential_one_page_reads_miss_every_second_page() {
        let mut f = MockFile::new(7);
        let mut ra = Obl;
        f.read_sequential(&mut ra, 1, 100);
        assert_eq!(f.ranges(), vec![(0, 2, Sync), (2, 4, Sync), (4, 6, Sync), (6, 7, Sync)]);
        assert!(f.fallback_reads.is_empty());
    }

    /// A 3-page read reads the request plus one page; the next read starts
    /// on that page (a hit) and misses on its second page.
    #[test]
    fn reads_request_plus_one_and_only_on_a_miss() {
        let mut f = MockFile::new(100);
        let mut ra = Obl;
        f.read(&mut ra, 10, 3);
        assert_eq!(f.triples(), vec![(10, 4, 0)]);
        f.read(&mut ra, 13, 3);
        assert_eq!(f.triples(), vec![(10, 4, 0), (14, 3, 0)]);
        // A fully cached read submits nothing.
        f.read(&mut ra, 10, 5);
        assert_eq!(f.windows.len(), 2);
    }
}
