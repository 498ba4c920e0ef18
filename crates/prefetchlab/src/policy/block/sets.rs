//! What the sequential-set schemes share (algorithms.md §2, §7: FS, FA,
//! AS, AMP, OBL): a *prefetched set* read with the demand on a sequential
//! miss, the next set read ahead of a stream, and a test double of the
//! array cache for the schemes' unit tests.

use super::{BlockAccess, BlockContext};

/// On a miss: reads the demand's missing blocks and the `p` blocks after
/// the request, as one read (`[first_miss, end + p)`, §2 "synchronous
/// prefetch"). Returns the set's last block, or `None` when nothing past
/// the request could be read (the array's end, or no room).
pub fn read_with_demand(ctx: &mut dyn BlockContext, a: &BlockAccess, p: u64) -> Option<u64> {
    let end = a.end().saturating_add(p);
    ctx.prefetch(a.first_miss, end - a.first_miss);
    last_cached(ctx, a.end(), end)
}

/// Reads the next set of a stream whose current set ends at `last`: `p`
/// blocks from the first block after `last` that is not cached (at most
/// `p` cached blocks are skipped), as one read (§2 "asynchronous
/// prefetch"; AMP: "the p pages after those already cached"). Returns the
/// new set's last block, or `None` when nothing was read.
pub fn read_ahead(ctx: &mut dyn BlockContext, last: u64, p: u64) -> Option<u64> {
    let mut start = last.saturating_add(1);
    let limit = start.saturating_add(p);
    while start < limit && ctx.is_cached(start) {
        start += 1;
    }
    let end = start.saturating_add(p);
    if ctx.prefetch(start, end - start) == 0 {
        return None;
    }
    last_cached(ctx, start, end)
}

/// The last cached block of `[from, end)`, or `None`.
fn last_cached(ctx: &dyn BlockContext, from: u64, end: u64) -> Option<u64> {
    (from..end).rev().find(|&b| ctx.is_cached(b))
}

/// A histogram of degrees in powers of two (`"1"`, `"2-3"`, `"4-7"`, …),
/// for the schemes' state reports.
pub fn degree_histogram(degrees: impl Iterator<Item = u64>) -> serde_json::Value {
    let mut counts = [0u64; 33];
    for d in degrees {
        counts[(64 - d.max(1).leading_zeros() as usize - 1).min(32)] += 1;
    }
    let mut m = serde_json::Map::new();
    for (i, &c) in counts.iter().enumerate() {
        if c > 0 {
            let lo = 1u64 << i;
            let key = if lo == 1 { "1".to_string() } else { format!("{}-{}", lo, 2 * lo - 1) };
            m.insert(key, c.into());
        }
    }
    serde_json::Value::Object(m)
}

/// A test double of the array cache: a set of cached blocks (prefetches
/// arrive at once), the reads asked for, tags, second chances and culls.
#[cfg(test)]
pub mod double {
    use super::super::{BlockAccess, BlockContext};
    use std::collections::BTreeSet;

    #[derive(Default)]
    pub struct Cache {
        pub cached: BTreeSet<u64>,
        pub tags: BTreeSet<u64>,
        pub chances: BTreeSet<u64>,
        /// Prefetched blocks not read yet (a demand read clears them).
        pub unread: BTreeSet<u64>,
        /// Blocks culled, in order.
        pub culled: Vec<u64>,
        /// `(first, blocks)` of each prefetch that read something.
        pub reads: Vec<(u64, u64)>,
        pub capacity: u64,
    }

    impl Cache {
        pub fn new() -> Cache {
            Cache { capacity: u64::MAX, ..Default::default() }
        }

        /// The demand read of `[block, block+blocks)` as the array cache
        /// hands it to a policy: absent blocks become cached; `sequential`
        /// as decisions.md 6d (the block before the first miss was cached).
        pub fn demand(&mut self, stream: u32, block: u64, blocks: u64) -> BlockAccess {
            let absent: Vec<u64> = (block..block + blocks).filter(|b| !self.cached.contains(b)).collect();
            let hit = absent.is_empty();
            let first_miss = absent.first().copied().unwrap_or(block);
            let miss_end = absent.last().map_or(block, |b| b + 1);
            let sequential = first_miss > 0 && self.cached.contains(&(first_miss - 1));
            self.cached.extend(absent);
            for b in block..block + blocks {
                self.unread.remove(&b);
            }
            BlockAccess { stream, block, blocks, hit, first_miss, miss_end, sequential }
        }
    }

    impl BlockContext for Cache {
        fn is_cached(&self, block: u64) -> bool {
            self.cached.contains(&block)
        }
        fn prefetch(&mut self, block: u64, blocks: u64) -> u64 {
            let end = block.saturating_add(blocks).min(self.capacity);
            let got: Vec<u64> = (block..end).filter(|b| !self.cached.contains(b)).collect();
            if let (Some(&f), Some(&l)) = (got.first(), got.last()) {
                self.reads.push((f, l + 1 - f));
            }
            self.cached.extend(&got);
            self.unread.extend(&got);
            got.len() as u64
        }
        fn set_tag(&mut self, block: u64) {
            if self.cached.contains(&block) {
                self.tags.insert(block);
            }
        }
        fn take_tag(&mut self, block: u64) -> bool {
            self.tags.remove(&block)
        }
        fn give_second_chance(&mut self, block: u64) {
            self.chances.insert(block);
        }
        fn cull(&mut self, block: u64) -> bool {
            if !self.unread.remove(&block) {
                return false;
            }
            self.cached.remove(&block);
            self.culled.push(block);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::double::Cache;
    use super::*;

    #[test]
    fn a_set_is_read_with_the_demand_and_the_next_after_the_cached_blocks() {
        let mut c = Cache::new();
        c.cached.insert(9);
        let a = c.demand(0, 10, 2);
        assert_eq!(read_with_demand(&mut c, &a, 4), Some(15));
        assert_eq!(c.reads, vec![(12, 4)], "the demand blocks were read by the demand");
        c.cached.insert(16);
        assert_eq!(read_ahead(&mut c, 15, 4), Some(20), "16 is cached: the set is 17..=20");
        c.capacity = 22;
        assert_eq!(read_ahead(&mut c, 20, 4), Some(21), "clipped at the array's end");
        assert_eq!(read_ahead(&mut c, 21, 4), None);
    }

    #[test]
    fn degrees_are_counted_in_powers_of_two() {
        let h = degree_histogram([1, 2, 3, 8, 15, 256].into_iter());
        assert_eq!(h, serde_json::json!({"1": 1, "2-3": 2, "8-15": 2, "256-511": 1}));
    }
}
