//! Block-level prefetching in the array cache (algorithms.md §2, §5–§7): the
//! RAID-layer schemes, one file per scheme:
//!
//! | `array_cache.prefetch` | file | spec |
//! |---|---|---|
//! | `none` | [`none`] | §2 "No prefetching" |
//! | `obl` | [`obl`] | §2 OBL, on a sequential miss (decisions.md 6d, 6f) |
//! | `fs` | [`fs`] | §2 FS_p: synchronous, fixed degree `p` |
//! | `fa` | [`fa`] | §2 FA_p/g: FS_p plus an asynchronous set at the trigger `g` |
//! | `as-linear`, `as-exp` | [`adaptive`] | §2 AS_Linear, AS_Exp (decisions.md 6, 6e) |
//! | `amp` | [`amp`] | §7 AMP (decisions.md 6–6d) |
//! | `sp` | [`sp`] | §5.1 SP: the whole strip of a miss |
//! | `lsp` | [`lsp`] | §6 LSP (decisions.md 7–7c) |
//! | `asp` | [`asp`] | §5.2 ASP, a reconstruction (decisions.md 5): SP with adaptive cache culling and a prefetch gate |
//! | `msp` | [`msp`] | §3.2 MSP (decisions.md 1–1c): a semi-sequential detector, whole stripes ahead while it fires |
//! | `tap` | [`tap`] | §9 TaP, a reconstruction (decisions.md 10): a table of stream ends, segments read ahead into a self-sizing prefetch cache |
//! | `linux` | — | Linux readahead on the array's blocks: the policies of [`crate::policy::readahead`] driven by the engine's trace replay, not a [`BlockPrefetch`] |
//!
//! # What a policy sees, and when
//!
//! A logical read reaching the array cache is handled in three steps, the
//! same in a timed run (the engine) and in the cache-only mode:
//! 1. *the demand*: its cached blocks are hits (made most recent), blocks in
//!    flight are waited for, and its absent blocks get slots (counted as
//!    misses) — but in a timed run their disk read is **not sent yet**;
//! 2. *the policy* is called ([`BlockPrefetch::on_access`]) with the access
//!    ([`BlockAccess`]: the requester, the range, whether it hit, its first
//!    missing block and whether that one is a sequential miss) and a
//!    [`BlockContext`]. A [`BlockContext::prefetch`] range that touches or
//!    overlaps the demand's unsent read **joins it**: one array read, one
//!    disk request per strip, as SP, FS and AMP fold their prefetch into the
//!    demand read in the papers;
//! 3. the demand's reads, grown or not, are sent.
//!
//! Hooks follow the cache's life: [`BlockPrefetch::on_evict`] (with whether
//! the block was prefetched and never read — AMP, LSP, ASP; not for a block
//! the policy culled or dropped itself, [`BlockContext::cull`], ASP and TaP,
//! [`BlockContext::drop_read`], TaP),
//! [`BlockPrefetch::on_second_chance`] (a block the policy marked reached the
//! LRU end unread and was moved back to the MRU end once, AMP's `old`), and
//! [`BlockPrefetch::on_complete`] (a read holding prefetched blocks
//! completed; `waited` when a later read was already waiting for it — AMP's
//! `readWaiting`; a timed run only, the cache-only mode has no clock).
//!
//! The policy object is the array's own state (LSP's areas, AMP's set
//! metadata): one per array, built by [`build`] with the array's
//! [`Geometry`]. Each reports its counters as a JSON object
//! ([`BlockPrefetch::state_json`], the `block_policy_state` metric).
//!
//! Sequential detection (SARC's per-unit counters, `array_cache.seq_threshold`,
//! decisions.md 6d) is kept by the array cache for the policies that ask
//! ([`BlockPrefetch::uses_sequential_detection`]).

pub mod adaptive;
pub mod amp;
pub mod asp;
pub mod fa;
pub mod fifo;
pub mod fs;
pub mod lsp;
pub mod msp;
pub mod none;
pub mod obl;
pub mod sets;
pub mod sp;
pub mod tap;

pub use adaptive::{AdaptiveSync, Growth};
pub use amp::Amp;
pub use asp::Asp;
pub use fa::FixedAsync;
pub use fs::FixedSync;
pub use lsp::Lsp;
pub use msp::Msp;
pub use none::NoBlockPrefetch;
pub use obl::BlockObl;
pub use sp::StripPrefetch;
pub use tap::Tap;

use crate::array::layout::ArrayLayout;
use crate::config::{BlockPrefetchPolicy, Config};

/// One logical read as the array cache saw it before it was served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockAccess {
    /// The requester (the stream, or the trace's stream).
    pub stream: u32,
    /// First array block.
    pub block: u64,
    pub blocks: u64,
    /// Whether every block was in the array cache (or in flight) already.
    pub hit: bool,
    /// The first block that was absent (`block` when it hit).
    pub first_miss: u64,
    /// One past the last block that was absent (`block` when it hit).
    pub miss_end: u64,
    /// Whether `first_miss` (the first block, on a hit) is sequential by
    /// the array cache's detection (decisions.md 6d: with the default
    /// threshold 2, `first_miss − 1` was cached when it entered); false for
    /// policies that do not ask.
    pub sequential: bool,
}

