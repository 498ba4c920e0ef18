//! A network link (models.md §4.2): `T(S) = latency + S / bandwidth`, one
//! FIFO per direction (full duplex). Reads travel server → client, writes
//! client → server; a message starts when its direction is free.
//!
//! The parameters are checked when the link is made: the bandwidth at least
//! [`MIN_BANDWIDTH_BYTES_PER_S`], the latency at most [`MAX_LATENCY_NS`]
//! (the same bounds as the SSD's). Times saturate at the end of the clock
//! rather than wrap.

use super::{Device, DiskRequest, Service};
use crate::sim::TimeNs;
use crate::units::{check_bandwidth, check_latency, NS_PER_S, SECTOR_BYTES};
#[cfg(doc)]
use crate::units::{MAX_LATENCY_NS, MIN_BANDWIDTH_BYTES_PER_S};

#[derive(Debug)]
pub struct NetLink {
    latency_ns: u64,
    bytes_per_s: u64,
    /// When each direction's wire is free: [to client, to server].
    free_ns: [TimeNs; 2],
}

impl NetLink {
    /// A 1 Gb/s Ethernet link: 117 MB/s goodput, 75 µs one-way latency.
    pub fn gigabit() -> NetLink {
        NetLink { latency_ns: 75_000, bytes_per_s: 117_000_000, free_ns: [0, 0] }
    }

    /// A link of the given one-way latency and bandwidth, or a message naming
    /// the parameter that makes no sense (a zero or tiny bandwidth, a latency
    /// over a second).
    pub fn new(latency_ns: u64, bytes_per_s: u64) -> Result<NetLink, String> {
        check_latency(latency_ns).map_err(|m| format!("network link latency {m}"))?;
        check_bandwidth(bytes_per_s).map_err(|m| format!("network link bandwidth {m}"))?;
        Ok(NetLink { latency_ns, bytes_per_s, free_ns: [0, 0] })
    }
}

impl Device for NetLink {
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        let bytes = req.sectors as u64 * SECTOR_BYTES;
        let wire_ns = (bytes as u128 * NS_PER_S as u128 / self.bytes_per_s as u128) as u64;
        let dir = req.write as usize;
        let begin = start_ns.max(self.free_ns[dir]);
        self.free_ns[dir] = begin.saturating_add(wire_ns);
        Service {
            done_ns: self.free_ns[dir].saturating_add(self.latency_ns),
            seek_distance_cyl: 0,
            cache_hit: false,
        }
    }
    fn capacity_sectors(&self) -> u64 {
        u64::MAX / SECTOR_BYTES
    }
    fn position_of(&self, lba_sector: u64) -> u64 {
        lba_sector
    }
    fn max_outstanding(&self) -> usize {
        usize::MAX
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_mib_takes_about_nine_ms_and_directions_are_independent() {
        let mut l = NetLink::gigabit();
        let mib = DiskRequest { lba_sector: 0, sectors: 2048, write: false };
        let a = l.service(&mib, 0);
        assert!((8_900_000..9_100_000).contains(&a.done_ns), "{}", a.done_ns);
        let b = l.service(&mib, 0);
        assert_eq!(b.done_ns - a.done_ns, a.done_ns - 75_000, "same direction queues FIFO");
        let w = l.service(&DiskRequest { write: true, ..mib }, 0);
        assert_eq!(w.done_ns, a.done_ns, "the other direction is free");
    }

    #[test]
    fn new_checks_its_parameters() {
        let g = NetLink::new(75_000, 117_000_000).unwrap();
        assert_eq!((g.latency_ns, g.bytes_per_s), (75_000, 117_000_000));
        for bw in [0, 1, 999_999] {
            let e = NetLink::new(75_000, bw).unwrap_err();
            assert!(e.starts_with("network link bandwidth must be at least 1000000"), "{e}");
        }
        let e = NetLink::new(2 * NS_PER_S, 117_000_000).unwrap_err();
        assert!(e.starts_with("network link latency must be at most 1s"), "{e}");
        assert!(NetLink::new(0, u64::MAX).is_ok(), "an ideal link is allowed");
    }

    #[test]
    fn times_saturate_at_the_end_of_the_clock() {
        let mut l = NetLink::new(NS_PER_S, 1_000_000).unwrap();
        let big = DiskRequest { lba_sector: 0, sectors: u32::MAX, write: false };
        let s = l.service(&big, u64::MAX - 10);
        assert_eq!(s.done_ns, u64::MAX);
    }
}
