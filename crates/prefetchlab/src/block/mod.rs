//! The block layer: one request queue per member disk, as in Linux below md.
//!
//! A piece of a logical request (a *part*) enters its disk's queue, where it
//! is merged with a pending request it is contiguous with (back or front
//! merge, up to `max_request`), or becomes a new request. The queue counts
//! allocated requests (pending + in service) for the read-congestion flag
//! with the kernel's hysteresis — on at `nr − nr/8 + 1` (113 for 128), off
//! below `nr − nr/8 − nr/16 − 1` (103) — (algorithms.md §1.3,
//! decisions.md #11b) and asks its [`sched`] which request to dispatch next.
//!
//! **A full queue puts the submitter to sleep** (`block.wait_on_full`, on by
//! default): a part that merges into a pending request needs no request and
//! goes in at once, as in the kernel's `__make_request`; any other part needs
//! a new request, and when the queue already holds `nr_requests` (or others
//! sleep for one already) the part sleeps in the queue's FIFO of waiters,
//! as `get_request_wait` sleeps on the request list's wait queue with
//! exclusive wake-ups, until a completion frees a request ([`BlockLayer::admit`]).
//! The engine then holds the submitting reader too (see `engine.rs`). Each
//! such moment counts in `queue_full_events`, and the time parts slept in
//! `request_sleep_ns`. With `wait_on_full = false` the queue grows past
//! `nr_requests` instead (the foundation's simplification).
//!
//! **Whose request it is.** Each request carries the stream (process) its
//! scheduler keeps state for. By default that is the reader that caused it,
//! as md submits a request's pieces in the caller's context; with
//! `array.io_context = "driver"` ([`BlockLayer::set_driver_context`]) every
//! request carries the array driver's one context, as when a RAID driver
//! sends member-disk I/O from its own kernel thread. A sleeping part still
//! belongs to its reader, which sleeps with it.

pub mod sched;

use crate::config::BlockConfig;
use crate::sim::TimeNs;
use sched::{Head, Pick, Queued, Scheduler};
use std::collections::VecDeque;

pub const NONE: u32 = u32::MAX;

/// Pending-request slots a disk queue allocates up front (Linux's default
/// `nr_requests`); a deeper queue grows when it fills.
const PREALLOCATED_REQUESTS: u32 = 128;

/// One request in a disk queue or in service: the parts it carries are a
/// linked list in the part slab.
#[derive(Debug, Clone, Copy)]
pub struct DiskReq {
    /// What the scheduler sees (its `stream` is the driver's with
    /// `array.io_context = "driver"`).
    pub q: Queued,
    /// The stream whose part made the request.
    pub stream: u32,
    pub disk: u32,
    pub first_part: u32,
    pub last_part: u32,
    /// When it was dispatched to the device.
    pub dispatch_ns: TimeNs,
    /// Array block of the first piece (−1 once merged in front).
    pub array_block: i64,
}

#[derive(Debug, Clone, Copy)]
struct Part {
    io: u32,
    next: u32,
}

/// Per-disk counters.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueueStats {
    pub dispatched: u64,
    pub sectors: u64,
    pub merges: u64,
    pub queue_wait_ns: u64,
    pub congestion_events: u64,
    pub queue_full_events: u64,
    /// Time parts slept for a free request, summed over the parts.
    pub request_sleep_ns: u64,
}

/// The request queue of one disk.
pub struct DiskQueue {
    pending: Vec<Queued>,
    in_service: u32,
    congested: bool,
    on_threshold: u32,
    off_threshold: u32,
    nr_requests: u32,
    sched: Box<dyn Scheduler>,
    head: Head,
    /// A scheduler asked to wait until this time (0 = no timer armed).
    pub wait_until_ns: TimeNs,
    pub stats: QueueStats,
    /// Parts sleeping for a free request, in arrival order.
    sleepers: VecDeque<Sleeper>,
}

/// A part waiting for a request of a full queue.
#[derive(Debug, Clone, Copy)]
struct Sleeper {
    lba_sector: u64,
    sectors: u64,
    pos: u64,
    write: bool,
    stream: u32,
    io: u32,
    array_block: i64,
    since_ns: TimeNs,
}

/// A sleeping part that got its request ([`BlockLayer::admit`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Admitted {
    pub io: u32,
    pub stream: u32,
}

