//! The configuration schema, defined once (serde), read from TOML or JSON.
//!
//! Unknown keys and bad values are rejected with a message naming the dotted
//! key. Sizes are strings such as `"128KiB"` (or integers in bytes); durations
//! strings such as `"5ms"` (or integers in nanoseconds). `--set key=value`
//! overrides are applied to the parsed tree before it is checked.

mod values;

pub use values::{Duration, Size};

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub array: ArrayConfig,
    pub disk: DiskConfig,
    pub ssd: SsdConfig,
    pub host: HostConfig,
    pub block: BlockConfig,
    pub readahead: ReadaheadConfig,
    pub seqp: SeqpConfig,
    pub array_cache: ArrayCacheConfig,
    pub fs: FsConfig,
    pub workload: WorkloadConfig,
    pub run: RunConfig,
    pub output: OutputConfig,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Single,
    Raid0,
    Raid5,
    Raid6,
    Raid10,
}

/// `[array]`: how member disks are combined (models.md §3).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayConfig {
    pub layout: Layout,
    pub disks: u32,
    /// Strip (md chunk) size per member disk.
    pub strip: Size,
}

impl Default for ArrayConfig {
    fn default() -> Self {
        ArrayConfig { layout: Layout::Single, disks: 1, strip: Size(128 << 10) }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SchedulerKind {
    Fcfs,
    Sstf,
    Clook,
    Deadline,
    Anticipatory,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Hdd,
    Ssd,
}

/// `[disk]`: the member device model and its queue.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct DiskConfig {
    pub kind: DeviceKind,
    /// A preset name (`cheetah-15k5`, …) or a path to a DiskSim `.diskspecs`/`.parv`.
    pub model: String,
    pub scheduler: SchedulerKind,
    /// The on-drive segment cache and its read-ahead (DiskSim "Enable caching in buffer").
    pub cache: bool,
    /// DiskSim parameters set by name, e.g. `{"Buffer continuous read" = 0}`.
    pub overrides: std::collections::BTreeMap<String, f64>,
    /// Commands the host keeps at each drive (NCQ / TCQ, models.md §2.4);
    /// 0: the drive's own `Max queue length`.
    pub queue_depth: u32,
}

impl Default for DiskConfig {
    fn default() -> Self {
        DiskConfig {
            kind: DeviceKind::Hdd,
            model: "cheetah-15k5".into(),
            scheduler: SchedulerKind::Anticipatory,
            cache: true,
            overrides: Default::default(),
            queue_depth: 0,
        }
    }
}

/// `[ssd]`: used when `disk.kind = "ssd"` (models.md §4.1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SsdConfig {
    pub read_latency: Duration,
    pub write_latency: Duration,
    /// Bandwidth per channel, bytes per second, as a size per second (`"250MiB"`).
    pub read_bandwidth: Size,
    pub write_bandwidth: Size,
    pub channels: u32,
    pub capacity: Size,
}

impl Default for SsdConfig {
    fn default() -> Self {
        SsdConfig {
            read_latency: Duration(80_000),
            write_latency: Duration(200_000),
            read_bandwidth: Size(250_000_000),
            write_bandwidth: Size(80_000_000),
            channels: 8,
            capacity: Size(80 * 1_000_000_000),
        }
    }
}

/// `[host]`
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct HostConfig {
    /// Page-cache memory budget.
    pub memory: Size,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig { memory: Size(1 << 30) }
    }
}

/// `[block]`: the per-disk request queues (decisions.md #11b).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BlockConfig {
    pub nr_requests: u32,
    pub congestion: bool,
    /// Largest request after merging (`max_sectors_kb`).
    pub max_request: Size,
}

