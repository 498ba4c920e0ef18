//! Built-in drive presets (models.md §1.8). Every preset is a DiskSim
//! description read by the same reader as a user's files
//! ([`crate::device::disksim`]), so DiskSim parameter overrides work the same
//! on every preset and on a user's drive.
//!
//! * `cheetah-15k5-146gb` — Seagate Cheetah 15K.5 ST3146855FC (146 GB): the
//!   DIXtrac extraction DiskSim 4.0 ships in `valid/cheetah15k5`
//!   (`.diskspecs`, `.model`, `-skews.layout`, `.seeks`), embedded in the
//!   engine (`data/disksim/`, with DiskSim's copyright notice) and read from
//!   memory. It *is* that description: with DiskSim's three validation
//!   overrides it gives the same service times as the shared file.
//! * `cheetah-15k5` — Seagate Cheetah 15K.5 ST373455LC (73 GB), the drive of
//!   the RAID-0 experiments in \[TC09\]: the same description with one
//!   transformation — two surfaces instead of four: the layout keeps the
//!   tracks of two heads in the tree's order, renumbered 0 and 1, and
//!   renumbers the LBNs over them (`keep_heads`, see `disksim::g4`), with
//!   `Number of data surfaces = 2` and `Block count = 143374738` (the 73 GB
//!   drive's capacity). The two kept are the 146 GB drive's heads 1 and 2:
//!   its heads hold 71,484,154 / 71,798,599 / 71,798,600 / 71,671,700 tree
//!   blocks, and heads 0–1 (143,280,881 blocks after their slips) cannot
//!   hold the 73 GB drive's 143,374,738, while heads 1–2 can. The tree's
//!   band order is kept, so each 130-cylinder band is still served
//!   serpentine: head 0 down 65 cylinders, head 1 up, head 1 down the next
//!   65, head 0 up. Cylinders, zones, skews, seek curve, cache and
//!   overheads are the 146 GB drive's.
//! * `cheetah-15k4` (ST373454LC), `barracuda-7200.10` (ST3250310AS),
//!   `wd5000aaks`, `wd10evvs` — datasheet drives: rpm, capacity,
//!   single/average/full-stroke seek, outer/inner sustained rates, cache size
//!   and segments ([`Sheet`]) are rendered into a DiskSim description
//!   ([`datasheet_description`]: 16 `dm_layout_g1` zones whose sectors per
//!   track fall linearly from OD to ID so that Hitachi's sustained-rate
//!   formula gives the datasheet's figures (§1.4), the surplus sectors of
//!   the last zone as its spares so the capacity is the datasheet's; `curve`
//!   seeks = Lee's equation (§1.2(c)); overheads in the range §1.6 gives;
//!   the cache figures; track and cylinder skews that cover the switch at
//!   the fastest rpm `Percent error in rpms` allows (a member drawn fast
//!   would otherwise lose a revolution at every track it crosses); the read-ahead serves a read whose first block it
//!   is reading (`Allow almost read hits`), so that the drive streams a
//!   sequential reader at its media rate, as a real one does; a queue of
//!   32 commands ordered by rotational position for the SATA drives (NCQ's
//!   32 tags), 8 for the SCSI Cheetah 15K.4 (the depth DIXtrac found on its
//!   sibling, the 15K.5), seeking for the next command when the last one's
//!   media work ends (`Preseeking level = 2`: with DiskSim's default, 0, a
//!   read keeps the arm until its data has crossed the bus, and a queued
//!   sequential stream loses a revolution per request: the Cheetah 15K.4
//!   read 24.4 MB/s, its outer zone 96)), which is then read like any other.
//!   `Read-ahead on idle hit` stays at DiskSim's default, 0 (no datasheet
//!   gives it; DIXtrac writes 0 without measuring it): after a read served
//!   wholly from its cache the drive does not read ahead again. One-strip
//!   readers of \[TC09\] and \[IEICE13\] turn on it, and on the 16 segments
//!   (each read ahead to its end), which no datasheet gives either (README,
//!   "The datasheet method", measures both).
//!
//! **Departures.** A preset may depart from its description (in its cache
//! behaviour): [`departures`] lists them by DiskSim parameter name with the
//! reason; they are applied through the same override path as a user's
//! overrides (a user's override of the same name wins). Today there are
//! none: every preset behaves as its description says.

