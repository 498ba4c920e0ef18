//! Assembles the stack of one run and drives it with the event queue.
//!
//! One application read goes: workload → page cache (readahead policy
//! decides windows) → I/Os of physically contiguous pages (file layer's
//! bmap, with indirect blocks read first) → array (split per strip, array
//! cache) → per-disk queues (merge, congestion, scheduler) → devices →
//! completion back up: pages become uptodate and waiting readers resume.
//!
//! The engine owns every piece of state in flat slabs indexed by `u32`
//! handles; policies are called through narrow traits and never see the
//! clock or the queues.
//!
//! Choices written down here (the specs leave them open):
//! * Indirect (metadata) blocks, once read, stay cached outside the page
//!   cache's budget (they are 1 per 1024 data pages). A data I/O that needs
//!   an indirect block not yet cached is held until that block arrives; the
//!   reader waits for its data pages, not for the indirect block itself.
//! * The application's request completes when its last page is uptodate;
//!   its response time runs from issue to that moment.
//! * A reader that waits — for its page's I/O, for a request slot, or for
//!   room in the page cache — holds the page it will read next until it
//!   has read it (the reference the kernel's reader holds): one pin per
//!   reader, counted per page, so readers woken together cannot evict each
//!   other's pages, nor reclaim for one reader's window the page another
//!   sleeps on; and a reader holds a cached page through the readahead call
//!   it makes there (its marker's window cannot evict it). A held page that
//!   left the cache anyway would end the run with an internal error naming
//!   it.
//! * A readahead window that finds no room in the page cache puts its
//!   reader to sleep until room is made (`host.readahead_alloc = "wait"`),
//!   in `room_wait`.
//! * Every run drains: when the event queue is empty every stream must have
//!   finished, else the run fails with an internal error instead of reporting
//!   a short run.
//!
//! A block trace (`workload.kind = "trace"`) enters at the array: its
//! requests, writes through md and write-back are wired in `replay`,
//! Linux readahead at the array in `array_readahead`.

use crate::array::write::{Raid6Write, WritePlan};
use crate::array::{ArrayCache, ArrayLayout, Extent};
use crate::block::sched::{self, Pick};
use crate::block::BlockLayer;
use crate::cache::lru::NONE;
use crate::cache::PageCache;
use crate::config::{
    Config, DeviceKind, InformedPolicy, IoContext, ListBalance, PageReclaim, Raid6WritePolicy,
    ReadaheadAlloc, RunMode, WorkloadKind,
};
use crate::device::{hdd::Hdd, ssd::Ssd, AnyDevice, Device, DiskRequest};
use crate::error::{Error, Result};
use crate::fs::FileSystem;
use crate::metrics::{self, ratio_of, DiskMetrics, IoEvent, IoLog, IoRow, Metrics, Report, StreamMetrics};
use crate::policy::block::{self as block_policy, BlockPrefetch};
use crate::policy::informed::Tip;
use crate::policy::readahead::{
    self, PageStatus, RaContext, RaDeviceState, Readahead, Submitted, Window, WindowKind,
};
use crate::sim::{EventQueue, Rng, TimeNs};
use crate::units::{NS_PER_MS, NS_PER_S, PAGE_BYTES, SECTORS_PER_PAGE};
use replay::TraceReplay;

mod array_prefetch;
mod array_readahead;
mod log_append;
mod replay;
mod room_wait;
#[cfg(test)]
mod tests;
use crate::workload::{self, Generator};
use log_append::LogAppend;
use room_wait::RoomWaits;

/// Runs one configuration to the end and reports what it measured.
pub fn simulate(cfg: &Config) -> Result<Report> {
    simulate_with_progress(cfg, &mut |_| true)
}

/// Checks that the stack of `cfg` can be built — the drive model exists,
/// the geometry is possible, the files fit on the array — without running it.
pub fn check(cfg: &Config) -> Result<()> {
    if cfg.run.mode == RunMode::CacheOnly {
        return crate::workload::replay::open_trace(cfg).map(|_| ());
    }
    if cfg.topology.is_distributed() {
        return crate::topology::check(cfg);
    }
    Engine::build(cfg).map(|_| ())
}

/// How far a run has got (reported every [`PROGRESS_EVERY_EVENTS`] events).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Progress {
    pub sim_ns: TimeNs,
    /// Simulated time at which the run stops, if bounded by `run.duration`.
    pub duration_ns: TimeNs,
    pub requests_done: u64,
    pub requests_total: u64,
}

/// Events between two progress reports.
pub const PROGRESS_EVERY_EVENTS: u64 = 1 << 16;

