//! First come, first served.

use super::{Head, Pick, Queued, Scheduler};
use crate::sim::TimeNs;

pub struct Fcfs;

impl Scheduler for Fcfs {
    fn pick(&mut self, _queue: &[Queued], _head: Head, _now_ns: TimeNs) -> Pick {
        Pick::Dispatch(0)
    }
}