impl DiskQueue {
    fn allocated(&self) -> u32 {
        self.pending.len() as u32 + self.in_service
    }

    fn update_congestion(&mut self) {
        let n = self.allocated();
        if !self.congested && n >= self.on_threshold {
            self.congested = true;
            self.stats.congestion_events += 1;
        } else if self.congested && n < self.off_threshold {
            self.congested = false;
        }
    }

    pub fn is_congested(&self) -> bool {
        self.congested
    }

    pub fn pending(&self) -> usize {
        self.pending.len()
    }

    pub fn in_service(&self) -> u32 {
        self.in_service
    }

    /// Pending plus in service (SARA's per-disk concurrency).
    pub fn outstanding(&self) -> u32 {
        self.allocated()
    }

    /// The `i`-th pending request (arrival order).
    pub fn pending_at(&self, i: usize) -> &Queued {
        &self.pending[i]
    }

    pub fn head(&self) -> Head {
        self.head
    }
}

/// All disk queues, the request slab and the part slab.
pub struct BlockLayer {
    pub queues: Vec<DiskQueue>,
    reqs: Vec<DiskReq>,
    free_reqs: Vec<u32>,
    parts: Vec<Part>,
    free_parts: Vec<u32>,
    max_request_sectors: u64,
    congestion: bool,
    wait_on_full: bool,
    /// Every request carries the driver's context ([`DRIVER_STREAM`]).
    driver_context: bool,
}

/// The stream id the schedulers see for every request when the array
/// driver submits them from its own context.
const DRIVER_STREAM: u32 = 0;

impl BlockLayer {
    pub fn new(cfg: &BlockConfig, scheds: Vec<Box<dyn Scheduler>>) -> Self {
        let nr = cfg.nr_requests;
        let queues = scheds
            .into_iter()
            .map(|sched| DiskQueue {
                // grows with the requests it holds: nr_requests may be up to
                // config::MAX_NR_REQUESTS on each of 1024 disks
                pending: Vec::with_capacity(nr.min(PREALLOCATED_REQUESTS) as usize),
                in_service: 0,
                congested: false,
                on_threshold: nr - nr / 8 + 1,
                off_threshold: nr - nr / 8 - nr / 16 - 1,
                nr_requests: nr,
                sched,
                head: Head::default(),
                wait_until_ns: 0,
                stats: QueueStats::default(),
                sleepers: VecDeque::new(),
            })
            .collect();
        BlockLayer {
            queues,
            reqs: Vec::with_capacity(1024),
            free_reqs: Vec::new(),
            parts: Vec::with_capacity(1024),
            free_parts: Vec::new(),
            max_request_sectors: cfg.max_request.0 / crate::units::SECTOR_BYTES,
            congestion: cfg.congestion,
            wait_on_full: cfg.wait_on_full,
            driver_context: false,
        }
    }

    /// Every request from now on carries the array driver's one context
    /// (`array.io_context = "driver"`) instead of its reader's.
    pub fn set_driver_context(&mut self, on: bool) {
        self.driver_context = on;
    }

    /// Requests pending at the disks (queued plus in service), averaged
    /// over the disks: SARA's per-member-disk concurrency `N`
    /// (decisions.md #4).
    pub fn outstanding_per_disk(&self) -> f64 {
        let total: u64 = self.queues.iter().map(|q| q.outstanding() as u64).sum();
        total as f64 / self.queues.len().max(1) as f64
    }

    /// Whether any member queue is read-congested (md's congested hook
    /// reports the array congested when a member is).
    pub fn any_congested(&self) -> bool {
        self.congestion && self.queues.iter().any(|q| q.congested)
    }

    pub fn req(&self, id: u32) -> &DiskReq {
        &self.reqs[id as usize]
    }

    /// Largest request after merging, in sectors.
    pub fn max_request_sectors(&self) -> u64 {
        self.max_request_sectors
    }

    fn new_part(&mut self, io: u32) -> u32 {
        let p = Part { io, next: NONE };
        match self.free_parts.pop() {
            Some(i) => {
                self.parts[i as usize] = p;
                i
            }
            None => {
                self.parts.push(p);
                (self.parts.len() - 1) as u32
            }
        }
    }

