//! CFQ, the Linux completely fair queueing I/O scheduler (cfq-iosched.c,
//! default from 2.6.18 until blk-mq) with the kernel defaults (models.md
//! §2.3), at HZ = 1000, all processes at the default priority (best effort, 4).
//!
//! **Queues and slices.** Each stream (process) has a queue for its reads
//! (synchronous I/O); writes from every stream share one asynchronous
//! queue. Queues with requests are served in round robin, in the order they
//! became busy: the *active* queue has the disk for a time slice —
//! `slice_sync` = 100 ms for a read queue, `slice_async` = 40 ms for the
//! write queue, which also stops after `2 · (slice_async_rq + slice_async_rq
//! · (8 − 1 − 4))` = 16 requests (`cfq_prio_to_maxrq`, `slice_async_rq` = 2,
//! priority 4 of 8 lists) — then goes to the back of the round if it still
//! has requests. The slice starts with the queue's first dispatch.
//!
//! **Idling** (CFQ's anticipation, `cfq_arm_slice_timer`). When the active
//! read queue runs empty before its slice ends, and its stream's last read
//! has completed, the disk is kept idle for up to `slice_idle` = 8 ms (not
//! past the slice's end) waiting for the stream's next read; a read from it
//! ends the wait, the timer's end expires the queue. A stream whose mean
//! think time (last completion to next arrival, when nothing of it is
//! queued) exceeds `slice_idle` gets no idle window (`cfq_update_idle_window`),
//! nor does a *seeky* one — mean seek distance above `CFQQ_SEEK_THR` = 800
//! sectors (the later kernels' test; 2.6.18 judged think time alone). The
//! averages decay with weight 7/8 for the past, as the kernel's do.
//!
//! **Within a queue** (`cfq_choose_req`): the request nearest ahead of
//! where the queue's last dispatched request ended, or one behind by at most
//! `back_seek_max` = 16 MiB counting `back_seek_penalty` = 2 times its
//! distance; when all are further behind, the lowest (the wrap). Once per
//! slice the queue's oldest request is checked against its FIFO deadline
//! (`fifo_expire` 125 ms sync, 250 ms async) and, if expired, goes first.
//!
//! **Depth** (`cfq_quantum` = 4): at most 4 requests of the active queue on
//! the device at once.
//!
//! **Slices scaled to the busy queues** (`low_latency`, from 2.6.33 on, on
//! by default there; `disk.cfq_low_latency`, off by default as in the
//! 2.6.18 this module follows otherwise). When on, each slice is set as
//! `cfq_set_prio_slice` sets it with `cfq_latency`: the busy queues are
//! averaged with the kernel's hysteresis (`avg ← (3·max(avg, busy) +
//! min(avg, busy) + 2) / 4`), and when that many read slices (100 ms each)
//! would exceed `cfq_target_latency` = 300 ms, the slice shrinks in
//! proportion, to no less than `2 · slice_idle` = 16 ms for a read queue
//! (6 ms for the write queue), all in jiffies (ms). The rest of 2.6.33's
//! CFQ (service trees per workload, the slice starting at the first
//! completion, group idling) is not modelled.
//!
//! **The sync-noidle tree** (`noidle_tree`, from 2.6.33 on, where it is
//! always there; `disk.cfq_noidle_tree`, off by default as 2.6.18 has no
//! such tree). 2.6.18 lets the active read queue, run empty, keep the disk
//! while any of its reads is in flight, idle window or not. From 2.6.33
//! `cfq_select_queue` waits for them only when `cfq_should_idle`: the queue
//! has an idle window, or it is the last busy queue of its service tree —
//! the queues without one (the sync-noidle workload). Otherwise it expires
//! at once and the next queue dispatches, so the readers that take one
//! read at a time on a disk (a strip-sized window rotating over the disks)
//! keep several reads on it, as a drive with NCQ wants. Modelled: that rule
//! and the idling at the end of the sync-noidle tree; not modelled: the
//! workloads' separate service trees and workload slices (one round serves
//! every read queue), which change the order, not whether a queue waits,
//! and which queues lack an idle window as those kernels judge it (a seek
//! history of the last 32 requests, a *deep* queue — one that had 4 or more
//! requests queued — keeping its idle window though seeky, and a think time
//! decided after about 3 samples): here the idle window is this module's.
//!
//! **Preemption** (`cfq_should_preempt`): a read arriving while the active
//! queue is the write queue ends that slice, so reads do not wait behind
//! writes.
//!
//! Modelling choices: no I/O priorities or cgroups (every stream at the
//! default priority), no `cfq_slice_async_rq` scaling by priority beyond the
//! default's 16, no cooperating-queue merging (later kernels); times in
//! nanoseconds; per-stream state in a flat `Vec` indexed by stream.
//!
//! Contract with the queue: as [`super::anticipatory`]'s — a `Dispatch` is
//! acted on (`on_dispatch`) before the next `pick`; `pick` is called again
//! after every completion and arrival while work is pending.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;
use crate::units::NS_PER_MS;
use std::collections::VecDeque;

