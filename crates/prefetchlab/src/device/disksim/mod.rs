//! Reader of DiskSim drive descriptions (models.md §1; DiskSim 4.0's
//! `diskmodel` and `disk.modspec`): `.parv` (a whole run configuration that
//! `source`s a `.diskspecs`), `.diskspecs` (the `disksim_disk` block, whose
//! `Model = source X.model` is a `dm_disk`), the `dm_layout_g1` zone lists
//! and the `dm_layout_g4` `.layout` files, the `dm_mech_g1` mechanics and
//! the `.seek`/`.seeks` extracted seek curves.
//!
//! How DiskSim's layouts are read (from `layout_g1.c`, `layout_g4.c`):
//! * g1: a zone's tracks take LBNs cylinder by cylinder, head 0..S−1
//!   (mapping scheme 1/2: serpentine), after `Empty space at zone front`.
//!   The angle of sector 0 of a track is `Offset of first block` + one
//!   track skew per track switch + one cylinder skew per cylinder switch,
//!   counted from the zone start. Sparing schemes understood: 0 none,
//!   1 spare tracks at the zone end (slips are tracks), 8 spare sectors at
//!   the end of each range of cylinders, 9 (and 10) spare sectors at the
//!   zone end with slipped sectors consuming them. The others (2–7: spares
//!   per cylinder/track) are rejected with a clear error.
//! * g4: a tree of index nodes whose leaves are tracks; every leaf entry is
//!   flattened at load time into a run of tracks on one head over
//!   consecutive cylinders (upwards or downwards), each `alen` revolutions
//!   after the previous; `Slips` become skipped physical ranges. `Remaps`
//!   (none in the shipped files) are not supported.
//! * `dm_layout_g2` needs DiskSim's raw map file and is not supported.
//!
//! The host transfer time per sector is the larger of the disk's `Bulk
//! sector transfer time` and the largest `Read/Write block transfer time` of
//! the `.parv`'s buses (DiskSim's `disk_get_blktranstime`).

pub mod parse;

use crate::device::hdd::geometry::{Layout, LayoutBuilder, Run};
use crate::device::hdd::seek::SeekCurve;
use crate::device::hdd::{AccessTime, CacheParams, DriveParams, Overheads, QueueParams};
use crate::error::{Error, Result};
use parse::{Block, Value};
use std::path::Path;

/// Parameter look-up with the command-line style overrides applied.
struct Get<'a> {
    overrides: &'a [(String, f64)],
}

impl Get<'_> {
    fn ov(&self, key: &str) -> Option<f64> {
        self.overrides.iter().rev().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| *v)
    }
    fn num_opt(&self, b: &Block, key: &str) -> Result<Option<f64>> {
        if let Some(v) = self.ov(key) {
            return Ok(Some(v));
        }
        match b.get(key) {
            None => Ok(None),
            Some(p) => match &p.value {
                Value::Num(x) => Ok(Some(*x)),
                _ => Err(Error::input(b.path_str(), p.line, format!("`{key}`: expected a number"))),
            },
        }
    }
    fn num(&self, b: &Block, key: &str) -> Result<f64> {
        self.num_opt(b, key)?.ok_or_else(|| missing(b, key))
    }
    fn num_or(&self, b: &Block, key: &str, default: f64) -> Result<f64> {
        Ok(self.num_opt(b, key)?.unwrap_or(default))
    }
}

fn missing(b: &Block, key: &str) -> Error {
    Error::input(
        b.path_str(),
        b.line,
        format!("block `{}` lacks parameter `{key}`", b.name.as_deref().unwrap_or(&b.type_name)),
    )
}

fn word<'a>(b: &'a Block, key: &str) -> Result<&'a str> {
    match b.get(key) {
        None => Err(missing(b, key)),
        Some(p) => match &p.value {
            Value::Word(w) => Ok(w),
            _ => Err(Error::input(b.path_str(), p.line, format!("`{key}`: expected a word"))),
        },
    }
}