    /// Adds a part of I/O `io` to `disk`'s queue: merged into a pending
    /// request when contiguous and small enough, else a new request — or,
    /// with `wait_on_full`, when the queue holds `nr_requests` (or parts
    /// already sleep for one), the part sleeps until [`BlockLayer::admit`]
    /// gives it one. `sectors` must not exceed `max_request_sectors`.
    /// Returns the request id and whether it was a new request, or `None`
    /// when the part sleeps.
    #[allow(clippy::too_many_arguments)]
    pub fn add_or_sleep(
        &mut self,
        disk: u32,
        lba_sector: u64,
        sectors: u64,
        pos: u64,
        write: bool,
        stream: u32,
        io: u32,
        array_block: i64,
        now_ns: TimeNs,
    ) -> Option<(u32, bool)> {
        if let Some(i) = self.mergeable(disk, lba_sector, sectors, write) {
            return Some((self.merge(disk, i, lba_sector, sectors, pos, io, array_block, now_ns), false));
        }
        let q = &mut self.queues[disk as usize];
        if q.allocated() >= q.nr_requests || !q.sleepers.is_empty() {
            q.stats.queue_full_events += 1;
            if self.wait_on_full {
                let since_ns = now_ns;
                q.sleepers.push_back(Sleeper {
                    lba_sector,
                    sectors,
                    pos,
                    write,
                    stream,
                    io,
                    array_block,
                    since_ns,
                });
                return None;
            }
        }
        Some((self.allocate(disk, lba_sector, sectors, pos, write, stream, io, array_block, now_ns), true))
    }

    /// [`BlockLayer::add_or_sleep`] without sleeping: the queue grows past
    /// `nr_requests` if it must.
    #[allow(clippy::too_many_arguments)]
    pub fn add(
        &mut self,
        disk: u32,
        lba_sector: u64,
        sectors: u64,
        pos: u64,
        write: bool,
        stream: u32,
        io: u32,
        array_block: i64,
        now_ns: TimeNs,
    ) -> (u32, bool) {
        if let Some(i) = self.mergeable(disk, lba_sector, sectors, write) {
            return (self.merge(disk, i, lba_sector, sectors, pos, io, array_block, now_ns), false);
        }
        let q = &mut self.queues[disk as usize];
        if q.allocated() >= q.nr_requests {
            q.stats.queue_full_events += 1;
        }
        (self.allocate(disk, lba_sector, sectors, pos, write, stream, io, array_block, now_ns), true)
    }

    /// After a completion on `disk`: the first sleeping part gets a request
    /// if one is free now. Call until `None`.
    pub fn admit(&mut self, disk: u32, now_ns: TimeNs) -> Option<Admitted> {
        let q = &mut self.queues[disk as usize];
        if q.allocated() >= q.nr_requests {
            return None;
        }
        let z = q.sleepers.pop_front()?;
        q.stats.request_sleep_ns += now_ns - z.since_ns;
        self.allocate(disk, z.lba_sector, z.sectors, z.pos, z.write, z.stream, z.io, z.array_block, now_ns);
        Some(Admitted { io: z.io, stream: z.stream })
    }

    /// Parts sleeping for a request of `disk`.
    pub fn sleepers(&self, disk: u32) -> usize {
        self.queues[disk as usize].sleepers.len()
    }

    /// The first pending request of `disk` the part is contiguous with, of
    /// its direction and with room; contiguity first, as it is what rarely
    /// holds.
    fn mergeable(&self, disk: u32, lba_sector: u64, sectors: u64, write: bool) -> Option<usize> {
        let max = self.max_request_sectors;
        let end = lba_sector + sectors;
        self.queues[disk as usize].pending.iter().position(|r| {
            (r.end_sector == lba_sector || r.lba_sector == end)
                && r.write == write
                && r.end_sector - r.lba_sector + sectors <= max
        })
    }