use crate::device::disksim::parse::MemFiles;
use crate::device::disksim::{load_drive_with, Options};
use crate::device::hdd::DriveParams;
use crate::error::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::{Mutex, OnceLock};

/// The preset names `Hdd::from_model` accepts.
pub const NAMES: [&str; 6] =
    ["cheetah-15k5", "cheetah-15k5-146gb", "cheetah-15k4", "barracuda-7200.10", "wd5000aaks", "wd10evvs"];

/// Where a preset comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetKind {
    /// A DiskSim description of the real drive (extracted by DIXtrac).
    DiskSim,
    /// A description rendered from datasheet figures.
    Datasheet,
}

/// What a preset is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresetInfo {
    pub name: &'static str,
    pub kind: PresetKind,
    /// One line for people.
    pub description: &'static str,
}

/// A preset's departure from its description.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Departure {
    /// DiskSim parameter name.
    pub param: &'static str,
    pub value: f64,
    pub reason: &'static str,
}

/// What the preset `name` is, or `None` if there is no such preset.
pub fn info(name: &str) -> Option<PresetInfo> {
    let (kind, description) = match name {
        "cheetah-15k5" => (
            PresetKind::DiskSim,
            "Seagate Cheetah 15K.5 ST373455LC, 73 GB: DiskSim's 146 GB description with 2 of its 4 surfaces",
        ),
        "cheetah-15k5-146gb" => (
            PresetKind::DiskSim,
            "Seagate Cheetah 15K.5 ST3146855FC, 146 GB: DiskSim 4.0's DIXtrac description",
        ),
        "cheetah-15k4" => (PresetKind::Datasheet, "Seagate Cheetah 15K.4 ST373454LC, 73 GB, 15,000 rpm"),
        "barracuda-7200.10" => {
            (PresetKind::Datasheet, "Seagate Barracuda 7200.10 ST3250310AS, 250 GB, 7,200 rpm")
        }
        "wd5000aaks" => (PresetKind::Datasheet, "Western Digital Caviar WD5000AAKS, 500 GB, 7,200 rpm"),
        "wd10evvs" => (PresetKind::Datasheet, "Western Digital WD10EVVS, 1 TB, 5,400-rpm class"),
        _ => return None,
    };
    let name = NAMES.iter().copied().find(|n| *n == name)?;
    Some(PresetInfo { name, kind, description })
}

/// The Cheetah 15K.5 presets' departures from DiskSim's description.
const C15K5_DEPARTURES: [Departure; 2] = [
    Departure {
        param: "Allow almost read hits",
        value: 1.0,
        reason: "the drive streams a sequential reader at its media rate (73-125 MB/s, datasheet): a read \
                 whose first block the read-ahead is reading is served as the read-ahead goes on. With the \
                 description's 0, DiskSim itself aborts the read-ahead at the end of that sector and loses \
                 a revolution on every back-to-back sequential request (25 MB/s); the DIXtrac extraction \
                 was validated with its cache off only",
    },
    Departure {
        param: "Fast write level",
        value: 0.0,
        reason: "write-through, as the drives ran in the servers of [TC09] (Linux reports 'Write cache: \
                 disabled, read cache: enabled' for the ST373455LC and ST373454LC, models.md 1.7)",
    },
];

/// The departures of preset `name` from its description.
pub fn departures(name: &str) -> &'static [Departure] {
    match name {
        "cheetah-15k5" | "cheetah-15k5-146gb" => &C15K5_DEPARTURES,
        _ => &[],
    }
}

const C15K5_DIR: &str = "<built-in>/cheetah15k5";
const C15K5_DISKSPECS: &str = include_str!("../../data/disksim/Seagate-Cheetah15k5.diskspecs");
const C15K5_MODEL: &str = include_str!("../../data/disksim/Seagate-Cheetah15k5.model");
const C15K5_SEEKS: &str = include_str!("../../data/disksim/Seagate-Cheetah15k5.seeks");
const C15K5_LAYOUT_ZZ: &[u8] = include_bytes!("../../data/disksim/Seagate-Cheetah15k5-skews.layout.zz");

