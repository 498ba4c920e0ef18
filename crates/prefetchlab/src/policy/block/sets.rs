//! What the sequential-set schemes share (algorithms.md §2, §7: FS, FA,
//! AS, AMP, OBL): a *prefetched set* read with the demand on a sequential
//! miss, the next set read ahead of a stream, the index of sets by their
//! last block, and a test double of the array cache for the schemes' unit
//! tests.

use super::{BlockAccess, BlockContext};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// Prefetched sets `[first, last]` with what each carries (`M`), kept by
/// their last block — where AMP keeps a stream's `p` and `g` (§7.1: "in the
/// metadata of the last page of each prefetched set"). Every block of a set
/// leads to it ([`SetIndex::holding`]), as every page of AMP's sets links to
/// its set's last page; a set is forgotten when its last block leaves the
/// cache. A synchronous read passes over the cached blocks in its range
/// ([`read_set_with_demand`]: what is left of a late set, its last block
/// kept by its second chance): those keep their own sets, as each of AMP's
/// pages keeps its link, so sets may overlap. [`SetIndex::holding`] gives the
/// set with the nearest last block at or after a block that starts at or
/// before it: for the newer set's blocks up to an older set's last block,
/// that older set (AMP follows its chain to the stream's newest set, the
/// newer one, for `p` and `g`); for an older set's blocks before a newer set
/// nested in it, none.
#[derive(Debug, Clone)]
pub struct SetIndex<M> {
    /// By last block: the first block and what the set carries (every
    /// lookup but [`SetIndex::holding`], O(1): evictions ask it of every block).
    by_last: FxHashMap<u64, (u64, M)>,
    /// The last blocks in order, for [`SetIndex::holding`].
    lasts: BTreeSet<u64>,
}

impl<M> Default for SetIndex<M> {
    fn default() -> Self {
        SetIndex { by_last: FxHashMap::default(), lasts: BTreeSet::new() }
    }
}

impl<M> SetIndex<M> {
    /// Records the set `[first, last]`.
    pub fn insert(&mut self, first: u64, last: u64, meta: M) {
        if self.by_last.insert(last, (first.min(last), meta)).is_none() {
            self.lasts.insert(last);
        }
    }

    /// The set whose last block is `last`.
    #[inline]
    pub fn get(&self, last: u64) -> Option<&M> {
        self.by_last.get(&last).map(|(_, m)| m)
    }

    #[inline]
    pub fn get_mut(&mut self, last: u64) -> Option<&mut M> {
        self.by_last.get_mut(&last).map(|(_, m)| m)
    }

    /// The last block of the set holding `block`, if any.
    #[inline]
    pub fn holding(&self, block: u64) -> Option<u64> {
        if self.by_last.contains_key(&block) {
            return Some(block); // the common case: a stream's miss right after a set
        }
        let &last = self.lasts.range(block..).next()?;
        (self.by_last[&last].0 <= block).then_some(last)
    }

    /// Forgets the set whose last block is `last`.
    #[inline]
    pub fn remove(&mut self, last: u64) -> Option<M> {
        let (_, m) = self.by_last.remove(&last)?;
        self.lasts.remove(&last);
        Some(m)
    }

    pub fn len(&self) -> usize {
        self.by_last.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_last.is_empty()
    }

    /// What each set carries.
    pub fn values(&self) -> impl Iterator<Item = &M> {
        self.by_last.values().map(|(_, m)| m)
    }
}

/// On a miss: reads the demand's missing blocks and the `p` blocks after
/// the request, as one read (`[first_miss, end + p)`: §2 "on a sequential
/// miss at `b`, read `b … b+p` in one request", §7.2 "synchronously read `x
/// …` plus p pages"). Blocks of the range already cached stay as they are
/// (the read passes over them): where a late set left its last block behind
/// (its lower blocks evicted unread, the last kept by its second chance) the
/// read goes on past it, as the specification reads, rather than stopping
/// there and leaving a set of the evicted gap alone. Returns the blocks
/// brought in.
pub fn read_with_demand(ctx: &mut dyn BlockContext, a: &BlockAccess, p: u64) -> u64 {
    ctx.prefetch(a.first_miss, a.end().saturating_add(p) - a.first_miss)
}