fn block<'a>(b: &'a Block, key: &str) -> Result<&'a Block> {
    match b.get(key) {
        None => Err(missing(b, key)),
        Some(p) => match &p.value {
            Value::Block(x) => Ok(x),
            _ => Err(Error::input(
                b.path_str(),
                p.line,
                format!("`{key}`: expected a block `TYPE {{ ... }}` or `source FILE`"),
            )),
        },
    }
}

fn list<'a>(b: &'a Block, key: &str) -> Result<&'a [Value]> {
    match b.get(key) {
        None => Err(missing(b, key)),
        Some(p) => match &p.value {
            Value::List(x) => Ok(x),
            _ => Err(Error::input(b.path_str(), p.line, format!("`{key}`: expected a list `[ ... ]`"))),
        },
    }
}

fn nums(b: &Block, key: &str) -> Result<Vec<f64>> {
    let line = b.get(key).map(|p| p.line).unwrap_or(b.line);
    list(b, key)?
        .iter()
        .map(|v| match v {
            Value::Num(x) => Ok(*x),
            _ => Err(Error::input(b.path_str(), line, format!("`{key}`: expected a list of numbers"))),
        })
        .collect()
}

/// Loads a drive from a `.parv` or `.diskspecs`, with DiskSim parameters
/// overridden by name (as on DiskSim's command line).
pub fn load_drive(path: &Path, overrides: &[(String, f64)]) -> Result<DriveParams> {
    let doc = parse::read_document(path)?;
    let g = Get { overrides };
    // the disk: the instantiated disksim_disk if named, else the first one
    let disks: Vec<&Block> = doc.blocks.iter().filter(|b| b.type_name == "disksim_disk").collect();
    let disk = disks.first().copied().ok_or_else(|| {
        Error::input(
            path.display().to_string(),
            0,
            "expected a `disksim_disk NAME { ... }` block (directly or via `source`)",
        )
    })?;
    let mut bus_read: f64 = 0.0;
    let mut bus_write: f64 = 0.0;
    for b in doc.blocks.iter().filter(|b| b.type_name == "disksim_bus") {
        bus_read = bus_read.max(g.num_or(b, "Read block transfer time", 0.0)?);
        bus_write = bus_write.max(g.num_or(b, "Write block transfer time", 0.0)?);
    }
    let model = block(disk, "Model")?;
    if model.type_name != "dm_disk" {
        return Err(Error::input(
            model.path_str(),
            model.line,
            format!("expected a `dm_disk` model, found `{}`", model.type_name),
        ));
    }
    let surfaces = g.num(model, "Number of data surfaces")? as u32;
    let cylinders = g.num(model, "Number of cylinders")? as u32;
    let blocks = g.num(model, "Block count")? as u64;
    if surfaces == 0 || cylinders == 0 || blocks == 0 {
        return Err(Error::input(
            model.path_str(),
            model.line,
            "surfaces, cylinders and block count must be positive",
        ));
    }
    let lay = block(model, "Layout Model")?;
    let layout = match lay.type_name.as_str() {
        "dm_layout_g1" => layout_g1(lay, &g, surfaces, cylinders, blocks)?,
        "dm_layout_g4" => layout_g4(lay, surfaces, cylinders, blocks)?,
        other => {
            return Err(Error::input(
                lay.path_str(),
                lay.line,
                format!("layout `{other}` is not supported: expected dm_layout_g1 or dm_layout_g4"),
            ))
        }
    };
    let mech = block(model, "Mechanical Model")?;
    let seek = seek_curve(mech, &g, cylinders)?;
    let access = match word(mech, "Access time type").unwrap_or("trackSwitchPlusRotation") {
        "trackSwitchPlusRotation" => AccessTime::TrackSwitchPlusRotation,
        "averageRotation" => AccessTime::AverageRotation,
        "constant" => AccessTime::Constant { ms: g.num_or(mech, "Constant access time", 0.0)? },
        other => {
            return Err(Error::input(
                mech.path_str(),
                mech.get("Access time type").map(|p| p.line).unwrap_or(mech.line),
                format!(
                    "unknown `Access time type = {other}`: expected trackSwitchPlusRotation, averageRotation or constant"
                ),
            ))
        }
    };
    let bulk = g.num_or(disk, "Bulk sector transfer time", 0.0)?;
    let d = |k: &str| g.num_or(disk, k, 0.0);
    let overheads = Overheads {
        read_hit_after_read: d("Read hit over. after read")?,
        read_hit_after_write: d("Read hit over. after write")?,
        read_miss_after_read: d("Read miss over. after read")?,
        read_miss_after_write: d("Read miss over. after write")?,
        write_hit_after_read: d("Write hit over. after read")?,
        write_hit_after_write: d("Write hit over. after write")?,
        write_miss_after_read: d("Write miss over. after read")?,
        write_miss_after_write: d("Write miss over. after write")?,
        read_completion: d("Read completion overhead")?,
        write_completion: d("Write completion overhead")?,
        data_prep: d("Data preparation overhead")?,
        first_reselect: d("First reselect overhead")?,
        other_reselect: d("Other reselect overhead")?,
        read_disconnect_after_read: d("Read disconnect afterread")?,
        read_disconnect_after_write: d("Read disconnect afterwrite")?,
        write_disconnect: d("Write disconnect overhead")?,
        per_request: d("Per-request overhead time")?,
        min_seek_delay: d("Minimum seek delay")?,
        time_scale: g.num_or(disk, "Time scale for overheads", 1.0)?,
        extra_write_disconnect: d("Extra write disconnect")? != 0.0,
        extradisc_command: d("Extradisc command overhead")?,
        extradisc_disconnect1: d("Extradisc disconnect overhead")?,
        extradisc_inter_disconnect: d("Extradisc inter-disconnect delay")?,
        extradisc_disconnect2: d("Extradisc 2nd disconnect overhead")?,
        extradisc_seek_delta: d("Extradisc seek delta")?,
        hold_bus_read: d("Hold bus entire read xfer")? != 0.0,
        hold_bus_write: d("Hold bus entire write xfer")? != 0.0,
        never_disconnect: d("Never disconnect")? != 0.0,
        preseeking: d("Preseeking level")?.max(0.0) as u32,
    };
    let flag = |k: &str| -> Result<bool> { Ok(d(k)? != 0.0) };
    let cache = CacheParams {
        enabled: flag("Enable caching in buffer")?,
        segments: g.num_or(disk, "Number of buffer segments", 1.0)?.max(1.0) as u32,
        segment_blocks: g.num_or(disk, "Segment size (in blks)", 1.0)?.max(1.0) as u32,
        max_write_segments: g.num_or(disk, "Maximum number of write segments", 1.0)?.max(1.0) as u32,
        separate_write_segment: flag("Use separate write segment")?,
        contread: d("Buffer continuous read")?.clamp(0.0, 4.0) as u32,
        min_readahead: d("Minimum read-ahead (blks)")?.max(0.0) as u32,
        max_readahead: d("Maximum read-ahead (blks)")?.max(0.0) as u32,
        readahead_over_requested: flag("Read-ahead over requested")?,
        readahead_on_idle_hit: flag("Read-ahead on idle hit")?,
        read_any_free_blocks: flag("Read any free blocks")?,
        fast_write_level: d("Fast write level")?.clamp(0.0, 2.0) as u32,
        combine_seq_writes: flag("Combine seq writes")?,
        immed_read: flag("Immediate buffer read")?,
        immed_write: flag("Immediate buffer write")?,
        read_hits_on_write_data: flag("Allow read hits on write data")?,
        almost_read_hits: flag("Allow almost read hits")?,
        sneaky_full_read_hits: flag("Allow sneaky full read hits")?,
        sneaky_partial_read_hits: flag("Allow sneaky partial read hits")?,
        sneaky_intermediate_read_hits: flag("Allow sneaky intermediate read hits")?,
        write_prebuffering: flag("Allow write prebuffering")?,
        stop_prefetch_in_sector: flag("Stop prefetch in sector")?,
        disconnect_write_if_seek: flag("Disconnect write if seek")?,
        write_hit_stop_prefetch: flag("Write hit stop prefetch")?,
        read_directly_to_buffer: flag("Read directly to buffer")?,
        immed_transfer_partial_hit: flag("Immed transfer partial hit")?,
        read_water: d("High (read) water mark")?.clamp(0.0, 1.0),
        write_water: d("Low (write) water mark")?.clamp(0.0, 1.0),
        water_by_request: flag("Set watermark by reqsize")?,
        calc_sector_by_sector: g.num_or(disk, "Calc sector by sector", 1.0)? != 0.0,
    };
    let queue = match disk.get("Scheduler") {
        Some(_) => {
            let q = block(disk, "Scheduler")?;
            QueueParams {
                max_queue_length: g.num_or(disk, "Max queue length", 1.0)?.max(1.0) as u32,
                policy: g.num_or(q, "Scheduling policy", 1.0)? as u32,
                cylinder_mapping: g.num_or(q, "Cylinder mapping strategy", 0.0)? as u32,
            }
        }
        None => QueueParams {
            max_queue_length: g.num_or(disk, "Max queue length", 1.0)?.max(1.0) as u32,
            ..QueueParams::default()
        },
    };
    Ok(DriveParams {
        name: disk.name.clone().unwrap_or_else(|| "disksim".into()),
        layout,
        seek,
        access,
        head_switch_ms: g.num(mech, "Head switch time")?,
        write_settle_ms: g.num_or(mech, "Add. write settling delay", 0.0)?,
        rpm: {
            let r = g.num(mech, "Rotation speed (in rpms)")?;
            if r <= 0.0 {
                return Err(Error::input(mech.path_str(), mech.line, "rpm must be positive"));
            }
            r
        },
        rpm_error_pct: g.num_or(mech, "Percent error in rpms", 0.0)?,
        xfer_read_ms: bulk.max(bus_read),
        xfer_write_ms: bulk.max(bus_write),
        overheads,
        cache,
        queue,
        warnings: Vec::new(),
    })
}