/// A read queue's time slice (HZ/10).
pub const SLICE_SYNC_NS: TimeNs = 100 * NS_PER_MS;
/// The write queue's time slice (HZ/25).
pub const SLICE_ASYNC_NS: TimeNs = 40 * NS_PER_MS;
/// Requests the write queue dispatches per slice at the default priority:
/// `cfq_prio_to_maxrq` = 2 · (2 + 2 · (8 − 1 − 4)).
pub const ASYNC_SLICE_REQUESTS: u32 = 16;
/// Longest idle wait for the active read queue's next request (HZ/125).
pub const SLICE_IDLE_NS: TimeNs = 8 * NS_PER_MS;
/// FIFO deadlines: reads (HZ/8), writes (HZ/4).
pub const FIFO_EXPIRE_SYNC_NS: TimeNs = 125 * NS_PER_MS;
pub const FIFO_EXPIRE_ASYNC_NS: TimeNs = 250 * NS_PER_MS;
/// Farthest backward seek taken instead of wrapping: 16 MiB in sectors.
pub const BACK_SEEK_MAX_SECTORS: u64 = 16 * 1024 * 2;
/// A backward seek counts this many times its distance.
pub const BACK_SEEK_PENALTY: u64 = 2;
/// Requests of the active queue on the device at once.
pub const QUANTUM: u32 = 4;
/// A stream whose mean seek is longer than this many sectors is seeky.
pub const SEEK_THRESHOLD_SECTORS: u64 = 800;
/// With `low_latency`: the time every busy queue's slice should fit in
/// (`cfq_target_latency`, HZ·3/10), in ms.
pub const TARGET_LATENCY_MS: u64 = 300;

/// The write queue's key (read queues are keyed by stream).
const ASYNC: u32 = u32::MAX;

/// One stream's history (the kernel's `cfq_io_context`).
#[derive(Debug, Clone, Copy, Default)]
struct History {
    ttime_mean_ns: u64,
    ttime_samples: u32,
    seek_mean_sectors: u64,
    seek_samples: u32,
    last_completion_ns: TimeNs,
    completed_once: bool,
    /// Reads of the stream queued, and on the device.
    queued: u32,
    on_device: u32,
}

impl History {
    fn idle_window(&self) -> bool {
        let thinks_long = self.ttime_samples > 0 && self.ttime_mean_ns > SLICE_IDLE_NS;
        let seeky = self.seek_samples > 0 && self.seek_mean_sectors > SEEK_THRESHOLD_SECTORS;
        !thinks_long && !seeky
    }
}

/// The active queue and its slice.
#[derive(Debug, Clone, Copy)]
struct Active {
    key: u32,
    /// End of the slice (set at the first dispatch).
    slice_end_ns: Option<TimeNs>,
    dispatched: u32,
    fifo_checked: bool,
    /// Idling since; the wait ends at `min(+slice_idle, slice end)`.
    idle_until_ns: Option<TimeNs>,
}

