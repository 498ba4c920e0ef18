//! Caches: the host page cache (page granular, per-file index, LRU within a
//! memory budget) and the slot store it shares with the array cache.
//!
//! * [`lru`] — slots with prefetched/used/marker bookkeeping and an LRU list.
//! * [`PageCache`] — the page cache: `(file, page)` → slot.
//!
//! A page is *prefetched* when it was brought in beyond the pages the
//! reader demanded at that moment; it is *used* once the reader reads it.
//! A page counts as a hit when it is uptodate at the moment it is read (a
//! page still in flight is a miss, even if readahead issued it).

pub mod lru;

use lru::{flag, Evicted, LruSlots, NONE};

/// Page-cache counters (pages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub prefetched: u64,
    pub prefetch_used: u64,
    pub wasted: u64,
    pub evictions: u64,
}

/// The host page cache.
pub struct PageCache {
    lru: LruSlots,
    /// Per file: page → slot (`NONE` if absent).
    index: Vec<Vec<u32>>,
    pub stats: CacheStats,
}

#[inline]
fn key(file: u32, page: u64) -> u64 {
    ((file as u64) << 32) | page
}

impl PageCache {
    /// A cache of `capacity_pages` for files of the given sizes (pages).
    pub fn new(capacity_pages: u64, file_pages: &[u64]) -> Self {
        PageCache {
            lru: LruSlots::new(capacity_pages.min(u32::MAX as u64 - 1) as u32),
            index: file_pages.iter().map(|&p| vec![NONE; p as usize]).collect(),
            stats: CacheStats::default(),
        }
    }

    /// The slot of a page, or `NONE`.
    #[inline]
    pub fn lookup(&self, file: u32, page: u64) -> u32 {
        self.index[file as usize][page as usize]
    }

    #[inline]
    pub fn is_cached(&self, file: u32, page: u64) -> bool {
        self.lookup(file, page) != NONE
    }

    #[inline]
    pub fn uptodate(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::UPTODATE)
    }

    #[inline]
    pub fn has_marker(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::MARKER)
    }

    #[inline]
    pub fn clear_marker(&mut self, slot: u32) {
        self.lru.clear(slot, flag::MARKER);
    }

    /// A reader waits for this page: keep it until the reader has read it.
    #[inline]
    pub fn pin(&mut self, slot: u32) {
        self.lru.set(slot, flag::PINNED);
    }

    /// The I/O filling a slot that is not uptodate.
    #[inline]
    pub fn io(&self, slot: u32) -> u32 {
        self.lru.io(slot)
    }

    pub fn peak_pages(&self) -> u64 {
        self.lru.peak_in_use() as u64
    }

    pub fn pages_in_use(&self) -> u64 {
        self.lru.in_use() as u64
    }

    /// Makes room for one page if the cache is full, evicting the least
    /// recently used uptodate page. Returns the eviction, if one happened,
    /// and whether there is room now.
    pub fn make_room(&mut self) -> (Option<Evicted>, bool) {
        let (ev, room) = self.lru.make_room();
        if let Some(ev) = ev {
            self.index[(ev.key >> 32) as usize][(ev.key & 0xffff_ffff) as usize] = NONE;
            self.stats.evictions += 1;
            self.stats.wasted += ev.unused_prefetch as u64;
        }
        (ev, room)
    }

    /// Allocates an in-flight page filled by I/O `io` (room must have been made,
    /// or the caller accepts going over budget for a demand page).
    pub fn allocate(&mut self, file: u32, page: u64, io: u32, prefetched: bool, marker: bool) -> u32 {
        let mut flags = 0;
        if prefetched {
            flags |= flag::PREFETCHED;
            self.stats.prefetched += 1;
        }
        if marker {
            flags |= flag::MARKER;
        }
        let s = self.lru.insert(key(file, page), flags, io);
        self.index[file as usize][page as usize] = s;
        s
    }

    /// Re-points an in-flight page at the I/O that now fills it.
    pub fn set_io(&mut self, slot: u32, io: u32) {
        self.lru.set_io(slot, io);
    }

    /// The read filling `slot` completed.
    #[inline]
    pub fn complete(&mut self, slot: u32) {
        self.lru.set(slot, flag::UPTODATE);
        self.lru.set_io(slot, NONE);
    }

    /// The reader reads the page in `slot` (counts a first use of a prefetch).
    #[inline]
    pub fn access(&mut self, slot: u32) {
        self.stats.prefetch_used += self.lru.access(slot) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefetch_accounting_and_wastage() {
        let mut c = PageCache::new(2, &[10]);
        let a = c.allocate(0, 0, 1, false, false);
        let b = c.allocate(0, 1, 1, true, true);
        c.complete(a);
        c.complete(b);
        assert!(c.has_marker(b));
        c.access(a);
        // full: the next page evicts the LRU page (b, never used → wasted)
        c.access(a);
        let (ev, room) = c.make_room();
        assert!(room);
        assert_eq!(ev.map(|e| e.unused_prefetch), Some(true));
        assert_eq!(c.stats.wasted, 1);
        assert!(!c.is_cached(0, 1));
        let d = c.allocate(0, 2, 3, true, false);
        c.complete(d);
        c.access(d);
        assert_eq!(c.stats.prefetched, 2);
        assert_eq!(c.stats.prefetch_used, 1);
    }
}
