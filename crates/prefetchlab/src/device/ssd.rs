//! A flash SSD of the SATA 3 Gb/s era (models.md §4.1): per request
//! `latency + bytes / bandwidth` on one of `channels` independent channels
//! (internal parallelism), chosen as the channel that frees first.
//!
//! The parameters come from a checked `[ssd]` table ([`crate::config::Config::check`]:
//! bandwidths at least [`crate::units::MIN_BANDWIDTH_BYTES_PER_S`], latencies at
//! most [`crate::units::MAX_LATENCY_NS`], 1 to [`crate::config::MAX_SSD_CHANNELS`]
//! channels). Times saturate at the end of the clock rather than wrap.

use super::{Device, DiskRequest, Service};
use crate::config::SsdConfig;
use crate::sim::TimeNs;
use crate::units::{NS_PER_S, SECTOR_BYTES};

pub struct Ssd {
    read_latency_ns: u64,
    write_latency_ns: u64,
    read_bytes_per_s: u64,
    write_bytes_per_s: u64,
    capacity_sectors: u64,
    /// When each channel becomes free.
    channel_free_ns: Vec<TimeNs>,
}

impl Ssd {
    /// An SSD of a checked `[ssd]` table (the engine checks the whole
    /// configuration before building anything).
    pub fn new(cfg: &SsdConfig) -> Ssd {
        Ssd {
            read_latency_ns: cfg.read_latency.0,
            write_latency_ns: cfg.write_latency.0,
            read_bytes_per_s: cfg.read_bandwidth.0.max(1),
            write_bytes_per_s: cfg.write_bandwidth.0.max(1),
            capacity_sectors: cfg.capacity.0 / SECTOR_BYTES,
            channel_free_ns: vec![0; cfg.channels.max(1) as usize],
        }
    }
}

impl Device for Ssd {
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        let bytes = req.sectors as u64 * SECTOR_BYTES;
        let (lat, bw) = if req.write {
            (self.write_latency_ns, self.write_bytes_per_s)
        } else {
            (self.read_latency_ns, self.read_bytes_per_s)
        };
        let xfer = (bytes as u128 * NS_PER_S as u128 / bw as u128) as u64;
        let (ch, free) = self
            .channel_free_ns
            .iter()
            .copied()
            .enumerate()
            .min_by_key(|&(i, t)| (t, i))
            .expect("at least one channel");
        let done_ns = start_ns.max(free).saturating_add(lat).saturating_add(xfer);
        self.channel_free_ns[ch] = done_ns;
        Service { done_ns, seek_distance_cyl: 0, cache_hit: false }
    }
    fn capacity_sectors(&self) -> u64 {
        self.capacity_sectors
    }
    fn position_of(&self, lba_sector: u64) -> u64 {
        lba_sector
    }
    fn max_outstanding(&self) -> usize {
        self.channel_free_ns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_plus_transfer_and_parallel_channels() {
        let cfg = SsdConfig {
            read_latency: crate::config::Duration(100_000),
            read_bandwidth: crate::config::Size(250_000_000),
            channels: 2,
            ..Default::default()
        };
        let mut s = Ssd::new(&cfg);
        let r = DiskRequest { lba_sector: 0, sectors: 256, write: false }; // 128 KiB
        let a = s.service(&r, 0);
        assert_eq!(a.done_ns, 100_000 + 131072 * 1_000_000_000 / 250_000_000);
        let b = s.service(&r, 0);
        assert_eq!(b.done_ns, a.done_ns, "second channel serves in parallel");
        let c = s.service(&r, 0);
        assert_eq!(c.done_ns, 2 * a.done_ns, "third waits for a channel");
    }

    #[test]
    fn times_saturate_at_the_end_of_the_clock() {
        let cfg = SsdConfig {
            read_latency: crate::config::Duration(crate::units::MAX_LATENCY_NS),
            read_bandwidth: crate::config::Size(crate::units::MIN_BANDWIDTH_BYTES_PER_S),
            channels: 1,
            ..Default::default()
        };
        let mut s = Ssd::new(&cfg);
        let r = DiskRequest { lba_sector: 0, sectors: u32::MAX, write: false };
        assert_eq!(s.service(&r, u64::MAX - 5).done_ns, u64::MAX);
    }
}
