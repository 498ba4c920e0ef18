//! The engine's side of trace replay (issue 9; the records come from
//! [`crate::workload::replay`]): a block trace was recorded below a page
//! cache, so its requests enter at the array, as O_DIRECT reads do, in 4 KiB
//! blocks (a record covering part of a block moves the whole block).
//!
//! * A read goes through the array cache when there is one (with Linux
//!   readahead at the array first, [`super::array_readahead`], when
//!   `array_cache.prefetch = "linux"`).
//! * A write updates the array cache — write-through: the blocks it covers
//!   become its most recent, present ones counted as hits, absent ones
//!   brought in without a read; write-back: the same, dirty, and the write
//!   completes at once — and goes to the disks as md plans it
//!   ([`crate::array::write`]): the reads of read-modify-write or
//!   reconstruct-write first, then the data and parity (or mirror) writes;
//!   it completes when the last write does.
//! * Open loop: each request at its arrival; closed loop: a stream's next
//!   request `think_time` after its previous one completed, at most
//!   [`CLOSED_LOOP_READ_AHEAD`] requests read ahead of their issue.
//! * Block policies see reads only.

use super::{Engine, Ev, IoKind};
use crate::array::write::plan_write;
use crate::cache::lru::NONE;
use crate::config::{
    BlockPrefetchPolicy, Config, InformedPolicy, ReadaheadPolicy, Replay as ReplayLoop, WritePolicy,
};
use crate::error::{Error, Result};
use crate::metrics::{IoEvent, IoRow};
use crate::policy::readahead::Readahead;
use crate::sim::TimeNs;
use crate::trace::Op;
use crate::units::PAGE_BYTES;
use crate::workload::replay::{Replay, TraceRequest};
use std::collections::VecDeque;

/// A trace request in flight.
#[derive(Debug, Clone, Copy)]
pub(super) struct TraceReq {
    pub(super) stream: u32,
    pub(super) issue_ns: TimeNs,
    pub(super) bytes: u64,
    pub(super) op: Op,
    pub(super) block: u64,
    pub(super) blocks: u64,
    /// A write-back of dirty array-cache blocks, not an application request.
    pub(super) writeback: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum TraceStreamState {
    /// Nothing in flight (closed loop: the next request is issued at once).
    #[default]
    Idle,
    /// Closed loop: waiting out the think time.
    Thinking,
    /// Closed loop: a request in flight.
    Busy,
}

/// One stream of a trace.
#[derive(Debug, Default)]
pub(super) struct TraceStream {
    pub(super) state: TraceStreamState,
    /// Closed loop: its requests read from the trace, not issued yet.
    pub(super) queue: VecDeque<TraceRequest>,
    pub(super) requests: u64,
    pub(super) bytes_read: u64,
    pub(super) latency_sum_ns: u64,
    pub(super) finish_ns: TimeNs,
}

/// Closed loop: the most trace requests read ahead of their issue (over
/// all streams), which bounds memory whatever the trace's length.
pub(super) const CLOSED_LOOP_READ_AHEAD: u64 = 4096;

/// The replay of a block trace.
pub(super) struct TraceReplay {
    pub(super) replay: Replay,
    pub(super) closed: bool,
    pub(super) think_ns: u64,
    /// Open loop: the next request, due at its arrival.
    pub(super) next: Option<TraceRequest>,
    pub(super) reqs: Vec<TraceReq>,
    pub(super) free_reqs: Vec<u32>,
    pub(super) in_flight: u64,
    pub(super) streams: Vec<TraceStream>,
    /// Closed loop: requests read and queued, not yet issued.
    pub(super) queued: u64,
    pub(super) requests: u64,
    pub(super) writes: u64,
    pub(super) bytes_read: u64,
    pub(super) bytes_written: u64,
    /// `array_cache.prefetch = "linux"`: the configuration its readahead
    /// states are built from (`[readahead]` with policy linux), and one
    /// state per stream, made when the stream first reads.
    pub(super) array_ra: Option<Box<Config>>,
    pub(super) ra_states: Vec<Option<Box<dyn Readahead>>>,
    /// `array_cache.write_policy = "write-back"`, and the most dirty blocks.
    pub(super) write_back: bool,
    pub(super) dirty_limit_blocks: u64,
    pub(super) writeback_blocks: u64,
    /// Reused: blocks to write back.
    pub(super) writeback_buf: Vec<u64>,
}

impl TraceReplay {
    pub(super) fn new(cfg: &Config) -> Result<TraceReplay> {
        Ok(TraceReplay {
            replay: Replay::open(cfg)?,
            closed: cfg.workload.replay == ReplayLoop::Closed,
            // with hints, the application computes informed.t_cpu between reads
            think_ns: if cfg.informed.policy == InformedPolicy::None {
                cfg.workload.think_time.0
            } else {
                cfg.informed.t_cpu.0
            },
            next: None,
            reqs: Vec::new(),
            free_reqs: Vec::new(),
            in_flight: 0,
            streams: Vec::new(),
            queued: 0,
            requests: 0,
            writes: 0,
            bytes_read: 0,
            bytes_written: 0,
            array_ra: (cfg.array_cache.size.0 > 0 && cfg.array_cache.prefetch == BlockPrefetchPolicy::Linux)
                .then(|| {
                    let mut ra = cfg.clone();
                    ra.readahead.policy = ReadaheadPolicy::Linux;
                    Box::new(ra)
                }),
            ra_states: Vec::new(),
            write_back: cfg.array_cache.write_policy == WritePolicy::WriteBack && cfg.array_cache.size.0 > 0,
            dirty_limit_blocks: (cfg.array_cache.dirty_limit * cfg.array_cache.capacity_blocks() as f64)
                as u64,
            writeback_blocks: 0,
            writeback_buf: Vec::new(),
        })
    }

