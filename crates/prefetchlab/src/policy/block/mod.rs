//! Block-level prefetching in the array cache (algorithms.md §2): the home of
//! the RAID-layer schemes (MSP, SP/ASP/LSP, AMP, …), one file per scheme:
//!
//! | `array_cache.prefetch` | file | spec |
//! |---|---|---|
//! | `none` | [`none`] | §2 "No prefetching" |
//! | `obl` | [`obl`] | §2 OBL, on a sequential miss (decisions.md 6d, 6f) |
//! | `linux` | — | Linux readahead on the array's blocks: the policies of [`crate::policy::readahead`] driven by the engine's trace replay, not a [`BlockPrefetch`] |
//!
//! A block policy sees every logical block request that reaches the array
//! (hit or miss) and answers with ranges of array blocks to prefetch into the
//! array cache. Sequential detection (SARC's per-unit counters,
//! `array_cache.seq_threshold`) is kept by the array cache and reported in
//! [`BlockAccess::sequential`].

pub mod none;
pub mod obl;

pub use none::NoBlockPrefetch;
pub use obl::BlockObl;

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
