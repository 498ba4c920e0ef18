//! FS_p, fixed synchronous prefetching (algorithms.md §2; \[FAST07\]'s FS_8,
//! FS_64, FS_256): on a *sequential miss* (decisions.md 6d, the array
//! cache's detection), the request's missing blocks and the `p` blocks
//! after it are read as one request; nothing is read ahead of a miss.

use super::sets::read_with_demand;
use super::{BlockAccess, BlockContext, BlockPrefetch};

/// FS_p.
pub struct FixedSync {
    p: u64,
    sync_reads: u64,
}

impl FixedSync {
    pub fn new(p: u64) -> FixedSync {
        FixedSync { p, sync_reads: 0 }
    }
}

impl BlockPrefetch for FixedSync {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        if !a.hit && a.sequential {
            self.sync_reads += 1;
            read_with_demand(ctx, &a, self.p);
        }
    }
    fn uses_sequential_detection(&self) -> bool {
        true
    }
    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({ "p_blocks": self.p, "sync_prefetches": self.sync_reads })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::sets::double::Cache;

    #[test]
    fn a_sequential_miss_reads_p_more_blocks_and_an_isolated_one_does_not() {
        let mut c = Cache::new();
        let mut fs = FixedSync::new(8);
        let a = c.demand(0, 0, 2);
        fs.on_access(&mut c, a);
        assert!(c.reads.is_empty(), "an isolated miss reads the request only");
        let a = c.demand(0, 2, 2);
        fs.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(4, 8)]);
        for b in [4, 6, 8, 10] {
            let a = c.demand(0, b, 2);
            assert!(a.hit);
            fs.on_access(&mut c, a);
        }
        assert_eq!(c.reads.len(), 1, "hits read nothing ahead: FS is synchronous only");
        let a = c.demand(0, 12, 2);
        fs.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(4, 8), (14, 8)]);
    }
}
