//! Workloads. TODO