/// The embedded Cheetah 15K.5 description, inflated once.
fn cheetah_15k5_files() -> Result<&'static MemFiles> {
    static FILES: OnceLock<std::result::Result<MemFiles, String>> = OnceLock::new();
    let r = FILES.get_or_init(|| {
        let raw = miniz_oxide::inflate::decompress_to_vec_zlib(C15K5_LAYOUT_ZZ)
            .map_err(|e| format!("cannot inflate the embedded Cheetah 15K.5 layout: {e:?}"))?;
        let layout = String::from_utf8(raw)
            .map_err(|_| "the embedded Cheetah 15K.5 layout is not text".to_string())?;
        let mut m = MemFiles::new();
        m.add(format!("{C15K5_DIR}/Seagate-Cheetah15k5.diskspecs"), C15K5_DISKSPECS);
        m.add(format!("{C15K5_DIR}/Seagate-Cheetah15k5.model"), C15K5_MODEL);
        m.add(format!("{C15K5_DIR}/Seagate-Cheetah15k5.seeks"), C15K5_SEEKS);
        m.add(format!("{C15K5_DIR}/Seagate-Cheetah15k5-skews.layout"), layout);
        Ok(m)
    });
    r.as_ref().map_err(|e| Error::Internal(e.clone()))
}

/// The preset `name` as its description says (no overrides), or `None` if
/// there is no such preset.
pub fn preset(name: &str) -> Result<Option<DriveParams>> {
    preset_with(name, &[])
}

/// The preset `name` with DiskSim parameters overridden by name (after the
/// preset's own departures), or `None` if there is no such preset.
pub fn preset_with(name: &str, overrides: &[(String, f64)]) -> Result<Option<DriveParams>> {
    if info(name).is_none() {
        return Ok(None);
    }
    // loading the 146 GB description takes a few tens of ms: keep the last few
    type Memo = Vec<(String, Vec<(String, u64)>, DriveParams)>;
    static MEMO: OnceLock<Mutex<Memo>> = OnceLock::new();
    let key: Vec<(String, u64)> =
        overrides.iter().map(|(k, v)| (k.to_ascii_lowercase(), v.to_bits())).collect();
    let memo = MEMO.get_or_init(|| Mutex::new(Vec::new()));
    if let Ok(m) = memo.lock() {
        if let Some((_, _, p)) = m.iter().find(|(n, k, _)| n == name && *k == key) {
            return Ok(Some(p.clone()));
        }
    }
    let mut ov: Vec<(String, f64)> =
        departures(name).iter().map(|d| (d.param.to_string(), d.value)).collect();
    let p = match name {
        "cheetah-15k5-146gb" | "cheetah-15k5" => {
            let files = cheetah_15k5_files()?;
            let keep_heads = if name == "cheetah-15k5" {
                ov.push(("Number of data surfaces".into(), 2.0));
                ov.push(("Block count".into(), 143_374_738.0));
                Some((1, 2))
            } else {
                None
            };
            ov.extend_from_slice(overrides);
            let spec = format!("{C15K5_DIR}/Seagate-Cheetah15k5.diskspecs");
            let mut p =
                load_drive_with(Path::new(&spec), &Options { source: files, overrides: &ov, keep_heads })?;
            p.name = name.to_string();
            p
        }
        _ => {
            let sheet = SHEETS.iter().find(|s| s.name == name).expect("a datasheet preset");
            let mut m = MemFiles::new();
            let path = format!("<built-in>/{name}.diskspecs");
            m.add(&path, datasheet_description(sheet));
            ov.extend_from_slice(overrides);
            load_drive_with(Path::new(&path), &Options { source: &m, overrides: &ov, keep_heads: None })?
        }
    };
    if let Ok(mut m) = memo.lock() {
        if m.len() >= 8 {
            m.remove(0);
        }
        m.push((name.to_string(), key, p.clone()));
    }
    Ok(Some(p))
}

