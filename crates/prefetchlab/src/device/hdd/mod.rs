//! The mechanical drive model (models.md §1), after DiskSim 4.0's disk
//! controller (`disksim_diskctlr.c`, `disksim_diskcache.c`): a drive is data
//! — a DiskSim description ([`params`]) — and this module is the controller
//! that runs it. Its parts, each in its own file:
//!
//! * [`geometry`] — LBA → cylinder, head, sector and the sector's angle;
//! * [`seek`] — the seek curves;
//! * [`media`] — the arm and the platter: seeks, rotational waits and
//!   transfers, with the angular position carried exactly;
//! * [`cache`] — the segment cache and DiskSim's choice of segment;
//! * [`readahead`] — the read-ahead after a read, its limits and how a
//!   request stops it or takes it over;
//! * [`bus`] — when each block of a read crosses the host interface;
//! * [`queue`] — the drive's own command queue (`Max queue length`) and its
//!   positional scheduling.
//!
//! A read (DiskSim `disk_read_arrive`): the read-ahead is brought up to the
//! arrival time, and a segment is chosen by DiskSim's values ([`cache`]).
//! * A hit (whole, or partial with `Immed transfer partial hit`) connects
//!   after the read-hit overhead; a miss disconnects after the read-miss
//!   overhead (and the read disconnect overhead) and reconnects when the
//!   read water mark is in the buffer ([`bus`]).
//! * A request that starts inside the segment the read-ahead is filling
//!   (or at its next block, with almost-read hits) takes the read-ahead
//!   over: the media goes on without a pause. Any other request stops it
//!   ([`readahead`]); the arm starts for the request after the read-miss
//!   overhead plus the time the read-ahead needed to stop (DiskSim adds the
//!   two), from where it stopped.
//! * After the request's last block the read-ahead continues while the
//!   drive has nothing else queued. A read held in the drive's queue
//!   meanwhile takes the read-ahead over when its turn comes, as one
//!   arriving then would, if the read-ahead has read or is reading its
//!   first block; any other command stops it (DiskSim's times for a
//!   sequential stream read in queued pairs, `tests/disk_queue.rs`).
//! * The host interface is the drive's while it is connected: a hit from
//!   its arrival until it has sent what is in the buffer (a whole hit: to
//!   its completion), a miss until it disconnects after the miss overhead
//!   and again while it sends its data, a write while its data crosses. A
//!   command issued meanwhile reaches the drive when the bus is let go;
//!   several issued together reach it one at a time, in order, so a hit
//!   among them that the drive sends at once holds the bus in its turn, and
//!   commands still behind the bus are not queued at the drive (they do not
//!   stop the read-ahead). A command already at the drive sends nothing
//!   before the one in service has let go of the bus for the last time.
//! * A command that reaches the drive while it is busy holds the bus for
//!   its command phase (the read-miss, or write, overhead and the
//!   disconnect, after a read or a write as the last command *completed*
//!   was: DiskSim's `lastflags`), as DiskSim's `disk_request_arrive` does:
//!   a read in service that is sending its blocks reconnects after it, and
//!   so does a write that disconnected after its command and reconnects for
//!   its data (`WritePlan`: its data and media write follow), so its
//!   completion moves later ([`super::Device::take_moved`]). A command the
//!   host issues as a completion is reported reaches the drive then, before
//!   the command the drive starts from its queue sends anything (DiskSim's
//!   order of events at that instant), unless that command itself reached
//!   the drive only then (it goes first) or is a whole hit (it keeps the
//!   bus use planned when it started); so does a command that waited for
//!   the bus and reaches the drive just as a write started from the queue
//!   reconnects. DiskSim's bus queue may send a read that has taken the
//!   read-ahead over before the rest of the read in service; the model
//!   serves one command at a time (`tests/disk_queue.rs`).
//! * The positional policies (SPTF, SATF) estimate a held command's
//!   positioning from the platter and arm as the drive last recorded them:
//!   the platter at the end of the last sector its media read or wrote,
//!   the arm on the track it is on (while the read-ahead runs: the track
//!   it reads, waits on or seeks to), not from the moment of choosing, as
//!   DiskSim's `disk_buffer_estimate_servtime` does (from its `mech_state`,
//!   set at every sector done and at the start of a seek): on a drive that
//!   keeps the arm until a read's data has crossed a slow bus, the platter
//!   has turned since, and the next read of a stream, whose first sector
//!   has just passed, is chosen and waits nearly a revolution. A command
//!   that reaches the drive at or after the instant of the choice (held
//!   behind the bus until then) is not among the candidates while one that
//!   came before is (DiskSim chooses among the commands it holds); with
//!   none there, one on its way is costed from its arrival plus the wait
//!   for it. Estimates within a nanosecond of the least are a tie, won by
//!   the one held longest: a heuristic. DiskSim's own near-ties follow its
//!   fixed-point rotation (`dm_rottime` truncates to 2^-20 revolution), and
//!   only exact ones its queue's order (by block, or by cylinder, surface
//!   and block with a cylinder mapping); measured against its choices in
//!   `tests/disk_queue.rs`, neither rule matches it everywhere.
//! * The first command waiting for the bus when a command phase ends takes
//!   it before the read in service whose data came in during that phase: a
//!   drive busy with a command's arrival asks for the bus only once it has
//!   disconnected, and DiskSim's bus is granted to the command already
//!   waiting; once the read has asked, it goes before any other command
//!   (its slot's priority, `disksim_bus.c`).
//! * `Preseeking level`: without preseeking (0, every shipped file) a read
//!   keeps the arm until it has completed, as DiskSim keeps its HDA, so a
//!   read queued behind it, even the next one of a sequential stream, seeks
//!   once the last one's data has crossed the bus (a revolution lost when
//!   that takes any time); with 1 until its completion is sent, with 2 only
//!   to the end of its media work (the datasheet presets).
//!
//! DiskSim's times for hits issued at once, a miss issued during a hit, and
//! streams queued behind slow buses on every drive of its validation files,
//! to 0.001 % (`tests/disk_queue.rs`).
//!
//! A write (DiskSim `disk_write_arrive`): the data crosses the bus after the
//! write overhead (the hit overhead with write-back caching, `Fast write
//! level` ≥ 1; the miss overhead without) while the arm moves; a block
//! whose data is not in the buffer when its sector passes is written a
//! revolution later. With write-back the write completes when its data is
//! in, and the media write keeps the arm busy in the background; without,
//! it completes after the media write and a reconnection.
//!
//! Time inside the drive is exact (`f64` ns); the host sees completions
//! rounded up to the nanosecond. A request the host issues at the very
//! nanosecond the last completion was reported reaches the drive at the
//! exact time that completion happened (the host's rounding is not the
//! drive's clock): back-to-back requests of a sequential stream then meet
//! their first sector exactly as DiskSim's do.
//!
//! Rules taken from DiskSim's code, beyond the above: `Hold bus entire read
//! xfer` and `Never disconnect` keep the drive connected ([`bus`]); the
//! read-ahead waits for the host to drain a full segment (DiskSim's
//! "buffer full", [`readahead::Cap`]); `Minimum read-ahead`: a read-ahead
//! short of it cannot be stopped — the next command waits until it gets
//! there, even past its limit (DiskSim then sets the maximum to the
//! minimum), and seeks the moment it lets go; one write appends to a
//! write-back write still on its way to the media (`Combine seq writes`),
//! any later command waits for that media write; a write empties the clean
//! segments it overlaps.
//!
//! Choices where DiskSim's event-level controller is not reproduced, each a
//! rule (see also `validate.rs` for the measured effect):
//! * sneaky hits and write prebuffering are not modelled (off
//!   in every DiskSim file shipped with DiskSim's validation suite); nor
//!   are `Write water mark`, `Maximum number of write segments`, `Use
//!   separate write segment`, `Write hit stop prefetch`, `Disconnect write
//!   if seek`, `Hold bus entire write xfer`, `Other reselect overhead`,
//!   `Read directly to buffer` and the `Extradisc` delays: they are read,
//!   checked and kept in [`params`], and change nothing here;
//! * `Fast write level` 1 and 2 are both write-back for every write;
//! * a request larger than a segment is read at the media rate: its own
//!   blocks never wait for the host to drain the segment (DiskSim's
//!   buffer-full stall applies to the read-ahead only here);
//! * `Read any free blocks` keeps the blocks of the request's track that
//!   passed under the head while it waited (before the request's first
//!   block), as DiskSim's manual describes; DiskSim 4.0's code keeps fewer
//!   (on the Atlas 10K, the one shipped file that sets it, 657 of 10,000
//!   requests differ and the rms is 0.096 ms against DiskSim's 0.268);
//! * a write appending to a write-back write makes the media write one
//!   longer stretch; DiskSim 4.0 writes the appended blocks twice (the
//!   first write's access is not trimmed) — not copied
//!   (`tests/disk_cache_rules.rs`);
//! * with `Extra write disconnect` the controller holds a write's first
//!   media block until min(n, 10) blocks (n < 45) or 15 blocks of its data
//!   are in the buffer, as DiskSim's `disk_buffer_block_available` does
//!   (on the HP C2247A this is what costs a revolution on the writes whose
//!   first sector comes round early). The extra disconnect itself (a write
//!   after a non-sequential write fetching its data after the
//!   extra-disconnect delays) is not applied, as in DiskSim 4.0, whose code
//!   for it is commented out: applied, it matches the real HP C2247A on 5
//!   of the 14 "W Trip" requests where it changes anything and misses on 9
//!   (rms 0.094 against 0.090 without).
//!
//! `service` allocates nothing: the layout lookup is two binary searches,
//! the cache a fixed array and the span list a buffer kept between requests.

