//! The cache-only mode (`[run] mode = "cache-only"`, issue 9): a block
//! trace through the array cache and its block prefetching policy alone —
//! no clock, no disks — counting hits, misses and prefetch accuracy. It is
//! the mode for 10⁸–10⁹-record traces, so its speed is a feature: it reuses
//! the timed engine's [`ArrayCache`] and [`crate::policy::block`] policies
//! (the same LRU, the same used/prefetched bookkeeping), never the timed
//! engine's event loop.
//!
//! What a record does here:
//! * it is split into the cache blocks (`array_cache.block`) it touches,
//!   `offset / block` up to `(offset + size − 1) / block`, each one access,
//!   in order — the block sequence libCacheSim is given by
//!   `prefetchlab trace convert --to lcs-csv` (a zero-size record touches
//!   nothing, as libCacheSim ignores zero-size requests);
//! * a block present is a hit and becomes the most recently used; a block
//!   absent is a miss and is brought in (the least recently used block is
//!   evicted when the cache is full);
//! * reads and writes alike: a write allocates its blocks (write-allocate),
//!   so without a clock `array_cache.write_policy` changes no count — it
//!   changes when the disks are written, which only a timed run sees;
//! * the block policy then sees a read's whole range as one access (hit
//!   when every block was present, its first missing block), as it sees a
//!   logical read in a timed run, and its prefetches arrive at once (so
//!   completion hooks, such as AMP's `readWaiting`, never fire: there is no
//!   clock); writes are not shown to it (prefetching serves reads), as in a
//!   timed run, but the evictions they cause are.
//!
//! With `workload.writes = false` a trace's writes are skipped (not counted).
//!
//! The stream a record belongs to does not matter here: one cache serves
//! every stream of the trace.

use crate::array::cache::ArrayCache;
use crate::cache::lru::NONE;
use crate::config::BlockPrefetchPolicy;
use crate::config::{Config, RunMode};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::metrics::{ratio_of, Metrics, Report};
use crate::policy::block::{self as block_policy, BlockAccess, BlockContext, BlockPrefetch};
use crate::trace::{line_of_record, Op, Record};
use crate::workload::replay::{open_placed, open_trace, unit_bases};

/// Records read from the trace at a time.
const BATCH_RECORDS: usize = 4096;
/// Records between two progress reports.
const PROGRESS_EVERY_RECORDS: u64 = 1 << 18;

