//! TIP, informed prefetching (Patterson et al., SOSP 1995; algorithms.md
//! §8.1, decisions.md 8): the application discloses its reads (hints) and
//! TIP fetches the hinted blocks ahead of it into the array cache, as far
//! ahead as hides the disk.
//!
//! * **Hints** are the trace's own reads, per stream in the replay's order
//!   (the closed-loop replay issues them in that order), read once when the
//!   run starts. With `informed.hint_fraction` f < 1, read `i` of a stream
//!   is hinted when `⌊(i+1)·f⌋ > ⌊i·f⌋`: evenly spread, deterministic.
//! * **The prefetch horizon** `P = ⌈T_disk / T_unit⌉` (§8.1): fetching
//!   further ahead gains nothing. `T_unit` is the application's time per
//!   read, `informed.t_cpu` (the engine charges no extra hit or driver
//!   time); `T_disk` starts at `informed.t_disk` and then follows the
//!   prefetches' own issue-to-completion times (an average weighted 1/8 on
//!   the newest), so queueing on busy disks deepens the horizon.
//! * **Cost–benefit against the LRU cache** (§8.1): deepening from `x − 1`
//!   to `x` buffers saves `ΔT_pf(x) = T_disk / (x(x − 1))` per read; the
//!   buffer it takes from the LRU cache costs `ΔH · (T_miss − T_hit) ≈ ΔH ·
//!   T_disk` per read, `ΔH` the hit rate of the LRU cache's marginal
//!   buffer. TIP deepens while the saving is larger: `x(x − 1) · ΔH(x) < 1`,
//!   `ΔH(x)` the hit rate of the buffer the `x`-th prefetch takes, the
//!   `x`-th from the LRU end. It is estimated from hits at the LRU end as
//!   mirrored by a ghost list of the last [`LRU_GHOST_BLOCKS`] read blocks
//!   the cache evicted: a miss on the block evicted `k` evictions ago is a
//!   hit a cache `k` buffers larger would have had, so the `k`-th buffer
//!   beyond the cache's end stands for the `k`-th before it. Ghost hits are
//!   counted per read in power-of-two bands of `k` (a band's rate shared
//!   by its buffers), halved every [`DECAY_READS`] reads so that the
//!   estimate follows the workload, and the depth `x*` is worked out again
//!   every [`REPLAN_READS`] reads. The cost of ejecting a hinted block (the
//!   hinted cache's estimator) is not modelled: TIP never ejects hinted
//!   blocks, LRU does.
//!   The estimate counts demand misses only: a read TIP fetched ahead never
//!   misses, so on a trace whose every read is hinted `ΔH` stays 0 and the
//!   LRU side never limits the depth.
//! * **Depth**: after each read of a stream, its next `min(P, x*, x_cache)`
//!   hinted reads (`x*` the cost–benefit depth, `informed.x_cache` prefetch
//!   buffers; 0: up to [`MAX_INFORMED_DEPTH`]) are fetched if they are not
//!   cached or in flight already, each as one array read; a hinted read is
//!   fetched once. The buffers come out of the array cache, so the depth is
//!   also at most half its blocks (deeper, hinted blocks would evict one
//!   another before they are read).
//!
//! A read that is not the stream's next hint (an unhinted read) leaves the
//! hints where they are; the next hinted read found among the next
//! [`RESYNC_READS`] hints puts TIP back in step.

use crate::config::{Config, MAX_INFORMED_DEPTH};
use crate::error::{Error, Result};
use crate::policy::block::fifo::FifoSet;
use crate::policy::block::{BlockAccess, BlockContext, BlockPrefetch};
use crate::trace::Op;
use crate::units::PAGE_BYTES;
use crate::workload::replay::Replay;
use std::collections::BTreeMap;

/// How far ahead a read is looked for among the hints when it is not the next one.
pub const RESYNC_READS: usize = 64;

/// Read blocks the LRU ghost list remembers after their eviction.
pub const LRU_GHOST_BLOCKS: usize = 1024;

/// Reads after which the ghost-hit and read counts are halved.
pub const DECAY_READS: u64 = 4096;

/// Reads between two computations of the cost–benefit depth.
pub const REPLAN_READS: u64 = 64;

/// Power-of-two bands of ghost depth: `[1, 2)`, `[2, 4)`, … up to [`LRU_GHOST_BLOCKS`].
const BANDS: usize = LRU_GHOST_BLOCKS.trailing_zeros() as usize + 1;