pub mod bus;
pub mod cache;
pub mod geometry;
pub mod media;
pub mod params;
pub mod queue;
pub mod readahead;
pub mod seek;

use super::{DiskRequest, Service};
use crate::error::{Error, Result};
use crate::sim::{Rng, TimeNs};
use bus::BusCosts;
use cache::{HitKind, ReadChoice, SegCache, SegState};
use media::{Mech, MechState, Span};
pub use params::{AccessTime, CacheParams, DriveParams, DriveRates, Overheads, QueueParams};
use readahead::{Doing, Limits, ReadAhead};
use std::collections::BTreeMap;
use std::path::Path;

const MS: f64 = 1_000_000.0;

/// Positioning estimates closer than this (ns) are a tie for the
/// positional policies: two sectors that come under the head together give
/// estimates apart only in the rounding of the model's own floating point
/// (DiskSim's fixed-point steps, 2^-20 revolution, are 8 ns at 7,200 rpm).
const TIE_NS: f64 = 1.0;

/// How a drive starts: DiskSim's validation starts every drive with the
/// platter at angle 0 and the nominal rpm; an array's members start at a
/// random angle with their rpm drawn within `Percent error in rpms` (as
/// DiskSim's manual describes), so that they drift out of phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    Index,
    Random,
}

/// A mechanical hard drive.
pub struct Hdd {
    p: DriveParams,
    mech: Mech,
    cache_on: bool,
    cache: SegCache,
    ra: ReadAhead,
    limits: Limits,
    /// Spans of the request being served (kept to avoid allocating).
    spans: Vec<Span>,
    /// The arm is busy until then (a stopped read-ahead, a write).
    arm_free_ns: f64,
    /// A write-back write's media write runs until then; DiskSim cannot
    /// stop it, so every request arriving before waits for it.
    write_until_ns: f64,
    /// Where that write ends: one write appending to it does not wait.
    write_until_end: u64,
    /// A write has already appended to it (DiskSim lets only the oldest
    /// command the drive holds append; the next waits for the media).
    appended: bool,
    last_was_write: bool,
    /// The direction of the last command completed (DiskSim's `lastflags`,
    /// set as a command completes): while one is in service, that of the
    /// one before it. The overheads of commands arriving meanwhile follow
    /// it.
    done_was_write: bool,
    /// The block after the last request (the elevator policies' position).
    last_lba: u64,
    /// When the command in service holds the host interface (from..to, in
    /// time order): a hit from its arrival until it has sent what is in, a
    /// miss until it disconnects after its overhead and again while it sends
    /// its data, a write while its data crosses. A command the host issues
    /// meanwhile reaches the drive at the stretch's end (DiskSim's bus is
    /// the drive's while it is connected). Kept between requests.
    bus_busy: Vec<(f64, f64)>,
    /// The previous command's last use of the bus ended then: a command
    /// that reached the drive before sends nothing until then.
    bus_idle_ns: f64,
    /// The command phases of the commands that reached the drive while it
    /// was busy (time order, disjoint): each held the bus for its command
    /// overhead and disconnect when it arrived (DiskSim's
    /// `disk_request_arrive`), so a read sending meanwhile reconnects after
    /// it. Kept while they can still be in the way.
    arrived: Vec<(f64, f64)>,
    /// How the read in service sends its blocks, to plan it again when a
    /// command reaching the drive takes the bus ([`SendPlan`]), with the
    /// blocks sent before each of its connections ([`bus::send`]'s marks),
    /// and room for the connections planned again (until they meet the old
    /// plan, whose rest stands).
    plan: Option<SendPlan>,
    /// How the write in service takes its data after reconnecting
    /// ([`WritePlan`]), to plan it again when a command takes the bus first.
    wplan: Option<WritePlan>,
    marks: Vec<u64>,
    new_busy: Vec<(f64, f64)>,
    new_marks: Vec<u64>,
    /// Each held command's positioning estimate at a pick (kept to avoid
    /// allocating).
    costs: Vec<f64>,
    /// The command in service's tag, and a completion of it that a command
    /// reaching the drive has moved, not yet taken by the host.
    in_service: u32,
    moved: Option<(u32, TimeNs)>,
    /// The last completion, exact and as reported to the host.
    t_done: f64,
    done_ns: TimeNs,
    /// When the command in service was waiting in the queue when the last
    /// one completed: that completion, exact and as reported.
    made_way: Option<(f64, TimeNs)>,
    /// When the command in service reached the drive.
    arrived_at: f64,
    xfer_read_ns: f64,
    xfer_write_ns: f64,
    /// The drive's command queue and what it holds.
    pub queue: queue::DriveQueue,
}

/// How the read in service sends its blocks ([`bus::send`]'s arguments),
/// kept to send them again around a command that reaches the drive
/// meanwhile.
#[derive(Debug, Clone, Copy)]
struct SendPlan {
    command: (f64, f64),
    n: u64,
    connect: Option<f64>,
    watermark: u64,
    costs: BusCosts,
    completion: f64,
    /// Where its stretches begin in `bus_busy`, and the first of its
    /// connections for its data (after its command phase).
    from: usize,
    data_from: usize,
    /// When the bus was first the drive's to take for its data.
    free_bus_ns: f64,
    /// When its last block has crossed.
    end_ns: f64,
}

impl SendPlan {
    /// What [`bus::send`] sends: the read's blocks as `spans` give them,
    /// around the command phases `blocked`.
    fn sending<'a>(&'a self, spans: &'a [Span], blocked: &'a [(f64, f64)]) -> bus::Sending<'a> {
        bus::Sending { spans, n: self.n, watermark: self.watermark, costs: &self.costs, blocked }
    }
}

/// A write that disconnected after its command (the drive busy) and
/// reconnects for its data ([`Hdd::write_data`]), kept to send its data
/// and write it again later when a command reaching the drive takes the bus
/// as it reconnects.
#[derive(Debug, Clone, Copy)]
struct WritePlan {
    lba: u64,
    n: u64,
    /// When it reconnects, and where that connection is in `bus_busy`.
    connect: f64,
    at: usize,
    /// The reselect and data preparation before the data crosses.
    lead_ns: f64,
    /// The arm and platter before its media write, when that may start,
    /// and how many blocks it waits for before its first.
    mech: MechState,
    mech_start: f64,
    min_seek: f64,
    min_buffered: u64,
    fast: bool,
    /// It appends to a write-back write still on its way to the media.
    appends: bool,
}

/// The parameters of the drive `model` names (a preset, or a path to a
/// DiskSim `.diskspecs`/`.parv`) with DiskSim parameters overridden by name.
pub fn drive_params(model: &str, overrides: &[(String, f64)]) -> Result<DriveParams> {
    let lower = model.to_ascii_lowercase();
    if lower.ends_with(".diskspecs") || lower.ends_with(".parv") {
        super::disksim::load_drive(Path::new(model), overrides)
    } else if let Some(p) = super::presets::preset_with(model, overrides)? {
        Ok(p)
    } else {
        Err(Error::config(
            "disk.model",
            format!(
                "unknown drive model `{model}`: expected one of {} or a path to a .diskspecs/.parv",
                super::presets::NAMES.join(", ")
            ),
        ))
    }
}

impl Hdd {
    /// Builds a drive from a preset name or a path to a DiskSim `.diskspecs`/`.parv`,
    /// with the on-drive cache on or off and DiskSim parameters overridden by name.
    pub fn from_model(model: &str, cache: bool, overrides: &BTreeMap<String, f64>, rng: Rng) -> Result<Hdd> {
        let ov: Vec<(String, f64)> = overrides.iter().map(|(k, v)| (k.clone(), *v)).collect();
        Ok(Hdd::new(drive_params(model, &ov)?, cache, rng))
    }

    /// A drive from explicit parameters, started at a random angle with a
    /// drawn rpm ([`Start::Random`]).
    pub fn new(p: DriveParams, cache: bool, rng: Rng) -> Hdd {
        Hdd::with_start(p, cache, Start::Random, rng)
    }

