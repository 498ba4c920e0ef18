//! The drive's own command queue (DiskSim's `Max queue length` and the
//! disk's `disksim_ioqueue`; models.md §2.4).
use super::params::QueueParams;

/// The drive's queue: how many commands it takes at once.
#[derive(Debug, Clone)]
pub struct DriveQueue {
    pub depth: u32,
    pub policy: u32,
}

impl DriveQueue {
    pub fn new(p: &QueueParams) -> Self {
        DriveQueue { depth: p.max_queue_length.max(1), policy: p.policy }
    }
}
