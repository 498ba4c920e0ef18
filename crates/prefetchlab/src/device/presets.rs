//! Built-in drive presets (models.md §1.8): the project's own parameter
//! sets for the drives of the published experiments. Nothing here reads a
//! file.
//!
//! * `cheetah-15k5` — Seagate Cheetah 15K.5 ST373455LC, 73 GB. Calibrated
//!   against the DIXtrac extraction DiskSim ships for the 146 GB sibling
//!   (`disksim-valid/cheetah15k5`): the 73 GB model has the same platters
//!   and zones but one disc (2 surfaces instead of 4), so we keep the
//!   146 GB zone table (cylinder ranges and sectors per track), its
//!   measured seek curve (a handful of points, interpolated), its overheads
//!   and cache geometry, take 2 surfaces, and set the block count to the
//!   73 GB drive's 143,374,738 sectors (half of the 146 GB drive's
//!   286,749,487, to 5 sectors). Skews are the extraction's: about 0.139
//!   revolution per one-cylinder move, and a head switch is shorter than a
//!   one-cylinder seek. Write caching is off (`Fast write level` 0): the
//!   Linux dmesg of these drives shows "Write cache: disabled" (§1.7).
//! * `cheetah-15k4` (ST373454LC), `barracuda-7200.10` (ST3250310AS),
//!   `wd5000aaks`, `wd10evvs` — from datasheet figures only: rpm, capacity,
//!   single/average/full-stroke seek → Lee's curve (§1.2(c)), outer/inner
//!   sustained rates → sectors per track of 16 zones (§1.4, Hitachi's
//!   sustained-rate formula), cache size/segments, and overheads in the
//!   range §1.6 gives.

use crate::device::hdd::geometry::{Layout, LayoutBuilder, Run};
use crate::device::hdd::seek::SeekCurve;
use crate::device::hdd::{AccessTime, CacheParams, DriveParams, Overheads, QueueParams};
use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// The preset names `Hdd::from_model` accepts.
pub const NAMES: [&str; 5] = ["cheetah-15k5", "cheetah-15k4", "barracuda-7200.10", "wd5000aaks", "wd10evvs"];

/// Datasheet figures of a drive.
struct Sheet {
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
    cylinders: u32,
    cache_blocks: u32,
    segments: u32,
    /// interface time per sector (ms)
    xfer_ms: f64,
    read_miss_ms: f64,
    read_hit_ms: f64,
    write_ms: f64,
    fast_write_level: u32,
}

const SHEETS: [Sheet; 4] = [
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
        cylinders: 50_000,
        cache_blocks: 16_384,
        segments: 16,
        xfer_ms: 512.0 / 320e6 * 1e3,
        read_miss_ms: 0.15,
        read_hit_ms: 0.05,
        write_ms: 0.2,
        fast_write_level: 0,
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
        cylinders: 0,
        cache_blocks: 16_384,
        segments: 16,
        xfer_ms: 512.0 / 300e6 * 1e3,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: 2,
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
        cylinders: 0,
        cache_blocks: 32_768,
        segments: 16,
        xfer_ms: 512.0 / 300e6 * 1e3,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: 2,
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
        cylinders: 0,
        cache_blocks: 16_384,
        segments: 16,
        xfer_ms: 512.0 / 300e6 * 1e3,
        read_miss_ms: 0.3,
        read_hit_ms: 0.05,
        write_ms: 0.1,
        fast_write_level: 2,
    },
];

/// The preset `name`, or `None` if there is no such preset.
pub fn preset(name: &str) -> Result<Option<DriveParams>> {
    if name == "cheetah-15k5" {
        return cheetah_15k5().map(Some);
    }
    match SHEETS.iter().find(|s| s.name == name) {
        Some(s) => from_sheet(s).map(Some),
        None => Ok(None),
    }
}

/// Zones of a datasheet drive: `zones` bands of equal cylinder count,
/// sectors per track falling linearly from OD to ID so that Hitachi's
/// sustained-rate formula gives the OD/ID figures (models.md §1.4).
fn sheet_layout(s: &Sheet) -> Result<(Layout, u32)> {
    const ZONES: u32 = 16;
    let rev_s = 60.0 / s.rpm;
    let hs = s.head_switch_ms / 1e3;
    let cs = s.seek.0 / 1e3;
    let sf = s.surfaces as f64;
    // sustained = 512·spt·S / ((S−1)·hs + cs + S·rev)
    let spt_for = |mbs: f64| (mbs * 1e6 * ((sf - 1.0) * hs + cs + sf * rev_s) / (512.0 * sf)).round();
    let spt_od = spt_for(s.od_mbs);
    let spt_id = spt_for(s.id_mbs);
    let spts: Vec<u32> = (0..ZONES)
        .map(|z| (spt_od + (spt_id - spt_od) * z as f64 / (ZONES - 1) as f64).round() as u32)
        .collect();
    let per_cyl: u64 = spts.iter().map(|&x| x as u64 * s.surfaces as u64).sum();
    let cyl_per_zone = s.capacity_sectors.div_ceil(per_cyl) as u32;
    let mut b = LayoutBuilder::new();
    for (z, &spt) in spts.iter().enumerate() {
        // skews: the next sector comes under the head just after the switch
        let tskew = ((hs / rev_s) * spt as f64).ceil() / spt as f64;
        let cskew = ((cs / rev_s) * spt as f64).ceil() / spt as f64;
        b.push_run(Run {
            p_start: 0,
            lpt: spt,
            spt,
            first_sector: 0,
            tracks: cyl_per_zone * s.surfaces,
            tpc: s.surfaces,
            cyl0: z as u32 * cyl_per_zone,
            cyl_dir: 1,
            head0: 0,
            mapping: 0,
            angle0: 0.0,
            a_track: tskew,
            a_cyl: cskew - tskew,
        });
    }
    let cyls = cyl_per_zone * ZONES;
    let l = b.build(s.surfaces, cyls, s.capacity_sectors, s.name)?;
    Ok((l, cyls))
}

