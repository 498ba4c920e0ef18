//! The drive's own command queue (DiskSim's `Max queue length` and the
//! disk's `disksim_ioqueue`; models.md §2.4 NCQ / TCQ).
//!
//! The host may hand the drive up to `depth` commands; the drive serves
//! one at a time and, each time the arm is free, picks the next by its
//! scheduling policy, in DiskSim's numbering:
//!
//! | policy | DiskSim name | picks |
//! |---|---|---|
//! | 1 | FCFS | the oldest |
//! | 2, 5 | ELEVATOR_LBN / _CYL | the nearest ahead in the sweep direction (block / cylinder), reversing at the end |
//! | 3, 6 | CYCLE_LBN / _CYL | the nearest ahead, wrapping to the lowest (C-LOOK) |
//! | 4, 7 | SSTF_LBN / _CYL | the nearest (block / cylinder distance) |
//! | 8, 9 | SPTF_OPT / SPCTF_OPT | the shortest positioning time (seek + rotational wait) from where the arm and platter are; 9 counts a cache hit as none |
//! | 10 | SATF_OPT | the shortest access time (positioning + transfer) |
//! | 11–16, 20, 21, 24–26 | the aged and weighted SPTF/SATF variants | as 8 (ageing is not modelled) |
//! | 17, 19 | VSCAN_LBN, PRI_VSCAN_LBN | as 4: DiskSim passes VSCAN(R) its `vscan_cyls`, which nothing sets (0), and VSCAN(0) is SSTF; PRI_VSCAN's priorities are not modelled |
//! | 18 | VSCAN_CYL | as 7, for the same reason |
//!
//! DiskSim 4.0 agrees pick for pick on 1, 3, 4, 6, 7, 8, 17 and 19
//! (`tests/disk_queue.rs`). Its ELEVATOR_LBN / _CYL and VSCAN_CYL serve
//! random reads 8 deep almost as FCFS does (5.757 / 5.749 / 5.769 ms on the
//! Cheetah 15K.5 against FCFS 5.794, SSTF 4.334; for VSCAN_CYL the switch
//! that follows a pick falls through without recording the arm's position):
//! the model schedules them as their definitions say (the elevator 4.350 ms)
//! rather than copy that.
//!
//! | policy | DiskSim name | picks |
//! |---|---|---|
//! | 22, 23 | SDF | as 7 (shortest distance first) |
//! | 27 and above | BATCH_FCFS and later | as 1 |
//!
//! Ties go to the oldest request. DiskSim keeps the first it finds in its
//! list, which for every policy but FCFS it keeps sorted by cylinder,
//! surface and block (by block alone with `Cylinder mapping strategy` 0),
//! so an exact tie may go otherwise there; for the positional policies see
//! `Hdd::pick`. Read and write initiation delays are 0 in every shipped
//! file and not modelled.

use super::geometry::Loc;
use super::params::QueueParams;
use crate::device::DiskRequest;

/// How the drive orders its queue (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Fcfs,
    Elevator { by_cyl: bool },
    Cycle { by_cyl: bool },
    Sstf { by_cyl: bool },
    Sptf { cache: bool },
    Satf,
}

impl Policy {
    /// DiskSim's `Scheduling policy` number.
    pub fn from_disksim(n: u32) -> Policy {
        match n {
            2 => Policy::Elevator { by_cyl: false },
            5 => Policy::Elevator { by_cyl: true },
            3 => Policy::Cycle { by_cyl: false },
            6 => Policy::Cycle { by_cyl: true },
            4 | 17 | 19 => Policy::Sstf { by_cyl: false },
            7 | 18 | 22 | 23 => Policy::Sstf { by_cyl: true },
            8 | 11..=16 | 20 | 21 | 24..=26 => Policy::Sptf { cache: false },
            9 => Policy::Sptf { cache: true },
            10 => Policy::Satf,
            _ => Policy::Fcfs,
        }
    }
}

/// A command waiting in the drive.
#[derive(Debug, Clone, Copy)]
pub struct Held {
    pub id: u32,
    pub req: DiskRequest,
    /// Drive time it arrived.
    pub arrival: f64,
    /// Where its first block is (located once, when it arrives: the
    /// positional policies weigh every held command at every pick).
    pub loc: Option<Loc>,
}

/// The queue and what it holds.
#[derive(Debug, Clone)]
pub struct DriveQueue {
    /// Commands the drive accepts at once (1: no queuing).
    pub depth: u32,
    pub policy: Policy,
    pub held: Vec<Held>,
    /// The drive is serving a command (reported to the host, not yet
    /// completed).
    pub busy: bool,
    /// Sweep direction of the elevator (true: upwards).
    pub up: bool,
}

