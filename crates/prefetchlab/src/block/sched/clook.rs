//! STUB: to be written (models.md §2.1).

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

pub struct CLook;

impl Scheduler for CLook {
    fn pick(&mut self, _queue: &[Queued], _head: Head, _now_ns: TimeNs) -> Pick {
        Pick::Dispatch(0)
    }
}
