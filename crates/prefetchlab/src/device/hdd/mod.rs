//! The mechanical drive model (models.md §1).
//! STUB (fixed-cost model): to be written.

use super::{DiskRequest, Service};
use crate::error::{Error, Result};
use crate::sim::{Rng, TimeNs};
use std::collections::BTreeMap;

pub struct Hdd {
    capacity_sectors: u64,
}

impl Hdd {
    /// Builds a drive from a preset name or a path to a DiskSim `.diskspecs`/`.parv`,
    /// with the on-drive cache on or off and DiskSim parameters overridden by name.
    pub fn from_model(model: &str, cache: bool, overrides: &BTreeMap<String, f64>, rng: Rng) -> Result<Hdd> {
        let _ = (cache, overrides, rng);
        match model {
            "cheetah-15k5" | "cheetah-15k4" | "barracuda-7200.10" | "wd10evvs" | "wd5000aaks" => {
                Ok(Hdd { capacity_sectors: 143_374_738 })
            }
            _ => Err(Error::config("disk.model", format!("unknown drive `{model}`"))),
        }
    }
}

impl super::Device for Hdd {
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        Service {
            done_ns: start_ns + 5_000_000 + req.sectors as u64 * 5_000,
            seek_distance_cyl: 0,
            cache_hit: false,
        }
    }
    fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }
    fn position_of(&self, lba_sector: u64) -> u64 {
        lba_sector / 2000
    }
}
