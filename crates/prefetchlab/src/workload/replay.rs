//! Trace replay (issue 9): the records of a block trace ([`crate::trace`])
//! as requests for the timed engine, in arrival order, in constant memory.
//!
//! * **Arrival times**: a record's trace time (ns from the trace's first
//!   record) divided by `workload.speed` (2 = twice as fast). The engine
//!   issues each record at its arrival (open loop) or, closed loop, after
//!   its stream's previous request completed (plus `workload.think_time`),
//!   taking records in this order.
//! * **Streams**: the trace's own (ASU, device, volume, …; per fragment),
//!   numbered densely from 0 in order of first appearance.
//! * **Time-shifted scale-up** (RAIDmeter's, as in \[JCP12\]'s "Web2-4",
//!   "Fin1-10"): with `workload.fragments = n > 1` the trace is cut by time
//!   into n fragments of equal span, `[i·span/n, (i+1)·span/n)`, each
//!   shifted to start at 0, and all n replayed together, merged by arrival
//!   time; a fragment's streams are its own. This needs the trace's span
//!   first: one pass over it, then one reader per fragment, each skipping
//!   to its fragment's start (so n readers read the file about n/2 times).
//!   Addresses are kept: the fragments read and write the data they did.
//!
//! * **Units** (`workload.units`): a trace's ASUs, devices or volumes
//!   share the array's addresses (`shared`, the default: a record's offset
//!   is the array's), or each has a region of its own (`apart`: models.md
//!   §6.1 has an SPC record's LBA an offset within its ASU), laid one after
//!   another in the order of their numbers, each as long as the highest
//!   byte the trace reaches in it rounded up to [`UNIT_ALIGN_BYTES`] — one
//!   pass over the trace first ([`unit_bases`]). Timed and cache-only runs
//!   place them alike.
//!
//! Records of zero bytes (a flush, say) move no data and are left out, and
//! so are writes with `workload.writes = false` (a trace's reads alone).

use crate::config::{Config, Units};
use crate::error::{Error, Result};
use crate::trace::{Op, Record, RecordSource};
use crate::units::{DURATION_TOO_LONG, MAX_DURATION_NS, NS_PER_S};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::path::Path;
use std::sync::Arc;

/// Opens the trace of `cfg` (its format told from the content when
/// `workload.format = "auto"`).
pub fn open_trace(cfg: &Config) -> Result<Box<dyn RecordSource>> {
    let w = &cfg.workload;
    let mut opts = crate::trace::ReadOptions::with_blk_event(&w.blk_event)?;
    opts.skip_bad = w.skip_bad;
    // lcs-csv and oracleGeneral number their objects in the cache's blocks
    opts.block_bytes = cfg.array_cache.block.0;
    opts.stream_by_process = w.stream_by == crate::config::StreamBy::Process;
    let format = match w.format.as_str() {
        "auto" => None,
        name => Some(crate::trace::Format::from_name(name)?),
    };
    crate::trace::open_with(Path::new(&w.path), format, &opts)
}

/// What a unit's region is rounded up to under `workload.units = "apart"`:
/// 1 MiB, as partitions are aligned.
pub const UNIT_ALIGN_BYTES: u64 = 1 << 20;

/// Where each unit of the trace begins on the array, by its number, under
/// `workload.units = "apart"` (`None` under `"shared"`): one pass over the
/// trace for the highest byte each unit reaches.
pub fn unit_bases(cfg: &Config) -> Result<Option<Arc<FxHashMap<u32, u64>>>> {
    if cfg.workload.units != Units::Apart {
        return Ok(None);
    }
    let mut source = open_trace(cfg)?;
    let mut ends: BTreeMap<u32, u64> = BTreeMap::new();
    let mut batch = Vec::with_capacity(BATCH_RECORDS);
    loop {
        batch.clear();
        if source.next_batch(&mut batch, BATCH_RECORDS)? == 0 {
            break;
        }
        for r in &batch {
            let end = r.offset_bytes.saturating_add(r.size_bytes);
            let e = ends.entry(r.stream).or_insert(0);
            *e = (*e).max(end);
        }
    }
    let mut bases = FxHashMap::default();
    let mut next = 0u64;
    for (unit, end) in ends {
        bases.insert(unit, next);
        next = end
            .div_ceil(UNIT_ALIGN_BYTES)
            .checked_mul(UNIT_ALIGN_BYTES)
            .and_then(|len| next.checked_add(len))
            .ok_or_else(|| {
                Error::config(
                    "workload.units",
                    format!(
                        "{}: its units laid one after another pass 2^64 bytes (\"shared\" keeps their own \
                         offsets)",
                        cfg.workload.path
                    ),
                )
            })?;
    }
    Ok(Some(Arc::new(bases)))
}