/// [`read_with_demand`] for the schemes that keep sets: `brought` gets the
/// blocks the read brought in past the request, in block order, and the last
/// of them is returned, the set's last block (`None` when the read brought
/// none in: every block cached, `p` of 0, the array's end, no room). The set
/// is `[first_miss, last]`; the blocks it passed over keep their own sets.
pub fn read_set_with_demand(
    ctx: &mut dyn BlockContext,
    a: &BlockAccess,
    p: u64,
    brought: &mut Vec<u64>,
) -> Option<u64> {
    brought.clear();
    ctx.prefetch_noting(a.first_miss, a.end().saturating_add(p) - a.first_miss, brought);
    brought.retain(|&b| b >= a.end());
    brought.last().copied()
}

/// Reads the next set of a stream whose current set ends at `last`: up to
/// `p` blocks from the first block after `last` that is not cached (at most
/// `p` cached blocks are skipped), up to the next cached block, as one read
/// (§2 "asynchronous prefetch"; AMP: "the p pages after those already
/// cached"). Returns the new set `(first, last)`, or `None` when nothing was
/// read.
pub fn read_ahead(ctx: &mut dyn BlockContext, last: u64, p: u64) -> Option<(u64, u64)> {
    let mut start = last.saturating_add(1);
    let limit = start.saturating_add(p);
    while start < limit && ctx.is_cached(start) {
        start += 1;
    }
    let stop = absent_until(ctx, start, start.saturating_add(p));
    if stop == start || ctx.prefetch(start, stop - start) == 0 {
        return None;
    }
    last_cached(ctx, start, stop).map(|last| (start, last))
}

/// The trigger of a set ending at `last` whose blocks from `ahead` on the
/// stream has yet to read (`ahead` is the first block after the request a
/// synchronous set was read with, an asynchronous set's first): the block
/// `g` before `last` (§2: "at distance g from the set's last page"), or
/// `ahead` when fewer than `g + 1` blocks follow it — never a block the
/// stream has read, where the tag would never fire.
#[inline]
pub fn trigger(ahead: u64, last: u64, g: u64) -> u64 {
    debug_assert!(ahead <= last);
    last - g.min(last - ahead)
}

