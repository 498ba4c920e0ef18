//! FA_p/g, fixed asynchronous prefetching (algorithms.md §2; [FAST07]'s
//! FA_8/3, FA_64/31, FA_256/127): the first set is read with a sequential
//! miss as FS_p does; in every set the block at distance `g` from its last
//! block is tagged (the *trigger*, `g = 0` is the last block itself), and a
//! read of a trigger reads the next `p` blocks, before any miss.

use super::sets::{read_ahead, read_set_with_demand};
use super::{BlockAccess, BlockContext, BlockPrefetch};

/// FA_p/g (`g < p`, checked by the configuration).
pub struct FixedAsync {
    p: u64,
    g: u64,
    sync_reads: u64,
    async_reads: u64,
    /// Reused: the blocks a synchronous read brought in.
    brought: Vec<u64>,
}

impl FixedAsync {
    pub fn new(p: u64, g: u64) -> FixedAsync {
        debug_assert!(g < p);
        FixedAsync { p, g, sync_reads: 0, async_reads: 0, brought: Vec::new() }
    }

    /// Tags the trigger of the set ending at `last`.
    fn tag(&self, ctx: &mut dyn BlockContext, last: u64) {
        ctx.set_tag(last - self.g.min(last));
    }
}

impl BlockPrefetch for FixedAsync {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        // triggers first: a read of one continues its set (which ends g
        // blocks further) with the next p blocks
        for b in a.block..a.end() {
            if ctx.take_tag(b) {
                self.async_reads += 1;
                if let Some((_, last)) = read_ahead(ctx, b + self.g, self.p) {
                    self.tag(ctx, last);
                }
            }
        }
        if !a.hit && a.sequential {
            self.sync_reads += 1;
            if let Some(last) = read_set_with_demand(ctx, &a, self.p, &mut self.brought) {
                self.tag(ctx, last);
            }
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
}
