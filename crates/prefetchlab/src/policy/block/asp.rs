//! ASP, adaptive strip prefetching with adaptive cache culling (Baek & Park,
//! USENIX ATC 2008) — **a reconstruction**: algorithms.md §5.2, decisions.md
//! 5. The paper's body was not available; what is known from its abstract is
//! SP as the prefetch, early eviction ("culling") of unused prefetched data
//! at a point set by differential feedback, and an online disk simulation
//! that stops prefetching when it does not pay. The mechanics below are §5.2's
//! proposal, with this module's choices; the parameters are
//! `array_cache.asp.*`. Its output names it `asp` and its state says
//! `"reconstruction"`.
//!
//! * **SP**: on a miss, the whole strip holding each missing block is read,
//!   with the demand read, exactly as [`super::sp`] does — while the gate
//!   lets it (below).
//! * **Culling**: the LRU list is cut at the *culling point* `N_U` (blocks
//!   from the MRU end) into an upstream and a downstream. A prefetched block
//!   never read that crosses into the downstream is culled (evicted at once,
//!   [`BlockContext::cull`]; a wasted prefetch) and its address goes into
//!   the bounded *prefetch-ghost* list (`asp.prefetch_ghost` blocks). Read
//!   blocks go on down and leave at the LRU end; their addresses go into
//!   the bounded *cache-ghost* list (`asp.cache_ghost`). A prefetched block
//!   that reaches the LRU end unread without being culled (culling off, or
//!   in flight when due) also goes into the prefetch ghost.
//! * **Depth by a logical clock** (the approximation): a policy cannot see
//!   LRU positions, so the clock counts the blocks moved to the MRU end —
//!   every block of every read, every block prefetched — and a prefetched
//!   block unread is culled once `N_U` blocks have gone to the MRU end since
//!   it was prefetched. A prefetched block's clock stamp is kept in its
//!   cache slot ([`BlockContext::word`], cleared on its first read), so it
//!   leaves with the block. This **overestimates** depth: a hit on a block
//!   already above it ticks the clock without pushing it down (and writes,
//!   which a block policy does not see, push it down without a tick), so
//!   culling comes somewhat early on workloads with short reuse. A block in
//!   flight when due is culled when its read completes.
//!   `N_U` = the cache's capacity means nothing is culled: the upstream is
//!   the whole cache.
//! * **Differential feedback** on `N_U` (§5.2, in SARC's style): a demand
//!   miss on a prefetch ghost, or the first read of a prefetched block
//!   within the `asp.monitor` blocks above `N_U` (by the clock), says a
//!   deeper upstream would have gained a hit: `N_U += δ`. A demand miss on
//!   a cache ghost says read data needs the room: `N_U −= δ` (§5.2's "hit on
//!   a cached block near the LRU end" is not seen by a block policy and is
//!   left out). δ = `asp.delta`; `N_U` stays within `[0, capacity]` and
//!   starts at `asp.start` × capacity (default 1: no culling, ASP starts as
//!   SP and culls once cache ghosts ask for room).
//! * **Prefetch gate** (the online disk simulation): over each interval of
//!   `asp.gate_interval` reads, a disk of positioning time `asp.positioning`
//!   (8 ms) and transfer rate `asp.transfer_rate` (60 MB/s) prices (a) SP:
//!   each strip read one positioning plus the whole strip's transfer, a
//!   strip with nothing to prefetch one positioning plus its missing span;
//!   (b) demand-only reading: per strip a read touches, its blocks that
//!   missed or were prefetch hits (a demand-only cache would have missed
//!   them) as one positioning plus their span. SP is off for the next
//!   interval when (a) > (b). While it is off both go on being priced: a
//!   miss makes SP's world read its strip (the strip's absent blocks become
//!   *shadow* prefetches, expiring after `N_U` clock ticks as culled blocks
//!   would), and a later miss on a shadow block is a hit in SP's world, so
//!   the gate turns SP back on when locality returns.
//! * **Not included**: §5.2's "Parallelism: add MSP" (MSP-style stripe
//!   prefetching for one or few sequential streams) is another scheme, left
//!   out here.

use super::{BlockAccess, BlockContext, BlockPrefetch, Geometry};
use crate::cache::block_map::BlockMap;
use crate::config::AspConfig;
use std::collections::VecDeque;

/// Which ghost list an address is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    /// Prefetched blocks culled or evicted unread.
    Prefetch = 0,
    /// Read blocks evicted.
    Cache = 1,
}

/// The lists by their index (`List as usize`).
const LISTS: [List; 2] = [List::Prefetch, List::Cache];

/// The two ghost lists: bounded FIFO lists of addresses, each holding the
/// last `cap[list]` addresses that entered it (the oldest leaves as a new
/// one enters; an address that left early — a miss on it, or it entered
/// again since — still takes its turn). An address is in one list at most:
/// entering one takes it out of the other.
///
/// Two ways to keep them, with the same contents (a test checks both
/// against rings): short lists (the default 256 blocks each) are rings
/// scanned in the processor's first-level cache, behind a counting filter
/// that answers most questions without a scan; long ones are a map.
enum Ghosts {
    Scanned(ScannedGhosts),
    Mapped(MappedGhosts),
}