    /// A drive from explicit parameters. `cache = false` turns the on-drive
    /// cache off (DiskSim's `Enable caching in buffer = 0`), and with it the
    /// read-ahead and write-back caching, which DiskSim refuses without it.
    pub fn with_start(p: DriveParams, cache: bool, start: Start, mut rng: Rng) -> Hdd {
        let (phase, rpm) = match start {
            Start::Index => (0.0, p.rpm),
            Start::Random => {
                let phase = rng.next_f64();
                let err = p.rpm_error_pct / 100.0 * (2.0 * rng.next_f64() - 1.0);
                (phase, p.rpm * (1.0 + err))
            }
        };
        let period_ns = 60_000.0 / rpm * MS;
        let cache_on = cache && p.cache.enabled;
        let c = &p.cache;
        let contread = if cache_on { c.contread } else { 0 };
        let limits = Limits {
            contread,
            max_readahead: if contread == 0 { 0 } else { c.max_readahead.max(c.min_readahead) as u64 },
            min_readahead: if contread == 0 { 0 } else { c.min_readahead as u64 },
            keep_request_data: !c.readahead_over_requested,
            segment_blocks: c.segment_blocks as u64,
        };
        let mech = Mech::new(
            period_ns,
            phase,
            p.seek.clone(),
            p.head_switch_ms * MS,
            p.write_settle_ms * MS,
            p.access,
        );
        Hdd {
            mech,
            cache_on,
            cache: SegCache::new(c.segments as usize, c.segment_blocks as u64),
            ra: ReadAhead::default(),
            limits,
            spans: Vec::with_capacity(64),
            arm_free_ns: 0.0,
            write_until_ns: 0.0,
            write_until_end: u64::MAX,
            appended: false,
            last_was_write: false,
            done_was_write: false,
            bus_busy: Vec::with_capacity(8),
            bus_idle_ns: 0.0,
            arrived: Vec::with_capacity(8),
            plan: None,
            wplan: None,
            marks: Vec::with_capacity(64),
            new_busy: Vec::with_capacity(64),
            new_marks: Vec::with_capacity(64),
            costs: Vec::new(),
            in_service: u32::MAX,
            moved: None,
            t_done: 0.0,
            done_ns: 0,
            made_way: None,
            arrived_at: 0.0,
            last_lba: 0,
            xfer_read_ns: p.xfer_read_ms.max(0.0) * MS,
            xfer_write_ns: p.xfer_write_ms.max(0.0) * MS,
            queue: queue::DriveQueue::new(&p.queue),
            p,
        }
    }

    pub fn params(&self) -> &DriveParams {
        &self.p
    }

    /// Overrides the drive's `Max queue length` (`disk.queue_depth`).
    pub fn set_queue_depth(&mut self, depth: u32) {
        self.queue.depth = depth.max(1);
        self.queue.held.reserve(self.queue.depth as usize);
    }

    /// An overhead in ns (DiskSim's time scale applied; a negative one is none).
    #[inline]
    fn oh(&self, ms: f64) -> f64 {
        (ms * self.p.overheads.time_scale).max(0.0) * MS
    }

    /// The read water mark in blocks (DiskSim `disk_buffer_set_segment`).
    fn read_watermark(&self, n: u64) -> u64 {
        let c = &self.p.cache;
        let seg = c.segment_blocks as u64;
        if c.water_by_request {
            ((n.min(seg) as f64 * c.read_water) as u64).max(1)
        } else {
            (seg as f64 * c.read_water + 0.9999999999) as u64
        }
    }

    /// Blocks of an `n`-block write that must be in the buffer before its
    /// first block may go to the media (see the module doc).
    fn write_min_buffered(&self, n: u64) -> u64 {
        if !self.p.overheads.extra_write_disconnect {
            1
        } else if n < 45 {
            n.min(10)
        } else {
            15
        }
    }

    /// The drive time a request issued by the host at `start_ns` arrives.
    #[inline]
    fn arrival(&self, start_ns: TimeNs) -> f64 {
        if start_ns <= self.done_ns {
            self.t_done.max(start_ns as f64 - 1.0).min(start_ns as f64)
        } else {
            start_ns as f64
        }
    }

    /// Serves one request arriving at drive time `t`; returns (completion,
    /// seek distance, whole cache hit).
    fn serve(&mut self, req: &DiskRequest, t: f64, hda_free: f64) -> (f64, u64, bool) {
        let (lba, n) = self.span_of(req);
        let t = t + self.oh(self.p.overheads.per_request);
        self.bus_idle_ns = self.bus_busy.last().map_or(0.0, |b| b.1);
        self.bus_busy.clear();
        self.plan = None;
        self.wplan = None;
        let idle = self.bus_idle_ns;
        self.arrived.retain(|p| p.1 > idle);
        let r = if let AccessTime::Constant { ms } = self.p.access {
            (t.max(hda_free) + ms * MS, 0, false)
        } else if req.write {
            let (d, s) = self.write(lba, n, t, hda_free);
            (d, s, false)
        } else {
            self.read(lba, n, t, hda_free)
        };
        self.done_was_write = self.last_was_write;
        self.last_was_write = req.write;
        self.last_lba = lba + n;
        r
    }

    /// Stops the read-ahead for a request that needs the arm at `t`;
    /// returns when the read-ahead lets go of the arm (`t` when there is
    /// none), and whether it held on past `t` because it was short of its
    /// minimum (the request then waits for the drive, as for a busy one).
    fn stop_readahead(&mut self, doing: Doing, t: f64) -> (f64, bool) {
        if !self.ra.active {
            return (t, false);
        }
        // DiskSim's `Minimum read-ahead`: a read-ahead short of it cannot
        // be stopped; it reads up to it (even past its own limit, a track
        // end under mode 4: DiskSim sets the maximum to the minimum), then
        // lets the arm go
        let read = self.cache.get(self.ra.seg).end;
        if read < self.ra.min_limit {
            self.ra.limit = self.ra.min_limit;
            let lay = &self.p.layout;
            if let Doing::Finished(free) =
                self.ra.advance(&mut self.mech, lay, self.limits.contread, &mut self.cache, f64::INFINITY)
            {
                self.arm_free_ns = self.arm_free_ns.max(free);
                return (free.max(t), free > t);
            }
        }
        let free = self.ra.stop(
            &mut self.mech,
            &self.p.layout,
            &mut self.cache,
            doing,
            t,
            self.p.cache.stop_prefetch_in_sector,
        );
        self.cache.set_state(self.ra.seg, SegState::Clean);
        self.arm_free_ns = self.arm_free_ns.max(free);
        (free, false)
    }

    /// Starts the read-ahead after a read of `[lba, lba + n)` into segment
    /// `seg` whose media part ended at `end_ns`.
    fn start_readahead(&mut self, seg: usize, lba: u64, n: u64, end_ns: f64, bus_end: f64) {
        let s = self.cache.get(seg);
        let lim = self.limits.max_readahead(&self.p.layout, s.start, lba, n);
        let min = self.limits.min_readahead(&self.p.layout, lba + n);
        let (limit, min_limit) = self.cache.raise_limits(seg, lim, min);
        let next = s.end;
        let active = self.limits.contread > 0 && !self.queued_at(end_ns) && next < limit;
        let cap = self.cap(lba, n, bus_end);
        self.ra = ReadAhead { active, seg, next, limit, min_limit, from_ns: end_ns, cap };
        self.cache.set_state(seg, if active { SegState::Reading } else { SegState::Clean });
        self.arm_free_ns = end_ns;
    }

    /// The buffer-full cap while the read of `[lba, lba + n)` is sent until
    /// `bus_end` (see [`readahead::Cap`]).
    fn cap(&self, lba: u64, n: u64, bus_end: f64) -> readahead::Cap {
        readahead::Cap {
            endreq: lba + n,
            blocks: n,
            size: self.cache.size_blocks,
            until_ns: bus_end,
            xfer_ns: self.xfer_read_ns,
        }
    }

