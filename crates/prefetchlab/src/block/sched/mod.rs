//! I/O schedulers of the per-disk request queues (models.md §2), one file each:
//! FCFS, SSTF, C-LOOK, deadline, anticipatory and CFQ (the last three with the
//! kernel defaults).
//!
//! The queue owns the pending requests (in arrival order, after merging) and
//! asks its scheduler which one to dispatch when the device has a free slot.
//! A scheduler may also keep the device idle for a while (anticipation): it
//! then answers [`Pick::WaitUntil`] and is asked again at that time or when a
//! new request arrives, whichever comes first.

pub mod anticipatory;
pub mod cfq;
pub mod clook;
pub mod deadline;
pub mod fcfs;
pub mod sstf;

use crate::config::{DiskConfig, SchedulerKind};
use crate::sim::TimeNs;

/// A request waiting in a disk's queue, as a scheduler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Queued {
    /// The queue's handle for this request.
    pub id: u32,
    /// First sector on the disk.
    pub lba_sector: u64,
    /// One past the last sector.
    pub end_sector: u64,
    /// Position key of the first sector (cylinder on an HDD).
    pub pos: u64,
    /// The stream (process) that issued it.
    pub stream: u32,
    pub write: bool,
    /// Arrival of its oldest part (deadlines count from here).
    pub arrival_ns: TimeNs,
}

/// Where the head is: what the last dispatched request left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Head {
    /// One past the last sector of the last dispatched request.
    pub lba_sector: u64,
    /// Its position key.
    pub pos: u64,
}

/// A scheduler's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Dispatch `queue[i]`.
    Dispatch(usize),
    /// Dispatch nothing now. The queue asks again on the next arrival and
    /// after every completion (AS answers this while the anticipated
    /// stream's read is still on the device, or while a batch drains).
    Idle,
    /// Keep the device idle until this time (or until a new arrival).
    WaitUntil(TimeNs),
}

/// An I/O scheduler for one disk queue.
pub trait Scheduler {
    /// Chooses the next request. `queue` is non-empty and in arrival order.
    fn pick(&mut self, queue: &[Queued], head: Head, now_ns: TimeNs) -> Pick;
    /// A request entered the queue (also called after a merge, with the merged request).
    fn on_add(&mut self, _req: &Queued, _now_ns: TimeNs) {}
    /// `req` was dispatched to the device.
    fn on_dispatch(&mut self, _req: &Queued, _now_ns: TimeNs) {}
    /// `req` completed.
    fn on_complete(&mut self, _req: &Queued, _now_ns: TimeNs) {}
}

/// Builds the scheduler the configuration names, for a disk served by `streams` streams.
pub fn build(kind: SchedulerKind, streams: usize) -> Box<dyn Scheduler> {
    match kind {
        SchedulerKind::Fcfs => Box::new(fcfs::Fcfs),
        SchedulerKind::Sstf => Box::new(sstf::Sstf),
        SchedulerKind::Clook => Box::new(clook::CLook),
        SchedulerKind::Deadline => Box::new(deadline::Deadline::new()),
        SchedulerKind::Anticipatory => Box::new(anticipatory::Anticipatory::new(streams)),
        SchedulerKind::Cfq => Box::new(cfq::Cfq::new(streams)),
    }
}

/// The schedulers of `disks` queues fed by the same `streams` streams. Each
/// queue has its own scheduler; the anticipatory ones share one table of
/// per-process state (`as_io_context` hangs off the task, not the queue, so
/// a process's think time, seek distance and queued reads are counted over
/// every disk it reads from). CFQ's per-process state is per queue in the
/// kernel too (a `cfq_io_context` per process and queue). `disk` names the
/// scheduler and its options (`cfq_low_latency`, `cfq_noidle_tree`).
pub fn build_all(disk: &DiskConfig, streams: usize, disks: usize) -> Vec<Box<dyn Scheduler>> {
    match disk.scheduler {
        SchedulerKind::Anticipatory => {
            let contexts = anticipatory::IoContexts::new(streams);
            (0..disks)
                .map(|_| {
                    Box::new(anticipatory::Anticipatory::sharing(contexts.clone())) as Box<dyn Scheduler>
                })
                .collect()
        }
        SchedulerKind::Cfq => (0..disks)
            .map(|_| {
                Box::new(
                    cfq::Cfq::new(streams)
                        .with_low_latency(disk.cfq_low_latency)
                        .with_noidle_tree(disk.cfq_noidle_tree),
                ) as Box<dyn Scheduler>
            })
            .collect(),
        kind => (0..disks).map(|_| build(kind, streams)).collect(),
    }
}

/// An 8-sector read request of stream 0 arriving at `id` ns, for the schedulers' tests.
#[cfg(test)]
pub(crate) fn queued(id: u32, lba_sector: u64) -> Queued {
    Queued {
        id,
        lba_sector,
        end_sector: lba_sector + 8,
        pos: lba_sector / 100,
        stream: 0,
        write: false,
        arrival_ns: id as u64,
    }
}
