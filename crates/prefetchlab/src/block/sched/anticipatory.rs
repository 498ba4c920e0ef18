//! The Linux anticipatory I/O scheduler (as-iosched.c, kernels 2.6.0–2.6.32)
//! with the kernel defaults (models.md §2.2), at HZ = 1000.
//!
//! **Anticipation.** After a read (reads are synchronous) from stream P
//! completes, the disk may be kept idle for up to `antic_expire` = 6 ms waiting
//! for P's next read instead of seeking away to serve someone else ("deceptive
//! idleness"). It waits only while nothing better is on hand
//! (`as_can_anticipate` / `as_can_break_anticipation`); the wait is *broken* —
//! and the candidate dispatched — by:
//! * a request from P itself (any direction: a write from P means P will not
//!   read soon), or P already having requests queued — in any disk's queue,
//!   not only this one (see *Per-process history*);
//! * the wait having run `antic_expire` since P's read completed;
//! * a read "close" to where the last read of the batch ended (`as_close_req`):
//!   within 8192 sectors (4 MiB) ahead or 4096 behind, a window that doubles
//!   for every millisecond already waited, or nearer than P's mean seek
//!   distance — so a *seeky* stream's wait is broken by almost any read, while
//!   a sequential stream's is not. A close read from another stream also
//!   counts as a sample of P's history (cooperating processes);
//! * P's mean think time being longer than `antic_expire` (a stream with no
//!   history yet is judged by the mean of new streams' first think times).
//!
//! While waiting, [`Pick::WaitUntil`] names the end of the window (P's
//! completion + 6 ms). If P's last read has not completed yet (possible when
//! the device holds several requests) the kernel waits for that completion
//! before starting the timer; that state answers [`Pick::Idle`] — a completion
//! is pending and the queue asks again after it.
//!
//! **Per-process history** (`as_update_iohist`, at each read's arrival), in the
//! kernel's fixed point (1.0 = 256) decaying averages with weight 7/8 for the
//! past: the think time — from P's last read completion to its next read,
//! counted only when P has nothing queued, else 0 — capped at `MAX_THINKTIME`
//! = 20 ms; and the seek distance from the end of P's previous read to the
//! start of this one, clipped to 4 × mean + 1 GiB for the first samples and
//! 4 × mean + 64 MiB after. This state is the kernel's `as_io_context`, which
//! hangs off the *task's* `io_context` (`as_get_io_context`), not off a queue:
//! one per process, shared by the schedulers of every disk the process reads
//! from ([`IoContexts`], built once per array by `sched::build_all`). So, as in
//! 2.6.18 below md, P's queued count (`aic->nr_queued`) counts its reads in
//! every member's queue, its think time runs from its last completion on any
//! disk to its next read on any disk, and its seek distance is taken from the
//! end of its previous read whatever disk that was on. The queue-wide means of
//! new processes' first samples (`new_ttime_mean`, `new_seek_mean`) and
//! everything else stay per queue (`as_data`). Kept in a flat `Vec` indexed by
//! stream, grown when a larger id appears.
//!
//! **Batches and deadlines** (`as_dispatch_request`). Reads and writes are
//! served in batches: a read batch runs `read_batch_expire` = 500 ms, a write
//! batch `write_batch_expire` = 125 ms or a number of requests auto-tuned as in
//! the kernel (starting at 12). When a batch expires and both directions wait,
//! the direction switches, starting from the oldest request of the new
//! direction, and the first request of a new direction waits until the device
//! has drained the old one. FIFO deadlines — `read_expire` = 125 ms,
//! `write_expire` = 250 ms, checked at most once per expire interval per
//! direction — make the oldest request of the batch's direction go first, and
//! an expired read is served rather than anticipated for. Within a batch the
//! next request comes from a one-way elevator from where the last request of
//! that direction ended (`as_choose_req`): the nearest one ahead, or one behind
//! by at most `MAXBACK` = 1 Mi sectors at twice the cost; if all are further
//! behind, the lowest one (wrap). Equal costs prefer the higher sector, then
//! the earlier arrival.
//!
//! Modelling choices:
//! * Streams never exit, so the kernel's exit-probability heuristics
//!   (`exit_prob`, `exit_no_coop`) never fire and are left out.
//! * A dispatched request goes straight to the device, so the kernel's
//!   per-process `nr_dispatched` (requests on the dispatch list not yet taken
//!   by the driver: raised in `as_move_to_dispatch`, lowered in
//!   `as_activate_request`) is always zero; the scheduler-wide count of
//!   requests on the device (`nr_dispatched` of `as_data`) is kept.
//! * A stream is a process (2.6.18 gives every task its own `io_context`;
//!   threads share one only from 2.6.25's CLONE_IO).
//! * Times are nanoseconds; where the kernel counts jiffies inside a formula
//!   (the close window doubling per jiffy) a jiffy is 1 ms. Means are rounded
//!   to nearest.
//! * The kernel caches the next request in sort order; here it is recomputed
//!   at each pick with the same rule, from the pending requests.
//! * The per-stream queued counts and the number of queued reads and writes
//!   are kept up to date by `on_add` (arrivals only) and `on_dispatch`, not
//!   recounted at each pick: the queue only ever merges a part into one
//!   request, never two queued requests, so no request leaves the queue
//!   without a dispatch (checked against the queue in debug builds).
//! * `on_add` for a request already queued (a merge) changes nothing, as the
//!   kernel only re-sorts a merged request.
//!
//! Contract with the queue: a `Dispatch` answer is acted on (`on_dispatch`)
//! before the next `pick`; after a completion (`on_complete`) and after an
//! arrival (`on_add`) the queue calls `pick` again if work is pending.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;
use crate::units::NS_PER_MS;
use std::cell::RefCell;
use std::rc::Rc;