    /// A read arriving at `t`; the drive is busy with other commands until
    /// `hda_free` (≤ `t` when it is idle).
    fn read(&mut self, lba: u64, n: u64, t: f64, hda_free: f64) -> (f64, u64, bool) {
        let ov = &self.p.overheads;
        let (hit_ms, miss_ms, disc_ms) = self.read_overheads_ms(self.last_was_write);
        let prep = self.oh(ov.data_prep);
        let hit_oh = self.oh(hit_ms) + prep;
        let miss_oh = self.oh(miss_ms);
        let costs = BusCosts {
            xfer_ns: self.xfer_read_ns,
            disconnect_ns: self.oh(disc_ms),
            reconnect_ns: self.oh(ov.first_reselect) + prep,
            hold: ov.hold_bus_read || ov.never_disconnect,
        };
        let completion = self.oh(ov.read_completion);
        let immed = self.p.cache.immed_read;
        let lay = &self.p.layout;

        if !self.cache_on {
            // every read is a miss into a fresh segment; no read-ahead
            return self.read_uncached(lba, n, t, miss_oh, &costs, completion);
        }

        // where the read-ahead is now, and which segment the read takes
        let doing = self.ra.advance(&mut self.mech, lay, self.limits.contread, &mut self.cache, t);
        let (seg, hit) = self.cache.select_read(lba, n, self.read_choice());
        let Some(seg) = seg else {
            // every segment busy with data not on the media: wait for the arm
            return self.read_uncached(lba, n, t, miss_oh, &costs, completion);
        };
        let watermark = self.read_watermark(n);
        // a hit connects at once (after the hit overhead) when the drive is
        // free for it and enough of it is in; else the drive disconnects
        let s = self.cache.get(seg);
        let enough = match hit {
            HitKind::Whole => true,
            HitKind::Partial => {
                self.p.cache.immed_transfer_partial_hit || (s.end > lba && s.end - lba >= watermark.min(n))
            }
            HitKind::None => false,
        };
        let connect_if = |held_until: f64| (enough && held_until <= t).then_some(t + hit_oh);
        let mut held_until = self.write_until_ns.max(hda_free).max(self.bus_idle_ns);
        let mut connect = connect_if(held_until);
        // the command phase: from its arrival to its disconnect
        let command = (t, t + miss_oh + costs.disconnect_ns);
        self.cache.touch(seg);

        // the read-ahead filling this very segment goes on for the request
        if self.ra.active && self.ra.seg == seg && hit != HitKind::None {
            self.spans.clear();
            let mut end_ns = self.ra.from_ns;
            if lba + n > self.ra.next {
                // the stream from its last committed track on: the blocks it
                // has read by now come out with past times (in at once)
                let from = self.ra.next;
                let a = self.mech.read(
                    &self.p.layout,
                    from,
                    lba + n - from,
                    self.ra.from_ns,
                    0.0,
                    false,
                    &mut self.spans,
                );
                trim_spans(&mut self.spans, lba);
                end_ns = a.end_ns;
                self.cache.extend(seg, lba + n);
                self.ra.next = lba + n;
                self.ra.from_ns = end_ns;
            }
            if self.spans.first().is_none_or(|s| s.lba > lba) {
                let upto = self.spans.first().map_or(lba + n, |s| s.lba);
                self.spans.insert(0, Span { lba, count: upto - lba, start_ns: t, sector_ns: 0.0 });
            }
            let bus_end = self.send(command, n, connect, watermark, &costs, completion);
            // the read-ahead continues past the request (its limit grows)
            let s = self.cache.get(seg);
            let lim = self.limits.max_readahead(&self.p.layout, s.start, lba, n);
            let min = self.limits.min_readahead(&self.p.layout, lba + n);
            (self.ra.limit, self.ra.min_limit) = self.cache.raise_limits(seg, lim, min);
            self.ra.active = !self.queued_at(end_ns) && self.ra.next < self.ra.limit;
            self.ra.cap = self.cap(lba, n, bus_end);
            if !self.ra.active {
                self.cache.set_state(seg, SegState::Clean);
                self.arm_free_ns = self.arm_free_ns.max(end_ns);
            }
            return (bus_end + completion, 0, hit == HitKind::Whole && lba + n <= s.end);
        }

        // any other request stops the read-ahead where it is (one short of
        // its minimum holds the drive until it gets there)
        let (ra_free, forced) = self.stop_readahead(doing, t);
        // a read-ahead stopped by its rules costs its stop time after the
        // command overhead; one held to its minimum ran while the command
        // overhead was spent, and the seek starts when it lets go
        let stop_wait = if forced { 0.0 } else { (ra_free - t).max(0.0) };
        if forced {
            held_until = held_until.max(ra_free);
            connect = connect_if(held_until);
        }

        if hit == HitKind::Whole {
            let sent = n as f64 * self.xfer_read_ns + completion;
            let done = if held_until > t {
                // the drive disconnects and sends the data once the write is done
                let back = command.1.max(held_until);
                self.bus_busy.push(command);
                self.bus_busy.push((back, back + costs.reconnect_ns + sent));
                back + costs.reconnect_ns + sent
            } else {
                self.bus_busy.push((t, t + hit_oh + sent));
                t + hit_oh + sent
            };
            if self.p.cache.readahead_on_idle_hit && self.limits.contread > 0 {
                let s = self.cache.get(seg);
                let lim = self.limits.max_readahead(&self.p.layout, s.start, lba, n);
                let min = self.limits.min_readahead(&self.p.layout, lba + n);
                let (lim, min) = self.cache.raise_limits(seg, lim, min);
                if s.end < lim && !self.queued_at(t) {
                    let from = (t + miss_oh + stop_wait).max(self.arm_free_ns);
                    self.ra = ReadAhead {
                        active: true,
                        seg,
                        next: s.end,
                        limit: lim,
                        min_limit: min,
                        from_ns: from,
                        cap: self.cap(lba, n, done),
                    };
                    self.cache.set_state(seg, SegState::Reading);
                }
            }
            return (done, 0, true);
        }

        // a partial hit reads from the segment's end, a miss from the start
        let first = if hit == HitKind::Partial {
            self.cache.get(seg).end
        } else {
            self.cache.reset(seg, lba, SegState::Reading, true);
            lba
        };
        self.spans.clear();
        if first > lba {
            self.spans.push(Span { lba, count: first - lba, start_ns: t, sector_ns: 0.0 });
        }
        // DiskSim adds the command overhead and the read-ahead's stop time
        let start = (t + miss_oh + stop_wait).max(self.arm_free_ns);
        let a = self.mech.read(&self.p.layout, first, lba + n - first, start, 0.0, immed, &mut self.spans);
        self.cache.extend(seg, lba + n);
        if self.p.cache.read_any_free_blocks && first == lba {
            self.read_free_blocks(seg, lba, a.first_wait_ns);
        }
        let bus_end = self.send(command, n, connect, watermark, &costs, completion);
        self.start_readahead(seg, lba, n, a.end_ns, bus_end);
        (bus_end + completion, a.seek_cyl as u64, false)
    }

    /// A read served from the media and through no segment (the cache off,
    /// or every segment busy): the arm from the end of its command overhead,
    /// its blocks sent as they come in; returns (completion, seek distance,
    /// whole hit: never).
    fn read_uncached(
        &mut self,
        lba: u64,
        n: u64,
        t: f64,
        miss_oh: f64,
        costs: &BusCosts,
        completion: f64,
    ) -> (f64, u64, bool) {
        let start = (t + miss_oh).max(self.arm_free_ns);
        self.spans.clear();
        let immed = self.p.cache.immed_read;
        let a = self.mech.read(&self.p.layout, lba, n, start, 0.0, immed, &mut self.spans);
        let watermark = self.read_watermark(n);
        let bus_end =
            self.send((t, t + miss_oh + costs.disconnect_ns), n, None, watermark, costs, completion);
        self.arm_free_ns = a.end_ns;
        (bus_end + completion, a.seek_cyl as u64, false)
    }

    /// Sends the blocks of a read ([`bus::send`] on the spans) and notes
    /// when it holds the bus: its `command` phase, from its arrival through
    /// its command overhead to `connect` (a hit sent at once) or to its
    /// disconnect (`command.1`), then while it sends (disconnected, from when
    /// both its disconnect and the last command's use of the bus are over),
    /// and for its completion; returns when the last block has crossed. A
    /// read that waited in the queue arrived while another held the drive:
    /// its command phase lies in the past, and ends at its disconnect, not
    /// when the bus is next free for its data.
    fn send(
        &mut self,
        command: (f64, f64),
        n: u64,
        connect: Option<f64>,
        watermark: u64,
        costs: &BusCosts,
        completion: f64,
    ) -> f64 {
        let mut plan = SendPlan {
            command,
            n,
            connect,
            watermark,
            costs: *costs,
            completion,
            from: self.bus_busy.len(),
            data_from: 0,
            free_bus_ns: 0.0,
            end_ns: 0.0,
        };
        plan.end_ns = self.send_as(&mut plan);
        self.plan = Some(plan);
        plan.end_ns
    }

    /// [`Hdd::send`] by `plan`, the commands that reached the drive
    /// meanwhile taking the bus in their turn.
    fn send_as(&mut self, plan: &mut SendPlan) -> f64 {
        // the bus is the drive's from the command's arrival, as DiskSim's
        // drive is connected until it disconnects
        let command = plan.command;
        self.bus_busy.push((command.0, plan.connect.unwrap_or(command.1)));
        plan.free_bus_ns = command.1.max(self.bus_idle_ns);
        plan.data_from = self.bus_busy.len();
        self.marks.clear();
        let sending = plan.sending(&self.spans, &self.arrived);
        let end = bus::send(&sending, plan.connect, plan.free_bus_ns, &mut self.bus_busy, &mut self.marks);
        self.bus_busy.push((end, end + plan.completion));
        end
    }

