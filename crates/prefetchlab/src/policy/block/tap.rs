//! TaP, table-based prefetching for storage caches (Li, Varki, Bhatia and
//! Merchant, FAST 2008) — **a reconstruction**: algorithms.md §9 and
//! decisions.md 10. Only the paper's abstract (and \[TC09\]'s summary) was
//! available; the mechanics below follow §9's outline with this module's
//! choices, the parameters are `array_cache.tap.*` and `array_cache.p`, and
//! its state output says `"reconstruction"`. It is a comparison baseline.
//!
//! * **Detection table** (`tap.table` entries, the oldest replaced first):
//!   the block just past each recent read, where its stream would read
//!   next. A read starting at a table entry is sequential; every read puts
//!   its own end in the table. Many interleaved random reads do not hide a
//!   sequential stream: each stream needs one entry.
//! * **Prefetch**: on a sequential read, when the block after it is absent
//!   (the stream has used up what was read ahead for it), the next segment
//!   of `p` blocks is read as one request — so a stream reads ahead one
//!   segment at a time, each read when the previous one is reached.
//! * **The prefetch cache**: the blocks prefetched and not read yet are
//!   TaP's own part of the array cache, at most `S` blocks; beyond it the
//!   oldest are dropped unread (culled, [`BlockContext::cull`]). A
//!   prefetched block is **dropped once read** (`tap.drop_used`, on by
//!   default: sequential data is rarely read again, so it leaves room for
//!   the rest; a read block that is still being read in a timed run stays).
//! * **Sizing `S`**: the addresses of the last `step` blocks culled for
//!   room are kept (a ghost list); a demand miss on one is a read-ahead hit
//!   a prefetch cache `step` blocks larger would have had. Over each
//!   interval of `tap.interval` reads, when those would-be hits per read
//!   exceed `tap.threshold`, `S` grows by `step`; otherwise it shrinks by
//!   `step` — `S` settles at the smallest size beyond which the read-ahead
//!   hit rate stops improving by more than the threshold. `S` starts at
//!   `tap.start` × the cache and stays within `[step, cache]`; `step` is
//!   `tap.step` × the cache, at least one block.
//!
//! The paper's own constants (table length, degree, thresholds) were not
//! recoverable; the defaults are this module's.

use super::fifo::FifoSet;
use super::{BlockAccess, BlockContext, BlockPrefetch};
use crate::config::TapConfig;

#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    sequential_reads: u64,
    segment_reads: u64,
    prefetch_hits: u64,
    dropped_after_read: u64,
    culled: u64,
    evicted_unread: u64,
    ghost_hits: u64,
    grows: u64,
    shrinks: u64,
}

/// TaP.
pub struct Tap {
    /// Blocks per prefetched segment.
    degree: u64,
    table_entries: usize,
    drop_used: bool,
    capacity: u64,
    /// The prefetch cache's size `S`, its bounds seen, and its step, blocks.
    size: u64,
    size_min: u64,
    size_max: u64,
    step: u64,
    interval: u64,
    threshold: f64,
    /// Where recent reads end.
    table: FifoSet,
    /// Prefetched blocks not read, evicted nor culled, oldest first.
    unread: FifoSet,
    /// The last `step` blocks culled for room.
    ghost: FifoSet,
    /// Reads and ghost hits in the current interval.
    reads: u64,
    interval_ghost_hits: u64,
    /// Reused buffer: the blocks a segment read brought in.
    brought: Vec<u64>,
    n: Counters,
}

impl Tap {
    /// TaP reading segments of `degree` blocks, in a cache of `capacity` blocks.
    pub fn new(cfg: &TapConfig, degree: u64, capacity: u64) -> Tap {
        let capacity = capacity.max(1);
        let step = ((cfg.step * capacity as f64).round() as u64).clamp(1, capacity);
        let size = ((cfg.start * capacity as f64).round() as u64).clamp(step, capacity);
        Tap {
            degree: degree.max(1),
            table_entries: cfg.table.max(1) as usize,
            drop_used: cfg.drop_used,
            capacity,
            size,
            size_min: size,
            size_max: size,
            step,
            interval: cfg.interval.max(1) as u64,
            threshold: cfg.threshold,
            table: FifoSet::new(),
            unread: FifoSet::new(),
            ghost: FifoSet::new(),
            reads: 0,
            interval_ghost_hits: 0,
            brought: Vec::new(),
            n: Counters::default(),
        }
    }

    /// First reads of prefetched blocks (dropped once read) and misses on
    /// the ghost list.
    fn walk(&mut self, ctx: &mut dyn BlockContext, a: &BlockAccess) {
        if !self.unread.is_empty() {
            for b in a.block..a.end() {
                if self.unread.remove(b) {
                    self.n.prefetch_hits += 1;
                    if self.drop_used && ctx.drop_read(b) {
                        self.n.dropped_after_read += 1;
                    }
                }
            }
        }
        if !a.hit && !self.ghost.is_empty() {
            for b in a.first_miss..a.miss_end {
                if self.ghost.remove(b) {
                    self.n.ghost_hits += 1;
                    self.interval_ghost_hits += 1;
                }
            }
        }
    }

    /// Culls the oldest unread prefetched blocks beyond `S`.
    fn fit(&mut self, ctx: &mut dyn BlockContext) {
        while self.unread.len() as u64 > self.size {
            let Some(b) = self.unread.pop_oldest() else { break };
            if ctx.cull(b) {
                self.n.culled += 1;
                self.ghost.insert(b);
            }
        }
        self.ghost.trim(self.step as usize);
    }