impl Ghosts {
    /// The longest list kept as a scanned ring, blocks.
    const SCAN_MAX: u32 = 1024;

    fn new(prefetch_cap: u32, cache_cap: u32) -> Ghosts {
        if prefetch_cap.max(cache_cap) <= Self::SCAN_MAX {
            Ghosts::Scanned(ScannedGhosts::new(prefetch_cap, cache_cap))
        } else {
            Ghosts::Mapped(MappedGhosts::new(prefetch_cap, cache_cap))
        }
    }

    /// `block` enters `list` (and leaves the other).
    #[inline(always)]
    fn insert(&mut self, list: List, block: u64) {
        match self {
            Ghosts::Scanned(g) => g.insert(list, block),
            Ghosts::Mapped(g) => g.insert(list, block),
        }
    }

    /// The list `block` was in, if any; it leaves it.
    #[inline]
    fn remove(&mut self, block: u64) -> Option<List> {
        match self {
            Ghosts::Scanned(g) => g.remove(block),
            Ghosts::Mapped(g) => g.remove(block),
        }
    }
}

/// Short ghost lists as rings of addresses, one per list, each address in
/// one ring at most. A counting filter (two buckets per address, each
/// counting the entries that hash to it) says when an address is surely in
/// neither ring; only otherwise is a ring scanned, in vector-wide steps.
/// ASP's entries are mostly addresses in no list (a block culled or evicted
/// for the first time), and a list of 256 blocks is 2 KiB, so an entry is a
/// store into its ring and a few counter updates, where a hashed structure
/// finds a group in memory for each.
///
/// A counter that reaches 255 stays there (the filter then says "maybe" for
/// its addresses, never "no" for an address held).
struct ScannedGhosts {
    rings: [Vec<u64>; 2],
    /// Where each ring's next entry goes.
    head: [usize; 2],
    /// Entries per bucket, over both rings.
    counts: Vec<u8>,
    /// log2(buckets).
    bits: u32,
}

impl ScannedGhosts {
    /// A ring slot holding no address (block numbers stay far below it).
    const GONE: u64 = u64::MAX;

    fn new(prefetch_cap: u32, cache_cap: u32) -> ScannedGhosts {
        // 32 buckets per entry: a question on an address in neither list finds
        // both its buckets taken about once in 250
        let buckets = (32 * (prefetch_cap as usize + cache_cap as usize)).next_power_of_two().max(64);
        ScannedGhosts {
            rings: [vec![Self::GONE; prefetch_cap as usize], vec![Self::GONE; cache_cap as usize]],
            head: [0, 0],
            counts: vec![0; buckets],
            bits: buckets.trailing_zeros(),
        }
    }

    /// `block`'s two buckets.
    #[inline(always)]
    fn buckets(&self, block: u64) -> [usize; 2] {
        let h = block.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mask = (1u64 << self.bits) - 1;
        [(h >> (64 - self.bits)) as usize, (h >> (64 - 2 * self.bits) & mask) as usize]
    }

    /// Whether `block` may be in a ring.
    #[inline(always)]
    fn maybe(&self, buckets: [usize; 2]) -> bool {
        self.counts[buckets[0]] != 0 && self.counts[buckets[1]] != 0
    }

    #[inline(always)]
    fn count_in(&mut self, buckets: [usize; 2]) {
        for b in buckets {
            self.counts[b] = self.counts[b].saturating_add(1);
        }
    }

    #[inline(always)]
    fn count_out(&mut self, buckets: [usize; 2]) {
        for b in buckets {
            if self.counts[b] != u8::MAX {
                self.counts[b] -= 1;
            }
        }
    }

    /// `block`'s place in `ring`, if there.
    #[inline]
    fn find(ring: &[u64], block: u64) -> Option<usize> {
        const STEP: usize = 16;
        let mut chunks = ring.chunks_exact(STEP);
        for (c, chunk) in chunks.by_ref().enumerate() {
            // no early exit inside a step, so that it compiles to vector compares
            if chunk.iter().fold(false, |any, &a| any | (a == block)) {
                return chunk.iter().position(|&a| a == block).map(|i| c * STEP + i);
            }
        }
        let tail = ring.len() - chunks.remainder().len();
        chunks.remainder().iter().position(|&a| a == block).map(|i| tail + i)
    }

    /// Takes `block` out of the ring holding it; that ring's list.
    #[inline(never)]
    fn take(&mut self, block: u64, buckets: [usize; 2]) -> Option<List> {
        let (l, i) = (0..2).find_map(|l| Self::find(&self.rings[l], block).map(|i| (l, i)))?;
        self.rings[l][i] = Self::GONE;
        self.count_out(buckets);
        Some(LISTS[l])
    }

    #[inline(always)]
    fn insert(&mut self, list: List, block: u64) {
        let buckets = self.buckets(block);
        if self.maybe(buckets) {
            self.take(block, buckets);
        }
        let l = list as usize;
        let cap = self.rings[l].len();
        if cap == 0 {
            return;
        }
        let head = self.head[l];
        let old = std::mem::replace(&mut self.rings[l][head], block);
        if old != Self::GONE {
            self.count_out(self.buckets(old));
        }
        self.count_in(buckets);
        self.head[l] = if head + 1 == cap { 0 } else { head + 1 };
    }