impl Default for BlockConfig {
    fn default() -> Self {
        BlockConfig { nr_requests: 128, congestion: true, max_request: Size(512 << 10) }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReadaheadPolicy {
    None,
    Obl,
    Seqp,
    Linux,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub enum LinuxVariant {
    #[serde(rename = "2.6.18")]
    V2_6_18,
    #[serde(rename = "2.6.24")]
    V2_6_24,
    #[serde(rename = "3.10")]
    V3_10,
    #[serde(rename = "3.12")]
    V3_12,
}

/// `[readahead]`: the host's file-level readahead (algorithms.md §1–§2).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ReadaheadConfig {
    pub policy: ReadaheadPolicy,
    pub variant: LinuxVariant,
    /// Maximum window (`read_ahead_kb`).
    pub max: Size,
}

impl Default for ReadaheadConfig {
    fn default() -> Self {
        ReadaheadConfig { policy: ReadaheadPolicy::Linux, variant: LinuxVariant::V3_10, max: Size(128 << 10) }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Growth {
    Double,
    Linear,
}

/// `[seqp]`: the didactic synchronous SEQP of [TC09] Fig. 3 (decisions.md #3).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SeqpConfig {
    /// First window, pages.
    pub init: u32,
    pub growth: Growth,
}

impl Default for SeqpConfig {
    fn default() -> Self {
        SeqpConfig { init: 1, growth: Growth::Double }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BlockPrefetchPolicy {
    None,
    Obl,
}

/// `[array_cache]`: the optional block cache in the RAID layer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayCacheConfig {
    /// 0 = no array cache.
    pub size: Size,
    pub prefetch: BlockPrefetchPolicy,
}

impl Default for ArrayCacheConfig {
    fn default() -> Self {
        ArrayCacheConfig { size: Size(0), prefetch: BlockPrefetchPolicy::None }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FileLayout {
    /// Files one after another, each contiguous (apart from indirect blocks).
    Contiguous,
    /// Each block boundary breaks with probability `1 - layout_score`.
    Fragmented,
}

/// `[fs]`: how files are laid out on the array (models.md §5.3–5.4).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FsConfig {
    pub layout: FileLayout,
    /// ext-style indirect blocks (12 direct, one per 1024 data blocks).
    pub indirect_blocks: bool,
    /// Array block where the first file starts.
    pub start_block: u64,
    /// Free blocks left between consecutive files.
    pub file_gap: Size,
    /// Fraction of block boundaries that stay contiguous when fragmented.
    pub layout_score: f64,
    /// Mean gap between the extents of a fragmented file.
    pub extent_gap: Size,
}

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            layout: FileLayout::Contiguous,
            indirect_blocks: true,
            start_block: 0,
            file_gap: Size(0),
            layout_score: 0.99,
            extent_gap: Size(256 << 10),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    Iozone,
    Random,
}

/// `[workload]` (models.md §5.1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct WorkloadConfig {
    pub kind: WorkloadKind,
    pub streams: u32,
    /// Application request size.
    pub record: Size,
    /// Per-stream file size.
    pub file_size: Size,
    /// O_DIRECT: bypass the page cache and its readahead.
    pub direct: bool,
    /// Pause between one request's completion and the next request.
    pub think_time: Duration,
    /// `random`: requests per stream (0 = as many as the file has records).
    pub requests: u64,
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        WorkloadConfig {
            kind: WorkloadKind::Iozone,
            streams: 1,
            record: Size(4 << 10),
            file_size: Size(64 << 20),
            direct: false,
            think_time: Duration(0),
            requests: 0,
        }
    }
}

/// `[run]`
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub seed: u64,
    /// Stop after this much simulated time (0 = when the workload ends).
    pub duration: Duration,
}

/// `[output]`
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    /// Keep a per-event log of readahead windows and disk requests.
    pub io_log: bool,
}

impl Config {
    /// Parses TOML text, applies `key=value` overrides, checks everything.
    pub fn from_toml(text: &str, sets: &[String]) -> Result<Config> {
        let tree: toml::Value = toml::from_str(text).map_err(|e| {
            let (line, msg) = toml_error(text, &e);
            Error::config("", if line > 0 { format!("line {line}: {msg}") } else { msg })
        })?;
        Self::from_tree(tree, sets)
    }

