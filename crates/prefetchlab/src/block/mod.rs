//! Block layer.
pub mod sched;