    #[inline]
    fn remove(&mut self, block: u64) -> Option<List> {
        let buckets = self.buckets(block);
        if !self.maybe(buckets) {
            return None;
        }
        self.take(block, buckets)
    }
}

/// Long ghost lists as one map of address → (list, entry number), not as
/// rings: the address that entered its list as the `n`-th is in it while
/// fewer than `cap` addresses entered after it, so membership is a
/// subtraction, and an entry that expired stays in the map, harmless, until
/// a sweep (when the map holds 4 × the lists' capacity). Blocks are evicted
/// and culled in runs (a strip's blocks together), so an entry is mostly a
/// store into the map group found for the one before.
struct MappedGhosts {
    cap: [u64; 2],
    /// Entries made into each list so far; an entry's number is this count
    /// after it.
    entered: [u64; 2],
    /// Address → entry number × 2 + list.
    map: BlockMap<u64>,
    /// The map is swept when it holds this many entries.
    sweep_at: usize,
}

impl MappedGhosts {
    fn new(prefetch_cap: u32, cache_cap: u32) -> MappedGhosts {
        let cap = prefetch_cap as usize + cache_cap as usize;
        MappedGhosts {
            cap: [prefetch_cap as u64, cache_cap as u64],
            entered: [0, 0],
            map: BlockMap::new(0),
            sweep_at: (4 * cap).max(64),
        }
    }

    /// The list an entry (its value in the map) is in, if it has not expired.
    #[inline(always)]
    fn list_of(entered: [u64; 2], cap: [u64; 2], value: u64) -> Option<List> {
        let (n, l) = (value >> 1, (value & 1) as usize);
        (entered[l] - n < cap[l]).then_some(LISTS[l])
    }

    #[inline(always)]
    fn insert(&mut self, list: List, block: u64) {
        let l = list as usize;
        if self.cap[l] == 0 {
            self.map.remove(block);
            return;
        }
        self.entered[l] += 1;
        self.map.insert(block, self.entered[l] << 1 | l as u64);
        if self.map.len() >= self.sweep_at {
            self.sweep();
        }
    }

    /// Forgets the entries that expired.
    #[cold]
    #[inline(never)]
    fn sweep(&mut self) {
        let (entered, cap) = (self.entered, self.cap);
        self.map.retain(|_, value| Self::list_of(entered, cap, value).is_some());
    }

    #[inline]
    fn remove(&mut self, block: u64) -> Option<List> {
        match self.map.remove(block) {
            0 => None,
            value => Self::list_of(self.entered, self.cap, value),
        }
    }
}

/// Blocks `block..block + blocks` prefetched with the stamps
/// `stamp..stamp + blocks`.
#[derive(Debug, Clone, Copy)]
struct StampRun {
    block: u64,
    stamp: u64,
    blocks: u64,
}

/// What one read did in one strip it touched.
#[derive(Debug, Clone, Copy)]
struct StripNote {
    strip: u64,
    /// A block of the read's missing range is in this strip: SP reads it.
    missed: bool,
    /// The span of the blocks a demand-only cache would have read here.
    demand_lo: u64,
    demand_hi: u64,
    /// The span of the blocks SP's world missed here.
    sp_lo: u64,
    sp_hi: u64,
}

/// The online disk simulation deciding whether SP reads strips.
struct Gate {
    on: bool,
    interval: u64,
    /// Reads in the current interval.
    reads: u64,
    positioning_ns: f64,
    block_ns: f64,
    /// The current interval's estimates, ns: SP, demand-only.
    sp_ns: f64,
    demand_ns: f64,
    /// The last complete interval's.
    last_sp_ns: f64,
    last_demand_ns: f64,
    on_intervals: u64,
    off_intervals: u64,
    switched_off: u64,
    switched_on: u64,
    /// While off: the blocks SP's world would have prefetched → clock stamp
    /// (`u64::MAX`: none).
    shadow: BlockMap<u64>,
    shadow_order: VecDeque<(u64, u64)>,
    shadow_strip_reads: u64,
    shadow_hits: u64,
}

#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    strip_reads: u64,
    prefetch_hits: u64,
    culled: u64,
    evicted_unread: u64,
    prefetch_ghost_hits: u64,
    cache_ghost_hits: u64,
    monitor_hits: u64,
    increments: u64,
    decrements: u64,
}

/// ASP.
pub struct Asp {
    geometry: Geometry,
    /// The cache's capacity, blocks.
    capacity: u64,
    /// The culling point `N_U`, blocks from the MRU end.
    nu: u64,
    nu_min: u64,
    nu_max: u64,
    delta: u64,
    monitor: u64,
    /// Blocks moved to the MRU end so far.
    clock: u64,
    /// The prefetched blocks and their clock stamps, in prefetch order, as
    /// runs of consecutive blocks with consecutive stamps (a strip's blocks
    /// brought in together are one run). A block is stale (skipped when its
    /// turn comes) once its word no longer holds its stamp: read, evicted,
    /// culled or prefetched again.
    order: VecDeque<StampRun>,
    ghosts: Ghosts,
    gate: Gate,
    /// Reused buffers: per-strip notes of a read; the blocks a strip read
    /// brought in; the blocks and stamps due to be culled, and those culled.
    notes: Vec<StripNote>,
    brought: Vec<u64>,
    due: Vec<(u64, u64)>,
    culled_now: Vec<u64>,
    n: Counters,
}

