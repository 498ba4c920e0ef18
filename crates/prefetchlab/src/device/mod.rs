//! Devices: what serves a [`DiskRequest`] and how long it takes.
//!
//! * [`hdd`] — the mechanical drive model (zoned geometry, seek curve,
//!   rotational position from the clock, media transfer, head/cylinder
//!   switches, overheads, on-drive segment cache with read-ahead); models.md §1.
//! * [`disksim`] — reader of DiskSim drive descriptions (`.parv`,
//!   `.diskspecs`, `.model`, `.seek`/`.seeks`, `dm_layout_g4` `.layout`).
//! * [`presets`] — the project's own parameter sets for the papers' drives.
//! * [`validate`] — DiskSim's validation replay and rms demerit figure.
//! * [`ssd`] — latency + bandwidth with internal parallelism; models.md §4.1.
//! * [`net`] — a network link, latency + bandwidth, FIFO per direction; §4.2.
//!
//! A device is handed one request at a time per free slot (`max_outstanding`)
//! by the block layer, and answers with the time the request completes. The
//! device never touches the event queue: it is a pure model of service time.

pub mod disksim;
pub mod hdd;
pub mod net;
pub mod presets;
pub mod ssd;
pub mod validate;

use crate::sim::TimeNs;

/// One request as a member device sees it: 512-byte sectors on that device.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskRequest {
    pub lba_sector: u64,
    pub sectors: u32,
    pub write: bool,
}

/// What serving one request cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Service {
    /// Absolute time at which the request completes.
    pub done_ns: TimeNs,
    /// Cylinders the arm moved for this request (0 for a cache hit or an SSD).
    pub seek_distance_cyl: u64,
    /// Whether the on-device cache served the whole request.
    pub cache_hit: bool,
}

/// A device model.
pub trait Device {
    /// Starts `req` at `start_ns` and returns when it completes.
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service;
    /// Capacity in 512-byte sectors.
    fn capacity_sectors(&self) -> u64;
    /// A position key for an LBA (the cylinder on an HDD, the LBA elsewhere):
    /// what seek-aware schedulers and the seek-distance metric compare.
    fn position_of(&self, lba_sector: u64) -> u64;
    /// Requests the device serves at once (1 for a drive without queuing).
    fn max_outstanding(&self) -> usize {
        1
    }
}

/// The devices an array can be built of (static dispatch on the hot path).
pub enum AnyDevice {
    Hdd(Box<hdd::Hdd>),
    Ssd(ssd::Ssd),
    Net(net::NetLink),
}

impl Device for AnyDevice {
    #[inline]
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service {
        match self {
            AnyDevice::Hdd(d) => d.service(req, start_ns),
            AnyDevice::Ssd(d) => d.service(req, start_ns),
            AnyDevice::Net(d) => d.service(req, start_ns),
        }
    }
    fn capacity_sectors(&self) -> u64 {
        match self {
            AnyDevice::Hdd(d) => d.capacity_sectors(),
            AnyDevice::Ssd(d) => d.capacity_sectors(),
            AnyDevice::Net(d) => d.capacity_sectors(),
        }
    }
    #[inline]
    fn position_of(&self, lba_sector: u64) -> u64 {
        match self {
            AnyDevice::Hdd(d) => d.position_of(lba_sector),
            AnyDevice::Ssd(d) => d.position_of(lba_sector),
            AnyDevice::Net(d) => d.position_of(lba_sector),
        }
    }
    fn max_outstanding(&self) -> usize {
        match self {
            AnyDevice::Hdd(d) => d.max_outstanding(),
            AnyDevice::Ssd(d) => d.max_outstanding(),
            AnyDevice::Net(d) => d.max_outstanding(),
        }
    }
}