    /// A command reached the drive at `at`, while it was busy: it holds the
    /// bus for its command phase, and the read in service, if it still has
    /// blocks to send after `at`, sends them around it; its completion moves
    /// (reported through [`super::Device::take_moved`]).
    fn arrives_busy(&mut self, req: &DiskRequest, at: f64) {
        // the bus is its from its arrival (through any per-request overhead),
        // so the phases of commands arriving one after another never overlap
        let hold_ns = self.oh(self.p.overheads.per_request) + self.command_phase_ns(req);
        let phase = (at, at + hold_ns);
        if phase.1 <= phase.0 {
            return;
        }
        self.arrived.push(phase);
        if let Some(mut wp) = self.wplan {
            // a write reconnecting for its data during the phase reconnects
            // after it (DiskSim grants the bus to the command first)
            if phase.0 <= wp.connect && wp.connect < phase.1 {
                wp.connect = phase.1;
                self.wplan = Some(wp);
                let (done, _) = self.write_data(&wp);
                self.moves_to(done);
            }
            return;
        }
        let Some(mut plan) = self.plan else { return };
        if plan.end_ns + plan.completion <= phase.0 {
            return;
        }
        // the read's bus use moves only if one of its connections would
        // begin during the phase (none is under way when it arrives); it is
        // planned again from that connection until it meets the old plan
        let k = plan.from + self.bus_busy[plan.from..].partition_point(|s| s.0 < phase.0);
        if self.bus_busy.get(k).is_none_or(|s| s.0 >= phase.1) {
            return;
        }
        let old_end = plan.end_ns;
        let connections = plan.data_from..plan.data_from + self.marks.len();
        if bus::instant(&plan.costs, plan.watermark)
            || k < plan.data_from
            || (k == plan.data_from && plan.connect.is_some())
        {
            // a phase before its first connection (in its own per-request
            // overhead, or before a hit sent at once connects), or an
            // instant bus: planned again whole
            self.bus_busy.truncate(plan.from);
            plan.end_ns = self.send_as(&mut plan);
        } else if connections.contains(&k) {
            // planned again into the scratch buffers, then put in place of
            // the old connections it replaces (in place when as many)
            let j = k - plan.data_from;
            let sent = self.marks[j];
            let free = self.connection_free(&plan, k);
            self.new_busy.clear();
            self.new_marks.clear();
            let sending = plan.sending(&self.spans, &self.arrived);
            let old = (&self.bus_busy[k..connections.end], &self.marks[j..], old_end);
            let (end, met) = bus::resend(&sending, sent, free, &mut self.new_busy, &mut self.new_marks, old);
            let upto = met.unwrap_or(connections.end - k);
            self.bus_busy.splice(k..k + upto, self.new_busy.drain(..));
            self.marks.splice(j..j + upto, self.new_marks.drain(..));
            plan.end_ns = end;
            if met.is_none() {
                // its completion follows the new last block
                if let Some(last) = self.bus_busy.last_mut() {
                    *last = (end, end + plan.completion);
                }
            }
        } else {
            // only its completion begins during the phase: it follows its
            // last block, connected, and nothing moves
            return;
        }
        self.plan = Some(plan);
        if self.ra.cap.until_ns == old_end {
            self.ra.cap.until_ns = plan.end_ns;
        }
        self.moves_to(plan.end_ns + plan.completion);
    }

    /// The command in service now completes at `done` (never sooner): the
    /// move is reported through [`super::Device::take_moved`].
    fn moves_to(&mut self, done: f64) {
        let done = done.max(self.t_done);
        let done_ns = (done.ceil() as TimeNs).max(self.done_ns);
        self.t_done = done;
        if done_ns != self.done_ns {
            self.done_ns = done_ns;
            self.moved = Some((self.in_service, done_ns));
        }
    }

    /// How long a command arriving while the drive is busy holds the bus:
    /// DiskSim's command overhead and disconnect (`disk_read_arrive`,
    /// `disk_write_arrive`), chosen by the direction of the last command
    /// completed (not the one in service).
    fn command_phase_ns(&self, req: &DiskRequest) -> f64 {
        if let AccessTime::Constant { .. } = self.p.access {
            0.0
        } else if req.write {
            self.oh(self.write_overhead_ms(self.done_was_write)) + self.oh(self.p.overheads.write_disconnect)
        } else {
            let (_, miss_ms, disc_ms) = self.read_overheads_ms(self.done_was_write);
            self.oh(miss_ms) + self.oh(disc_ms)
        }
    }

    /// A read's hit, miss and disconnect overheads (ms), after a write or
    /// a read.
    fn read_overheads_ms(&self, after_write: bool) -> (f64, f64, f64) {
        let ov = &self.p.overheads;
        if after_write {
            (ov.read_hit_after_write, ov.read_miss_after_write, ov.read_disconnect_after_write)
        } else {
            (ov.read_hit_after_read, ov.read_miss_after_read, ov.read_disconnect_after_read)
        }
    }

    /// A write's command overhead (ms): the hit overhead with write-back
    /// caching, the miss overhead without, after a write or a read.
    fn write_overhead_ms(&self, after_write: bool) -> f64 {
        let ov = &self.p.overheads;
        let fast = self.cache_on && self.p.cache.fast_write_level > 0;
        match (fast, after_write) {
            (true, true) => ov.write_hit_after_write,
            (true, false) => ov.write_hit_after_read,
            (false, true) => ov.write_miss_after_write,
            (false, false) => ov.write_miss_after_read,
        }
    }

    /// When a command that reaches the drive at `at` has the bus: after
    /// the command in service's stretches and the command phases of those
    /// that reached the drive before it, one after another.
    fn past_the_bus(&self, at: f64) -> f64 {
        let mut a = self.reaches_drive(at);
        loop {
            let c = bus::clear_of(&self.arrived, a);
            if c > a && self.read_asks_at(c) {
                return c;
            }
            let b = self.reaches_drive(c);
            if b == a {
                return a;
            }
            a = b;
        }
    }

    /// When the bus was the read's to take for its connection `k` (an index
    /// in `bus_busy`): when it was first free for its data, or when its
    /// connection before ended.
    fn connection_free(&self, plan: &SendPlan, k: usize) -> f64 {
        if k == plan.data_from {
            plan.free_bus_ns
        } else {
            self.bus_busy[k - 1].1
        }
    }

    /// Whether the read in service asks for the bus back at `t`, the end of
    /// a command phase: its data came in during that phase, and a drive
    /// busy with a command's arrival asks for the bus only once it has
    /// disconnected. A command that waited for the bus meanwhile is granted
    /// it first (DiskSim's bus grants the bus to the waiting before the read
    /// has asked); once the read has asked, it goes before any command (its
    /// slot's priority).
    fn read_asks_at(&self, t: f64) -> bool {
        let Some(plan) = self.plan else { return false };
        let data = plan.data_from..plan.data_from + self.marks.len();
        let k = data.start + self.bus_busy[data.clone()].partition_point(|s| s.0 < t);
        if !data.contains(&k) || self.bus_busy[k].0 != t || (k == data.start && plan.connect.is_some()) {
            return false;
        }
        let free = self.connection_free(&plan, k);
        let sending = plan.sending(&self.spans, &self.arrived);
        let want = bus::wants(&sending, self.marks[k - data.start], free);
        let i = self.arrived.partition_point(|p| p.1 <= want);
        self.arrived.get(i).is_some_and(|p| p.0 <= want && p.1 == t)
    }

    /// Whether a command waits in the drive's queue at `at` (the end of a
    /// read's media work: then no read-ahead follows it, DiskSim's "no
    /// read-ahead while commands wait"). One held behind the bus the read in
    /// service holds is not there yet.
    fn queued_at(&self, at: f64) -> bool {
        self.queue.held.iter().any(|h| self.reaches_drive(h.arrival) <= at)
    }

    /// When a command the host issues at `at` reaches the drive: at once,
    /// or when the command in service lets go of the bus.
    fn reaches_drive(&self, at: f64) -> f64 {
        // the stretches are in time order and do not overlap (a connection
        // begins where or after the last one ended). A read that the media
        // outruns reconnects for every few blocks, so there may be hundreds:
        // no scan from the start.
        bus::clear_of(&self.bus_busy, at)
    }

    /// `Read any free blocks`: the sectors of `lba`'s track that passed
    /// under the head while it waited for `lba` (and lie before it on the
    /// track) are read into the segment too.
    fn read_free_blocks(&mut self, seg: usize, lba: u64, wait_ns: f64) {
        let Some(loc) = self.p.layout.locate(lba) else { return };
        let q = self.mech.period_ns / loc.spt as f64;
        let passed = (wait_ns / q) as u64;
        let got = self.p.layout.blocks_before_on_track(lba).min(passed);
        self.cache.extend_front(seg, lba.saturating_sub(got));
    }