    /// Merges the part into pending request `i` of `disk`; returns its id.
    #[allow(clippy::too_many_arguments)]
    fn merge(
        &mut self,
        disk: u32,
        i: usize,
        lba_sector: u64,
        sectors: u64,
        pos: u64,
        io: u32,
        array_block: i64,
        now_ns: TimeNs,
    ) -> u32 {
        let part = self.new_part(io);
        let end = lba_sector + sectors;
        let q = &mut self.queues[disk as usize];
        let r = q.pending[i];
        let id = r.id;
        if r.end_sector == lba_sector {
            // back merge: the part goes last
            q.pending[i].end_sector = end;
            let last = self.reqs[id as usize].last_part;
            self.parts[last as usize].next = part;
            self.reqs[id as usize].last_part = part;
        } else {
            // front merge (it ends where the request starts): the part goes first
            q.pending[i].lba_sector = lba_sector;
            q.pending[i].pos = pos;
            self.parts[part as usize].next = self.reqs[id as usize].first_part;
            self.reqs[id as usize].first_part = part;
            self.reqs[id as usize].array_block = array_block;
        }
        q.stats.merges += 1;
        self.reqs[id as usize].q = q.pending[i];
        let merged = q.pending[i];
        q.sched.on_add(&merged, now_ns);
        id
    }

    /// A new request of `disk` for the part; returns its id.
    #[allow(clippy::too_many_arguments)]
    fn allocate(
        &mut self,
        disk: u32,
        lba_sector: u64,
        sectors: u64,
        pos: u64,
        write: bool,
        stream: u32,
        io: u32,
        array_block: i64,
        now_ns: TimeNs,
    ) -> u32 {
        let part = self.new_part(io);
        let end = lba_sector + sectors;
        let context = if self.driver_context { DRIVER_STREAM } else { stream };
        let queued =
            Queued { id: 0, lba_sector, end_sector: end, pos, stream: context, write, arrival_ns: now_ns };
        let req = DiskReq {
            q: queued,
            stream,
            disk,
            first_part: part,
            last_part: part,
            dispatch_ns: 0,
            array_block,
        };
        let id = match self.free_reqs.pop() {
            Some(i) => {
                self.reqs[i as usize] = req;
                i
            }
            None => {
                self.reqs.push(req);
                (self.reqs.len() - 1) as u32
            }
        };
        self.reqs[id as usize].q.id = id;
        let queued = self.reqs[id as usize].q;
        let q = &mut self.queues[disk as usize];
        q.pending.push(queued);
        q.update_congestion();
        q.sched.on_add(&queued, now_ns);
        id
    }

    /// Asks `disk`'s scheduler for the next request; the caller has checked
    /// the device has a free slot.
    pub fn pick(&mut self, disk: u32, now_ns: TimeNs) -> Pick {
        let q = &mut self.queues[disk as usize];
        if q.pending.is_empty() {
            return Pick::Idle;
        }
        q.sched.pick(&q.pending, q.head, now_ns)
    }

    /// Takes `queue[i]` of `disk` out for service.
    pub fn dispatch(&mut self, disk: u32, i: usize, head_pos_end: u64, now_ns: TimeNs) -> u32 {
        let q = &mut self.queues[disk as usize];
        let queued = q.pending.remove(i);
        q.in_service += 1;
        q.head = Head { lba_sector: queued.end_sector, pos: head_pos_end };
        q.stats.dispatched += 1;
        q.stats.sectors += queued.end_sector - queued.lba_sector;
        q.stats.queue_wait_ns += now_ns - queued.arrival_ns;
        q.wait_until_ns = 0;
        q.sched.on_dispatch(&queued, now_ns);
        let r = &mut self.reqs[queued.id as usize];
        r.q = queued;
        r.dispatch_ns = now_ns;
        queued.id
    }