fn from_sheet(s: &Sheet) -> Result<DriveParams> {
    let (layout, cyls) = sheet_layout(s)?;
    let _ = s.cylinders;
    Ok(DriveParams {
        name: s.name.to_string(),
        layout,
        seek: SeekCurve::lee(s.seek.0, s.seek.1, s.seek.2, cyls),
        access: AccessTime::TrackSwitchPlusRotation,
        head_switch_ms: s.head_switch_ms,
        write_settle_ms: s.write_settle_ms,
        rpm: s.rpm,
        rpm_error_pct: 0.2,
        xfer_read_ms: s.xfer_ms,
        xfer_write_ms: s.xfer_ms,
        overheads: Overheads {
            read_hit_after_read: s.read_hit_ms,
            read_hit_after_write: s.read_hit_ms,
            read_miss_after_read: s.read_miss_ms,
            read_miss_after_write: s.read_miss_ms,
            write_hit_after_read: s.write_ms,
            write_hit_after_write: s.write_ms,
            write_miss_after_read: s.write_ms,
            write_miss_after_write: s.write_ms,
            time_scale: 1.0,
            ..Overheads::default()
        },
        cache: CacheParams {
            enabled: true,
            segments: s.segments,
            segment_blocks: s.cache_blocks / s.segments,
            contread: 3,
            min_readahead: 0,
            max_readahead: s.cache_blocks / s.segments,
            readahead_over_requested: true,
            fast_write_level: s.fast_write_level,
            immed_read: false,
            immed_write: false,
            read_hits_on_write_data: true,
            read_water: 0.0,
            write_water: 0.0,
            water_by_request: true,
            ..CacheParams::default()
        },
        queue: QueueParams::default(),
        warnings: Vec::new(),
    })
}

/// Zone table of the Cheetah 15K.5 (from the DIXtrac extraction of the
/// 146 GB drive): (first cylinder, sectors per track).
const C15K5_ZONES: [(u32, u32); 14] = [
    (0, 1200),
    (7_801, 1160),
    (14_201, 1120),
    (20_201, 1104),
    (25_901, 1080),
    (31_301, 1020),
    (36_401, 994),
    (41_301, 960),
    (46_001, 920),
    (50_501, 880),
    (54_901, 840),
    (59_101, 816),
    (63_201, 780),
    (67_201, 720),
];
const C15K5_CYLS: u32 = 72_170;

/// Seek curve points (cylinders, ms) of the same extraction.
const C15K5_SEEK: [(u32, f64); 20] = [
    (1, 0.5525),
    (2, 0.5695),
    (3, 0.5974),
    (5, 0.7680),
    (10, 0.7876),
    (20, 0.8025),
    (50, 0.8328),
    (100, 1.1398),
    (200, 1.1560),
    (500, 1.5035),
    (1_000, 1.6364),
    (2_000, 1.9977),
    (5_000, 2.3321),
    (10_000, 2.9855),
    (20_000, 3.6658),
    (30_000, 4.3137),
    (40_000, 4.8433),
    (50_000, 5.5516),
    (60_000, 6.1209),
    (72_000, 6.9139),
];