/// The band of ghost depth `k` (≥ 1).
fn band(k: u64) -> usize {
    (63 - k.leading_zeros() as usize).min(BANDS - 1)
}

/// The cost–benefit depth: the most buffers `x` such that every deepening
/// to `y ≤ x` saves more than the LRU buffer it takes costs, `y(y − 1) ·
/// ΔH(y) < 1` (`ΔH(y)` from `hit_rate(y)`), at least 1; `u64::MAX` when no
/// buffer up to `limit` costs anything.
pub fn cost_benefit_depth(limit: u64, hit_rate: impl Fn(u64) -> f64) -> u64 {
    let mut costly = false;
    for y in 2..=limit {
        let h = hit_rate(y);
        costly |= h > 0.0;
        if (y * (y - 1)) as f64 * h >= 1.0 {
            return y - 1;
        }
    }
    if costly {
        limit
    } else {
        u64::MAX
    }
}

/// TIP's estimate of what the LRU cache loses per buffer (§8.1): a ghost
/// list of the last [`LRU_GHOST_BLOCKS`] blocks the cache evicted; a demand
/// miss on the block evicted `k` evictions ago is a hit the `k`-th buffer
/// beyond the cache's end would have had, standing for the `k`-th buffer
/// before it. Ghost hits are counted per read in power-of-two bands of `k`,
/// halved every [`DECAY_READS`] reads, and the cost–benefit depth is worked
/// out again every [`REPLAN_READS`] reads. Shared by TIP on the single host
/// and on a `[topology]`'s clients.
#[derive(Debug)]
pub struct LruEstimator {
    ghost: FifoSet,
    /// Ghost hits per band of depth, decayed.
    hits: [f64; BANDS],
    /// Reads, decayed.
    reads_decayed: f64,
    reads: u64,
    ghost_hits: u64,
    /// The most buffers the depth may reach.
    limit: u64,
    /// The cost–benefit depth as last worked out (`u64::MAX`: unbounded).
    x_star: u64,
}

impl LruEstimator {
    /// An estimator whose depth is at most `limit` buffers.
    pub fn new(limit: u64) -> LruEstimator {
        LruEstimator {
            ghost: FifoSet::new(),
            hits: [0.0; BANDS],
            reads_decayed: 0.0,
            reads: 0,
            ghost_hits: 0,
            limit: limit.min(LRU_GHOST_BLOCKS as u64),
            x_star: u64::MAX,
        }
    }

    /// The cache evicted `block`, a block that was read.
    pub fn evicted(&mut self, block: u64) {
        self.ghost.insert(block);
        self.ghost.trim(LRU_GHOST_BLOCKS);
    }

    /// A demand read missed `block`.
    pub fn missed(&mut self, block: u64) {
        if let Some(k) = self.ghost.remove_age(block) {
            self.hits[band(k)] += 1.0;
            self.ghost_hits += 1;
        }
    }

    /// Counts one read (after its misses), decays and replans.
    pub fn read(&mut self) {
        self.reads_decayed += 1.0;
        self.reads += 1;
        if self.reads.is_multiple_of(DECAY_READS) {
            self.hits.iter_mut().for_each(|h| *h /= 2.0);
            self.reads_decayed /= 2.0;
        }
        if self.reads.is_multiple_of(REPLAN_READS) {
            self.x_star = cost_benefit_depth(self.limit, |k| self.marginal_hit_rate(k));
        }
    }

    /// `ΔH(k)`: the estimated hit rate of the `k`-th buffer from the LRU
    /// end, per read (its band's ghost hits shared by the band's buffers).
    pub fn marginal_hit_rate(&self, k: u64) -> f64 {
        if self.reads_decayed == 0.0 || k as usize > LRU_GHOST_BLOCKS {
            return 0.0;
        }
        let b = band(k);
        self.hits[b] / (self.reads_decayed * (1u64 << b) as f64)
    }

    /// The cost–benefit depth `x*` (`u64::MAX` while no buffer costs anything).
    pub fn depth(&self) -> u64 {
        self.x_star
    }

    /// Whether no evicted block is remembered (a miss then needs no lookup).
    pub fn is_empty(&self) -> bool {
        self.ghost.is_empty()
    }

    /// Demand misses on the ghost list so far.
    pub fn ghost_hits(&self) -> u64 {
        self.ghost_hits
    }
}

/// One hinted read, in array blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Hint {
    block: u64,
    blocks: u64,
}