    /// A request in flight from now: its handle.
    pub(super) fn add(&mut self, req: TraceReq) -> u32 {
        self.in_flight += 1;
        match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = req;
                i
            }
            None => {
                self.reqs.push(req);
                (self.reqs.len() - 1) as u32
            }
        }
    }
}

impl Engine {
    /// Starts a trace's replay: the first request's arrival (open loop), or
    /// the first requests of every stream (closed loop).
    pub(super) fn trace_start(&mut self) -> Result<()> {
        let Some(t) = self.trace.as_mut() else { return Ok(()) };
        if t.closed {
            return self.trace_fill();
        }
        t.next = t.replay.next_request()?;
        if let Some(r) = t.next {
            self.events.schedule(r.arrival_ns, Ev::Arrive);
        }
        Ok(())
    }

    /// Open loop: issues the request due now and schedules the next one.
    pub(super) fn trace_arrive(&mut self) -> Result<()> {
        let t = self.trace.as_mut().expect("a trace");
        let Some(r) = t.next.take() else { return Ok(()) };
        t.next = t.replay.next_request()?;
        if let Some(n) = t.next {
            let at = n.arrival_ns.max(self.events.now_ns());
            self.events.schedule(at, Ev::Arrive);
        }
        self.trace_issue(r)
    }

    /// Closed loop: reads requests ahead (at most [`CLOSED_LOOP_READ_AHEAD`]
    /// waiting), issuing each at once when its stream is idle, else queueing it.
    pub(super) fn trace_fill(&mut self) -> Result<()> {
        loop {
            let t = self.trace.as_mut().expect("a trace");
            if t.queued >= CLOSED_LOOP_READ_AHEAD {
                return Ok(());
            }
            let Some(r) = t.replay.next_request()? else { return Ok(()) };
            let s = r.stream as usize;
            if s >= t.streams.len() {
                t.streams.resize_with(s + 1, TraceStream::default);
            }
            let st = &mut t.streams[s];
            if st.state == TraceStreamState::Idle && st.queue.is_empty() {
                st.state = TraceStreamState::Busy;
                self.trace_issue(r)?;
            } else {
                st.queue.push_back(r);
                t.queued += 1;
            }
        }
    }

    /// Closed loop: stream `s`'s think time is over.
    pub(super) fn trace_issue_next(&mut self, s: u32) -> Result<()> {
        let t = self.trace.as_mut().expect("a trace");
        let st = &mut t.streams[s as usize];
        match st.queue.pop_front() {
            Some(r) => {
                st.state = TraceStreamState::Busy;
                t.queued -= 1;
                self.trace_issue(r)?;
            }
            None => st.state = TraceStreamState::Idle,
        }
        self.trace_fill()
    }