fn seek_curve(mech: &Block, g: &Get<'_>, cylinders: u32) -> Result<SeekCurve> {
    let ty = word(mech, "Seek type")?;
    let line = mech.get("Seek type").map(|p| p.line).unwrap_or(mech.line);
    Ok(match ty {
        "constant" => SeekCurve::Constant {
            ms: g.num(mech, "Constant seek time")?,
        },
        "linear" => SeekCurve::Linear {
            one: g.num(mech, "Single cylinder seek time")?,
            avg: g.num(mech, "Average seek time")?,
            full: g.num(mech, "Full strobe seek time")?,
            cylinders,
        },
        "curve" => SeekCurve::lee(
            g.num(mech, "Single cylinder seek time")?,
            g.num(mech, "Average seek time")?,
            g.num(mech, "Full strobe seek time")?,
            cylinders,
        ),
        "hpl" | "hplplus10" => {
            let v = nums(mech, "HPL seek equation values")?;
            if v.len() < 6 {
                return Err(Error::input(
                    mech.path_str(),
                    mech.get("HPL seek equation values").map(|p| p.line).unwrap_or(line),
                    format!("expected 6 HPL seek equation values, found {}", v.len()),
                ));
            }
            let first10 = if ty == "hplplus10" {
                let f = nums(mech, "First ten seek times")?;
                if f.len() < 10 {
                    return Err(Error::input(
                        mech.path_str(),
                        mech.get("First ten seek times").map(|p| p.line).unwrap_or(line),
                        format!("expected 10 first seek times, found {}", f.len()),
                    ));
                }
                let mut a = [0.0; 10];
                a.copy_from_slice(&f[..10]);
                Some(a)
            } else {
                None
            };
            SeekCurve::Hpl {
                boundary: v[0],
                short_c: v[1],
                short_k: v[2],
                long_c: v[3],
                long_k: v[4],
                one: if v[5] == -1.0 { None } else { Some(v[5]) },
                first10,
            }
        }
        "extracted" => {
            let f = word(mech, "Full seek curve")?;
            read_seek_file(&mech.resolve(f))?
        }
        other => {
            return Err(Error::input(
                mech.path_str(),
                line,
                format!("unknown `Seek type = {other}`: expected constant, linear, curve, hpl, hplplus10 or extracted"),
            ))
        }
    })
}