/// One stream's hints and where it stands in them.
#[derive(Debug, Default)]
struct Stream {
    hints: Vec<Hint>,
    /// The next hint the application will read.
    next: usize,
    /// Hints before this one were fetched (or read).
    fetched_to: usize,
}

#[derive(Debug, Default, Clone, Copy)]
struct Counters {
    hinted_reads: u64,
    unhinted_reads: u64,
    hinted_hits: u64,
    prefetches: u64,
    prefetched_blocks: u64,
    completions_timed: u64,
}

/// TIP.
pub struct Tip {
    streams: Vec<Stream>,
    t_unit_ns: u64,
    t_disk_ns: u64,
    x_cache: u64,
    /// Half the array cache's blocks: the most buffers TIP takes.
    cache_half: u64,
    /// Prefetches in flight: the hint's first block → (its end, issue time).
    in_flight: BTreeMap<u64, (u64, u64)>,
    depth_max: u64,
    /// The LRU side's cost per buffer, and the cost–benefit depth.
    lru: LruEstimator,
    n: Counters,
}

impl Tip {
    /// TIP for the trace of `cfg` (read through once for its hints) on an
    /// array of `capacity_blocks`: a hint outside the array is refused
    /// before the run starts, naming its record.
    pub fn new(cfg: &Config, capacity_blocks: u64) -> Result<Tip> {
        let i = &cfg.informed;
        let mut streams: Vec<Stream> = Vec::new();
        let mut seen: Vec<u64> = Vec::new();
        let mut replay = Replay::open(cfg)?;
        while let Some(r) = replay.next_request()? {
            if r.op != Op::Read || r.size_bytes == 0 {
                continue;
            }
            let s = r.stream as usize;
            if s >= streams.len() {
                streams.resize_with(s + 1, Stream::default);
                seen.resize(s + 1, 0);
            }
            let k = seen[s];
            seen[s] += 1;
            let f = i.hint_fraction;
            if f < 1.0 && ((k + 1) as f64 * f).floor() <= (k as f64 * f).floor() {
                continue;
            }
            let block = r.offset_bytes / PAGE_BYTES;
            let end = r.offset_bytes.saturating_add(r.size_bytes).div_ceil(PAGE_BYTES);
            if end > capacity_blocks {
                return Err(Error::input(
                    replay.path().to_string(),
                    replay.line_of(r.record),
                    format!(
                        "record {}: a hinted read of bytes {}..{} lies beyond the array's {} bytes (hints must \
                         name blocks of the data set)",
                        r.record,
                        r.offset_bytes,
                        r.offset_bytes as u128 + r.size_bytes as u128,
                        capacity_blocks * PAGE_BYTES
                    ),
                ));
            }
            streams[s].hints.push(Hint { block, blocks: end - block });
        }
        let x_cache = if i.x_cache == 0 { MAX_INFORMED_DEPTH as u64 } else { i.x_cache as u64 };
        let cache_half = (cfg.array_cache.capacity_blocks() / 2).max(1);
        Ok(Tip {
            streams,
            t_unit_ns: i.t_cpu.0,
            t_disk_ns: i.t_disk.0,
            x_cache,
            cache_half,
            in_flight: BTreeMap::new(),
            depth_max: 0,
            lru: LruEstimator::new(x_cache.min(cache_half)),
            n: Counters::default(),
        })
    }

    /// `P = ⌈T_disk / T_unit⌉` (unbounded when the application does not compute).
    pub fn horizon(&self) -> u64 {
        if self.t_unit_ns == 0 {
            u64::MAX
        } else {
            self.t_disk_ns.div_ceil(self.t_unit_ns).max(1)
        }
    }

    /// `ΔH(k)` of the LRU side ([`LruEstimator::marginal_hit_rate`]).
    pub fn marginal_hit_rate(&self, k: u64) -> f64 {
        self.lru.marginal_hit_rate(k)
    }

    /// Hinted reads fetched ahead of the application now.
    pub fn depth(&self) -> u64 {
        self.horizon().min(self.x_cache).min(self.lru.depth()).min(self.cache_half)
    }

    /// A read: misses on the LRU ghost list, and the decay.
    fn count(&mut self, a: &BlockAccess) {
        if !a.hit && !self.lru.is_empty() {
            for b in a.first_miss..a.miss_end {
                self.lru.missed(b);
            }
        }
        self.lru.read();
    }
}