/// Datasheet figures of a drive.
#[derive(Debug, Clone, Copy)]
pub struct Sheet {
    name: &'static str,
    rpm: f64,
    capacity_sectors: u64,
    surfaces: u32,
    /// single-cylinder, average, full-stroke seek (ms, reads)
    seek: (f64, f64, f64),
    write_settle_ms: f64,
    head_switch_ms: f64,
    /// sustained media rate at OD and ID (MB/s, 10^6 B/s)
    od_mbs: f64,
    id_mbs: f64,
    cache_blocks: u32,
    segments: u32,
    /// interface time per sector (ms)
    xfer_ms: f64,
    read_miss_ms: f64,
    read_hit_ms: f64,
    write_ms: f64,
    fast_write_level: u32,
    /// Commands the drive queues (SATA NCQ: 32 tags) and orders by
    /// rotational position (SPTF).
    queue: u32,
}

/// The datasheet drives.
pub const SHEETS: [Sheet; 4] = [
    Sheet {
        name: "cheetah-15k4",
        rpm: 15_000.0,
        capacity_sectors: 143_374_738,
        surfaces: 4,
        seek: (0.2, 3.5, 7.4),
        write_settle_ms: 0.5,
        head_switch_ms: 0.3,
        od_mbs: 96.0,
        id_mbs: 58.0,
        cache_blocks: 16_384,
        segments: 16,
        xfer_ms: 512.0 / 320e6 * 1e3,
        read_miss_ms: 0.15,
        read_hit_ms: 0.05,
        write_ms: 0.2,
        fast_write_level: 0,
        queue: 8,
    },
    Sheet {
        name: "barracuda-7200.10",
        rpm: 7_200.0,
        capacity_sectors: 488_397_168,
        surfaces: 2,
        seek: (1.0, 8.5, 17.0),
        write_settle_ms: 0.5,
        head_switch_ms: 0.8,
        od_mbs: 78.0,
        id_mbs: 40.0,
        cache_blocks: 16_384,
        segments: 16,
        xfer_ms: 512.0 / 300e6 * 1e3,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: 2,
        queue: 32,
    },
    Sheet {
        name: "wd5000aaks",
        rpm: 7_200.0,
        capacity_sectors: 976_773_168,
        surfaces: 4,
        seek: (2.0, 8.9, 21.0),
        write_settle_ms: 0.5,
        head_switch_ms: 1.0,
        od_mbs: 106.0,
        id_mbs: 55.0,
        cache_blocks: 32_768,
        segments: 16,
        xfer_ms: 512.0 / 300e6 * 1e3,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: 2,
        queue: 32,
    },
    Sheet {
        name: "wd10evvs",
        rpm: 5_400.0,
        capacity_sectors: 1_953_525_168,
        surfaces: 6,
        seek: (2.0, 12.0, 24.0),
        write_settle_ms: 0.5,
        head_switch_ms: 1.0,
        od_mbs: 100.0,
        id_mbs: 50.0,
        cache_blocks: 16_384,
        segments: 16,
        xfer_ms: 512.0 / 300e6 * 1e3,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: 2,
        queue: 32,
    },
];