    /// A request finished: frees it and appends the I/Os of its parts to `ios`.
    pub fn complete(&mut self, id: u32, now_ns: TimeNs, ios: &mut Vec<u32>) {
        let r = self.reqs[id as usize];
        let q = &mut self.queues[r.disk as usize];
        q.in_service -= 1;
        q.update_congestion();
        q.sched.on_complete(&r.q, now_ns);
        let mut p = r.first_part;
        while p != NONE {
            ios.push(self.parts[p as usize].io);
            self.free_parts.push(p);
            p = self.parts[p as usize].next;
        }
        self.free_reqs.push(id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{BlockConfig, SchedulerKind};

    fn layer(disks: usize) -> BlockLayer {
        let scheds = (0..disks).map(|_| sched::build(SchedulerKind::Fcfs, 1)).collect();
        BlockLayer::new(&BlockConfig::default(), scheds)
    }

    #[test]
    fn contiguous_parts_merge_up_to_the_limit() {
        let mut b = layer(1);
        let (a, new_a) = b.add(0, 0, 8, 0, false, 0, 10, 0, 0);
        let (m, new_m) = b.add(0, 8, 8, 0, false, 0, 11, 1, 0);
        assert!(new_a && !new_m);
        assert_eq!(a, m);
        let (f, new_f) = b.add(0, 1016, 8, 0, false, 0, 12, 127, 0);
        assert!(new_f, "not contiguous");
        let (g, new_g) = b.add(0, 16, 1010, 0, false, 0, 13, 2, 0);
        assert!(new_g && g != f, "would exceed 512 KiB");
        assert_eq!(b.queues[0].stats.merges, 1);
        let Pick::Dispatch(i) = b.pick(0, 0) else { panic!() };
        let id = b.dispatch(0, i, 0, 5);
        assert_eq!(id, a);
        let mut ios = vec![];
        b.complete(id, 9, &mut ios);
        assert_eq!(ios, vec![10, 11]);
    }

    #[test]
    fn congestion_hysteresis_113_103() {
        let mut b = layer(1);
        for i in 0..112u64 {
            b.add(0, i * 100, 8, 0, false, 0, i as u32, 0, 0);
        }
        assert!(!b.any_congested());
        b.add(0, 200_000, 8, 0, false, 0, 999, 0, 0);
        assert!(b.any_congested(), "113 allocated");
        let mut ios = vec![];
        for _ in 0..10 {
            let id = b.dispatch(0, 0, 0, 0);
            b.complete(id, 0, &mut ios);
        }
        assert!(b.any_congested(), "103 allocated: still congested");
        let id = b.dispatch(0, 0, 0, 0);
        b.complete(id, 0, &mut ios);
        assert!(!b.any_congested(), "102 < 103");
    }

    #[test]
    fn a_full_queue_puts_parts_to_sleep_and_admits_them_in_order() {
        let scheds = (0..1).map(|_| sched::build(SchedulerKind::Fcfs, 1)).collect();
        let cfg = BlockConfig { nr_requests: 4, ..BlockConfig::default() };
        let mut b = BlockLayer::new(&cfg, scheds);
        for i in 0..4u64 {
            assert!(b.add_or_sleep(0, i * 100, 8, 0, false, 0, i as u32, 0, 0).is_some());
        }
        // a fifth request sleeps, and so does a sixth behind it
        assert_eq!(b.add_or_sleep(0, 900, 8, 0, false, 1, 50, 0, 10), None);
        assert_eq!(b.add_or_sleep(0, 700, 8, 0, false, 2, 51, 0, 20), None);
        // a part that merges needs no request: it goes in at once
        assert_eq!(b.add_or_sleep(0, 8, 8, 0, false, 0, 52, 0, 30).map(|r| r.1), Some(false));
        assert_eq!((b.sleepers(0), b.queues[0].stats.queue_full_events), (2, 2));
        assert_eq!(b.admit(0, 40), None, "no request free yet");
        let mut ios = vec![];
        let id = b.dispatch(0, 0, 0, 40);
        b.complete(id, 100, &mut ios);
        assert_eq!(b.admit(0, 100), Some(Admitted { io: 50, stream: 1 }));
        assert_eq!(b.admit(0, 100), None, "the queue is full again");
        let id = b.dispatch(0, 0, 0, 100);
        b.complete(id, 150, &mut ios);
        assert_eq!(b.admit(0, 150), Some(Admitted { io: 51, stream: 2 }));
        assert_eq!(b.queues[0].stats.request_sleep_ns, (100 - 10) + (150 - 20));
        // without waiting the queue grows instead
        let scheds = (0..1).map(|_| sched::build(SchedulerKind::Fcfs, 1)).collect();
        let mut g = BlockLayer::new(&BlockConfig { wait_on_full: false, ..cfg }, scheds);
        for i in 0..6u64 {
            assert!(g.add_or_sleep(0, i * 100, 8, 0, false, 0, i as u32, 0, 0).is_some());
        }
        assert_eq!((g.sleepers(0), g.queues[0].stats.queue_full_events), (0, 2));
    }
}