/// Runs `cfg` in cache-only mode, calling `progress` now and then (it
/// stops the run with [`Error::Cancelled`] by returning `false`).
pub fn run(cfg: &Config, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report> {
    let wall = std::time::Instant::now();
    let mut source = open_placed(cfg, unit_bases(cfg)?.as_ref())?;
    let mut sim = CacheOnly::new(cfg);
    let mut batch = Vec::with_capacity(BATCH_RECORDS);
    let mut next_report = PROGRESS_EVERY_RECORDS;
    let mut read = 0u64; // records read from the trace, writes not replayed included
    loop {
        batch.clear();
        if source.next_batch(&mut batch, BATCH_RECORDS)? == 0 {
            break;
        }
        for r in &batch {
            read += 1;
            sim.record(r).map_err(|msg| {
                let line = open_trace(cfg).map(|mut s| line_of_record(s.as_mut(), read)).unwrap_or(0);
                Error::input(cfg.workload.path.clone(), line, format!("record {read}: {msg}"))
            })?;
        }
        if sim.records >= next_report {
            next_report = sim.records + PROGRESS_EVERY_RECORDS;
            let p = Progress { sim_ns: 0, duration_ns: 0, requests_done: sim.records, requests_total: 0 };
            if !progress(&p) {
                return Err(Error::Cancelled);
            }
        }
    }
    let mut report = sim.report(cfg, wall.elapsed().as_secs_f64());
    report.metrics.trace_records_skipped = source.skipped();
    Ok(report)
}

/// The cache, its policy and the counts of a cache-only run.
pub struct CacheOnly {
    cache: ArrayCache,
    policy: Box<dyn BlockPrefetch>,
    /// A policy other than `none`: it hears of evictions.
    policy_active: bool,
    /// Evictions (block, unused prefetch) the policy has not heard of yet.
    evicted: Vec<(u64, bool)>,
    /// Reused buffer: blocks moved back by their second chance.
    chances: Vec<u64>,
    block_bytes: u64,
    /// `workload.writes`: a trace's writes are replayed (else skipped).
    writes_replayed: bool,
    records: u64,
    writes: u64,
    bytes_read: u64,
    bytes_written: u64,
}

impl CacheOnly {
    pub fn new(cfg: &Config) -> CacheOnly {
        let c = &cfg.array_cache;
        let mut cache = ArrayCache::new(c.capacity_blocks());
        if c.prefetch.uses_sequential_detection() {
            cache.set_seq_threshold(c.seq_threshold as u8);
        }
        CacheOnly {
            cache,
            policy: block_policy::build(cfg, block_policy::cache_only_geometry(cfg)),
            policy_active: !matches!(c.prefetch, BlockPrefetchPolicy::None | BlockPrefetchPolicy::Linux),
            evicted: Vec::new(),
            chances: Vec::new(),
            block_bytes: c.block.0,
            writes_replayed: cfg.workload.writes,
            records: 0,
            writes: 0,
            bytes_read: 0,
            bytes_written: 0,
        }
    }

    /// One record of the trace; an error message when its range overflows.
    #[inline]
    pub fn record(&mut self, r: &Record) -> std::result::Result<(), String> {
        if r.op == Op::Write && !self.writes_replayed {
            return Ok(());
        }
        self.records += 1;
        match r.op {
            Op::Read => self.bytes_read += r.size_bytes,
            Op::Write => {
                self.writes += 1;
                self.bytes_written += r.size_bytes;
            }
        }
        if r.size_bytes == 0 {
            return Ok(());
        }
        let last_byte = r.last_byte()?;
        let first = r.offset_bytes / self.block_bytes;
        let end = last_byte / self.block_bytes + 1;
        let (mut first_miss, mut miss_end) = (u64::MAX, first);
        for b in first..end {
            let slot = self.cache.lookup(b);
            if slot != NONE {
                self.cache.stats.hits += 1;
                self.cache.access(slot);
            } else {
                first_miss = first_miss.min(b);
                miss_end = b + 1;
                if let (_, Some(ev)) = self.cache.fill(b, false) {
                    if self.policy_active {
                        self.evicted.push((ev.key, ev.unused_prefetch));
                    }
                }
            }
        }
        if !self.policy_active {
            return Ok(());
        }
        if r.op == Op::Read {
            // block policies see reads only (prefetching serves reads)
            let hit = first_miss == u64::MAX;
            let first_miss = if hit { first } else { first_miss };
            let sequential = self.cache.sequential(first_miss);
            let access = BlockAccess {
                stream: r.stream,
                block: first,
                blocks: end - first,
                hit,
                first_miss,
                miss_end,
                sequential,
            };
            self.policy.on_access(&mut Ctx { cache: &mut self.cache, evicted: &mut self.evicted }, access);
        }
        self.policy_events();
        Ok(())
    }

    /// Delivers the evictions and second chances since the last call to the policy.
    fn policy_events(&mut self) {
        loop {
            self.cache.take_second_chances(&mut self.chances);
            if self.evicted.is_empty() && self.chances.is_empty() {
                return;
            }
            let evicted = std::mem::take(&mut self.evicted);
            let chances = std::mem::take(&mut self.chances);
            let mut ctx = Ctx { cache: &mut self.cache, evicted: &mut self.evicted };
            for &(b, unused) in &evicted {
                self.policy.on_evict(&mut ctx, b, unused);
            }
            for &b in &chances {
                self.policy.on_second_chance(&mut ctx, b);
            }
            // keep the buffers; what the hooks caused goes round again
            let (mut evicted, mut chances) = (evicted, chances);
            evicted.clear();
            chances.clear();
            evicted.append(&mut self.evicted);
            self.evicted = evicted;
            self.chances = chances;
        }
    }

    /// The run's metrics; those a cache-only run does not measure (time,
    /// disks, the page cache) are left out of its report ([`Metrics::CACHE_ONLY`]).
    pub fn report(&self, cfg: &Config, wall_s: f64) -> Report {
        let s = self.cache.stats;
        let accesses = s.hits + s.misses;
        let metrics = Metrics {
            app_requests: self.records,
            writes: self.writes,
            bytes_read: self.bytes_read,
            bytes_written: self.bytes_written,
            hits: s.hits,
            misses: s.misses,
            hit_ratio: ratio_of(s.hits as f64, accesses as f64),
            array_cache_hit_ratio: ratio_of(s.hits as f64, accesses as f64),
            prefetched_blocks: s.prefetched,
            prefetch_used_blocks: s.prefetch_used,
            wasted_blocks: s.wasted,
            block_policy_state: self.policy.state_json().to_string(),
            readahead_policy_state: "{}".into(),
            prefetch_accuracy: ratio_of(s.prefetch_used as f64, s.prefetched as f64),
            wall_time_s: wall_s,
            requests_per_wall_s: if wall_s > 0.0 { self.records as f64 / wall_s } else { 0.0 },
            ..Metrics::default()
        };
        Report { config_json: cfg.to_json(), metrics, mode: RunMode::CacheOnly, ..Report::default() }
    }
}

/// The block policy's view of the cache: its prefetches arrive at once.
struct Ctx<'a> {
    cache: &'a mut ArrayCache,
    /// Evictions the prefetches caused, for the policy once it returns.
    evicted: &'a mut Vec<(u64, bool)>,
}