/// The figures a datasheet gives for the drive `p` describes (rpm,
/// capacity, surfaces, track-to-track / average / full-stroke read seek,
/// the write settle, outer- and inner-zone sustained rates by Hitachi's
/// formula, cache size, interface time per sector), with what a datasheet
/// does not give set as the datasheet presets set it: the head switch as
/// long as the track-to-track seek, 16 cache segments, and read-miss /
/// read-hit / write overheads of 0.3 / 0.05 / 0.1 ms (models.md §1.6).
/// Write-back caching is a setting of the drive in its host, not a
/// datasheet figure: it is taken as `p` has it (write-through when `p`'s
/// cache is off). `datasheet_twin` rebuilds the drive from these alone,
/// to measure what the datasheet method loses against the real drive.
pub fn sheet_of(name: &'static str, p: &DriveParams) -> Sheet {
    let lay = &p.layout;
    let cyls = lay.cylinders.max(2);
    let rev_s = 60.0 / p.rpm;
    let one = p.seek.ms(1);
    let surfaces = lay.surfaces.max(1) as f64;
    // sustained = 512·spt·S / ((S−1)·hs + cs + S·rev), hs = cs = one
    let sustained = |spt: u32| {
        let cs = one / 1e3;
        512.0 * spt as f64 * surfaces / ((surfaces - 1.0) * cs + cs + surfaces * rev_s) / 1e6
    };
    let spt_of = |lba: u64| lay.locate(lba).map_or(1, |l| l.spt);
    Sheet {
        name,
        rpm: p.rpm,
        capacity_sectors: lay.capacity_sectors,
        surfaces: lay.surfaces.max(1),
        seek: (one, p.seek.mean_random_ms(cyls), p.seek.ms(cyls - 1)),
        write_settle_ms: p.write_settle_ms,
        head_switch_ms: one,
        od_mbs: sustained(spt_of(0)),
        id_mbs: sustained(spt_of(lay.capacity_sectors - 1)),
        cache_blocks: (p.cache.segments * p.cache.segment_blocks).max(16),
        segments: 16,
        xfer_ms: p.xfer_read_ms,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: if p.cache.enabled { p.cache.fast_write_level } else { 0 },
        queue: p.queue.max_queue_length,
    }
}

/// The drive `p` describes, rebuilt by the datasheet method from the
/// figures [`sheet_of`] reads off it.
pub fn datasheet_twin(name: &'static str, p: &DriveParams) -> Result<DriveParams> {
    let sheet = sheet_of(name, p);
    let mut m = MemFiles::new();
    let path = format!("<datasheet twin>/{name}.diskspecs");
    m.add(&path, datasheet_description(&sheet));
    load_drive_with(Path::new(&path), &Options { source: &m, overrides: &[], keep_heads: None })
}

/// How far a datasheet drive's rpm may be off its nominal figure, %
/// (DiskSim's `Percent error in rpms`; an array's members each draw theirs).
const RPM_ERROR_PCT: f64 = 0.2;