impl Asp {
    /// ASP for an array of `geometry` with a cache of `capacity` blocks.
    pub fn new(cfg: &AspConfig, geometry: Geometry, capacity: u64) -> Asp {
        let nu = ((cfg.start.clamp(0.0, 1.0) * capacity as f64).round() as u64).min(capacity);
        let rate = cfg.transfer_rate.0.max(1) as f64;
        Asp {
            capacity,
            nu,
            nu_min: nu,
            nu_max: nu,
            delta: cfg.delta.max(1) as u64,
            monitor: cfg.monitor as u64,
            clock: 0,
            order: VecDeque::new(),
            ghosts: Ghosts::new(cfg.prefetch_ghost, cfg.cache_ghost),
            gate: Gate {
                on: true,
                interval: cfg.gate_interval.max(1) as u64,
                reads: 0,
                positioning_ns: cfg.positioning.0 as f64,
                block_ns: geometry.block_bytes as f64 * 1e9 / rate,
                sp_ns: 0.0,
                demand_ns: 0.0,
                last_sp_ns: 0.0,
                last_demand_ns: 0.0,
                on_intervals: 0,
                off_intervals: 0,
                switched_off: 0,
                switched_on: 0,
                shadow: BlockMap::new(u64::MAX),
                shadow_order: VecDeque::new(),
                shadow_strip_reads: 0,
                shadow_hits: 0,
            },
            notes: Vec::new(),
            brought: Vec::new(),
            due: Vec::new(),
            culled_now: Vec::new(),
            n: Counters::default(),
            geometry,
        }
    }

    /// The culling point, blocks.
    pub fn culling_point(&self) -> u64 {
        self.nu
    }

    /// Whether SP reads strips now.
    pub fn prefetching(&self) -> bool {
        self.gate.on
    }

    fn grow(&mut self) {
        let nu = (self.nu + self.delta).min(self.capacity);
        if nu != self.nu {
            self.n.increments += 1;
            self.nu = nu;
            self.nu_max = self.nu_max.max(nu);
        }
    }

    fn shrink(&mut self) {
        let nu = self.nu.saturating_sub(self.delta);
        if nu != self.nu {
            self.n.decrements += 1;
            self.nu = nu;
            self.nu_min = self.nu_min.min(nu);
        }
    }

    /// The time one disk request of `blocks` costs in the gate's model.
    #[inline]
    fn request_ns(&self, blocks: u64) -> f64 {
        self.gate.positioning_ns + blocks as f64 * self.gate.block_ns
    }

    /// Walks the read's blocks: first reads of prefetched blocks (a stamp
    /// in the slot's word, which the read clears) and the monitor region,
    /// ghost hits, shadow hits; notes per strip what the demand-only and SP
    /// worlds missed.
    fn walk(&mut self, ctx: &mut dyn BlockContext, a: &BlockAccess) {
        let sb = self.geometry.strip_blocks();
        let off = !self.gate.on;
        self.notes.clear();
        for b in a.block..a.end() {
            let missed = !a.hit && b >= a.first_miss && b < a.miss_end;
            let (mut demand_miss, mut sp_miss) = (missed, missed);
            let stamp = ctx.take_word(b);
            if stamp != 0 {
                // the first read of a prefetched block (its stamp goes: it is read
                // now): a demand-only cache missed it
                self.n.prefetch_hits += 1;
                (demand_miss, sp_miss) = (true, false);
                let depth = self.clock - stamp;
                if depth < self.nu && depth + self.monitor >= self.nu {
                    self.n.monitor_hits += 1;
                    self.grow();
                }
            } else if missed {
                match self.ghosts.remove(b) {
                    Some(List::Prefetch) => {
                        self.n.prefetch_ghost_hits += 1;
                        self.grow();
                    }
                    Some(List::Cache) => {
                        self.n.cache_ghost_hits += 1;
                        self.shrink();
                    }
                    None => {}
                }
                if off && self.gate.shadow.remove(b) != u64::MAX {
                    self.gate.shadow_hits += 1;
                    sp_miss = false; // SP's world had prefetched it
                }
            }
            let strip = b / sb;
            if self.notes.last().is_none_or(|n| n.strip != strip) {
                self.notes.push(StripNote {
                    strip,
                    missed: false,
                    demand_lo: u64::MAX,
                    demand_hi: 0,
                    sp_lo: u64::MAX,
                    sp_hi: 0,
                });
            }
            let n = self.notes.last_mut().expect("pushed");
            n.missed |= missed;
            if demand_miss {
                n.demand_lo = n.demand_lo.min(b);
                n.demand_hi = b + 1;
            }
            if sp_miss {
                n.sp_lo = n.sp_lo.min(b);
                n.sp_hi = b + 1;
            }
        }
    }