    /// A write arriving at `t`; the drive is busy with other commands until
    /// `hda_free`.
    fn write(&mut self, lba: u64, n: u64, t: f64, hda_free: f64) -> (f64, u64) {
        let ov = &self.p.overheads;
        let fast = self.cache_on && self.p.cache.fast_write_level > 0;
        let oh = self.oh(self.write_overhead_ms(self.last_was_write));
        let prep = self.oh(ov.data_prep);
        let reconnect = self.oh(ov.first_reselect);
        let disconnect = self.oh(ov.write_disconnect);
        // DiskSim does not scale the minimum seek delay
        let min_seek = ov.min_seek_delay.max(0.0) * MS;
        let mut stop_wait = 0.0;
        let mut ra_held = 0.0f64;
        if self.cache_on {
            // a write empties the clean segments it overlaps that nothing
            // is filling (DiskSim `disk_buffer_set_segment`; the read-ahead
            // brought up to now first), then stops the read-ahead
            let doing =
                self.ra.advance(&mut self.mech, &self.p.layout, self.limits.contread, &mut self.cache, t);
            self.cache.invalidate(lba, n, self.ra.active.then_some(self.ra.seg));
            let (free, forced) = self.stop_readahead(doing, t);
            if forced {
                // the write waits for the read-ahead (it cannot even take
                // its data); its arm time counts from there
                ra_held = free;
            } else {
                stop_wait = (free - t).max(0.0);
            }
            if self.p.cache.read_hits_on_write_data {
                if let Some(i) = self.cache.select_write(lba, self.p.cache.combine_seq_writes) {
                    self.cache.reset(i, lba, SegState::Clean, false);
                    self.cache.extend(i, lba + n);
                    self.cache.touch(i);
                }
            }
        }
        // the data comes over the bus while the arm moves. A write-back
        // write still on its way to the media holds the drive: one write
        // that continues it (`Combine seq writes`) joins it at once; any
        // other waits — the drive disconnects and takes its data once the
        // arm is free (DiskSim serves only the oldest command it holds)
        let chain = self.write_until_ns > t;
        let appends =
            chain && self.p.cache.combine_seq_writes && self.write_until_end == lba && !self.appended;
        let held_until = if appends { hda_free } else { self.write_until_ns.max(hda_free) }
            .max(ra_held)
            .max(self.bus_idle_ns);
        let (bus_start, mech_at) = if held_until > t {
            let free = held_until.max(t + oh + disconnect);
            (free + reconnect + prep, held_until.max(t + oh))
        } else {
            (t + oh + prep, t + oh)
        };
        let min_buffered = self.write_min_buffered(n);
        let mech_start = (mech_at + stop_wait).max(self.arm_free_ns);
        // the drive holds the bus for the command and its data, or (busy)
        // disconnects after the command and reconnects for the data: then
        // the write is kept to be planned again (a command may take the bus
        // as it reconnects)
        let disconnects = held_until > t;
        let connect = if disconnects {
            self.bus_busy.push((t, t + oh + disconnect));
            bus_start - reconnect - prep
        } else {
            t
        };
        let wp = WritePlan {
            lba,
            n,
            connect,
            at: self.bus_busy.len(),
            lead_ns: bus_start - connect,
            mech: self.mech.state(),
            mech_start,
            min_seek,
            min_buffered,
            fast,
            appends,
        };
        self.wplan = disconnects.then_some(wp);
        self.write_data(&wp)
    }

    /// A write's data crossing from its connection and its media write
    /// ([`WritePlan`]): its stretches from `wp.at` on. A write-back write
    /// completes once its data is in (the bus held for its completion), its
    /// media write going on; a write-through write disconnects after its
    /// data and reconnects to report. Returns its completion and seek
    /// distance.
    fn write_data(&mut self, wp: &WritePlan) -> (f64, u64) {
        let ov = &self.p.overheads;
        let completion = self.oh(ov.write_completion);
        let (reconnect, disconnect) = (self.oh(ov.first_reselect), self.oh(ov.write_disconnect));
        let xfer = self.xfer_write_ns;
        let bus_start = wp.connect + wp.lead_ns;
        let bus_end = bus_start + wp.n as f64 * xfer;
        self.bus_busy.truncate(wp.at);
        self.bus_busy.push((wp.connect, bus_end));
        self.mech.restore(wp.mech);
        let a = self.mech.write(
            &self.p.layout,
            wp.lba,
            wp.n,
            wp.mech_start,
            wp.min_seek,
            self.p.cache.immed_write,
            |i| bus_start + (i + 1).max(wp.min_buffered) as f64 * xfer,
        );
        self.arm_free_ns = a.end_ns;
        if wp.fast {
            self.bus_busy.push((bus_end, bus_end + completion));
            self.write_until_ns = a.end_ns;
            self.write_until_end = wp.lba + wp.n;
            self.appended = wp.appends;
            (bus_end + completion, a.seek_cyl as u64)
        } else {
            self.bus_busy.push((bus_end, bus_end + disconnect));
            self.bus_busy.push((a.end_ns, a.end_ns + reconnect + completion));
            (a.end_ns + reconnect + completion, a.seek_cyl as u64)
        }
    }
}

/// Drops from `spans` the blocks before `lba`.
fn trim_spans(spans: &mut Vec<Span>, lba: u64) {
    let drop = spans.iter().take_while(|s| s.end() <= lba).count();
    spans.drain(..drop);
    if let Some(s) = spans.first_mut() {
        if s.lba < lba {
            let cut = lba - s.lba;
            s.start_ns += cut as f64 * s.sector_ns;
            s.lba = lba;
            s.count -= cut;
        }
    }
}

impl Hdd {
    /// Serves `req` (tag `id`), arriving at drive time `t`, the drive free
    /// from `hda_free`; records the completion.
    fn start(&mut self, id: u32, req: &DiskRequest, t: f64, hda_free: f64, now: TimeNs) -> super::Started {
        let (done, seek, hit) = self.serve(req, t, hda_free);
        self.arrived_at = t;
        let done = done.max(t);
        self.t_done = done;
        self.done_ns = (done.ceil() as TimeNs).max(now);
        self.queue.busy = true;
        self.in_service = id;
        // the commands issued with it or after it, still behind the bus,
        // reach the drive once it lets go of the bus; one that then finds
        // this command busy holds the bus for its command phase, as one
        // the host issues then would (the move folded into `done_ns`)
        for i in 0..self.queue.held.len() {
            let a = self.queue.held[i].arrival;
            if self.wplan.is_some_and(|w| w.connect == a) {
                // one that waited for the bus as a write started from the
                // queue reconnects for its data then: DiskSim grants the
                // bus to the command waiting for it before the write asks
                let r = self.queue.held[i].req;
                self.arrives_busy(&r, a);
                continue;
            }
            if a >= t {
                let mut b = self.reaches_drive(a);
                if b > a && b < self.t_done {
                    b = self.past_the_bus(b);
                    let r = self.queue.held[i].req;
                    self.arrives_busy(&r, b);
                }
                self.queue.held[i].arrival = b;
            }
        }
        self.moved = None;
        super::Started {
            id,
            start_ns: now,
            service: Service { done_ns: self.done_ns, seek_distance_cyl: seek, cache_hit: hit },
        }
    }

    /// Whether `req`, started now, would take the running read-ahead over
    /// (the segment `read` would choose is the one the read-ahead fills,
    /// and it holds or is reading the request's first block).
    fn takes_over(&self, req: &DiskRequest) -> bool {
        self.ra.active
            && matches!(self.read_hit(req), Some((Some(seg), hit)) if seg == self.ra.seg && hit != HitKind::None)
    }

    /// Whether `req`, started now, is a read the drive sends at once: one the
    /// cache holds whole, or one that takes the read-ahead over.
    fn sends_at_once(&self, req: &DiskRequest) -> bool {
        match self.read_hit(req) {
            Some((_, HitKind::Whole)) => true,
            Some((Some(seg), HitKind::Partial)) => self.ra.active && seg == self.ra.seg,
            _ => false,
        }
    }

    /// The segment `read` would choose for `req` started now, and the hit
    /// it finds there (`None` for a write, or with the cache off).
    fn read_hit(&self, req: &DiskRequest) -> Option<(Option<usize>, HitKind)> {
        if req.write || !self.cache_on {
            return None;
        }
        let (lba, n) = self.span_of(req);
        Some(self.cache.select_read(lba, n, self.read_choice()))
    }

    /// Commands issued while the last one held the bus reach the drive one
    /// at a time, in the order issued, once it lets go: the first of them,
    /// if the drive can send it at once (a whole hit, or a read taking the
    /// read-ahead over), connects and holds the bus in its turn, and the
    /// drive has no other to choose (DiskSim's times for several hits issued
    /// together, `tests/disk_queue.rs`). Starts it, the drive free from
    /// `free`.
    fn first_behind_the_bus(&mut self, free: f64, now: TimeNs) -> Option<super::Started> {
        let h0 = self.queue.held.first()?;
        if h0.arrival < self.t_done || !self.sends_at_once(&h0.req) {
            return None;
        }
        let h = self.queue.held.remove(0);
        Some(self.start(h.id, &h.req, h.arrival, free, now))
    }

