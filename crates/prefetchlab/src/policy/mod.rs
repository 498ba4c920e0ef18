//! Prefetching policies: plain state machines that see accesses, hits,
//! misses, completions and evictions, and ask for prefetches. They never
//! touch the clock or the queues, so each is unit-tested on its paper's
//! worked example without the engine.
//!
//! * [`readahead`] — file-level readahead in the host page cache
//!   (none, OBL, SEQP, Linux 2.6.18 and on-demand); algorithms.md §1–§2.
//! * [`block`] — block-level prefetching in the array cache (none, OBL on
//!   sequential misses); algorithms.md §2.

pub mod block;
pub mod readahead;