/// Reads a DiskSim extracted seek curve: optional `Seek distances
/// measured: n`, then `distance, time_ms[, stdev]` lines.
pub fn read_seek_file(path: &Path) -> Result<SeekCurve> {
    let ps = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::input(ps.clone(), 0, format!("cannot read seek curve: {e}")))?;
    let mut dists = Vec::new();
    let mut ms = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with("Seek distances measured") || t.starts_with('#') {
            continue;
        }
        let mut it = t.split(',').map(str::trim);
        let d = it.next().and_then(|x| x.parse::<u32>().ok());
        let v = it.next().and_then(|x| x.parse::<f64>().ok());
        match (d, v) {
            (Some(d), Some(v)) if v >= 0.0 => {
                if let Some(&last) = dists.last() {
                    if d <= last {
                        return Err(Error::input(ps, i + 1, "expected seek distances in increasing order"));
                    }
                }
                dists.push(d);
                ms.push(v);
            }
            _ => return Err(Error::input(ps, i + 1, format!("expected `distance, time_ms`, found `{t}`"))),
        }
    }
    if dists.is_empty() {
        return Err(Error::input(ps, 0, "expected at least one `distance, time_ms` line"));
    }
    Ok(SeekCurve::Extracted { dists, ms })
}

fn layout_g1(lay: &Block, g: &Get<'_>, surfaces: u32, cylinders: u32, blocks: u64) -> Result<Layout> {
    let mapping = g.num_or(lay, "LBN-to-PBN mapping scheme", 0.0)? as u8;
    let scheme = g.num_or(lay, "Sparing scheme used", 0.0)? as u32;
    let rangesize = g.num_or(lay, "Rangesize for sparing", 1.0)?.max(1.0) as u64;
    let revs = matches!(lay.get("Skew units").map(|p| &p.value), Some(Value::Word(w)) if w == "revolutions");
    if !matches!(scheme, 0 | 1 | 8 | 9 | 10) {
        return Err(Error::input(
            lay.path_str(),
            lay.get("Sparing scheme used").map(|p| p.line).unwrap_or(lay.line),
            format!("sparing scheme {scheme} is not supported: expected 0, 1, 8, 9 or 10"),
        ));
    }
    let zones = list(lay, "Zones")?;
    let mut b = LayoutBuilder::new();
    let s = surfaces as u64;
    let mut total_logical = 0u64;
    for z in zones {
        let Value::Block(z) = z else {
            return Err(Error::input(lay.path_str(), lay.line, "`Zones`: expected a list of zone blocks"));
        };
        let c0 = g.num(z, "First cylinder number")? as u32;
        let c1 = g.num(z, "Last cylinder number")? as u32;
        let spt = g.num(z, "Blocks per track")? as u32;
        if c1 < c0 || spt == 0 || c1 >= cylinders {
            return Err(Error::input(
                z.path_str(),
                z.line,
                "zone: expected first ≤ last cylinder < number of cylinders and blocks per track > 0",
            ));
        }
        let unit = |x: f64| if revs { x } else { x / spt as f64 };
        let first = unit(g.num_or(z, "Offset of first block", 0.0)?);
        let tskew = unit(g.num_or(z, "Skew for track switch", 0.0)?);
        let cskew = unit(g.num_or(z, "Skew for cylinder switch", 0.0)?);
        let dead = g.num_or(z, "Empty space at zone front", 0.0)? as u64;
        let spares = g.num_or(z, "Number of spares", 0.0)? as u64;
        let slips: Vec<u64> = match z.get("slips") {
            Some(_) => nums(z, "slips")?.into_iter().map(|x| x as u64).collect(),
            None => Vec::new(),
        };
        let cyls = (c1 - c0 + 1) as u64;
        let zone_p = cyls * s * spt as u64;
        let base = b.p_end();
        let run = Run {
            p_start: 0,
            lpt: spt,
            spt,
            first_sector: 0,
            tracks: (cyls * s) as u32,
            tpc: surfaces,
            cyl0: c0,
            cyl_dir: 1,
            head0: 0,
            mapping,
            angle0: first,
            a_track: tskew,
            a_cyl: cskew - tskew,
        };
        b.push_run(run);
        // DiskSim's blocks in this zone (layout_g1_load.c)
        let mut logical = zone_p - dead;
        let mut skipped = dead;
        b.skip(base, dead);
        match scheme {
            0 => {}
            1 => {
                logical -= spares * spt as u64;
                for &t in &slips {
                    b.skip(base + t * spt as u64, spt as u64);
                    skipped += spt as u64;
                }
            }
            8 => {
                // spares at the end of every range of cylinders; a slip in a
                // range uses one of that range's spares
                let per_range = rangesize * s * spt as u64;
                let ranges = cyls / rangesize;
                logical -= spares * ranges;
                for r in 0..ranges {
                    let lo = r * per_range;
                    let in_range = slips.iter().filter(|&&x| x >= lo && x < lo + per_range).count() as u64;
                    let sp = spares.saturating_sub(in_range);
                    b.skip(base + lo + per_range - sp, sp);
                    skipped += sp;
                }
                for &x in &slips {
                    b.skip(base + x, 1);
                    skipped += 1;
                }
            }
            _ => {
                logical -= spares;
                if scheme == 10 {
                    logical -= slips.len() as u64;
                }
                let mut sorted = slips.clone();
                sorted.sort_unstable();
                for &x in &sorted {
                    b.skip(base + x, 1);
                    skipped += 1;
                }
            }
        }
        // whatever is left at the zone end holds no LBN
        let used = logical + skipped;
        if used > zone_p {
            return Err(Error::input(z.path_str(), z.line, "zone: more slips and spares than sectors"));
        }
        let tail = zone_p - used;
        b.skip(base + zone_p - tail, tail);
        total_logical += logical;
    }
    let _ = total_logical;
    b.build(surfaces, cylinders, blocks, &lay.path_str())
}

