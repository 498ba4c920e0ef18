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
//! A device is handed up to `max_outstanding` requests by the block layer
//! ([`Device::submit`]); it says when each one it starts completes, and
//! when told a completion happened ([`Device::complete`]) it may start the
//! next it holds (a drive's command queue, [`hdd::queue`]). A request handed
//! over while another is served may move that one's completion later
//! ([`Device::take_moved`]: a drive's bus taken by the arriving command).
//! The device never touches the event queue: it is a pure model of service
//! time.

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

/// A request a device has started: its tag, when it started and what
/// serving it costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Started {
    pub id: u32,
    pub start_ns: TimeNs,
    pub service: Service,
}

/// A device model.
pub trait Device {
    /// Starts `req` at `start_ns` and returns when it completes.
    fn service(&mut self, req: &DiskRequest, start_ns: TimeNs) -> Service;
    /// Hands the device `req`, tagged `id`, at `now`. A device that starts
    /// it at once says so; one that queues it (a drive's command queue)
    /// starts it later, from [`Device::complete`].
    fn submit(&mut self, id: u32, req: &DiskRequest, now: TimeNs) -> Option<Started> {
        Some(Started { id, start_ns: now, service: self.service(req, now) })
    }
    /// The request the device last started has completed at `now`: it may
    /// start the next one it holds.
    fn complete(&mut self, _now: TimeNs) -> Option<Started> {
        None
    }
    /// A completion already reported (by [`Device::submit`] or
    /// [`Device::complete`]) that a later [`Device::submit`] moved later:
    /// the request's tag and its new completion time. A drive whose bus an
    /// arriving command takes for its command overhead sends the read in
    /// service around it (DiskSim's rule). Only `submit` moves a completion,
    /// only the request in service's, and only later; it may move one
    /// several times before it comes. Taken once: the caller treats the
    /// completion it had before as void.
    fn take_moved(&mut self) -> Option<(u32, TimeNs)> {
        None
    }
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
    #[inline]
    fn submit(&mut self, id: u32, req: &DiskRequest, now: TimeNs) -> Option<Started> {
        match self {
            AnyDevice::Hdd(d) => d.submit(id, req, now),
            AnyDevice::Ssd(d) => d.submit(id, req, now),
            AnyDevice::Net(d) => d.submit(id, req, now),
        }
    }
    #[inline]
    fn complete(&mut self, now: TimeNs) -> Option<Started> {
        match self {
            AnyDevice::Hdd(d) => d.complete(now),
            AnyDevice::Ssd(d) => d.complete(now),
            AnyDevice::Net(d) => d.complete(now),
        }
    }
    #[inline]
    fn take_moved(&mut self) -> Option<(u32, TimeNs)> {
        match self {
            AnyDevice::Hdd(d) => d.take_moved(),
            AnyDevice::Ssd(_) | AnyDevice::Net(_) => None,
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