/// Longest wait for the anticipated stream's next read (HZ/150).
pub const ANTIC_EXPIRE_NS: TimeNs = 6 * NS_PER_MS;
/// Read FIFO deadline (HZ/8).
pub const READ_EXPIRE_NS: TimeNs = 125 * NS_PER_MS;
/// Write FIFO deadline (HZ/4).
pub const WRITE_EXPIRE_NS: TimeNs = 250 * NS_PER_MS;
/// Length of a read batch (HZ/2).
pub const READ_BATCH_EXPIRE_NS: TimeNs = 500 * NS_PER_MS;
/// Target length of a write batch (HZ/8).
pub const WRITE_BATCH_EXPIRE_NS: TimeNs = 125 * NS_PER_MS;
/// Think times are counted up to this (HZ/50).
pub const MAX_THINKTIME_NS: TimeNs = 20 * NS_PER_MS;
/// Farthest backward seek the elevator takes instead of wrapping, in sectors.
pub const MAXBACK_SECTORS: u64 = 1024 * 1024;
/// A backward seek counts this many times its distance.
pub const BACK_PENALTY: u64 = 2;
/// Requests in the first write batch: write_batch_expire / 10 in jiffies.
pub const INITIAL_WRITE_BATCH_COUNT: u32 = 12;
/// Base width of the "close" window of `as_close_req`, in sectors.
const CLOSE_SECTORS: u64 = 8192;
/// Fixed-point one of the decaying averages.
const FIXED_ONE: u64 = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AnticStatus {
    /// Not anticipating.
    Off,
    /// Anticipating, but P's last read has not completed yet.
    WaitReq,
    /// Anticipating: the window runs from P's completion.
    WaitNext,
    /// Found a candidate or timed out; dispatch normally.
    Finished,
}

/// One stream's I/O history (the kernel's `as_io_context`).
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamStats {
    ttime_total: u64,
    ttime_samples: u64,
    ttime_mean_ns: u64,
    seek_total: u64,
    seek_samples: u64,
    seek_mean_sectors: u64,
    /// End of the stream's last read, to measure its next seek.
    last_request_end: u64,
    /// Completion of the stream's last read.
    last_end_request_ns: TimeNs,
    /// The stream has issued a read.
    io_started: bool,
    /// A read of the stream has completed.
    io_running: bool,
    /// Requests of the stream waiting in the queue.
    nr_queued: u32,
}

/// The per-process half of AS: every stream's `as_io_context`, one table
/// shared by the schedulers of all disk queues, as the kernel hangs it off
/// the task's `io_context` (`as_get_io_context`), not off a queue.
#[derive(Clone, Default)]
pub struct IoContexts(Rc<RefCell<Vec<StreamStats>>>);

impl IoContexts {
    /// A table for `streams` streams (larger ids grow it).
    pub fn new(streams: usize) -> Self {
        IoContexts(Rc::new(RefCell::new(vec![StreamStats::default(); streams])))
    }
}

/// The anticipatory scheduler's state for one queue.
pub struct Anticipatory {
    /// The per-process histories and counts, shared with the other queues.
    streams: IoContexts,
    /// By request id: is it in the queue? (To tell merges from arrivals
    /// without searching; ids are the queue's slab handles, so few.)
    is_queued: Vec<bool>,
    /// Queued requests by direction (reads, writes).
    nr_queued_dir: [u32; 2],

    antic_status: AnticStatus,
    /// When P's last read completed (the window's start).
    antic_start_ns: TimeNs,
    /// P: the stream of the last dispatched read (`None` after a write).
    io_context: Option<u32>,
    /// A request of P completed since the last dispatch.
    ioc_finished: bool,
    /// End sector of the last dispatched read / write.
    last_sector: [u64; 2],

    /// Direction of the current batch (the kernel starts zeroed: writes).
    batch_write: bool,
    changed_batch: bool,
    new_batch: bool,
    current_batch_expires_ns: TimeNs,
    last_check_fifo_ns: [TimeNs; 2],
    write_batch_count: u32,
    current_write_count: u32,
    write_batch_idled: bool,
    /// Requests on the device.
    nr_dispatched: u32,

    /// Mean first think time / seek of new streams (fixed point totals).
    new_ttime_total: u64,
    new_ttime_mean_ns: u64,
    new_seek_total: u64,
    new_seek_mean_sectors: u64,
}

fn dir(write: bool) -> usize {
    write as usize
}

fn fifo_expire_ns(write: bool) -> TimeNs {
    if write {
        WRITE_EXPIRE_NS
    } else {
        READ_EXPIRE_NS
    }
}

fn batch_expire_ns(write: bool) -> TimeNs {
    if write {
        WRITE_BATCH_EXPIRE_NS
    } else {
        READ_BATCH_EXPIRE_NS
    }
}

/// What the batch logic settled on before the final deadline / batch-change
/// checks of `as_dispatch_request`.
enum Step {
    /// This request, unless the FIFO check overrides it.
    Candidate(usize),
    /// The oldest request of the batch's direction (an expired read found
    /// before anticipating).
    FifoExpired,
    /// Do not dispatch.
    Answer(Pick),
}

impl Anticipatory {
    /// A scheduler for a disk served by `streams` streams (ids `0..streams`;
    /// larger ids are accepted and grow the tables), with its own table of
    /// process histories (a single disk; see [`Anticipatory::sharing`]).
    pub fn new(streams: usize) -> Self {
        Self::sharing(IoContexts::new(streams))
    }

    /// A scheduler for one of several queues whose requests come from the
    /// same processes: `contexts` is the table every queue's scheduler shares.
    pub fn sharing(contexts: IoContexts) -> Self {
        Anticipatory {
            streams: contexts,
            is_queued: Vec::with_capacity(1024),
            nr_queued_dir: [0; 2],
            antic_status: AnticStatus::Off,
            antic_start_ns: 0,
            io_context: None,
            ioc_finished: false,
            last_sector: [0; 2],
            batch_write: true,
            changed_batch: false,
            new_batch: false,
            current_batch_expires_ns: READ_BATCH_EXPIRE_NS,
            last_check_fifo_ns: [0; 2],
            write_batch_count: INITIAL_WRITE_BATCH_COUNT,
            current_write_count: 0,
            write_batch_idled: false,
            nr_dispatched: 0,
            new_ttime_total: 0,
            new_ttime_mean_ns: 0,
            new_seek_total: 0,
            new_seek_mean_sectors: 0,
        }
    }