impl Ctx<'_> {
    /// Brings the absent blocks of `[block, block+blocks)` in as prefetched,
    /// noting them in `brought` and, with `first_word`, giving them the
    /// words `first_word`, `first_word + 1`, ….
    #[inline]
    fn fill_absent(
        &mut self,
        block: u64,
        blocks: u64,
        mut brought: Option<&mut Vec<u64>>,
        first_word: Option<u64>,
    ) -> u64 {
        let mut got = 0;
        for b in block..block.saturating_add(blocks) {
            if self.cache.lookup(b) == NONE {
                let (slot, ev) = self.cache.fill(b, true);
                if let Some(ev) = ev {
                    self.evicted.push((ev.key, ev.unused_prefetch));
                }
                if let Some(w) = first_word {
                    self.cache.set_slot_word(slot, w + got);
                }
                got += 1;
                if let Some(out) = brought.as_deref_mut() {
                    out.push(b);
                }
            }
        }
        got
    }
}

impl BlockContext for Ctx<'_> {
    fn is_cached(&self, block: u64) -> bool {
        self.cache.lookup(block) != NONE
    }
    fn prefetch(&mut self, block: u64, blocks: u64) -> u64 {
        self.fill_absent(block, blocks, None, None)
    }
    fn prefetch_noting(&mut self, block: u64, blocks: u64, brought: &mut Vec<u64>) -> u64 {
        self.fill_absent(block, blocks, Some(brought), None)
    }
    fn prefetch_stamping(&mut self, block: u64, blocks: u64, brought: &mut Vec<u64>, first_word: u64) -> u64 {
        self.fill_absent(block, blocks, Some(brought), Some(first_word))
    }
    fn set_tag(&mut self, block: u64) {
        self.cache.set_tag(block);
    }
    fn take_tag(&mut self, block: u64) -> bool {
        self.cache.take_tag(block)
    }
    fn give_second_chance(&mut self, block: u64) {
        self.cache.give_second_chance(block);
    }
    fn cull(&mut self, block: u64) -> bool {
        self.cache.cull(block)
    }
    fn drop_read(&mut self, block: u64) -> bool {
        self.cache.drop_read(block)
    }
    fn now_ns(&self) -> u64 {
        0 // no clock
    }
    fn word(&self, block: u64) -> u64 {
        self.cache.word(block)
    }
    fn set_word(&mut self, block: u64, word: u64) {
        self.cache.set_word(block, word);
    }
    fn take_word(&mut self, block: u64) -> u64 {
        self.cache.take_word(block)
    }
    fn cull_if_words(&mut self, due: &[(u64, u64)], culled: &mut Vec<u64>) {
        self.cache.cull_if_words(due, culled);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(size_blocks: u64, prefetch: BlockPrefetchPolicy) -> Config {
        let mut c = Config::default();
        c.array_cache.size.0 = size_blocks * 4096;
        c.array_cache.prefetch = prefetch;
        c
    }

    fn rec(block: u64, blocks: u64, op: Op) -> Record {
        Record { time_ns: 0, stream: 0, offset_bytes: block * 4096, size_bytes: blocks * 4096, op }
    }

    #[test]
    fn lru_counts_by_hand() {
        // 2 blocks: 1 2 1 3 2 → miss miss hit miss(evicts 2) miss(evicts 1)
        let mut s = CacheOnly::new(&cfg(2, BlockPrefetchPolicy::None));
        for b in [1, 2, 1, 3, 2] {
            s.record(&rec(b, 1, Op::Read)).unwrap();
        }
        let st = s.cache.stats;
        assert_eq!((st.hits, st.misses), (1, 4));
        assert_eq!(s.cache.len(), 2);
    }

    #[test]
    fn a_record_touches_every_block_it_overlaps() {
        let mut s = CacheOnly::new(&cfg(8, BlockPrefetchPolicy::None));
        // 100 bytes across the 4096 boundary: blocks 0 and 1
        s.record(&Record { time_ns: 0, stream: 0, offset_bytes: 4000, size_bytes: 100, op: Op::Write })
            .unwrap();
        s.record(&rec(0, 2, Op::Read)).unwrap();
        s.record(&Record { time_ns: 0, stream: 0, offset_bytes: 9, size_bytes: 0, op: Op::Read }).unwrap();
        let st = s.cache.stats;
        assert_eq!((st.hits, st.misses), (2, 2));
        assert_eq!((s.records, s.writes, s.bytes_written, s.bytes_read), (3, 1, 100, 8192));
        let e = s
            .record(&Record { time_ns: 0, stream: 0, offset_bytes: u64::MAX, size_bytes: 2, op: Op::Read })
            .unwrap_err();
        assert!(e.contains("beyond 2^64"), "{e}");
    }

    #[test]
    fn obl_prefetches_on_a_sequential_miss_only_and_counts_use_and_waste() {
        // decisions.md 6d/6f: a miss on x with x − 1 cached (seq_threshold 2) fetches x + 1
        let mut s = CacheOnly::new(&cfg(4, BlockPrefetchPolicy::Obl));
        // cache of 4, most recent first
        s.record(&rec(10, 1, Op::Read)).unwrap(); // isolated miss: nothing more — 10
        s.record(&rec(11, 1, Op::Read)).unwrap(); // sequential miss: fetch 12 — 12 11 10
        s.record(&rec(12, 1, Op::Read)).unwrap(); // hit on a prefetch — 12 11 10
        s.record(&rec(30, 1, Op::Read)).unwrap(); // isolated — 30 12 11 10
        s.record(&rec(31, 1, Op::Read)).unwrap(); // sequential: evicts 10; 32 evicts 11 — 32 31 30 12
        for b in [50, 60, 70, 80] {
            s.record(&rec(b, 1, Op::Read)).unwrap(); // evict 12 (read), 30, 31, then 32 (never read)
        }
        let st = s.cache.stats;
        assert_eq!((st.hits, st.misses), (1, 8));
        assert_eq!((st.prefetched, st.prefetch_used, st.wasted), (2, 1, 1));
        // a threshold of 1 makes every miss sequential: the isolated miss fetches its next block
        let mut c = cfg(4, BlockPrefetchPolicy::Obl);
        c.array_cache.seq_threshold = 1;
        let mut s = CacheOnly::new(&c);
        s.record(&rec(10, 1, Op::Read)).unwrap();
        assert_eq!(s.cache.stats.prefetched, 1);
    }
}
