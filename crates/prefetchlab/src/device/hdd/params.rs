//! Everything that describes one drive model: DiskSim's `disksim_disk`
//! parameters (disk.modspec), its `dm_mech_g1` mechanics and its
//! `disksim_ioqueue` scheduler, with DiskSim's names in the comments. A
//! drive is data: these structs are filled by the DiskSim reader
//! (`device::disksim`), from a user's files or from the descriptions
//! embedded for the presets.

use super::geometry::Layout;
use super::seek::SeekCurve;

/// DiskSim's controller overheads, in ms.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overheads {
    pub read_hit_after_read: f64,
    pub read_hit_after_write: f64,
    pub read_miss_after_read: f64,
    pub read_miss_after_write: f64,
    pub write_hit_after_read: f64,
    pub write_hit_after_write: f64,
    pub write_miss_after_read: f64,
    pub write_miss_after_write: f64,
    pub read_completion: f64,
    pub write_completion: f64,
    pub data_prep: f64,
    pub first_reselect: f64,
    /// `Other reselect overhead`
    pub other_reselect: f64,
    /// `Read disconnect afterread` / `Read disconnect afterwrite`
    pub read_disconnect_after_read: f64,
    pub read_disconnect_after_write: f64,
    /// `Write disconnect overhead`
    pub write_disconnect: f64,
    pub per_request: f64,
    pub min_seek_delay: f64,
    pub time_scale: f64,
    /// DiskSim's `Extra write disconnect` (a write not sequential to the
    /// previous write disconnects right after the command and reconnects
    /// later for its data) and its delays.
    pub extra_write_disconnect: bool,
    pub extradisc_command: f64,
    pub extradisc_disconnect1: f64,
    pub extradisc_inter_disconnect: f64,
    /// `Extradisc 2nd disconnect overhead`
    pub extradisc_disconnect2: f64,
    pub extradisc_seek_delta: f64,
    /// `Hold bus entire read xfer` / `write xfer`: once connected for a
    /// transfer, stay connected (waiting for the media) instead of
    /// disconnecting and paying a reselection.
    pub hold_bus_read: bool,
    pub hold_bus_write: bool,
    /// `Never disconnect`
    pub never_disconnect: bool,
    /// `Preseeking level` (0: none)
    pub preseeking: u32,
}

/// The on-drive cache parameters (DiskSim names in the comments).
#[derive(Debug, Clone, PartialEq)]
pub struct CacheParams {
    /// `Enable caching in buffer`
    pub enabled: bool,
    /// `Number of buffer segments`
    pub segments: u32,
    /// `Segment size (in blks)`
    pub segment_blocks: u32,
    /// `Maximum number of write segments`
    pub max_write_segments: u32,
    /// `Use separate write segment`
    pub separate_write_segment: bool,
    /// `Buffer continuous read` 0–4
    pub contread: u32,
    /// `Minimum read-ahead (blks)`
    pub min_readahead: u32,
    /// `Maximum read-ahead (blks)`
    pub max_readahead: u32,
    /// `Read-ahead over requested`
    pub readahead_over_requested: bool,
    /// `Read-ahead on idle hit`
    pub readahead_on_idle_hit: bool,
    /// `Read any free blocks`
    pub read_any_free_blocks: bool,
    /// `Fast write level` 0–2
    pub fast_write_level: u32,
    /// `Combine seq writes`
    pub combine_seq_writes: bool,
    /// `Immediate buffer read` (zero-latency reads)
    pub immed_read: bool,
    /// `Immediate buffer write`
    pub immed_write: bool,
    /// `Allow read hits on write data`
    pub read_hits_on_write_data: bool,
    /// `Allow almost read hits`: a read whose first block is the one the
    /// read-ahead is reading now is a partial hit.
    pub almost_read_hits: bool,
    /// `Allow sneaky full read hits` / `partial` / `intermediate`
    pub sneaky_full_read_hits: bool,
    pub sneaky_partial_read_hits: bool,
    pub sneaky_intermediate_read_hits: bool,
    /// `Allow write prebuffering`
    pub write_prebuffering: bool,
    /// `Stop prefetch in sector`: a read-ahead may be stopped in the middle
    /// of a sector (else at the end of the sector being read).
    pub stop_prefetch_in_sector: bool,
    /// `Disconnect write if seek`
    pub disconnect_write_if_seek: bool,
    /// `Write hit stop prefetch`
    pub write_hit_stop_prefetch: bool,
    /// `Read directly to buffer`
    pub read_directly_to_buffer: bool,
    /// `Immed transfer partial hit`
    pub immed_transfer_partial_hit: bool,
    /// `High (read) water mark`: fraction of the request (or segment) that
    /// must be in the buffer before the drive reconnects to send it.
    pub read_water: f64,
    /// `Low (write) water mark`: fraction of a write's data that must be
    /// in the buffer before the media write starts.
    pub write_water: f64,
    /// `Set watermark by reqsize`
    pub water_by_request: bool,
    /// `Calc sector by sector`
    pub calc_sector_by_sector: bool,
}

