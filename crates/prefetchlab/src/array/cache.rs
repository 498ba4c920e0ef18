//! The array cache: a block-granular cache in the RAID layer with its own
//! memory budget and LRU, keeping the same prefetched/used bookkeeping as the
//! page cache. Block-level prefetching policies ([`crate::policy::block`])
//! live here.
//!
//! Array blocks are many (a 5-disk array of 73 GB drives has ~90 M), so the
//! index is a hash map from block to slot rather than a flat table, hashed
//! with rustc-hash's multiply-rotate (block numbers are not adversarial, and
//! the std hasher's SipHash costs more than the rest of a lookup).
//!
//! The timed engine fills a block through an I/O ([`ArrayCache::allocate`],
//! then [`ArrayCache::complete`]); the cache-only mode
//! ([`crate::cache_only`]) has no clock, so its blocks arrive at once
//! ([`ArrayCache::fill`]).

use crate::cache::lru::{flag, Evicted, LruSlots, NONE};
use rustc_hash::FxHashMap as HashMap;

/// Array-cache counters (blocks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArrayCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub prefetched: u64,
    pub prefetch_used: u64,
    pub wasted: u64,
}

pub struct ArrayCache {
    lru: LruSlots,
    index: HashMap<u64, u32>,
    pub stats: ArrayCacheStats,
}

impl ArrayCache {
    pub fn new(capacity_blocks: u64) -> Self {
        ArrayCache {
            lru: LruSlots::new(capacity_blocks.min(u32::MAX as u64 - 1) as u32),
            index: HashMap::default(),
            stats: ArrayCacheStats::default(),
        }
    }

    #[inline]
    pub fn lookup(&self, block: u64) -> u32 {
        self.index.get(&block).copied().unwrap_or(NONE)
    }

    #[inline]
    pub fn uptodate(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::UPTODATE)
    }

    #[inline]
    pub fn io(&self, slot: u32) -> u32 {
        self.lru.io(slot)
    }

    /// Evicts the LRU uptodate block if full; `false` if no room can be made.
    pub fn make_room(&mut self) -> (Option<Evicted>, bool) {
        let (ev, room) = self.lru.make_room();
        if let Some(ev) = ev {
            self.index.remove(&ev.key);
            self.stats.wasted += ev.unused_prefetch as u64;
        }
        (ev, room)
    }

    pub fn allocate(&mut self, block: u64, io: u32, prefetched: bool) -> u32 {
        let flags = if prefetched {
            self.stats.prefetched += 1;
            flag::PREFETCHED
        } else {
            0
        };
        let s = self.lru.insert(block, flags, io);
        self.index.insert(block, s);
        s
    }

    pub fn complete(&mut self, slot: u32) {
        self.lru.set(slot, flag::UPTODATE);
        self.lru.set_io(slot, NONE);
    }

    /// Brings `block` (absent) in, already uptodate: read by the layer
    /// above at once when a demand miss (`prefetched` false), else a
    /// prefetched block not yet read. Evicts the least recently used block
    /// when full and returns it (every block is evictable: none waits for
    /// an I/O without a clock).
    #[inline]
    pub fn fill(&mut self, block: u64, prefetched: bool) -> Option<Evicted> {
        let flags = if prefetched {
            self.stats.prefetched += 1;
            flag::UPTODATE | flag::PREFETCHED
        } else {
            self.stats.misses += 1;
            flag::UPTODATE | flag::USED
        };
        let (slot, ev) = if self.lru.is_full() {
            let (slot, _, ev) = self
                .lru
                .replace_victim_from(self.lru.tail(), block, flags, NONE)
                .expect("a full cache has a victim");
            self.index.remove(&ev.key);
            self.stats.wasted += ev.unused_prefetch as u64;
            (slot, Some(ev))
        } else {
            (self.lru.insert(block, flags, NONE), None)
        };
        self.index.insert(block, slot);
        ev
    }

    /// Whether the block carries the readahead marker (array-level readahead).
    #[inline]
    pub fn has_marker(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::MARKER)
    }

    pub fn set_marker(&mut self, slot: u32) {
        self.lru.set(slot, flag::MARKER);
    }

    pub fn clear_marker(&mut self, slot: u32) {
        self.lru.clear(slot, flag::MARKER);
    }

    /// Blocks held now.
    pub fn len(&self) -> u64 {
        self.lru.in_use() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.lru.in_use() == 0
    }

    /// A read from above touched the block.
    pub fn access(&mut self, slot: u32) {
        self.stats.prefetch_used += self.lru.access(slot) as u64;
    }
}
