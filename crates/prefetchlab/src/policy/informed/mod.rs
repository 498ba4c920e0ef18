//! Informed prefetching (algorithms.md §8): the application discloses its
//! future reads (hints) and the policy decides how far ahead to fetch them.
//!
//! | scheme | file | spec |
//! |---|---|---|
//! | `informed.policy = "tip"`: hinted reads fetched up to the prefetch horizon ahead, into the array cache | [`tip`] | §8.1 |
//! | IPODS: planning figures and the paper's step-level model | [`ipods`] | §8.2 |
//!
//! TIP's cost–benefit allocation against the LRU cache (§8.1) and IPODS
//! inside the simulated topology (clients, network, storage nodes) are
//! issue 11's next steps.

pub mod ipods;
pub mod tip;

pub use tip::Tip;
