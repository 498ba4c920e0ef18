//! One-block lookahead in the array cache (algorithms.md §2; decisions.md
//! 6d, 6f): one block past a sequential miss.

use super::{BlockAccess, BlockContext, BlockPrefetch};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::{BlockAccess, BlockContext};
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