fn g4_num(v: &Value, lay: &Block, what: &str) -> Result<f64> {
    match v {
        Value::Num(x) => Ok(*x),
        _ => {
            Err(Error::input(lay.path_str(), lay.line, format!("dm_layout_g4: expected a number for {what}")))
        }
    }
}

struct G4Ent {
    lbn: i64,
    cyl: i64,
    off: f64,
    len: i64,
    cyllen: i64,
    alen: f64,
    runlen: i64,
    cylrunlen: i64,
    track: bool,
    child: usize,
    head: u32,
}

fn layout_g4(lay: &Block, surfaces: u32, cylinders: u32, blocks: u64) -> Result<Layout> {
    let tp = list(lay, "TP")?;
    if tp.len() % 3 != 0 || tp.is_empty() {
        return Err(Error::input(
            lay.path_str(),
            lay.line,
            "dm_layout_g4 `TP`: expected triples low, high, spt",
        ));
    }
    let mut tracks = Vec::with_capacity(tp.len() / 3);
    for t in tp.chunks(3) {
        let low = g4_num(&t[0], lay, "TP low")? as u32;
        let high = g4_num(&t[1], lay, "TP high")? as u32;
        let spt = g4_num(&t[2], lay, "TP spt")? as u32;
        if high < low || spt == 0 || high >= spt {
            return Err(Error::input(
                lay.path_str(),
                lay.line,
                "dm_layout_g4 `TP`: expected low ≤ high < spt",
            ));
        }
        tracks.push((low, high, spt));
    }
    let idx_l = list(lay, "IDX")?;
    let mut idx: Vec<Vec<G4Ent>> = Vec::with_capacity(idx_l.len());
    for v in idx_l {
        let Value::List(items) = v else {
            return Err(Error::input(
                lay.path_str(),
                lay.line,
                "dm_layout_g4 `IDX`: expected a list of lists",
            ));
        };
        let mut ents = Vec::new();
        let mut p = 0usize;
        while p < items.len() {
            if p + 10 > items.len() {
                return Err(Error::input(lay.path_str(), lay.line, "dm_layout_g4 `IDX`: truncated entry"));
            }
            let n = |k: usize, w: &str| g4_num(&items[p + k], lay, w);
            let typ = match &items[p + 8] {
                Value::Word(w) => w.as_str(),
                _ => "",
            };
            let track = match typ {
                "TRACK" => true,
                "IDX" => false,
                _ => {
                    return Err(Error::input(
                        lay.path_str(),
                        lay.line,
                        "dm_layout_g4 `IDX`: expected TRACK or IDX as 9th field",
                    ))
                }
            };
            let child = n(9, "child")? as usize;
            let head = if track {
                if p + 11 > items.len() {
                    return Err(Error::input(
                        lay.path_str(),
                        lay.line,
                        "dm_layout_g4 `IDX`: truncated TRACK entry",
                    ));
                }
                n(10, "head")? as u32
            } else {
                0
            };
            ents.push(G4Ent {
                lbn: n(0, "lbn")? as i64,
                cyl: n(1, "cyl")? as i64,
                off: n(2, "off")?,
                len: n(3, "len")? as i64,
                cyllen: n(4, "cyllen")? as i64,
                alen: n(5, "alen")?,
                runlen: n(6, "runlen")? as i64,
                cylrunlen: n(7, "cylrunlen")? as i64,
                track,
                child,
                head,
            });
            p += if track { 11 } else { 10 };
        }
        idx.push(ents);
    }
    if idx.is_empty() {
        return Err(Error::input(lay.path_str(), lay.line, "dm_layout_g4: empty IDX"));
    }
    let mut b = LayoutBuilder::new();
    let root = idx.len() - 1;
    flatten_g4(&idx, &tracks, root, 0, 0, 0.0, 0, &mut b, lay)?;
    // slips: (off, count) pairs, counts positive
    if let Some(pp) = lay.get("Slips") {
        if let Value::List(items) = &pp.value {
            for c in items.chunks(2) {
                if c.len() != 2 {
                    break;
                }
                let off = g4_num(&c[0], lay, "slip offset")?;
                let cnt = g4_num(&c[1], lay, "slip count")?;
                if off < 0.0 || cnt < 0.0 {
                    return Err(Error::input(
                        lay.path_str(),
                        pp.line,
                        "dm_layout_g4 `Slips`: negative entries (spares) are not supported",
                    ));
                }
                b.skip(off as u64, cnt as u64);
            }
        }
    }
    if let Some(pp) = lay.get("Remaps") {
        if let Value::List(items) = &pp.value {
            if !items.is_empty() {
                return Err(Error::input(lay.path_str(), pp.line, "dm_layout_g4 `Remaps` are not supported"));
            }
        }
    }
    b.build(surfaces, cylinders, blocks, &lay.path_str())
}