/// The trace of `cfg` with its units placed by `bases` ([`unit_bases`];
/// `None`: their offsets as recorded).
pub fn open_placed(cfg: &Config, bases: Option<&Arc<FxHashMap<u32, u64>>>) -> Result<Box<dyn RecordSource>> {
    let inner = open_trace(cfg)?;
    Ok(match bases {
        None => inner,
        Some(bases) => Box::new(UnitsApart { inner, bases: Arc::clone(bases) }),
    })
}

/// A trace whose records' offsets are moved to their units' regions.
struct UnitsApart {
    inner: Box<dyn RecordSource>,
    bases: Arc<FxHashMap<u32, u64>>,
}

impl RecordSource for UnitsApart {
    fn next_batch(&mut self, out: &mut Vec<Record>, max: usize) -> Result<usize> {
        let start = out.len();
        let n = self.inner.next_batch(out, max)?;
        for r in &mut out[start..] {
            // every unit was seen by the pass, and its region holds it
            r.offset_bytes += self.bases.get(&r.stream).copied().unwrap_or(0);
        }
        Ok(n)
    }
    fn format(&self) -> crate::trace::Format {
        self.inner.format()
    }
    fn skipped(&self) -> u64 {
        self.inner.skipped()
    }
    fn first_skipped_line(&self) -> usize {
        self.inner.first_skipped_line()
    }
    fn line(&self) -> usize {
        self.inner.line()
    }
}

/// A record as the engine issues it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceRequest {
    /// When it arrives (open loop), ns.
    pub arrival_ns: u64,
    /// Dense stream number (see the module doc).
    pub stream: u32,
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub op: Op,
    /// The record's number in its trace (1-based; for errors).
    pub record: u64,
}

/// Records read from a fragment's reader at a time.
const BATCH_RECORDS: usize = 1024;

/// One fragment: its reader and the window of trace time it replays.
struct Fragment {
    source: Box<dyn RecordSource>,
    batch: Vec<Record>,
    pos: usize,
    /// Records read from the trace so far (all of them, skipped included).
    read: u64,
    start_ns: u64,
    /// Exclusive end; `u64::MAX` for the last fragment.
    end_ns: u64,
    /// Writes are replayed (`workload.writes`).
    writes: bool,
    done: bool,
}

impl Fragment {
    /// The next record of the fragment's window, or `None` at its end.
    fn next(&mut self) -> Result<Option<(Record, u64)>> {
        while !self.done {
            if self.pos == self.batch.len() {
                self.batch.clear();
                self.pos = 0;
                if self.source.next_batch(&mut self.batch, BATCH_RECORDS)? == 0 {
                    self.done = true;
                    break;
                }
            }
            let r = self.batch[self.pos];
            self.pos += 1;
            self.read += 1;
            if r.time_ns >= self.end_ns {
                self.done = true;
                break;
            }
            if r.time_ns < self.start_ns || r.size_bytes == 0 || (r.op == Op::Write && !self.writes) {
                continue;
            }
            return Ok(Some((r, self.read)));
        }
        Ok(None)
    }
}

/// The requests of a trace, merged over its fragments by arrival time.
pub struct Replay {
    fragments: Vec<Fragment>,
    /// The next request of each fragment not yet handed out, by arrival.
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    pending: Vec<Option<TraceRequest>>,
    speed: f64,
    /// Open loop: the arrivals are the times requests are issued at, so one
    /// past the clock is refused; a closed loop only orders by them.
    open_loop: bool,
    streams: FxHashMap<(u32, u32), u32>,
    /// The path, for errors.
    path: String,
    /// The configuration the trace is read with: to start from at the first
    /// request (with fragments), and to find a record's line for an error.
    cfg: Box<Config>,
    started: bool,
}