/// The DiskSim description of a datasheet drive (see the module doc).
pub fn datasheet_description(s: &Sheet) -> String {
    const ZONES: u32 = 16;
    let rev_s = 60.0 / s.rpm;
    let hs = s.head_switch_ms / 1e3;
    let cs = s.seek.0 / 1e3;
    let sf = s.surfaces as f64;
    // sustained = 512·spt·S / ((S−1)·hs + cs + S·rev)
    let spt_for = |mbs: f64| (mbs * 1e6 * ((sf - 1.0) * hs + cs + sf * rev_s) / (512.0 * sf)).round();
    let spt_od = spt_for(s.od_mbs);
    let spt_id = spt_for(s.id_mbs);
    let spts: Vec<u64> = (0..ZONES)
        .map(|z| (spt_od + (spt_id - spt_od) * z as f64 / (ZONES - 1) as f64).round() as u64)
        .collect();
    let per_cyl: u64 = spts.iter().map(|&x| x * s.surfaces as u64).sum();
    let cyl_per_zone = s.capacity_sectors.div_ceil(per_cyl);
    let cyls = cyl_per_zone * ZONES as u64;
    let surplus = per_cyl * cyl_per_zone - s.capacity_sectors;
    let seg = s.cache_blocks / s.segments;
    // a drive spins within ±RPM_ERROR_PCT of its rpm (each array member draws
    // its own): the skews must cover a switch at the fastest of them, or a
    // member spinning fast loses a revolution at every track it crosses
    let rev_fast_s = rev_s / (1.0 + RPM_ERROR_PCT / 100.0);
    let mut t = String::new();
    let w = &mut t;
    let _ = writeln!(w, "# {} rendered from datasheet figures by prefetchlab (device/presets.rs)", s.name);
    let _ = writeln!(w, "disksim_disk {} {{", s.name);
    let _ = writeln!(w, " Model = dm_disk {{");
    let _ = writeln!(w, "  Block count = {},", s.capacity_sectors);
    let _ = writeln!(w, "  Number of data surfaces = {},", s.surfaces);
    let _ = writeln!(w, "  Number of cylinders = {cyls},");
    let _ = writeln!(w, "  Layout Model = dm_layout_g1 {{");
    let _ = writeln!(
        w,
        "   LBN-to-PBN mapping scheme = 0,\n   Sparing scheme used = 9,\n   Rangesize for sparing = 1,"
    );
    let _ = writeln!(w, "   Zones = [");
    for (z, &spt) in spts.iter().enumerate() {
        // skews: the next sector comes under the head just after the switch
        let tskew = ((hs / rev_fast_s) * spt as f64).ceil();
        // a cylinder switch also changes head (head S-1 to head 0): the
        // longer of the one-cylinder seek and the head switch
        let cskew = ((cs.max(hs) / rev_fast_s) * spt as f64).ceil();
        let c0 = z as u64 * cyl_per_zone;
        let spares = if z as u32 == ZONES - 1 { surplus } else { 0 };
        let _ = writeln!(
            w,
            "    dm_layout_g1_zone {{ First cylinder number = {c0}, Last cylinder number = {}, Blocks per track = {spt}, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = {tskew}, Skew for cylinder switch = {cskew}, Number of spares = {spares}, slips = [], defects = [] }}{}",
            c0 + cyl_per_zone - 1,
            if z as u32 == ZONES - 1 { "" } else { "," }
        );
    }
    let _ = writeln!(w, "   ]\n  }},");
    let _ = writeln!(w, "  Mechanical Model = dm_mech_g1 {{");
    let _ = writeln!(w, "   Access time type = trackSwitchPlusRotation,\n   Seek type = curve,");
    let _ = writeln!(w, "   Single cylinder seek time = {:?},", s.seek.0);
    let _ = writeln!(w, "   Average seek time = {:?},", s.seek.1);
    let _ = writeln!(w, "   Full strobe seek time = {:?},", s.seek.2);
    let _ = writeln!(w, "   Add. write settling delay = {:?},", s.write_settle_ms);
    let _ = writeln!(w, "   Head switch time = {:?},", s.head_switch_ms);
    let _ = writeln!(w, "   Rotation speed (in rpms) = {},", s.rpm as u64);
    let _ = writeln!(w, "   Percent error in rpms = {RPM_ERROR_PCT:?}\n  }}\n }},");
    let _ = writeln!(w, " Bulk sector transfer time = {:?},", s.xfer_ms);
    let _ = writeln!(w, " Time scale for overheads = 1.0,");
    for rw in ["read", "write"] {
        let _ = writeln!(w, " Read hit over. after {rw} = {:?},", s.read_hit_ms);
        let _ = writeln!(w, " Read miss over. after {rw} = {:?},", s.read_miss_ms);
        let _ = writeln!(w, " Write hit over. after {rw} = {:?},", s.write_ms);
        let _ = writeln!(w, " Write miss over. after {rw} = {:?},", s.write_ms);
    }
    // a drive queueing commands seeks for the next one as soon as the last
    // one's media work ends, not once its data has crossed the bus
    let _ = writeln!(w, " Preseeking level = 2,");
    let _ = writeln!(w, " Max queue length = {},", s.queue);
    let _ = writeln!(
        w,
        " Scheduler = disksim_ioqueue {{ Scheduling policy = 8, Cylinder mapping strategy = 1 }},"
    );
    let _ = writeln!(w, " Enable caching in buffer = 1,");
    let _ = writeln!(w, " Allow almost read hits = 1,\n Immed transfer partial hit = 1,");
    let _ = writeln!(w, " Number of buffer segments = {},", s.segments);
    let _ = writeln!(w, " Segment size (in blks) = {seg},");
    let _ = writeln!(w, " Buffer continuous read = 3,\n Minimum read-ahead (blks) = 0,");
    let _ = writeln!(w, " Maximum read-ahead (blks) = {seg},");
    let _ = writeln!(w, " Read-ahead over requested = 1,");
    let _ = writeln!(w, " Fast write level = {},", s.fast_write_level);
    let _ = writeln!(
        w,
        " Immediate buffer read = 0,\n Immediate buffer write = 0,\n Allow read hits on write data = 1,"
    );
    let _ = writeln!(
        w,
        " High (read) water mark = 0.0,\n Low (write) water mark = 0.0,\n Set watermark by reqsize = 1"
    );
    let _ = writeln!(w, "}}");
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_build_with_datasheet_capacity_and_no_warnings() {
        for n in NAMES {
            let p = preset(n).unwrap().unwrap();
            assert!(p.layout.capacity_sectors > 100_000_000, "{n}");
            assert!(p.layout.locate(p.layout.capacity_sectors - 1).is_some(), "{n}");
            assert!(
                p.warnings.iter().all(|w| w.contains("Seek distances measured")),
                "{n}: {:?}",
                p.warnings
            );
            assert!(info(n).is_some(), "{n}");
        }
        assert_eq!(preset("cheetah-15k5").unwrap().unwrap().layout.capacity_sectors, 143_374_738);
        assert_eq!(preset("cheetah-15k5-146gb").unwrap().unwrap().layout.capacity_sectors, 286_749_487);
        for s in SHEETS {
            assert_eq!(preset(s.name).unwrap().unwrap().layout.capacity_sectors, s.capacity_sectors);
            assert_eq!(info(s.name).unwrap().kind, PresetKind::Datasheet);
        }
        assert_eq!(info("cheetah-15k5").unwrap().kind, PresetKind::DiskSim);
        assert!(preset("nope").unwrap().is_none());
        assert!(info("nope").is_none());
    }

    #[test]
    fn the_73gb_drive_keeps_heads_0_and_1_of_the_146gb_layout() {
        let big = preset("cheetah-15k5-146gb").unwrap().unwrap();
        let small = preset("cheetah-15k5").unwrap().unwrap();
        assert_eq!((big.layout.surfaces, small.layout.surfaces), (4, 2));
        assert!(small.layout.runs().iter().all(|r| r.head0 < 2));
        // the 146 GB drive's second band of 78,000 blocks (head 1, cylinders
        // 64 down to 0) is the 73 GB drive's first, on head 0; its third
        // (head 2, 0 up to 64) the 73 GB drive's second, on head 1
        for (small_lba, big_lba, head) in
            [(0u64, 78_000u64, 0u32), (77_999, 155_999, 0), (78_000, 156_000, 1)]
        {
            let (s, b) = (small.layout.locate(small_lba).unwrap(), big.layout.locate(big_lba).unwrap());
            assert_eq!((s.cyl, s.sector, s.angle, s.head), (b.cyl, b.sector, b.angle, head), "{small_lba}");
            assert_eq!(b.head, head + 1);
        }
        assert_eq!((small.rpm, small.seek.clone()), (big.rpm, big.seek.clone()));
    }

    #[test]
    fn overrides_reach_every_preset_by_disksim_name() {
        for n in NAMES {
            let p =
                preset_with(n, &[("Buffer continuous read".into(), 0.0), ("Head switch time".into(), 0.7)])
                    .unwrap()
                    .unwrap();
            assert_eq!((p.cache.contread, p.head_switch_ms), (0, 0.7), "{n}");
        }
        let e = preset_with("wd10evvs", &[("Bogus".into(), 0.0)]).unwrap_err().to_string();
        assert!(e.contains("Bogus") && e.contains("no DiskSim drive parameter"), "{e}");
    }

    #[test]
    fn datasheet_seek_mean_matches_average() {
        let p = preset("barracuda-7200.10").unwrap().unwrap();
        let m = p.seek.mean_random_ms(p.layout.cylinders);
        assert!((m - 8.5).abs() < 0.1, "{m}");
    }

    #[test]
    fn sustained_rate_matches_sheet_at_od() {
        // outer zone: spt · 512 · S / ((S−1)·hs + cs + S·rev) ≈ 78 MB/s
        let p = preset("barracuda-7200.10").unwrap().unwrap();
        let spt = p.layout.runs()[0].spt as f64;
        let rev = 60.0 / 7200.0;
        let rate = spt * 512.0 * 2.0 / (0.8e-3 + 1.0e-3 + 2.0 * rev) / 1e6;
        assert!((rate - 78.0).abs() < 0.5, "{rate}");
    }
}
