//! The array layer (the md driver): maps logical block requests onto member
//! disks, counting every split, with an optional block cache in the RAID
//! layer where block-level prefetching lives.
//!
//! * [`layout`] — single disk, RAID-0, RAID-5 (left-symmetric), RAID-6, RAID-10 n2.
//! * [`cache`] — the array cache (block granular, LRU, its own budget).
//! * [`write`](mod@write) — md's small-write planner: the pre-reads (read-modify-write or
//!   reconstruct-write, per stripe row) and the writes of a RAID write.

pub mod cache;
pub mod layout;
pub mod write;

pub use cache::ArrayCache;
pub use layout::{ArrayLayout, Extent};
