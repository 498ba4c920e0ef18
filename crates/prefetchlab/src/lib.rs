//! # prefetchlab — the engine
//!
//! A deterministic, trace-driven simulator of prefetching (readahead) on
//! striped disk arrays. One read travels the stack top to bottom, one folder
//! per layer (see `DESIGN.md`):
//!
//! ```text
//! workload ─► fs ─► cache (page cache + readahead policy) ─► array (layout,
//! array cache, block policy) ─► block (per-disk queues, merging, congestion,
//! schedulers) ─► device (HDD, SSD, network) ─► completion back up
//! ```
//!
//! The block layer sits below the array mapping, as in Linux md: a request
//! is split by the md driver and each piece enters its member disk's request
//! queue, where it is merged, counted for congestion and scheduled.
//!
//! [`simulate`] runs one configuration and returns a [`Report`].

pub mod array;
pub mod block;
pub mod cache;
pub mod cache_only;
pub mod config;
pub mod device;
pub mod engine;
pub mod error;
pub mod fs;
pub mod metrics;
pub mod policy;
pub mod sim;
pub mod topology;
pub mod trace;
pub mod units;
pub mod workload;

pub use config::Config;
pub use engine::{check, simulate, simulate_with_progress, Progress};
pub use error::{Error, Result};
pub use metrics::Report;

/// The version written into every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A fingerprint of the sources this engine was built from (16 hex digits,
/// `build.rs`): two engines with the same fingerprint give the same results.
/// The version alone does not say so — it stays the same while the model
/// changes — so stored results are reused only under the same fingerprint.
pub const ENGINE_BUILD: &str = env!("PREFETCHLAB_ENGINE_BUILD");
