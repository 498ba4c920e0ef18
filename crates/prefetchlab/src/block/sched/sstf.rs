//! Shortest seek time first (models.md §2.1; DiskSim SSTF): serve the pending
//! request whose start is nearest to the head.
//!
//! Distance is measured on the position key `pos` (the cylinder on an HDD),
//! which is what a seek costs. Ties (same cylinder distance, e.g. several
//! requests on one cylinder) are broken by the LBA distance from where the last
//! request ended, then by arrival order (the lower queue index), so the choice
//! is deterministic. SSTF can starve far requests; that is the policy.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

/// SSTF: nearest cylinder, then nearest LBA, then oldest.
pub struct Sstf;

impl Scheduler for Sstf {
    fn pick(&mut self, queue: &[Queued], head: Head, _now_ns: TimeNs) -> Pick {
        let key = |r: &Queued| (r.pos.abs_diff(head.pos), r.lba_sector.abs_diff(head.lba_sector));
        // min_by_key keeps the first of equal keys: the earlier arrival.
        let (best, _) = queue.iter().enumerate().min_by_key(|(_, r)| key(r)).expect("queue is non-empty");
        Pick::Dispatch(best)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(id: u32, lba_sector: u64, pos: u64) -> Queued {
        Queued { pos, ..super::super::queued(id, lba_sector) }
    }

    fn head(lba_sector: u64, pos: u64) -> Head {
        Head { lba_sector, pos }
    }

    #[test]
    fn picks_nearest_cylinder_either_direction() {
        let queue = [req(0, 10_000, 100), req(1, 6_000, 60), req(2, 3_800, 38)];
        // Head at cylinder 50: 60 is 10 away, 38 is 12 away, 100 is 50 away.
        assert_eq!(Sstf.pick(&queue, head(5_000, 50), 0), Pick::Dispatch(1));
        // Head at cylinder 45: 38 is 7 away (behind), 60 is 15 away.
        assert_eq!(Sstf.pick(&queue, head(4_500, 45), 0), Pick::Dispatch(2));
    }

    #[test]
    fn equal_cylinder_distance_breaks_by_lba_then_arrival() {
        // Both on cylinder 7 (distance 2 from 5); request 1 is nearer in LBA.
        // Request 2 is nearest in LBA but on cylinder 2 (distance 3).
        let queue = [req(0, 790, 7), req(1, 710, 7), req(2, 480, 2)];
        assert_eq!(Sstf.pick(&queue, head(500, 5), 0), Pick::Dispatch(1));
        // Same cylinder and LBA distance: the earlier arrival wins.
        let queue = [req(0, 600, 6), req(1, 400, 4)];
        assert_eq!(Sstf.pick(&queue, head(500, 5), 0), Pick::Dispatch(0));
    }
}
