//! Reader of DiskSim drive descriptions (models.md §1; DiskSim 4.0's
//! `diskmodel` and `disk.modspec`): `.parv` (a whole run configuration that
//! `source`s a `.diskspecs`), `.diskspecs` (the `disksim_disk` block, whose
//! `Model = source X.model` is a `dm_disk`), the layouts `dm_layout_g1`
//! ([`g1`]: zones, every sparing scheme 0–10, slips and remapped defects),
//! `dm_layout_g2` ([`g2`]: a raw map file) and `dm_layout_g4` ([`g4`]: the
//! `.layout` tree with slips, negative slips and remaps), the `dm_mech_g1`
//! mechanics and the `.seek`/`.seeks` extracted seek curves ([`mech`]).
//!
//! * Files are read through a [`parse::Source`]: the file system, or texts
//!   in memory (the built-in presets' embedded descriptions go through this
//!   same reader).
//! * Overrides (`--override "NAME=VALUE"`, `disk.overrides`) set a DiskSim
//!   parameter by name wherever the description has it (every block of the
//!   drive that reads that name). A name that is no DiskSim drive parameter
//!   ([`names`]) is an error suggesting the closest name; a value that is not
//!   a finite number is an error; a real DiskSim name the drive's description
//!   never consults is a warning.
//! * The drive's capacity is what DiskSim uses: for `dm_layout_g1` the
//!   blocks its zones map (DiskSim's `checknumblocks` replaces `Block count`
//!   by that sum; a differing `Block count` is a warning), for g2 and g4
//!   `Block count`.
//! * Where DiskSim silently tolerates a malformed description, the reader
//!   does the same and records a one-line warning in
//!   [`DriveParams::warnings`]; everything else is one error naming the file,
//!   line and what was expected.
//!
//! The host transfer time per sector is the larger of the disk's `Bulk
//! sector transfer time` and the largest `Read/Write block transfer time` of
//! the `.parv`'s buses (DiskSim's `disk_get_blktranstime`).
//!
//! Two parameters are read but not acted on by DiskSim 4.0 itself: `Access
//! time type` (its disk module always models seek and rotation; only the
//! simple disk has a constant access time) and `Percent error in rpms`
//! (stored, never used). The reader passes both to the drive model, which
//! follows the manual's meaning.

pub mod g1;
pub mod g2;
pub mod g4;
pub mod mech;
pub mod names;
pub mod parse;

use crate::device::hdd::{CacheParams, DriveParams, Overheads, QueueParams};
use crate::error::{Error, Result};
use parse::{Block, Source, Value};
use std::cell::RefCell;
use std::path::Path;

/// How to read a description.
pub struct Options<'a> {
    /// Where the files come from.
    pub source: &'a dyn Source,
    /// DiskSim parameters by name, applied as the description is read.
    pub overrides: &'a [(String, f64)],
    /// Keep only the tracks of `count` heads from `first`, renumbered from
    /// 0 (a `dm_layout_g4` drive with fewer surfaces than the one described;
    /// see [`g4`]).
    pub keep_heads: Option<(u32, u32)>,
}

/// Parameter look-up with the command-line style overrides applied; notes
/// which overrides were consulted.
pub struct Get<'a> {
    overrides: &'a [(String, f64)],
    used: RefCell<Vec<bool>>,
}

