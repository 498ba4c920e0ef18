//! STUB: to be written (models.md §2.1).

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

pub struct Sstf;

impl Scheduler for Sstf {
    fn pick(&mut self, _queue: &[Queued], _head: Head, _now_ns: TimeNs) -> Pick {
        Pick::Dispatch(0)
    }
}
