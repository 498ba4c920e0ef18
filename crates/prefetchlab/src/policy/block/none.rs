//! No block-level prefetching: the array cache fetches exactly the blocks
//! requested (algorithms.md §2).

use super::{BlockAccess, BlockContext, BlockPrefetch};

/// No block-level prefetching.
pub struct NoBlockPrefetch;

impl BlockPrefetch for NoBlockPrefetch {
    fn on_access(&mut self, _ctx: &mut dyn BlockContext, _access: BlockAccess) {}
}
