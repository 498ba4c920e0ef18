//! Informed prefetching (algorithms.md §8): the application discloses its
//! future reads (hints) and the policy decides how far ahead to fetch them.
//!
//! | scheme | file | spec |
//! |---|---|---|
//! | IPODS: planning figures and the paper's step-level model | [`ipods`] | §8.2 |
//!
//! TIP's cost–benefit allocation (§8.1) and IPODS inside the simulated
//! topology (clients, network, storage nodes) are issue 11's next steps.

pub mod ipods;