impl<'a> Get<'a> {
    fn new(overrides: &'a [(String, f64)]) -> Self {
        Get { overrides, used: RefCell::new(vec![false; overrides.len()]) }
    }
    /// Where the override of `key` is, if any (the last one given wins).
    fn position(&self, key: &str) -> Option<usize> {
        self.overrides.iter().rposition(|(k, _)| k.trim().eq_ignore_ascii_case(key))
    }
    /// The override of `key`, if any (the last one given wins).
    pub fn ov(&self, key: &str) -> Option<f64> {
        let i = self.position(key)?;
        self.used.borrow_mut()[i] = true;
        Some(self.overrides[i].1)
    }
    /// A value of `key` refused (`what` says it and what was expected): said
    /// of the override when one gives the key ([`Error::Override`]), else of
    /// the block's file and line.
    pub fn refuse(&self, b: &Block, key: &str, what: String) -> Error {
        if self.position(key).is_some() {
            Error::Override(what)
        } else {
            Error::input(b.path_str(), b.get(key).map(|p| p.line).unwrap_or(b.line), what)
        }
    }
    /// A number: the override, else the block's value; `None` if neither.
    pub fn num_opt(&self, b: &Block, key: &str) -> Result<Option<f64>> {
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
    pub fn num(&self, b: &Block, key: &str) -> Result<f64> {
        self.num_opt(b, key)?.ok_or_else(|| missing(b, key))
    }
    pub fn num_or(&self, b: &Block, key: &str, default: f64) -> Result<f64> {
        Ok(self.num_opt(b, key)?.unwrap_or(default))
    }
    /// An integer in `lo..=hi` (DiskSim's `I` parameters are 32-bit ints):
    /// a file's value must be whole; an override is truncated, as DiskSim's
    /// `atoi` does.
    pub fn int_opt(&self, b: &Block, key: &str, lo: i64, hi: i64) -> Result<Option<i64>> {
        let line = b.get(key).map(|p| p.line).unwrap_or(b.line);
        let (v, from_file) = match self.ov(key) {
            Some(v) => (Some(v.trunc()), false),
            None => (self.num_opt(b, key)?, true),
        };
        let Some(v) = v else { return Ok(None) };
        if from_file && v.fract() != 0.0 {
            return Err(Error::input(b.path_str(), line, format!("`{key} = {v}`: expected a whole number")));
        }
        if v < lo as f64 || v > hi as f64 {
            return Err(self.refuse(
                b,
                key,
                format!("`{key} = {v}`: expected a whole number from {lo} to {hi}"),
            ));
        }
        Ok(Some(v as i64))
    }
    pub fn int(&self, b: &Block, key: &str, lo: i64, hi: i64) -> Result<i64> {
        self.int_opt(b, key, lo, hi)?.ok_or_else(|| missing(b, key))
    }
    pub fn int_or(&self, b: &Block, key: &str, lo: i64, hi: i64, default: i64) -> Result<i64> {
        Ok(self.int_opt(b, key, lo, hi)?.unwrap_or(default))
    }
    /// Overrides never consulted.
    fn unused(&self) -> Vec<&str> {
        let used = self.used.borrow();
        self.overrides.iter().zip(used.iter()).filter(|(_, &u)| !u).map(|((k, _), _)| k.as_str()).collect()
    }
}

/// The largest value DiskSim's 32-bit `I` parameters hold.
pub const INT_MAX: i64 = i32::MAX as i64;

/// Most cache segments (and queue slots) a drive description may ask for.
pub const MAX_SEGMENTS: i64 = 65_536;
/// The longest time (ms) a drive parameter may give (a minute): overheads
/// beyond it would only saturate the clock.
const MAX_TIME_MS: f64 = 60_000.0;

pub fn missing(b: &Block, key: &str) -> Error {
    Error::input(
        b.path_str(),
        b.line,
        format!("block `{}` lacks parameter `{key}`", b.name.as_deref().unwrap_or(&b.type_name)),
    )
}

pub fn word<'a>(b: &'a Block, key: &str) -> Result<&'a str> {
    match b.get(key) {
        None => Err(missing(b, key)),
        Some(p) => match &p.value {
            Value::Word(w) => Ok(w),
            _ => Err(Error::input(b.path_str(), p.line, format!("`{key}`: expected a word"))),
        },
    }
}

pub fn block<'a>(b: &'a Block, key: &str) -> Result<&'a Block> {
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

pub fn list<'a>(b: &'a Block, key: &str) -> Result<&'a [Value]> {
    match b.get(key) {
        None => Err(missing(b, key)),
        Some(p) => match &p.value {
            Value::List(x) => Ok(x),
            _ => Err(Error::input(b.path_str(), p.line, format!("`{key}`: expected a list `[ ... ]`"))),
        },
    }
}

pub fn nums(b: &Block, key: &str) -> Result<Vec<f64>> {
    let line = b.get(key).map(|p| p.line).unwrap_or(b.line);
    list(b, key)?
        .iter()
        .map(|v| match v {
            Value::Num(x) => Ok(*x),
            _ => Err(Error::input(b.path_str(), line, format!("`{key}`: expected a list of numbers"))),
        })
        .collect()
}

