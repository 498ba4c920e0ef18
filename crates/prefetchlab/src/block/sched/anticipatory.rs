//! STUB: to be written (models.md §2.2 anticipatory).

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

pub struct Anticipatory;

impl Anticipatory {
    pub fn new(_streams: usize) -> Self {
        Anticipatory
    }
}

impl Scheduler for Anticipatory {
    fn pick(&mut self, _queue: &[Queued], _head: Head, _now_ns: TimeNs) -> Pick {
        Pick::Dispatch(0)
    }
}
