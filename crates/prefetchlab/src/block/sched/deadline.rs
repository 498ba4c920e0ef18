//! The Linux deadline I/O scheduler (deadline-iosched.c, 2.6 kernels) with its
//! defaults (models.md §2.3): `read_expire` 500 ms, `write_expire` 5 s,
//! `writes_starved` 2, `fifo_batch` 16.
//!
//! Rules, as in the kernel:
//! * Reads and writes are kept apart. Requests are served in **batches** of one
//!   direction. Within a batch the next request is the next one in ascending
//!   LBA order after where the last dispatched request ended (a one-way
//!   elevator); a batch ends after `fifo_batch` requests or when nothing of
//!   its direction lies ahead.
//! * At a batch start the direction is chosen: reads are preferred, but once
//!   reads have been chosen `writes_starved` times while writes were waiting,
//!   writes get the next batch (the "starved" count restarts).
//! * The first request of a batch is the next one in LBA order if the last
//!   request was of the same direction, there is one ahead, and the oldest
//!   request of that direction has not expired. Otherwise (an expired FIFO
//!   head, a change of direction, or nothing ahead) the batch starts from the
//!   **oldest** request of that direction — this is how the kernel wraps, so
//!   the sweep is C-LOOK-like but restarts at the oldest request rather than
//!   the lowest LBA. Expiry is checked only at batch starts, as in the kernel.
//! * A request expires when `now > arrival + expire` (the kernel's
//!   `time_after`); `arrival_ns` is that of its oldest part, so a merge keeps
//!   the earlier deadline as `deadline_merged_requests` does.
//!
//! Modelling choice: the kernel caches the "next request in sort order" when
//! it dispatches and does not revise it when a new request arrives; here it is
//! recomputed at each pick from the pending requests, so a request that arrived
//! between the head and the cached successor is served in passing. The FIFO
//! order is by `arrival_ns` (ties: queue order).
//!
//! Contract with the queue: a `Dispatch` answer is acted on (the request is
//! sent and `on_dispatch` called) before the next `pick`, as the kernel's
//! dispatch function moves the request itself. Deadline never idles the disk.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;
use crate::units::{NS_PER_MS, NS_PER_S};

/// Default read deadline (models.md §2.3).
pub const READ_EXPIRE_NS: TimeNs = 500 * NS_PER_MS;
/// Default write deadline (models.md §2.3).
pub const WRITE_EXPIRE_NS: TimeNs = 5 * NS_PER_S;
/// Read batches allowed to pass waiting writes before writes get a batch.
pub const WRITES_STARVED: u32 = 2;
/// Requests per batch.
pub const FIFO_BATCH: u32 = 16;

/// The deadline scheduler's state for one queue.
pub struct Deadline {
    /// End sector of the last dispatched request (the kernel's `last_sector`).
    last_end_sector: u64,
    /// Direction of the last dispatched request (`None` before the first).
    last_write: Option<bool>,
    /// Requests dispatched in the current batch.
    batching: u32,
    /// Read batches started while writes were waiting, since the last write batch.
    starved: u32,
}

impl Default for Deadline {
    fn default() -> Self {
        Self::new()
    }
}

impl Deadline {
    pub fn new() -> Self {
        Deadline { last_end_sector: 0, last_write: None, batching: 0, starved: 0 }
    }

    /// The next request of direction `write` in ascending LBA order at or past
    /// the last end sector (no wrap), and the oldest request of that direction.
    fn scan(&self, queue: &[Queued], write: bool) -> (Option<usize>, Option<usize>) {
        let mut next: Option<usize> = None;
        let mut oldest: Option<usize> = None;
        for (i, r) in queue.iter().enumerate() {
            if r.write != write {
                continue;
            }
            if r.lba_sector >= self.last_end_sector && next.is_none_or(|n| r.lba_sector < queue[n].lba_sector)
            {
                next = Some(i);
            }
            if oldest.is_none_or(|o| r.arrival_ns < queue[o].arrival_ns) {
                oldest = Some(i);
            }
        }
        (next, oldest)
    }
}

fn expire_ns(write: bool) -> TimeNs {
    if write {
        WRITE_EXPIRE_NS
    } else {
        READ_EXPIRE_NS
    }
}

impl Scheduler for Deadline {
    fn pick(&mut self, queue: &[Queued], _head: Head, now_ns: TimeNs) -> Pick {
        // Continue the current batch if it has a next request and room.
        if let Some(dir) = self.last_write {
            if self.batching < FIFO_BATCH {
                if let (Some(next), _) = self.scan(queue, dir) {
                    self.batching += 1;
                    return Pick::Dispatch(next);
                }
            }
        }

        // A new batch: choose the direction.
        let reads = queue.iter().any(|r| !r.write);
        let writes = queue.iter().any(|r| r.write);
        let write = if reads {
            if writes {
                let starve_writes = self.starved >= WRITES_STARVED;
                self.starved += 1;
                if starve_writes {
                    self.starved = 0;
                    true
                } else {
                    false
                }
            } else {
                false
            }
        } else {
            self.starved = 0;
            true
        };

        let (next, oldest) = self.scan(queue, write);
        let oldest = oldest.expect("the chosen direction has a pending request");
        let expired = now_ns > queue[oldest].arrival_ns.saturating_add(expire_ns(write));
        let chosen = match next {
            Some(n) if !expired && self.last_write == Some(write) => n,
            _ => oldest,
        };
        self.batching = 1;
        Pick::Dispatch(chosen)
    }