    fn ensure_stream(&mut self, stream: u32) {
        let need = stream as usize + 1;
        let mut t = self.streams.0.borrow_mut();
        if t.len() < need {
            t.resize(need, StreamStats::default());
        }
    }

    /// A copy of one stream's history and counts.
    fn st(&self, stream: usize) -> StreamStats {
        self.streams.0.borrow()[stream]
    }

    /// The next request of one direction in elevator order (`as_choose_req`
    /// applied to all of them).
    fn next_in_sort(&self, queue: &[Queued], write: bool) -> Option<usize> {
        let last = self.last_sector[dir(write)];
        // The best request ahead or behind by at most MAXBACK: lowest
        // (cost, u64::MAX - sector) as one integer, the earliest on a tie;
        // failing that, the lowest sector of all (the wrap), the earliest
        // on a tie.
        let mut near: Option<(u128, usize)> = None;
        let mut wrap: Option<(u64, usize)> = None;
        for (i, r) in queue.iter().enumerate() {
            if r.write != write {
                continue;
            }
            let s = r.lba_sector;
            let cost = if s >= last {
                s - last
            } else if s + MAXBACK_SECTORS >= last {
                (last - s) * BACK_PENALTY
            } else {
                if wrap.is_none_or(|(w, _)| s < w) {
                    wrap = Some((s, i));
                }
                continue;
            };
            let key = (cost as u128) << 64 | (u64::MAX - s) as u128;
            if near.is_none_or(|(k, _)| key < k) {
                near = Some((key, i));
            }
        }
        near.map(|(_, i)| i).or(wrap.map(|(_, i)| i))
    }

    /// The oldest request of one direction (the FIFO head).
    fn oldest(queue: &[Queued], write: bool) -> Option<usize> {
        let mut best: Option<usize> = None;
        for (i, r) in queue.iter().enumerate() {
            if r.write == write && best.is_none_or(|b| r.arrival_ns < queue[b].arrival_ns) {
                best = Some(i);
            }
        }
        best
    }

    /// `as_fifo_expired`: has the oldest request of this direction passed its
    /// deadline? Looked at no more than once per expire interval.
    fn fifo_expired(&mut self, queue: &[Queued], write: bool, now_ns: TimeNs) -> bool {
        let expire = fifo_expire_ns(write);
        if now_ns.abs_diff(self.last_check_fifo_ns[dir(write)]) < expire {
            return false;
        }
        self.last_check_fifo_ns[dir(write)] = now_ns;
        match Self::oldest(queue, write) {
            Some(o) => now_ns > queue[o].arrival_ns.saturating_add(expire),
            None => false,
        }
    }

    /// `as_batch_expired`.
    fn batch_expired(&self, now_ns: TimeNs) -> bool {
        if self.changed_batch || self.new_batch {
            return false;
        }
        now_ns > self.current_batch_expires_ns || (self.batch_write && self.current_write_count == 0)
    }

    fn antic_expired(&self, now_ns: TimeNs) -> bool {
        now_ns.abs_diff(self.antic_start_ns) >= ANTIC_EXPIRE_NS
    }

    /// `as_update_thinktime`.
    fn update_thinktime(&mut self, stream: usize, ttime_ns: u64) {
        let mut t = self.streams.0.borrow_mut();
        let st = &mut t[stream];
        if st.ttime_samples == 0 {
            self.new_ttime_total = (7 * self.new_ttime_total + FIXED_ONE * ttime_ns) / 8;
            self.new_ttime_mean_ns = self.new_ttime_total / FIXED_ONE;
        }
        st.ttime_samples = (7 * st.ttime_samples + FIXED_ONE) / 8;
        st.ttime_total = (7 * st.ttime_total + FIXED_ONE * ttime_ns) / 8;
        st.ttime_mean_ns = (st.ttime_total + st.ttime_samples / 2) / st.ttime_samples;
    }

    /// `as_update_seekdist`.
    fn update_seekdist(&mut self, stream: usize, sdist: u64) {
        let mut t = self.streams.0.borrow_mut();
        let st = &mut t[stream];
        if st.seek_samples == 0 {
            self.new_seek_total =
                (7 * self.new_seek_total).saturating_add(FIXED_ONE.saturating_mul(sdist)) / 8;
            self.new_seek_mean_sectors = self.new_seek_total / FIXED_ONE;
        }
        // Keep one odd far seek from dominating.
        let slack = if st.seek_samples <= 60 { 2 * 1024 * 1024 } else { 2 * 1024 * 64 };
        let sdist = sdist.min(st.seek_mean_sectors.saturating_mul(4).saturating_add(slack));
        st.seek_samples = (7 * st.seek_samples + FIXED_ONE) / 8;
        st.seek_total = (7 * st.seek_total).saturating_add(FIXED_ONE.saturating_mul(sdist)) / 8;
        st.seek_mean_sectors = (st.seek_total + st.seek_samples / 2) / st.seek_samples;
    }

    /// `as_update_iohist`: a read `req` counts as `stream`'s next read.
    fn update_iohist(&mut self, stream: usize, req: &Queued, now_ns: TimeNs) {
        if req.write {
            return;
        }
        let st = self.st(stream);
        if st.io_running || st.io_started {
            let mut ttime_ns = 0;
            if st.io_running && st.nr_queued == 0 {
                ttime_ns = now_ns.saturating_sub(st.last_end_request_ns).min(MAX_THINKTIME_NS);
            }
            self.update_thinktime(stream, ttime_ns);
            self.update_seekdist(stream, req.lba_sector.abs_diff(st.last_request_end));
        }
        let mut t = self.streams.0.borrow_mut();
        let st = &mut t[stream];
        st.last_request_end = req.end_sector;
        st.io_started = true;
    }