/// [`simulate`], calling `progress` now and then; when it returns `false`
/// the run stops with [`Error::Cancelled`].
pub fn simulate_with_progress(cfg: &Config, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report> {
    if cfg.run.mode == RunMode::CacheOnly {
        return crate::cache_only::run(cfg, progress);
    }
    if cfg.topology.is_distributed() {
        return crate::topology::run(cfg, progress);
    }
    let wall = std::time::Instant::now();
    let (mut engine, mut policies) = Engine::build(cfg)?;
    let ran = engine.run(&mut policies, progress);
    if let (Some(what), false) = (engine.lost_page.take(), matches!(ran, Err(Error::Cancelled))) {
        return Err(Error::Internal(what)); // the first cause, before what it led to
    }
    ran?;
    Ok(engine.report(wall.elapsed().as_secs_f64()))
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// A stream issues its next request.
    Issue(u32),
    /// A disk request completed.
    DiskDone(u32),
    /// A disk's scheduler asked to be asked again now.
    Kick(u32),
    /// Open-loop replay: the next trace request is due.
    Arrive,
    /// Closed-loop replay: a trace stream's think time is over.
    TraceIssue(u32),
    /// The webserver's log: the journal commits.
    LogCommit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IoKind {
    /// Fills `pages` page-cache pages of `file` from `first_page`.
    PageFill { file: u32, first_page: u64 },
    /// Reads the indirect block of metadata id `id`.
    Meta { id: u32 },
    /// An O_DIRECT read for a stream.
    Direct,
    /// Fills array-cache blocks (for a demand miss, or a block-level
    /// prefetch: `prefetch`, when it holds blocks a block policy asked for).
    ArrayFill { prefetch: bool },
    /// A trace read (of trace request `req`).
    TraceRead { req: u32 },
    /// The reads a trace write needs first (read-modify-write or
    /// reconstruct-write), as one I/O of many disk parts.
    WritePre { req: u32 },
    /// The disk writes of trace request `req`.
    WriteOut { req: u32 },
    /// The reads a write of the webserver's log needs first.
    LogWritePre,
    /// The disk writes of a write of the webserver's log.
    LogWriteOut,
}

/// How [`Engine::fill_blocks`] fills the array cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// A demand miss: counted, read by the requester.
    Demand,
    /// A block policy's prefetch.
    Prefetch,
    /// A readahead window at the array: prefetched outside the demand
    /// range (whose blocks the demand read that follows counts), the marker
    /// block marked.
    Window { demand: (u64, u64), marker: Option<u64> },
}

/// A logical read of contiguous array blocks.
#[derive(Debug, Clone, Copy)]
struct Io {
    kind: IoKind,
    stream: u32,
    array_block: u64,
    blocks: u64,
    /// Disk parts still outstanding.
    pending: u32,
    /// Head of the list of I/Os held until this one completes (in the
    /// order they were issued).
    dependents: u32,
    /// Next in the dependents list of the I/O this one waits for.
    next_dependent: u32,
    /// Head of the list of streams waiting for this I/O.
    waiters: u32,
    /// Head of the list (link slab) of I/Os waiting for this array fill.
    parents: u32,
    /// An array fill: a read found its blocks in flight after it was sent
    /// (AMP's `readWaiting`).
    waited: bool,
}

/// An entry of a many-to-many list: I/O `io` waits for the fill whose list holds it.
#[derive(Debug, Clone, Copy)]
struct Link {
    io: u32,
    next: u32,
}

/// The state of an indirect block that is not being read: not read yet, or
/// cached (else the state is the I/O reading it).
const META_UNREAD: u32 = NONE;
const META_CACHED: u32 = NONE - 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StreamState {
    /// Between requests (thinking, or not started).
    Idle,
    /// Working through the pages of a request.
    Reading,
    /// Waiting for the page `cur_page` (buffered) or the direct I/Os.
    Waiting,
    /// Asleep in a readahead or page read's submission: a part of it waits
    /// for a request of a full disk queue (`get_request_wait`).
    Sleeping,
    Done,
}

/// A range of a file's pages a reader reads through the page cache (a
/// readahead window, or what is left of one whose reader sleeps for room).
#[derive(Debug, Clone, Copy)]
struct PageRange {
    stream: u32,
    file: u32,
    /// The first page of the range still to read, and its end.
    next_page: u64,
    end_page: u64,
    /// The pages the reader demanded (allocated over budget if need be).
    demand: (u64, u64),
    marker: Option<u64>,
    /// The window's page pool: the I/Os of the pages allocated so far and
    /// not sent yet, first and last (`NONE` when empty), chained through
    /// `Io::next_dependent` ([`Engine::send_pool`]).
    pool: (u32, u32),
}

struct Stream {
    gen: Generator,
    state: StreamState,
    file: u32,
    issue_ns: TimeNs,
    cur_page: u64,
    end_page: u64,
    end_byte: u64,
    /// The page of this request that its read does not mark accessed (the
    /// one the reader's last read ended in), or `u64::MAX`.
    unmarked_page: u64,
    /// The slot of the page this reader waits to read and holds pinned, or
    /// `NONE`.
    held_slot: u32,
    req_bytes: u64,
    /// The hit/miss of `cur_page` has been counted (after a wait).
    counted: bool,
    direct_pending: u32,
    /// Parts of this stream's reads asleep for a disk request, or for room
    /// in the page cache.
    sleeping_parts: u32,
    next_waiter: u32,
    requests: u64,
    bytes: u64,
    latency_sum_ns: u64,
    finish_ns: TimeNs,
}

/// Per-disk accumulators beyond the queue's own.
#[derive(Default, Clone, Copy)]
struct DiskAcc {
    busy_ns: u64,
    seek_cyl: u64,
    cache_hits: u64,
    outstanding: u32,
    /// The completion of the request the disk started last.
    last_done_ns: TimeNs,
    /// A request whose completion the drive moved ([`Device::take_moved`]):
    /// its tag and its one valid completion; the events scheduled for it
    /// before are stale.
    moved: Option<(u32, TimeNs)>,
}

/// Everything but the readahead policies (kept apart so a policy can be
/// called with a context that borrows the rest).
struct Engine {
    events: EventQueue<Ev>,
    fs: FileSystem,
    cache: PageCache,
    layout: ArrayLayout,
    block: BlockLayer,
    devices: Vec<AnyDevice>,
    disk_acc: Vec<DiskAcc>,
    streams: Vec<Stream>,
    ios: Vec<Io>,
    free_ios: Vec<u32>,
    /// By metadata id: `META_UNREAD`, `META_CACHED` or the I/O reading it.
    meta: Vec<u32>,
    array_cache: Option<ArrayCache>,
    block_policy: Box<dyn BlockPrefetch>,
    links: Vec<Link>,
    free_links: Vec<u32>,
    evictions: Vec<(u64, bool)>,
    /// The demand fills of the read being handled, held until its block
    /// policy has had its say (see [`crate::policy::block`]).
    held_fills: Vec<u32>,
    /// Reused buffer: blocks moved back by their second chance.
    second_chances: Vec<u64>,
    /// Streams woken by completions, resumed after the event.
    woken: Vec<u32>,
    /// Readers asleep in a readahead page allocation ([`room_wait`]).
    room: RoomWaits,
    /// A page that left the cache while a reader held it (never, unless the
    /// model is wrong): the run's internal error.
    lost_page: Option<String>,
    /// Reused buffers.
    extents: Vec<crate::array::Extent>,
    io_buf: Vec<u32>,
    io_stack: Vec<u32>,
    /// `complete_io` is running (nested completions are queued on `io_stack`).
    completing: bool,
    touched_disks: Vec<u32>,
    latencies_ns: metrics::Latencies,
    io_log: Option<IoLog>,
    duration_ns: TimeNs,
    end_ns: TimeNs,
    readahead_windows: u64,
    block_requests: u64,
    request_splits: u64,
    cfg_json: String,
    trace: Option<Box<TraceReplay>>,
    write_plan: WritePlan,
    raid6_write: Raid6Write,
    rmw_rows: u64,
    rcw_rows: u64,
    full_rows: u64,
    /// The array's readahead state shared by every file (SARA's `D`).
    ra_device: RaDeviceState,
    /// Workload streams not yet done (the readahead context's
    /// `active_streams`).
    active_streams: u32,
    /// A file-set workload: the configuration a newly opened file's
    /// readahead state is built from.
    fileset_cfg: Option<Box<Config>>,
    /// The webserver's log file and its appends ([`log_append`]).
    weblog: Option<Box<LogAppend>>,
}

/// An error building the drive `disk.model` names, said of the key it came
/// from: a DiskSim override's of `disk.overrides`, a drive file's (which
/// keeps its own file and line) of `disk.model`.
fn drive_error(e: Error) -> Error {
    match e {
        e @ Error::Override(_) => Error::config("disk.overrides", e.to_string()),
        e @ (Error::Config { .. } | Error::Cancelled | Error::Internal(_)) => e,
        e => Error::config("disk.model", e.to_string()),
    }
}

impl Engine {
    fn build(cfg: &Config) -> Result<(Engine, Vec<Box<dyn Readahead>>)> {
        cfg.check()?; // a Config built in Rust, not read, has not been checked yet
        let disks = cfg.array.disks;
        let mut devices = Vec::with_capacity(disks as usize);
        for d in 0..disks {
            let rng = Rng::derive(cfg.run.seed, &format!("disk{d}"));
            devices.push(match cfg.disk.kind {
                DeviceKind::Hdd => {
                    let mut hdd = Hdd::from_model(&cfg.disk.model, cfg.disk.cache, &cfg.disk.overrides, rng)
                        .map_err(drive_error)?;
                    if cfg.disk.queue_depth > 0 {
                        hdd.set_queue_depth(cfg.disk.queue_depth);
                    }
                    AnyDevice::Hdd(Box::new(hdd))
                }
                DeviceKind::Ssd => AnyDevice::Ssd(Ssd::new(&cfg.ssd)),
            });
        }
        let disk_blocks = devices.iter().map(|d| d.capacity_sectors() / SECTORS_PER_PAGE).min().unwrap_or(0);
        let strip_blocks = cfg.array.strip.pages();
        let layout = ArrayLayout::new(cfg.array.layout, disks, strip_blocks, disk_blocks)?;
        let (gens, file_pages) = workload::build(cfg);
        // the webserver's log is the last file, its writes the journal thread's
        let log_pages = workload::log_capacity_pages(cfg);
        let weblog = (log_pages > 0)
            .then(|| Box::new(LogAppend::new(file_pages.len() as u32 - 1, log_pages, gens.len() as u32)));
        let mut fs_rng = Rng::derive(cfg.run.seed, "fs");
        let fs = FileSystem::build(&cfg.fs, &file_pages, layout.capacity_blocks(), &mut fs_rng)?;
        let meta_blocks = fs.meta_blocks() as usize;
        let memory_pages = cfg.host.memory.pages();
        let cache = PageCache::new(memory_pages, &file_pages)
            .waiting_for_room(cfg.host.readahead_alloc == ReadaheadAlloc::Wait)
            .use_once(cfg.host.reclaim == PageReclaim::UseOnce)
            .proportional_balance(
                cfg.host.reclaim == PageReclaim::UseOnce && cfg.list_balance() == ListBalance::Proportional,
            );
        let streams_n = gens.len();
        let scheds = sched::build_all(&cfg.disk, streams_n, disks as usize);
        let mut block = BlockLayer::new(&cfg.block, scheds);
        block.set_driver_context(cfg.array.io_context == IoContext::Driver);
        let streams = gens
            .into_iter()
            .map(|gen| Stream {
                file: gen.spec.file,
                gen,
                state: StreamState::Idle,
                issue_ns: 0,
                cur_page: 0,
                end_page: 0,
                end_byte: 0,
                unmarked_page: u64::MAX,
                held_slot: NONE,
                req_bytes: 0,
                counted: false,
                direct_pending: 0,
                sleeping_parts: 0,
                next_waiter: NONE,
                requests: 0,
                bytes: 0,
                latency_sum_ns: 0,
                finish_ns: 0,
            })
            .collect();
        let policies = (0..streams_n).map(|_| readahead::build(cfg)).collect();
        let (geometry_layout, capacity_blocks) = (layout.clone(), layout.capacity_blocks());
        let engine = Engine {
            events: EventQueue::new(),
            fs,
            cache,
            layout,
            block,
            disk_acc: vec![DiskAcc::default(); disks as usize],
            devices,
            streams,
            ios: Vec::with_capacity(1024),
            free_ios: Vec::new(),
            meta: vec![META_UNREAD; meta_blocks],
            array_cache: (cfg.array_cache.size.pages() > 0).then(|| {
                let mut c = ArrayCache::new(cfg.array_cache.size.pages());
                if cfg.array_cache.prefetch.uses_sequential_detection() {
                    c.set_seq_threshold(cfg.array_cache.seq_threshold as u8);
                }
                c
            }),
            block_policy: match cfg.informed.policy {
                InformedPolicy::Tip => Box::new(Tip::new(cfg, capacity_blocks)?),
                // IPODS needs a topology (refused by the configuration check)
                InformedPolicy::None | InformedPolicy::Ipods => block_policy::build(
                    cfg,
                    block_policy::Geometry::new(geometry_layout, PAGE_BYTES, capacity_blocks),
                ),
            },
            links: Vec::new(),
            free_links: Vec::new(),
            evictions: Vec::new(),
            held_fills: Vec::new(),
            second_chances: Vec::new(),
            woken: Vec::new(),
            room: RoomWaits::default(),
            lost_page: None,
            extents: Vec::with_capacity(64),
            io_buf: Vec::with_capacity(64),
            io_stack: Vec::with_capacity(64),
            completing: false,
            touched_disks: Vec::with_capacity(16),
            latencies_ns: metrics::Latencies::default(),
            io_log: cfg.output.io_log.then(IoLog::default),
            duration_ns: cfg.run.duration.0,
            end_ns: 0,
            readahead_windows: 0,
            block_requests: 0,
            request_splits: 0,
            cfg_json: cfg.to_json(),
            trace: None,
            write_plan: WritePlan::new(),
            raid6_write: match cfg.array.raid6_write {
                Raid6WritePolicy::Reconstruct => Raid6Write::ReconstructOnly,
                Raid6WritePolicy::Cheaper => Raid6Write::Cheaper,
            },
            rmw_rows: 0,
            rcw_rows: 0,
            full_rows: 0,
            ra_device: RaDeviceState::default(),
            active_streams: streams_n as u32,
            fileset_cfg: matches!(cfg.workload.kind, WorkloadKind::Webserver | WorkloadKind::Fileserver)
                .then(|| Box::new(cfg.clone())),
            weblog,
        };
        let mut engine = engine;
        if cfg.workload.kind == WorkloadKind::Trace {
            engine.trace = Some(Box::new(TraceReplay::new(cfg)?));
        }
        Ok((engine, policies))
    }

    fn run(
        &mut self,
        policies: &mut [Box<dyn Readahead>],
        progress: &mut dyn FnMut(&Progress) -> bool,
    ) -> Result<()> {
        for s in 0..self.streams.len() as u32 {
            self.events.schedule(0, Ev::Issue(s));
        }
        self.trace_start()?;
        let requests_total: u64 = self.streams.iter().map(|s| s.gen.spec.requests).sum();
        let mut events: u64 = 0;
        // the time of the last event that did something
        let mut last_ns = 0;
        loop {
            while let Some((t, ev)) = self.events.pop() {
                if matches!(ev, Ev::LogCommit) && self.active_streams == 0 {
                    continue; // the run ended with its last read: no commit, no time
                }
                if self.duration_ns > 0 && t > self.duration_ns {
                    self.end_ns = self.duration_ns;
                    return Ok(());
                }
                last_ns = t;
                events += 1;
                if events.is_multiple_of(PROGRESS_EVERY_EVENTS) {
                    let p = Progress {
                        sim_ns: t,
                        duration_ns: self.duration_ns,
                        requests_done: self.streams.iter().map(|s| s.requests).sum::<u64>()
                            + self.trace.as_ref().map_or(0, |t| t.requests),
                        requests_total,
                    };
                    if !progress(&p) {
                        return Err(Error::Cancelled);
                    }
                }
                match ev {
                    Ev::Issue(s) => self.start_request(s, policies),
                    Ev::DiskDone(r) => self.disk_done(r),
                    Ev::Kick(d) => {
                        if self.block.queues[d as usize].wait_until_ns == t {
                            self.block.queues[d as usize].wait_until_ns = 0;
                            self.kick(d);
                        }
                    }
                    Ev::Arrive => self.trace_arrive()?,
                    Ev::TraceIssue(s) => self.trace_issue_next(s)?,
                    Ev::LogCommit => self.log_commit(),
                }
                self.advance_woken(policies);
                // room may have been made by this event (a read completed, a
                // held page read): the readers asleep for it try again
                if self.retry_room_waiters() {
                    self.advance_woken(policies);
                }
            }
            // nothing left to happen: a reader asleep for room nothing can
            // make goes on over the budget ([`room_wait`])
            if !self.force_first_room_waiter() {
                break;
            }
            self.advance_woken(policies);
        }
        self.end_ns = self.streams.iter().map(|s| s.finish_ns).max().unwrap_or(0).max(last_ns);
        if self.duration_ns > 0 {
            self.end_ns = self.end_ns.min(self.duration_ns);
        }
        // Every run drains: with no events left, every stream must be done.
        let stuck = self.streams.iter().filter(|s| s.state != StreamState::Done).count();
        if stuck > 0 {
            return Err(Error::Internal(format!("{stuck} stream(s) never finished: a request was lost")));
        }
        if let Some(t) = &self.trace {
            self.end_ns = self.end_ns.max(t.streams.iter().map(|s| s.finish_ns).max().unwrap_or(0));
            if t.in_flight > 0 || t.queued > 0 || t.next.is_some() {
                return Err(Error::Internal(format!(
                    "{} trace request(s) never finished: a request was lost",
                    t.in_flight + t.queued
                )));
            }
        }
        Ok(())
    }

    fn log(&mut self, row: IoRow) {
        if let Some(l) = self.io_log.as_mut() {
            l.push(row);
        }
    }

    // ----- the application side -------------------------------------------------

    /// A stream issues its next request (or finishes).
    fn start_request(&mut self, s: u32, policies: &mut [Box<dyn Readahead>]) {
        let now = self.events.now_ns();
        if let Some(bytes) = self.streams[s as usize].gen.take_append() {
            self.log_append(bytes); // a buffered write: the thread goes on at once
        }
        let st = &mut self.streams[s as usize];
        let Some((file, offset, len)) = st.gen.next_request() else {
            st.state = StreamState::Done;
            st.finish_ns = now;
            self.active_streams -= 1;
            return;
        };
        // a read starting in the page where this reader's last read of the
        // file ended does not mark that page again (do_generic_file_read's
        // prev_index/prev_offset test; host.reclaim = "use-once")
        let continues = st.requests > 0 && file == st.file && offset == st.end_byte + 1;
        st.unmarked_page = if continues && offset % PAGE_BYTES != 0 { offset / PAGE_BYTES } else { u64::MAX };
        if file != st.file {
            // a file set's thread opens another file: a new readahead state
            st.file = file;
            if let Some(cfg) = &self.fileset_cfg {
                policies[s as usize] = readahead::build(cfg);
            }
        }
        let st = &mut self.streams[s as usize];
        st.issue_ns = now;
        st.cur_page = offset / PAGE_BYTES;
        st.end_page = (offset + len).div_ceil(PAGE_BYTES);
        st.end_byte = offset + len - 1;
        st.req_bytes = len;
        st.counted = false;
        st.state = StreamState::Reading;
        if st.gen.spec.direct {
            self.start_direct(s);
        } else {
            self.advance(s, policies);
        }
    }

    /// The request of stream `s` completed.
    fn finish_request(&mut self, s: u32) {
        let now = self.events.now_ns();
        let st = &mut self.streams[s as usize];
        let lat = now - st.issue_ns;
        st.requests += 1;
        st.bytes += st.req_bytes;
        st.latency_sum_ns += lat;
        st.finish_ns = now;
        st.state = StreamState::Idle;
        self.latencies_ns.push(lat);
        let think = st.gen.spec.think_ns;
        // a videoserver stream keeps its rate: the next issue no earlier than
        // one interval after this one's
        let next = (now + think).max(st.issue_ns + st.gen.spec.interval_ns);
        self.events.schedule(next, Ev::Issue(s));
    }

    /// The readers woken by the event just handled go on reading.
    fn advance_woken(&mut self, policies: &mut [Box<dyn Readahead>]) {
        while let Some(s) = self.woken.pop() {
            self.advance(s, policies);
        }
    }

    /// Works through the pages of a buffered read until it must wait or is done.
    fn advance(&mut self, s: u32, policies: &mut [Box<dyn Readahead>]) {
        // Runs of uptodate pages without a marker need no policy call.
        let skip_cached = policies[s as usize].ignores_cached_pages();
        loop {
            let st = &self.streams[s as usize];
            match st.state {
                StreamState::Reading => {}
                StreamState::Waiting if st.gen.spec.direct => return,
                StreamState::Waiting => {
                    // woken: the page we waited for should be uptodate now
                    self.streams[s as usize].state = StreamState::Reading;
                }
                _ => return,
            }
            let st = &self.streams[s as usize];
            let (file, idx, end) = (st.file, st.cur_page, st.end_page);
            if idx >= end {
                policies[s as usize].on_read_end(st.end_byte);
                self.finish_request(s);
                return;
            }
            if skip_cached && !self.streams[s as usize].counted {
                let read =
                    self.cache.read_uptodate_run(file, idx, end, self.streams[s as usize].unmarked_page);
                if read > 0 {
                    self.streams[s as usize].cur_page += read;
                    continue;
                }
            }
            let mut slot = self.cache.lookup(file, idx);
            if !self.streams[s as usize].counted {
                let status = if slot == NONE {
                    PageStatus::Missing
                } else if self.cache.has_marker(slot) {
                    self.cache.clear_marker(slot);
                    PageStatus::Marker
                } else {
                    PageStatus::Cached
                };
                if slot != NONE && self.cache.uptodate(slot) {
                    self.cache.stats.hits += 1;
                } else {
                    self.cache.stats.misses += 1;
                }
                self.streams[s as usize].counted = true;
                // the reader holds a cached page through the policy's call (the
                // kernel's reference through page_cache_async_readahead), so
                // that the window it starts cannot evict the page it is about
                // to read: a pin for the call alone, not `hold` (which keeps
                // the page across events: measured 5 % slower per page here)
                if slot != NONE {
                    self.cache.pin(slot);
                }
                let mut ctx = RaCtx { e: self, stream: s, file, demand_start: idx, demand_end: end };
                policies[s as usize].on_page(&mut ctx, idx, end - idx, status);
                if slot != NONE {
                    self.cache.unpin(slot);
                }
                slot = self.cache.lookup(file, idx);
                if status == PageStatus::Missing && slot != NONE && self.cache.has_marker(slot) {
                    // the window just read put its marker on this very page
                    self.cache.clear_marker(slot);
                    let mut ctx = RaCtx { e: self, stream: s, file, demand_start: idx, demand_end: end };
                    policies[s as usize].on_page(&mut ctx, idx, end - idx, PageStatus::Marker);
                    slot = self.cache.lookup(file, idx);
                }
                if slot == NONE {
                    if status != PageStatus::Missing {
                        // held through the call: it cannot have left
                        self.lost_page.get_or_insert_with(|| {
                            format!("stream {s}: page {idx} of file {file} left the cache during its readahead call")
                        });
                    }
                    self.read_pages(s, file, idx, 1, idx, end, IoEvent::PageRead, None);
                    policies[s as usize].on_fallback_miss(idx);
                    slot = self.cache.lookup(file, idx);
                }
            } else if slot == NONE {
                // a reader holds the page it waits for (Engine::hold), so it
                // cannot have left the cache: the run goes on (the page read
                // again) and ends with an internal error saying so
                self.lost_page.get_or_insert_with(|| {
                    format!("stream {s}: page {idx} of file {file} left the cache while its reader held it")
                });
                self.read_pages(s, file, idx, 1, idx, end, IoEvent::PageRead, None);
                slot = self.cache.lookup(file, idx);
            }
            if self.streams[s as usize].sleeping_parts > 0 {
                // asleep in the submission until its parts have requests, or
                // until room is made for its window; the page it will read is
                // held meanwhile (the kernel's reader holds a reference to it
                // through the readahead call, and a waiting window's pages
                // are off the LRU, in its page pool), so that reclaim cannot
                // take it
                if slot != NONE {
                    self.hold(s, slot);
                }
                self.streams[s as usize].state = StreamState::Sleeping;
                return;
            }
            if !self.cache.uptodate(slot) {
                self.hold(s, slot);
                let io = self.cache.io(slot);
                let st = &mut self.streams[s as usize];
                st.state = StreamState::Waiting;
                st.next_waiter = self.ios[io as usize].waiters;
                self.ios[io as usize].waiters = s;
                return;
            }
            self.cache.access(slot, idx != self.streams[s as usize].unmarked_page);
            let st = &mut self.streams[s as usize];
            st.cur_page += 1;
            st.counted = false;
            if st.held_slot == slot {
                st.held_slot = NONE;
                self.cache.unpin(slot);
            }
        }
    }

    /// Stream `s` waits with page `slot` next to read (for a request slot,
    /// room, or the page's I/O): it holds the page (one pin per reader,
    /// however often it waits for it) until it has read it.
    fn hold(&mut self, s: u32, slot: u32) {
        let st = &mut self.streams[s as usize];
        if st.held_slot == slot {
            return;
        }
        let before = std::mem::replace(&mut st.held_slot, slot);
        if before != NONE {
            self.cache.unpin(before);
        }
        self.cache.pin(slot);
    }

    /// O_DIRECT: read the request's blocks straight from the array, one I/O
    /// per physically contiguous run.
    fn start_direct(&mut self, s: u32) {
        let st = &self.streams[s as usize];
        let (file, mut p, end) = (st.file, st.cur_page, st.end_page);
        // One count for the submission itself, so that an I/O completing at
        // once (array-cache hit) cannot finish the request before the rest is sent.
        self.streams[s as usize].direct_pending = 1;
        self.streams[s as usize].state = StreamState::Waiting;
        while p < end {
            let run = self.fs.contiguous_run(file, p, end - p);
            let dep = self.meta_dependency(file, p, s);
            let io = self.new_io(IoKind::Direct, s, self.fs.bmap(file, p), run);
            self.streams[s as usize].direct_pending += 1;
            self.submit_or_hold(io, dep);
            p += run;
        }
        self.direct_done(s);
    }

    /// One part of an O_DIRECT request is done; the last one finishes the request.
    fn direct_done(&mut self, s: u32) {
        let st = &mut self.streams[s as usize];
        st.direct_pending -= 1;
        if st.direct_pending == 0 {
            st.cur_page = st.end_page;
            self.finish_request(s);
        }
    }

    // ----- the page cache side -----------------------------------------------------

    /// Allocates and reads the pages of `[start, start+size)` that are not
    /// cached (up to EOF). Pages outside the demand range `[dstart, dend)`
    /// count as prefetched; `marker` gets PG_readahead if newly allocated.
    /// Returns the number of pages issued.
    #[allow(clippy::too_many_arguments)]
    fn read_pages(
        &mut self,
        s: u32,
        file: u32,
        start: u64,
        size: u64,
        dstart: u64,
        dend: u64,
        ev: IoEvent,
        marker: Option<u64>,
    ) -> u64 {
        let end = (start + size).min(self.fs.file_pages(file));
        let mut want = PageRange {
            stream: s,
            file,
            next_page: start,
            end_page: end,
            demand: (dstart, dend),
            marker,
            pool: (NONE, NONE),
        };
        let (mut issued, stopped) = self.read_range(&mut want, false);
        if stopped && self.cache.waits_for_room() {
            // page_cache_alloc_cold waits in reclaim: the reader sleeps, the
            // rest of the window to come, the pages allocated held in the
            // window's pool until it is whole ([`room_wait`])
            issued += self.sleep_for_room(want);
        } else {
            self.send_pool(&mut want);
        }
        let now = self.events.now_ns();
        let mut row = IoRow::new(now, ev);
        row.stream = s as i32;
        row.file = file as i32;
        row.page = start as i64;
        row.pages = size as i64;
        row.marker = marker.map_or(-1, |m| m as i64);
        row.issued = issued as i64;
        self.log(row);
        issued
    }

    /// Allocates the uncached pages of `w`'s range, one I/O per physically
    /// contiguous run, into the window's pool (`w.pool`; sent by
    /// [`Engine::send_pool`] once the window is whole, as
    /// `__do_page_cache_readahead` allocates every page of a window before
    /// `read_pages` adds them to the cache and reads them). Returns the
    /// pages allocated and whether a page found no room (not a demanded one:
    /// those go over budget, as every page does with `over_budget`); then
    /// `w.next_page` is where the allocation stopped.
    fn read_range(&mut self, w: &mut PageRange, over_budget: bool) -> (u64, bool) {
        let PageRange { stream: s, file, end_page: end, demand: (dstart, dend), marker, .. } = *w;
        let mut issued = 0;
        while w.next_page < end {
            let p = w.next_page + self.cache.presence_run(file, w.next_page, end, true);
            if p == end {
                break;
            }
            // a run of uncached, physically contiguous pages
            let max_run = self.fs.contiguous_run(file, p, end - p);
            let n = self.cache.presence_run(file, p, p + max_run, false);
            // the pool's last read goes on here (the part of a window
            // allocated before its reader slept): one read, as the kernel
            // builds one bio over the pages of a window that lie together
            let last = w.pool.1;
            let joins = last != NONE
                && match self.ios[last as usize] {
                    Io { kind: IoKind::PageFill { file: f, first_page: q }, blocks, .. } => {
                        f == file && q + blocks == p && self.fs.contiguous_run(file, q, blocks + 1) > blocks
                    }
                    _ => false,
                };
            let io = if joins {
                last
            } else {
                self.new_io(IoKind::PageFill { file, first_page: p }, s, self.fs.bmap(file, p), 0)
            };
            let got = self.cache.allocate_run(file, p, n, io, dstart..dend, marker, over_budget);
            w.next_page = p + got;
            if got == 0 {
                if !joins {
                    self.free_io(io);
                }
                return (issued, true);
            }
            self.ios[io as usize].blocks += got;
            issued += got;
            if !joins {
                match w.pool {
                    (NONE, _) => w.pool = (io, io),
                    (first, last) => {
                        self.ios[last as usize].next_dependent = io;
                        w.pool = (first, io);
                    }
                }
            }
            if got < n {
                return (issued, true); // no room left
            }
        }
        (issued, false)
    }

    /// Sends the I/Os of a window's pool, in the order they were allocated,
    /// each after the indirect blocks mapping its pages (`read_pages`, then
    /// the file system's `get_block` as it maps them), and empties the pool.
    /// Returns the first page sent and the pages sent.
    fn send_pool(&mut self, w: &mut PageRange) -> (u64, u64) {
        let mut io = std::mem::replace(&mut w.pool, (NONE, NONE)).0;
        let (mut first, mut pages) = (0, 0);
        while io != NONE {
            let Io { kind, blocks, next_dependent: next, .. } = self.ios[io as usize];
            let IoKind::PageFill { file, first_page } = kind else {
                unreachable!("a window's pool holds page reads")
            };
            if pages == 0 {
                first = first_page;
            }
            pages += blocks;
            let dep = self.meta_dependency(file, first_page, w.stream);
            self.submit_or_hold(io, dep);
            io = next;
        }
        (first, pages)
    }

    /// Makes sure the indirect blocks mapping `page` are cached or on their
    /// way; returns the I/O the data read must wait for (or `NONE`).
    fn meta_dependency(&mut self, file: u32, page: u64, s: u32) -> u32 {
        let chain = self.fs.meta_chain(file, page);
        let mut dep = NONE;
        for (&b, &id) in chain.as_slice().iter().zip(chain.ids()) {
            let id = id as u32;
            match self.meta[id as usize] {
                META_CACHED => {}
                META_UNREAD => {
                    let io = self.new_io(IoKind::Meta { id }, s, b, 1);
                    self.meta[id as usize] = io;
                    self.submit_or_hold(io, dep);
                    // served at once (array-cache hit): nothing to wait for, and
                    // the I/O handle is already free
                    dep = if self.meta[id as usize] == META_CACHED { NONE } else { io };
                }
                io => dep = io,
            }
        }
        dep
    }

    // ----- I/Os ----------------------------------------------------------------------

    fn new_io(&mut self, kind: IoKind, stream: u32, array_block: u64, blocks: u64) -> u32 {
        let io = Io {
            kind,
            stream,
            array_block,
            blocks,
            pending: 0,
            dependents: NONE,
            next_dependent: NONE,
            waiters: NONE,
            parents: NONE,
            waited: false,
        };
        match self.free_ios.pop() {
            Some(i) => {
                self.ios[i as usize] = io;
                i
            }
            None => {
                self.ios.push(io);
                (self.ios.len() - 1) as u32
            }
        }
    }

    fn free_io(&mut self, io: u32) {
        self.free_ios.push(io);
    }

    /// Submits `io` now, or holds it until `dep` completes.
    fn submit_or_hold(&mut self, io: u32, dep: u32) {
        if dep == NONE {
            self.submit(io);
        } else {
            // appended, so that the held I/Os leave in the order they were
            // issued (Linux submits the first while the second waits to be
            // mapped); the lists are a few entries long
            self.ios[io as usize].next_dependent = NONE;
            let head = self.ios[dep as usize].dependents;
            if head == NONE {
                self.ios[dep as usize].dependents = io;
            } else {
                let mut tail = head;
                while self.ios[tail as usize].next_dependent != NONE {
                    tail = self.ios[tail as usize].next_dependent;
                }
                self.ios[tail as usize].next_dependent = io;
            }
        }
    }

    /// Sends `io` to the array: through the array cache when there is one,
    /// else straight to the disks.
    fn submit(&mut self, io: u32) {
        let now = self.events.now_ns();
        let Io { array_block, blocks, stream, kind, .. } = self.ios[io as usize];
        if !matches!(kind, IoKind::ArrayFill { .. }) {
            self.block_requests += 1;
            let mut row = IoRow::new(now, IoEvent::BlockRequest);
            row.stream = stream as i32;
            if let IoKind::PageFill { file, first_page } = kind {
                row.file = file as i32;
                row.page = first_page as i64;
            }
            row.array_block = array_block as i64;
            row.pages = blocks as i64;
            row.issued = io as i64;
            self.log(row);
            if self.array_cache.is_some() {
                self.submit_to_array_cache(io);
                return;
            }
        }
        self.send_to_disks(io);
    }

    /// Allocates array-cache slots for the absent blocks of `[b, b+n)`, as
    /// `how` says, in the fill I/O `into` (an unsent demand fill a prefetch
    /// joins) or a new one, which is **not sent** (the caller sends it).
    /// Returns the fill I/O (`NONE` when nothing was allocated and there was
    /// no `into`) and the blocks allocated. The fill spans its first block to
    /// its last (blocks cached between them are read again and dropped). A
    /// demand fill is given absent blocks only; a prefetch or a window stops
    /// where no room can be made.
    fn fill_blocks(&mut self, stream: u32, b: u64, n: u64, how: Fill, into: u32) -> (u32, u64) {
        let fill = if into != NONE {
            into
        } else {
            self.new_io(IoKind::ArrayFill { prefetch: how == Fill::Prefetch }, stream, b, 0)
        };
        let (mut lo, mut hi) = if into != NONE {
            let x = &self.ios[into as usize];
            (x.array_block, x.array_block + x.blocks)
        } else {
            (u64::MAX, 0)
        };
        let ac = self.array_cache.as_mut().expect("array cache");
        let mut got = 0;
        for x in b..b + n {
            if how == Fill::Prefetch && ac.lookup(x) != NONE {
                continue; // a policy's range may hold cached blocks
            }
            let (ev, room) = ac.make_room();
            if let Some(ev) = ev {
                self.evictions.push((ev.key, ev.unused_prefetch));
            }
            if !room && how != Fill::Demand {
                break;
            }
            let prefetched = match how {
                Fill::Demand => false,
                Fill::Prefetch => true,
                Fill::Window { demand, .. } => !(demand.0..demand.1).contains(&x),
            };
            let slot = ac.allocate(x, fill, prefetched);
            match how {
                Fill::Demand => {
                    ac.stats.misses += 1;
                    ac.access(slot);
                }
                Fill::Window { marker, .. } if marker == Some(x) => ac.set_marker(slot),
                _ => {}
            }
            lo = lo.min(x);
            hi = hi.max(x + 1);
            got += 1;
        }
        if got == 0 {
            if into == NONE {
                self.free_io(fill);
                return (NONE, 0);
            }
            return (into, 0);
        }
        let f = &mut self.ios[fill as usize];
        f.array_block = lo;
        f.blocks = hi - lo;
        if how == Fill::Prefetch {
            f.kind = IoKind::ArrayFill { prefetch: true };
            let mut row = IoRow::new(self.events.now_ns(), IoEvent::ArrayPrefetch);
            row.stream = stream as i32;
            row.array_block = b as i64;
            row.pages = got as i64;
            row.issued = fill as i64;
            self.log(row);
        }
        (fill, got)
    }

    /// The first run of blocks absent from the array cache in `[b, end)`:
    /// `(start, blocks)`, or `None` when every block is cached.
    fn absent_run(&self, mut b: u64, end: u64) -> Option<(u64, u64)> {
        let ac = self.array_cache.as_ref().expect("array cache");
        while b < end && ac.lookup(b) != NONE {
            b += 1;
        }
        if b == end {
            return None;
        }
        let mut n = 1;
        while b + n < end && ac.lookup(b + n) == NONE {
            n += 1;
        }
        Some((b, n))
    }

    /// Records that `io` waits for the array fill `fill`.
    fn link(&mut self, io: u32, fill: u32) {
        if self.ios[fill as usize].pending > 0 {
            self.ios[fill as usize].waited = true; // sent already: this read waits for it
        }
        let l = Link { io, next: self.ios[fill as usize].parents };
        let i = match self.free_links.pop() {
            Some(i) => {
                self.links[i as usize] = l;
                i
            }
            None => {
                self.links.push(l);
                (self.links.len() - 1) as u32
            }
        };
        self.ios[fill as usize].parents = i;
    }

    /// Splits `io` per strip and puts each piece (cut at the largest request
    /// size) into its disk's queue.
    fn send_to_disks(&mut self, io: u32) {
        let Io { array_block, blocks, .. } = self.ios[io as usize];
        let mut extents = std::mem::take(&mut self.extents);
        extents.clear();
        {
            let queues = &self.block.queues;
            // RAID-10 read balancing as md's read_balance (raid10.c, models.md
            // §3.4): a read continuing where the first copy's disk head is goes
            // there; else the first copy, in order, whose disk has nothing
            // pending; else the copy nearest its disk's head (the first on a tie).
            // The head is where the disk's last dispatched request ended.
            let mut pick_second = |(d0, b0): (u32, u64), (d1, b1): (u32, u64)| {
                let (q0, q1) = (&queues[d0 as usize], &queues[d1 as usize]);
                let (s0, s1) = (b0 * SECTORS_PER_PAGE, b1 * SECTORS_PER_PAGE);
                if q0.head().lba_sector == s0 || q0.outstanding() == 0 {
                    return false;
                }
                q1.outstanding() == 0 || s1.abs_diff(q1.head().lba_sector) < s0.abs_diff(q0.head().lba_sector)
            };
            self.layout.map_read(array_block, blocks, &mut pick_second, &mut extents);
        }
        self.queue_extents(io, &extents, false);
        self.extents = extents;
    }

    /// Puts the member-disk pieces of `io` (cut at the largest request size)
    /// into their disks' queues, reads or writes; an I/O with no piece is
    /// complete at once.
    fn queue_extents(&mut self, io: u32, extents: &[Extent], write: bool) {
        let now = self.events.now_ns();
        let stream = self.ios[io as usize].stream;
        if extents.len() > 1 {
            self.request_splits += extents.len() as u64 - 1;
        }
        let max_sectors = self.block.max_request_sectors();
        let mut pending = 0;
        self.touched_disks.clear();
        for e in extents {
            let mut lba = e.disk_block * SECTORS_PER_PAGE;
            let end = lba + e.blocks * SECTORS_PER_PAGE;
            let mut ab = e.array_block;
            while lba < end {
                let n = (end - lba).min(max_sectors);
                let pos = self.devices[e.disk as usize].position_of(lba);
                let array_block = if e.is_parity() { -1 } else { ab as i64 };
                if self.block.add_or_sleep(e.disk, lba, n, pos, write, stream, io, array_block, now).is_none()
                    && self.file_io(io)
                {
                    self.streams[stream as usize].sleeping_parts += 1;
                }
                pending += 1;
                lba += n;
                ab = ab.wrapping_add(n / SECTORS_PER_PAGE);
            }
            if !self.touched_disks.contains(&e.disk) {
                self.touched_disks.push(e.disk);
            }
        }
        self.ios[io as usize].pending = pending;
        if pending == 0 {
            self.complete_io(io);
            return;
        }
        for i in 0..self.touched_disks.len() {
            let d = self.touched_disks[i];
            self.kick(d);
        }
    }

    /// Whether I/O `io` was submitted by a workload stream — a file read, its
    /// metadata, O_DIRECT, or the array cache's fill of its demand (the
    /// array cache's own prefetches and a trace's reads are not) — which
    /// then sleeps with its parts.
    fn file_io(&self, io: u32) -> bool {
        match self.ios[io as usize].kind {
            IoKind::PageFill { .. } | IoKind::Meta { .. } | IoKind::Direct => true,
            IoKind::ArrayFill { prefetch: false } => !self.streams.is_empty(),
            _ => false,
        }
    }

    /// Dispatches to `disk` while it has a free slot and its scheduler agrees.
    fn kick(&mut self, disk: u32) {
        let now = self.events.now_ns();
        loop {
            if self.disk_acc[disk as usize].outstanding as usize
                >= self.devices[disk as usize].max_outstanding()
            {
                return;
            }
            match self.block.pick(disk, now) {
                Pick::Idle => return,
                Pick::WaitUntil(t) => {
                    let q = &mut self.block.queues[disk as usize];
                    if q.wait_until_ns != t {
                        q.wait_until_ns = t;
                        self.events.schedule(t, Ev::Kick(disk));
                    }
                    return;
                }
                Pick::Dispatch(i) => {
                    // the head ends on the cylinder where this request starts
                    // (a request rarely crosses a cylinder)
                    let q = self.block.queues[disk as usize].pending_at(i);
                    let (lba, end, end_pos, write) = (q.lba_sector, q.end_sector, q.pos, q.write);
                    let id = self.block.dispatch(disk, i, end_pos, now);
                    let req = DiskRequest { lba_sector: lba, sectors: (end - lba) as u32, write };
                    self.disk_acc[disk as usize].outstanding += 1;
                    if let Some(s) = self.devices[disk as usize].submit(id, &req, now) {
                        self.started(disk, s);
                    }
                    self.moved(disk);
                    if self.io_log.is_some() {
                        let r = *self.block.req(id);
                        let ev = if write { IoEvent::DiskWriteDispatch } else { IoEvent::DiskDispatch };
                        let mut row = IoRow::new(now, ev);
                        row.stream = r.stream as i32;
                        row.disk = disk as i32;
                        row.lba_sector = lba as i64;
                        row.sectors = (end - lba) as i64;
                        row.issued = id as i64;
                        row.array_block = r.array_block;
                        self.log(row);
                    }
                }
            }
        }
    }

    /// A device started serving a request: account for it and schedule its
    /// completion.
    fn started(&mut self, disk: u32, s: crate::device::Started) {
        let acc = &mut self.disk_acc[disk as usize];
        acc.busy_ns += s.service.done_ns - s.start_ns;
        acc.seek_cyl += s.service.seek_distance_cyl;
        acc.cache_hits += s.service.cache_hit as u64;
        acc.last_done_ns = s.service.done_ns;
        self.events.schedule(s.service.done_ns, Ev::DiskDone(s.id));
    }

    /// A request handed to a disk may have moved the completion of the one
    /// it serves (a drive's bus taken by the arriving command): schedule it
    /// again; [`Engine::disk_done`] drops the event scheduled before.
    fn moved(&mut self, disk: u32) {
        if let Some((id, done_ns)) = self.devices[disk as usize].take_moved() {
            let acc = &mut self.disk_acc[disk as usize];
            acc.busy_ns += done_ns - acc.last_done_ns;
            acc.last_done_ns = done_ns;
            acc.moved = Some((id, done_ns));
            self.events.schedule(done_ns, Ev::DiskDone(id));
        }
    }

    /// A disk request completed: finish the I/Os whose last part it was.
    fn disk_done(&mut self, id: u32) {
        let now = self.events.now_ns();
        let r = *self.block.req(id);
        let disk = r.disk;
        if let Some((moved, done_ns)) = self.disk_acc[disk as usize].moved {
            if moved == id {
                if done_ns != now {
                    // the completion the drive moved later: it comes then
                    return;
                }
                self.disk_acc[disk as usize].moved = None;
            }
        }
        self.disk_acc[disk as usize].outstanding -= 1;
        if let Some(s) = self.devices[disk as usize].complete(now) {
            self.started(disk, s);
        }
        if self.io_log.is_some() {
            let ev = if r.q.write { IoEvent::DiskWriteComplete } else { IoEvent::DiskComplete };
            let mut row = IoRow::new(now, ev);
            row.stream = r.stream as i32;
            row.disk = disk as i32;
            row.lba_sector = r.q.lba_sector as i64;
            row.sectors = (r.q.end_sector - r.q.lba_sector) as i64;
            row.issued = id as i64;
            self.log(row);
        }
        let mut ios = std::mem::take(&mut self.io_buf);
        ios.clear();
        self.block.complete(id, now, &mut ios);
        // the request freed wakes the first part asleep for one
        while let Some(a) = self.block.admit(disk, now) {
            if self.file_io(a.io) {
                let st = &mut self.streams[a.stream as usize];
                st.sleeping_parts -= 1;
                if st.sleeping_parts == 0 && st.state == StreamState::Sleeping {
                    st.state = StreamState::Reading;
                    self.woken.push(a.stream);
                }
            }
        }
        for &io in &ios {
            let x = &mut self.ios[io as usize];
            x.pending -= 1;
            if x.pending == 0 {
                self.complete_io(io);
            }
        }
        self.io_buf = ios;
        self.kick(disk);
    }

    /// An I/O has all its data: update the caches, release what waited for it.
    ///
    /// A completion caused while another is being processed (an I/O released
    /// by it that is served at once) is queued and processed in the same loop.
    fn complete_io(&mut self, io: u32) {
        self.io_stack.push(io);
        if self.completing {
            return;
        }
        self.completing = true;
        while let Some(io) = self.io_stack.pop() {
            let x = self.ios[io as usize];
            match x.kind {
                IoKind::PageFill { file, first_page } => {
                    self.cache.complete_run(file, first_page, x.blocks, io);
                }
                IoKind::Meta { id } => self.meta[id as usize] = META_CACHED,
                IoKind::ArrayFill { prefetch } => {
                    let ac = self.array_cache.as_mut().expect("array cache");
                    for b in x.array_block..x.array_block + x.blocks {
                        let slot = ac.lookup(b);
                        if slot != NONE && ac.io(slot) == io {
                            ac.complete(slot);
                        }
                    }
                    let mut l = x.parents;
                    while l != NONE {
                        let Link { io: parent, next } = self.links[l as usize];
                        self.free_links.push(l);
                        let p = &mut self.ios[parent as usize];
                        p.pending -= 1;
                        if p.pending == 0 {
                            self.io_stack.push(parent);
                        }
                        l = next;
                    }
                    if prefetch {
                        self.prefetch_done(x.stream, x.array_block, x.blocks, x.waited);
                    }
                }
                IoKind::Direct => self.direct_done(x.stream),
                IoKind::TraceRead { req } | IoKind::WriteOut { req } => self.trace_done(req),
                IoKind::WritePre { req } => self.write_out(req),
                IoKind::LogWritePre => self.log_write_out(x.array_block, x.blocks),
                IoKind::LogWriteOut => {}
            }
            let mut w = x.waiters;
            while w != NONE {
                self.woken.push(w);
                w = self.streams[w as usize].next_waiter;
            }
            let mut d = x.dependents;
            self.free_io(io);
            while d != NONE {
                let next = self.ios[d as usize].next_dependent;
                self.submit(d);
                d = next;
            }
        }
        self.completing = false;
    }

    // ----- the report ---------------------------------------------------------------

    fn report(mut self, wall_s: f64) -> Report {
        let sim_ns = self.end_ns.max(1);
        let sim_s = sim_ns as f64 / NS_PER_S as f64;
        let trace = self.trace.take();
        let t = trace.as_deref();
        let bytes: u64 = self.streams.iter().map(|s| s.bytes).sum::<u64>() + t.map_or(0, |t| t.bytes_read);
        // a webserver's log appends are application writes (buffered: no latency)
        let requests: u64 = self.streams.iter().map(|s| s.requests).sum::<u64>()
            + t.map_or(0, |t| t.requests)
            + self.weblog.as_ref().map_or(0, |l| l.appends);
        let bytes_written =
            t.map_or(0, |t| t.bytes_written) + self.weblog.as_ref().map_or(0, |l| l.size_bytes);
        let mut lat = std::mem::take(&mut self.latencies_ns);
        let [p50, p95, p99] = lat.quantiles([0.50, 0.95, 0.99]);
        let ms = |ns: u64| ns as f64 / NS_PER_MS as f64;
        let mean_lat = lat.mean_ns();
        let timed = lat.count() > 0;
        let cs = self.cache.stats;
        let acs = self.array_cache.as_ref().map(|a| a.stats);
        let array_first =
            t.is_some() || (!self.streams.is_empty() && self.streams.iter().all(|s| s.gen.spec.direct));
        let disks: Vec<DiskMetrics> = self
            .block
            .queues
            .iter()
            .zip(&self.disk_acc)
            .enumerate()
            .map(|(i, (q, a))| DiskMetrics {
                disk: i as u32,
                requests: q.stats.dispatched,
                sectors: q.stats.sectors,
                utilization: (a.busy_ns as f64 / sim_ns as f64).min(1.0),
                mean_seek_distance_cyl: ratio_of(a.seek_cyl as f64, q.stats.dispatched as f64),
                cache_hits: a.cache_hits,
                mean_queue_wait_ms: ratio_of(ms(q.stats.queue_wait_ns), q.stats.dispatched as f64),
            })
            .collect();
        let disk_requests: u64 = disks.iter().map(|d| d.requests).sum();
        let disk_sectors: u64 = disks.iter().map(|d| d.sectors).sum();
        let seek_total: u64 = self.disk_acc.iter().map(|a| a.seek_cyl).sum();
        let metrics = Metrics {
            bandwidth_mb_s: bytes as f64 / 1e6 / sim_s,
            iops: requests as f64 / sim_s,
            app_requests: requests,
            writes: t.map_or(0, |t| t.writes) + self.weblog.as_ref().map_or(0, |l| l.appends),
            bytes_read: bytes,
            bytes_written,
            write_bandwidth_mb_s: bytes_written as f64 / 1e6 / sim_s,
            rmw_stripes: self.rmw_rows,
            rcw_stripes: self.rcw_rows,
            full_stripe_rows: self.full_rows,
            writeback_blocks: t.map_or(0, |t| t.writeback_blocks),
            latency_mean_ms: timed.then(|| mean_lat / NS_PER_MS as f64),
            latency_p50_ms: timed.then(|| ms(p50)),
            latency_p95_ms: timed.then(|| ms(p95)),
            latency_p99_ms: timed.then(|| ms(p99)),
            latency_max_ms: timed.then(|| ms(lat.max_ns())),
            latency_samples: lat.count(),
            // a trace, and O_DIRECT reads, meet the array cache first (see Metrics)
            hit_ratio: match (array_first, acs) {
                (true, Some(a)) => ratio_of(a.hits as f64, (a.hits + a.misses) as f64),
                (true, None) => None,
                _ => ratio_of(cs.hits as f64, (cs.hits + cs.misses) as f64),
            },
            prefetched_pages: cs.prefetched,
            prefetch_used_pages: cs.prefetch_used,
            prefetch_accuracy: match (array_first, acs) {
                (true, Some(a)) => ratio_of(a.prefetch_used as f64, a.prefetched as f64),
                (true, None) => None,
                _ => ratio_of(cs.prefetch_used as f64, cs.prefetched as f64),
            },
            wasted_prefetch_pages: cs.wasted,
            readahead_windows: self.readahead_windows,
            block_requests: self.block_requests,
            disk_requests,
            request_splits: self.request_splits,
            disk_sectors,
            mean_disk_request_kib: ratio_of(disk_sectors as f64 * 0.5, disk_requests as f64),
            disk_utilization: ratio(disks.iter().map(|d| d.utilization).sum(), disks.len() as f64),
            mean_seek_distance_cyl: ratio_of(seek_total as f64, disk_requests as f64),
            drive_cache_hits: self.disk_acc.iter().map(|a| a.cache_hits).sum(),
            array_cache_hit_ratio: acs.and_then(|a| ratio_of(a.hits as f64, (a.hits + a.misses) as f64)),
            hits: acs.map_or(0, |a| a.hits),
            misses: acs.map_or(0, |a| a.misses),
            prefetched_blocks: acs.map_or(0, |a| a.prefetched),
            prefetch_used_blocks: acs.map_or(0, |a| a.prefetch_used),
            wasted_blocks: acs.map_or(0, |a| a.wasted),
            block_policy_state: self.block_policy.state_json().to_string(),
            readahead_policy_state: self.ra_device.state_json().to_string(),
            peak_cache_pages: self.cache.peak_pages(),
            activated_pages: self.cache.activations().0,
            deactivated_pages: self.cache.activations().1,
            congestion_events: self.block.queues.iter().map(|q| q.stats.congestion_events).sum(),
            queue_full_events: self.block.queues.iter().map(|q| q.stats.queue_full_events).sum(),
            room_waits: self.room.waits,
            windows_over_budget: self.room.over_budget,
            trace_records_skipped: t.map_or(0, |t| t.replay.skipped_records()),
            request_sleep_s: self.block.queues.iter().map(|q| q.stats.request_sleep_ns).sum::<u64>() as f64
                / NS_PER_S as f64,
            layout_score: self.fs.layout_score(),
            mean_file_extents: self.fs.mean_extents(),
            sim_time_s: sim_s,
            elapsed_s: sim_s,
            stall_s: 0.0,
            ssd_hits: 0,
            hdd_reads: 0,
            wall_time_s: wall_s,
            requests_per_wall_s: ratio(requests as f64, wall_s),
        };
        let streams = self
            .streams
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let t = s.finish_ns.max(1) as f64 / NS_PER_S as f64;
                StreamMetrics {
                    stream: i as u32,
                    requests: s.requests,
                    bytes_read: s.bytes,
                    bandwidth_mb_s: s.bytes as f64 / 1e6 / t,
                    latency_mean_ms: ratio_of(s.latency_sum_ns as f64 / NS_PER_MS as f64, s.requests as f64),
                    finish_time_s: s.finish_ns as f64 / NS_PER_S as f64,
                }
            })
            .chain(t.into_iter().flat_map(|t| t.streams.iter()).enumerate().map(|(i, s)| {
                let secs = s.finish_ns.max(1) as f64 / NS_PER_S as f64;
                StreamMetrics {
                    stream: i as u32,
                    requests: s.requests,
                    bytes_read: s.bytes_read,
                    bandwidth_mb_s: s.bytes_read as f64 / 1e6 / secs,
                    latency_mean_ms: ratio_of(s.latency_sum_ns as f64 / NS_PER_MS as f64, s.requests as f64),
                    finish_time_s: s.finish_ns as f64 / NS_PER_S as f64,
                }
            }))
            .collect();
        Report {
            config_json: self.cfg_json,
            metrics,
            streams,
            disks,
            io_log: self.io_log.take(),
            mode: RunMode::Timed,
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        0.0
    }
}