    fn on_dispatch(&mut self, req: &Queued, _now_ns: TimeNs) {
        self.last_end_sector = req.end_sector;
        self.last_write = Some(req.write);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u32, lba_sector: u64, write: bool, arrival_ns: TimeNs) -> Queued {
        Queued { write, arrival_ns, ..super::super::queued(id, lba_sector) }
    }

    /// Serves the queue to exhaustion at time `now_ns`, returning the ids in
    /// service order.
    fn drain(dl: &mut Deadline, mut queue: Vec<Queued>, now_ns: TimeNs) -> Vec<u32> {
        let mut order = Vec::new();
        while !queue.is_empty() {
            let Pick::Dispatch(i) = dl.pick(&queue, Head::default(), now_ns) else {
                panic!("deadline never idles with work pending");
            };
            let r = queue.remove(i);
            dl.on_dispatch(&r, now_ns);
            order.push(r.id);
        }
        order
    }

    #[test]
    fn sweeps_up_then_restarts_at_oldest() {
        let mut dl = Deadline::new();
        // First pick: no previous direction, so the oldest read starts.
        let queue = vec![
            req(0, 500, false, 0),
            req(1, 900, false, 1),
            req(2, 100, false, 2),
            req(3, 700, false, 3),
            req(4, 50, false, 4),
        ];
        // 500 → 700 → 900 (the sweep); nothing ahead, so a new batch starts
        // at the oldest remaining (id 2 at 100, not the lowest LBA, id 4 at
        // 50); id 4 is then behind the head, so the next batch starts at it.
        assert_eq!(drain(&mut dl, queue, 10), vec![0, 3, 1, 2, 4]);
    }

    #[test]
    fn expired_read_is_served_first_at_a_batch_start() {
        let mut dl = Deadline::new();
        dl.on_dispatch(&req(9, 1_000, false, 0), 0);
        dl.batching = FIFO_BATCH; // the running batch is used up
                                  // Id 0 is far behind the head and old; id 1 is just ahead.
        let queue = [req(0, 10, false, 0), req(1, 1_100, false, 100)];
        let now = READ_EXPIRE_NS + 1; // id 0 expired (now > 0 + 500 ms)
        assert_eq!(dl.pick(&queue, Head::default(), now), Pick::Dispatch(0));

        // Not yet expired (exactly at the deadline): the sort order wins.
        let mut dl = Deadline::new();
        dl.on_dispatch(&req(9, 1_000, false, 0), 0);
        dl.batching = FIFO_BATCH;
        assert_eq!(dl.pick(&queue, Head::default(), READ_EXPIRE_NS), Pick::Dispatch(1));
    }

    #[test]
    fn expiry_does_not_break_a_running_batch() {
        let mut dl = Deadline::new();
        dl.on_dispatch(&req(9, 1_000, false, 0), 0);
        dl.batching = 3;
        let queue = [req(0, 10, false, 0), req(1, 1_100, false, 100)];
        assert_eq!(dl.pick(&queue, Head::default(), 10 * READ_EXPIRE_NS), Pick::Dispatch(1));
    }

    #[test]
    fn a_batch_holds_fifo_batch_requests_then_the_expired_read_goes() {
        let mut dl = Deadline::new();
        // A batch is running: one read dispatched, ending at sector 1000.
        dl.on_dispatch(&req(99, 992, false, 0), 0);
        dl.batching = 1;
        // 20 sequential reads ahead (fresh), and an expired read far behind.
        let mut queue: Vec<Queued> = vec![req(100, 10, false, 0)];
        queue.extend((0..20).map(|k| req(k, 1_000 + 8 * k as u64, false, 100)));
        let now = READ_EXPIRE_NS + 50; // id 100 expired, the others not
        let order = drain(&mut dl, queue, now);
        // 15 more reads fill the batch of 16; the next batch starts at the
        // expired read, then the sweep goes on from there.
        let expected: Vec<u32> = (0..15).chain([100]).chain(15..20).collect();
        assert_eq!(order, expected);
    }

    #[test]
    fn writes_get_a_batch_after_writes_starved_read_batches() {
        let mut dl = Deadline::new();
        // Reads in two far-apart groups so every batch ends early (nothing
        // ahead after each group), plus one write waiting throughout.
        let queue = vec![
            req(0, 5_000, false, 0),
            req(1, 1_000, false, 1),
            req(2, 3_000, false, 2),
            req(3, 4_000, false, 3),
            req(10, 9_000, true, 4),
            req(4, 100, false, 5),
        ];
        // Batch 1 (reads, starved 0→1): oldest id 0 at 5000; nothing ahead.
        // Batch 2 (reads, starved 1→2): oldest id 1 at 1000, sweep 3000, 4000.
        // Batch 3: starved 2 ≥ 2 → the write, although read id 4 waits.
        assert_eq!(drain(&mut dl, queue, 1), vec![0, 1, 2, 3, 10, 4]);

        let mut dl = Deadline::new();
        let queue = vec![
            req(0, 5_000, false, 0),
            req(1, 1_000, false, 1),
            req(2, 6_000, false, 2),
            req(3, 500, false, 3),
            req(4, 200, false, 4),
            req(10, 9_000, true, 5),
        ];
        // Batch 1: id 0 (5000), id 2 (6000). Batch 2: oldest id 1 (1000),
        // nothing ahead. Batch 3: the write, ahead of reads 3 and 4. Then
        // reads again: the direction changed, so the oldest (id 3) first.
        assert_eq!(drain(&mut dl, queue, 1), vec![0, 2, 1, 10, 3, 4]);
    }
}