    /// `as_close_req`: is read `req` near enough to where the last request of
    /// the batch ended to be worth serving instead of waiting for P?
    fn close_req(&self, p: usize, req: &Queued, now_ns: TimeNs) -> bool {
        let last = self.last_sector[dir(self.batch_write)];
        let next = req.lba_sector;
        let delay_ms = if self.antic_status == AnticStatus::Off || !self.ioc_finished {
            0
        } else {
            now_ns.saturating_sub(self.antic_start_ns) / NS_PER_MS
        };
        let delta = if delay_ms == 0 {
            CLOSE_SECTORS
        } else if delay_ms <= ANTIC_EXPIRE_NS / NS_PER_MS {
            // The kernel also requires delay <= 20 ms, implied by the 6 ms window.
            CLOSE_SECTORS << delay_ms
        } else {
            return true;
        };
        if last <= next.saturating_add(delta / 2) && next <= last.saturating_add(delta) {
            return true;
        }
        let seek = last.abs_diff(next);
        let st = self.st(p);
        let expected = if st.seek_samples == 0 { self.new_seek_mean_sectors } else { st.seek_mean_sectors };
        expected > seek
    }

    /// `as_can_break_anticipation`: stop (or do not start) waiting for P,
    /// given `req` (a new arrival, or the best candidate on hand).
    fn can_break_anticipation(&mut self, req: Option<&Queued>, now_ns: TimeNs) -> bool {
        let Some(p) = self.io_context else {
            return true;
        };
        let p = p as usize;
        if req.is_some_and(|r| r.stream as usize == p) {
            return true;
        }
        if self.ioc_finished && self.antic_expired(now_ns) {
            return true;
        }
        // Counted over every queue: the process has a read waiting on any
        // disk (`atomic_read(&aic->nr_queued) > 0`).
        if self.st(p).nr_queued > 0 {
            return true;
        }
        if let Some(r) = req {
            if !r.write && self.close_req(p, r, now_ns) {
                // A cooperating stream's close read counts in P's history.
                self.update_iohist(p, r, now_ns);
                return true;
            }
        }
        let st = self.st(p);
        if st.ttime_samples == 0 {
            self.new_ttime_mean_ns > ANTIC_EXPIRE_NS
        } else {
            st.ttime_mean_ns > ANTIC_EXPIRE_NS
        }
    }

    /// `as_can_anticipate`: keep waiting instead of dispatching `req`?
    fn can_anticipate(&mut self, req: Option<&Queued>, now_ns: TimeNs) -> bool {
        if self.io_context.is_none() || self.antic_status == AnticStatus::Finished {
            return false;
        }
        !self.can_break_anticipation(req, now_ns)
    }

    /// `as_antic_waitreq` / `as_antic_waitnext`: start waiting; the answer.
    fn start_waiting(&mut self) -> Pick {
        if self.antic_status == AnticStatus::Off {
            self.antic_status = if self.ioc_finished { AnticStatus::WaitNext } else { AnticStatus::WaitReq };
        }
        self.waiting_answer()
    }

    fn waiting_answer(&self) -> Pick {
        match self.antic_status {
            AnticStatus::WaitNext => Pick::WaitUntil(self.antic_start_ns + ANTIC_EXPIRE_NS),
            _ => Pick::Idle,
        }
    }

    /// `update_write_batch`: tune the write batch length from how long the
    /// last one took.
    fn update_write_batch(&mut self, now_ns: TimeNs) {
        let batch = WRITE_BATCH_EXPIRE_NS as i64;
        let write_time = (now_ns as i64 - self.current_batch_expires_ns as i64 + batch).max(0);
        if write_time > batch && !self.write_batch_idled {
            if write_time > batch * 3 {
                self.write_batch_count /= 2;
            } else {
                self.write_batch_count = self.write_batch_count.saturating_sub(1);
            }
        } else if write_time < batch && self.current_write_count == 0 {
            if batch > write_time * 3 {
                self.write_batch_count = self.write_batch_count.saturating_mul(2);
            } else {
                self.write_batch_count += 1;
            }
        }
        self.write_batch_count = self.write_batch_count.max(1);
    }

    /// Whether the queued counts agree with the queue (what the scheduler
    /// is told by `on_add` and `on_dispatch` is all that changes it).
    fn counts_match(&self, queue: &[Queued]) -> bool {
        let t = self.streams.0.borrow();
        let mut per_stream = vec![0u32; t.len()];
        let mut per_dir = [0u32; 2];
        for r in queue {
            match per_stream.get_mut(r.stream as usize) {
                Some(n) => *n += 1,
                None => return false,
            }
            per_dir[dir(r.write)] += 1;
        }
        per_dir == self.nr_queued_dir
            && self.is_queued.iter().filter(|&&q| q).count() == queue.len()
            && queue.iter().all(|r| self.is_queued.get(r.id as usize) == Some(&true))
            // the other queues' requests count too
            && t.iter().zip(&per_stream).all(|(st, &n)| st.nr_queued >= n)
    }

    /// The batch logic of `as_dispatch_request` up to the choice of a request.
    fn choose(&mut self, queue: &[Queued], reads: bool, writes: bool, now_ns: TimeNs) -> Step {
        if !(reads && writes && self.batch_expired(now_ns)) {
            // The batch is still running, or only one direction waits.
            let next = self.next_in_sort(queue, self.batch_write);
            if !self.batch_write {
                if self.fifo_expired(queue, false, now_ns) {
                    return Step::FifoExpired;
                }
                if self.can_anticipate(next.map(|i| &queue[i]), now_ns) {
                    return Step::Answer(self.start_waiting());
                }
            }
            if let Some(i) = next {
                if reads && !writes {
                    self.current_batch_expires_ns = now_ns + READ_BATCH_EXPIRE_NS;
                }
                return Step::Candidate(i);
            }
        }

        // Start a batch: reads, unless the last batch was reads and writes wait.
        let write = !reads || (writes && !self.batch_write);
        if write {
            if !self.batch_write {
                self.changed_batch = true;
                self.new_batch = false;
            }
            self.current_write_count = self.write_batch_count;
            self.write_batch_idled = false;
        } else if self.batch_write {
            self.changed_batch = true;
        }
        self.batch_write = write;
        self.last_check_fifo_ns[dir(write)] = now_ns;
        Step::Candidate(Self::oldest(queue, write).expect("the chosen direction has a pending request"))
    }
}