impl BlockPrefetch for Tip {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        self.count(&a);
        let depth = self.depth();
        let Some(st) = self.streams.get_mut(a.stream as usize) else {
            self.n.unhinted_reads += 1;
            return;
        };
        let want = Hint { block: a.block, blocks: a.blocks };
        let window = st.hints.len().min(st.next + RESYNC_READS);
        match st.hints[st.next.min(window)..window].iter().position(|h| *h == want) {
            Some(k) => {
                st.next += k + 1;
                self.n.hinted_reads += 1;
                self.n.hinted_hits += a.hit as u64;
            }
            None => self.n.unhinted_reads += 1,
        }
        st.fetched_to = st.fetched_to.max(st.next);
        let until = st.hints.len().min(st.next.saturating_add(depth as usize));
        while st.fetched_to < until {
            let h = st.hints[st.fetched_to];
            st.fetched_to += 1;
            let got = ctx.prefetch(h.block, h.blocks);
            if got > 0 {
                self.n.prefetches += 1;
                self.n.prefetched_blocks += got;
                self.in_flight.insert(h.block, (h.block + h.blocks, ctx.now_ns()));
            }
        }
        self.depth_max = self.depth_max.max(depth.min(st.hints.len() as u64));
    }

    fn on_evict(&mut self, ctx: &mut dyn BlockContext, block: u64, unused_prefetch: bool) {
        if !unused_prefetch && !ctx.is_cached(block) {
            self.lru.evicted(block);
        }
    }

    fn on_complete(&mut self, ctx: &mut dyn BlockContext, block: u64, blocks: u64, _waited: bool) {
        // the hints this read fetched (it holds part of each): their time is T_disk
        let now = ctx.now_ns();
        while let Some((&first, &(end, issued))) = self.in_flight.range(..block + blocks).next_back() {
            if end <= block {
                break;
            }
            self.in_flight.remove(&first);
            let took = now.saturating_sub(issued);
            self.t_disk_ns = (self.t_disk_ns * 7 + took).div_ceil(8).max(1);
            self.n.completions_timed += 1;
        }
    }

    fn state_json(&self) -> serde_json::Value {
        let horizon = self.horizon();
        serde_json::json!({
            "t_unit_ms": self.t_unit_ns as f64 / 1e6,
            "t_disk_ms": self.t_disk_ns as f64 / 1e6,
            "horizon_reads": if horizon == u64::MAX { serde_json::Value::Null } else { horizon.into() },
            "x_cache": self.x_cache,
            "depth_reads": self.depth(),
            "depth_max_reads": self.depth_max,
            "hinted_reads": self.n.hinted_reads,
            "unhinted_reads": self.n.unhinted_reads,
            "hinted_hits": self.n.hinted_hits,
            "prefetches": self.n.prefetches,
            "prefetched_blocks": self.n.prefetched_blocks,
            "completions_timed": self.n.completions_timed,
            "lru_ghost_hits": self.lru.ghost_hits(),
            "cost_benefit_depth_reads": match self.lru.depth() {
                u64::MAX => serde_json::Value::Null,
                x => x.into(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cost_benefit_depth_is_the_last_x_whose_saving_beats_the_lru_buffer() {
        // a flat ΔH: x(x − 1) < 1/ΔH, so ΔH = 1/20 → 4 (4·3 = 12 < 20, 5·4 = 20 is not)
        assert_eq!(cost_benefit_depth(100, |_| 1.0 / 20.0), 4);
        assert_eq!(cost_benefit_depth(100, |_| 1.0 / 21.0), 5);
        assert_eq!(cost_benefit_depth(100, |_| 1.0), 1);
        assert_eq!(cost_benefit_depth(100, |_| 1.0 / 1024.0), 32);
        assert_eq!(cost_benefit_depth(10, |_| 1.0 / 1024.0), 10, "bounded by the limit");
        assert_eq!(cost_benefit_depth(100, |_| 0.0), u64::MAX, "a buffer LRU does not use costs nothing");
        // buffers near the LRU end cost little, deeper ones (more used) stop it
        assert_eq!(cost_benefit_depth(100, |k| if k <= 8 { 0.0 } else { 0.05 }), 8);
    }

    #[test]
    fn ghost_depths_fall_in_power_of_two_bands() {
        assert_eq!((band(1), band(2), band(3), band(4), band(1024), band(5000)), (0, 1, 1, 2, 10, 10));
        assert_eq!(BANDS, 11);
    }
}