impl Replay {
    /// Opens the trace of `cfg.workload` for replay. With fragments, the
    /// pass that finds the trace's span and the fragments' readers wait for
    /// the first request (so that checking a configuration opens the trace
    /// once, without reading it through).
    pub fn open(cfg: &Config) -> Result<Replay> {
        let w = &cfg.workload;
        let mut replay = Replay {
            fragments: Vec::new(),
            heap: BinaryHeap::new(),
            pending: Vec::new(),
            speed: w.speed,
            open_loop: w.replay == crate::config::Replay::Open,
            streams: FxHashMap::default(),
            path: w.path.clone(),
            cfg: Box::new(cfg.clone()),
            started: false,
        };
        if w.fragments > 1 {
            open_trace(cfg)?; // readable, its format known
        } else {
            replay.start()?;
        }
        Ok(replay)
    }

    /// Opens the fragments' readers and reads each one's first request.
    fn start(&mut self) -> Result<()> {
        self.started = true;
        let cfg = &*self.cfg;
        let w = &cfg.workload;
        let n = w.fragments.max(1) as u64;
        let mut windows = vec![(0u64, u64::MAX)];
        if n > 1 {
            let span_ns = last_time_ns(open_trace(cfg)?.as_mut())? as u128;
            windows = (0..n)
                .map(|i| {
                    let start = (span_ns * i as u128 / n as u128) as u64;
                    let end =
                        if i + 1 == n { u64::MAX } else { (span_ns * (i as u128 + 1) / n as u128) as u64 };
                    (start, end)
                })
                .collect();
        }
        let bases = unit_bases(cfg)?;
        for (start_ns, end_ns) in windows {
            self.fragments.push(Fragment {
                source: open_placed(cfg, bases.as_ref())?,
                batch: Vec::with_capacity(BATCH_RECORDS),
                pos: 0,
                read: 0,
                start_ns,
                end_ns,
                writes: w.writes,
                done: false,
            });
        }
        self.pending = vec![None; self.fragments.len()];
        for f in 0..self.fragments.len() as u32 {
            self.refill(f)?;
        }
        Ok(())
    }

    /// The trace file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The file line of the trace's record `record` (1-based, as
    /// [`TraceRequest::record`] numbers it); 0 if not a text format.
    pub fn line_of(&self, record: u64) -> usize {
        open_trace(&self.cfg).map(|mut s| crate::trace::line_of_record(s.as_mut(), record)).unwrap_or(0)
    }

    /// Malformed records skipped so far (`workload.skip_bad`): the most any
    /// fragment's reader passed (each reads the file from its start; the
    /// last to its end), so a bad record is counted once.
    pub fn skipped_records(&self) -> u64 {
        self.fragments.iter().map(|f| f.source.skipped()).max().unwrap_or(0)
    }

    /// Streams seen so far.
    pub fn streams(&self) -> u32 {
        self.streams.len() as u32
    }

    /// Reads fragment `f`'s next request into `pending` and the heap.
    fn refill(&mut self, f: u32) -> Result<()> {
        let frag = &mut self.fragments[f as usize];
        let Some((r, record)) = frag.next()? else { return Ok(()) };
        let shifted = r.time_ns - frag.start_ns;
        // (a scaled time past u64 saturates, so past the clock too)
        let arrival_ns =
            if self.speed == 1.0 { shifted } else { (shifted as f64 / self.speed).round() as u64 };
        if arrival_ns > MAX_DURATION_NS && self.open_loop {
            return Err(self.beyond_the_clock(&r, record, shifted));
        }
        let next_id = self.streams.len() as u32;
        let stream = *self.streams.entry((f, r.stream)).or_insert(next_id);
        self.pending[f as usize] = Some(TraceRequest {
            arrival_ns,
            stream,
            offset_bytes: r.offset_bytes,
            size_bytes: r.size_bytes,
            op: r.op,
            record,
        });
        self.heap.push(Reverse((arrival_ns, f)));
        Ok(())
    }

    /// A record whose arrival (after `workload.speed`) is past the clock's
    /// last instant: refused, as a configuration's durations are, rather
    /// than every later time held at the clock's end (which cut the
    /// latencies of the requests finishing after it short).
    fn beyond_the_clock(&self, r: &Record, record: u64, shifted_ns: u64) -> Error {
        let scaled = if self.speed == 1.0 {
            String::new()
        } else {
            let s = shifted_ns as f64 / self.speed / NS_PER_S as f64;
            format!(" at workload.speed = {}, {s:.3} s,", self.speed)
        };
        Error::input(
            self.path.clone(),
            self.line_of(record),
            format!(
                "record {record}: its time, {:.9} s{scaled} {DURATION_TOO_LONG}{}",
                r.time_ns as f64 / NS_PER_S as f64,
                if self.speed == 1.0 { "" } else { ": a larger workload.speed" }
            ),
        )
    }