impl DriveQueue {
    pub fn new(p: &QueueParams) -> Self {
        let depth = p.max_queue_length.max(1);
        DriveQueue {
            depth,
            policy: Policy::from_disksim(p.policy),
            held: Vec::with_capacity(depth as usize),
            busy: false,
            up: true,
        }
    }

    /// The index of the next command among `held` for a position-free
    /// policy, the arm at block `lba` / cylinder `cyl`; `None` for the
    /// positional policies (the drive computes those itself).
    pub fn pick_simple(&mut self, lba: u64, cyl: u64, cyl_of: impl Fn(u64) -> u64) -> Option<usize> {
        if self.held.is_empty() {
            return None;
        }
        let key = |h: &Held, by_cyl: bool| if by_cyl { cyl_of(h.req.lba_sector) } else { h.req.lba_sector };
        let here = |by_cyl: bool| if by_cyl { cyl } else { lba };
        match self.policy {
            Policy::Fcfs => Some(0),
            Policy::Sstf { by_cyl } => {
                let h = here(by_cyl);
                (0..self.held.len()).min_by_key(|&i| (key(&self.held[i], by_cyl).abs_diff(h), i))
            }
            Policy::Cycle { by_cyl } => {
                let h = here(by_cyl);
                let ahead = (0..self.held.len())
                    .filter(|&i| key(&self.held[i], by_cyl) >= h)
                    .min_by_key(|&i| (key(&self.held[i], by_cyl), i));
                ahead.or_else(|| (0..self.held.len()).min_by_key(|&i| (key(&self.held[i], by_cyl), i)))
            }
            Policy::Elevator { by_cyl } => {
                let h = here(by_cyl);
                for _ in 0..2 {
                    let pick = if self.up {
                        (0..self.held.len())
                            .filter(|&i| key(&self.held[i], by_cyl) >= h)
                            .min_by_key(|&i| (key(&self.held[i], by_cyl), i))
                    } else {
                        (0..self.held.len())
                            .filter(|&i| key(&self.held[i], by_cyl) <= h)
                            .min_by_key(|&i| (u64::MAX - key(&self.held[i], by_cyl), i))
                    };
                    if pick.is_some() {
                        return pick;
                    }
                    self.up = !self.up;
                }
                Some(0)
            }
            Policy::Sptf { .. } | Policy::Satf => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(policy: u32, lbas: &[u64]) -> DriveQueue {
        let mut q = DriveQueue::new(&QueueParams { max_queue_length: 8, policy, cylinder_mapping: 0 });
        for (i, &l) in lbas.iter().enumerate() {
            q.held.push(Held {
                id: i as u32,
                req: DiskRequest { lba_sector: l, sectors: 8, write: false },
                arrival: i as f64,
                loc: None,
            });
        }
        q
    }

    #[test]
    fn simple_policies_pick_as_disksim_numbers_say() {
        let lbas = [500, 100, 900, 450];
        let cyl = |l: u64| l / 10;
        assert_eq!(q(1, &lbas).pick_simple(480, 48, cyl), Some(0));
        assert_eq!(q(4, &lbas).pick_simple(470, 47, cyl), Some(3)); // 450 is 20 away, 500 30
        assert_eq!(q(3, &lbas).pick_simple(600, 60, cyl), Some(2)); // ahead: 900
        assert_eq!(q(3, &lbas).pick_simple(950, 95, cyl), Some(1)); // wrap to 100
        let mut e = q(2, &lbas);
        e.up = false;
        assert_eq!(e.pick_simple(480, 48, cyl), Some(3)); // down: 450
        assert_eq!(q(8, &lbas).pick_simple(0, 0, cyl), None);
        assert_eq!(Policy::from_disksim(8), Policy::Sptf { cache: false });
        assert_eq!(Policy::from_disksim(99), Policy::Fcfs);
        // VSCAN(0) is SSTF
        assert_eq!(Policy::from_disksim(17), Policy::Sstf { by_cyl: false });
        assert_eq!(Policy::from_disksim(19), Policy::Sstf { by_cyl: false });
        assert_eq!(Policy::from_disksim(18), Policy::Sstf { by_cyl: true });
        // the upward sweep takes the nearest ahead even when one behind is nearer
        assert_eq!(q(2, &lbas).pick_simple(460, 46, cyl), Some(0)); // 500, not 450
    }
}
