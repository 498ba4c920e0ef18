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
//! * **Depth**: after each read of a stream, its next `min(P, x_cache)`
//!   hinted reads (`informed.x_cache` prefetch buffers; 0: up to
//!   [`MAX_INFORMED_DEPTH`]) are fetched if they are not cached or in flight
//!   already, each as one array read; a hinted read is fetched once.
//! * **Not yet modelled**: the cost–benefit allocation of buffers against
//!   the LRU cache (§8.1: deepen while `ΔT_pf(x)` exceeds the cheapest cost
//!   of an LRU or hinted buffer). Here the buffers are `x_cache` and the
//!   LRU cache gives them up as LRU does.
//!
//! A read that is not the stream's next hint (an unhinted read) leaves the
//! hints where they are; the next hinted read found among the next
//! [`RESYNC_READS`] hints puts TIP back in step.

use crate::config::{Config, MAX_INFORMED_DEPTH};
use crate::error::Result;
use crate::policy::block::{BlockAccess, BlockContext, BlockPrefetch};
use crate::trace::Op;
use crate::units::PAGE_BYTES;
use crate::workload::replay::Replay;
use std::collections::BTreeMap;

/// How far ahead a read is looked for among the hints when it is not the next one.
pub const RESYNC_READS: usize = 64;

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
    /// Prefetches in flight: the hint's first block → (its end, issue time).
    in_flight: BTreeMap<u64, (u64, u64)>,
    depth_max: u64,
    n: Counters,
}

impl Tip {
    /// TIP for the trace of `cfg` (read through once for its hints).
    pub fn new(cfg: &Config) -> Result<Tip> {
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
            streams[s].hints.push(Hint { block, blocks: end - block });
        }
        Ok(Tip {
            streams,
            t_unit_ns: i.t_cpu.0,
            t_disk_ns: i.t_disk.0,
            x_cache: if i.x_cache == 0 { MAX_INFORMED_DEPTH as u64 } else { i.x_cache as u64 },
            in_flight: BTreeMap::new(),
            depth_max: 0,
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

    /// Hinted reads fetched ahead of the application now.
    pub fn depth(&self) -> u64 {
        self.horizon().min(self.x_cache)
    }
}

impl BlockPrefetch for Tip {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
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
            "cost_benefit": "not modelled: the buffers are x_cache (algorithms.md §8.1)",
        })
    }
}