impl BlockAccess {
    /// One past the last block.
    #[inline]
    pub fn end(&self) -> u64 {
        self.block + self.blocks
    }
}

/// The array as a block policy sees it: strips, disks, capacity, in cache
/// blocks.
#[derive(Debug, Clone)]
pub struct Geometry {
    layout: ArrayLayout,
    /// Bytes per cache block.
    pub block_bytes: u64,
    /// Blocks in the array (`u64::MAX` in the cache-only mode, where a
    /// trace may address any block).
    pub capacity_blocks: u64,
}

impl Geometry {
    /// `layout` counts in cache blocks of `block_bytes`.
    pub fn new(layout: ArrayLayout, block_bytes: u64, capacity_blocks: u64) -> Geometry {
        Geometry { layout, block_bytes, capacity_blocks }
    }

    /// Blocks per strip (chunk).
    #[inline]
    pub fn strip_blocks(&self) -> u64 {
        self.layout.strip_blocks()
    }

    /// Data strips per stripe.
    pub fn data_disks(&self) -> u32 {
        self.layout.data_disks()
    }

    /// Member disks.
    pub fn disks(&self) -> u32 {
        self.layout.disks()
    }

    /// Whether the array stripes data over several disks (SP, LSP need strips).
    pub fn is_striped(&self) -> bool {
        self.layout.layout() != crate::config::Layout::Single
    }

    /// The strip holding `block`.
    #[inline]
    pub fn strip_of(&self, block: u64) -> u64 {
        block / self.strip_blocks()
    }

    /// The disk holding `block` (its first copy on RAID-10).
    pub fn disk_of(&self, block: u64) -> u32 {
        self.layout.disk_of_strip(self.strip_of(block))
    }
}

/// What a block policy may ask of the array cache.
pub trait BlockContext {
    /// Whether an array block is in the array cache (or in flight).
    fn is_cached(&self, block: u64) -> bool;
    /// Reads the absent blocks of `[block, block+blocks)` (clipped to the
    /// array) into the cache as prefetched blocks, as **one** array read
    /// from the first absent block to the last (cached blocks between them
    /// are read again and dropped: the head passes over them anyway). A
    /// range touching the current access's unsent demand read joins it.
    /// Returns the blocks brought in (fewer when no room could be made).
    fn prefetch(&mut self, block: u64, blocks: u64) -> u64;
    /// [`BlockContext::prefetch`], also appending the blocks brought in to
    /// `brought` (in block order).
    fn prefetch_noting(&mut self, block: u64, blocks: u64, brought: &mut Vec<u64>) -> u64 {
        let from = brought.len();
        let end = block.saturating_add(blocks);
        brought.extend((block..end).filter(|&b| !self.is_cached(b)));
        let got = self.prefetch(block, blocks);
        let mut kept = from;
        for i in from..brought.len() {
            if self.is_cached(brought[i]) {
                brought[kept] = brought[i];
                kept += 1;
            }
        }
        brought.truncate(kept);
        got
    }
    /// [`BlockContext::prefetch_noting`], and the blocks brought in get the
    /// words `first_word`, `first_word + 1`, … in block order (ASP's stamps:
    /// set as the slots are taken, not by a lookup of each block after).
    fn prefetch_stamping(&mut self, block: u64, blocks: u64, brought: &mut Vec<u64>, first_word: u64) -> u64 {
        let from = brought.len();
        let got = self.prefetch_noting(block, blocks, brought);
        for (k, &b) in brought[from..].iter().enumerate() {
            self.set_word(b, first_word + k as u64);
        }
        got
    }
    /// Tags a cached block as a trigger (no-op when absent).
    fn set_tag(&mut self, block: u64);
    /// Whether `block` is cached and tagged; clears the tag.
    fn take_tag(&mut self, block: u64) -> bool;
    /// Gives a cached block one second chance: if it reaches the LRU end
    /// unread, it moves to the MRU end instead of leaving, and the policy
    /// hears of it ([`BlockPrefetch::on_second_chance`]).
    fn give_second_chance(&mut self, block: u64);
    /// Evicts `block` now if it is cached, uptodate, prefetched and never
    /// read; returns whether it did (ASP's culling). A block in flight, read,
    /// dirty or waited for is kept. The policy is not told of a culled block
    /// through [`BlockPrefetch::on_evict`]: it knows.
    fn cull(&mut self, block: u64) -> bool;
    /// Evicts `block` now if it is cached, uptodate and was read; returns
    /// whether it did (TaP drops prefetched data once read). A block in
    /// flight, unread, dirty or waited for is kept; the policy is not told
    /// through [`BlockPrefetch::on_evict`].
    fn drop_read(&mut self, block: u64) -> bool;
    /// The simulated time, ns (0 in the cache-only mode, which has no clock).
    fn now_ns(&self) -> u64;
    /// The policy's own word for a cached block, 0 when absent or never
    /// set. It lives in the block's cache slot and leaves with it, so a
    /// block brought in again starts at 0 (ASP's prefetch stamps).
    fn word(&self, block: u64) -> u64;
    /// Sets the word of a cached block (no-op when absent).
    fn set_word(&mut self, block: u64, word: u64);
    /// The word of a cached block (0 when absent), which becomes 0.
    fn take_word(&mut self, block: u64) -> u64 {
        let word = self.word(block);
        if word != 0 {
            self.set_word(block, 0);
        }
        word
    }
    /// [`BlockContext::cull`] of each `(block, word)` in turn whose block
    /// still has the word `word` (ASP culls a block only while it holds the
    /// stamp of the prefetch that brought it), appending the blocks culled
    /// to `culled`. As a batch, a cache may look at every slot before it
    /// changes any (the loads overlap).
    fn cull_if_words(&mut self, due: &[(u64, u64)], culled: &mut Vec<u64>) {
        for &(block, word) in due {
            if self.word(block) == word && self.cull(block) {
                culled.push(block);
            }
        }
    }
}