impl Scheduler for Anticipatory {
    fn pick(&mut self, queue: &[Queued], _head: Head, now_ns: TimeNs) -> Pick {
        debug_assert!(self.counts_match(queue), "queued counts out of step with the queue");
        let reads = self.nr_queued_dir[dir(false)] > 0;
        let writes = self.nr_queued_dir[dir(true)] > 0;

        // A write batch that ran out of work cannot be timed.
        if self.batch_write && !reads && (self.current_write_count == 0 || !writes) {
            self.write_batch_idled = true;
        }

        match self.antic_status {
            AnticStatus::WaitNext if self.antic_expired(now_ns) => {
                // The timer fired: P did not come back in time.
                self.antic_status = AnticStatus::Finished;
            }
            AnticStatus::WaitNext | AnticStatus::WaitReq => return self.waiting_answer(),
            _ => {}
        }
        // Waiting for the old batch to drain (a completion is pending).
        if self.changed_batch && self.nr_dispatched > 0 {
            return Pick::Idle;
        }

        let mut chosen = match self.choose(queue, reads, writes, now_ns) {
            Step::Answer(pick) => return pick,
            Step::FifoExpired => None,
            Step::Candidate(i) => {
                if self.fifo_expired(queue, self.batch_write, now_ns) {
                    None
                } else {
                    Some(i)
                }
            }
        };
        if chosen.is_none() {
            chosen = Self::oldest(queue, self.batch_write);
        }
        let chosen = chosen.expect("the batch's direction has a pending request");

        if self.changed_batch {
            if self.nr_dispatched > 0 {
                return Pick::Idle;
            }
            if self.batch_write {
                self.current_batch_expires_ns = now_ns + WRITE_BATCH_EXPIRE_NS;
            } else {
                self.new_batch = true;
            }
            self.changed_batch = false;
        }
        Pick::Dispatch(chosen)
    }

    fn on_add(&mut self, req: &Queued, now_ns: TimeNs) {
        let id = req.id as usize;
        if self.is_queued.len() <= id {
            self.is_queued.resize(id + 1, false);
        }
        if self.is_queued[id] {
            return; // a merge: the kernel only re-sorts the request
        }
        self.is_queued[id] = true;
        self.ensure_stream(req.stream);
        self.update_iohist(req.stream as usize, req, now_ns);
        self.streams.0.borrow_mut()[req.stream as usize].nr_queued += 1;
        self.nr_queued_dir[dir(req.write)] += 1;
        if matches!(self.antic_status, AnticStatus::WaitReq | AnticStatus::WaitNext)
            && self.can_break_anticipation(Some(req), now_ns)
        {
            self.antic_status = AnticStatus::Finished;
        }
    }

    fn on_dispatch(&mut self, req: &Queued, _now_ns: TimeNs) {
        self.ensure_stream(req.stream);
        self.antic_status = AnticStatus::Off;
        self.last_sector[dir(req.write)] = req.end_sector;
        if req.write {
            self.io_context = None;
            self.current_write_count = self.current_write_count.saturating_sub(1);
        } else {
            self.io_context = Some(req.stream);
        }
        self.ioc_finished = false;
        if let Some(q) = self.is_queued.get_mut(req.id as usize).filter(|q| **q) {
            *q = false;
            self.nr_queued_dir[dir(req.write)] -= 1;
        }
        let mut t = self.streams.0.borrow_mut();
        let st = &mut t[req.stream as usize];
        st.nr_queued = st.nr_queued.saturating_sub(1);
        drop(t);
        self.nr_dispatched += 1;
    }