    /// The blocks `req` reads or writes, clamped to the drive.
    fn span_of(&self, req: &DiskRequest) -> (u64, u64) {
        let cap = self.p.layout.capacity_sectors;
        let lba = req.lba_sector.min(cap.saturating_sub(1));
        (lba, (req.sectors.max(1) as u64).min(cap - lba))
    }

    /// The cache's rules for choosing a read's segment, with the segment the
    /// read-ahead fills (if it runs).
    fn read_choice(&self) -> ReadChoice {
        ReadChoice {
            almost_read_hits: self.p.cache.almost_read_hits,
            read_hits_on_write_data: self.p.cache.read_hits_on_write_data,
            prefetching: self.ra.active.then_some(self.ra.seg),
        }
    }

    /// The index of the held command to serve next, from drive time `d`
    /// (the queue's policy; the positional ones from the arm and the
    /// platter as the drive last recorded them, `platter`: see the module
    /// doc).
    fn pick(&mut self, d: f64, platter: Platter) -> usize {
        let lay = &self.p.layout;
        let cyl_of = |l: u64| lay.cylinder_of(l.min(lay.capacity_sectors - 1)).unwrap_or(0) as u64;
        let here_cyl = self.mech.cyl as u64;
        let here_lba = self.last_lba;
        if let Some(i) = self.queue.pick_simple(here_lba, here_cyl, cyl_of) {
            return i;
        }
        let (c0, h0) = (self.mech.cyl, self.mech.head);
        if let Some((cyl, head)) = platter.arm {
            self.mech.set_arm(cyl, head);
        }
        let any_before = self.queue.held.iter().any(|h| h.arrival < d);
        self.costs.clear();
        let mut least = f64::INFINITY;
        for h in &self.queue.held {
            let l = h.req.lba_sector.min(lay.capacity_sectors - 1);
            let cost = match h.loc {
                // not at the drive when it chooses (held behind the bus)
                _ if any_before && h.arrival >= d => f64::INFINITY,
                None => f64::INFINITY,
                Some(_)
                    if self.queue.policy == (queue::Policy::Sptf { cache: true })
                        && !h.req.write
                        && (0..self.cache.len()).any(|s| {
                            let g = self.cache.get(s);
                            g.state != SegState::Empty && g.start <= l && l + h.req.sectors as u64 <= g.end
                        }) =>
                {
                    0.0
                }
                Some(loc) => {
                    let from = d.max(h.arrival);
                    let st = self.mech.seek_ns(loc.cyl, loc.head, h.req.write);
                    if st > least + TIE_NS {
                        // the rest only adds: it cannot come near the least
                        f64::INFINITY
                    } else {
                        // from the platter as last recorded (DiskSim's
                        // estimate); one still on its way from its arrival
                        let at = if from > d { from } else { platter.at_ns.min(d) };
                        let (ca, ha) = (self.mech.cyl, self.mech.head);
                        self.mech.set_arm(loc.cyl, loc.head);
                        let mut c = st + self.mech.wait_ns(&loc, at + st) + (from - d);
                        self.mech.set_arm(ca, ha);
                        if self.queue.policy == queue::Policy::Satf {
                            c += h.req.sectors as f64 * self.mech.period_ns / loc.spt as f64;
                        }
                        c
                    }
                }
            };
            least = least.min(cost);
            self.costs.push(cost);
        }
        self.mech.set_arm(c0, h0);
        // a tie (two sectors coming round together, the estimates apart
        // only in their rounding): the first held of those within TIE_NS of
        // the least
        self.costs.iter().position(|&c| c <= least + TIE_NS).unwrap_or(0)
    }

    /// The platter and arm as the drive last recorded them: the end of the
    /// last sector its media read or wrote, the arm where it is.
    fn platter(&self) -> Platter {
        Platter { at_ns: self.mech.ref_ns(), arm: None }
    }

    /// The same while the read-ahead is `doing` something: DiskSim records
    /// the platter at every sector read, and the arm on the track it is
    /// seeking to, reading, or waiting on (`ReadAhead::advance` commits
    /// only whole tracks).
    fn platter_reading_ahead(&self, doing: Doing) -> Platter {
        let at_block = |b: u64| self.p.layout.locate(b).map(|l| (l.cyl, l.head));
        match doing {
            Doing::Finished(_) => self.platter(),
            Doing::Seek { .. } | Doing::Latency { .. } => {
                Platter { at_ns: self.mech.ref_ns(), arm: at_block(self.ra.next) }
            }
            Doing::Sector { done, start_ns, .. } => Platter {
                at_ns: if done > 0 { start_ns } else { self.mech.ref_ns() },
                arm: at_block(self.ra.next + done),
            },
        }
    }
}

/// Where the positional policies estimate from ([`Hdd::pick`]): the
/// platter's last recorded time and, if not the arm's, the track.
#[derive(Debug, Clone, Copy)]
struct Platter {
    at_ns: f64,
    arm: Option<(u32, u32)>,
}

impl Hdd {
    /// The last command has completed at `now`: starts the next one the
    /// drive holds ([`super::Device::complete`]).
    fn start_next(&mut self, now: TimeNs) -> Option<super::Started> {
        self.queue.busy = false;
        if self.queue.held.is_empty() {
            return None;
        }
        // When the next command may start. DiskSim runs no read-ahead while
        // commands wait: if one was held before the last command's media work
        // ended, the arm is free then; one that came later found the
        // read-ahead running, which stops (by its rules) once the last
        // command has completed. A write-back write holds the arm until its
        // media write is done. A read keeps the arm until it has completed
        // without preseeking (DiskSim releases its HDA then: on a slow bus the
        // next read's seek waits for the last one's data to cross), until its
        // completion is sent with level 1, and only to its media's end with 2.
        let read_holds = match (self.last_was_write, self.p.overheads.preseeking) {
            (true, _) | (false, 2..) => 0.0,
            (false, 1) => self.t_done - self.oh(self.p.overheads.read_completion),
            (false, 0) => self.t_done,
        };
        self.arm_free_ns = self.arm_free_ns.max(read_holds);
        let mut d = self.arm_free_ns.max(self.write_until_ns);
        if self.ra.active {
            let first_held = self.queue.held.iter().map(|h| h.arrival).fold(f64::INFINITY, f64::min);
            if first_held <= self.ra.from_ns {
                self.ra.active = false;
                self.cache.set_state(self.ra.seg, SegState::Clean);
                d = self.ra.from_ns.max(self.write_until_ns).max(read_holds);
            } else {
                let at = self.t_done;
                let doing = self.ra.advance(
                    &mut self.mech,
                    &self.p.layout,
                    self.limits.contread,
                    &mut self.cache,
                    at,
                );
                let free = at.max(self.write_until_ns);
                if let Some(started) = self.first_behind_the_bus(free, now) {
                    return Some(started);
                }
                // the command it picks now: a read whose first block the
                // read-ahead has read (or, with almost-read hits, is reading)
                // takes it over, as one arriving now would (`read`); any
                // other stops it
                let i = self.pick(free, self.platter_reading_ahead(doing));
                if self.takes_over(&self.queue.held[i].req) {
                    let h = self.queue.held.remove(i);
                    return Some(self.start(h.id, &h.req, h.arrival, free, now));
                }
                d = self.stop_readahead(doing, at).0.max(free);
            }
        } else if let Some(started) = self.first_behind_the_bus(d, now) {
            return Some(started);
        }
        let i = self.pick(d, self.platter());
        let h = self.queue.held.remove(i);
        Some(self.start(h.id, &h.req, h.arrival, d, now))
    }
}