#[allow(clippy::too_many_arguments)]
fn flatten_g4(
    idx: &[Vec<G4Ent>],
    tracks: &[(u32, u32, u32)],
    node: usize,
    lbn0: i64,
    cyl0: i64,
    ang0: f64,
    depth: usize,
    b: &mut LayoutBuilder,
    lay: &Block,
) -> Result<()> {
    if depth > 8 || node >= idx.len() {
        return Err(Error::input(lay.path_str(), lay.line, "dm_layout_g4: bad or cyclic IDX reference"));
    }
    for e in &idx[node] {
        if e.len <= 0 || e.runlen <= 0 {
            continue;
        }
        let inst = (e.runlen + e.len - 1) / e.len;
        let dir: i64 = if e.cylrunlen < 0 { -1 } else { 1 };
        if e.track {
            let Some(&(low, high, spt)) = tracks.get(e.child) else {
                return Err(Error::input(lay.path_str(), lay.line, "dm_layout_g4: TRACK child out of range"));
            };
            let lpt = (high - low + 1) as i64;
            if lpt != e.len {
                return Err(Error::input(
                    lay.path_str(),
                    lay.line,
                    "dm_layout_g4: a track entry's len differs from its track pattern",
                ));
            }
            let a = ang0 + e.off;
            b.push_run_at(Run {
                p_start: (lbn0 + e.lbn) as u64,
                lpt: lpt as u32,
                spt,
                first_sector: low,
                tracks: inst as u32,
                tpc: 1,
                cyl0: (cyl0 + e.cyl).max(0) as u32,
                cyl_dir: dir as i8,
                head0: e.head as u8,
                mapping: 0,
                angle0: a - a.floor(),
                a_track: e.alen * if e.cyllen != 0 { 1.0 } else { 0.0 },
                a_cyl: 0.0,
            });
        } else {
            for q in 0..inst {
                let a = ang0 + e.off + q as f64 * e.alen;
                flatten_g4(
                    idx,
                    tracks,
                    e.child,
                    lbn0 + e.lbn + q * e.len,
                    cyl0 + e.cyl + dir * q * e.cyllen,
                    a - a.floor(),
                    depth + 1,
                    b,
                    lay,
                )?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("prefetchlab-disksim-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    const MODEL: &str = "dm_disk M {\n Number of data surfaces = 2,\n Number of cylinders = 100,\n Block count = 18990,\n Layout Model = dm_layout_g1 {\n  LBN-to-PBN mapping scheme = 0,\n  Sparing scheme used = 9,\n  Rangesize for sparing = 1,\n  Zones = [\n   dm_layout_g1_zone { First cylinder number = 0, Last cylinder number = 49, Blocks per track = 100, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = 10, Skew for cylinder switch = 20, Number of spares = 10, slips = [ 5 ], defects = [] },\n   dm_layout_g1_zone { First cylinder number = 50, Last cylinder number = 99, Blocks per track = 90, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = 10, Skew for cylinder switch = 20, Number of spares = 0, slips = [], defects = [] }\n  ]\n },\n Mechanical Model = dm_mech_g1 {\n  Access time type = trackSwitchPlusRotation,\n  Seek type = curve,\n  Single cylinder seek time = 1.0,\n  Average seek time = 5.0,\n  Full strobe seek time = 10.0,\n  Add. write settling delay = 0.0,\n  Head switch time = 0.5,\n  Rotation speed (in rpms) = 6000,\n  Percent error in rpms = 0.0\n }\n}\n";

    const SPECS: &str = "disksim_disk D {\n Model = source m.model,\n Bulk sector transfer time = 0.01,\n Number of buffer segments = 2,\n Segment size (in blks) = 100,\n Enable caching in buffer = 1,\n Buffer continuous read = 3,\n Maximum read-ahead (blks) = 50,\n Read hit over. after read = 0.1,\n Read miss over. after read = 0.3\n}\n";

    #[test]
    fn loads_a_small_diskspecs_with_overrides() {
        let d = tmpdir("ok");
        std::fs::write(d.join("m.model"), MODEL).unwrap();
        std::fs::write(d.join("d.diskspecs"), SPECS).unwrap();
        let p = load_drive(&d.join("d.diskspecs"), &[("Buffer continuous read".into(), 0.0)]).unwrap();
        assert_eq!(p.layout.capacity_sectors, 18990);
        assert_eq!(p.cache.contread, 0);
        assert_eq!(p.cache.segments, 2);
        assert_eq!(p.rpm, 6000.0);
        // slip at zone-physical 5: LBA 5 sits on sector 6
        let l = p.layout.locate(5).unwrap();
        assert_eq!((l.cyl, l.head, l.sector), (0, 0, 6));
        // the second zone starts after 50 cyl × 2 × 100 − 10 spares
        let l = p.layout.locate(9990).unwrap();
        assert_eq!((l.cyl, l.head, l.sector, l.spt), (50, 0, 0, 90));
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn truncated_diskspecs_gives_one_input_error() {
        let d = tmpdir("trunc");
        std::fs::write(d.join("m.model"), MODEL).unwrap();
        let cut = &SPECS[..SPECS.find("Maximum read-ahead").unwrap()];
        std::fs::write(d.join("t.diskspecs"), cut).unwrap();
        let e = load_drive(&d.join("t.diskspecs"), &[]).unwrap_err();
        match &e {
            Error::Input { path, line, msg } => {
                assert!(path.ends_with("t.diskspecs"), "{path}");
                assert_eq!(*line, 7, "{line}");
                assert!(msg.contains("expected `}`"), "{msg}");
            }
            other => panic!("{other:?}"),
        }
        // a truncated model file is named too
        std::fs::write(d.join("m.model"), &MODEL[..MODEL.len() / 2]).unwrap();
        std::fs::write(d.join("d.diskspecs"), SPECS).unwrap();
        let e = load_drive(&d.join("d.diskspecs"), &[]).unwrap_err();
        assert!(e.to_string().contains("m.model"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }
}
