//! DiskSim validation replay and rms demerit figure. STUB: to be written.

use crate::error::{Error, Result};
use std::path::Path;

/// The outcome of replaying a validation trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub rms_ms: f64,
    pub rms_exact_ms: f64,
    pub mean_sim_ms: f64,
    pub mean_real_ms: f64,
    pub requests: u64,
}

/// Replays `trace` on the drive of `spec` (`.parv` or `.diskspecs`), with
/// DiskSim parameters overridden by name.
pub fn validate(spec: &Path, trace: &Path, overrides: &[(String, f64)]) -> Result<Validation> {
    let _ = (trace, overrides);
    Err(Error::input(spec.display().to_string(), 0, "drive validation is not written yet"))
}