/// A block-level prefetching policy (see the module doc for when each hook
/// is called).
pub trait BlockPrefetch {
    /// A logical read, after its demand blocks got slots and before they
    /// are read.
    fn on_access(&mut self, ctx: &mut dyn BlockContext, access: BlockAccess);
    /// A block left the cache; `unused_prefetch` when it was prefetched and
    /// never read. (A block may be back in the cache by the time the policy
    /// hears of it: `ctx` says.)
    fn on_evict(&mut self, _ctx: &mut dyn BlockContext, _block: u64, _unused_prefetch: bool) {}
    /// A block given a second chance reached the LRU end unread and moved
    /// to the MRU end.
    fn on_second_chance(&mut self, _ctx: &mut dyn BlockContext, _block: u64) {}
    /// An array read holding prefetched blocks `[block, block+blocks)`
    /// completed; `waited` when a read found its blocks in flight and waited.
    fn on_complete(&mut self, _ctx: &mut dyn BlockContext, _block: u64, _blocks: u64, _waited: bool) {}
    /// Whether the array cache keeps sequential detection for it.
    fn uses_sequential_detection(&self) -> bool {
        false
    }
    /// The policy's own counters, a JSON object (`{}` when it has none).
    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({})
    }
}

/// The policy `array_cache.prefetch` names, for an array of `geometry` (the
/// configuration is checked: a strip scheme has a striped array); Linux
/// readahead at the array is not a [`BlockPrefetch`] (it runs the readahead
/// policies of [`crate::policy::readahead`] over array blocks, in the
/// engine's trace replay), so it prefetches nothing here.
pub fn build(config: &Config, geometry: Geometry) -> Box<dyn BlockPrefetch> {
    let cfg = &config.array_cache;
    let p = cfg.p as u64;
    match cfg.prefetch {
        BlockPrefetchPolicy::None | BlockPrefetchPolicy::Linux => Box::new(NoBlockPrefetch),
        BlockPrefetchPolicy::Obl => Box::new(BlockObl::default()),
        BlockPrefetchPolicy::Fs => Box::new(FixedSync::new(p)),
        BlockPrefetchPolicy::Fa => Box::new(FixedAsync::new(p, cfg.trigger_g() as u64)),
        BlockPrefetchPolicy::AsLinear => Box::new(AdaptiveSync::new(Growth::Linear, cfg.max_degree as u64)),
        BlockPrefetchPolicy::AsExp => Box::new(AdaptiveSync::new(Growth::Exp, cfg.max_degree as u64)),
        BlockPrefetchPolicy::Amp => {
            Box::new(Amp::new(cfg.amp.apt as u64, cfg.max_degree as u64, cfg.amp.second_chance))
        }
        BlockPrefetchPolicy::Sp => Box::new(StripPrefetch::new(geometry)),
        BlockPrefetchPolicy::Lsp => Box::new(Lsp::new(&cfg.lsp, geometry)),
        BlockPrefetchPolicy::Asp => Box::new(Asp::new(&cfg.asp, geometry, cfg.capacity_blocks())),
        BlockPrefetchPolicy::Msp => Box::new(Msp::new(&config.msp, geometry)),
        BlockPrefetchPolicy::Tap => Box::new(Tap::new(&cfg.tap, p, cfg.capacity_blocks())),
    }
}

/// The cache-only mode's geometry: the configured array counted in cache
/// blocks (`array_cache.block`), any block addressable. The configuration
/// is checked (a strip holds whole cache blocks).
pub fn cache_only_geometry(cfg: &Config) -> Geometry {
    let block_bytes = cfg.array_cache.block.0.max(1);
    let strip_blocks = (cfg.array.strip.0 / block_bytes).max(1);
    let layout = ArrayLayout::new(cfg.array.layout, cfg.array.disks, strip_blocks, u64::MAX / 4)
        .expect("the configuration was checked");
    Geometry::new(layout, block_bytes, u64::MAX)
}