/// CFQ's state for one disk queue.
pub struct Cfq {
    streams: Vec<History>,
    /// Busy queues waiting for their turn, in order.
    round: VecDeque<u32>,
    /// Whether each stream's read queue, and the write queue, is in `round`
    /// (so that an arrival does not search it).
    in_round: Vec<bool>,
    async_in_round: bool,
    active: Option<Active>,
    /// End of the last dispatched request, per queue key (the elevator's position).
    last_sector: Vec<u64>,
    async_last_sector: u64,
    async_queued: u32,
    async_on_device: u32,
    preempt: bool,
    /// By request id: is it in the queue? (A merged request is added again.)
    is_queued: Vec<bool>,
    /// Slices scaled to the busy queues (`low_latency`).
    low_latency: bool,
    /// The kernel's running average of busy queues (`busy_queues_avg`).
    busy_queues_avg: u64,
    /// Queues without an idle window form the sync-noidle tree (`noidle_tree`).
    noidle_tree: bool,
}

fn key_of(r: &Queued) -> u32 {
    if r.write {
        ASYNC
    } else {
        r.stream
    }
}

impl Default for Cfq {
    fn default() -> Self {
        Cfq::new(0)
    }
}

impl Cfq {
    /// CFQ for a disk served by `streams` streams (more are added when seen).
    pub fn new(streams: usize) -> Cfq {
        Cfq {
            streams: vec![History::default(); streams],
            round: VecDeque::new(),
            in_round: vec![false; streams],
            async_in_round: false,
            active: None,
            last_sector: vec![0; streams],
            async_last_sector: 0,
            async_queued: 0,
            async_on_device: 0,
            preempt: false,
            is_queued: Vec::new(),
            low_latency: false,
            busy_queues_avg: 0,
            noidle_tree: false,
        }
    }

    /// CFQ with or without the sync-noidle tree of 2.6.33 on (off: 2.6.18's
    /// rule, the active queue keeps the disk while its reads are in flight).
    pub fn with_noidle_tree(mut self, on: bool) -> Cfq {
        self.noidle_tree = on;
        self
    }

    /// Whether the active read queue `key`, run empty, keeps the disk: waits
    /// for its reads in flight and then idles (`cfq_should_idle`). 2.6.18:
    /// always while reads are in flight, then if it has an idle window.
    /// With the sync-noidle tree: if it has an idle window, or no other busy
    /// read queue lacks one (it is the last of the sync-noidle tree).
    fn should_idle(&self, key: u32) -> bool {
        let h = &self.streams[key as usize];
        if !self.noidle_tree {
            return h.on_device > 0 || h.idle_window();
        }
        h.idle_window() || !self.round.iter().any(|&k| k != ASYNC && !self.streams[k as usize].idle_window())
    }

    /// CFQ with `low_latency` on or off (off: the slices of 2.6.18).
    pub fn with_low_latency(mut self, on: bool) -> Cfq {
        self.low_latency = on;
        self
    }

    /// The slice queue `key` gets now (`cfq_set_prio_slice`).
    fn slice_ns(&mut self, key: u32) -> TimeNs {
        let base_ms = if key == ASYNC { SLICE_ASYNC_NS } else { SLICE_SYNC_NS } / NS_PER_MS;
        if !self.low_latency {
            return base_ms * NS_PER_MS;
        }
        // the busy queues: those waiting their turn and the active one
        let busy = self.round.len() as u64 + 1;
        let (lo, hi) = (self.busy_queues_avg.min(busy), self.busy_queues_avg.max(busy));
        self.busy_queues_avg = (3 * hi + lo + 2) / 4;
        let sync_ms = SLICE_SYNC_NS / NS_PER_MS;
        let expect_latency_ms = sync_ms * self.busy_queues_avg;
        let mut slice_ms = base_ms;
        if expect_latency_ms > TARGET_LATENCY_MS {
            let low_ms = base_ms.min(2 * (SLICE_IDLE_NS / NS_PER_MS) * base_ms / sync_ms);
            slice_ms = (base_ms * TARGET_LATENCY_MS / expect_latency_ms).max(low_ms);
        }
        slice_ms * NS_PER_MS
    }