    /// Parses JSON text (what the Python API sends for a dict).
    pub fn from_json(text: &str, sets: &[String]) -> Result<Config> {
        let json: serde_json::Value =
            serde_json::from_str(text).map_err(|e| Error::config("", format!("bad JSON: {e}")))?;
        let tree = toml::Value::try_from(json).map_err(|e| Error::config("", format!("{e}")))?;
        Self::from_tree(tree, sets)
    }

    /// Reads a TOML file.
    pub fn from_path(path: &std::path::Path, sets: &[String]) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::input(path.display().to_string(), 0, format!("cannot read: {e}")))?;
        let tree: toml::Value = toml::from_str(&text).map_err(|e| {
            let (line, msg) = toml_error(&text, &e);
            Error::input(path.display().to_string(), line, msg)
        })?;
        Self::from_tree(tree, sets)
    }

    fn from_tree(mut tree: toml::Value, sets: &[String]) -> Result<Config> {
        for set in sets {
            apply_set(&mut tree, set)?;
        }
        let cfg: Config = serde_path_to_error::deserialize(tree).map_err(|e| {
            let path = e.path().to_string();
            let key = if path == "." { String::new() } else { path };
            Error::config(key, one_line(&e.into_inner().to_string()))
        })?;
        cfg.check()?;
        Ok(cfg)
    }

    /// The resolved configuration as JSON (every default filled in).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("config serializes")
    }

    /// Checks the values serde cannot: ranges and geometry.
    pub fn check(&self) -> Result<()> {
        let a = &self.array;
        if a.strip.0 == 0 || !a.strip.0.is_multiple_of(crate::units::PAGE_BYTES) {
            return Err(Error::config(
                "array.strip",
                format!("must be a positive multiple of 4KiB, got {} bytes", a.strip.0),
            ));
        }
        let (min, max) = match a.layout {
            Layout::Single => (1, 1),
            Layout::Raid0 => (1, 1024),
            Layout::Raid5 => (3, 1024),
            Layout::Raid6 => (4, 1024),
            Layout::Raid10 => (2, 1024),
        };
        if a.disks < min || a.disks > max {
            let layout = serde_json::to_string(&a.layout).unwrap_or_default();
            return Err(Error::config(
                "array.disks",
                format!("layout {layout} needs {min}..={max} disks, got {}", a.disks),
            ));
        }
        if self.host.memory.0 < crate::units::PAGE_BYTES {
            return Err(Error::config("host.memory", "must hold at least one 4KiB page"));
        }
        if self.block.nr_requests < 4 {
            return Err(Error::config("block.nr_requests", "must be at least 4"));
        }
        if self.block.max_request.0 < crate::units::PAGE_BYTES {
            return Err(Error::config("block.max_request", "must be at least 4KiB"));
        }
        if self.readahead.max.0 < crate::units::PAGE_BYTES && self.readahead.policy != ReadaheadPolicy::None {
            return Err(Error::config("readahead.max", "must be at least 4KiB (one page)"));
        }
        if self.seqp.init == 0 {
            return Err(Error::config("seqp.init", "must be at least 1 page"));
        }
        let w = &self.workload;
        if w.streams == 0 {
            return Err(Error::config("workload.streams", "must be at least 1"));
        }
        if w.record.0 == 0 {
            return Err(Error::config("workload.record", "must be positive"));
        }
        if w.file_size.0 < w.record.0 {
            return Err(Error::config("workload.file_size", "must hold at least one record"));
        }
        if !(0.0..=1.0).contains(&self.fs.layout_score) {
            return Err(Error::config("fs.layout_score", "must be within 0..=1"));
        }
        if self.disk.kind == DeviceKind::Ssd && self.ssd.channels == 0 {
            return Err(Error::config("ssd.channels", "must be at least 1"));
        }
        Ok(())
    }
}

