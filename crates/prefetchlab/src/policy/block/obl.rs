//! One-block lookahead in the array cache (algorithms.md §2; decisions.md
//! 6d, 6f): one block past a sequential miss, read with it.

use super::sets::read_with_demand;
use super::{BlockAccess, BlockContext, BlockPrefetch};

/// OBL at block level: on a *sequential* miss of `[b, b+n)`, also fetch
/// block `b+n`, in the same read (decisions.md 6d and 6f: miss-triggered,
/// on a miss whose first missing block is sequential by the array cache's
/// detection, `array_cache.seq_threshold`); an isolated miss fetches
/// nothing more. It is FS with `p = 1` (§2).
#[derive(Default)]
pub struct BlockObl {
    prefetches: u64,
}

impl BlockPrefetch for BlockObl {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        if !a.hit && a.sequential {
            self.prefetches += 1;
            read_with_demand(ctx, &a, 1);
        }
    }
    fn uses_sequential_detection(&self) -> bool {
        true
    }
    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({ "sync_prefetches": self.prefetches })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::sets::double::Cache;

    #[test]
    fn obl_fetches_the_next_block_on_a_sequential_miss_only() {
        let mut c = Cache::new();
        let mut p = BlockObl::default();
        let a = c.demand(0, 10, 2);
        p.on_access(&mut c, a);
        assert!(c.reads.is_empty(), "an isolated miss fetches nothing more");
        let a = c.demand(0, 12, 1);
        p.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(13, 1)]);
        let a = c.demand(0, 13, 1);
        p.on_access(&mut c, a);
        assert_eq!(c.reads.len(), 1, "a hit fetches nothing");
        c.capacity = 15;
        let a = c.demand(0, 14, 1);
        p.on_access(&mut c, a);
        assert_eq!(c.reads.len(), 1, "no prefetch past the end of the array");
    }
}