impl super::Device for Hdd {
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        let t = self.arrival(start_ns);
        self.start(u32::MAX, req, t, t, start_ns).service
    }
    fn submit(&mut self, id: u32, req: &DiskRequest, now: TimeNs) -> Option<super::Started> {
        if self.queue.busy {
            let lay = &self.p.layout;
            let loc = lay.locate(req.lba_sector.min(lay.capacity_sectors - 1));
            // it reaches the drive once the command in service, and the
            // commands that reached it before, let go of the bus. One the
            // host issues as the last completion is reported reaches the
            // drive then, before the command started from the queue sends
            // anything (DiskSim's order of events at that instant)
            let arrival = match self.made_way {
                Some((t_done, done_ns))
                    if now == done_ns && (self.plan.is_some() || self.wplan.is_some()) =>
                {
                    bus::clear_of(&self.arrived, t_done)
                }
                _ => self.past_the_bus(now as f64),
            };
            self.queue.held.push(queue::Held { id, req: *req, arrival, loc });
            if arrival < self.t_done {
                self.arrives_busy(req, arrival);
            }
            return None;
        }
        let t = self.arrival(now);
        self.made_way = None;
        Some(self.start(id, req, t, t, now))
    }
    fn complete(&mut self, now: TimeNs) -> Option<super::Started> {
        let last = (self.t_done, self.done_ns);
        let started = self.start_next(now);
        // if the started command reached the drive only as the last let go
        // of the bus (it was held behind the bus), it goes first: no command
        // issued now takes the bus before it
        self.made_way = started.filter(|_| self.arrived_at < last.0).map(|_| last);
        started
    }
    fn take_moved(&mut self) -> Option<(u32, TimeNs)> {
        self.moved.take()
    }
    fn max_outstanding(&self) -> usize {
        self.queue.depth as usize
    }
    fn capacity_sectors(&self) -> u64 {
        self.p.layout.capacity_sectors
    }
    fn position_of(&self, lba_sector: u64) -> u64 {
        self.p
            .layout
            .cylinder_of(lba_sector.min(self.p.layout.capacity_sectors.saturating_sub(1)))
            .map_or(0, |c| c as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Device;
    use super::*;

    fn drive(cache: bool) -> Hdd {
        let p = super::super::presets::preset("cheetah-15k5").unwrap().unwrap();
        Hdd::new(p, cache, Rng::new(7))
    }

    fn rd(lba: u64, sectors: u32) -> DiskRequest {
        DiskRequest { lba_sector: lba, sectors, write: false }
    }

    #[test]
    fn rates_read_the_zones_and_the_interface_time() {
        // the Cheetah 15K.5: 1,200 sectors per track outside at 15,020 rpm; no interface time
        let r = drive_params("cheetah-15k5", &[]).unwrap().rates();
        assert!((r.media_outer_mb_s - 512.0 * 1200.0 * 15020.0 / 60.0 / 1e6).abs() < 1e-9, "{r:?}");
        // and 720 in its innermost zone
        assert!((r.media_inner_mb_s - 512.0 * 720.0 * 15020.0 / 60.0 / 1e6).abs() < 1e-9, "{r:?}");
        assert_eq!(r.interface_mb_s, None);
        // a datasheet preset's Ultra320 interface, and an override of it
        assert!(
            (drive_params("cheetah-15k4", &[]).unwrap().rates().interface_mb_s.unwrap() - 320.0).abs() < 1e-6
        );
        let slow =
            drive_params("cheetah-15k4", &[("Bulk sector transfer time".into(), 0.1)]).unwrap().rates();
        assert!((slow.interface_mb_s.unwrap() - 5.12).abs() < 1e-9, "{slow:?}");
        let e = drive_params("no-such-drive", &[]).unwrap_err().to_string();
        assert!(e.contains("disk.model") && e.contains("cheetah-15k5"), "{e}");
    }

    #[test]
    fn read_ahead_turns_the_next_sequential_read_into_a_hit() {
        let mut d = drive(true);
        let a = d.service(&rd(1_000_000, 8), 0);
        assert!(!a.cache_hit);
        // 10 ms later the drive has read ahead to the end of the track
        let b = d.service(&rd(1_000_008, 8), a.done_ns + 10_000_000);
        assert!(b.cache_hit);
        assert!(b.done_ns - (a.done_ns + 10_000_000) < 300_000);
        // without the cache the same read is a mechanical access
        let mut d = drive(false);
        let a = d.service(&rd(1_000_000, 8), 0);
        let b = d.service(&rd(1_000_008, 8), a.done_ns + 10_000_000);
        assert!(!b.cache_hit);
        assert!(b.done_ns - (a.done_ns + 10_000_000) > 300_000);
    }

    #[test]
    fn random_reads_cost_seek_plus_rotation_and_are_deterministic() {
        let run = || {
            let mut d = drive(false);
            let mut t = 0u64;
            let mut sum = 0u64;
            let mut x = 12345u64;
            for _ in 0..2000 {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let lba = (x >> 11) % (d.capacity_sectors() - 8);
                let s = d.service(&rd(lba, 8), t);
                sum += s.done_ns - t;
                t = s.done_ns + 1_000_000;
            }
            sum / 2000
        };
        let mean = run();
        assert_eq!(mean, run());
        // 15k rpm: 2 ms mean rotation + ~3.6 ms mean seek (extracted curve)
        assert!((4_500_000..7_000_000).contains(&mean), "{mean}");
    }

    #[test]
    fn extra_write_disconnect_holds_the_media_until_enough_data_is_buffered() {
        // A slow platter (600 rpm: 100 ms a turn, sectors of ~0.17 ms), a
        // bus a little faster (0.1 ms a block), no cache (a write completes
        // when its media write is done). Without the rule each block only
        // needs its own data; with `Extra write disconnect` an 8-block
        // write may not touch the media before all 8 blocks are buffered,
        // so a first sector that comes round in between costs a turn.
        let mk = |extra: bool| {
            let mut p = super::super::presets::preset("cheetah-15k5").unwrap().unwrap();
            p.rpm = 600.0;
            p.rpm_error_pct = 0.0;
            p.xfer_write_ms = 0.1;
            p.overheads.extra_write_disconnect = extra;
            Hdd::new(p, false, Rng::new(7))
        };
        assert_eq!(mk(true).write_min_buffered(8), 8);
        assert_eq!(mk(true).write_min_buffered(30), 10);
        assert_eq!(mk(true).write_min_buffered(64), 15);
        assert_eq!(mk(false).write_min_buffered(64), 1);
        let wr = |lba: u64| DiskRequest { lba_sector: lba, sectors: 8, write: true };
        let mut turns_lost = 0;
        for gap_us in (0..100_000u64).step_by(250) {
            let (mut a, mut b) = (mk(true), mk(false));
            let ra = a.service(&rd(1_000_000, 8), 0);
            let rb = b.service(&rd(1_000_000, 8), 0);
            assert_eq!(ra.done_ns, rb.done_ns);
            let t = ra.done_ns + gap_us * 1000;
            let da = a.service(&wr(1_000_008), t).done_ns - t;
            let db = b.service(&wr(1_000_008), t).done_ns - t;
            // the 8 blocks of data alone take 0.8 ms to arrive
            assert!(da > 800_000, "{gap_us}: {da}");
            assert!(da >= db, "{gap_us}: {da} < {db}");
            if da > db {
                // the only way to be later is a whole turn
                assert!(da - db > 99_000_000, "{gap_us}: {da} vs {db}");
                turns_lost += 1;
            }
        }
        assert!(turns_lost > 0);
    }

    #[test]
    fn a_command_arriving_while_a_read_sends_holds_the_bus_for_its_command_phase() {
        // the barracuda-7200.10 preset: 0.3 ms read-miss overhead, a
        // 300 MB/s bus and a 32-deep queue; a 256-block read, then another
        // command issued while the read's blocks come off the media
        let p = super::super::presets::preset("barracuda-7200.10").unwrap().unwrap();
        let mut d = Hdd::with_start(p.clone(), true, Start::Index, Rng::new(1));
        let first = d.submit(0, &rd(1_000_000, 256), 0).unwrap();
        assert!(d.take_moved().is_none());
        // alone, the read completes at `first`; issue the other 0.1 ms
        // before, while the last blocks come off the media (issued earlier,
        // the blocks that came in during its command phase would cross the
        // bus, 3.5 times faster than the media, before the last is read)
        let at = first.service.done_ns - 100_000;
        assert!(d.submit(1, &rd(50_000_000, 8), at).is_none());
        let (id, moved_ns) = d.take_moved().expect("the read in service moves");
        assert_eq!(id, 0);
        // its blocks still to send wait for the 0.3 ms command phase
        let late = moved_ns - first.service.done_ns;
        assert!((200_000..=260_000).contains(&late), "{late}");
        assert!(d.take_moved().is_none(), "taken once");
        // the next command starts when the moved completion is reported
        let next = d.complete(moved_ns).unwrap();
        assert_eq!(next.id, 1);
        // a command issued after the read's last block has crossed moves nothing
        let mut d = Hdd::with_start(p.clone(), true, Start::Index, Rng::new(1));
        let first = d.submit(0, &rd(1_000_000, 256), 0).unwrap();
        assert!(d.submit(1, &rd(50_000_000, 8), first.service.done_ns).is_none());
        assert!(d.take_moved().is_none());
        // nor does one whose command phase is empty (no miss overhead)
        let mut q = p;
        q.overheads.read_miss_after_read = 0.0;
        let mut d = Hdd::with_start(q, true, Start::Index, Rng::new(1));
        let first = d.submit(0, &rd(1_000_000, 256), 0).unwrap();
        assert!(d.submit(1, &rd(50_000_000, 8), first.service.done_ns - 100_000).is_none());
        assert!(d.take_moved().is_none());
    }

    #[test]
    fn unknown_model_names_the_presets() {
        let e = Hdd::from_model("floppy", true, &BTreeMap::new(), Rng::new(1)).err().unwrap().to_string();
        assert!(e.contains("unknown drive model `floppy`"), "{e}");
        assert!(e.contains("cheetah-15k5") && e.contains(".diskspecs/.parv"), "{e}");
    }
}
