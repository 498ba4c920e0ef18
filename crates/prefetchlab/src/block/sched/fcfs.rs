//! First come, first served (models.md §2.1; DiskSim policy 1): the request
//! that has waited longest is served next, wherever it lies on the disk.
//!
//! The queue keeps its requests in arrival order, so this is always the first
//! one. A merged request keeps the place of its oldest part.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

/// FCFS: always `queue[0]`.
pub struct Fcfs;

impl Scheduler for Fcfs {
    fn pick(&mut self, _queue: &[Queued], _head: Head, _now_ns: TimeNs) -> Pick {
        Pick::Dispatch(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u32, lba_sector: u64) -> Queued {
        super::super::queued(id, lba_sector)
    }

    #[test]
    fn serves_in_arrival_order_regardless_of_position() {
        let queue = [req(0, 900_000), req(1, 8), req(2, 100)];
        let head = Head { lba_sector: 100, pos: 0 };
        assert_eq!(Fcfs.pick(&queue, head, 0), Pick::Dispatch(0));
        assert_eq!(Fcfs.pick(&queue[1..], head, 0), Pick::Dispatch(0));
    }
}