    fn history(&mut self, stream: u32) -> &mut History {
        let s = stream as usize;
        if s >= self.streams.len() {
            self.streams.resize(s + 1, History::default());
            self.last_sector.resize(s + 1, 0);
            self.in_round.resize(s + 1, false);
        }
        &mut self.streams[s]
    }

    fn queued(&self, key: u32) -> u32 {
        if key == ASYNC {
            self.async_queued
        } else {
            self.streams.get(key as usize).map_or(0, |h| h.queued)
        }
    }

    fn on_device(&self, key: u32) -> u32 {
        if key == ASYNC {
            self.async_on_device
        } else {
            self.streams.get(key as usize).map_or(0, |h| h.on_device)
        }
    }

    fn position(&self, key: u32) -> u64 {
        if key == ASYNC {
            self.async_last_sector
        } else {
            self.last_sector.get(key as usize).copied().unwrap_or(0)
        }
    }

    /// Whether queue `key` waits in the round.
    fn waiting(&mut self, key: u32) -> &mut bool {
        if key == ASYNC {
            &mut self.async_in_round
        } else {
            &mut self.in_round[key as usize]
        }
    }

    /// Queue `key` joins the back of the round unless it is in it already.
    fn join_round(&mut self, key: u32) {
        if !std::mem::replace(self.waiting(key), true) {
            self.round.push_back(key);
        }
    }

    /// The active queue's slice is over: it goes to the back of the round
    /// if it still has requests.
    fn expire(&mut self) {
        if let Some(a) = self.active.take() {
            if self.queued(a.key) > 0 {
                self.join_round(a.key);
            }
        }
        self.preempt = false;
    }

    /// The request of queue `key` to serve next (`cfq_choose_req` over the
    /// queue's requests, or its expired oldest).
    fn choose(&mut self, queue: &[Queued], key: u32, now_ns: TimeNs) -> Option<usize> {
        let mine = || queue.iter().enumerate().filter(|(_, r)| key_of(r) == key);
        let a = self.active.as_mut().expect("an active queue");
        if !a.fifo_checked {
            a.fifo_checked = true;
            let expire = if key == ASYNC { FIFO_EXPIRE_ASYNC_NS } else { FIFO_EXPIRE_SYNC_NS };
            if let Some((i, r)) = mine().min_by_key(|(_, r)| r.arrival_ns) {
                if r.arrival_ns + expire <= now_ns {
                    return Some(i);
                }
            }
        }
        let from = self.position(key);
        // cost: ahead → distance; behind within back_seek_max → penalised distance;
        // further behind → wrap (served after everything else, lowest first)
        let cost = |r: &Queued| -> (bool, u64) {
            if r.lba_sector >= from {
                (false, r.lba_sector - from)
            } else if from - r.lba_sector <= BACK_SEEK_MAX_SECTORS {
                (false, (from - r.lba_sector) * BACK_SEEK_PENALTY)
            } else {
                (true, r.lba_sector)
            }
        };
        mine().min_by_key(|(_, r)| cost(r)).map(|(i, _)| i)
    }
}

