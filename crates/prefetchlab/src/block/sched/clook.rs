//! C-LOOK (models.md §2.1; DiskSim CYCLE_LBN): a one-way elevator. Serve the
//! pending request with the lowest LBA at or beyond the head (where the last
//! dispatched request ended); when none is ahead, jump back to the lowest
//! pending LBA and sweep up again.
//!
//! Requests starting at the same LBA are served in arrival order.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

/// C-LOOK: ascending LBA from the head, wrapping to the lowest.
pub struct CLook;

impl Scheduler for CLook {
    fn pick(&mut self, queue: &[Queued], head: Head, _now_ns: TimeNs) -> Pick {
        // Key: (behind the head?, LBA). Requests ahead sort first, lowest LBA
        // first; if all are behind, the lowest LBA overall wins (the wrap).
        let key = |r: &Queued| (r.lba_sector < head.lba_sector, r.lba_sector);
        // min_by_key keeps the first of equal keys: the earlier arrival.
        let (best, _) = queue.iter().enumerate().min_by_key(|(_, r)| key(r)).expect("queue is non-empty");
        Pick::Dispatch(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u32, lba_sector: u64) -> Queued {
        super::super::queued(id, lba_sector)
    }

    fn head(lba_sector: u64) -> Head {
        Head { lba_sector, pos: lba_sector / 100 }
    }

    /// Runs the elevator to exhaustion and returns the LBAs in service order.
    fn drain(mut queue: Vec<Queued>, mut h: Head) -> Vec<u64> {
        let mut order = Vec::new();
        while !queue.is_empty() {
            let Pick::Dispatch(i) = CLook.pick(&queue, h, 0) else {
                panic!("C-LOOK never idles with work pending");
            };
            let r = queue.remove(i);
            h = Head { lba_sector: r.end_sector, pos: r.end_sector / 100 };
            order.push(r.lba_sector);
        }
        order
    }

    #[test]
    fn picks_lowest_lba_ahead_not_nearest() {
        // 480 is nearer to 500 than 900 is, but it is behind the head.
        let queue = [req(0, 900), req(1, 480), req(2, 700)];
        assert_eq!(CLook.pick(&queue, head(500), 0), Pick::Dispatch(2));
    }

    #[test]
    fn wraps_to_lowest_when_nothing_ahead() {
        let queue = [req(0, 300), req(1, 100), req(2, 200)];
        assert_eq!(CLook.pick(&queue, head(500), 0), Pick::Dispatch(1));
        let order = drain(vec![req(0, 300), req(1, 900), req(2, 100), req(3, 600), req(4, 50)], head(500));
        assert_eq!(order, vec![600, 900, 50, 100, 300]);
    }

    #[test]
    fn request_at_the_head_is_ahead_and_same_lba_keeps_arrival_order() {
        let queue = [req(0, 100), req(1, 500), req(2, 500)];
        assert_eq!(CLook.pick(&queue, head(500), 0), Pick::Dispatch(1));
    }
}
