//! A network link (models.md §4.2): `T(S) = latency + S / bandwidth`, one
//! FIFO per direction (full duplex). Reads travel server → client, writes
//! client → server; a message starts when its direction is free.

use super::{Device, DiskRequest, Service};
use crate::sim::TimeNs;
use crate::units::{NS_PER_S, SECTOR_BYTES};

pub struct NetLink {
    latency_ns: u64,
    bytes_per_s: u64,
    /// When each direction's wire is free: [to client, to server].
    free_ns: [TimeNs; 2],
}

impl NetLink {
    /// A 1 Gb/s Ethernet link: 117 MB/s goodput, 75 µs one-way latency.
    pub fn gigabit() -> NetLink {
        NetLink::new(75_000, 117_000_000)
    }

    pub fn new(latency_ns: u64, bytes_per_s: u64) -> NetLink {
        NetLink { latency_ns, bytes_per_s: bytes_per_s.max(1), free_ns: [0, 0] }
    }
}

impl Device for NetLink {
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        let bytes = req.sectors as u64 * SECTOR_BYTES;
        let wire_ns = (bytes as u128 * NS_PER_S as u128 / self.bytes_per_s as u128) as u64;
        let dir = req.write as usize;
        let begin = start_ns.max(self.free_ns[dir]);
        self.free_ns[dir] = begin + wire_ns;
        Service { done_ns: begin + wire_ns + self.latency_ns, seek_distance_cyl: 0, cache_hit: false }
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
}