impl Default for CacheParams {
    /// A drive with its cache off and every option at DiskSim's "no".
    fn default() -> Self {
        CacheParams {
            enabled: false,
            segments: 1,
            segment_blocks: 1,
            max_write_segments: 1,
            separate_write_segment: false,
            contread: 0,
            min_readahead: 0,
            max_readahead: 0,
            readahead_over_requested: false,
            readahead_on_idle_hit: false,
            read_any_free_blocks: false,
            fast_write_level: 0,
            combine_seq_writes: false,
            immed_read: false,
            immed_write: false,
            read_hits_on_write_data: false,
            almost_read_hits: false,
            sneaky_full_read_hits: false,
            sneaky_partial_read_hits: false,
            sneaky_intermediate_read_hits: false,
            write_prebuffering: false,
            stop_prefetch_in_sector: false,
            disconnect_write_if_seek: false,
            write_hit_stop_prefetch: false,
            read_directly_to_buffer: false,
            immed_transfer_partial_hit: false,
            read_water: 0.0,
            write_water: 0.0,
            water_by_request: false,
            calc_sector_by_sector: true,
        }
    }
}

/// How the mechanical delay is computed (`Access time type` of
/// `dm_mech_g1`).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum AccessTime {
    /// `trackSwitchPlusRotation`: seek and rotational position modelled.
    #[default]
    TrackSwitchPlusRotation,
    /// `averageRotation`: seek modelled, every rotational wait half a turn.
    AverageRotation,
    /// `constant`: every access takes `Constant access time` ms.
    Constant { ms: f64 },
}

/// The drive's own command queue (`Max queue length` and the
/// `disksim_ioqueue` block of the disk).
#[derive(Debug, Clone, PartialEq)]
pub struct QueueParams {
    /// `Max queue length`: commands the drive accepts at once (0 or 1: one).
    pub max_queue_length: u32,
    /// `Scheduling policy`, DiskSim's numbering (1 FCFS, 2 ELEVATOR_LBN, …,
    /// 8 SPTF_OPT, 10 SATF_OPT, …).
    pub policy: u32,
    /// `Cylinder mapping strategy` (0–6)
    pub cylinder_mapping: u32,
}

impl Default for QueueParams {
    fn default() -> Self {
        QueueParams { max_queue_length: 1, policy: 1, cylinder_mapping: 0 }
    }
}

/// Everything that describes one drive model (from a preset or DiskSim files).
#[derive(Debug, Clone)]
pub struct DriveParams {
    pub name: String,
    pub layout: Layout,
    pub seek: SeekCurve,
    /// `Access time type`
    pub access: AccessTime,
    /// `Head switch time` (ms)
    pub head_switch_ms: f64,
    /// `Add. write settling delay` (ms)
    pub write_settle_ms: f64,
    /// `Rotation speed (in rpms)`
    pub rpm: f64,
    /// `Percent error in rpms`
    pub rpm_error_pct: f64,
    /// Host transfer per sector for reads / writes (ms): max of the disk's
    /// `Bulk sector transfer time` and the bus's block transfer time.
    pub xfer_read_ms: f64,
    pub xfer_write_ms: f64,
    pub overheads: Overheads,
    pub cache: CacheParams,
    pub queue: QueueParams,
    /// What the reader tolerated in the description (as DiskSim does), one
    /// line each, for the caller to show as warnings.
    pub warnings: Vec<String>,
}

/// What a drive can move, in MB/s (10^6 bytes): its platters under the
/// head in the outermost and innermost zones, per revolution (sectors per
/// track × 512 bytes × revolutions per second; track and cylinder switches
/// left out, so a sustained rate is a few per cent lower), and its host
/// interface (512 bytes per `Bulk sector transfer time`, or per the bus's
/// block time when longer). Shown beside a drive so that a description
/// whose interface is slower than its media, as the validated drives of
/// the 1990s carry their measuring rigs' buses (the Atlas 10K's 0.099 ms
/// per sector is 5.2 MB/s), is seen to bound sequential reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DriveRates {
    /// Sectors per track of the zones the rates are read in: the most
    /// among a few tracks in the first 1 % of the drive, and in the 1 %
    /// before its last 0.1 % (a description may hold odd short tracks, and
    /// its last track may be a remnant: the 146 GB Cheetah 15K.5's holds 202
    /// sectors where its innermost zone has 720).
    pub spt_outer: u32,
    pub spt_inner: u32,
    pub media_outer_mb_s: f64,
    pub media_inner_mb_s: f64,
    /// None when the description charges no host transfer (a time of 0 or
    /// less per sector).
    pub interface_mb_s: Option<f64>,
}

impl DriveParams {
    /// The drive's media and interface rates (see [`DriveRates`]).
    pub fn rates(&self) -> DriveRates {
        let lay = &self.layout;
        let cap = lay.capacity_sectors;
        // the most sectors per track among 16 points from `from` over `span` sectors
        let spt_most = |from: u64, span: u64| {
            (0..16u64)
                .filter_map(|i| lay.locate((from + span * i / 16).min(cap - 1)).map(|l| l.spt))
                .max()
                .unwrap_or(0)
        };
        let per_rev_mb_s = |spt: u32| 512.0 * f64::from(spt) * self.rpm / 60.0 / 1e6;
        let (spt_outer, spt_inner) =
            (spt_most(0, cap / 100), spt_most(cap - cap / 1000 - cap / 100 - 1, cap / 100));
        DriveRates {
            spt_outer,
            spt_inner,
            media_outer_mb_s: per_rev_mb_s(spt_outer),
            media_inner_mb_s: per_rev_mb_s(spt_inner),
            interface_mb_s: (self.xfer_read_ms > 0.0).then(|| 512.0 / (self.xfer_read_ms * 1e3)),
        }
    }
}