    fn on_complete(&mut self, req: &Queued, now_ns: TimeNs) {
        self.ensure_stream(req.stream);
        if self.changed_batch && self.nr_dispatched == 1 {
            // The old batch has drained: the new one starts now.
            self.current_batch_expires_ns = now_ns + batch_expire_ns(self.batch_write);
            self.changed_batch = false;
            if !self.batch_write {
                self.new_batch = true;
            }
        }
        self.nr_dispatched = self.nr_dispatched.saturating_sub(1);
        // A read batch is timed from its first completion.
        if self.new_batch && self.batch_write == req.write {
            self.update_write_batch(now_ns);
            self.current_batch_expires_ns = now_ns + READ_BATCH_EXPIRE_NS;
            self.new_batch = false;
        }
        if self.io_context == Some(req.stream) {
            self.antic_start_ns = now_ns;
            self.ioc_finished = true;
            if self.antic_status == AnticStatus::WaitReq {
                self.antic_status = AnticStatus::WaitNext;
            }
        }
        if !req.write {
            let mut t = self.streams.0.borrow_mut();
            let st = &mut t[req.stream as usize];
            st.io_running = true;
            st.last_end_request_ns = now_ns;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: TimeNs = 1_000;
    const MS: TimeNs = NS_PER_MS;
    /// 4 KiB requests.
    const LEN: u64 = 8;

    /// Drives one scheduler like a queue in front of a device.
    struct Harness {
        s: Anticipatory,
        queue: Vec<Queued>,
        next_id: u32,
    }

    impl Harness {
        fn new() -> Self {
            Harness { s: Anticipatory::new(2), queue: Vec::new(), next_id: 0 }
        }

        /// One disk of several whose schedulers share `contexts`.
        fn sharing(contexts: &IoContexts) -> Self {
            Harness { s: Anticipatory::sharing(contexts.clone()), queue: Vec::new(), next_id: 0 }
        }

        /// A request arrives; returns its id.
        fn add(&mut self, stream: u32, lba_sector: u64, write: bool, now: TimeNs) -> u32 {
            self.add_aged(stream, lba_sector, write, now, now)
        }

        fn add_aged(&mut self, stream: u32, lba: u64, write: bool, arrival: TimeNs, now: TimeNs) -> u32 {
            let id = self.next_id;
            self.next_id += 1;
            let r = Queued {
                id,
                lba_sector: lba,
                end_sector: lba + LEN,
                pos: lba / 1000,
                stream,
                write,
                arrival_ns: arrival,
            };
            self.queue.push(r);
            self.s.on_add(&r, now);
            id
        }

        fn pick(&mut self, now: TimeNs) -> Pick {
            self.s.pick(&self.queue, Head::default(), now)
        }

        /// The id `pick` would dispatch, or the non-dispatch answer.
        fn pick_id(&mut self, now: TimeNs) -> Result<u32, Pick> {
            match self.pick(now) {
                Pick::Dispatch(i) => Ok(self.queue[i].id),
                other => Err(other),
            }
        }

        fn dispatch_id(&mut self, id: u32, now: TimeNs) -> Queued {
            let i = self.queue.iter().position(|r| r.id == id).unwrap();
            let r = self.queue.remove(i);
            self.s.on_dispatch(&r, now);
            r
        }

        /// Picks at `now`, requires a dispatch of `id`, and dispatches it.
        fn serve(&mut self, id: u32, now: TimeNs) -> Queued {
            assert_eq!(self.pick_id(now), Ok(id), "at {now} ns");
            self.dispatch_id(id, now)
        }

        fn complete(&mut self, r: &Queued, now: TimeNs) {
            self.s.on_complete(r, now);
        }

        /// Stream `stream` reads `n` requests, one at a time, starting at
        /// `lba` and `stride` sectors apart, thinking `think` between a
        /// completion and its next read; each read takes `service`. Returns
        /// the last read and its completion time.
        #[allow(clippy::too_many_arguments)]
        fn reader(
            &mut self,
            stream: u32,
            lba: u64,
            stride: u64,
            n: u64,
            t0: TimeNs,
            service: TimeNs,
            think: TimeNs,
        ) -> (Queued, TimeNs) {
            let mut t = t0;
            let mut last = None;
            for k in 0..n {
                let id = self.add(stream, lba + k * stride, false, t);
                let r = self.serve(id, t);
                t += service;
                self.complete(&r, t);
                last = Some((r, t));
                t += think;
            }
            last.unwrap()
        }
    }

    /// A sequential reader with short think times, then a far read from
    /// another stream just after the reader's last completion.
    fn sequential_reader_then_other(far: u64) -> (Harness, Queued, TimeNs, u32) {
        let mut h = Harness::new();
        let (last, done) = h.reader(0, 1_000, LEN, 10, 0, MS, 100 * US);
        let other = h.add(1, last.end_sector + far, false, done + 10 * US);
        (h, last, done, other)
    }

    #[test]
    fn waits_for_the_same_streams_close_read_and_stops_when_it_arrives() {
        let (mut h, last, done, other) = sequential_reader_then_other(500_000);
        // Stream 0 thinks ~100 µs and reads sequentially: wait for it.
        assert_eq!(h.pick(done + 10 * US), Pick::WaitUntil(done + ANTIC_EXPIRE_NS));
        // Asked again before the window ends (e.g. after an arrival): still waiting.
        assert_eq!(h.pick(done + 50 * US), Pick::WaitUntil(done + ANTIC_EXPIRE_NS));
        // Its next read arrives: the wait ends and that read goes first.
        let mine = h.add(0, last.end_sector, false, done + 200 * US);
        h.serve(mine, done + 200 * US);
        let r = h.queue[0];
        assert_eq!(r.id, other);
    }

    #[test]
    fn with_the_read_still_on_the_device_the_window_starts_at_its_completion() {
        let mut h = Harness::new();
        let (last, done) = h.reader(0, 1_000, LEN, 10, 0, MS, 100 * US);
        // Stream 0's next read is dispatched; a far read of stream 1 arrives
        // while it is on the device (a device with two slots asks again).
        let t = done + 100 * US;
        let mine = h.add(0, last.end_sector, false, t);
        let mine = h.serve(mine, t);
        let other = h.add(1, last.end_sector + 500_000, false, t + 10 * US);
        // Waiting for the completion: no timer yet.
        assert_eq!(h.pick(t + 10 * US), Pick::Idle);
        // It completes: the 6 ms window starts now.
        h.complete(&mine, t + MS);
        assert_eq!(h.pick(t + MS), Pick::WaitUntil(t + MS + ANTIC_EXPIRE_NS));
        assert_eq!(h.pick_id(t + MS + ANTIC_EXPIRE_NS), Ok(other));
    }

    #[test]
    fn wait_times_out_after_antic_expire() {
        let (mut h, _last, done, other) = sequential_reader_then_other(500_000);
        assert_eq!(h.pick(done + 10 * US), Pick::WaitUntil(done + ANTIC_EXPIRE_NS));
        // A far read of a third stream arriving mid-window does not end it.
        let third = h.add(2, 90_000_000, false, done + 3 * MS);
        assert_eq!(h.pick(done + 3 * MS), Pick::WaitUntil(done + ANTIC_EXPIRE_NS));
        // The timer fires: normal dispatch (the elevator takes the nearer one).
        assert_eq!(h.pick_id(done + ANTIC_EXPIRE_NS), Ok(other));
        h.dispatch_id(other, done + ANTIC_EXPIRE_NS);
        assert_eq!(h.queue[0].id, third);
    }

    #[test]
    fn a_close_read_from_another_stream_ends_the_wait() {
        let (mut h, last, done, other) = sequential_reader_then_other(500_000);
        assert_eq!(h.pick(done + 10 * US), Pick::WaitUntil(done + ANTIC_EXPIRE_NS));
        let seeks_before = h.s.st(0).seek_samples;
        // Stream 2 reads 100 sectors past where stream 0 stopped.
        let near = h.add(2, last.end_sector + 100, false, done + MS);
        assert_eq!(h.pick_id(done + MS), Ok(near));
        // It counted as a sample of stream 0's history (cooperating streams).
        assert!(h.s.st(0).seek_samples > seeks_before);
        h.dispatch_id(near, done + MS);
        assert_eq!(h.queue[0].id, other);
    }

    #[test]
    fn no_wait_when_the_streams_think_time_is_long() {
        let mut h = Harness::new();
        // Same reader, but 10 ms between a completion and the next read.
        let (last, done) = h.reader(0, 1_000, LEN, 10, 0, MS, 10 * MS);
        assert!(h.s.st(0).ttime_mean_ns > ANTIC_EXPIRE_NS);
        let other = h.add(1, last.end_sector + 500_000, false, done + 10 * US);
        assert_eq!(h.pick_id(done + 10 * US), Ok(other));
    }

    #[test]
    fn think_time_is_capped_at_max_thinktime() {
        let mut h = Harness::new();
        h.reader(0, 1_000, LEN, 40, 0, MS, 1_000 * MS);
        let mean = h.s.st(0).ttime_mean_ns;
        // Each 1 s sample counts as 20 ms. The kernel's fixed-point sample
        // count settles at 249/256, so the mean sits ~3% above the cap.
        assert!(mean > 19 * MS && mean < 21 * MS, "mean {mean}");
    }

    #[test]
    fn no_wait_for_a_seeky_stream() {
        let mut h = Harness::new();
        // Short think times, but each read 1 Mi sectors from the last.
        let (last, done) = h.reader(0, 1_000, 1 << 20, 10, 0, MS, 100 * US);
        assert!(h.s.st(0).seek_mean_sectors > 900_000);
        // The same other read that a sequential reader would make us wait
        // out (see above) is nearer than this stream's usual seek: serve it.
        let other = h.add(1, last.end_sector + 500_000, false, done + 10 * US);
        assert_eq!(h.pick_id(done + 10 * US), Ok(other));
    }

    #[test]
    fn an_expired_read_is_served_instead_of_anticipating() {
        // Slow reads so that the reader's batch spans > read_expire without
        // a FIFO check in between (checks are rate-limited to one per 125 ms).
        let setup = |arrival_of_other: Option<TimeNs>| {
            let mut h = Harness::new();
            let (last, done) = h.reader(0, 1_000, LEN, 5, 0, 30 * MS, 100 * US);
            let now = done + 10 * US;
            let arrival = arrival_of_other.unwrap_or(now);
            let other = h.add_aged(1, last.end_sector + 500_000, false, arrival, now);
            (h, now, other)
        };
        // Control: a fresh request is anticipated against.
        let (mut h, now, _) = setup(None);
        assert!(matches!(h.pick(now), Pick::WaitUntil(_)));
        // One that arrived at 0 has expired (now > 125 ms): it goes.
        let (mut h, now, other) = setup(Some(0));
        assert!(now > READ_EXPIRE_NS);
        assert_eq!(h.pick_id(now), Ok(other));
    }

    #[test]
    fn a_new_stream_is_anticipated_against_writes() {
        let mut h = Harness::new();
        let r = h.add(0, 1_000, false, 0);
        let w = h.add(1, 50_000, true, 0);
        let r = h.serve(r, 0);
        h.complete(&r, MS);
        // Stream 0 has no history yet; new streams' mean think time is 0, so
        // the write is held back for the window.
        assert_eq!(h.pick(MS), Pick::WaitUntil(MS + ANTIC_EXPIRE_NS));
        assert_eq!(h.pick_id(MS + ANTIC_EXPIRE_NS), Ok(w));
    }

    #[test]
    fn a_write_from_the_anticipated_stream_ends_the_wait() {
        let (mut h, _last, done, _other) = sequential_reader_then_other(500_000);
        assert!(matches!(h.pick(done + 10 * US), Pick::WaitUntil(_)));
        let w = h.add(0, 7_000_000, true, done + MS);
        // The wait is over; reads are still the batch, so the other read goes.
        assert!(matches!(h.pick(done + MS), Pick::Dispatch(_)));
        assert!(h.queue.iter().any(|r| r.id == w));
    }

    #[test]
    fn the_read_batch_expires_and_writes_wait_for_the_reads_to_drain() {
        let mut h = Harness::new();
        let mut r = h.add(0, 1_000, false, 0);
        let w = h.add(1, 50_000_000, true, 0);
        let mut in_flight = h.serve(r, 0);
        // A device with two slots: each new read is picked while the previous
        // one is still on the device, which completes just after.
        let mut t = 0;
        let idle_at = loop {
            t += 10 * MS;
            r = h.add(0, 1_000 + (t / MS) * LEN, false, t);
            match h.pick_id(t) {
                Ok(id) => {
                    assert_eq!(id, r, "at {t} ns");
                    let next = h.dispatch_id(id, t);
                    h.complete(&in_flight, t);
                    in_flight = next;
                }
                Err(Pick::Idle) => break t,
                Err(other) => panic!("unexpected {other:?} at {t} ns"),
            }
        };
        // The batch was timed from the first completion (10 ms) and ran
        // read_batch_expire; the first pick after it switches to writes.
        assert_eq!(idle_at, 10 * MS + READ_BATCH_EXPIRE_NS + 10 * MS);
        // Once the last read has drained, the write goes (ahead of the read).
        h.complete(&in_flight, t);
        assert_eq!(h.pick_id(t), Ok(w));
    }

    #[test]
    fn elevator_prefers_short_backward_seeks_at_double_cost() {
        let mut s = Anticipatory::new(1);
        let q = |lbas: &[u64]| -> Vec<Queued> {
            lbas.iter()
                .enumerate()
                .map(|(i, &lba)| Queued {
                    id: i as u32,
                    lba_sector: lba,
                    end_sector: lba + LEN,
                    pos: 0,
                    stream: 0,
                    write: false,
                    arrival_ns: 0,
                })
                .collect()
        };
        s.last_sector[0] = 10_000;
        // Back 10 costs 20 > forward 15.
        assert_eq!(s.next_in_sort(&q(&[9_990, 10_015]), false), Some(1));
        // Back 5 costs 10 < forward 15.
        assert_eq!(s.next_in_sort(&q(&[9_995, 10_015]), false), Some(0));
        // Equal cost: the higher sector.
        assert_eq!(s.next_in_sort(&q(&[9_990, 10_020]), false), Some(1));
        s.last_sector[0] = 5_000_000;
        // Both beyond MAXBACK behind: wrap to the lowest.
        assert_eq!(s.next_in_sort(&q(&[3_000_000, 100]), false), Some(1));
        // Within MAXBACK beats a wrap, even at 1 Mi sectors.
        assert_eq!(s.next_in_sort(&q(&[100, 5_000_000 - MAXBACK_SECTORS]), false), Some(1));
        // Writes are a separate direction.
        assert_eq!(s.next_in_sort(&q(&[100]), true), None);
    }

    #[test]
    fn a_merge_is_not_a_new_arrival() {
        let mut h = Harness::new();
        h.reader(0, 1_000, LEN, 3, 0, MS, 100 * US);
        let before = (h.s.st(0).ttime_samples, h.s.st(0).nr_queued);
        let id = h.add(0, 10_000, false, 10 * MS);
        let after_add = h.s.st(0).ttime_samples;
        assert!(after_add > before.0);
        // The queue grows the request and reports it again.
        h.queue[0].end_sector += LEN;
        let merged = h.queue[0];
        h.s.on_add(&merged, 11 * MS);
        assert_eq!(h.s.st(0).ttime_samples, after_add);
        assert_eq!(h.s.st(0).nr_queued, before.1 + 1);
        assert_eq!(h.pick_id(11 * MS), Ok(id));
    }

    /// Disk A anticipates stream 0 (a sequential reader with short think
    /// times) against a far read of stream 1; then stream 0's next read goes
    /// to disk B (`on_b`: whether it waits in B's queue) and a second far read
    /// of stream 1 arrives at A. Returns A's answer after that arrival.
    fn anticipation_with_a_read_on_another_disk(on_b: bool, shared: bool) -> Pick {
        let ctx = IoContexts::new(2);
        let (mut a, mut b) = if shared {
            (Harness::sharing(&ctx), Harness::sharing(&ctx))
        } else {
            (Harness::new(), Harness::new())
        };
        let (last, done) = a.reader(0, 1_000, LEN, 10, 0, MS, 100 * US);
        a.add(1, last.end_sector + 500_000, false, done + 10 * US);
        assert_eq!(a.pick(done + 10 * US), Pick::WaitUntil(done + ANTIC_EXPIRE_NS));
        if on_b {
            b.add(0, 77_000, false, done + 200 * US);
        }
        a.add(1, last.end_sector + 600_000, false, done + 300 * US);
        a.pick(done + 300 * US)
    }

    #[test]
    fn a_read_queued_on_another_disk_ends_the_wait() {
        // as_can_break_anticipation: `atomic_read(&aic->nr_queued) > 0`, the
        // process's count over every queue: the far arrival is served.
        assert!(matches!(anticipation_with_a_read_on_another_disk(true, true), Pick::Dispatch(_)));
        // Control: with nothing queued anywhere the wait goes on.
        let waiting = anticipation_with_a_read_on_another_disk(false, true);
        assert!(matches!(waiting, Pick::WaitUntil(_)), "{waiting:?}");
        // Tables per queue (the old model) do not see disk B's read.
        let per_queue = anticipation_with_a_read_on_another_disk(true, false);
        assert!(matches!(per_queue, Pick::WaitUntil(_)), "{per_queue:?}");
    }

    #[test]
    fn think_time_and_seek_run_across_disks() {
        let ctx = IoContexts::new(2);
        let (mut a, mut b) = (Harness::sharing(&ctx), Harness::sharing(&ctx));
        // Stream 0 reads once on disk A, completing at 1 ms; its next read
        // goes to disk B 3 ms later, at the same offset on that disk.
        let r = a.add(0, 5_000, false, 0);
        let r = a.serve(r, 0);
        a.complete(&r, MS);
        b.add(0, 5_000 + LEN, false, 4 * MS);
        // One sample each, from A's completion and A's request: 3 ms, 0 sectors.
        let st = b.s.st(0);
        assert_eq!((st.ttime_samples, st.ttime_mean_ns), (32, 3 * MS));
        assert_eq!((st.seek_samples, st.seek_mean_sectors), (32, 0));
        assert_eq!(a.s.st(0).ttime_mean_ns, 3 * MS, "one table for both disks");
        // With a read of stream 0 queued on A, a read on B thinks 0.
        let ctx = IoContexts::new(2);
        let (mut a, mut b) = (Harness::sharing(&ctx), Harness::sharing(&ctx));
        let r = a.add(0, 5_000, false, 0);
        let r = a.serve(r, 0);
        a.complete(&r, MS);
        a.add(0, 9_000, false, 2 * MS);
        b.add(0, 5_000 + LEN, false, 4 * MS);
        // Samples 1 ms (A's read, after A's completion) then 0 (B's, with
        // A's queued): totals 32 ms then 28 ms over 32 then 60 (fixed point).
        assert_eq!(b.s.st(0).ttime_mean_ns, (28 * MS + 30) / 60);
    }

    #[test]
    fn stream_tables_grow_for_larger_ids() {
        let mut h = Harness::new();
        let id = h.add(40, 1_000, false, 0);
        assert!(h.s.streams.0.borrow().len() >= 41);
        assert_eq!(h.pick_id(0), Ok(id));
    }
}