impl Scheduler for Cfq {
    fn pick(&mut self, queue: &[Queued], _head: Head, now_ns: TimeNs) -> Pick {
        loop {
            let Some(a) = self.active else {
                // the next busy queue in the round
                let Some(key) = self.round.pop_front() else { return Pick::Idle };
                *self.waiting(key) = false;
                if self.queued(key) == 0 {
                    continue;
                }
                self.active = Some(Active {
                    key,
                    slice_end_ns: None,
                    dispatched: 0,
                    fifo_checked: false,
                    idle_until_ns: None,
                });
                continue;
            };
            let over = a.slice_end_ns.is_some_and(|end| now_ns >= end)
                || (a.key == ASYNC && a.dispatched >= ASYNC_SLICE_REQUESTS)
                || self.preempt;
            if over {
                self.expire();
                continue;
            }
            if self.queued(a.key) > 0 {
                if self.on_device(a.key) >= QUANTUM {
                    return Pick::Idle;
                }
                if let Some(i) = self.choose(queue, a.key, now_ns) {
                    return Pick::Dispatch(i);
                }
                // counts out of step with the queue: never expected, but do not stall
                debug_assert!(false, "queue {} counted {} requests, found none", a.key, self.queued(a.key));
                self.expire();
                continue;
            }
            // the active queue ran empty
            if a.key == ASYNC {
                self.expire();
                continue;
            }
            if !self.should_idle(a.key) {
                self.expire();
                continue;
            }
            if self.streams[a.key as usize].on_device > 0 {
                return Pick::Idle; // idling starts when its last read completes
            }
            let until = match a.idle_until_ns {
                Some(t) => t,
                None => {
                    let mut t = now_ns + SLICE_IDLE_NS;
                    if let Some(end) = a.slice_end_ns {
                        t = t.min(end);
                    }
                    self.active.as_mut().expect("active").idle_until_ns = Some(t);
                    t
                }
            };
            if now_ns >= until {
                self.expire();
                continue;
            }
            return Pick::WaitUntil(until);
        }
    }

    fn on_add(&mut self, req: &Queued, now_ns: TimeNs) {
        let id = req.id as usize;
        if id >= self.is_queued.len() {
            self.is_queued.resize(id + 1, false);
        }
        if std::mem::replace(&mut self.is_queued[id], true) {
            return; // a merge: the request was queued already
        }
        let key = key_of(req);
        if key == ASYNC {
            self.async_queued += 1;
        } else {
            let h = self.history(req.stream);
            // think time: from its last completion, when nothing of it was queued
            if h.completed_once && h.queued == 0 && h.on_device == 0 {
                let t = now_ns.saturating_sub(h.last_completion_ns);
                h.ttime_mean_ns =
                    if h.ttime_samples == 0 { t } else { (7 * h.ttime_mean_ns + t).div_ceil(8) };
                h.ttime_samples = h.ttime_samples.saturating_add(1);
            }
            h.queued += 1;
            if self.active.is_some_and(|a| a.key == ASYNC) {
                self.preempt = true;
            }
        }
        if let Some(a) = self.active.as_mut() {
            if a.key == key {
                a.idle_until_ns = None; // the wait is over
                return;
            }
        }
        self.join_round(key);
    }

    fn on_dispatch(&mut self, req: &Queued, now_ns: TimeNs) {
        if let Some(q) = self.is_queued.get_mut(req.id as usize) {
            *q = false;
        }
        let key = key_of(req);
        if let Some(a) = self.active.as_mut() {
            if a.key == key {
                a.dispatched += 1;
                a.idle_until_ns = None;
                if a.slice_end_ns.is_none() {
                    let slice = self.slice_ns(key);
                    self.active.as_mut().expect("active").slice_end_ns = Some(now_ns + slice);
                }
            }
        }
        if key == ASYNC {
            self.async_queued = self.async_queued.saturating_sub(1);
            self.async_on_device += 1;
            self.async_last_sector = req.end_sector;
            return;
        }
        let from = self.position(key);
        let h = self.history(req.stream);
        h.queued = h.queued.saturating_sub(1);
        h.on_device += 1;
        // no position yet (the kernel's last_request_pos of 0): a seek of 0
        let seek = if from == 0 { 0 } else { req.lba_sector.abs_diff(from) };
        h.seek_mean_sectors =
            if h.seek_samples == 0 { seek } else { (7 * h.seek_mean_sectors + seek).div_ceil(8) };
        h.seek_samples = h.seek_samples.saturating_add(1);
        self.last_sector[req.stream as usize] = req.end_sector;
    }