    /// Sends trace request `r` into the array.
    pub(super) fn trace_issue(&mut self, r: TraceRequest) -> Result<()> {
        let now = self.events.now_ns();
        let capacity_bytes = self.layout.capacity_blocks() * PAGE_BYTES;
        let end = r.offset_bytes.checked_add(r.size_bytes).filter(|&e| e <= capacity_bytes);
        let t = self.trace.as_mut().expect("a trace");
        let Some(end) = end else {
            return Err(Error::input(
                t.replay.path().to_string(),
                t.replay.line_of(r.record),
                format!(
                    "record {}: bytes {}..{} are beyond the array's {capacity_bytes} bytes (a larger array, or \
                     a trace of this array)",
                    r.record,
                    r.offset_bytes,
                    r.offset_bytes as u128 + r.size_bytes as u128
                ),
            ));
        };
        let s = r.stream as usize;
        if s >= t.streams.len() {
            t.streams.resize_with(s + 1, TraceStream::default);
        }
        let block = r.offset_bytes / PAGE_BYTES;
        let blocks = end.div_ceil(PAGE_BYTES) - block;
        let req = TraceReq {
            stream: r.stream,
            issue_ns: now,
            bytes: r.size_bytes,
            op: r.op,
            block,
            blocks,
            writeback: false,
        };
        let id = t.add(req);
        match r.op {
            Op::Read => {
                if t.array_ra.is_some() {
                    self.array_readahead(r.stream, block, block + blocks, end - 1);
                }
                let io = self.new_io(IoKind::TraceRead { req: id }, r.stream, block, blocks);
                self.submit(io);
            }
            Op::Write => {
                let write_back = t.write_back;
                let held = self.array_cache.is_some() && self.write_to_array_cache(block, blocks, write_back);
                self.block_requests += 1;
                let mut row = IoRow::new(now, IoEvent::BlockRequest);
                row.stream = r.stream as i32;
                row.array_block = block as i64;
                row.pages = blocks as i64;
                self.log(row);
                if write_back && held {
                    self.trace_done(id); // in the cache: written back later
                } else {
                    self.start_write(id);
                }
            }
        }
        if self.trace.as_ref().is_some_and(|t| t.write_back) {
            self.write_back_dirty(r.stream);
        }
        Ok(())
    }

    /// Write-back: writes to the disks the dirty blocks evicted and, once
    /// more than `array_cache.dirty_limit` of the cache is dirty, the blocks
    /// dirty longest until half that limit is left, in runs of consecutive
    /// blocks (each as md writes it). Blocks still dirty when the trace ends
    /// are not written (the run ends with its last request).
    pub(super) fn write_back_dirty(&mut self, stream: u32) {
        let now = self.events.now_ns();
        let t = self.trace.as_mut().expect("a trace");
        let mut blocks = std::mem::take(&mut t.writeback_buf);
        blocks.clear();
        let ac = self.array_cache.as_mut().expect("array cache");
        ac.take_dirty_evicted(&mut blocks);
        if ac.dirty_blocks() > t.dirty_limit_blocks {
            // down to half the limit: a batch, so that neighbours go out together
            while ac.dirty_blocks() > t.dirty_limit_blocks / 2 {
                match ac.clean_oldest_dirty() {
                    Some(b) => blocks.push(b),
                    None => break,
                }
            }
        }
        blocks.sort_unstable();
        blocks.dedup();
        let mut i = 0;
        while i < blocks.len() {
            let mut n = 1;
            while i + n < blocks.len() && blocks[i + n] == blocks[i] + n as u64 {
                n += 1;
            }
            let t = self.trace.as_mut().expect("a trace");
            let req = TraceReq {
                stream,
                issue_ns: now,
                bytes: n as u64 * PAGE_BYTES,
                op: Op::Write,
                block: blocks[i],
                blocks: n as u64,
                writeback: true,
            };
            let id = t.add(req);
            self.start_write(id);
            i += n;
        }
        self.trace.as_mut().expect("a trace").writeback_buf = blocks;
    }

