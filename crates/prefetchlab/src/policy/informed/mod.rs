//! Informed prefetching (algorithms.md §8): the application discloses its
//! future reads (hints) and the policy decides how far ahead to fetch them.
//!
//! | scheme | file | spec |
//! |---|---|---|
//! | `informed.policy = "tip"`: hinted reads fetched into the array cache up to the prefetch horizon ahead, as deep as the cost–benefit against the LRU cache allows | [`tip`] | §8.1 |
//! | IPODS: planning figures and the paper's step-level model | [`ipods`] | §8.2 |
//!
//! IPODS inside the simulated topology (clients, network, storage nodes)
//! is issue 11's next step.

pub mod ipods;
pub mod tip;

pub use tip::Tip;