/// The readahead policy's view of the page cache for one stream's file.
struct RaCtx<'a> {
    e: &'a mut Engine,
    stream: u32,
    file: u32,
    demand_start: u64,
    demand_end: u64,
}

impl RaContext for RaCtx<'_> {
    fn is_cached(&self, page: u64) -> bool {
        page < self.e.fs.file_pages(self.file) && self.e.cache.is_cached(self.file, page)
    }
    fn file_pages(&self) -> u64 {
        self.e.fs.file_pages(self.file)
    }
    fn congested(&self) -> bool {
        self.e.block.any_congested()
    }
    fn phys_block(&self, page: u64) -> u64 {
        self.e.fs.bmap(self.file, page)
    }
    fn strip_blocks(&self) -> u64 {
        self.e.layout.strip_blocks()
    }
    fn pending_ios_per_disk(&self) -> f64 {
        self.e.block.outstanding_per_disk()
    }
    fn now_ns(&self) -> u64 {
        self.e.events.now_ns()
    }
    fn active_streams(&self) -> u32 {
        self.e.active_streams
    }
    fn sane_max_pages(&self) -> u64 {
        self.e.cache.sane_readahead_pages()
    }
    fn device_state(&mut self) -> &mut RaDeviceState {
        &mut self.e.ra_device
    }
    fn submit(&mut self, w: Window, kind: WindowKind) -> Submitted {
        let ev = match kind {
            WindowKind::Sync => IoEvent::WindowSync,
            WindowKind::Async => IoEvent::WindowAsync,
        };
        self.e.readahead_windows += 1;
        let issued_pages = self.e.read_pages(
            self.stream,
            self.file,
            w.start,
            w.size,
            self.demand_start,
            self.demand_end,
            ev,
            w.marker(),
        );
        Submitted { window: w, issued_pages }
    }
}
