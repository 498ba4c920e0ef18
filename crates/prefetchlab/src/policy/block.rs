//! Block-level prefetching in the array cache (algorithms.md §2): the home of
//! the RAID-layer schemes of later issues (MSP, SP/ASP/LSP, AMP, …).
//! Here: `none` and `obl`.
//!
//! A block policy sees every logical block request that reaches the array
//! (hit or miss) and answers with ranges of array blocks to prefetch into the
//! array cache.

use crate::config::BlockPrefetchPolicy;

/// One access as the array cache saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockAccess {
    /// First array block.
    pub block: u64,
    pub blocks: u64,
    /// Whether every block was already in the array cache.
    pub hit: bool,
    /// Whether the first block is sequential (the array cache's sequential
    /// detection, decisions.md 6d: with the default threshold 2, block − 1
    /// was cached when it entered); false for policies that do not ask.
    pub sequential: bool,
}

/// What a block policy may ask of the array cache.
pub trait BlockContext {
    /// Whether an array block is in the array cache (or in flight).
    fn is_cached(&self, block: u64) -> bool;
    /// Blocks in the array.
    fn capacity_blocks(&self) -> u64;
    /// Reads `[block, block+blocks)` into the array cache as prefetched blocks.
    fn prefetch(&mut self, block: u64, blocks: u64);
}

/// A block-level prefetching policy.
pub trait BlockPrefetch {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, access: BlockAccess);
    /// A block was evicted; `unused_prefetch` when it was prefetched and never read.
    fn on_evict(&mut self, _block: u64, _unused_prefetch: bool) {}
}

/// No block-level prefetching.
pub struct NoBlockPrefetch;

impl BlockPrefetch for NoBlockPrefetch {
    fn on_access(&mut self, _ctx: &mut dyn BlockContext, _access: BlockAccess) {}
}

/// OBL at block level: on a *sequential* miss of `[b, b+n)`, also fetch
/// block `b+n` (decisions.md 6d and 6f: miss-triggered, on a miss whose
/// first block is sequential by the array cache's detection,
/// `array_cache.seq_threshold`); an isolated miss fetches nothing more.
pub struct BlockObl;

impl BlockPrefetch for BlockObl {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        let next = a.block + a.blocks;
        if !a.hit && a.sequential && next < ctx.capacity_blocks() && !ctx.is_cached(next) {
            ctx.prefetch(next, 1);
        }
    }
}

/// The policy `policy` names; Linux readahead at the array is not a
/// [`BlockPrefetch`] (it runs the readahead policies of
/// [`crate::policy::readahead`] over array blocks, in the engine's trace
/// replay), so it prefetches nothing here.
pub fn build(policy: BlockPrefetchPolicy) -> Box<dyn BlockPrefetch> {
    match policy {
        BlockPrefetchPolicy::None | BlockPrefetchPolicy::Linux => Box::new(NoBlockPrefetch),
        BlockPrefetchPolicy::Obl => Box::new(BlockObl),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    struct Ctx(BTreeSet<u64>, Vec<(u64, u64)>);
    impl BlockContext for Ctx {
        fn is_cached(&self, b: u64) -> bool {
            self.0.contains(&b)
        }
        fn capacity_blocks(&self) -> u64 {
            100
        }
        fn prefetch(&mut self, b: u64, n: u64) {
            self.1.push((b, n));
            for x in b..b + n {
                self.0.insert(x);
            }
        }
    }

    #[test]
    fn obl_fetches_the_next_block_on_a_sequential_miss_only() {
        let mut c = Ctx(BTreeSet::new(), vec![]);
        let mut p = BlockObl;
        p.on_access(&mut c, BlockAccess { block: 10, blocks: 2, hit: false, sequential: false });
        assert!(c.1.is_empty(), "an isolated miss fetches nothing more");
        p.on_access(&mut c, BlockAccess { block: 10, blocks: 2, hit: false, sequential: true });
        assert_eq!(c.1, vec![(12, 1)]);
        p.on_access(&mut c, BlockAccess { block: 12, blocks: 1, hit: true, sequential: true });
        assert_eq!(c.1.len(), 1);
        p.on_access(&mut c, BlockAccess { block: 99, blocks: 1, hit: false, sequential: true });
        assert_eq!(c.1.len(), 1, "no prefetch past the end of the array");
    }
}
