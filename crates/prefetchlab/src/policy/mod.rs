//! Prefetching policies: plain state machines that see accesses, hits,
//! misses, completions and evictions, and ask for prefetches. They never
//! touch the clock or the queues, so each is unit-tested on its paper's
//! worked example without the engine.
//!
//! * [`readahead`] — file-level readahead in the host page cache
//!   (none, OBL, SEQP, Linux 2.6.18 and on-demand); algorithms.md §1–§2.
//! * [`block`] — block-level prefetching in the array cache (OBL, FS, FA,
//!   AS, AMP, SP, LSP, ASP, TaP); algorithms.md §2, §5–§7, §9.
//! * [`informed`] — informed prefetching from hints: IPODS's planning
//!   figures and the step-level model of its pipeline (HDD → SSD →
//!   client); algorithms.md §8.

pub mod block;
pub mod informed;
pub mod readahead;