/// serde's messages from a TOML tree may end with a context line
/// ("in `array`") that repeats the key path: keep the message on one line.
fn one_line(msg: &str) -> String {
    msg.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("in `"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A TOML syntax error as (1-based line, one-line message).
fn toml_error(text: &str, e: &toml::de::Error) -> (usize, String) {
    let msg = one_line(e.message());
    match e.span() {
        Some(span) => {
            let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
            (line, format!("TOML syntax error: {msg}"))
        }
        None => (0, format!("TOML syntax error: {msg}")),
    }
}

/// Applies one `key.path=value` override. The value is read as a TOML value
/// when it parses as one, otherwise as a plain string.
pub fn apply_set(tree: &mut toml::Value, set: &str) -> Result<()> {
    let (key, raw) =
        set.split_once('=').ok_or_else(|| Error::config(set, "an override must look like key.path=value"))?;
    let key = key.trim();
    let raw = raw.trim();
    let value: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(Error::config(key, "empty part in key path"));
    }
    let mut node = tree;
    for (i, part) in parts.iter().enumerate() {
        let table =
            node.as_table_mut().ok_or_else(|| Error::config(parts[..i].join("."), "is not a table"))?;
        if i + 1 == parts.len() {
            table.insert(part.to_string(), value);
            return Ok(());
        }
        node = table.entry(part.to_string()).or_insert_with(|| toml::Value::Table(Default::default()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse_from_empty() {
        let c = Config::from_toml("", &[]).unwrap();
        assert_eq!(c.array.strip.0, 128 << 10);
        assert_eq!(c.readahead.variant, LinuxVariant::V3_10);
    }

    #[test]
    fn sizes_and_variants() {
        let c = Config::from_toml(
            "[array]\nlayout='raid0'\ndisks=5\nstrip='64KiB'\n[readahead]\nvariant='2.6.18'\nmax='512KiB'",
            &[],
        )
        .unwrap();
        assert_eq!(c.array.layout, Layout::Raid0);
        assert_eq!(c.array.strip.0, 64 << 10);
        assert_eq!(c.readahead.variant, LinuxVariant::V2_6_18);
        assert_eq!(c.readahead.max.0, 512 << 10);
    }

    #[test]
    fn unknown_key_is_named() {
        let e = Config::from_toml("[array]\nstrips='64KiB'", &[]).unwrap_err().to_string();
        assert!(e.contains("array") && e.contains("strips"), "{e}");
        assert!(!e.contains('\n'), "one line: {e}");
        let e = Config::from_toml("[arrays]\nx=1", &[]).unwrap_err().to_string();
        assert!(e.contains("arrays"), "{e}");
    }

    #[test]
    fn bad_values_are_named() {
        let e = Config::from_toml("[array]\nstrip='0KiB'", &[]).unwrap_err().to_string();
        assert!(e.contains("array.strip"), "{e}");
        let e = Config::from_toml("[array]\nlayout='raid5'\ndisks=2", &[]).unwrap_err().to_string();
        assert!(e.contains("array.disks") && e.contains("3..="), "{e}");
        let e = Config::from_toml("[array]\nlayout='raid7'", &[]).unwrap_err().to_string();
        assert!(e.contains("array.layout") && e.contains("raid7"), "{e}");
        let e = Config::from_toml("[workload]\nrecord='12 furlongs'", &[]).unwrap_err().to_string();
        assert!(e.contains("workload.record"), "{e}");
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let e = Config::from_toml("[array]\ndisks = 2\nstrip = \n", &[]).unwrap_err().to_string();
        assert!(e.contains("line 3") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn sets_override_and_create() {
        let sets = vec![
            "array.disks=4".to_string(),
            "array.layout=raid5".to_string(),
            "readahead.max=512KiB".into(),
        ];
        let c = Config::from_toml("[array]\ndisks=2", &sets).unwrap();
        assert_eq!(c.array.disks, 4);
        assert_eq!(c.array.layout, Layout::Raid5);
        assert_eq!(c.readahead.max.0, 512 << 10);
        let e = Config::from_toml("", &["nokey".to_string()]).unwrap_err().to_string();
        assert!(e.contains("nokey"), "{e}");
    }

    #[test]
    fn json_round_trip() {
        let c = Config::from_toml("[workload]\nstreams=4", &[]).unwrap();
        let back = Config::from_json(&c.to_json(), &[]).unwrap();
        assert_eq!(c, back);
    }
}