    /// One more read; at an interval's end `S` moves by a step.
    fn tick(&mut self) {
        self.reads += 1;
        if self.reads < self.interval {
            return;
        }
        let gain = self.interval_ghost_hits as f64 / self.reads as f64;
        if gain > self.threshold {
            if self.size < self.capacity {
                self.size = (self.size + self.step).min(self.capacity);
                self.n.grows += 1;
            }
        } else if self.size > self.step {
            self.size = self.size.saturating_sub(self.step).max(self.step);
            self.n.shrinks += 1;
        }
        self.size_min = self.size_min.min(self.size);
        self.size_max = self.size_max.max(self.size);
        (self.reads, self.interval_ghost_hits) = (0, 0);
    }
}

impl BlockPrefetch for Tap {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        self.walk(ctx, &a);
        let end = a.end();
        if self.table.remove(a.block) {
            self.n.sequential_reads += 1;
            if !ctx.is_cached(end) {
                self.brought.clear();
                let mut brought = std::mem::take(&mut self.brought);
                if ctx.prefetch_noting(end, self.degree, &mut brought) > 0 {
                    self.n.segment_reads += 1;
                    for &b in &brought {
                        self.unread.insert(b);
                    }
                }
                self.brought = brought;
            }
        }
        self.table.insert(end);
        self.table.trim(self.table_entries);
        self.fit(ctx);
        self.tick();
    }

    fn on_evict(&mut self, ctx: &mut dyn BlockContext, block: u64, unused_prefetch: bool) {
        if unused_prefetch && !ctx.is_cached(block) && self.unread.remove(block) {
            self.n.evicted_unread += 1; // the LRU end came first
        }
    }

    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({
            "reconstruction": "algorithms.md §9 (decisions.md 10)",
            "segment_blocks": self.degree,
            "table_entries": self.table.len(),
            "prefetch_cache_blocks": self.size,
            "prefetch_cache_min_blocks": self.size_min,
            "prefetch_cache_max_blocks": self.size_max,
            "step_blocks": self.step,
            "unread_blocks": self.unread.len(),
            "sequential_reads": self.n.sequential_reads,
            "segment_reads": self.n.segment_reads,
            "prefetch_hits": self.n.prefetch_hits,
            "dropped_after_read": self.n.dropped_after_read,
            "culled_blocks": self.n.culled,
            "evicted_unread_blocks": self.n.evicted_unread,
            "ghost_hits": self.n.ghost_hits,
            "grows": self.n.grows,
            "shrinks": self.n.shrinks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::sets::double::Cache;

    fn tap(start: f64, step: f64, capacity: u64) -> Tap {
        let cfg = TapConfig { start, step, interval: 4, threshold: 0.2, ..TapConfig::default() };
        Tap::new(&cfg, 8, capacity)
    }

    #[test]
    fn a_read_continuing_a_table_entry_reads_the_next_segment_once_it_is_reached() {
        let mut t = tap(0.5, 0.1, 1000);
        let mut c = Cache::new();
        let a = c.demand(0, 100, 2);
        t.on_access(&mut c, a);
        assert!(c.reads.is_empty(), "a first read only enters the table");
        let a = c.demand(0, 102, 2); // starts where the last one ended
        t.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(104, 8)]);
        for b in [104, 106, 108] {
            let a = c.demand(0, b, 2);
            assert!(a.hit);
            t.on_access(&mut c, a);
        }
        assert_eq!(c.reads.len(), 1, "nothing more until the segment is used up");
        let a = c.demand(0, 110, 2);
        t.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(104, 8), (112, 8)]);
        // the segment's blocks were dropped as they were read
        assert_eq!(t.n.prefetch_hits, 8);
        assert!((104..112).all(|b| !c.is_cached(b)));
        // a read elsewhere is not sequential
        let a = c.demand(0, 500, 1);
        t.on_access(&mut c, a);
        assert_eq!(c.reads.len(), 2);
    }

    #[test]
    fn unread_prefetches_beyond_the_prefetch_cache_are_culled_and_their_ghosts_grow_it() {
        // S = 10 blocks, step = 10
        let mut t = tap(0.01, 0.01, 1000);
        assert_eq!((t.size, t.step), (10, 10));
        let mut c = Cache::new();
        // two streams that each get a segment and never read it
        for s in [0, 1000] {
            for b in [s, s + 1] {
                let a = c.demand(0, b, 1);
                t.on_access(&mut c, a);
            }
        }
        // 16 blocks prefetched, S = 10: the oldest 6 (stream 0's 2..8) are culled
        assert_eq!(t.unread.len(), 10);
        assert_eq!(t.n.culled, 6);
        assert_eq!(c.culled, (2..8).collect::<Vec<_>>());
        // that interval of 4 reads had no ghost hits, but S is at its floor (one step)
        assert_eq!((t.size, t.n.shrinks), (10, 0));
        // misses on culled blocks (none continuing a table entry) are ghost
        // hits: 3 of the next 4 reads, so S grows by a step
        for b in [7, 5, 3, 500] {
            let a = c.demand(0, b, 1);
            assert!(!a.hit);
            t.on_access(&mut c, a);
        }
        assert_eq!(t.n.ghost_hits, 3);
        assert_eq!((t.size, t.n.grows), (20, 1));
        assert_eq!(c.reads.len(), 2, "no read continued a stream");
    }
}