    /// SP on strip `n` (the gate is on): reads it with the demand and
    /// records its prefetched blocks.
    fn read_strip(&mut self, ctx: &mut dyn BlockContext, n: StripNote) {
        let sb = self.geometry.strip_blocks();
        let first = n.strip * sb;
        let end = (first + sb).min(self.geometry.capacity_blocks);
        self.brought.clear();
        // the i-th block brought in is stamped with the clock after i + 1 ticks
        if ctx.prefetch_stamping(first, end - first, &mut self.brought, self.clock + 1) > 0 {
            self.n.strip_reads += 1;
            self.gate.sp_ns += self.request_ns(sb);
            // the blocks brought in, as runs of consecutive ones (their stamps are
            // consecutive too): each run extends the queue's last or is pushed
            // (a ghost entry of a block brought in stays until it leaves again:
            // it can only miss after an eviction or a cull, and both put it in
            // the right list)
            let mut i = 0;
            while i < self.brought.len() {
                let (b, stamp) = (self.brought[i], self.clock + 1);
                let mut blocks = 1;
                while i + (blocks as usize) < self.brought.len()
                    && self.brought[i + blocks as usize] == b + blocks
                {
                    blocks += 1;
                }
                i += blocks as usize;
                self.clock += blocks;
                match self.order.back_mut() {
                    Some(r) if r.block + r.blocks == b && r.stamp + r.blocks == stamp => r.blocks += blocks,
                    _ => self.order.push_back(StampRun { block: b, stamp, blocks }),
                }
            }
        } else if n.sp_hi > n.sp_lo {
            self.gate.sp_ns += self.request_ns(n.sp_hi - n.sp_lo);
        }
    }

    /// SP's world on strip `n` while the gate is off: what SP would have
    /// read, its absent blocks becoming shadow prefetches.
    fn shadow_strip(&mut self, ctx: &mut dyn BlockContext, n: StripNote) {
        if n.sp_hi <= n.sp_lo {
            return; // every block SP's world needed it had
        }
        let sb = self.geometry.strip_blocks();
        let first = n.strip * sb;
        let end = (first + sb).min(self.geometry.capacity_blocks);
        let mut would = 0;
        for b in first..end {
            if !ctx.is_cached(b) && !self.gate.shadow.contains(b) {
                would += 1;
                self.gate.shadow.insert(b, self.clock);
                self.gate.shadow_order.push_back((b, self.clock));
            }
        }
        if would > 0 {
            self.gate.shadow_strip_reads += 1;
            self.gate.sp_ns += self.request_ns(sb);
        } else {
            self.gate.sp_ns += self.request_ns(n.sp_hi - n.sp_lo);
        }
    }

    /// Culls the prefetched blocks unread that went below the culling
    /// point; forgets shadow prefetches that did.
    fn cull_due(&mut self, ctx: &mut dyn BlockContext) {
        let culling = self.nu < self.capacity;
        let limit = self.nu.min(self.capacity);
        while let Some(r) = self.order.front_mut() {
            // the run's first `down` blocks went `limit` or more blocks down
            let down = (self.clock + 1).saturating_sub(r.stamp + limit).min(r.blocks);
            if down == 0 {
                break;
            }
            if culling {
                self.due.extend((0..down).map(|i| (r.block + i, r.stamp + i)));
            }
            if down < r.blocks {
                (r.block, r.stamp, r.blocks) = (r.block + down, r.stamp + down, r.blocks - down);
                break;
            }
            self.order.pop_front();
        }
        if !self.due.is_empty() {
            // a block stale (read, evicted, prefetched again) or in flight (culled
            // when it completes) stays
            ctx.cull_if_words(&self.due, &mut self.culled_now);
            self.due.clear();
            for i in 0..self.culled_now.len() {
                self.culled(self.culled_now[i]);
            }
            self.culled_now.clear();
        }
        let g = &mut self.gate;
        while let Some(&(b, stamp)) = g.shadow_order.front() {
            if self.clock - stamp < limit && g.shadow_order.len() as u64 <= self.capacity {
                break;
            }
            g.shadow_order.pop_front();
            if g.shadow.get(b) == stamp {
                g.shadow.remove(b);
            }
        }
    }

    #[inline(always)]
    fn culled(&mut self, b: u64) {
        self.n.culled += 1;
        self.ghosts.insert(List::Prefetch, b);
    }

    /// One more read in the gate's interval; at its end, SP is on for the
    /// next when its estimate is no more than demand-only reading's.
    fn gate_tick(&mut self) {
        let g = &mut self.gate;
        g.reads += 1;
        if g.reads < g.interval {
            return;
        }
        if g.on {
            g.on_intervals += 1;
        } else {
            g.off_intervals += 1;
        }
        let on = g.sp_ns <= g.demand_ns;
        (g.last_sp_ns, g.last_demand_ns) = (g.sp_ns, g.demand_ns);
        (g.reads, g.sp_ns, g.demand_ns) = (0, 0.0, 0.0);
        if on != g.on {
            g.on = on;
            if on {
                g.switched_on += 1;
                g.shadow.clear();
                g.shadow_order.clear();
            } else {
                g.switched_off += 1;
            }
        }
    }
}