    fn on_complete(&mut self, req: &Queued, now_ns: TimeNs) {
        if req.write {
            self.async_on_device = self.async_on_device.saturating_sub(1);
            return;
        }
        let h = self.history(req.stream);
        h.on_device = h.on_device.saturating_sub(1);
        h.last_completion_ns = now_ns;
        h.completed_once = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(id: u32, stream: u32, lba: u64, at_ms: u64) -> Queued {
        Queued {
            id,
            lba_sector: lba,
            end_sector: lba + 8,
            pos: lba / 100,
            stream,
            write: false,
            arrival_ns: at_ms * NS_PER_MS,
        }
    }

    /// Adds `reqs` at their arrival times.
    fn add(c: &mut Cfq, q: &mut Vec<Queued>, reqs: &[Queued]) {
        for r in reqs {
            c.on_add(r, r.arrival_ns);
            q.push(*r);
        }
    }

    /// Dispatches and completes at once what CFQ picks at `now`, until it
    /// idles or waits; returns the streams served.
    fn serve(c: &mut Cfq, q: &mut Vec<Queued>, now: TimeNs) -> (Vec<u32>, Pick) {
        let mut order = Vec::new();
        loop {
            if q.is_empty() {
                return (order, Pick::Idle);
            }
            match c.pick(q, Head::default(), now) {
                Pick::Dispatch(i) => {
                    let r = q.remove(i);
                    c.on_dispatch(&r, now);
                    c.on_complete(&r, now);
                    order.push(r.stream);
                }
                other => return (order, other),
            }
        }
    }

    /// The slice the active queue got at its first dispatch, ms, with
    /// `busy` streams each with one read queued.
    fn first_slice_ms(c: &mut Cfq, busy: u32) -> u64 {
        let mut q = Vec::new();
        let reads: Vec<Queued> = (0..busy).map(|s| read(s, s, 1000 + 100_000 * s as u64, 0)).collect();
        add(c, &mut q, &reads);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), 0) else { panic!("dispatches") };
        let r = q.remove(i);
        c.on_dispatch(&r, 0);
        c.active.expect("active").slice_end_ns.expect("slice set") / NS_PER_MS
    }

    #[test]
    fn low_latency_scales_the_slice_to_the_busy_queues() {
        // off (2.6.18): always 100 ms
        assert_eq!(first_slice_ms(&mut Cfq::new(20), 20), 100);
        // 2 busy: the average (3·2 + 0 + 2) / 4 = 2, 2 × 100 ms ≤ 300 ms: unscaled
        assert_eq!(first_slice_ms(&mut Cfq::new(2).with_low_latency(true), 2), 100);
        // 20 busy: average 15, 1500 ms > 300: 100 · 300 / 1500 = 20 ms
        let mut c = Cfq::new(20).with_low_latency(true);
        assert_eq!(first_slice_ms(&mut c, 20), 20);
        assert_eq!(c.busy_queues_avg, 15);
        // another slice now (19 waiting and the active one: 20 busy): average
        // (3·20 + 15 + 2) / 4 = 19, 100 · 300 / 1900 = 15 ms, below the floor
        // 2 × slice_idle = 16 ms
        let slice_ns = c.slice_ns(1);
        assert_eq!((c.busy_queues_avg, slice_ns / NS_PER_MS), (19, 16));
        // never below the floor: 500 busy
        assert_eq!(first_slice_ms(&mut Cfq::new(500).with_low_latency(true), 500), 16);
        // the write queue's floor is 2 × 8 × 40 / 100 = 6 ms
        assert_eq!(c.slice_ns(ASYNC) / NS_PER_MS, 6);
    }

    #[test]
    fn a_read_queue_keeps_the_disk_for_its_slice_in_sector_order() {
        let mut c = Cfq::new(2);
        let mut q = Vec::new();
        // two streams' reads interleaved in arrival order
        add(
            &mut c,
            &mut q,
            &[read(0, 0, 1000, 0), read(1, 1, 9000, 0), read(2, 0, 1016, 0), read(3, 1, 9016, 0)],
        );
        add(&mut c, &mut q, &[read(4, 0, 1008, 0)]);
        let mut lbas = Vec::new();
        for _ in 0..3 {
            let Pick::Dispatch(i) = c.pick(&q, Head::default(), 0) else { panic!("dispatches") };
            let r = q.remove(i);
            c.on_dispatch(&r, 0);
            c.on_complete(&r, 0);
            lbas.push((r.stream, r.lba_sector));
        }
        assert_eq!(lbas, vec![(0, 1000), (0, 1008), (0, 1016)], "stream 0's queue first, ascending");
    }

    #[test]
    fn an_empty_read_queue_idles_for_its_stream_then_yields() {
        let mut c = Cfq::new(2);
        let mut q = Vec::new();
        add(&mut c, &mut q, &[read(0, 0, 1000, 0), read(1, 1, 9000, 0)]);
        let (served, next) = serve(&mut c, &mut q, 0);
        assert_eq!(served, vec![0]);
        assert_eq!(next, Pick::WaitUntil(SLICE_IDLE_NS), "waits 8 ms for stream 0 rather than seek to 1");
        // stream 0's next read arrives within the window: served at once
        add(&mut c, &mut q, &[read(2, 0, 1008, 3)]);
        let (served, next) = serve(&mut c, &mut q, 3 * NS_PER_MS);
        assert_eq!(served, vec![0]);
        assert_eq!(next, Pick::WaitUntil(11 * NS_PER_MS));
        // nothing more from stream 0: at the window's end stream 1 gets the disk
        let (served, _) = serve(&mut c, &mut q, 11 * NS_PER_MS);
        assert_eq!(served, vec![1]);
    }

    /// Three streams that think long (20 ms between a completion and their next
    /// read) on a CFQ with or without the sync-noidle tree: stream 0 has one
    /// read in flight and nothing queued; streams 1 and 2 one read queued each.
    fn one_read_in_flight(noidle_tree: bool) -> (Cfq, Vec<Queued>, TimeNs) {
        let mut c = Cfq::new(3).with_noidle_tree(noidle_tree);
        let mut q = Vec::new();
        // a first read each, served, then the next 20 ms after: no idle window
        add(&mut c, &mut q, &[read(0, 0, 1000, 0), read(1, 1, 900_000, 0), read(2, 2, 1_800_000, 0)]);
        let mut now = 0;
        while !q.is_empty() {
            match c.pick(&q, Head::default(), now) {
                Pick::Dispatch(i) => {
                    let r = q.remove(i);
                    c.on_dispatch(&r, now);
                    c.on_complete(&r, now);
                }
                Pick::WaitUntil(t) => now = t,
                Pick::Idle => panic!("nothing in flight"),
            }
        }
        // the last one's idle wait starts (the queue asks again at each completion)
        assert!(matches!(c.pick(&q, Head::default(), now), Pick::WaitUntil(_)));
        let t = now + 20 * NS_PER_MS;
        add(&mut c, &mut q, &[read(3, 0, 1008, t / NS_PER_MS)]);
        assert!(!c.streams[0].idle_window(), "thinks longer than slice_idle");
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), t) else { panic!("stream 0's read goes") };
        let r = q.remove(i);
        c.on_dispatch(&r, t);
        add(&mut c, &mut q, &[read(4, 1, 900_008, t / NS_PER_MS), read(5, 2, 1_800_008, t / NS_PER_MS)]);
        (c, q, t)
    }

    #[test]
    fn the_sync_noidle_tree_lets_the_next_queue_dispatch_while_reads_are_in_flight() {
        // 2.6.18: the active queue keeps the disk until its read completes
        let (mut c, q, t) = one_read_in_flight(false);
        assert_eq!(c.pick(&q, Head::default(), t), Pick::Idle);
        // 2.6.33 on: stream 0 has no idle window and other queues lack one too,
        // so its slice ends and stream 1's read goes while stream 0's is in flight
        let (mut c, mut q, t) = one_read_in_flight(true);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), t) else { panic!("the next queue dispatches") };
        assert_eq!(q[i].stream, 1);
        let r = q.remove(i);
        c.on_dispatch(&r, t);
        // stream 1 yields as well, stream 2 still waiting without an idle window
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), t) else { panic!("stream 2 dispatches") };
        assert_eq!(q[i].stream, 2);
        let r = q.remove(i);
        c.on_dispatch(&r, t);
        // stream 2, the last queue of the sync-noidle tree, keeps the disk
        assert_eq!(c.pick(&q, Head::default(), t), Pick::Idle, "the last of the tree waits for its read");
        assert_eq!(c.streams.iter().map(|h| h.on_device).sum::<u32>(), 3, "three reads on the disk at once");
    }

    #[test]
    fn a_seeky_stream_gets_no_idle_window() {
        let mut c = Cfq::new(2);
        let mut q = Vec::new();
        // stream 0 jumps 1 M sectors between reads
        for (i, lba) in [0u64, 1 << 20, 2 << 20].into_iter().enumerate() {
            add(&mut c, &mut q, &[read(i as u32, 0, lba, 0)]);
            serve(&mut c, &mut q, 0);
        }
        add(&mut c, &mut q, &[read(9, 1, 500, 0)]);
        let (served, _) = serve(&mut c, &mut q, 0);
        assert_eq!(served, vec![1], "no wait for a seeky stream");
    }

    #[test]
    fn the_slice_ends_after_100_ms_and_the_next_queue_gets_the_disk() {
        let mut c = Cfq::new(2);
        let mut q = Vec::new();
        add(&mut c, &mut q, &[read(0, 0, 0, 0), read(1, 0, 8, 0), read(2, 1, 5000, 0)]);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), 0) else { panic!() };
        let r = q.remove(i);
        c.on_dispatch(&r, 0);
        c.on_complete(&r, 0);
        assert_eq!(r.stream, 0);
        // 100 ms later stream 0 still has a read, but its slice is over
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), SLICE_SYNC_NS) else { panic!() };
        assert_eq!(q[i].stream, 1);
    }

    #[test]
    fn an_expired_read_goes_first_and_backward_seeks_cost_double() {
        let mut c = Cfq::new(1);
        let mut q = Vec::new();
        add(&mut c, &mut q, &[read(0, 0, 10_000, 0)]);
        serve(&mut c, &mut q, 0); // the elevator is at 10_008
                                  // 100 behind costs 200, 150 ahead costs 150: ahead wins
        add(&mut c, &mut q, &[read(1, 0, 9_908, 1), read(2, 0, 10_158, 1)]);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), NS_PER_MS) else { panic!() };
        assert_eq!(q[i].lba_sector, 10_158);
        // a new slice checks the FIFO: a read older than 125 ms goes first
        let mut c = Cfq::new(1);
        let mut q = Vec::new();
        add(&mut c, &mut q, &[read(0, 0, 50_000, 0), read(1, 0, 100, 10)]);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), 200 * NS_PER_MS) else { panic!() };
        assert_eq!(q[i].lba_sector, 50_000);
    }

    #[test]
    fn the_write_queue_yields_after_16_requests() {
        let mut c = Cfq::new(1);
        let mut q = Vec::new();
        let w = |id: u32, lba| Queued { write: true, ..read(id, 0, lba, 0) };
        add(&mut c, &mut q, &(0..17).map(|i| w(i, 1000 + 8 * i as u64)).collect::<Vec<_>>());
        for n in 1..=17 {
            let Pick::Dispatch(i) = c.pick(&q, Head::default(), 0) else { panic!() };
            let r = q.remove(i);
            c.on_dispatch(&r, 0);
            c.on_complete(&r, 0);
            // the 17th write starts a new slice of the (only) queue
            assert_eq!(c.active.unwrap().dispatched, if n <= 16 { n } else { 1 });
        }
    }

    #[test]
    fn writes_share_one_queue_and_a_read_preempts_it() {
        let mut c = Cfq::new(2);
        let mut q = Vec::new();
        let w = |id, lba| Queued { write: true, ..read(id, id, lba, 0) };
        add(&mut c, &mut q, &[w(0, 100), w(1, 200)]);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), 0) else { panic!() };
        let r = q.remove(i);
        c.on_dispatch(&r, 0);
        c.on_complete(&r, 0);
        add(&mut c, &mut q, &[read(5, 1, 9000, 1)]);
        let Pick::Dispatch(i) = c.pick(&q, Head::default(), NS_PER_MS) else { panic!() };
        assert!(!q[i].write, "the read preempted the write queue's slice");
    }
}