    /// The blocks of a write become the array cache's most recent, uptodate
    /// (absent ones brought in without a read), and dirty with `dirty`
    /// (write-back). Returns whether every block is held (a block finds no
    /// room when every slot is in flight: the write then goes to the disks).
    pub(super) fn write_to_array_cache(&mut self, block: u64, blocks: u64, dirty: bool) -> bool {
        let ac = self.array_cache.as_mut().expect("array cache");
        let mut held = true;
        for b in block..block + blocks {
            let mut slot = ac.lookup(b);
            if slot != NONE {
                ac.stats.hits += 1;
                ac.access(slot);
            } else {
                let Some((filled, ev)) = ac.try_fill(b, false) else {
                    // every slot in flight: written around the cache, a miss all the same
                    ac.stats.misses += 1;
                    held = false;
                    continue;
                };
                if let Some(ev) = ev {
                    self.evictions.push((ev.key, ev.unused_prefetch));
                }
                slot = filled;
            }
            if dirty {
                ac.mark_dirty(slot);
            }
        }
        self.block_policy_events(NONE);
        held
    }

    /// A trace write: md's reads first (if any), then the writes.
    pub(super) fn start_write(&mut self, req: u32) {
        let r = self.trace.as_ref().expect("a trace").reqs[req as usize];
        if !self.md_write_reads(IoKind::WritePre { req }, r.stream, r.block, r.blocks) {
            self.write_out(req);
        }
    }

    /// The writes of trace request `req` (its reads, if any, are done).
    pub(super) fn write_out(&mut self, req: u32) {
        let r = self.trace.as_ref().expect("a trace").reqs[req as usize];
        self.md_write_out(IoKind::WriteOut { req }, r.stream, r.block, r.blocks);
    }

    /// An array write of `blocks` from `block`, as md plans it (counted in
    /// the read-modify-write, reconstruct-write and full-stripe rows): its
    /// reads sent as one I/O of kind `pre` for `stream`; `false` when it
    /// needs none (the caller then sends the writes, [`Self::md_write_out`]).
    pub(super) fn md_write_reads(&mut self, pre: IoKind, stream: u32, block: u64, blocks: u64) -> bool {
        plan_write(&self.layout, self.raid6_write, block, blocks, &mut self.write_plan);
        self.rmw_rows += self.write_plan.rmw_rows;
        self.rcw_rows += self.write_plan.rcw_rows;
        self.full_rows += self.write_plan.full_rows;
        if self.write_plan.reads.is_empty() {
            return false;
        }
        let io = self.new_io(pre, stream, block, blocks);
        let reads = std::mem::take(&mut self.write_plan.reads);
        self.queue_extents(io, &reads, false);
        self.write_plan.reads = reads;
        true
    }

    /// The disk writes of an array write (its reads, if any, are done), as
    /// one I/O of kind `out`.
    pub(super) fn md_write_out(&mut self, out: IoKind, stream: u32, block: u64, blocks: u64) {
        // the plan again (it is a function of the range and the layout):
        // nothing is kept per write between the two phases
        let mut plan = std::mem::take(&mut self.write_plan);
        plan_write(&self.layout, self.raid6_write, block, blocks, &mut plan);
        let io = self.new_io(out, stream, block, blocks);
        self.queue_extents(io, &plan.writes, true);
        self.write_plan = plan;
    }

    /// One I/O of trace request `req` is done: the request, when it was its last.
    pub(super) fn trace_done(&mut self, req: u32) {
        let now = self.events.now_ns();
        let t = self.trace.as_mut().expect("a trace");
        let r = t.reqs[req as usize];
        t.free_reqs.push(req);
        t.in_flight -= 1;
        if r.writeback {
            t.writeback_blocks += r.blocks;
            return;
        }
        t.requests += 1;
        let lat = now - r.issue_ns;
        match r.op {
            Op::Read => t.bytes_read += r.bytes,
            Op::Write => {
                t.writes += 1;
                t.bytes_written += r.bytes;
            }
        }
        let st = &mut t.streams[r.stream as usize];
        st.requests += 1;
        if r.op == Op::Read {
            st.bytes_read += r.bytes;
        }
        st.latency_sum_ns += lat;
        st.finish_ns = now;
        self.latencies_ns.push(lat);
        if t.closed {
            st.state = TraceStreamState::Thinking;
            let think = t.think_ns;
            self.events.schedule(now + think, Ev::TraceIssue(r.stream));
        }
    }
}