impl BlockPrefetch for Asp {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        self.walk(ctx, &a);
        self.clock += a.blocks; // each block of the read went to the MRU end
        for i in 0..self.notes.len() {
            let n = self.notes[i];
            if n.demand_hi > n.demand_lo {
                self.gate.demand_ns += self.request_ns(n.demand_hi - n.demand_lo);
            }
            if !n.missed {
                continue;
            }
            if self.gate.on {
                self.read_strip(ctx, n);
            } else {
                self.shadow_strip(ctx, n);
            }
        }
        self.cull_due(ctx);
        self.gate_tick();
    }

    fn on_evict(&mut self, ctx: &mut dyn BlockContext, block: u64, unused_prefetch: bool) {
        if ctx.is_cached(block) {
            return; // back already
        }
        if unused_prefetch {
            self.n.evicted_unread += 1;
            self.ghosts.insert(List::Prefetch, block);
        } else {
            self.ghosts.insert(List::Cache, block);
        }
    }

    fn on_complete(&mut self, ctx: &mut dyn BlockContext, block: u64, blocks: u64, _waited: bool) {
        if self.nu >= self.capacity {
            return;
        }
        // prefetched blocks that went below the culling point while in flight
        for b in block..block + blocks {
            let stamp = ctx.word(b);
            if stamp != 0 && self.clock - stamp >= self.nu && ctx.cull(b) {
                self.culled(b);
            }
        }
    }

    fn state_json(&self) -> serde_json::Value {
        let ms = |ns: f64| (ns / 1e3).round() / 1e3;
        let g = &self.gate;
        serde_json::json!({
            "reconstruction": "algorithms.md §5.2 (decisions.md 5)",
            "strip_blocks": self.geometry.strip_blocks(),
            "cache_blocks": self.capacity,
            "culling_point_blocks": self.nu,
            "culling_point_min_blocks": self.nu_min,
            "culling_point_max_blocks": self.nu_max,
            "culling_point_increments": self.n.increments,
            "culling_point_decrements": self.n.decrements,
            "culled_blocks": self.n.culled,
            "evicted_unread_blocks": self.n.evicted_unread,
            "prefetch_hits": self.n.prefetch_hits,
            "prefetch_ghost_hits": self.n.prefetch_ghost_hits,
            "cache_ghost_hits": self.n.cache_ghost_hits,
            "monitor_hits": self.n.monitor_hits,
            "strip_prefetches": self.n.strip_reads,
            "gate_on": g.on,
            "gate_on_intervals": g.on_intervals,
            "gate_off_intervals": g.off_intervals,
            "gate_switched_off": g.switched_off,
            "gate_switched_on": g.switched_on,
            "gate_last_sp_ms": ms(g.last_sp_ns),
            "gate_last_demand_ms": ms(g.last_demand_ns),
            "gate_shadow_strip_reads": g.shadow_strip_reads,
            "gate_shadow_hits": g.shadow_hits,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::layout::ArrayLayout;
    use crate::config::Layout;
    use crate::policy::block::sets::double::Cache;

    #[test]
    fn the_ghost_lists_are_fifo_rings_of_their_capacity() {
        // the reference: each list a ring of its last `cap` entries, an entry
        // whose address left early (a miss, or it entered again) still taking
        // its turn; runs of blocks and scattered ones, past several sweeps
        // each list kind, scanned and mapped, with lists shorter and longer than a
        // scan's step
        let cases = [[3u32, 5], [0, 4], [16, 1], [64, 64], [37, 300]];
        for (caps, mapped) in cases.into_iter().flat_map(|caps| [(caps, false), (caps, true)]) {
            let mut ghosts = if mapped {
                Ghosts::Mapped(MappedGhosts::new(caps[0], caps[1]))
            } else {
                Ghosts::Scanned(ScannedGhosts::new(caps[0], caps[1]))
            };
            let mut rings: [VecDeque<Option<u64>>; 2] = [VecDeque::new(), VecDeque::new()];
            let mut x: u64 = 0x2545F4914F6CDD1D;
            for step in 0..50_000u64 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let block = if x.is_multiple_of(4) { x % 97 } else { step / 3 % 700 };
                // takes `block`'s entry out of its ring; its list
                let take = |rings: &mut [VecDeque<Option<u64>>; 2]| {
                    for (l, ring) in rings.iter_mut().enumerate() {
                        if let Some(e) = ring.iter_mut().find(|e| **e == Some(block)) {
                            *e = None;
                            return Some(LISTS[l]);
                        }
                    }
                    None
                };
                if x % 5 < 3 {
                    let l = (x >> 3 & 1) as usize;
                    ghosts.insert(LISTS[l], block);
                    take(&mut rings);
                    if caps[l] > 0 {
                        rings[l].push_back(Some(block));
                        if rings[l].len() > caps[l] as usize {
                            rings[l].pop_front();
                        }
                    }
                } else {
                    assert_eq!(ghosts.remove(block), take(&mut rings), "caps {caps:?}, step {step}");
                }
            }
            match ghosts {
                Ghosts::Mapped(g) => assert!(g.map.len() < g.sweep_at),
                Ghosts::Scanned(g) => {
                    // the filter counts exactly the addresses in the rings
                    let held = g.rings.iter().flatten().filter(|&&a| a != ScannedGhosts::GONE).count();
                    assert_eq!(g.counts.iter().map(|&c| c as usize).sum::<usize>(), 2 * held);
                }
            }
        }
    }

    #[test]
    fn short_lists_are_scanned_long_ones_mapped_and_a_full_filter_counter_sticks() {
        assert!(matches!(Ghosts::new(256, 256), Ghosts::Scanned(_)));
        assert!(matches!(Ghosts::new(0, Ghosts::SCAN_MAX + 1), Ghosts::Mapped(_)));
        let mut g = ScannedGhosts::new(4, 4);
        let buckets = g.buckets(7);
        for _ in 0..300 {
            g.count_in(buckets);
        }
        g.count_out(buckets);
        // past 255 the true count is unknown: the bucket says "maybe" for ever
        assert_eq!(g.counts[buckets[0]], u8::MAX);
        assert!(g.maybe(buckets));
    }

    /// 16-block strips (64 KiB of 4 KiB blocks), a cache of `capacity` blocks.
    fn asp(cfg: AspConfig, capacity: u64) -> Asp {
        let g = Geometry::new(ArrayLayout::new(Layout::Raid5, 5, 16, 1 << 40).unwrap(), 4096, u64::MAX);
        Asp::new(&cfg, g, capacity)
    }

    fn read(p: &mut Asp, c: &mut Cache, block: u64, blocks: u64) {
        let a = c.demand(0, block, blocks);
        p.on_access(c, a);
    }

    #[test]
    fn sp_reads_the_strip_and_nothing_is_culled_at_the_whole_cache() {
        let mut p = asp(AspConfig::default(), 1000);
        let mut c = Cache::new();
        read(&mut p, &mut c, 20, 2);
        assert_eq!(c.reads, vec![(16, 16)], "strip 1 with the demand, as SP");
        for _ in 0..5000 {
            read(&mut p, &mut c, 20, 1);
        }
        assert!(c.culled.is_empty(), "N_U = the cache: no culling");
        assert_eq!(p.state_json()["reconstruction"], "algorithms.md §5.2 (decisions.md 5)");
    }

    #[test]
    fn a_prefetched_block_counts_one_prefetch_hit_and_none_once_it_left_and_came_back_by_demand() {
        let mut p = asp(AspConfig::default(), 1000);
        let mut c = Cache::new();
        read(&mut p, &mut c, 0, 1); // blocks 1..=15 prefetched
        read(&mut p, &mut c, 3, 1);
        read(&mut p, &mut c, 3, 1); // its stamp went with the first read
        assert_eq!(p.state_json()["prefetch_hits"], 1);
        // block 4 leaves unread and comes back by a demand read: no stamp
        c.cached.remove(&4);
        p.on_evict(&mut c, 4, true);
        read(&mut p, &mut c, 4, 1);
        assert_eq!(p.state_json()["prefetch_hits"], 1);
        read(&mut p, &mut c, 5, 1); // still prefetched, unread
        assert_eq!(p.state_json()["prefetch_hits"], 2);
    }

    #[test]
    fn a_prefetched_block_unread_is_culled_when_n_u_blocks_went_to_the_mru_end() {
        // N_U = 20 of 1000 blocks, a monitor region of 2 blocks
        let cfg = AspConfig { start: 0.02, monitor: 2, ..AspConfig::default() };
        let mut p = asp(cfg, 1000);
        assert_eq!(p.culling_point(), 20);
        let mut c = Cache::new();
        read(&mut p, &mut c, 0, 1); // clock 1; blocks 1..=15 prefetched at clocks 2..=16
        assert_eq!(c.reads, vec![(1, 15)]);
        for _ in 0..5 {
            read(&mut p, &mut c, 0, 1); // hits: clock 21
        }
        assert!(c.culled.is_empty(), "block 1 is 19 blocks down");
        read(&mut p, &mut c, 0, 1); // clock 22
        assert_eq!(c.culled, vec![1], "20 blocks down: culled");
        read(&mut p, &mut c, 5, 1); // read at depth 23 − 6 = 17: not near the culling point
        assert_eq!(p.culling_point(), 20);
        read(&mut p, &mut c, 14, 1); // clock 24, read at depth 24 − 15 = 9
        for _ in 0..20 {
            read(&mut p, &mut c, 0, 1);
        }
        let want: Vec<u64> = (1..=15).filter(|&b| b != 5 && b != 14).collect();
        assert_eq!(c.culled, want, "every block unread culled, in prefetch order");
        let s = p.state_json();
        assert_eq!((s["culled_blocks"].as_u64(), s["prefetch_hits"].as_u64()), (Some(13), Some(2)));
    }

    #[test]
    fn a_strip_read_around_the_demand_is_culled_block_by_block_in_prefetch_order() {
        // the demand block 5 splits the strip's prefetch into two runs, 0..=4 and
        // 6..=15, stamped at clocks 2..=6 and 7..=16; N_U = 20
        let cfg = AspConfig { start: 0.02, monitor: 0, ..AspConfig::default() };
        let mut p = asp(cfg, 1000);
        let mut c = Cache::new();
        read(&mut p, &mut c, 5, 1);
        assert_eq!(c.reads, vec![(0, 16)]);
        let mut culled_at = Vec::new();
        for clock in 17..=40u64 {
            let before = c.culled.len();
            read(&mut p, &mut c, 5, 1); // a hit: one tick
            culled_at.extend(c.culled[before..].iter().map(|&b| (b, clock)));
        }
        // a block stamped s is culled at the read that brings the clock to s + 20
        let want: Vec<(u64, u64)> = (0..=4).chain(6..=15).zip(2..=16).map(|(b, s)| (b, s + 20)).collect();
        assert_eq!(culled_at, want);
    }

    #[test]
    fn a_read_near_the_culling_point_raises_it() {
        let cfg = AspConfig { start: 0.02, monitor: 4, ..AspConfig::default() };
        let mut p = asp(cfg, 1000);
        let mut c = Cache::new();
        read(&mut p, &mut c, 0, 1); // blocks 1..=15 prefetched at clocks 2..=16
        for _ in 0..16 {
            read(&mut p, &mut c, 0, 1);
        }
        // the clock is 32: blocks 1..=11 are 20 or more blocks down, culled
        assert_eq!(c.culled, (1..=11).collect::<Vec<_>>());
        read(&mut p, &mut c, 15, 1); // 16 blocks down: within 4 blocks of N_U = 20
        assert_eq!(p.culling_point(), 21, "a deeper upstream would keep such blocks");
        assert_eq!(p.state_json()["monitor_hits"], 1);
    }

    #[test]
    fn a_miss_on_a_prefetch_ghost_raises_n_u_and_on_a_cache_ghost_lowers_it() {
        let cfg = AspConfig { start: 0.02, monitor: 1, delta: 3, ..AspConfig::default() };
        let mut p = asp(cfg, 1000);
        let mut c = Cache::new();
        read(&mut p, &mut c, 0, 1);
        for _ in 0..40 {
            read(&mut p, &mut c, 0, 1);
        }
        assert_eq!(c.culled.len(), 15);
        assert_eq!(p.culling_point(), 20);
        read(&mut p, &mut c, 7, 1); // culled: a prefetch-ghost hit
        assert_eq!(p.culling_point(), 23);
        // block 0, read, leaves at the LRU end; a miss on it is a cache-ghost hit
        c.cached.remove(&0);
        p.on_evict(&mut c, 0, false);
        read(&mut p, &mut c, 0, 1);
        assert_eq!(p.culling_point(), 20);
        // an unread prefetched block evicted at the LRU end goes to the prefetch ghost
        c.cached.remove(&9);
        p.on_evict(&mut c, 9, true);
        read(&mut p, &mut c, 9, 1);
        assert_eq!(p.culling_point(), 23);
        let s = p.state_json();
        assert_eq!((s["prefetch_ghost_hits"].as_u64(), s["cache_ghost_hits"].as_u64()), (Some(2), Some(1)));
        assert_eq!(
            (s["culling_point_increments"].as_u64(), s["culling_point_decrements"].as_u64()),
            (Some(2), Some(1))
        );
        // clamped to the cache
        let mut p = asp(AspConfig { delta: 5, ..AspConfig::default() }, 8);
        c.cached.remove(&7);
        p.on_evict(&mut c, 7, true);
        read(&mut p, &mut c, 7, 1);
        assert_eq!(p.culling_point(), 8);
    }

    #[test]
    fn the_gate_turns_sp_off_for_random_reads_and_back_on_for_sequential_ones() {
        let cfg = AspConfig { gate_interval: 64, ..AspConfig::default() };
        let mut p = asp(cfg, 100_000);
        let mut c = Cache::new();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut random = |p: &mut Asp, c: &mut Cache| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            read(p, c, x % (1 << 36), 1);
        };
        for _ in 0..64 {
            assert!(p.prefetching());
            random(&mut p, &mut c);
        }
        // SP: 64 × (8 ms + 16 blocks at 60 MB/s) against 64 × (8 ms + 1 block)
        assert!(!p.prefetching(), "{}", p.state_json());
        assert_eq!(c.reads.len(), 64);
        for _ in 0..64 {
            random(&mut p, &mut c);
        }
        assert_eq!(c.reads.len(), 64, "off: the demand only");
        assert!(!p.prefetching(), "still random: still off");
        // a sequential run: SP's world reads a strip where the demand reads 16 blocks
        let base = 1 << 40;
        for i in 0..64 {
            assert!(!p.prefetching());
            read(&mut p, &mut c, base + i, 1);
        }
        assert_eq!(c.reads.len(), 64);
        assert!(p.prefetching(), "{}", p.state_json());
        read(&mut p, &mut c, base + 64, 1);
        assert_eq!(c.reads.last(), Some(&(base + 65, 15)), "on again: the strip is read");
        let s = p.state_json();
        assert_eq!((s["gate_off_intervals"].as_u64(), s["gate_on_intervals"].as_u64()), (Some(2), Some(1)));
        assert_eq!((s["gate_switched_off"].as_u64(), s["gate_switched_on"].as_u64()), (Some(1), Some(1)));
        assert_eq!(s["gate_shadow_hits"], 60, "15 of each of the 4 strips");
        assert!(s["gate_last_sp_ms"].as_f64() < s["gate_last_demand_ms"].as_f64(), "{s}");
    }
}