/// Checks overrides before anything is read: each must name a DiskSim
/// drive parameter that takes a number, with a finite value.
pub fn check_overrides(overrides: &[(String, f64)]) -> Result<()> {
    for (k, v) in overrides {
        match names::lookup(k) {
            None => {
                let hint = match names::closest(k) {
                    Some(n) => format!(" (did you mean `{n}`?)"),
                    None => " (the names are DiskSim's, e.g. `Buffer continuous read`)".to_string(),
                };
                return Err(Error::Override(format!(
                    "`{}={v}`: no DiskSim drive parameter is called `{}`{hint}",
                    k.trim(),
                    k.trim(),
                )));
            }
            Some((name, false)) => {
                return Err(Error::Override(format!(
                    "`{name}={v}`: `{name}` is not a number parameter and cannot be overridden"
                )))
            }
            Some(_) => {}
        }
        if !v.is_finite() {
            return Err(Error::Override(format!("`{}={v}`: expected a finite number", k.trim())));
        }
    }
    Ok(())
}

/// Loads a drive from a `.parv` or `.diskspecs` on disk, with DiskSim
/// parameters overridden by name (as on DiskSim's command line).
pub fn load_drive(path: &Path, overrides: &[(String, f64)]) -> Result<DriveParams> {
    load_drive_with(path, &Options { source: &parse::FileSystem, overrides, keep_heads: None })
}

/// Every file the drive description at `path` reads — itself, the files it
/// `source`s, its seek curve, its layout map — each once, in the order read:
/// what a stored result depends on besides its configuration.
pub fn files_read(path: &Path) -> Result<Vec<std::path::PathBuf>> {
    let rec = Recording { inner: &parse::FileSystem, paths: RefCell::new(Vec::new()) };
    load_drive_with(path, &Options { source: &rec, overrides: &[], keep_heads: None })?;
    Ok(rec.paths.into_inner())
}

/// A source that notes each path read.
struct Recording<'a> {
    inner: &'a dyn Source,
    paths: RefCell<Vec<std::path::PathBuf>>,
}

impl Source for Recording<'_> {
    fn read(&self, path: &Path) -> std::result::Result<String, String> {
        let mut paths = self.paths.borrow_mut();
        if !paths.iter().any(|p| p == path) {
            paths.push(path.to_path_buf());
        }
        self.inner.read(path)
    }
}

