//! Assembles the stack of one run and drives it. STUB: being written.

use crate::config::Config;
use crate::error::{Error, Result};
use crate::metrics::Report;

/// Runs one configuration to the end and reports what it measured.
pub fn simulate(cfg: &Config) -> Result<Report> {
    let _ = cfg;
    Err(Error::config("", "the engine is not assembled yet"))
}