    /// The next request by arrival time (ties: the lower fragment first),
    /// `None` when every fragment is done.
    pub fn next_request(&mut self) -> Result<Option<TraceRequest>> {
        if !self.started {
            self.start()?;
        }
        let Some(Reverse((_, f))) = self.heap.pop() else { return Ok(None) };
        let req = self.pending[f as usize]
            .take()
            .ok_or_else(|| Error::Internal("replay heap out of step".into()))?;
        self.refill(f)?;
        Ok(Some(req))
    }
}

/// The time of the last record of a trace (one whole pass).
fn last_time_ns(source: &mut dyn RecordSource) -> Result<u64> {
    let mut batch = Vec::with_capacity(4096);
    let mut last = 0;
    loop {
        batch.clear();
        if source.next_batch(&mut batch, 4096)? == 0 {
            return Ok(last);
        }
        last = batch.iter().fold(last, |m, r: &Record| m.max(r.time_ns));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{RunMode, WorkloadKind};

    fn cfg(text: &str, fragments: u32, speed: f64) -> (Config, tempdir::Dir) {
        let dir = tempdir::Dir::new();
        let path = dir.0.join("t.spc");
        std::fs::write(&path, text).unwrap();
        let mut c = Config::default();
        c.workload.kind = WorkloadKind::Trace;
        c.workload.path = path.display().to_string();
        c.workload.format = "spc".into();
        c.workload.fragments = fragments;
        c.workload.speed = speed;
        c.run.mode = RunMode::CacheOnly; // not checked here
        (c, dir)
    }

    mod tempdir {
        pub struct Dir(pub std::path::PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                use std::sync::atomic::{AtomicU32, Ordering};
                static N: AtomicU32 = AtomicU32::new(0);
                let p = std::env::temp_dir().join(format!(
                    "prefetchlab-replay-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    fn all(r: &mut Replay) -> Vec<TraceRequest> {
        all_or_err(r).unwrap()
    }

    const TRACE: &str = "0,0,4096,r,0\n5,8,4096,w,1\n0,16,0,r,1.5\n0,16,4096,r,2\n5,24,4096,r,3\n";

    #[test]
    fn one_fragment_in_trace_order_with_dense_streams_and_speed() {
        let (c, _d) = cfg(TRACE, 1, 2.0);
        let got = all(&mut Replay::open(&c).unwrap());
        let at: Vec<(u64, u32, u64, u64)> =
            got.iter().map(|r| (r.arrival_ns, r.stream, r.offset_bytes, r.record)).collect();
        // the zero-size record (3rd) is left out; ASU 5 is stream 1; times halved
        assert_eq!(
            at,
            vec![
                (0, 0, 0, 1),
                (500_000_000, 1, 4096, 2),
                (1_000_000_000, 0, 8192, 4),
                (1_500_000_000, 1, 12288, 5)
            ]
        );
        assert_eq!(got[1].op, Op::Write);
    }

    #[test]
    fn units_apart_each_have_a_region_after_the_one_before() {
        let at = |c: &Config| -> Vec<(u32, u64)> {
            all(&mut Replay::open(c).unwrap()).iter().map(|r| (r.stream, r.offset_bytes)).collect()
        };
        let (mut c, _d) = cfg(TRACE, 1, 1.0);
        assert_eq!(at(&c), vec![(0, 0), (1, 4096), (0, 8192), (1, 12288)]);
        c.workload.units = Units::Apart;
        // ASU 0 reaches byte 12,288: its region is 1 MiB, and ASU 5's begins there
        let mib = UNIT_ALIGN_BYTES;
        assert_eq!(at(&c), vec![(0, 0), (1, mib + 4096), (0, 8192), (1, mib + 12288)]);
        assert_eq!(unit_bases(&c).unwrap().unwrap().get(&5), Some(&mib));
        // in the order of their numbers, not of first appearance; a unit
        // reaching past 1 MiB (ASU 1: its sector 2048 is byte 1 MiB) takes
        // the next whole MiB
        let (mut c, _d) = cfg("3,0,4096,r,0\n1,2048,4096,r,1\n1,0,512,r,2\n", 1, 1.0);
        c.workload.units = Units::Apart;
        assert_eq!(at(&c), vec![(0, 2 * mib), (1, mib), (1, 0)]);
        let b = unit_bases(&c).unwrap().unwrap();
        assert_eq!((b.get(&1), b.get(&3)), (Some(&0), Some(&(2 * mib))));
    }

    #[test]
    fn a_time_past_the_clock_is_refused_with_its_line() {
        // the clock's last instant is 2^63 − 1 ns: 9223372036.854775807 s
        let (c, _d) = cfg("0,0,4096,r,0\n0,8,4096,r,9223372036.854775\n0,16,4096,r,9223372037\n", 1, 1.0);
        let e = Replay::open(&c).and_then(|mut r| {
            assert_eq!(r.next_request()?.unwrap().record, 1);
            assert_eq!(r.next_request()?.unwrap().arrival_ns, 9_223_372_036_854_775_000);
            r.next_request()
        });
        let e = e.unwrap_err().to_string();
        assert!(e.contains("t.spc:3: record 3: its time, 9223372037.000000000 s is longer than"), "{e}");
        assert!(!e.contains("workload.speed"), "{e}");
        // a speed that stretches a trace past it names the key
        let (c, _d) = cfg("0,0,4096,r,0\n0,8,4096,r,10\n", 1, 1e-12);
        let e = Replay::open(&c).and_then(|mut r| all_or_err(&mut r)).unwrap_err().to_string();
        assert!(
            e.contains("t.spc:2: record 2: its time, 10.000000000 s at workload.speed = 0.000000000001,"),
            "{e}"
        );
        assert!(e.ends_with("about 292 years): a larger workload.speed"), "{e}");
        // a closed loop only orders by the times: not refused
        let (mut c, _d) = cfg("0,0,4096,r,0\n0,8,4096,r,10\n", 1, 1e-12);
        c.workload.replay = crate::config::Replay::Closed;
        assert_eq!(all(&mut Replay::open(&c).unwrap()).len(), 2);
        // and one that keeps it inside is fine
        let (c, _d) = cfg("0,0,4096,r,0\n0,8,4096,r,10\n", 1, 1e-8);
        let mut r = Replay::open(&c).unwrap();
        assert_eq!(all(&mut r)[1].arrival_ns, 1_000_000_000_000_000_000);
    }

    fn all_or_err(r: &mut Replay) -> Result<Vec<TraceRequest>> {
        let mut out = Vec::new();
        while let Some(x) = r.next_request()? {
            out.push(x);
        }
        Ok(out)
    }

    #[test]
    fn fragments_are_shifted_to_a_common_start_and_merged() {
        // span 3 s, 2 fragments: [0, 1.5) and [1.5, ∞)
        let (c, _d) = cfg(TRACE, 2, 1.0);
        let mut r = Replay::open(&c).unwrap();
        let got: Vec<(u64, u32, u64)> =
            all(&mut r).iter().map(|r| (r.arrival_ns, r.stream, r.record)).collect();
        // fragment 0: records 1 (0 s), 2 (1 s); fragment 1: 4 (2 s → 0.5 s), 5 (3 s → 1.5 s);
        // streams: (0, ASU 0) = 0, (1, ASU 0) = 1, (0, ASU 5) = 2, (1, ASU 5) = 3
        assert_eq!(got, vec![(0, 0, 1), (500_000_000, 1, 4), (1_000_000_000, 2, 2), (1_500_000_000, 3, 5)]);
        assert_eq!(r.streams(), 4);
    }

    #[test]
    fn a_bad_record_skipped_is_counted_once_whatever_the_fragments() {
        // two bad lines, one in each half of the span
        let text = "0,0,4096,r,0\n0,x,1,r,0.5\n0,8,4096,r,1\n0,16,4096,r,2\n0,24,-1,r,2.5\n0,32,4096,r,3\n";
        for fragments in [1, 2, 3] {
            let (mut c, _d) = cfg(text, fragments, 1.0);
            c.workload.skip_bad = 2;
            let mut r = Replay::open(&c).unwrap();
            assert_eq!(all(&mut r).len(), 4, "{fragments} fragments");
            assert_eq!(r.skipped_records(), 2, "{fragments} fragments");
        }
    }
}