/// The first cached block of `[from, limit)`, or `limit`.
fn absent_until(ctx: &dyn BlockContext, mut from: u64, limit: u64) -> u64 {
    while from < limit && !ctx.is_cached(from) {
        from += 1;
    }
    from
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
/// arrive at once), the reads asked for, tags, second chances, culls and drops.
#[cfg(test)]
pub mod double {
    use super::super::{BlockAccess, BlockContext};
    use std::collections::{BTreeMap, BTreeSet};

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
        /// The policy's words of cached blocks (a block brought in starts at 0).
        pub words: BTreeMap<u64, u64>,
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
            for b in &absent {
                self.words.remove(b);
            }
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
            for b in &got {
                self.words.remove(b);
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
        fn now_ns(&self) -> u64 {
            0
        }
        fn word(&self, block: u64) -> u64 {
            if self.cached.contains(&block) {
                self.words.get(&block).copied().unwrap_or(0)
            } else {
                0
            }
        }
        fn set_word(&mut self, block: u64, word: u64) {
            if self.cached.contains(&block) {
                self.words.insert(block, word);
            }
        }
        fn drop_read(&mut self, block: u64) -> bool {
            if !self.cached.contains(&block) || self.unread.contains(&block) {
                return false;
            }
            self.cached.remove(&block);
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::double::Cache;
    use super::*;

    /// A trigger is `g` before the set's last block, never before the
    /// first block the stream has yet to read.
    #[test]
    fn a_trigger_is_g_before_the_end_or_the_first_block_ahead() {
        assert_eq!(trigger(50, 57, 5), 52, "a whole set");
        assert_eq!(trigger(40, 41, 5), 40, "a short set: its first block");
        assert_eq!(trigger(66, 67, 5), 66, "a short synchronous set: the first block after the request");
        assert_eq!(
            (trigger(7, 7, 0), trigger(0, 3, 3)),
            (7, 0),
            "g = 0 is the last block; the array's start"
        );
    }

    #[test]
    fn a_set_is_read_with_the_demand_and_the_next_after_the_cached_blocks() {
        let mut c = Cache::new();
        c.cached.insert(9);
        let a = c.demand(0, 10, 2);
        let mut brought = Vec::new();
        assert_eq!(read_set_with_demand(&mut c, &a, 4, &mut brought), Some(15));
        assert_eq!(c.reads, vec![(12, 4)], "the demand blocks were read by the demand");
        c.cached.insert(16);
        assert_eq!(read_ahead(&mut c, 15, 4), Some((17, 20)), "16 is cached: the set is 17..=20");
        c.cached.insert(23);
        assert_eq!(read_ahead(&mut c, 20, 4), Some((21, 22)), "a set stops at a cached block");
        let a = c.demand(0, 24, 2);
        assert_eq!(read_set_with_demand(&mut c, &a, 4, &mut brought), Some(29));
        // what a late set leaves: its last block, cached right after the request
        c.cached.insert(32);
        let a = c.demand(0, 30, 2);
        assert_eq!(read_set_with_demand(&mut c, &a, 4, &mut brought), Some(35), "the read goes on past it");
        assert_eq!(
            (c.reads.last(), &brought[..]),
            (Some(&(33, 3)), &[33, 34, 35][..]),
            "and leaves it as it is"
        );
        // the range's last block cached before: the set ends at the last block read
        c.cached.insert(41);
        let a = c.demand(0, 36, 2);
        assert_eq!(read_set_with_demand(&mut c, &a, 4, &mut brought), Some(40));
        let a = c.demand(0, 44, 2);
        c.cached.extend(46..50);
        assert_eq!(read_set_with_demand(&mut c, &a, 4, &mut brought), None, "every block after it cached");
        let a = c.demand(0, 52, 2);
        assert_eq!(read_set_with_demand(&mut c, &a, 0, &mut brought), None, "p = 0");
        let a = c.demand(0, 56, 2);
        assert_eq!(read_with_demand(&mut c, &a, 1), 1, "FS and OBL: the blocks brought in");
        // clipped at the array's end, the blocks before it cached: nothing read
        c.capacity = 62;
        c.cached.extend(60..62);
        let a = c.demand(0, 58, 2);
        assert_eq!(read_set_with_demand(&mut c, &a, 8, &mut brought), None);
        c.cached.clear();
        c.capacity = 22;
        assert_eq!(read_ahead(&mut c, 20, 4), Some((21, 21)), "clipped at the array's end");
        c.cached.insert(21);
        assert_eq!(read_ahead(&mut c, 21, 4), None);
    }

    #[test]
    fn every_block_of_a_set_leads_to_its_last() {
        let mut s = SetIndex::default();
        s.insert(10, 15, 'a');
        s.insert(20, 29, 'b');
        assert_eq!(
            (s.holding(9), s.holding(10), s.holding(15), s.holding(16)),
            (None, Some(15), Some(15), None)
        );
        assert_eq!((s.holding(25), s.get(29)), (Some(29), Some(&'b')));
        s.remove(15);
        assert_eq!(s.holding(12), None, "a set is forgotten with its last block");
        // a set read over the last block of an older one: that block keeps its set
        s.insert(26, 33, 'c');
        assert_eq!(
            (s.get(29), s.holding(20), s.holding(30), s.get(33)),
            (Some(&'b'), Some(29), Some(33), Some(&'c'))
        );
        assert_eq!(s.holding(27), Some(29), "up to the older set's last block, the older set");
    }

    #[test]
    fn degrees_are_counted_in_powers_of_two() {
        let h = degree_histogram([1, 2, 3, 8, 15, 256].into_iter());
        assert_eq!(h, serde_json::json!({"1": 1, "2-3": 2, "8-15": 2, "256-511": 1}));
    }
}