/// Loads a drive from `path` as `opts` say.
pub fn load_drive_with(path: &Path, opts: &Options<'_>) -> Result<DriveParams> {
    check_overrides(opts.overrides)?;
    let doc = parse::read_document_from(opts.source, path)?;
    let mut warnings = doc.warnings.clone();
    let g = Get::new(opts.overrides);
    // the disk: the one instantiated if named, else the first one
    let disks: Vec<&Block> = doc.blocks.iter().filter(|b| b.type_name == "disksim_disk").collect();
    let inst = doc
        .instances
        .iter()
        .find_map(|i| disks.iter().find(|d| d.name.as_deref() == Some(i.as_type.as_str())).copied());
    let disk = inst.or_else(|| disks.first().copied()).ok_or_else(|| {
        Error::input(
            path.display().to_string(),
            0,
            "expected a `disksim_disk NAME { ... }` block (directly or via `source`)",
        )
    })?;
    // what the drive is read from: the disk (with the blocks inside it) and the buses
    let read_from: Vec<&Block> =
        doc.blocks.iter().filter(|b| std::ptr::eq(*b, disk) || b.type_name == "disksim_bus").collect();
    names::unknown_in(&doc.blocks, &read_from, opts.overrides, &mut warnings)?;
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
    let surfaces = g.int(model, "Number of data surfaces", 1, 255)? as u32;
    let cylinders = g.int(model, "Number of cylinders", 1, INT_MAX)? as u32;
    let blocks = g.int(model, "Block count", 1, INT_MAX)? as u64;
    let lay = block(model, "Layout Model")?;
    let layout = match lay.type_name.as_str() {
        "dm_layout_g1" => g1::layout(lay, &g, surfaces, cylinders, blocks, &mut warnings)?,
        "dm_layout_g2" => g2::layout(lay, &g, opts.source, surfaces, cylinders, blocks, &mut warnings)?,
        "dm_layout_g4" => g4::layout(lay, surfaces, cylinders, blocks, opts.keep_heads, &mut warnings)?,
        other => {
            return Err(Error::input(
                lay.path_str(),
                lay.line,
                format!(
                    "layout `{other}` is not supported: expected dm_layout_g1, dm_layout_g2 or dm_layout_g4"
                ),
            ))
        }
    };
    if opts.keep_heads.is_some() && lay.type_name != "dm_layout_g4" {
        return Err(Error::input(
            lay.path_str(),
            lay.line,
            "keeping some heads only works on a dm_layout_g4 layout",
        ));
    }
    let mech = block(model, "Mechanical Model")?;
    let m = mech::mechanics(mech, &g, opts.source, cylinders, &mut warnings)?;
    let bulk = g.num_or(disk, "Bulk sector transfer time", 0.0)?;
    let d = |k: &str| g.num_or(disk, k, 0.0);
    // values beyond what DiskSim's code distinguishes are taken as its
    // nearest, and said (a typo would otherwise change the drive unseen)
    let mut said = Vec::new();
    let mut within = |k: &str, lo: f64, hi: f64| -> Result<f64> {
        let v = d(k)?;
        if v < lo || v > hi {
            let at = g.ov(k).map_or_else(
                || format!("{}:{}", disk.path_str(), disk.get(k).map_or(disk.line, |p| p.line)),
                |_| "override".to_string(),
            );
            said.push(format!("{at}: `{k} = {v}` is outside {lo} to {hi}: taken as {}", v.clamp(lo, hi)));
        }
        Ok(v.clamp(lo, hi))
    };
    let blocks_max = u32::MAX as f64;
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
        preseeking: within("Preseeking level", 0.0, blocks_max)? as u32,
    };
    // times the clock can carry: an overhead of hours saturates it and
    // ends a run with nonsense (a negative one counts as none)
    for (k, v) in [
        ("Time scale for overheads", overheads.time_scale),
        ("Per-request overhead time", overheads.per_request),
        ("Read hit over. after read", overheads.read_hit_after_read),
        ("Read hit over. after write", overheads.read_hit_after_write),
        ("Read miss over. after read", overheads.read_miss_after_read),
        ("Read miss over. after write", overheads.read_miss_after_write),
        ("Write hit over. after read", overheads.write_hit_after_read),
        ("Write hit over. after write", overheads.write_hit_after_write),
        ("Write miss over. after read", overheads.write_miss_after_read),
        ("Write miss over. after write", overheads.write_miss_after_write),
        ("Read completion overhead", overheads.read_completion),
        ("Write completion overhead", overheads.write_completion),
        ("Data preparation overhead", overheads.data_prep),
        ("First reselect overhead", overheads.first_reselect),
        ("Other reselect overhead", overheads.other_reselect),
        ("Read disconnect afterread", overheads.read_disconnect_after_read),
        ("Read disconnect afterwrite", overheads.read_disconnect_after_write),
        ("Write disconnect overhead", overheads.write_disconnect),
        ("Minimum seek delay", overheads.min_seek_delay),
        ("Bulk sector transfer time", bulk),
    ] {
        if v > MAX_TIME_MS {
            return Err(Error::input(
                disk.path_str(),
                disk.get(k).map_or(disk.line, |p| p.line),
                format!(
                    "`{k} = {v}`: expected at most {MAX_TIME_MS} ms (a time scale at most {MAX_TIME_MS})"
                ),
            ));
        }
    }
    let flag = |k: &str| -> Result<bool> { Ok(d(k)? != 0.0) };
    // counts DiskSim takes as any int; the model allocates per segment, so
    // they are held to what a drive can have (0 counts as 1, and says so)
    let mut taken_as_one = Vec::new();
    let mut count = |k: &str, default: i64, max: i64| -> Result<u32> {
        let v = g.int_or(disk, k, 0, max, default)?;
        if v < 1 {
            taken_as_one.push(k.to_string());
        }
        Ok(v.max(1) as u32)
    };
    let (contread, min_readahead, max_readahead) = (
        within("Buffer continuous read", 0.0, 4.0)? as u32,
        within("Minimum read-ahead (blks)", 0.0, blocks_max)? as u32,
        within("Maximum read-ahead (blks)", 0.0, blocks_max)? as u32,
    );
    let fast_write_level = within("Fast write level", 0.0, 2.0)? as u32;
    let (read_water, write_water) =
        (within("High (read) water mark", 0.0, 1.0)?, within("Low (write) water mark", 0.0, 1.0)?);
    warnings.append(&mut said);
    let cache = CacheParams {
        enabled: flag("Enable caching in buffer")?,
        segments: count("Number of buffer segments", 1, MAX_SEGMENTS)?,
        segment_blocks: count("Segment size (in blks)", 1, INT_MAX)?,
        max_write_segments: count("Maximum number of write segments", 1, MAX_SEGMENTS)?,
        separate_write_segment: flag("Use separate write segment")?,
        contread,
        min_readahead,
        max_readahead,
        readahead_over_requested: flag("Read-ahead over requested")?,
        readahead_on_idle_hit: flag("Read-ahead on idle hit")?,
        read_any_free_blocks: flag("Read any free blocks")?,
        fast_write_level,
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
        read_water,
        write_water,
        water_by_request: flag("Set watermark by reqsize")?,
        calc_sector_by_sector: g.num_or(disk, "Calc sector by sector", 1.0)? != 0.0,
    };
    let max_queue_length = count("Max queue length", 1, MAX_SEGMENTS)?;
    let queue = match disk.get("Scheduler") {
        Some(_) => {
            let q = block(disk, "Scheduler")?;
            QueueParams {
                max_queue_length,
                policy: g.int_or(q, "Scheduling policy", 0, INT_MAX, 1)? as u32,
                cylinder_mapping: g.int_or(q, "Cylinder mapping strategy", 0, INT_MAX, 0)? as u32,
            }
        }
        None => QueueParams { max_queue_length, ..QueueParams::default() },
    };
    if !(1..=26).contains(&queue.policy) {
        let at = match disk.get("Scheduler").and_then(|p| match &p.value {
            Value::Block(q) => Some((q.path_str(), q.get("Scheduling policy").map_or(q.line, |p| p.line))),
            _ => None,
        }) {
            Some((path, line)) => format!("{path}:{line}"),
            None => disk.path_str(),
        };
        warnings.push(format!(
            "{at}: `Scheduling policy = {}` is not one of DiskSim's (1 to 26): taken as 1, FCFS",
            queue.policy
        ));
    }
    for k in taken_as_one {
        let at = match g.position(&k) {
            Some(_) => "override".to_string(),
            None => format!("{}:{}:", disk.path_str(), disk.get(&k).map_or(disk.line, |p| p.line)),
        };
        warnings.push(format!(
            "{at} `{k} = 0`: taken as 1 (the drive model needs at least one; disk.cache = false \
             turns the drive's cache off)"
        ));
    }
    for k in g.unused() {
        warnings.push(format!(
            "override `{}`: a DiskSim parameter this drive's description does not use (ignored)",
            k.trim()
        ));
    }
    Ok(DriveParams {
        name: disk.name.clone().unwrap_or_else(|| "disksim".into()),
        layout,
        seek: m.seek,
        access: m.access,
        head_switch_ms: m.head_switch_ms,
        write_settle_ms: m.write_settle_ms,
        rpm: m.rpm,
        rpm_error_pct: m.rpm_error_pct,
        xfer_read_ms: bulk.max(bus_read),
        xfer_write_ms: bulk.max(bus_write),
        overheads,
        cache,
        queue,
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn tmpdir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("prefetchlab-disksim-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    pub(crate) const MODEL: &str = "dm_disk M {\n Number of data surfaces = 2,\n Number of cylinders = 100,\n Block count = 18990,\n Layout Model = dm_layout_g1 {\n  LBN-to-PBN mapping scheme = 0,\n  Sparing scheme used = 9,\n  Rangesize for sparing = 1,\n  Zones = [\n   dm_layout_g1_zone { First cylinder number = 0, Last cylinder number = 49, Blocks per track = 100, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = 10, Skew for cylinder switch = 20, Number of spares = 10, slips = [ 5 ], defects = [] },\n   dm_layout_g1_zone { First cylinder number = 50, Last cylinder number = 99, Blocks per track = 90, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = 10, Skew for cylinder switch = 20, Number of spares = 0, slips = [], defects = [] }\n  ]\n },\n Mechanical Model = dm_mech_g1 {\n  Access time type = trackSwitchPlusRotation,\n  Seek type = curve,\n  Single cylinder seek time = 1.0,\n  Average seek time = 5.0,\n  Full strobe seek time = 10.0,\n  Add. write settling delay = 0.0,\n  Head switch time = 0.5,\n  Rotation speed (in rpms) = 6000,\n  Percent error in rpms = 0.0\n }\n}\n";

    pub(crate) const SPECS: &str = "disksim_disk D {\n Model = source m.model,\n Bulk sector transfer time = 0.01,\n Number of buffer segments = 2,\n Segment size (in blks) = 100,\n Enable caching in buffer = 1,\n Buffer continuous read = 3,\n Maximum read-ahead (blks) = 50,\n Read hit over. after read = 0.1,\n Read miss over. after read = 0.3\n}\n";

    fn mem() -> parse::MemFiles {
        let mut m = parse::MemFiles::new();
        m.add("/t/m.model", MODEL);
        m.add("/t/d.diskspecs", SPECS);
        m
    }

    fn load_mem(m: &parse::MemFiles, ov: &[(String, f64)]) -> Result<DriveParams> {
        load_drive_with(Path::new("/t/d.diskspecs"), &Options { source: m, overrides: ov, keep_heads: None })
    }

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
        assert!(p.warnings.iter().all(|w| !w.contains("taken as 1")), "{:?}", p.warnings);
        // a count of 0 the model cannot take is taken as 1, and said
        let p = load_drive(&d.join("d.diskspecs"), &[("Number of buffer segments".into(), 0.0)]).unwrap();
        assert_eq!(p.cache.segments, 1);
        let said: Vec<_> = p.warnings.iter().filter(|w| w.contains("taken as 1")).collect();
        assert_eq!(said.len(), 1, "{:?}", p.warnings);
        assert!(said[0].starts_with("override `Number of buffer segments = 0`: taken as 1"), "{said:?}");
        let zero = SPECS.replace("Number of buffer segments = 2", "Number of buffer segments = 0");
        assert_ne!(zero, SPECS);
        std::fs::write(d.join("z.diskspecs"), zero).unwrap();
        let p = load_drive(&d.join("z.diskspecs"), &[]).unwrap();
        assert!(
            p.warnings
                .iter()
                .any(|w| w.contains("z.diskspecs:")
                    && w.contains("`Number of buffer segments = 0`: taken as 1")),
            "{:?}",
            p.warnings
        );
        // slip at zone-physical 5: LBA 5 sits on sector 6
        let l = p.layout.locate(5).unwrap();
        assert_eq!((l.cyl, l.head, l.sector), (0, 0, 6));
        // the second zone starts after 50 cyl × 2 × 100 − 10 spares
        let l = p.layout.locate(9990).unwrap();
        assert_eq!((l.cyl, l.head, l.sector, l.spt), (50, 0, 0, 90));
        std::fs::remove_dir_all(&d).ok();
    }

    /// A name DiskSim's drive has not and values beyond what DiskSim
    /// distinguishes are read past, with a warning naming the line; a
    /// misspelling of a parameter the drive's blocks do not set is an error.
    #[test]
    fn misspelled_names_and_values_out_of_range_are_warned_of() {
        let mut m = parse::MemFiles::new();
        m.add("/t/m.model", MODEL);
        let specs = SPECS
            .replace("Bulk sector transfer time", "Bulk sektor transfer time")
            .replace("Buffer continuous read = 3", "Buffer continuous read = 7");
        m.add("/t/d.diskspecs", &specs);
        // the misspelt parameter is set nowhere else: an error naming the line
        let e = load_mem(&m, &[]).unwrap_err().to_string();
        assert!(
            e.contains(
                "/t/d.diskspecs:3: `Bulk sektor transfer time` is not a parameter of a DiskSim drive; did \
                        you mean `Bulk sector transfer time`, which the drive's blocks do not set?"
            ),
            "{e}"
        );
        // an override gives it: only a warning
        let ov = [("Fast write level".into(), 9.0), ("Bulk sector transfer time".into(), 0.02)];
        let p = load_mem(&m, &ov).unwrap();
        assert_eq!((p.xfer_read_ms, p.cache.contread, p.cache.fast_write_level), (0.02, 4, 2));
        let w = p.warnings.join("\n");
        assert!(
            w.contains("/t/d.diskspecs:3: `Bulk sektor transfer time` is not a parameter of a DiskSim drive (did you \
                        mean `Bulk sector transfer time`?)"),
            "{w}"
        );
        assert!(
            w.contains("/t/d.diskspecs:7: `Buffer continuous read = 7` is outside 0 to 4: taken as 4"),
            "{w}"
        );
        assert!(w.contains("override: `Fast write level = 9` is outside 0 to 2: taken as 2"), "{w}");
        assert!(load_mem(&mem(), &[]).unwrap().warnings.iter().all(|w| !w.contains("not a parameter")));
    }

    /// In a library of drives, a misspelling in a disk the description does
    /// not use is only a warning.
    #[test]
    fn a_misspelling_in_another_disk_of_a_library_is_a_warning() {
        let mut m = parse::MemFiles::new();
        m.add("/t/m.model", MODEL);
        let other = SPECS.replace("disksim_disk D", "disksim_disk E").replace("Bulk sector", "Bulk sektor");
        m.add("/t/d.diskspecs", format!("{SPECS}\n{other}"));
        let p = load_mem(&m, &[]).unwrap();
        assert_eq!(p.xfer_read_ms, 0.01);
        assert!(
            p.warnings.iter().any(|w| w.contains("`Bulk sektor transfer time` is not a parameter")),
            "{:?}",
            p.warnings
        );
    }

    #[test]
    fn the_files_a_description_reads_are_listed() {
        let d = tmpdir("files");
        std::fs::write(d.join("m.model"), MODEL).unwrap();
        std::fs::write(d.join("d.diskspecs"), SPECS).unwrap();
        let files = files_read(&d.join("d.diskspecs")).unwrap();
        assert_eq!(files, vec![d.join("d.diskspecs"), d.join("m.model")]);
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

    #[test]
    fn non_finite_overrides_are_rejected() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = load_mem(&mem(), &[("Head switch time".into(), v)]).unwrap_err().to_string();
            assert!(e.contains("Head switch time") && e.contains("expected a finite number"), "{e}");
        }
    }

    #[test]
    fn unknown_override_is_named_with_the_closest_real_name() {
        let e = load_mem(&mem(), &[("Bogus".into(), 0.0)]).unwrap_err().to_string();
        assert!(e.contains("`Bogus`") && e.contains("the names are DiskSim's"), "{e}");
        let e = load_mem(&mem(), &[("Enable cacheing in buffer".into(), 0.0)]).unwrap_err().to_string();
        assert!(e.contains("did you mean `Enable caching in buffer`"), "{e}");
        let e = load_mem(&mem(), &[("Seek type".into(), 1.0)]).unwrap_err().to_string();
        assert!(e.contains("not a number parameter"), "{e}");
        // a real DiskSim name this description does not use: a warning
        let p = load_mem(&mem(), &[("Print stats".into(), 1.0)]).unwrap();
        assert!(p.warnings.iter().any(|w| w.contains("Print stats")), "{:?}", p.warnings);
        // an override reaching the mechanics and the model
        let p = load_mem(&mem(), &[("head switch time".into(), 0.25)]).unwrap();
        assert_eq!(p.head_switch_ms, 0.25);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
    }

    #[test]
    fn block_count_differing_from_the_zones_is_a_warning_and_the_zones_win() {
        let mut m = mem();
        m.add("/t/m.model", MODEL.replace("Block count = 18990", "Block count = 100"));
        let p = load_mem(&m, &[]).unwrap();
        assert_eq!(p.layout.capacity_sectors, 18990);
        assert!(
            p.warnings.iter().any(|w| w.contains("Block count 100") && w.contains("18990")),
            "{:?}",
            p.warnings
        );
    }
}
