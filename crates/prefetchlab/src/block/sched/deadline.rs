//! STUB: to be written (models.md §2.3 deadline).

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

pub struct Deadline;

impl Deadline {
    pub fn new() -> Self {
        Deadline
    }
}

impl Scheduler for Deadline {
    fn pick(&mut self, _queue: &[Queued], _head: Head, _now_ns: TimeNs) -> Pick {
        Pick::Dispatch(0)
    }
}