fn cheetah_15k5() -> Result<DriveParams> {
    const SURFACES: u32 = 2;
    const ONE_CYL_SKEW_REV: f64 = 0.139; // ≈ seek(1) / period
    const HEAD_SKEW_REV: f64 = 0.05;
    let mut b = LayoutBuilder::new();
    for (i, &(c0, spt)) in C15K5_ZONES.iter().enumerate() {
        let c1 = C15K5_ZONES.get(i + 1).map(|z| z.0).unwrap_or(C15K5_CYLS);
        let tskew = (HEAD_SKEW_REV * spt as f64).ceil() / spt as f64;
        let cskew = (ONE_CYL_SKEW_REV * spt as f64).ceil() / spt as f64;
        b.push_run(Run {
            p_start: 0,
            lpt: spt,
            spt,
            first_sector: 0,
            tracks: (c1 - c0) * SURFACES,
            tpc: SURFACES,
            cyl0: c0,
            cyl_dir: 1,
            head0: 0,
            mapping: 0,
            angle0: 0.0,
            a_track: tskew,
            a_cyl: cskew - tskew,
        });
    }
    let layout = b.build(SURFACES, C15K5_CYLS, 143_374_738, "cheetah-15k5")?;
    Ok(DriveParams {
        name: "cheetah-15k5".into(),
        layout,
        seek: SeekCurve::Extracted {
            dists: C15K5_SEEK.iter().map(|p| p.0).collect(),
            ms: C15K5_SEEK.iter().map(|p| p.1).collect(),
        },
        access: AccessTime::TrackSwitchPlusRotation,
        head_switch_ms: 0.2,
        write_settle_ms: 0.0,
        rpm: 15_020.0,
        rpm_error_pct: 0.035,
        xfer_read_ms: 0.0,
        xfer_write_ms: 0.0,
        overheads: Overheads {
            read_hit_after_read: 0.162,
            read_hit_after_write: 0.158,
            read_miss_after_read: 0.0,
            read_miss_after_write: 0.105_657,
            write_hit_after_read: 0.276,
            write_hit_after_write: 0.456,
            write_miss_after_read: 0.628_67,
            write_miss_after_write: 0.227_98,
            time_scale: 1.0,
            ..Overheads::default()
        },
        cache: CacheParams {
            enabled: true,
            segments: 32,
            segment_blocks: 1200,
            contread: 4,
            min_readahead: 0,
            max_readahead: 1200,
            readahead_over_requested: false,
            fast_write_level: 0,
            immed_read: false,
            immed_write: true,
            read_hits_on_write_data: true,
            read_water: 0.0,
            write_water: 0.0,
            water_by_request: true,
            ..CacheParams::default()
        },
        queue: QueueParams::default(),
        warnings: Vec::new(),
    })
}

/// Applies DiskSim-named overrides to a preset (the cache and overhead
/// parameters and the mechanical scalars a preset has).
pub fn apply_overrides(p: &mut DriveParams, ov: &BTreeMap<String, f64>) -> Result<()> {
    for (k, &v) in ov {
        let c = &mut p.cache;
        let o = &mut p.overheads;
        match k.to_ascii_lowercase().as_str() {
            "enable caching in buffer" => c.enabled = v != 0.0,
            "buffer continuous read" => c.contread = v.clamp(0.0, 4.0) as u32,
            "fast write level" => c.fast_write_level = v.clamp(0.0, 2.0) as u32,
            "number of buffer segments" => c.segments = v.max(1.0) as u32,
            "segment size (in blks)" => c.segment_blocks = v.max(1.0) as u32,
            "minimum read-ahead (blks)" => c.min_readahead = v.max(0.0) as u32,
            "maximum read-ahead (blks)" => c.max_readahead = v.max(0.0) as u32,
            "read-ahead over requested" => c.readahead_over_requested = v != 0.0,
            "immediate buffer read" => c.immed_read = v != 0.0,
            "immediate buffer write" => c.immed_write = v != 0.0,
            "allow read hits on write data" => c.read_hits_on_write_data = v != 0.0,
            "read hit over. after read" => o.read_hit_after_read = v,
            "read hit over. after write" => o.read_hit_after_write = v,
            "read miss over. after read" => o.read_miss_after_read = v,
            "read miss over. after write" => o.read_miss_after_write = v,
            "write hit over. after read" => o.write_hit_after_read = v,
            "write hit over. after write" => o.write_hit_after_write = v,
            "write miss over. after read" => o.write_miss_after_read = v,
            "write miss over. after write" => o.write_miss_after_write = v,
            "time scale for overheads" => o.time_scale = v,
            "per-request overhead time" => o.per_request = v,
            "bulk sector transfer time" => {
                p.xfer_read_ms = v;
                p.xfer_write_ms = v;
            }
            "head switch time" => p.head_switch_ms = v,
            "add. write settling delay" => p.write_settle_ms = v,
            "rotation speed (in rpms)" if v > 0.0 => p.rpm = v,
            "percent error in rpms" => p.rpm_error_pct = v,
            _ => {
                return Err(Error::config(
                    format!("disk.overrides.{k}"),
                    "unknown or unsupported DiskSim parameter for a preset drive",
                ))
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_build_with_datasheet_capacity() {
        for n in NAMES {
            let p = preset(n).unwrap().unwrap();
            assert!(p.layout.capacity_sectors > 100_000_000, "{n}");
            assert!(p.layout.locate(p.layout.capacity_sectors - 1).is_some(), "{n}");
        }
        assert_eq!(preset("cheetah-15k5").unwrap().unwrap().layout.capacity_sectors, 143_374_738);
        assert!(preset("nope").unwrap().is_none());
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
