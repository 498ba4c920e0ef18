//! FA_p/g, fixed asynchronous prefetching (algorithms.md §2; \[FAST07\]'s
//! FA_8/3, FA_64/31, FA_256/127): the first set is read with a sequential
//! miss as FS_p does; in every set the block at distance `g` from its last
//! block is tagged (the *trigger*, `g = 0` is the last block itself), and a
//! read of a trigger reads the next `p` blocks, before any miss.
//!
//! A set with fewer than `g + 1` blocks after the request it was read with
//! (its read passed over cached blocks at its end, or met the array's end)
//! is tagged on the first block after the request instead, as AMP's is
//! (since 2026-11-27): `last − g` would be a block the stream has read, a
//! tag that never fires. An asynchronous set cut as short (its read stopped
//! at a cached block) is tagged on its first block, where `last − g` would
//! fall on the set before it. Such a trigger remembers its set's last block;
//! any other is `g` before it.

use super::sets::{read_ahead, read_set_with_demand, trigger};
use super::{BlockAccess, BlockContext, BlockPrefetch};
use rustc_hash::FxHashMap;

/// FA_p/g (`g < p`, checked by the configuration).
pub struct FixedAsync {
    p: u64,
    g: u64,
    sync_reads: u64,
    async_reads: u64,
    /// Reused: the blocks a synchronous read brought in.
    brought: Vec<u64>,
    /// Triggers closer than `g` to their set's last block → that block.
    near_triggers: FxHashMap<u64, u64>,
}

impl FixedAsync {
    pub fn new(p: u64, g: u64) -> FixedAsync {
        debug_assert!(g < p);
        FixedAsync {
            p,
            g,
            sync_reads: 0,
            async_reads: 0,
            brought: Vec::new(),
            near_triggers: FxHashMap::default(),
        }
    }

    /// Tags the trigger of the set ending at `last` whose blocks from
    /// `ahead` on the stream has yet to read.
    fn tag(&mut self, ctx: &mut dyn BlockContext, ahead: u64, last: u64) {
        let trigger = trigger(ahead, last, self.g);
        if trigger + self.g == last {
            self.near_triggers.remove(&trigger);
        } else {
            self.near_triggers.insert(trigger, last);
        }
        ctx.set_tag(trigger);
    }
}

impl BlockPrefetch for FixedAsync {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        // triggers first: a read of one continues its set (which ends g
        // blocks further, or where the trigger remembers) with the next p
        // blocks
        for b in a.block..a.end() {
            if ctx.take_tag(b) {
                self.async_reads += 1;
                let last = self.near_triggers.remove(&b).unwrap_or(b + self.g);
                if let Some((first, last)) = read_ahead(ctx, last, self.p) {
                    self.tag(ctx, first, last);
                }
            }
        }
        if !a.hit && a.sequential {
            self.sync_reads += 1;
            if let Some(last) = read_set_with_demand(ctx, &a, self.p, &mut self.brought) {
                self.tag(ctx, a.end(), last);
            }
        }
    }
    fn on_evict(&mut self, ctx: &mut dyn BlockContext, block: u64, _unused: bool) {
        // per eviction: nothing to look up while no trigger is near its end
        if !self.near_triggers.is_empty() && !ctx.is_cached(block) {
            self.near_triggers.remove(&block);
        }
    }
    fn uses_sequential_detection(&self) -> bool {
        true
    }
    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({
            "p_blocks": self.p,
            "g_blocks": self.g,
            "sync_prefetches": self.sync_reads,
            "async_prefetches": self.async_reads,
            "near_triggers": self.near_triggers.len(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::sets::double::Cache;

    #[test]
    fn fa_8_3_tags_the_block_3_before_the_end_of_each_set() {
        let mut c = Cache::new();
        let mut fa = FixedAsync::new(8, 3);
        for b in [0, 2] {
            let a = c.demand(0, b, 2);
            fa.on_access(&mut c, a);
        }
        // the sequential miss at 2 read 4..=11: trigger 11 − 3 = 8
        assert_eq!(c.reads, vec![(4, 8)]);
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![8]);
        for b in [4, 6] {
            let a = c.demand(0, b, 2);
            fa.on_access(&mut c, a);
        }
        assert_eq!(c.reads.len(), 1, "no read before the trigger");
        let a = c.demand(0, 8, 2);
        fa.on_access(&mut c, a);
        // the trigger read the next set, 12..=19, whose trigger is 16
        assert_eq!(c.reads, vec![(4, 8), (12, 8)]);
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![16]);
        for b in [10, 12, 14, 16] {
            let a = c.demand(0, b, 2);
            fa.on_access(&mut c, a);
        }
        assert_eq!(c.reads, vec![(4, 8), (12, 8), (20, 8)]);
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![24]);
    }

    /// A set with fewer than g + 1 blocks after its request is tagged on the
    /// first of them, and that trigger reads after the set's last block.
    #[test]
    fn a_short_sets_trigger_is_the_first_block_after_the_request() {
        let mut c = Cache::new();
        let mut fa = FixedAsync::new(8, 3);
        c.cached.extend(6..12); // an older set's blocks
        for b in [0, 2] {
            let a = c.demand(0, b, 2);
            fa.on_access(&mut c, a);
        }
        // the miss at 2 reads [2, 12) passing over 6..=11: 4 and 5 brought in;
        // last − g = 2 is the request's own block, so 4 is tagged
        assert_eq!(c.reads, vec![(4, 2)]);
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![4]);
        assert_eq!(fa.near_triggers.get(&4), Some(&5));
        // its read continues after the set's last block, 5: 6..=11 cached, 12..=19
        let a = c.demand(0, 4, 2);
        fa.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(4, 2), (12, 8)]);
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![16]);
        assert!(fa.near_triggers.is_empty());
    }
}
