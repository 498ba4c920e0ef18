//! The configuration schema, defined once (serde), read from TOML or JSON.
//!
//! Unknown keys and bad values are rejected with a message naming the dotted
//! key. Sizes are strings such as `"128KiB"` (or integers in bytes); durations
//! strings such as `"5ms"` (or integers in nanoseconds). `--set key=value`
//! overrides are applied to the parsed tree before it is checked.

mod values;

pub use values::{Duration, Size};

use crate::error::{Error, Result};
use crate::units::{self, PAGE_BYTES, SECTOR_BYTES};
use serde::{Deserialize, Serialize};

/// The deepest drive command queue `disk.queue_depth` may ask for (SCSI
/// tagged command queuing allows 256 tags).
pub const MAX_QUEUE_DEPTH: u32 = 256;

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
    pub saseqp: SaseqpConfig,
    pub sara: SaraConfig,
    pub array_cache: ArrayCacheConfig,
    pub fs: FsConfig,
    pub workload: WorkloadConfig,
    pub msp: MspConfig,
    pub informed: InformedConfig,
    pub topology: TopologyConfig,
    pub run: RunConfig,
    pub output: OutputConfig,
}

/// Whose reads an MSP detector follows (decisions.md 1c).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum MspScope {
    /// One detector for the array (the paper's design).
    #[default]
    Array,
    /// One per requester.
    Stream,
}

/// `[msp]`: MSP in the array cache (`array_cache.prefetch = "msp"`;
/// algorithms.md §3.2, decisions.md 1–1c).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct MspConfig {
    /// MSP prefetches while the sequential counter SC is at least this.
    pub sc_thresh: u32,
    /// SC's ceiling.
    pub sc_max: u32,
    /// Whole stripes made cached or in flight after the read's stripe.
    pub stripes_ahead: u32,
    pub scope: MspScope,
}

impl Default for MspConfig {
    fn default() -> Self {
        MspConfig { sc_thresh: 4, sc_max: 8, stripes_ahead: 2, scope: MspScope::Array }
    }
}

/// `[informed] policy`: informed prefetching from hints (algorithms.md §8).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum InformedPolicy {
    /// No hints are used.
    #[default]
    None,
    /// TIP (Patterson et al., SOSP 1995): hinted blocks fetched up to the
    /// prefetch horizon ahead, into the array cache (or, on a `[topology]`,
    /// into the client's buffer cache).
    Tip,
    /// IPODS (Al Assaf et al.): TIP at the client plus a pipeline of hinted
    /// blocks copied HDD → SSD inside the storage nodes; needs a `[topology]`.
    Ipods,
}

/// `[informed]`: the application discloses its reads (the trace's own read
/// sequence) and a policy fetches them ahead (algorithms.md §8,
/// decisions.md 8–9; see [`crate::policy::informed`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct InformedConfig {
    pub policy: InformedPolicy,
    /// `T_cpu`: the application's compute time between two reads — the
    /// think time of the hinted (closed-loop) replay.
    pub t_cpu: Duration,
    /// Prefetch buffers: the most hinted reads fetched ahead of the
    /// application (0: as many as the prefetch horizon asks, at most
    /// [`MAX_INFORMED_DEPTH`]).
    pub x_cache: u32,
    /// TIP's estimate of `T_disk` before it has measured one (it then follows
    /// the prefetches' own completion times).
    pub t_disk: Duration,
    /// The fraction of the reads that are hinted, spread evenly (1: all).
    pub hint_fraction: f64,
    /// IPODS's `Max_BW`: the concurrent read requests the storage system
    /// sustains (0: one per storage node's lower device).
    pub max_bw: u32,
}

impl Default for InformedConfig {
    fn default() -> Self {
        InformedConfig {
            policy: InformedPolicy::None,
            t_cpu: Duration(0),
            x_cache: 0,
            t_disk: Duration(10_000_000),
            hint_fraction: 1.0,
            max_bw: 0,
        }
    }
}

/// `[topology]`: a distributed multi-level system (issue 11; models.md §4):
/// clients with a buffer cache, a switched network, and storage nodes with
/// an upper level (SSD or memory) over a lower one (HDD), data striped
/// across the nodes in `block`s. No storage node (the default): the single
/// host of every other section. See [`crate::topology`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TopologyConfig {
    /// The unit data is striped across the storage nodes in, and the unit
    /// every transfer moves (\[IPODS\]: 200 MB).
    pub block: Size,
    /// `[[topology.clients]]` (none given: one with the defaults).
    pub clients: Vec<ClientConfig>,
    /// `[[topology.nodes]]`.
    pub nodes: Vec<NodeConfig>,
    /// `[topology.network]`: every node's and client's link to the switch.
    pub network: NetworkConfig,
}

impl Default for TopologyConfig {
    fn default() -> Self {
        TopologyConfig {
            block: Size(200_000_000),
            clients: Vec::new(),
            nodes: Vec::new(),
            network: NetworkConfig::default(),
        }
    }
}

impl TopologyConfig {
    /// Whether the run is on a topology (any storage node given).
    pub fn is_distributed(&self) -> bool {
        !self.nodes.is_empty()
    }

    /// The client tables a run has: `clients`, or one with the defaults
    /// when none is given.
    pub fn client_specs(&self) -> std::borrow::Cow<'_, [ClientConfig]> {
        if self.clients.is_empty() {
            std::borrow::Cow::Owned(vec![ClientConfig::default()])
        } else {
            std::borrow::Cow::Borrowed(&self.clients)
        }
    }

    /// Storage nodes, each `count` expanded.
    pub fn node_count(&self) -> u64 {
        self.nodes.iter().map(|n| n.count as u64).sum()
    }
}

/// `[[topology.clients]]`
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ClientConfig {
    /// Identical clients of this table, each with its own copy of the data.
    pub count: u32,
    /// Each client's buffer cache (LRU, in `topology.block`s).
    pub cache: Size,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig { count: 1, cache: Size(1 << 30) }
    }
}

/// `[[topology.nodes]]`: `count` identical storage nodes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NodeConfig {
    pub count: u32,
    /// The upper level (IPODS's SSD).
    pub upper: TierConfig,
    /// The lower level, where the data is (IPODS's HDD).
    pub lower: TierConfig,
}

impl Default for NodeConfig {
    fn default() -> Self {
        NodeConfig { count: 1, upper: TierConfig::ssd(), lower: TierConfig::hdd() }
    }
}

/// What a tier's device is.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum TierKind {
    /// The mechanical drive model (`model`: a preset or DiskSim file).
    Hdd,
    /// Latency + size / bandwidth per request, one at a time (models.md §4.1
    /// with one channel): an SSD, or any device given by its times.
    Ssd,
}

/// One level of a storage node. Written out (`Serialize`) with the keys of
/// its kind only, which is what a configuration may give (`tier_keys_apply`).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TierConfig {
    pub kind: TierKind,
    /// `kind = "hdd"`: a drive preset or a DiskSim file.
    #[serde(default = "default_tier_model")]
    pub model: String,
    #[serde(default = "default_tier_read_latency")]
    pub read_latency: Duration,
    #[serde(default = "default_tier_write_latency")]
    pub write_latency: Duration,
    /// Bytes per second (`kind = "ssd"`).
    #[serde(default = "default_tier_read_bandwidth")]
    pub read_bandwidth: Size,
    #[serde(default = "default_tier_write_bandwidth")]
    pub write_bandwidth: Size,
}

fn default_tier_model() -> String {
    "cheetah-15k5".to_string()
}
fn default_tier_read_latency() -> Duration {
    Duration(80_000)
}
fn default_tier_write_latency() -> Duration {
    Duration(200_000)
}
fn default_tier_read_bandwidth() -> Size {
    Size(250_000_000)
}
fn default_tier_write_bandwidth() -> Size {
    Size(200_000_000)
}

impl Serialize for TierConfig {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = ser.serialize_struct("TierConfig", 5)?;
        st.serialize_field("kind", &self.kind)?;
        match self.kind {
            TierKind::Hdd => st.serialize_field("model", &self.model)?,
            TierKind::Ssd => {
                st.serialize_field("read_latency", &self.read_latency)?;
                st.serialize_field("write_latency", &self.write_latency)?;
                st.serialize_field("read_bandwidth", &self.read_bandwidth)?;
                st.serialize_field("write_bandwidth", &self.write_bandwidth)?;
            }
        }
        st.end()
    }
}

impl TierConfig {
    /// An SSD: 80 µs + 250 MB/s reads, 200 µs + 200 MB/s writes.
    pub fn ssd() -> Self {
        TierConfig {
            kind: TierKind::Ssd,
            model: default_tier_model(),
            read_latency: default_tier_read_latency(),
            write_latency: default_tier_write_latency(),
            read_bandwidth: default_tier_read_bandwidth(),
            write_bandwidth: default_tier_write_bandwidth(),
        }
    }
    /// The Cheetah 15K.5 drive model.
    pub fn hdd() -> Self {
        TierConfig { kind: TierKind::Hdd, ..TierConfig::ssd() }
    }
}

/// `[topology.network]`: one full-duplex link per node and per client to a
/// switch; a transfer holds the sender's and the receiver's link at once
/// (cut-through) and takes the slower link's time plus both latencies.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct NetworkConfig {
    /// One-way latency of each link.
    pub latency: Duration,
    /// Bytes per second of each link.
    pub bandwidth: Size,
}

impl Default for NetworkConfig {
    /// Gigabit Ethernet: 75 µs, 117 MB/s of goodput.
    fn default() -> Self {
        NetworkConfig { latency: Duration(75_000), bandwidth: Size(117_000_000) }
    }
}

/// The most files a FileBench-style file set has.
pub const MAX_FILESET_FILES: u32 = 10_000_000;
/// The largest count a block policy's key takes (`array_cache.p`,
/// `lsp.window`, ghost lists, tables): 2^20, far above the papers' values
/// (256 blocks, 50 requests), low enough that tables of that many entries
/// fit in memory.
pub const MAX_POLICY_COUNT: u32 = 1 << 20;
/// The largest `workload.log_append`.
pub const MAX_LOG_APPEND_BYTES: u64 = 1 << 20;

/// The most storage nodes a topology has.
pub const MAX_STORAGE_NODES: u64 = 4096;

/// `[fs] aging = N` becomes `[fs.aging] ops = N`.
fn aging_shorthand(tree: &mut toml::Value) {
    if let Some(fs) = tree.get_mut("fs").and_then(toml::Value::as_table_mut) {
        if let Some(&toml::Value::Integer(n)) = fs.get("aging") {
            let mut t = toml::map::Map::new();
            t.insert("ops".into(), toml::Value::Integer(n));
            fs.insert("aging".into(), toml::Value::Table(t));
        }
    }
}

/// The most create/delete operations `fs.aging` runs.
pub const MAX_AGING_OPS: u64 = 100_000_000;

/// The most clients a `[topology]` has.
pub const MAX_CLIENTS: u64 = 1024;

/// The deepest informed prefetching goes (reads ahead of the application).
pub const MAX_INFORMED_DEPTH: u32 = 4096;

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    Single,
    Raid0,
    Raid5,
    Raid6,
    Raid10,
}

/// How md writes part of a RAID-6 row (models.md §3.5).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Raid6WritePolicy {
    /// Reconstruct-write always: Linux before 4.1.
    Reconstruct,
    /// The cheaper of read-modify-write and reconstruct-write, as on RAID-5:
    /// Linux 4.1 and later.
    Cheaper,
}

/// Whose I/O context the member-disk requests carry, as the disk schedulers
/// see them (the anticipatory scheduler's and CFQ's per-process state).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum IoContext {
    /// The reading process's: md RAID-0/1/10 remaps a request and submits
    /// its pieces in the caller's context, so a process has one scheduler
    /// state across the member disks.
    Caller,
    /// The array driver's own: a RAID driver that sends member-disk I/O
    /// from its kernel thread, so every request carries that one context.
    Driver,
}

/// `[array]`: how member disks are combined (models.md §3).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayConfig {
    pub layout: Layout,
    pub disks: u32,
    /// Strip (md chunk) size per member disk.
    pub strip: Size,
    /// RAID-6 partial-row writes.
    pub raid6_write: Raid6WritePolicy,
    /// Whose context the member-disk requests carry.
    pub io_context: IoContext,
}

impl Default for ArrayConfig {
    fn default() -> Self {
        ArrayConfig {
            layout: Layout::Single,
            disks: 1,
            strip: Size(128 << 10),
            raid6_write: Raid6WritePolicy::Cheaper,
            io_context: IoContext::Caller,
        }
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
    /// Completely fair queueing: per-process read queues in time slices
    /// (Linux's default from 2.6.18).
    Cfq,
}

impl SchedulerKind {
    /// The configuration's name for it.
    pub fn name(self) -> &'static str {
        match self {
            SchedulerKind::Fcfs => "fcfs",
            SchedulerKind::Sstf => "sstf",
            SchedulerKind::Clook => "clook",
            SchedulerKind::Deadline => "deadline",
            SchedulerKind::Anticipatory => "anticipatory",
            SchedulerKind::Cfq => "cfq",
        }
    }
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
    /// CFQ's `low_latency` (Linux 2.6.33 on): slices scaled to the busy
    /// queues (`block::sched::cfq`).
    pub cfq_low_latency: bool,
    /// CFQ's sync-noidle tree (Linux 2.6.33 on): a read queue without an
    /// idle window does not keep the disk while its reads are in flight
    /// (`block::sched::cfq`).
    pub cfq_noidle_tree: bool,
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
            cfq_low_latency: false,
            cfq_noidle_tree: false,
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
    /// What a readahead page allocation does when the page cache is full and
    /// no page in it can be evicted (every one in flight, held by a waiting reader or on the active list).
    pub readahead_alloc: ReadaheadAlloc,
    /// Where a read moves a cached page in the page cache's list.
    pub reclaim: PageReclaim,
    /// How use-once reclaim balances the two lists; not given: as the
    /// kernel of the readahead does ([`Config::list_balance`]), the value a
    /// use-once run's resolved configuration then holds ([`COMPUTED_KEYS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_balance: Option<ListBalance>,
}

impl Default for HostConfig {
    fn default() -> Self {
        HostConfig {
            memory: Size(1 << 30),
            readahead_alloc: ReadaheadAlloc::Wait,
            reclaim: PageReclaim::UseOnce,
            list_balance: None,
        }
    }
}

/// `host.list_balance`: how reclaim keeps the active list (`host.reclaim =
/// "use-once"`) from growing over the page cache: its oldest pages go back
/// to the inactive list's head ([`crate::cache::lru::LruSlots::balance_lists`]).
///
/// * `inactive-low`: Linux 2.6.31 on (the papers' 2.6.35; 3.x):
///   `inactive_file_is_low`, the active list shrunk only while it is longer
///   than the inactive one, so it keeps up to half the cache for pages read
///   twice;
/// * `proportional`: Linux 2.6.18 to 2.6.27 (the papers' 2.6.18):
///   `shrink_zone` scans both lists in proportion to their lengths, so the
///   active list drains steadily while pages are reclaimed.
///
/// Not given, it follows the readahead's kernel: `proportional` under
/// `policy = "linux"` with variant 2.6.18 or 2.6.24, `saseqp` and `seqp`
/// (\[TC09\]'s 2.6.18), `inactive-low` otherwise.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ListBalance {
    InactiveLow,
    Proportional,
}

/// `host.reclaim`: the page cache's replacement, i.e. where a read moves a
/// cached page.
///
/// * `use-once` (default since 2026-11-27): Linux 2.6's two lists and `mark_page_accessed` (the
///   papers' 2.6.18 and 2.6.35): pages come in at the head of the inactive
///   list; a page's first read only marks it referenced and leaves it in
///   place; a second read moves it to the active list (`activate_page`),
///   whose pages are no victims. Reclaim takes from the inactive list's
///   tail, and a referenced page read once is reclaimed as an unreferenced
///   one is (`shrink_page_list` keeps only mapped pages for their
///   references), so pages streamed once leave in the order they came in;
///   before it looks for a victim, the active list's oldest pages go back to
///   the inactive list's head as the kernel balances the lists
///   (`host.list_balance`, [`ListBalance`]: 2.6.35's for as long as the
///   active list is the longer, 2.6.18's in proportion to the lists'
///   lengths; the kernel moves them lazily, in batches of 32, here one by
///   one just before a victim is looked for), and are evicted from there unless read again (twice, or
///   once if read while active: the page keeps PG_referenced). With
///   `readahead_alloc = "wait"` and 2.6.35's balance a reader may so sleep
///   for room while the active list, up to half the cache, is uptodate and
///   unheld, as in that kernel, which shrinks the list only while it is the
///   longer (2.6.18's reclaim drains it instead). As 2.6.35's `do_generic_file_read`,
///   a read that goes on exactly where the same reader's last read of that
///   file ended, inside a page, does not mark that page again (a reader of
///   requests smaller than a page reads each page once; 2.6.18 compared the
///   page alone, which is the same for such a reader). The array cache
///   stays LRU (a controller's cache).
/// * `lru`: every read moves the page to the head of the one list (the
///   model's default until 2026-11-27: the experiments' figures measured
///   before then, `--set 'host.reclaim="lru"'` to measure them again).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PageReclaim {
    Lru,
    UseOnce,
}

/// `host.readahead_alloc`: a readahead page allocation that finds nothing to
/// evict. Either way reclaim is 2.6.35's (and 3.0's): it moves the pages it
/// cannot take (in flight, or held by a waiting reader) to the head of the
/// (inactive) list, as `shrink_page_list` puts them back; and a window's
/// pages are read when all are allocated (its page pool), one read where
/// they lie together.
///
/// * `wait` (default): Linux before 3.0, the papers' 2.6.18 and 2.6.35.
///   `__do_page_cache_readahead` allocates with `page_cache_alloc_cold`, an
///   order-0 allocation that does not fail: it waits in reclaim until pages
///   finish their I/O and can be evicted, read or not, so under memory
///   pressure prefetched pages are evicted before use (thrashing). The
///   reader sleeps there, as one waiting for a request slot does; the rest
///   of its window is allocated when room is made (a read completes, a page
///   waited for is read), the sleepers in the order they fell asleep (a
///   reader awake allocates at once). As the kernel keeps a window's pages
///   in its page pool and reads them (`read_pages`) when all are allocated,
///   the pages allocated before the sleep are read with the rest; here they
///   are in the cache meanwhile, in flight (never a victim; another reader
///   of them waits for the read), where the kernel's are off the LRU and
///   not yet in the cache.
/// * `fail`: Linux 3.0's allocation (`page_cache_alloc_readahead` with
///   `__GFP_NORETRY`: "readahead page allocations are OK to fail"): the
///   window ends at the first page that finds no room. (Until 2026-11-27
///   reclaim left the pages it passed over in place under `fail`.)
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReadaheadAlloc {
    Wait,
    Fail,
}

/// `[block]`: the per-disk request queues (decisions.md #11b).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BlockConfig {
    pub nr_requests: u32,
    pub congestion: bool,
    /// Largest request after merging (`max_sectors_kb`).
    pub max_request: Size,
    /// A submitter that needs a request of a full queue sleeps until one is
    /// free (`get_request_wait`); `false`: the queue grows past `nr_requests`.
    pub wait_on_full: bool,
}

impl Default for BlockConfig {
    fn default() -> Self {
        BlockConfig { nr_requests: 128, congestion: true, max_request: Size(512 << 10), wait_on_full: true }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReadaheadPolicy {
    None,
    Obl,
    Seqp,
    Linux,
    /// Strip-aligned SEQP \[TC09\] (`[saseqp]`).
    Saseqp,
    /// Basic striping-aware readahead \[IEICE13\] (`[sara]`).
    #[serde(rename = "sara-basic")]
    SaraBasic,
    /// Extended striping-aware readahead \[IEICE13\] (`[sara]`).
    #[serde(rename = "sara-extended")]
    SaraExtended,
}

impl ReadaheadPolicy {
    /// Whether the policy is SARA (basic or extended).
    pub fn is_sara(self) -> bool {
        matches!(self, ReadaheadPolicy::SaraBasic | ReadaheadPolicy::SaraExtended)
    }
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
    /// Maximum window (`read_ahead_kb`). Not given: 128 KiB, raised as md
    /// raises an array's (`raid0_run`, `raid5_run`, `raid10_run`) to two
    /// stripes' worth of data, [`Config::md_readahead_bytes`]; the resolved
    /// configuration holds the value used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<Size>,
}

/// Linux's default `read_ahead_kb`.
pub const DEFAULT_READAHEAD_BYTES: u64 = 128 << 10;

impl Default for ReadaheadConfig {
    fn default() -> Self {
        ReadaheadConfig { policy: ReadaheadPolicy::Linux, variant: LinuxVariant::V3_10, max: None }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Growth {
    Double,
    Linear,
}

/// `[seqp]`: the didactic synchronous SEQP of \[TC09\] Fig. 3 (decisions.md #3).
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

/// The window policy SASEQP cuts to strips (decisions.md #3).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum SaseqpBase {
    /// Linux 2.6.18's ahead-window readahead, the "SEQP" of \[TC09\]'s experiments.
    #[default]
    Linux,
    /// The didactic SEQP of \[TC09\] Fig. 3 (`[seqp]`).
    Seqp,
}

/// `[saseqp]`: SASEQP (`readahead.policy = "saseqp"`, algorithms.md §3.1).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct SaseqpConfig {
    pub base: SaseqpBase,
}

/// The largest `sara.factor`: twice the most disks, as its default (two
/// stripes, `2 × data disks`) on the largest array.
pub const MAX_SARA_FACTOR: u32 = 2 * MAX_DISKS;

/// The largest `sara.strip_kb` given (1 GiB in KiB), unless the array's strip,
/// its default, is larger.
pub const MAX_SARA_STRIP_KB: u64 = 1 << 20;

/// The keys whose default is computed from other keys when they are not
/// given. The resolved configuration ([`Config::from_toml`] and the other
/// readers) holds the value computed wherever the key applies — always
/// `readahead.max`; `sara.factor` and `sara.strip_kb` under a SARA policy;
/// `array_cache.g` under FA; `workload.log_append` for a webserver;
/// `host.list_balance` under use-once reclaim where the page cache is read
/// through — and
/// leaves the key out elsewhere unless it was given. A tool that changes
/// another key of a resolved configuration and reads it again drops these
/// first, to have them computed again from the new value (a pinned
/// `array_cache.g` of `p = 64` would refuse `p = 8`).
pub const COMPUTED_KEYS: &[&str] = &[
    "readahead.max",
    "sara.factor",
    "sara.strip_kb",
    "array_cache.g",
    "workload.log_append",
    "host.list_balance",
];

/// The keys that hold a size in bytes: a resolved configuration (what the
/// results database stores) has them as plain integers, and a tool showing
/// one says its unit from here. Keys inside lists of tables
/// (`topology.clients`, `topology.nodes`) are not listed. The test
/// `unit_keys_are_every_size_and_duration` holds these lists to the types.
pub const SIZE_KEYS: &[&str] = &[
    "array.strip",
    "array_cache.block",
    "array_cache.lsp.gap",
    "array_cache.lsp.hole",
    "array_cache.size",
    "block.max_request",
    "fs.aging.file_size",
    "fs.aging.volume",
    "fs.extent_gap",
    "fs.file_gap",
    "host.memory",
    "readahead.max",
    "ssd.capacity",
    "topology.block",
    "workload.file_size",
    "workload.log_append",
    "workload.record",
];

/// The keys that hold a rate in bytes per second (written as a size, in
/// bytes or with a unit: `250000000` is 250 MB/s).
pub const RATE_KEYS: &[&str] = &[
    "array_cache.asp.transfer_rate",
    "ssd.read_bandwidth",
    "ssd.write_bandwidth",
    "topology.network.bandwidth",
    "workload.rate",
];

/// The keys that hold a duration in nanoseconds.
pub const DURATION_KEYS: &[&str] = &[
    "array_cache.asp.positioning",
    "informed.t_cpu",
    "informed.t_disk",
    "run.duration",
    "ssd.read_latency",
    "ssd.write_latency",
    "topology.network.latency",
    "workload.think_time",
];

/// `[sara]`: SARA (`readahead.policy = "sara-basic" | "sara-extended"`,
/// algorithms.md §4, decisions.md #4), named after \[IEICE13\]'s sysfs knobs.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct SaraConfig {
    /// `striping_aware_read_ahead_threshold`: pending I/Os per member disk
    /// above which extended SARA uses the small max (`readahead.max`).
    pub threshold: f64,
    /// `striping_aware_read_ahead_factor`: the large max is
    /// `strip_kb × factor`; not given: 2 × the data disks (two stripes), the
    /// value a SARA run's resolved configuration then holds ([`COMPUTED_KEYS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<u32>,
    /// `striping_aware_read_ahead_strip_kb`: the strip SARA aligns to, KiB;
    /// not given: the array's strip, which a SARA run's resolved
    /// configuration then holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strip_kb: Option<u64>,
    /// Extended SARA on an aligned window longer than one strip: extend it
    /// by the first strip too (the literal reading, decisions.md #4d).
    pub extend_aligned: bool,
}

impl Default for SaraConfig {
    fn default() -> Self {
        SaraConfig { threshold: 32.0, factor: None, strip_kb: None, extend_aligned: true }
    }
}

/// `array_cache.prefetch`: the block-level scheme (see
/// [`crate::policy::block`] for the file of each).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BlockPrefetchPolicy {
    None,
    Obl,
    /// Linux readahead (`[readahead]`'s variant and max) on the array's
    /// blocks, one state per trace stream: the block device's readahead,
    /// for a block trace (which enters at the array).
    Linux,
    /// FS_p: `p` blocks past a sequential miss, with it.
    Fs,
    /// FA_p/g: FS_p, then the next `p` blocks when the trigger `g` is hit.
    Fa,
    /// AS_Linear: FS with `p` growing by the read size per sequential miss.
    AsLinear,
    /// AS_Exp: FS with `p` doubling per sequential miss.
    AsExp,
    /// AMP (Gill & Bathen, FAST 2007).
    Amp,
    /// SP: the whole strip of a miss.
    Sp,
    /// LSP (Shi & Feng, J. Computers 2012).
    Lsp,
    /// ASP: SP with adaptive cache culling and a prefetch gate (Baek & Park,
    /// USENIX ATC 2008), a reconstruction (algorithms.md §5.2).
    Asp,
    /// MSP: a semi-sequential detector and whole stripes read ahead while it
    /// fires (Baek & Park, IEEE TC 2009; `[msp]`).
    Msp,
    /// TaP: a table of stream ends, segments of `p` blocks read ahead into a
    /// self-sizing prefetch cache (Li et al., FAST 2008), a reconstruction
    /// (algorithms.md §9).
    Tap,
}

impl BlockPrefetchPolicy {
    /// The configuration's name for it.
    pub fn name(self) -> &'static str {
        match self {
            BlockPrefetchPolicy::None => "none",
            BlockPrefetchPolicy::Obl => "obl",
            BlockPrefetchPolicy::Linux => "linux",
            BlockPrefetchPolicy::Fs => "fs",
            BlockPrefetchPolicy::Fa => "fa",
            BlockPrefetchPolicy::AsLinear => "as-linear",
            BlockPrefetchPolicy::AsExp => "as-exp",
            BlockPrefetchPolicy::Amp => "amp",
            BlockPrefetchPolicy::Sp => "sp",
            BlockPrefetchPolicy::Lsp => "lsp",
            BlockPrefetchPolicy::Asp => "asp",
            BlockPrefetchPolicy::Msp => "msp",
            BlockPrefetchPolicy::Tap => "tap",
        }
    }

    /// Whether the array cache keeps sequential detection for it
    /// (decisions.md 6d).
    pub fn uses_sequential_detection(self) -> bool {
        matches!(
            self,
            BlockPrefetchPolicy::Obl
                | BlockPrefetchPolicy::Fs
                | BlockPrefetchPolicy::Fa
                | BlockPrefetchPolicy::AsLinear
                | BlockPrefetchPolicy::AsExp
                | BlockPrefetchPolicy::Amp
        )
    }
}

/// Which unread prefetched blocks AMP gives a second chance (and lowers
/// `p` for) when they reach the LRU end (algorithms.md §10.6).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum SecondChance {
    /// Only the last block of a prefetched set (the paper's text, decisions.md 6b).
    Last,
    /// Every block of a prefetched set (the third-party code algorithms.md §7.2 cites).
    Any,
}

/// `[array_cache.amp]` (decisions.md 6b, 6c).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AmpConfig {
    /// Asynchronous prefetching turns on for a stream once its `p` exceeds
    /// this many blocks; `g` then starts at `apt / 2`.
    pub apt: u32,
    /// Which unread blocks get the second chance that lowers `p`.
    pub second_chance: SecondChance,
}

impl Default for AmpConfig {
    fn default() -> Self {
        AmpConfig { apt: 4, second_chance: SecondChance::Last }
    }
}

/// `[array_cache.lsp]` (algorithms.md §6, decisions.md 7–7c).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct LspConfig {
    /// Requests outside every hot area gathered before they are clustered.
    pub window: u32,
    /// Two requests whose data units (`units`) are at most this far apart have
    /// spatial locality.
    pub gap: Size,
    /// An area splits at a hole (unused prefetched strips) this long.
    pub hole: Size,
    /// Strips an area grows by on the first access to one of its strips.
    pub grow_strips: u32,
    /// What of a request clustering reads: its blocks (extent), or its first.
    pub units: LspUnits,
}

impl Default for LspConfig {
    fn default() -> Self {
        LspConfig {
            window: 50,
            gap: Size(128 * 1024),
            hole: Size(256 * 1024),
            grow_strips: 2,
            units: LspUnits::Extent,
        }
    }
}

/// `array_cache.lsp.units`: a request's *data units* when LSP clusters its
/// window (algorithms.md §6: "requests whose data units are within 128 KB of
/// a unit of a different request"; the paper: "the blocks in distinct
/// requests"), which the spec leaves open.
/// * `extent` (default since 2026-11-27, the paper's words: see
///   [`crate::policy::block::lsp`]): its blocks, each at its address; two
///   requests are near when the bytes between the last block of one and the
///   first of the other are within the gap, and an area spans their units
///   (`N_L` the last block's address).
/// * `start`: its first block alone; two requests are near when their
///   starts are within the gap, and an area spans the starts (the reading
///   before).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LspUnits {
    Start,
    Extent,
}

/// `[array_cache.asp]`: ASP, the reconstruction of algorithms.md §5.2
/// (decisions.md 5; see [`crate::policy::block::asp`]). Counts are in
/// cache blocks (`array_cache.block`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AspConfig {
    /// The culling point's start, a fraction of the cache: 1 (the whole
    /// cache, nothing culled: ASP starts as SP) down to 0.
    pub start: f64,
    /// δ: blocks the culling point moves by per feedback event (§5.2: "keep
    /// δ small, 1 block per event").
    pub delta: u32,
    /// The monitor region: a prefetched block read within this many blocks
    /// above the culling point says a deeper upstream would gain (`N_U += δ`).
    pub monitor: u32,
    /// Length of the prefetch-ghost list (culled or evicted unread blocks), blocks.
    pub prefetch_ghost: u32,
    /// Length of the cache-ghost list (read blocks evicted at the LRU end), blocks.
    pub cache_ghost: u32,
    /// The prefetch gate's interval, accesses: the online disk simulation
    /// compares strip prefetching with demand-only reading over each one.
    pub gate_interval: u32,
    /// The gate's disk model: time to position the head for one request.
    pub positioning: Duration,
    /// The gate's disk model: transfer rate, bytes per second (`"60MB"`).
    pub transfer_rate: Size,
}

impl Default for AspConfig {
    fn default() -> Self {
        AspConfig {
            start: 1.0,
            delta: 1,
            monitor: 256,
            prefetch_ghost: 256,
            cache_ghost: 256,
            gate_interval: 1024,
            positioning: Duration(8_000_000),
            transfer_rate: Size(60_000_000),
        }
    }
}

/// `[array_cache.tap]`: TaP, the reconstruction of algorithms.md §9
/// (decisions.md 10; see [`crate::policy::block::tap`]). Its segment is
/// `array_cache.p` blocks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TapConfig {
    /// Entries of the detection table (the ends of recent reads).
    pub table: u32,
    /// The prefetch cache's starting size, a fraction of the cache.
    pub start: f64,
    /// How far the prefetch cache's size moves per interval, a fraction of
    /// the cache; also the length of the ghost list that measures the gain.
    pub step: f64,
    /// Reads per sizing interval.
    pub interval: u32,
    /// The prefetch cache grows while a step more would have turned more
    /// than this fraction of reads into read-ahead hits; it shrinks otherwise.
    pub threshold: f64,
    /// Prefetched blocks leave the cache once read.
    pub drop_used: bool,
}

impl Default for TapConfig {
    fn default() -> Self {
        TapConfig { table: 64, start: 0.1, step: 0.01, interval: 1024, threshold: 0.005, drop_used: true }
    }
}

/// How the array cache treats a write (issue 9; decisions.md: write-through
/// unless told otherwise).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// The write goes to the disks at once; the cache keeps a clean copy.
    WriteThrough,
    /// The write is kept dirty in the cache and written when evicted.
    WriteBack,
}

/// `[array_cache]`: the optional block cache in the RAID layer.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ArrayCacheConfig {
    /// 0 = no array cache.
    pub size: Size,
    /// The cache's block: the unit it holds, looks up and counts (hits,
    /// misses, prefetched blocks) in.
    pub block: Size,
    pub prefetch: BlockPrefetchPolicy,
    pub write_policy: WritePolicy,
    /// Write-back: the most of the cache that may be dirty, a fraction;
    /// beyond it the blocks dirty longest are written back at once.
    pub dirty_limit: f64,
    /// Sequential detection (decisions.md 6d): a block entering the cache
    /// is sequential when the `seq_threshold − 1` blocks before it are
    /// cached (counted as SARC does); 1 makes every miss sequential.
    pub seq_threshold: u32,
    /// FS_p and FA_p/g: the degree of prefetch, blocks per prefetched set;
    /// TaP: blocks per segment read ahead.
    pub p: u32,
    /// FA_p/g: the trigger's distance from the set's last block (0: the
    /// last block itself); unset means `p/2 − 1`, as \[FAST07\] chose
    /// (FA_8/3, FA_64/31, FA_256/127), the value an FA run's resolved
    /// configuration then holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub g: Option<u32>,
    /// AS_Linear, AS_Exp and AMP: the largest degree, blocks (decisions.md 6).
    pub max_degree: u32,
    pub amp: AmpConfig,
    pub lsp: LspConfig,
    pub asp: AspConfig,
    pub tap: TapConfig,
}

impl Default for ArrayCacheConfig {
    fn default() -> Self {
        ArrayCacheConfig {
            size: Size(0),
            block: Size(PAGE_BYTES),
            prefetch: BlockPrefetchPolicy::None,
            write_policy: WritePolicy::WriteThrough,
            dirty_limit: 0.2,
            seq_threshold: 2,
            p: 8,
            g: None,
            max_degree: 256,
            amp: AmpConfig::default(),
            lsp: LspConfig::default(),
            asp: AspConfig::default(),
            tap: TapConfig::default(),
        }
    }
}

impl ArrayCacheConfig {
    /// Blocks the cache holds.
    pub fn capacity_blocks(&self) -> u64 {
        self.size.0 / self.block.0.max(1)
    }

    /// FA's trigger distance: `g`, or `p/2 − 1` when unset.
    pub fn trigger_g(&self) -> u32 {
        self.g.unwrap_or((self.p / 2).saturating_sub(1))
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

/// Where each file starts (`fs.placement`; see [`crate::fs`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Right after the previous file (and `fs.file_gap`), as ext3's goal-based allocator
    /// leaves files written one after another on an empty volume.
    Packed,
    /// On the boundary of the allocation ext4's multiblock allocator makes for a
    /// file written back while still open (its normalised request, served from a
    /// free buddy of that order; see [`crate::fs`]).
    Mballoc,
}

/// `[fs]`: how files are laid out on the array (models.md §5.3–5.4).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FsConfig {
    pub layout: FileLayout,
    /// Where each file starts: packed one after another, or aligned as ext4's mballoc
    /// aligns a file written back while open.
    pub placement: Placement,
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
    /// File-system aging before the run (`[fs.aging]`, off while `ops` is 0).
    pub aging: AgingConfig,
}

/// `[fs.aging]`: create and delete files on an empty volume before the
/// measured files are written, so they fragment as on an aged file system
/// (models.md §5.4, \[IEICE13\] Fig. 11; see [`crate::fs::aging`]).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AgingConfig {
    /// Create/delete operations after the volume is filled to `fill`; 0: no aging.
    pub ops: u64,
    /// Mean size of the aging files (gamma, shape 1.5).
    pub file_size: Size,
    /// Fraction of the volume the aging files keep occupied.
    pub fill: f64,
    /// Size of the aged volume; 0: `2 × the files' blocks / (1 − fill)`.
    pub volume: Size,
}

impl Default for AgingConfig {
    fn default() -> Self {
        AgingConfig { ops: 0, file_size: Size(256 << 10), fill: 0.7, volume: Size(0) }
    }
}

impl AgingConfig {
    /// Whether aging is on.
    pub fn enabled(&self) -> bool {
        self.ops > 0
    }
}

impl Default for FsConfig {
    fn default() -> Self {
        FsConfig {
            layout: FileLayout::Contiguous,
            placement: Placement::Packed,
            indirect_blocks: true,
            start_block: 0,
            file_gap: Size(0),
            layout_score: 0.99,
            extent_gap: Size(256 << 10),
            aging: AgingConfig::default(),
        }
    }
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum WorkloadKind {
    Iozone,
    Random,
    /// FileBench's webserver, read side: threads reading whole files of a
    /// gamma-sized file set (see [`crate::workload`]).
    Webserver,
    /// FileBench's fileserver, read-only as \[IEICE13\] ran it.
    Fileserver,
    /// Streams reading their own files at `workload.rate`.
    Videoserver,
    /// A block trace (`workload.path`, `workload.format`).
    Trace,
}

impl WorkloadKind {
    /// The configuration's name for it.
    pub fn name(self) -> &'static str {
        match self {
            WorkloadKind::Iozone => "iozone",
            WorkloadKind::Random => "random",
            WorkloadKind::Webserver => "webserver",
            WorkloadKind::Fileserver => "fileserver",
            WorkloadKind::Videoserver => "videoserver",
            WorkloadKind::Trace => "trace",
        }
    }
}

/// What a trace's streams are (issue 9).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum StreamBy {
    /// The ASU, device or volume the format records.
    Unit,
    /// The process that issued the request (blkparse's pid).
    Process,
}

/// Where a trace's units (ASUs, devices, volumes) lie on the array
/// (models.md §6.1: an SPC record's LBA is an offset *within its ASU*).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Units {
    /// Every unit's offsets are the array's own: units overlap from block
    /// 0 (as MQSim replays one file of several devices).
    Shared,
    /// Each unit its own region, one after another in the order of their
    /// numbers, each as long as the highest byte the trace reaches in it,
    /// rounded up to 1 MiB (as partitions are aligned).
    Apart,
}

/// How a trace's requests are issued (issue 9).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Replay {
    /// At the trace's own times (scaled by `workload.speed`).
    Open,
    /// Each stream's next request when its previous one completes, after
    /// `workload.think_time`.
    Closed,
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
    /// `trace`: the trace file (relative paths from the working directory).
    pub path: String,
    /// `trace`: its format (`auto`: told from its content; see
    /// `prefetchlab::trace::Format` for the names).
    pub format: String,
    /// `trace`: open or closed loop.
    pub replay: Replay,
    /// `trace`, open loop: arrival times divided by this (2 = twice as fast).
    pub speed: f64,
    /// `trace`: time-shifted scale-up — the trace cut into this many
    /// fragments replayed concurrently from a common start (1 = as recorded).
    pub fragments: u32,
    /// `trace`: replay its writes too (`false`: its reads only).
    pub writes: bool,
    /// `trace`: what a stream is — `unit`, the ASU, device or volume the
    /// format records, or `process` (blkparse's pid).
    pub stream_by: StreamBy,
    /// `trace`: whether its units share the array's addresses or each has
    /// a region of its own ([`Units`]).
    pub units: Units,
    /// `trace`, blkparse: the event taken as the requests, `D` or `Q`.
    pub blk_event: String,
    /// `trace`: malformed records of a text format skipped (and counted),
    /// at most this many; 0 = the first one is an error.
    pub skip_bad: u64,
    /// `webserver`, `fileserver`: files in the file set (their mean size is
    /// `file_size`).
    pub files: u32,
    /// `webserver`, `fileserver`: the gamma shape of the file sizes
    /// (FileBench's `filesizegamma`).
    pub gamma_shape: f64,
    /// `videoserver`: bytes per second each stream reads at (0: as fast as
    /// it is served).
    pub rate: Size,
    /// `webserver`: FileBench's log append (`appendfilerand` of
    /// `$meanappendsize`): after every 10 files a thread appends a size
    /// drawn uniformly from 1 to this many bytes to one shared log file
    /// (0: no log; not given: FileBench's 16 KiB, filled in for a webserver
    /// when the configuration is read). See [`crate::workload`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_append: Option<Size>,
}

impl WorkloadConfig {
    /// The largest log append of a webserver, bytes (0: no log, or not a
    /// webserver).
    pub fn log_append_bytes(&self) -> u64 {
        match self.kind {
            WorkloadKind::Webserver => {
                self.log_append.map_or(crate::workload::FILEBENCH_MEAN_APPEND_BYTES, |s| s.0)
            }
            _ => 0,
        }
    }
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
            path: String::new(),
            format: "auto".into(),
            replay: Replay::Open,
            speed: 1.0,
            fragments: 1,
            writes: true,
            stream_by: StreamBy::Unit,
            units: Units::Shared,
            blk_event: "D".into(),
            skip_bad: 0,
            files: 1000,
            gamma_shape: crate::workload::FILEBENCH_GAMMA_SHAPE,
            rate: Size(0),
            log_append: None,
        }
    }
}

/// What a run simulates.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RunMode {
    /// The whole stack with its clock: devices, queues, latencies.
    #[default]
    Timed,
    /// The array cache and its block policy alone, no clock: hits, misses,
    /// prefetch accuracy ([`crate::cache_only`]).
    CacheOnly,
}

/// `[run]`
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields, default)]
pub struct RunConfig {
    pub seed: u64,
    /// Stop after this much simulated time (0 = when the workload ends).
    pub duration: Duration,
    pub mode: RunMode,
    /// A name for the run in figures and claims (a paper's name for a
    /// scheme and its sizes: `FA_8/3`, `SEQP32`); the engine never reads it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub label: String,
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
        let tree = json_to_toml(json, &mut Vec::new())?;
        Self::from_tree(tree, sets)
    }

    /// Reads a TOML file.
    pub fn from_path(path: &std::path::Path, sets: &[String]) -> Result<Config> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Error::io(path.display().to_string(), 0, "cannot read", &e))?;
        let tree: toml::Value = toml::from_str(&text).map_err(|e| {
            let (line, msg) = toml_error(&text, &e);
            Error::input(path.display().to_string(), line, msg)
        })?;
        Self::from_tree(tree, sets)
    }

    fn from_tree(mut tree: toml::Value, sets: &[String]) -> Result<Config> {
        // `[fs] aging = N` is short for `[fs.aging] ops = N`: in the file, and
        // as `--set fs.aging=N` (which then keeps the file's other aging keys)
        aging_shorthand(&mut tree);
        for set in sets {
            match set.split_once('=') {
                Some((key, v)) if key.trim() == "fs.aging" && v.trim().parse::<i64>().is_ok() => {
                    apply_set(&mut tree, &format!("fs.aging.ops={}", v.trim()))?
                }
                _ => apply_set(&mut tree, set)?,
            }
        }
        // the defaults' tree, written once: which keys hold tables
        static DEFAULTS: std::sync::OnceLock<Option<toml::Value>> = std::sync::OnceLock::new();
        if let Some(defaults) = DEFAULTS.get_or_init(|| toml::Value::try_from(Config::default()).ok()) {
            no_list_for_a_table(&tree, defaults, &mut Vec::new())?;
        }
        tier_keys_apply(&tree)?;
        let mut cfg: Config = match serde_path_to_error::deserialize(tree.clone()) {
            Ok(cfg) => cfg,
            Err(e) => return Err(type_error(&tree, e)),
        };
        cfg.check()?;
        // resolved: a key whose default is computed from other keys (COMPUTED_KEYS) holds the
        // value the run uses wherever it applies, so that a result's configuration says what
        // ran — the readahead max md (or SARA) gives the array when none is set; SARA's strip
        // and factor under SARA; FA's trigger distance under FA. Where the key does not apply
        // it is left out unless given (a value filled in there would only follow the keys it
        // is computed from: noise in every sweep over them)
        cfg.readahead.max.get_or_insert(Size(cfg.readahead_max_bytes()));
        if cfg.readahead.policy.is_sara() {
            cfg.sara.strip_kb.get_or_insert(cfg.sara_strip_bytes() >> 10);
            cfg.sara.factor.get_or_insert(cfg.sara_factor());
        }
        if cfg.array_cache.prefetch == BlockPrefetchPolicy::Fa {
            cfg.array_cache.g.get_or_insert(cfg.array_cache.trigger_g());
        }
        // and a webserver's log append, FileBench's unless given (another workload has no
        // log and refuses the key)
        if cfg.workload.kind == WorkloadKind::Webserver {
            cfg.workload.log_append = Some(Size(cfg.workload.log_append_bytes()));
        }
        // and the balance of use-once reclaim's two lists, the readahead's kernel's, where
        // the page cache is read through (not by a block trace, O_DIRECT readers, a
        // cache-only run or a distributed one)
        if cfg.host.reclaim == PageReclaim::UseOnce && cfg.reads_through_the_page_cache() {
            cfg.host.list_balance = Some(cfg.list_balance());
        }
        // and the client a `[topology]` run has when none is given
        if cfg.topology.is_distributed() {
            cfg.topology.clients = cfg.topology.client_specs().into_owned();
        }
        Ok(cfg)
    }

    /// The largest readahead window, bytes: `readahead.max`, or when not
    /// given md's ([`Config::md_readahead_bytes`]) — except under SARA, whose
    /// `max` is the strip unless set (\[IEICE13\] §5: "*max* is equal to the
    /// strip size if there is no explicit indication").
    pub fn readahead_max_bytes(&self) -> u64 {
        self.readahead.max.map_or_else(
            || {
                if self.readahead.policy.is_sara() {
                    self.sara_strip_bytes()
                } else {
                    self.md_readahead_bytes()
                }
            },
            |s| s.0,
        )
    }

    /// Whether the run reads through the host's page cache: not a block
    /// trace, nor O_DIRECT readers, nor a cache-only or distributed run.
    pub fn reads_through_the_page_cache(&self) -> bool {
        self.workload.kind != WorkloadKind::Trace
            && !self.workload.direct
            && self.run.mode != RunMode::CacheOnly
            && !self.topology.is_distributed()
    }

    /// How use-once reclaim balances the two lists: `host.list_balance`, or
    /// the readahead's kernel's ([`ListBalance`]).
    pub fn list_balance(&self) -> ListBalance {
        self.host.list_balance.unwrap_or(match self.readahead.policy {
            ReadaheadPolicy::Linux => match self.readahead.variant {
                LinuxVariant::V2_6_18 | LinuxVariant::V2_6_24 => ListBalance::Proportional,
                LinuxVariant::V3_10 | LinuxVariant::V3_12 => ListBalance::InactiveLow,
            },
            ReadaheadPolicy::Seqp | ReadaheadPolicy::Saseqp => ListBalance::Proportional,
            ReadaheadPolicy::None
            | ReadaheadPolicy::Obl
            | ReadaheadPolicy::SaraBasic
            | ReadaheadPolicy::SaraExtended => ListBalance::InactiveLow,
        })
    }

    /// The strip SARA aligns its windows to, bytes: `sara.strip_kb`, or the
    /// array's strip.
    pub fn sara_strip_bytes(&self) -> u64 {
        self.sara.strip_kb.map_or(self.array.strip.0, |k| k << 10)
    }

    /// Extended SARA's large-max factor: `sara.factor`, or two of md's
    /// stripes ([`Self::md_stripe_bytes`]) in strips, so the large max is
    /// md's default readahead (2 × the data disks; on RAID-10 the disk count,
    /// odd ones included).
    pub fn sara_factor(&self) -> u32 {
        self.sara.factor.unwrap_or_else(|| {
            self.md_stripe_bytes().map_or(2, |s| (2 * s / self.array.strip.0.max(1)).max(2) as u32)
        })
    }

    /// Disks holding one stripe's data (RAID-0: every disk; RAID-5: one
    /// less, RAID-6: two less; RAID-10 near-2: half; a single disk: 1).
    pub fn data_disks(&self) -> u64 {
        let a = &self.array;
        match a.layout {
            Layout::Single => 1,
            Layout::Raid0 => a.disks as u64,
            Layout::Raid5 => a.disks.saturating_sub(1) as u64,
            Layout::Raid6 => a.disks.saturating_sub(2) as u64,
            Layout::Raid10 => (a.disks / 2) as u64,
        }
    }

    /// The stripe md counts when it sets an array's readahead, bytes: the
    /// data disks × chunk (RAID-0: every disk; RAID-5: one less, RAID-6: two
    /// less; RAID-10 near-2: every disk's chunk pages over the 2 copies,
    /// `raid_disks × chunk / near_copies` in whole pages, so 3 disks give 1.5
    /// chunks); `None` for a single disk (`raid0_run`, `raid5_run`,
    /// `raid10_run` of the kernels \[TC09\] and \[IEICE13\] ran).
    pub fn md_stripe_bytes(&self) -> Option<u64> {
        let a = &self.array;
        let strip = a.strip.0;
        Some(match a.layout {
            Layout::Single => return None,
            Layout::Raid0 => (a.disks as u64).saturating_mul(strip),
            Layout::Raid5 => (a.disks.saturating_sub(1) as u64).saturating_mul(strip),
            Layout::Raid6 => (a.disks.saturating_sub(2) as u64).saturating_mul(strip),
            Layout::Raid10 => (a.disks as u64).saturating_mul(strip / PAGE_BYTES) / 2 * PAGE_BYTES,
        })
    }

    /// The readahead md gives an array whose `read_ahead_kb` was not set: two
    /// of its stripes ([`Self::md_stripe_bytes`]), never below Linux's
    /// 128 KiB (models.md §2.5). A single disk keeps 128 KiB.
    pub fn md_readahead_bytes(&self) -> u64 {
        self.md_stripe_bytes()
            .map_or(DEFAULT_READAHEAD_BYTES, |s| s.saturating_mul(2).max(DEFAULT_READAHEAD_BYTES))
    }

    /// The resolved configuration as JSON (every default filled in).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("config serializes")
    }

    /// Checks the values serde cannot: ranges, units and the bounds that keep
    /// every allocation and every simulated time of a run finite (see the
    /// `MAX_*` constants). The first value at fault is named by its key.
    pub fn check(&self) -> Result<()> {
        self.check_array()?;
        self.check_ssd()?;
        self.check_host_and_block()?;
        self.check_readahead()?;
        self.check_fs()?;
        self.check_workload()?;
        self.check_informed()?;
        if self.disk.model.trim().is_empty() || self.disk.model.chars().any(char::is_control) {
            return Err(Error::config(
                "disk.model",
                format!(
                    "expected a drive preset name or a path, without control characters, got {}",
                    quote_key(&self.disk.model)
                ),
            ));
        }
        for (name, v) in &self.disk.overrides {
            let key = || format!("disk.overrides.{}", quote_key(name));
            if name.chars().any(char::is_control) {
                return Err(Error::config(key(), "a DiskSim parameter name has no control characters"));
            }
            if !v.is_finite() {
                return Err(Error::config(key(), format!("must be a finite number, got {v}")));
            }
        }
        for (set, name) in [
            (self.disk.cfq_low_latency, "disk.cfq_low_latency"),
            (self.disk.cfq_noidle_tree, "disk.cfq_noidle_tree"),
        ] {
            if set && self.disk.scheduler != SchedulerKind::Cfq {
                return Err(Error::config(
                    name,
                    format!(
                        "is CFQ's setting: it needs disk.scheduler = \"cfq\", got \"{}\"",
                        self.disk.scheduler.name()
                    ),
                ));
            }
        }
        if !in_own_range("disk.queue_depth", self.disk.queue_depth) {
            return Err(Error::config(
                "disk.queue_depth",
                format!(
                    "must be 0 (the drive's own Max queue length) to {MAX_QUEUE_DEPTH} (SCSI tagged queuing's limit), got {}",
                    self.disk.queue_depth
                ),
            ));
        }
        Ok(())
    }

    fn check_informed(&self) -> Result<()> {
        let i = &self.informed;
        if i.x_cache > MAX_INFORMED_DEPTH {
            return Err(Error::config(
                "informed.x_cache",
                format!("at most {MAX_INFORMED_DEPTH} prefetch buffers, got {}", i.x_cache),
            ));
        }
        if i.t_disk.0 == 0 || i.t_disk.0 > 60 * units::NS_PER_S {
            return Err(Error::config(
                "informed.t_disk",
                format!("within (0s, 1min], got {} ns", i.t_disk.0),
            ));
        }
        if i.t_cpu.0 > 60 * units::NS_PER_S {
            return Err(Error::config(
                "informed.t_cpu",
                format!("at most 1min of compute between two reads, got {} ns", i.t_cpu.0),
            ));
        }
        if !(i.hint_fraction > 0.0 && i.hint_fraction <= 1.0) {
            return Err(Error::config(
                "informed.hint_fraction",
                format!("a fraction of the reads within (0, 1], got {}", i.hint_fraction),
            ));
        }
        if self.topology.is_distributed() || !self.topology.clients.is_empty() {
            return self.check_topology();
        }
        if i.policy == InformedPolicy::Ipods {
            return Err(Error::config(
                "informed.policy",
                "IPODS pipelines hinted blocks from HDD to SSD inside storage nodes: it needs a [topology] with \
                 at least one [[topology.nodes]]",
            ));
        }
        if i.policy == InformedPolicy::None {
            return Ok(());
        }
        if self.workload.kind != WorkloadKind::Trace || self.workload.replay != Replay::Closed {
            return Err(Error::config(
                "informed.policy",
                "hints are a trace's own reads: informed prefetching needs workload.kind = \"trace\" with \
                 workload.replay = \"closed\" (the application reads when its previous read is done)",
            ));
        }
        if self.run.mode == RunMode::CacheOnly {
            return Err(Error::config(
                "informed.policy",
                "TIP measures disk times and sizes its horizon with them: it needs a timed run, not run.mode = \
                 \"cache-only\"",
            ));
        }
        if self.array_cache.size.0 == 0 {
            return Err(Error::config(
                "informed.policy",
                "TIP fetches hinted blocks into the array cache: set array_cache.size",
            ));
        }
        if self.array_cache.prefetch != BlockPrefetchPolicy::None {
            return Err(Error::config(
                "informed.policy",
                format!(
                    "TIP decides what the array cache prefetches: array_cache.prefetch must be \"none\", got \"{}\"",
                    self.array_cache.prefetch.name()
                ),
            ));
        }
        if self.workload.think_time.0 != 0 && self.workload.think_time.0 != i.t_cpu.0 {
            return Err(Error::config(
                "workload.think_time",
                "with [informed], the time between reads is informed.t_cpu: leave workload.think_time unset",
            ));
        }
        Ok(())
    }

    /// A `[topology]` run (issue 11): the storage nodes, their tiers, the
    /// network, and what the informed policies need there.
    fn check_topology(&self) -> Result<()> {
        let t = &self.topology;
        let nodes = t.node_count();
        if nodes == 0 {
            return Err(Error::config(
                "topology.nodes",
                "a topology needs at least one storage node ([[topology.nodes]] with count >= 1)",
            ));
        }
        if nodes > MAX_STORAGE_NODES {
            return Err(Error::config(
                "topology.nodes",
                format!("at most {MAX_STORAGE_NODES} storage nodes, got {nodes}"),
            ));
        }
        let clients: u64 = t.clients.iter().map(|c| c.count as u64).sum();
        if t.clients.iter().any(|c| c.count == 0) || clients > MAX_CLIENTS {
            return Err(Error::config(
                "topology.clients",
                format!(
                    "1 to {MAX_CLIENTS} clients, each [[topology.clients]] with count >= 1, got counts {:?}",
                    t.clients.iter().map(|c| c.count).collect::<Vec<_>>()
                ),
            ));
        }
        if t.block.0 < SECTOR_BYTES || t.block.0 > (1 << 40) {
            return Err(Error::config(
                "topology.block",
                format!("from 512 B to 1 TiB, got {} bytes", t.block.0),
            ));
        }
        for (i, c) in t.clients.iter().enumerate() {
            if c.cache.0 < t.block.0 {
                return Err(Error::config(
                    format!("topology.clients[{i}].cache"),
                    format!("at least one topology.block ({} bytes), got {} bytes", t.block.0, c.cache.0),
                ));
            }
        }
        for (i, n) in t.nodes.iter().enumerate() {
            for (name, tier) in [("upper", &n.upper), ("lower", &n.lower)] {
                let key = |k: &str| format!("topology.nodes[{i}].{name}.{k}");
                if tier.kind == TierKind::Ssd {
                    units::check_latency(tier.read_latency.0)
                        .map_err(|m| Error::config(key("read_latency"), m))?;
                    units::check_latency(tier.write_latency.0)
                        .map_err(|m| Error::config(key("write_latency"), m))?;
                    units::check_bandwidth(tier.read_bandwidth.0)
                        .map_err(|m| Error::config(key("read_bandwidth"), m))?;
                    units::check_bandwidth(tier.write_bandwidth.0)
                        .map_err(|m| Error::config(key("write_bandwidth"), m))?;
                } else if tier.model.trim().is_empty() {
                    return Err(Error::config(key("model"), "a drive preset name or a DiskSim file"));
                }
            }
        }
        units::check_latency(t.network.latency.0)
            .map_err(|m| Error::config("topology.network.latency", m))?;
        units::check_bandwidth(t.network.bandwidth.0)
            .map_err(|m| Error::config("topology.network.bandwidth", m))?;
        let w = &self.workload;
        if !matches!(w.kind, WorkloadKind::Trace | WorkloadKind::Random | WorkloadKind::Iozone) {
            return Err(Error::config(
                "workload.kind",
                "on a topology the application reads a hinted sequence of blocks: \"trace\", \"random\" or \"iozone\"",
            ));
        }
        if w.kind != WorkloadKind::Trace && w.streams != 1 {
            return Err(Error::config(
                "workload.streams",
                format!(
                    "on a topology one application reads one hinted sequence: streams = 1, got {}",
                    w.streams
                ),
            ));
        }
        let i = &self.informed;
        let max_bw = self.max_bw();
        if i.policy == InformedPolicy::Ipods && i.t_cpu.0 == 0 {
            return Err(Error::config(
                "informed.t_cpu",
                "IPODS plans its pipeline in steps of T_unit = t_cpu: set it above 0 (the paper: 0.037s)",
            ));
        }
        if i.policy == InformedPolicy::Ipods && i.x_cache == 0 {
            return Err(Error::config(
                "informed.x_cache",
                "IPODS runs TIP with a fixed number of prefetch buffers (decisions.md 9): set x_cache >= 1",
            ));
        }
        if i.policy != InformedPolicy::None && i.x_cache as u64 > max_bw {
            return Err(Error::config(
                "informed.x_cache",
                format!(
                    "TIP's prefetch buffers are concurrent fetches, at most Max_BW = {max_bw} (informed.max_bw), got {}",
                    i.x_cache
                ),
            ));
        }
        if i.policy == InformedPolicy::Ipods && i.x_cache as u64 == max_bw {
            return Err(Error::config(
                "informed.x_cache",
                format!(
                    "IPODS's pipeline depth is Max_BW - X_cache = 0 with x_cache = max_bw = {max_bw}: lower x_cache \
                     or raise informed.max_bw"
                ),
            ));
        }
        Ok(())
    }

    /// IPODS's `Max_BW`: `informed.max_bw`, or one request per storage node.
    pub fn max_bw(&self) -> u64 {
        if self.informed.max_bw > 0 {
            self.informed.max_bw as u64
        } else {
            self.topology.node_count()
        }
    }

    fn check_array(&self) -> Result<()> {
        let a = &self.array;
        if a.strip.0 == 0 || !a.strip.0.is_multiple_of(PAGE_BYTES) {
            return Err(Error::config(
                "array.strip",
                format!("must be a positive multiple of 4KiB, got {} bytes", a.strip.0),
            ));
        }
        if a.layout != Layout::Single && !a.strip.0.is_power_of_two() {
            return Err(Error::config(
                "array.strip",
                format!(
                    "md takes a chunk that is a power of two (64KiB, 128KiB, 256KiB, …), got {} bytes",
                    a.strip.0
                ),
            ));
        }
        let (min, max) = match a.layout {
            Layout::Single => (1, 1),
            Layout::Raid0 => (1, MAX_DISKS),
            Layout::Raid5 => (3, MAX_DISKS),
            Layout::Raid6 => (4, MAX_DISKS),
            Layout::Raid10 => (2, MAX_DISKS),
        };
        if a.disks < min || a.disks > max {
            let layout = serde_json::to_string(&a.layout).unwrap_or_default();
            return Err(Error::config(
                "array.disks",
                format!("layout {layout} needs {min} to {max} disks, got {}", a.disks),
            ));
        }
        let c = &self.array_cache;
        let block = c.block.0;
        units::check_block(block).map_err(|m| Error::config("array_cache.block", m))?;
        if c.size.0 != 0 && c.size.0 < block {
            return Err(Error::config(
                "array_cache.size",
                format!(
                    "must be 0 (no array cache) or hold at least one {block}-byte block, got {} bytes",
                    c.size.0
                ),
            ));
        }
        if c.capacity_blocks() > MAX_CACHE_BLOCKS {
            return Err(Error::config(
                "array_cache.size",
                format!(
                    "{} blocks of {block} bytes: at most {MAX_CACHE_BLOCKS} blocks (a larger array_cache.block \
                     holds more bytes)",
                    c.capacity_blocks()
                ),
            ));
        }
        if self.run.mode == RunMode::Timed && block != PAGE_BYTES {
            return Err(Error::config(
                "array_cache.block",
                format!("timed runs cache 4KiB blocks (the page) so far, got {block} bytes; other blocks in run.mode = \"cache-only\""),
            ));
        }
        if !(0.0..=1.0).contains(&c.dirty_limit) {
            return Err(Error::config(
                "array_cache.dirty_limit",
                format!("must be a fraction of the cache within 0 to 1, got {}", c.dirty_limit),
            ));
        }
        if !(1..=255).contains(&c.seq_threshold) {
            return Err(Error::config(
                "array_cache.seq_threshold",
                format!("must be 1 to 255 blocks, got {}", c.seq_threshold),
            ));
        }
        if c.p == 0 {
            return Err(Error::config(
                "array_cache.p",
                "the degree of prefetch must be at least 1 block, got 0",
            ));
        }
        // counts that size a policy's tables or the work of one access: bounded,
        // so that a typo is an error rather than gigabytes or minutes
        for (key, v) in [
            ("array_cache.p", c.p),
            ("array_cache.max_degree", c.max_degree),
            ("array_cache.amp.apt", c.amp.apt),
            ("array_cache.lsp.window", c.lsp.window),
            ("array_cache.lsp.grow_strips", c.lsp.grow_strips),
            ("array_cache.asp.delta", c.asp.delta),
            ("array_cache.asp.monitor", c.asp.monitor),
            ("array_cache.asp.prefetch_ghost", c.asp.prefetch_ghost),
            ("array_cache.asp.cache_ghost", c.asp.cache_ghost),
            ("array_cache.asp.gate_interval", c.asp.gate_interval),
            ("array_cache.tap.table", c.tap.table),
            ("array_cache.tap.interval", c.tap.interval),
        ] {
            if v > MAX_POLICY_COUNT {
                return Err(Error::config(key, format!("at most {MAX_POLICY_COUNT}, got {v}")));
            }
        }
        if c.trigger_g() >= c.p {
            return Err(Error::config(
                "array_cache.g",
                format!(
                    "the trigger must lie inside the prefetched set: 0 <= g < p = {}, got g = {}",
                    c.p,
                    c.trigger_g()
                ),
            ));
        }
        if c.max_degree == 0 {
            return Err(Error::config("array_cache.max_degree", "must be at least 1 block, got 0"));
        }
        if c.amp.apt == 0 {
            return Err(Error::config("array_cache.amp.apt", "must be at least 1 block, got 0"));
        }
        let l = &c.lsp;
        if l.window == 0 {
            return Err(Error::config(
                "array_cache.lsp.window",
                "LSP clusters a window of at least 1 request (the paper's 50), got 0",
            ));
        }
        if l.hole.0 == 0 {
            return Err(Error::config(
                "array_cache.lsp.hole",
                "must be more than 0 bytes (the paper's 256KiB)",
            ));
        }
        let s = &c.asp;
        if !(0.0..=1.0).contains(&s.start) {
            return Err(Error::config(
                "array_cache.asp.start",
                format!(
                    "the culling point's start is a fraction of the cache within 0 to 1, got {}",
                    s.start
                ),
            ));
        }
        if s.delta == 0 {
            return Err(Error::config(
                "array_cache.asp.delta",
                "the culling point moves by at least 1 block per feedback event, got 0",
            ));
        }
        if s.monitor == 0 {
            return Err(Error::config(
                "array_cache.asp.monitor",
                "the monitor region needs at least 1 block, got 0",
            ));
        }
        if s.gate_interval == 0 {
            return Err(Error::config(
                "array_cache.asp.gate_interval",
                "the prefetch gate decides over intervals of at least 1 access, got 0",
            ));
        }
        units::check_latency(s.positioning.0).map_err(|m| Error::config("array_cache.asp.positioning", m))?;
        units::check_bandwidth(s.transfer_rate.0)
            .map_err(|m| Error::config("array_cache.asp.transfer_rate", m))?;
        let m = &self.msp;
        if m.sc_thresh > m.sc_max {
            return Err(Error::config(
                "msp.sc_thresh",
                format!(
                    "MSP fires at SC >= sc_thresh, and SC never exceeds sc_max = {}: got sc_thresh = {}",
                    m.sc_max, m.sc_thresh
                ),
            ));
        }
        if m.stripes_ahead == 0 || m.stripes_ahead > 64 {
            return Err(Error::config(
                "msp.stripes_ahead",
                format!("1 to 64 whole stripes, got {}", m.stripes_ahead),
            ));
        }
        let t = &c.tap;
        if t.table == 0 {
            return Err(Error::config(
                "array_cache.tap.table",
                "the detection table needs at least 1 entry, got 0",
            ));
        }
        for (key, v) in [("array_cache.tap.start", t.start), ("array_cache.tap.step", t.step)] {
            if !(v > 0.0 && v <= 1.0) {
                return Err(Error::config(key, format!("a fraction of the cache within (0, 1], got {v}")));
            }
        }
        if t.interval == 0 {
            return Err(Error::config(
                "array_cache.tap.interval",
                "the prefetch cache is sized over intervals of at least 1 read, got 0",
            ));
        }
        if !(0.0..=1.0).contains(&t.threshold) {
            return Err(Error::config(
                "array_cache.tap.threshold",
                format!("a fraction of reads within 0 to 1, got {}", t.threshold),
            ));
        }
        if matches!(
            c.prefetch,
            BlockPrefetchPolicy::Sp
                | BlockPrefetchPolicy::Lsp
                | BlockPrefetchPolicy::Asp
                | BlockPrefetchPolicy::Msp
        ) {
            if a.layout == Layout::Single {
                return Err(Error::config(
                    "array_cache.prefetch",
                    format!(
                        "{} prefetches whole strips and needs a striped array (array.layout raid0, raid5, \
                         raid6 or raid10); array.layout = \"single\" has no strips",
                        c.prefetch.name()
                    ),
                ));
            }
            if a.strip.0 < block || !a.strip.0.is_multiple_of(block) {
                return Err(Error::config(
                    "array.strip",
                    format!(
                        "{} prefetches whole strips, so a strip must hold whole cache blocks: {} bytes is \
                         not a multiple of array_cache.block = {block} bytes",
                        c.prefetch.name(),
                        a.strip.0
                    ),
                ));
            }
        }
        if c.size.0 == 0 && c.prefetch != BlockPrefetchPolicy::None {
            return Err(Error::config(
                "array_cache.prefetch",
                "block-level prefetching needs an array cache: set array_cache.size",
            ));
        }
        Ok(())
    }

    /// The whole `[ssd]` table, whatever `disk.kind` is.
    fn check_ssd(&self) -> Result<()> {
        let s = &self.ssd;
        let latency = |key: &str, d: Duration| units::check_latency(d.0).map_err(|m| Error::config(key, m));
        let bandwidth = |key: &str, b: Size| units::check_bandwidth(b.0).map_err(|m| Error::config(key, m));
        latency("ssd.read_latency", s.read_latency)?;
        latency("ssd.write_latency", s.write_latency)?;
        bandwidth("ssd.read_bandwidth", s.read_bandwidth)?;
        bandwidth("ssd.write_bandwidth", s.write_bandwidth)?;
        if s.channels == 0 || s.channels > MAX_SSD_CHANNELS {
            return Err(Error::config(
                "ssd.channels",
                format!("must be 1 to {MAX_SSD_CHANNELS}, got {}", s.channels),
            ));
        }
        if s.capacity.0 < PAGE_BYTES {
            return Err(Error::config(
                "ssd.capacity",
                format!("must be at least 4KiB, got {} bytes", s.capacity.0),
            ));
        }
        Ok(())
    }

    fn check_host_and_block(&self) -> Result<()> {
        if self.host.memory.0 < PAGE_BYTES {
            return Err(Error::config(
                "host.memory",
                format!("must hold at least one 4KiB page, got {} bytes", self.host.memory.0),
            ));
        }
        if self.host.reclaim == PageReclaim::Lru && self.host.list_balance.is_some() {
            return Err(Error::config(
                "host.list_balance",
                "balances use-once reclaim's two lists; host.reclaim = \"lru\" keeps one",
            ));
        }
        let b = &self.block;
        if b.nr_requests < 4 || b.nr_requests > MAX_NR_REQUESTS {
            return Err(Error::config(
                "block.nr_requests",
                format!(
                    "must be 4 to {MAX_NR_REQUESTS} (the deepest queue Linux's blk-mq allows), got {}",
                    b.nr_requests
                ),
            ));
        }
        let r = b.max_request.0;
        if !(PAGE_BYTES..=MAX_REQUEST_BYTES).contains(&r) || !r.is_multiple_of(PAGE_BYTES) {
            return Err(Error::config(
                "block.max_request",
                format!("must be a multiple of 4KiB from 4KiB to 1GiB, got {r} bytes"),
            ));
        }
        Ok(())
    }

    fn check_readahead(&self) -> Result<()> {
        let s = &self.sara;
        if !(s.threshold.is_finite() && s.threshold >= 0.0) {
            return Err(Error::config(
                "sara.threshold",
                format!("pending I/Os per member disk, a number >= 0, got {}", s.threshold),
            ));
        }
        if s.factor == Some(0) || s.factor.is_some_and(|f| f > MAX_SARA_FACTOR) {
            return Err(Error::config(
                "sara.factor",
                format!(
                    "the large max is strip_kb × factor: 1 to {MAX_SARA_FACTOR}, got {}",
                    s.factor.unwrap_or(0)
                ),
            ));
        }
        if let Some(k) = s.strip_kb {
            // the array's strip is its default, so a resolved configuration that holds a
            // larger one than the bound is read back as it was written
            let most = MAX_SARA_STRIP_KB.max(self.array.strip.0 >> 10);
            if k == 0 || k % 4 != 0 || k > most {
                return Err(Error::config(
                    "sara.strip_kb",
                    format!("a strip of whole 4 KiB pages, 4 to {most} KiB, got {k}"),
                ));
            }
        }
        let max = self.readahead_max_bytes();
        if self.readahead.policy != ReadaheadPolicy::None && (max == 0 || !max.is_multiple_of(PAGE_BYTES)) {
            return Err(Error::config(
                "readahead.max",
                format!("must be a positive multiple of 4KiB (whole pages), got {max} bytes"),
            ));
        }
        if self.seqp.init == 0 {
            return Err(Error::config("seqp.init", "must be at least 1 page"));
        }
        let policy = self.readahead.policy;
        if (policy == ReadaheadPolicy::Saseqp || policy.is_sara()) && self.array.layout == Layout::Single {
            let name = match policy {
                ReadaheadPolicy::Saseqp => "saseqp",
                ReadaheadPolicy::SaraBasic => "sara-basic",
                _ => "sara-extended",
            };
            return Err(Error::config(
                "readahead.policy",
                format!(
                    "{name} aligns readahead windows to strips and needs a striped array (array.layout raid0, \
                     raid5, raid6 or raid10); array.layout = \"single\" has no strips"
                ),
            ));
        }
        Ok(())
    }

    fn check_fs(&self) -> Result<()> {
        let f = &self.fs;
        if !(0.0..=1.0).contains(&f.layout_score) {
            return Err(Error::config(
                "fs.layout_score",
                format!("must be a number within 0 to 1, got {}", f.layout_score),
            ));
        }
        if !f.file_gap.0.is_multiple_of(PAGE_BYTES) {
            return Err(Error::config(
                "fs.file_gap",
                format!("must be a multiple of 4KiB (whole blocks), got {} bytes", f.file_gap.0),
            ));
        }
        if f.extent_gap.0 == 0 || !f.extent_gap.0.is_multiple_of(PAGE_BYTES) {
            return Err(Error::config(
                "fs.extent_gap",
                format!("must be a positive multiple of 4KiB (whole blocks), got {} bytes", f.extent_gap.0),
            ));
        }
        let a = &f.aging;
        if a.ops > MAX_AGING_OPS {
            return Err(Error::config(
                "fs.aging.ops",
                format!(
                    "at most {MAX_AGING_OPS} create/delete operations (about a second per million), got {}",
                    a.ops
                ),
            ));
        }
        if !(0.0..1.0).contains(&a.fill) {
            return Err(Error::config(
                "fs.aging.fill",
                format!("must be a number within 0..1 (a fraction of the volume), got {}", a.fill),
            ));
        }
        if a.file_size.0 < PAGE_BYTES {
            return Err(Error::config(
                "fs.aging.file_size",
                format!("must be at least 4KiB (one block), got {} bytes", a.file_size.0),
            ));
        }
        if !a.volume.0.is_multiple_of(PAGE_BYTES) {
            return Err(Error::config(
                "fs.aging.volume",
                format!("must be a multiple of 4KiB (whole blocks), got {} bytes", a.volume.0),
            ));
        }
        if a.enabled() && f.layout == FileLayout::Fragmented {
            return Err(Error::config(
                "fs.aging",
                "fs.layout = \"fragmented\" and fs.aging are two ways to fragment files; use one \
                 (aging allocates the files itself, so keep fs.layout = \"contiguous\")",
            ));
        }
        if a.enabled() && f.placement == Placement::Mballoc {
            return Err(Error::config(
                "fs.placement",
                "fs.aging allocates the files itself on the aged volume; fs.placement = \"mballoc\" \
                 places them on an empty one: use one (keep fs.placement = \"packed\" with fs.aging)",
            ));
        }
        if a.enabled() && f.file_gap.0 > 0 {
            return Err(Error::config(
                "fs.aging",
                "fs.file_gap places files one after another, which an aged volume does not; \
                 leave fs.file_gap at 0 with fs.aging",
            ));
        }
        Ok(())
    }

    fn check_workload(&self) -> Result<()> {
        let w = &self.workload;
        self.check_trace()?;
        if !in_own_range("workload.streams", w.streams) {
            return Err(Error::config(
                "workload.streams",
                format!("must be 1 to {MAX_STREAMS}, got {}", w.streams),
            ));
        }
        if w.record.0 == 0 {
            return Err(Error::config("workload.record", "must be positive"));
        }
        if w.direct && !w.record.0.is_multiple_of(SECTOR_BYTES) {
            return Err(Error::config(
                "workload.record",
                format!(
                    "must be a multiple of 512 bytes with workload.direct = true (O_DIRECT), got {} bytes",
                    w.record.0
                ),
            ));
        }
        let fileset = matches!(w.kind, WorkloadKind::Webserver | WorkloadKind::Fileserver);
        if fileset {
            if w.files == 0 || w.files > MAX_FILESET_FILES {
                return Err(Error::config(
                    "workload.files",
                    format!("a file set of 1 to {MAX_FILESET_FILES} files, got {}", w.files),
                ));
            }
            if !(w.gamma_shape.is_finite() && w.gamma_shape >= 0.01 && w.gamma_shape <= 1000.0) {
                return Err(Error::config(
                    "workload.gamma_shape",
                    format!("the file sizes' gamma shape, within 0.01 to 1000, got {}", w.gamma_shape),
                ));
            }
            let total = u128::from(w.file_size.0) * u128::from(w.files);
            if total > u128::from(MAX_TOTAL_FILE_BYTES) / 2 {
                return Err(Error::config(
                    "workload.file_size",
                    format!(
                        "{} files of {} bytes on average make {total} bytes; at most 512GiB on average (the gamma \
                         draws may exceed the mean)",
                        w.files, w.file_size.0
                    ),
                ));
            }
        }
        if w.kind == WorkloadKind::Videoserver {
            units::check_stream_rate(w.rate.0).map_err(|m| Error::config("workload.rate", m))?;
        }
        if let Some(Size(bytes)) = w.log_append.filter(|s| s.0 > MAX_LOG_APPEND_BYTES) {
            return Err(Error::config(
                "workload.log_append",
                format!("the largest log append, 0 (no log) to 1MiB, got {bytes} bytes"),
            ));
        }
        if w.kind != WorkloadKind::Webserver && w.log_append.is_some() {
            return Err(Error::config(
                "workload.log_append",
                format!("the log append is the webserver's; workload.kind = \"{}\" has none", w.kind.name()),
            ));
        }
        if w.file_size.0 < w.record.0 && !fileset {
            return Err(Error::config(
                "workload.file_size",
                format!("must hold at least one record ({} bytes), got {} bytes", w.record.0, w.file_size.0),
            ));
        }
        let total = if fileset { 0 } else { u128::from(w.file_size.0) * u128::from(w.streams) };
        // a topology's data set lives on its storage nodes: bounded by their
        // lower levels when the topology is built, and by the hinted reads
        if total > u128::from(MAX_TOTAL_FILE_BYTES) && !self.topology.is_distributed() {
            return Err(Error::config(
                "workload.file_size",
                format!(
                    "{} streams of {} bytes make {total} bytes of files; at most 1TiB ({MAX_TOTAL_FILE_BYTES} \
                     bytes) in all",
                    w.streams, w.file_size.0
                ),
            ));
        }
        let records = w.file_size.0.div_ceil(w.record.0);
        let requests = if w.kind == WorkloadKind::Random && w.requests > 0 { w.requests } else { records };
        let thinking = u128::from(requests) * u128::from(w.think_time.0);
        if thinking > u128::from(MAX_SIM_NS) {
            return Err(Error::config(
                "workload.think_time",
                format!(
                    "{requests} requests per stream × {} ns of think time = {thinking} ns, beyond the \
                     simulated clock's range ({MAX_SIM_NS} ns, about 146 years)",
                    w.think_time.0
                ),
            ));
        }
        Ok(())
    }
}

impl Config {
    /// `workload.kind = "trace"` and `run.mode`: what a trace run needs.
    fn check_trace(&self) -> Result<()> {
        let w = &self.workload;
        let trace = w.kind == WorkloadKind::Trace;
        // checked whatever the workload, so that every resolved configuration reads back
        if !(w.speed.is_finite() && w.speed > 0.0) {
            return Err(Error::config(
                "workload.speed",
                format!("must be a positive number, got {}", w.speed),
            ));
        }
        if self.run.mode == RunMode::CacheOnly {
            if !trace {
                return Err(Error::config(
                    "workload.kind",
                    "run.mode = \"cache-only\" reads a block trace: set workload.kind = \"trace\" and workload.path",
                ));
            }
            if self.array_cache.size.0 == 0 {
                return Err(Error::config(
                    "array_cache.size",
                    "run.mode = \"cache-only\" simulates the array cache: give its size (e.g. \"1GiB\")",
                ));
            }
            if self.output.io_log {
                return Err(Error::config(
                    "output.io_log",
                    "the event log holds a timed run's windows and disk requests; run.mode = \"cache-only\" has \
                     neither (drop output.io_log, or set run.mode = \"timed\")",
                ));
            }
        }
        if !trace {
            if self.array_cache.prefetch == BlockPrefetchPolicy::Linux {
                return Err(Error::config(
                    "array_cache.prefetch",
                    "\"linux\" is readahead at the array for a block trace (workload.kind = \"trace\"); a file \
                     workload has its own readahead (readahead.policy)",
                ));
            }
            if !w.path.trim().is_empty() {
                return Err(Error::config(
                    "workload.path",
                    format!(
                        "a block trace's file, read with workload.kind = \"trace\"; workload.kind = \"{}\" reads \
                         none (drop workload.path, or set the kind)",
                        w.kind.name()
                    ),
                ));
            }
            return Ok(());
        }
        if w.path.trim().is_empty() {
            return Err(Error::config(
                "workload.path",
                "workload.kind = \"trace\" needs the trace file's path",
            ));
        }
        if w.format != "auto" {
            crate::trace::Format::from_name(&w.format)?;
        }
        crate::trace::ReadOptions::with_blk_event(&w.blk_event)?;
        if w.units == Units::Apart && w.stream_by == StreamBy::Process {
            return Err(Error::config(
                "workload.units",
                "\"apart\" places each unit (ASU, device, volume) in a region of its own: it needs \
                 workload.stream_by = \"unit\" (with \"process\" the records' units are not kept)",
            ));
        }
        if !in_own_range("workload.fragments", w.fragments) {
            return Err(Error::config(
                "workload.fragments",
                format!("must be 1 to {MAX_STREAMS}, got {}", w.fragments),
            ));
        }
        if self.run.mode == RunMode::CacheOnly && w.fragments != 1 {
            return Err(Error::config(
                "workload.fragments",
                "time-shifted scale-up replays fragments concurrently in time: it needs run.mode = \"timed\"",
            ));
        }
        if self.array_cache.prefetch == BlockPrefetchPolicy::Linux && self.run.mode == RunMode::CacheOnly {
            return Err(Error::config(
                "array_cache.prefetch",
                "Linux readahead at the array runs in timed trace replays so far, not in cache-only mode",
            ));
        }
        if self.array_cache.write_policy == WritePolicy::WriteBack && self.array_cache.size.0 == 0 {
            return Err(Error::config(
                "array_cache.write_policy",
                "write-back keeps the written blocks in the array cache: set array_cache.size",
            ));
        }
        Ok(())
    }
}

/// The whole-number keys with a range of their own, narrower than their
/// type's: validation holds a value to it (`in_own_range`; `array.disks`
/// by its layout's range, whose widest, RAID-0's, this is), and a value of
/// the wrong kind is told it, not the type's 0 to 4294967295. One list, so
/// that the two cannot tell a key different ranges (the test
/// `own_ranges_are_the_ones_validation_holds` holds `array.disks` to it).
pub const OWN_RANGES: [(&str, u32, u32); 4] = [
    ("array.disks", 1, MAX_DISKS),
    ("workload.streams", 1, MAX_STREAMS),
    ("workload.fragments", 1, MAX_STREAMS),
    ("disk.queue_depth", 0, MAX_QUEUE_DEPTH),
];

/// Whether `value` is within `key`'s own range (a key of [`OWN_RANGES`]).
fn in_own_range(key: &str, value: u32) -> bool {
    let (_, least, most) = OWN_RANGES.iter().find(|(k, ..)| *k == key).expect("a key of OWN_RANGES");
    (*least..=*most).contains(&value)
}

/// Most blocks of the array cache: its slots are 32-bit indices.
pub const MAX_CACHE_BLOCKS: u64 = u32::MAX as u64 - 2;
/// Most member disks of an array (RAID-0, -5, -6, -10).
pub const MAX_DISKS: u32 = 1024;
/// Largest `block.nr_requests`: 10240, the deepest queue Linux's blk-mq
/// allows (`BLK_MQ_MAX_DEPTH`). (A queue is not preallocated at this size: it
/// grows with the requests it holds.)
pub const MAX_NR_REQUESTS: u32 = 10240;
/// Largest `block.max_request`: 1 GiB. Linux caps `max_sectors_kb` at the
/// device's hardware limit, a few MiB; the engine counts a request's sectors
/// in 32 bits.
pub const MAX_REQUEST_BYTES: u64 = 1 << 30;
/// Most `workload.streams`: 4096, forty times the papers' largest runs. Each
/// stream has its own file and readahead state, and each disk queue keeps
/// per-stream statistics for the anticipatory scheduler (about 72 bytes, so
/// 300 MB at 4096 streams on 1024 disks).
pub const MAX_STREAMS: u32 = 4096;
/// Most bytes of files in one run, all streams together: 1 TiB (2^28 pages),
/// more than the arrays of the papers hold. The page cache keeps a 4-byte
/// slot index per file page (1 GiB at this bound) and a fragmented layout up
/// to 16 bytes per extent; a sparser index would lift this bound.
pub const MAX_TOTAL_FILE_BYTES: u64 = 1 << 40;
/// Most SSD channels per device: 1024 (real SSDs have 8 to 32).
pub const MAX_SSD_CHANNELS: u32 = 1024;
/// The latest simulated time a stream's think times may reach: 2^62 ns
/// (about 146 years), a quarter of the clock's range, leaving room for the
/// service times on top.
pub const MAX_SIM_NS: u64 = 1 << 62;

/// `text` with its control characters escaped (a newline as `\n`), so that a
/// message quoting it stays on one line.
fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() })
        .collect()
}

/// A key segment as it would be written in TOML (and in `--set`): bare when
/// it is made of `A-Z a-z 0-9 _ -`, else quoted (`"Read hit over. after read"`).
pub fn quote_key(segment: &str) -> String {
    let bare =
        !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if bare {
        return segment.to_string();
    }
    // a TOML basic string on one line
    let mut out = String::from("\"");
    for c in segment.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A key path as the dotted key a configuration writes (each part quoted as
/// in TOML where it must be: `disk.overrides."Read hit over. after read"`).
fn dotted_key(parts: &[String]) -> String {
    parts.iter().map(|p| quote_key(p)).collect::<Vec<_>>().join(".")
}

/// A JSON value as the TOML tree the rest of the loader reads. JSON has what
/// TOML lacks: `null` (refused, naming its key) and whole numbers beyond
/// TOML's signed 64 bits, which a resolved configuration holds for sizes of
/// 8 EiB and more: those become strings of digits, which a size reads as bytes.
fn json_to_toml(v: serde_json::Value, path: &mut Vec<String>) -> Result<toml::Value> {
    use serde_json::Value as J;
    use toml::Value as T;
    Ok(match v {
        J::Null => {
            return Err(Error::config(
                dotted_key(path),
                "null is not a value (leave the key out for its default)",
            ))
        }
        J::Bool(b) => T::Boolean(b),
        J::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => T::Integer(i),
            (None, Some(u)) => T::String(u.to_string()),
            _ => T::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => T::String(s),
        J::Array(items) => {
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.into_iter().enumerate() {
                path.push(i.to_string());
                out.push(json_to_toml(item, path)?);
                path.pop();
            }
            T::Array(out)
        }
        J::Object(map) => {
            let mut out = toml::Table::new();
            for (k, item) in map {
                path.push(k);
                let value = json_to_toml(item, path)?;
                out.insert(path.pop().unwrap_or_default(), value);
            }
            T::Table(out)
        }
    })
}

/// A value serde refused, as one line naming its key (parts quoted as in
/// TOML). For a name of the wrong type (`layout = 1`, where toml's own
/// message says "invalid type: unit variant"), the message lists the names
/// the key takes instead.
fn type_error(tree: &toml::Value, e: serde_path_to_error::Error<toml::de::Error>) -> Error {
    use serde_path_to_error::Segment;
    let parts: Vec<String> = e
        .path()
        .iter()
        .filter_map(|s| match s {
            Segment::Map { key } => Some(key.clone()),
            Segment::Seq { index } => Some(index.to_string()),
            _ => None,
        })
        .collect();
    let mut msg = one_line(&e.into_inner().to_string());
    let key = dotted_key(&parts);
    if msg.contains("unit variant") || msg.contains("wanted exactly 1 element") {
        if let Some(names) = names_of(tree, &parts) {
            msg = format!("expected {names}");
            // a name written as a number loses its trailing zeros (`3.10` reads as 3.1)
            if let Some(v) = value_at(tree, &parts).filter(|v| v.is_float()) {
                msg = format!("{msg}; got the number {v}: quote the name, as in \"3.10\"");
            }
        }
    }
    let mut msg = plain_words(&msg);
    // a count with a range of its own: say that range, not the type's
    if let Some((_, least, most)) = OWN_RANGES.iter().find(|(k, ..)| *k == key) {
        for typed in [format!("a whole number from 0 to {}, got", u32::MAX), "a whole number, got".into()] {
            msg = msg.replacen(&typed, &format!("a whole number from {least} to {most}, got"), 1);
        }
    }
    // `--set disk.overrides.Read hit over. after read=0.2`: the dots split the name
    if parts.len() > 2 && parts[..2] == ["disk", "overrides"] && msg.ends_with("got a table") {
        msg.push_str(
            "; a DiskSim parameter name that holds dots is quoted, as in \
             disk.overrides.\"Read hit over. after read\"=0.2",
        );
    }
    Error::config(key, msg)
}

/// serde's "invalid type: integer `-1`, expected u32" in a configuration's
/// words: "expected a whole number from 0 to 4294967295, got -1" (no Rust
/// type names). A message of another shape is returned as it is.
fn plain_words(msg: &str) -> String {
    let Some(rest) = msg.strip_prefix("invalid type: ").or_else(|| msg.strip_prefix("invalid value: "))
    else {
        return msg.to_string();
    };
    let Some((got, expected)) = rest.split_once(", expected ") else {
        return msg.to_string();
    };
    let ticked = |s: &str, what: &str| -> Option<String> {
        s.strip_prefix(what)?.strip_prefix(" `")?.strip_suffix('`').map(str::to_string)
    };
    // a whole number out of the type's range is told the range; any other value only what
    // kind of value is wanted (the type's range would read as the key's)
    let whole_got = ticked(got, "integer");
    let integer = whole_got.is_some();
    let got = whole_got
        .or_else(|| ticked(got, "floating point"))
        .or_else(|| ticked(got, "boolean"))
        .unwrap_or_else(|| match got {
            "sequence" => "a list".to_string(),
            "map" => "a table".to_string(),
            other => other.replacen("string ", "the string ", 1),
        });
    let whole = |max: u64| {
        if integer {
            format!("a whole number from 0 to {max}")
        } else {
            "a whole number".to_string()
        }
    };
    let expected = match expected {
        "u8" => whole(u8::MAX.into()),
        "u16" => whole(u16::MAX.into()),
        "u32" => whole(u32::MAX.into()),
        // a TOML integer is an i64: nothing above i64::MAX can be written
        "u64" | "usize" => whole(i64::MAX as u64),
        "i8" | "i16" | "i32" | "i64" | "isize" => "a whole number".to_string(),
        "f32" | "f64" => "a number".to_string(),
        "a map" => "a table".to_string(),
        "a sequence" => "a list".to_string(),
        e if e.starts_with("struct ") => "a table of keys".to_string(),
        e => e.to_string(),
    };
    format!("expected {expected}, got {got}")
}

/// A list given where the defaults hold a table of keys (`workload = [1]`,
/// `array_cache.amp = [2]`) is an error naming the key: serde would read the
/// table from the list by position, setting its first key silently.
fn no_list_for_a_table(tree: &toml::Value, defaults: &toml::Value, path: &mut Vec<String>) -> Result<()> {
    let (Some(given), Some(defaults)) = (tree.as_table(), defaults.as_table()) else { return Ok(()) };
    for (k, v) in given {
        let Some(default) = defaults.get(k).filter(|d| d.is_table()) else { continue };
        path.push(k.clone());
        if v.is_array() {
            return Err(Error::config(dotted_key(path), "expected a table of keys, got a list"));
        }
        no_list_for_a_table(v, default, path)?;
        path.pop();
    }
    Ok(())
}

/// A storage tier's keys of the other kind are an error naming the key
/// (a drive's times come from its model; an SSD has no drive model): after
/// deserializing, a default cannot be told from a value given. Each kind's
/// keys are the ones its tier is written out with (`Serialize`).
fn tier_keys_apply(tree: &toml::Value) -> Result<()> {
    // most configurations have no nodes: nothing to write out then
    let Some(nodes) = value_at(tree, &["topology".into(), "nodes".into()]).and_then(|n| n.as_array()) else {
        return Ok(());
    };
    let keys_of = |tier: TierConfig| -> Vec<String> {
        toml::Value::try_from(tier)
            .ok()
            .and_then(|v| v.as_table().map(|t| t.keys().cloned().collect()))
            .unwrap_or_default()
    };
    let (hdd, ssd) = (keys_of(TierConfig::hdd()), keys_of(TierConfig::ssd()));
    for (i, node) in nodes.iter().enumerate() {
        for name in ["upper", "lower"] {
            let Some(tier) = node.get(name).and_then(|t| t.as_table()) else { continue };
            let (own, other, other_kind) = match tier.get("kind").and_then(|k| k.as_str()) {
                Some("hdd") => (&hdd, &ssd, "ssd"),
                Some("ssd") => (&ssd, &hdd, "hdd"),
                _ => continue,
            };
            if let Some(k) = tier.keys().find(|k| !own.contains(k) && other.contains(k)) {
                let why = format!(
                    "applies to kind = \"{other_kind}\" only (an hdd tier is given by its drive model, an ssd \
                     tier by its latencies and bandwidths)"
                );
                return Err(Error::config(format!("topology.nodes[{i}].{name}.{k}"), why));
            }
        }
    }
    Ok(())
}

/// The value at the key path `parts` of `tree`.
fn value_at<'a>(tree: &'a toml::Value, parts: &[String]) -> Option<&'a toml::Value> {
    parts.iter().try_fold(tree, |node, p| node.as_table()?.get(p))
}

/// The names an enum key takes (serde's "one of `a`, `b`, …"), found by asking serde
/// about a name no key takes.
fn names_of(tree: &toml::Value, parts: &[String]) -> Option<String> {
    let mut probe = tree.clone();
    let mut node = &mut probe;
    for p in parts {
        node = node.as_table_mut()?.get_mut(p)?;
    }
    *node = toml::Value::String(String::new());
    let e = Config::deserialize(probe).err()?.to_string();
    // "expected one of `a`, `b`, `c`", or "expected `a` or `b`" for two
    let (_, names) = e.split_once("unknown variant ``, expected ")?;
    Some(one_line(names))
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
    let mut msg = one_line(e.message());
    let at = e.span().map(|span| span.start.min(text.len()));
    if msg.is_empty() {
        // toml gives no words when the text stops where a value should be
        msg = match at {
            Some(at) if text.get(at..).is_some_and(|t| t.trim().is_empty()) => {
                "expected a value, found the end of the text".into()
            }
            _ => "unexpected text".into(),
        };
    }
    match at {
        Some(at) => {
            let line = text.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            (line, format!("TOML syntax error: {msg}"))
        }
        None => (0, format!("TOML syntax error: {msg}")),
    }
}

/// `sets` applied, as [`apply_set`] applies them to a configuration, to a
/// tree given as JSON that need not be a configuration yet: an experiment's
/// base, whose axes are lists (`prefetchlab sweep --set`). Returns the tree as
/// JSON.
pub fn apply_sets_json(json: &str, sets: &[String]) -> Result<String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| Error::config("", format!("not a JSON tree: {e}")))?;
    let mut tree = json_to_toml(value, &mut Vec::new())?;
    for set in sets {
        apply_set(&mut tree, set)?;
    }
    serde_json::to_string(&tree).map_err(|e| Error::config("", format!("cannot write the tree as JSON: {e}")))
}

/// Applies one `key.path=value` override. The value is read as a TOML value
/// when it parses as one, otherwise as a plain string.
///
/// The key is a dotted path as in TOML: each part is either bare text (any
/// characters but `.`, `=` and quotes; spaces are kept inside, so
/// `disk.overrides.Fast write level=0` works) or a quoted TOML string, which
/// may hold dots and `=` (`disk.overrides."Read hit over. after read"=0.2`,
/// or with single quotes for a literal string). The first `=` outside quotes
/// ends the key.
pub fn apply_set(tree: &mut toml::Value, set: &str) -> Result<()> {
    let (parts, raw) = split_set(set)?;
    let raw = raw.trim();
    let parsed = toml::from_str::<toml::Table>(&format!("v = {raw}")).ok();
    let beyond = |v: i128| v > i64::MAX as i128 || v < i64::MIN as i128;
    if parsed.is_none() && toml_integer(raw).is_some_and(beyond) {
        // not a string to take it as: a whole number TOML cannot hold
        return Err(Error::config(
            dotted_key(&parts),
            format!(
                "{raw} is beyond the whole numbers a configuration holds (-{} to {})",
                1u64 << 63,
                i64::MAX
            ),
        ));
    }
    if parsed.as_ref().is_some_and(|t| t.len() > 1) {
        // `4\nother.key = 1`: a second assignment would be dropped unseen
        return Err(Error::config(
            dotted_key(&parts),
            format!(
                "a --set gives one value; `{}` holds more than one (a line break?)",
                escape_controls(raw)
            ),
        ));
    }
    let value: toml::Value =
        parsed.and_then(|mut t| t.remove("v")).unwrap_or_else(|| toml::Value::String(raw.to_string()));
    let mut node = tree;
    for (i, part) in parts.iter().enumerate() {
        let table = match node {
            toml::Value::Table(t) => t,
            other => {
                let key = dotted_key(&parts[..i]);
                let what = if other.is_array() {
                    format!("is a list (of tables): a --set gives it whole, as in {key}=[{{...}}, ...]")
                } else {
                    "is not a table".to_string()
                };
                return Err(Error::config(key, what));
            }
        };
        if i + 1 == parts.len() {
            match table.get_mut(part.as_str()) {
                Some(old @ toml::Value::Table(_)) => merge_table(old, value),
                _ => {
                    table.insert(part.clone(), value);
                }
            }
            return Ok(());
        }
        node = table.entry(part.clone()).or_insert_with(|| toml::Value::Table(Default::default()));
    }
    Ok(())
}

/// An inline table given to a table (`--set 'workload={streams=4}'`) sets
/// the keys it names, table into table, and keeps the others: replacing the
/// whole table would drop the file's other keys unseen. Any other value
/// replaces the old.
fn merge_table(old: &mut toml::Value, new: toml::Value) {
    match (old, new) {
        (toml::Value::Table(o), toml::Value::Table(n)) => {
            for (k, v) in n {
                match o.get_mut(k.as_str()) {
                    Some(slot @ toml::Value::Table(_)) => merge_table(slot, v),
                    _ => {
                        o.insert(k, v);
                    }
                }
            }
        }
        (old, new) => *old = new,
    }
}

/// `raw` read as a TOML integer (underscores between digits; `0x`, `0o`,
/// `0b` prefixes), with no bound but i128's: to tell a whole number too large
/// for TOML from a string.
fn toml_integer(raw: &str) -> Option<i128> {
    let plain = raw.replace('_', "");
    let (digits, radix) = match plain.get(..2) {
        Some("0x") => (&plain[2..], 16),
        Some("0o") => (&plain[2..], 8),
        Some("0b") => (&plain[2..], 2),
        _ => (plain.as_str(), 10),
    };
    i128::from_str_radix(digits, radix).ok()
}

/// Splits `KEY=VALUE` into the parts of the key path and the raw value (see
/// [`apply_set`] for the key syntax).
fn split_set(set: &str) -> Result<(Vec<String>, &str)> {
    // What the message names: the text before the first `=` (the whole
    // override when there is none).
    let named = escape_controls(set.split('=').next().unwrap_or(set).trim());
    let bad = |msg: String| {
        if named.is_empty() {
            Error::config("", format!("bad --set `{}`: {msg}", escape_controls(set)))
        } else {
            Error::config(named.as_str(), msg)
        }
    };
    let mut parts = Vec::new();
    let mut rest = set;
    loop {
        let t = rest.trim_start();
        let (part, after) = if let Some(body) = t.strip_prefix('"') {
            let mut escaped = false;
            let close = body.char_indices().find_map(|(i, c)| {
                let found = !escaped && c == '"';
                escaped = !escaped && c == '\\';
                found.then_some(i)
            });
            let close = close.ok_or_else(|| bad("unterminated \" in the key".into()))?;
            let quoted = &t[..close + 2];
            let part = toml::from_str::<toml::Table>(&format!("k = {quoted}"))
                .ok()
                .and_then(|mut k| k.remove("k"))
                .and_then(|v| v.as_str().map(str::to_string))
                .ok_or_else(|| {
                    bad(format!("bad quoted key part {}: expected a TOML string", escape_controls(quoted)))
                })?;
            (part, &body[close + 1..])
        } else if let Some(body) = t.strip_prefix('\'') {
            let close = body.find('\'').ok_or_else(|| bad("unterminated ' in the key".into()))?;
            (body[..close].to_string(), &body[close + 1..])
        } else {
            let end = t.find(['.', '=', '"', '\'']).unwrap_or(t.len());
            let part = t[..end].trim();
            if t[end..].starts_with(['"', '\'']) {
                return Err(bad(format!(
                    "a quote must start a key part: quote the whole part, as in \
                     disk.overrides.\"Read hit over. after read\"=0.2 (after `{}`)",
                    escape_controls(part)
                )));
            }
            if part.is_empty() {
                return Err(bad(if end == t.len() && parts.is_empty() {
                    "an override must look like key.path=value".into()
                } else {
                    "empty part in key path".into()
                }));
            }
            (part.to_string(), &t[end..])
        };
        parts.push(part);
        let after = after.trim_start();
        if let Some(r) = after.strip_prefix('.') {
            rest = r;
        } else if let Some(value) = after.strip_prefix('=') {
            return Ok((parts, value));
        } else if after.is_empty() {
            return Err(bad("an override must look like key.path=value".into()));
        } else {
            let last = quote_key(parts.last().map_or("", String::as_str));
            return Err(bad(format!("expected `.` or `=` after the key part {last}")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_apply_to_an_experiments_tree_and_leave_its_axes() {
        let tree = r#"{"workload":{"streams":[1,2]},"disk":{"model":"cheetah-15k4"}}"#;
        let sets = ["disk.overrides.\"Read-ahead on idle hit\"=1".to_string(), "run.seed=3".into()];
        let out: serde_json::Value = serde_json::from_str(&apply_sets_json(tree, &sets).unwrap()).unwrap();
        assert_eq!(out["workload"]["streams"], serde_json::json!([1, 2]));
        assert_eq!(out["disk"]["overrides"]["Read-ahead on idle hit"], 1);
        assert_eq!(out["run"]["seed"], 3);
        let bad = apply_sets_json(tree, &["no equals sign".to_string()]).unwrap_err().to_string();
        assert!(bad.contains("an override must look like key.path=value"), "{bad}");
        // an array of tables is given whole
        let nodes = r#"{"topology":{"nodes":[{"count":1}]}}"#;
        let bad = apply_sets_json(nodes, &["topology.nodes.0.count=10".to_string()]).unwrap_err().to_string();
        assert!(bad.contains("`topology.nodes`: is a list (of tables): a --set gives it whole"), "{bad}");
    }

    #[test]
    fn a_schedulers_name_is_its_configuration_value() {
        use SchedulerKind::*;
        for kind in [Fcfs, Sstf, Clook, Deadline, Anticipatory, Cfq] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.name(), "{kind:?}");
        }
    }

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
        assert_eq!(c.readahead.max, Some(Size(512 << 10)));
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
        assert!(e.contains("array.disks") && e.contains("3 to "), "{e}");
        let e = Config::from_toml("[array]\nlayout='raid7'", &[]).unwrap_err().to_string();
        assert!(e.contains("array.layout") && e.contains("raid7"), "{e}");
        let e = Config::from_toml("[workload]\nrecord='12 furlongs'", &[]).unwrap_err().to_string();
        assert!(e.contains("workload.record"), "{e}");
    }

    #[test]
    fn a_name_of_the_wrong_type_lists_the_names() {
        for v in ["1", "[]", "[1]", "true", "{}", "1979-05-27T07:32:00Z"] {
            let e = refused(&format!("[array]\nlayout = {v}"), &[], "array.layout");
            assert!(e.ends_with("expected one of `single`, `raid0`, `raid5`, `raid6`, `raid10`"), "{v}: {e}");
        }
        let e = refused("", &["readahead.variant=3.1"], "readahead.variant");
        assert!(e.contains("`2.6.18`") && e.contains("`3.12`"), "{e}");
    }

    #[test]
    fn a_map_key_in_an_error_is_quoted_as_in_toml() {
        let e = refused(
            "[disk.overrides]\n'Read hit over. after read' = 'high'",
            &[],
            "disk.overrides.\"Read hit over. after read\"",
        );
        assert!(e.contains("expected a number, got the string"), "{e}");
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let e = Config::from_toml("[array]\ndisks = 2\nstrip = \n", &[]).unwrap_err().to_string();
        assert!(e.contains("line 3") && !e.contains('\n'), "{e}");
        let e = Config::from_toml("[output]\nio_log = ", &[]).unwrap_err().to_string();
        assert_eq!(e, "config: line 2: TOML syntax error: expected a value, found the end of the text");
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
        assert_eq!(c.readahead.max, Some(Size(512 << 10)));
        let e = Config::from_toml("", &["nokey".to_string()]).unwrap_err().to_string();
        assert!(e.contains("nokey"), "{e}");
    }

    #[test]
    fn an_inline_table_set_on_a_table_keeps_its_other_keys() {
        let file = "[array]\nlayout=\"raid0\"\ndisks=2\n[disk.overrides]\n\"Number of buffer segments\"=4\n";
        let sets = vec![
            "array={disks=3}".to_string(),
            r#"disk={scheduler="sstf", overrides={"Segment size (in blks)"=256}}"#.to_string(),
        ];
        let c = Config::from_toml(file, &sets).unwrap();
        assert_eq!((c.array.layout, c.array.disks), (Layout::Raid0, 3));
        assert_eq!(c.disk.overrides.len(), 2, "{:?}", c.disk.overrides);
        // a value that is not a table still replaces, and a table where
        // there was none is set whole
        let c = Config::from_toml(file, &["array.layout=raid10".into(), "fs={indirect_blocks=false}".into()])
            .unwrap();
        assert_eq!((c.array.layout, c.array.disks, c.fs.indirect_blocks), (Layout::Raid10, 2, false));
    }

    /// The message of the error `toml` plus `sets` gives; it must be one line
    /// naming `key`.
    fn refused(toml: &str, sets: &[&str], key: &str) -> String {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = Config::from_toml(toml, &sets).expect_err("must be refused").to_string();
        assert!(e.contains(&format!("`{key}`")), "should name {key}: {e}");
        assert!(!e.contains('\n'), "one line: {e}");
        e
    }

    #[test]
    fn md_raises_the_readahead_of_an_array_to_two_stripes_unless_it_is_set() {
        let max = |sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            Config::from_toml("", &sets).unwrap().readahead.max.unwrap().0 >> 10
        };
        // 2 × 5 disks × 128 KiB; RAID-5 one disk less, RAID-6 two, RAID-10 half
        assert_eq!(max(&["array.layout='raid0'", "array.disks=5"]), 1280);
        assert_eq!(max(&["array.layout='raid5'", "array.disks=5"]), 1024);
        assert_eq!(max(&["array.layout='raid6'", "array.disks=6"]), 1024);
        assert_eq!(max(&["array.layout='raid10'", "array.disks=4"]), 512);
        // raid10_run: 3 disks × 32 pages / 2 copies = 48 pages a stripe
        assert_eq!(max(&["array.layout='raid10'", "array.disks=3"]), 384);
        assert_eq!(max(&["array.layout='raid10'", "array.disks=5"]), 640);
        // extended SARA's large max is md's two stripes there too: 3 strips on 3 disks
        let r10 = Config::from_toml("", &["array.layout='raid10'".into(), "array.disks=3".into()]).unwrap();
        assert_eq!(r10.sara_factor() as u64 * r10.sara_strip_bytes(), r10.md_readahead_bytes());
        assert_eq!(
            max(&["array.layout='raid0'", "array.disks=2", "array.strip='16KiB'"]),
            128,
            "at least 128 KiB"
        );
        assert_eq!(max(&[]), 128, "a single disk keeps Linux's default");
        assert_eq!(
            max(&["array.layout='raid0'", "array.disks=5", "readahead.max='64KiB'"]),
            64,
            "a set value stays"
        );
        // the resolved configuration reads back to the same
        let c = Config::from_toml("", &["array.layout='raid0'".into(), "array.disks=5".into()]).unwrap();
        assert_eq!(Config::from_json(&c.to_json(), &[]).unwrap(), c);
        // a Config built in code gets the same value without resolving
        let mut d = Config::default();
        d.array.layout = Layout::Raid0;
        d.array.disks = 5;
        assert_eq!(d.readahead_max_bytes(), 1280 << 10);
    }

    /// The resolved configuration of `sets`, as JSON, after checking that
    /// reading it again gives the same configuration and the same JSON.
    fn resolved(sets: &[&str]) -> serde_json::Value {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let c = Config::from_toml("", &sets).unwrap();
        let again = Config::from_json(&c.to_json(), &[]).unwrap();
        assert_eq!(again, c, "{sets:?}: resolving is idempotent");
        assert_eq!(again.to_json(), c.to_json(), "{sets:?}");
        serde_json::from_str(&c.to_json()).unwrap()
    }

    #[test]
    fn the_resolved_configuration_holds_every_computed_default_where_it_applies() {
        let raid5 = ["array.layout='raid5'", "array.disks=5", "array.strip='64KiB'"];
        let sara = [&raid5[..], &["readahead.policy='sara-extended'"]].concat();
        let j = resolved(&sara);
        // what a SARA run with these keys unset uses: its strip is the array's, its factor two
        // stripes of data (4 data disks), its max the strip
        assert_eq!((j["sara"]["strip_kb"].as_u64(), j["sara"]["factor"].as_u64()), (Some(64), Some(8)));
        assert_eq!(j["readahead"]["max"], 64 << 10);
        let fa = resolved(&[&raid5[..], &["array_cache.size='1MiB'", "array_cache.prefetch='fa'"]].concat());
        assert_eq!(fa["array_cache"]["g"], 3, "FA's trigger, p/2 - 1");
        let fa64 = resolved(&["array_cache.size='1MiB'", "array_cache.prefetch='fa'", "array_cache.p=64"]);
        assert_eq!(fa64["array_cache"]["g"], 31);
        let web = resolved(&["workload.kind='webserver'"]);
        assert_eq!(web["workload"]["log_append"], 16384);
        // where a key does not apply it is left out, unless given
        let linux = resolved(&raid5);
        assert_eq!(linux["readahead"]["max"], 2 * 4 * (64 << 10), "md's, always");
        assert!(linux["sara"].get("factor").is_none() && linux["sara"].get("strip_kb").is_none(), "{linux}");
        assert!(linux["array_cache"].get("g").is_none() && linux["workload"].get("log_append").is_none());
        assert!(fa["sara"].get("factor").is_none() && j["array_cache"].get("g").is_none());
        let given =
            resolved(&[&raid5[..], &["sara.factor=3", "sara.strip_kb=32", "array_cache.g=2"]].concat());
        assert_eq!(
            (given["sara"]["factor"].as_u64(), given["sara"]["strip_kb"].as_u64()),
            (Some(3), Some(32))
        );
        assert_eq!(given["array_cache"]["g"], 2);
        // every key listed is in a resolved configuration it applies to
        let all = resolved(&[
            "workload.kind='webserver'",
            "readahead.policy='sara-basic'",
            "array.layout='raid0'",
            "array_cache.size='1MiB'",
            "array_cache.prefetch='fa'",
        ]);
        for key in COMPUTED_KEYS {
            let (section, name) = key.split_once('.').unwrap();
            assert!(all[section].get(name).is_some(), "{key} missing from {all}");
        }
        // what the defaults give on the largest arrays and strips reads back too (the bounds
        // of the given values make room for them)
        let wide =
            resolved(&["array.layout='raid0'", "array.disks=1024", "readahead.policy='sara-extended'"]);
        assert_eq!(wide["sara"]["factor"], 2048);
        let big = resolved(&[
            "array.layout='raid0'",
            "array.disks=2",
            "array.strip='4GiB'",
            "readahead.policy='sara-basic'",
        ]);
        assert_eq!(big["sara"]["strip_kb"], 4 << 20);
        refused("", &["sara.strip_kb=2097152"], "sara.strip_kb");
        refused("", &["sara.factor=2049"], "sara.factor");
        // use-once reclaim's list balance follows the readahead's kernel unless given; under
        // LRU reclaim (one list) it is left out, and refused when given
        for (policy, balance) in [
            ("readahead.variant='2.6.18'", "proportional"),
            ("readahead.variant='2.6.24'", "proportional"),
            ("readahead.variant='3.10'", "inactive-low"),
            ("readahead.variant='3.12'", "inactive-low"),
            ("readahead.policy='saseqp'", "proportional"),
            ("readahead.policy='seqp'", "proportional"),
            ("readahead.policy='sara-extended'", "inactive-low"),
            ("readahead.policy='none'", "inactive-low"),
        ] {
            assert_eq!(
                resolved(&[policy, "array.layout='raid0'"])["host"]["list_balance"],
                balance,
                "{policy}"
            );
        }
        let given = resolved(&[
            "readahead.policy='saseqp'",
            "array.layout='raid0'",
            "host.list_balance='inactive-low'",
        ]);
        assert_eq!(given["host"]["list_balance"], "inactive-low");
        assert!(resolved(&["host.reclaim='lru'"])["host"].get("list_balance").is_none());
        // nor where nothing reads through the page cache
        assert!(resolved(&["workload.direct=true"])["host"].get("list_balance").is_none());
        let e = refused("", &["host.reclaim='lru'", "host.list_balance='proportional'"], "host.list_balance");
        assert!(e.contains("use-once"), "{e}");
        refused("", &["host.list_balance='fifo'"], "host.list_balance");
        // and the run reads them as it did unset
        let c = Config::from_toml("", &sara.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        let mut unset = c.clone();
        (unset.sara.factor, unset.sara.strip_kb) = (None, None);
        assert_eq!((c.sara_factor(), c.sara_strip_bytes()), (unset.sara_factor(), unset.sara_strip_bytes()));
    }

    #[test]
    fn md_refuses_a_chunk_that_is_not_a_power_of_two() {
        let e = refused("", &["array.layout='raid0'", "array.disks=3", "array.strip='96KiB'"], "array.strip");
        assert!(e.contains("power of two") && e.contains("98304"), "{e}");
        assert!(Config::from_toml("", &["array.strip='96KiB'".into()]).is_ok(), "a single disk has no chunk");
    }

    #[test]
    fn ssd_parameters_that_make_no_sense_are_refused_whatever_the_disk_kind() {
        for kind in ["hdd", "ssd"] {
            let t = format!("[disk]\nkind = '{kind}'\n");
            let e = refused(&t, &["ssd.read_bandwidth=0"], "ssd.read_bandwidth");
            assert!(e.contains("at least 1000000 bytes per second") && e.contains("got 0"), "{e}");
            refused(&t, &["ssd.write_bandwidth=250"], "ssd.write_bandwidth");
            let e = refused(&t, &["ssd.read_latency=2s"], "ssd.read_latency");
            assert!(e.contains("at most 1s"), "{e}");
            refused(&t, &["ssd.write_latency=1min"], "ssd.write_latency");
            let e = refused(&t, &["ssd.channels=0"], "ssd.channels");
            assert!(e.contains("1 to 1024"), "{e}");
            refused(&t, &["ssd.channels=4000000000"], "ssd.channels");
            refused(&t, &["ssd.capacity=0"], "ssd.capacity");
        }
        let ok = Config::from_toml("[ssd]\nread_bandwidth='1PiB'\nread_latency=0\nchannels=1024", &[]);
        assert!(ok.is_ok(), "an ideal channel is allowed: {ok:?}");
    }

    #[test]
    fn trace_runs_and_the_cache_only_mode_say_what_they_need() {
        let co = "[workload]\nkind = \"trace\"\npath = \"t.csv\"\n[run]\nmode = \"cache-only\"\n[array_cache]\nsize = \"1MiB\"\n";
        let c = Config::from_toml(co, &[]).unwrap();
        assert_eq!(
            (c.run.mode, c.array_cache.block.0, c.array_cache.capacity_blocks()),
            (RunMode::CacheOnly, 4096, 256)
        );
        assert_eq!(c.array_cache.write_policy, WritePolicy::WriteThrough);
        let ok = |sets: &[&str]| {
            let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
            Config::from_toml(co, &sets).map(|_| ())
        };
        ok(&["array_cache.block=512", "array_cache.write_policy=write-back", "workload.format=vscsi"])
            .unwrap();
        ok(&["run.mode=timed", "array_cache.write_policy=write-back", "array_cache.dirty_limit=0.5"])
            .unwrap();
        let no_cache = ["array_cache.size=0", "array_cache.write_policy=write-back", "run.mode=timed"];
        assert!(refused(co, &no_cache, "array_cache.write_policy").contains("set array_cache.size"));
        assert!(refused(co, &["array_cache.dirty_limit=1.5"], "array_cache.dirty_limit").contains("0 to 1"));
        assert!(
            refused(co, &["array_cache.seq_threshold=0"], "array_cache.seq_threshold").contains("1 to 255")
        );
        ok(&["run.mode=timed", "workload.fragments=4", "workload.replay=closed"]).unwrap();
        assert!(refused(co, &["workload.kind=iozone"], "workload.kind").contains("reads a block trace"));
        let e = refused(co, &["run.mode=timed", "workload.kind=iozone"], "workload.path");
        assert!(e.contains("\"iozone\" reads none"), "{e}");
        assert!(refused(co, &["array_cache.size=0"], "array_cache.size").contains("give its size"));
        assert!(refused(co, &["array_cache.size=1KiB"], "array_cache.size")
            .contains("at least one 4096-byte block"));
        assert!(refused(co, &["array_cache.block=1000"], "array_cache.block").contains("multiple of 512"));
        assert!(refused(co, &["array_cache.block=2GiB"], "array_cache.block").contains("to 1GiB"));
        assert!(refused(co, &["array_cache.size=32TiB", "array_cache.block=512"], "array_cache.size")
            .contains("at most"));
        assert!(refused(co, &["workload.path="], "workload.path").contains("path"));
        assert!(refused(co, &["workload.format=csv"], "workload.format").contains("unknown trace format"));
        assert!(refused(co, &["workload.blk_event=C"], "workload.blk_event").contains("D or Q"));
        assert!(refused(co, &["workload.speed=0"], "workload.speed").contains("positive"));
        assert!(refused(co, &["workload.fragments=0"], "workload.fragments").contains("1 to "));
        ok(&["workload.units=apart"]).unwrap();
        let e = refused(co, &["workload.units=apart", "workload.stream_by=process"], "workload.units");
        assert!(e.contains("needs workload.stream_by = \"unit\""), "{e}");
        assert!(refused(co, &["workload.units=apartt"], "workload.units").contains("apart"));
        assert!(refused(co, &["workload.fragments=4"], "workload.fragments").contains("timed"));
        assert!(refused(co, &["run.mode=cached"], "run.mode").contains("cache-only"));
        assert!(refused(co, &["output.io_log=true"], "output.io_log").contains("run.mode = \"timed\""));
        assert!(refused("", &["readahead.variant=3.10"], "readahead.variant")
            .contains("got the number 3.1: quote"));
        assert_eq!(
            Config::from_toml("", &["readahead.variant=\"3.10\"".into()]).unwrap().readahead.variant,
            LinuxVariant::V3_10
        );
        // serde's words without Rust type names
        let plain = [
            ("array.disks=-1", "array.disks", "expected a whole number from 1 to 1024, got -1"),
            ("array.disks=1.5", "array.disks", "expected a whole number from 1 to 1024, got 1.5"),
            ("array.disks=\"five\"", "array.disks", "expected a whole number from 1 to 1024, got the string"),
            (
                "workload.streams=[1,2]",
                "workload.streams",
                "expected a whole number from 1 to 4096, got a list",
            ),
            ("workload.streams='a'", "workload.streams", "got the string \"a\""),
            ("run.seed=-1", "run.seed", "expected a whole number from 0 to 9223372036854775807, got -1"),
            // not a number: the kind wanted, not the type's range (the key may have its own)
            ("run.seed=\"8\"", "run.seed", "expected a whole number, got the string \"8\""),
            ("array_cache.p=2.5", "array_cache.p", "expected a whole number, got 2.5"),
            ("disk.queue_depth=-1", "disk.queue_depth", "expected a whole number from 0 to 256, got -1"),
            ("run.seed=18446744073709551615", "run.seed", "18446744073709551615 is beyond the whole numbers"),
            ("run.seed=18_446_744_073_709_551_615", "run.seed", "is beyond the whole numbers"),
            ("run.seed=0xffffffffffffffff", "run.seed", "is beyond the whole numbers"),
            ("disk=5", "disk", "expected a table of keys, got 5"),
            ("workload=[1]", "workload", "expected a table of keys, got a list"),
            ("array_cache.amp=[2]", "array_cache.amp", "expected a table of keys, got a list"),
            ("array_cache.write_policy=3", "array_cache.write_policy", "`write-through` or `write-back`"),
            ("output.io_log=3", "output.io_log", "expected a boolean, got 3"),
            ("disk.overrides.Read hit over. after read=0.2", "disk.overrides.\"Read hit over\"", "is quoted"),
        ];
        for (set, key, words) in plain {
            let e = refused("", &[set], key);
            assert!(e.contains(words), "{set}: {e}");
            assert!(!e.contains("u32") && !e.contains("struct ") && !e.contains("variant"), "{set}: {e}");
        }
        for key in
            ["array_cache.p", "array_cache.lsp.window", "array_cache.tap.table", "array_cache.max_degree"]
        {
            assert!(refused(co, &[&format!("{key}=4294967295")], key).contains("at most 1048576"));
        }
        ok(&["run.mode=timed", "output.io_log=true"]).unwrap();
        // a timed run caches pages
        assert!(refused("", &["array_cache.size=1MiB", "array_cache.block=8KiB"], "array_cache.block")
            .contains("4KiB"));
    }

    /// SIZE_KEYS and RATE_KEYS are the keys that take a size (`"4KiB"`),
    /// DURATION_KEYS those that take a duration (`"4ms"`): each whole-number
    /// key of the defaults (and the computed keys) is tried with both. A key
    /// whose default is absent (an `Option` that is not a computed key) is
    /// not seen: add it to COMPUTED_KEYS or to the keys tried here. Which of
    /// the size keys are rates is not checked (their names say it).
    #[test]
    fn unit_keys_are_every_size_and_duration() {
        fn leaves(v: &toml::Value, prefix: &str, out: &mut Vec<String>) {
            if let toml::Value::Table(t) = v {
                for (k, x) in t {
                    leaves(x, &format!("{prefix}{k}."), out);
                }
            } else if v.is_integer() {
                out.push(prefix.trim_end_matches('.').to_string());
            }
        }
        let defaults = toml::Value::try_from(Config::default()).unwrap();
        let mut keys = Vec::new();
        leaves(&defaults, "", &mut keys);
        keys.extend(COMPUTED_KEYS.iter().map(|k| k.to_string()));
        keys.sort();
        keys.dedup();
        let takes = |key: &str, text: &str| {
            let mut tree = defaults.clone();
            apply_set(&mut tree, &format!("{key}=\"{text}\"")).unwrap();
            Config::deserialize(tree).is_ok()
        };
        let (mut sizes, mut durations) = (Vec::new(), Vec::new());
        for key in &keys {
            if takes(key, "4KiB") {
                sizes.push(key.as_str());
            }
            if takes(key, "4ms") {
                durations.push(key.as_str());
            }
        }
        let mut listed: Vec<&str> = SIZE_KEYS.iter().chain(RATE_KEYS).copied().collect();
        listed.sort();
        assert_eq!(listed, sizes);
        assert_eq!(DURATION_KEYS, durations);
        assert!(sizes.len() > 15 && durations.len() > 5, "{sizes:?} {durations:?}");
    }

    /// Each key of OWN_RANGES: validation takes its least and most and refuses
    /// one past either, and a value of the wrong kind is told the same range.
    #[test]
    fn own_ranges_are_the_ones_validation_holds() {
        for (key, least, most) in OWN_RANGES {
            // RAID-0, whose least is the range's 1; a trace replay, which reads fragments
            let base = "[array]\nlayout='raid0'\n[workload]\nkind='trace'\npath='t.csv'";
            let ok = |v: i64| Config::from_toml(base, &[format!("{key}={v}")]);
            ok(least as i64).unwrap_or_else(|e| panic!("{key}={least}: {e}"));
            ok(most as i64).unwrap_or_else(|e| panic!("{key}={most}: {e}"));
            for past in [least as i64 - 1, most as i64 + 1] {
                let e = ok(past).unwrap_err().to_string();
                assert!(
                    e.contains(&format!("`{key}`")) && e.contains(&most.to_string()),
                    "{key}={past}: {e}"
                );
            }
            let e = refused("", &[&format!("{key}=\"8\"")], key);
            assert!(
                e.contains(&format!("expected a whole number from {least} to {most}, got the string")),
                "{e}"
            );
        }
    }

    #[test]
    fn peta_and_exa_sizes_are_accepted_and_beyond_u64_named() {
        let c = Config::from_toml("[ssd]\ncapacity='2PiB'\n[host]\nmemory='1EiB'", &[]).unwrap();
        assert_eq!((c.ssd.capacity.0, c.host.memory.0), (2 << 50, 1 << 60));
        let e = refused("[host]\nmemory='16EiB'", &[], "host.memory");
        assert!(e.contains("does not fit in 64 bits of bytes"), "{e}");
        let e = refused("[host]\nmemory=1e20", &[], "host.memory");
        assert!(e.contains("does not fit in 64 bits of bytes"), "{e}");
    }

    #[test]
    fn nr_requests_is_bounded() {
        let e = refused("[block]\nnr_requests=4000000000", &[], "block.nr_requests");
        assert!(e.contains("4 to 10240") && e.contains("4000000000"), "{e}");
        refused("", &["block.nr_requests=4e9"], "block.nr_requests");
        refused("", &["block.nr_requests=10241"], "block.nr_requests");
        refused("", &["block.nr_requests=3"], "block.nr_requests");
        assert_eq!(Config::from_toml("[block]\nnr_requests=10240", &[]).unwrap().block.nr_requests, 10240);
    }

    #[test]
    fn durations_that_overflow_the_clock_are_refused() {
        let e = refused("", &["workload.think_time=3e10 s"], "workload.think_time");
        assert!(e.contains("at most 2^63 - 1 ns, about 292 years"), "{e}");
        let e = refused("[workload]\nthink_time=2e19", &[], "workload.think_time");
        assert!(e.contains("at most 2^63 - 1 ns"), "{e}");
        let e = refused("[workload]\nthink_time=9.3e18", &[], "workload.think_time");
        assert!(e.contains("at most 2^63 - 1 ns"), "{e}");
        // Fits in u64 but carries a stream past the clock's range: 16 records × 1e18 ns.
        let e = refused(
            "[workload]\nthink_time=1e18\nfile_size='64KiB'",
            &["workload.record=4KiB"],
            "workload.think_time",
        );
        assert!(e.contains("16 requests per stream") && e.contains("146 years"), "{e}");
        refused("[run]\nduration='99999999999 s'", &[], "run.duration");
        let c = Config::from_toml("[workload]\nthink_time='1min'\n[run]\nduration='1000 min'", &[]).unwrap();
        assert_eq!((c.workload.think_time.0, c.run.duration.0), (60_000_000_000, 60_000_000_000_000));
    }

    #[test]
    fn other_nonsense_is_named() {
        let e = refused("", &["fs.layout_score=nan"], "fs.layout_score");
        assert!(e.contains("got NaN"), "{e}");
        refused("", &["fs.layout_score=inf"], "fs.layout_score");
        refused("", &["fs.layout_score=-0.5"], "fs.layout_score");
        refused("", &["fs.file_gap=1000"], "fs.file_gap");
        refused("", &["fs.extent_gap=0"], "fs.extent_gap");
        refused("", &["fs.aging.fill=1"], "fs.aging.fill");
        refused("", &["fs.aging.fill=-0.1"], "fs.aging.fill");
        refused("", &["fs.aging.file_size=100"], "fs.aging.file_size");
        refused("", &["fs.aging.volume=5000"], "fs.aging.volume");
        refused("", &["fs.aging.ops=10", "fs.layout=fragmented"], "fs.aging");
        refused("", &["fs.aging.ops=10", "fs.file_gap=4096"], "fs.aging");
        refused("", &["fs.aging.ops=10", "fs.placement=mballoc"], "fs.placement");
        let e = refused("", &["workload.streams=4\nreadahead.max=\"512KiB\""], "workload.streams");
        assert!(e.contains("holds more than one"), "{e}");
        refused("", &["fs.placement=ext4"], "fs.placement");
        assert_eq!(
            Config::from_toml("[fs]\nplacement = \"mballoc\"\n", &[]).unwrap().fs.placement,
            Placement::Mballoc
        );
        refused("", &["fs.aging.age=10"], "fs.aging.age");
        refused("", &["fs.aging=-1"], "fs.aging.ops");
        refused("", &["fs.aging.ops=100000001"], "fs.aging.ops");
        let short = Config::from_toml("[fs]\naging = 5000\n", &[]).unwrap();
        assert_eq!(short.fs.aging, AgingConfig { ops: 5000, ..AgingConfig::default() });
        // --set fs.aging=N keeps the file's other aging keys; a key set on the shorthand works
        let kept = Config::from_toml("[fs.aging]\nfill = 0.5\n", &["fs.aging=7".into()]).unwrap();
        assert_eq!((kept.fs.aging.ops, kept.fs.aging.fill), (7, 0.5));
        let more = Config::from_toml("[fs]\naging = 5\n", &["fs.aging.fill=0.4".into()]).unwrap();
        assert_eq!((more.fs.aging.ops, more.fs.aging.fill), (5, 0.4));
        refused("", &["host.memory=4095"], "host.memory");
        refused("", &["workload.streams=0"], "workload.streams");
        let e = refused("", &["workload.streams=4097"], "workload.streams");
        assert!(e.contains("1 to 4096"), "{e}");
        let e = refused("", &["workload.direct=true", "workload.record=1000"], "workload.record");
        assert!(e.contains("512"), "{e}");
        let e = refused("", &["workload.streams=2", "workload.file_size=3TiB"], "workload.file_size");
        assert!(e.contains("1TiB"), "{e}");
        let sets = ["workload.streams=2".to_string(), "workload.file_size=512GiB".to_string()];
        assert!(Config::from_toml("", &sets).is_ok(), "exactly 1TiB in all is allowed");
        let e = refused("", &["readahead.max=6KiB"], "readahead.max");
        assert!(e.contains("6144"), "{e}");
        assert!(Config::from_toml("[readahead]\npolicy='none'\nmax=0", &[]).is_ok());
        refused("", &["block.max_request=6000"], "block.max_request");
        refused("", &["block.max_request=2GiB"], "block.max_request");
        refused("", &["array_cache.size=1000"], "array_cache.size");
        refused("", &["array_cache.prefetch=obl"], "array_cache.prefetch");
        for bad in [
            "delta=0",
            "monitor=0",
            "gate_interval=0",
            "start=1.5",
            "start=nan",
            "transfer_rate=1000",
            "positioning=2s",
        ] {
            let key = format!("array_cache.asp.{}", bad.split('=').next().unwrap());
            refused("", &[format!("array_cache.asp.{bad}").as_str()], &key);
        }
        let asp = ["array_cache.size=1MiB", "array_cache.prefetch=asp", "array.layout=single"];
        let e = refused("", &asp, "array_cache.prefetch");
        assert!(e.contains("asp prefetches whole strips"), "{e}");
        let e = refused(
            "[disk.overrides]\n'Read hit over. after read' = nan",
            &[],
            "disk.overrides.\"Read hit over. after read\"",
        );
        assert!(e.contains("finite"), "{e}");
    }

    #[test]
    fn control_characters_in_names_are_refused() {
        let e = refused("[disk]\nmodel = \"multi\\nline\"", &[], "disk.model");
        assert!(e.contains(r#""multi\nline""#), "{e}");
        refused("[disk]\nmodel = ' '", &[], "disk.model");
        refused("[disk.overrides]\n\"a\\tb\" = 1", &[], r#"disk.overrides."a\tb""#);
    }

    #[test]
    fn quoted_key_parts_in_sets() {
        let sets = vec![
            r#"disk.overrides."Read hit over. after read"=0.2"#.to_string(),
            "disk.overrides.'Seek. time=x' = 3".to_string(),
            r#"disk . overrides . "Quote \"name\" \u00e9" = 1"#.to_string(),
            "disk.overrides.Fast write level=0".to_string(),
            r#""workload".streams=2"#.to_string(),
        ];
        let c = Config::from_toml("", &sets).unwrap();
        let o = &c.disk.overrides;
        assert_eq!(o.get("Read hit over. after read"), Some(&0.2));
        assert_eq!(o.get("Seek. time=x"), Some(&3.0));
        assert_eq!(o.get("Quote \"name\" é"), Some(&1.0));
        assert_eq!(o.get("Fast write level"), Some(&0.0));
        assert_eq!(c.workload.streams, 2);
        for (bad, words) in [
            (r#"disk.overrides."Read hit=0.2"#, "unterminated \""),
            ("disk.overrides.'Read hit=0.2", "unterminated '"),
            (r#"disk.overrides.Read "hit"=0.2"#, "quote the whole part"),
            (r#"disk.overrides."a"b=1"#, "expected `.` or `=` after the key part a"),
            (r#"disk.overrides."\q"=1"#, "bad quoted key part"),
            ("disk..overrides=1", "empty part"),
            ("disk.overrides.=1", "empty part"),
            ("=1", "empty part"),
            (r#"disk.overrides."x""#, "key.path=value"),
        ] {
            let e = Config::from_toml("", &[bad.to_string()]).unwrap_err().to_string();
            assert!(e.contains(words) && !e.contains('\n'), "{bad}: {e}");
        }
        let e = Config::from_toml("[array]\ndisks = 2", &["array.disks.x=1".to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`array.disks`") && e.contains("not a table"), "{e}");
    }

    #[test]
    fn quote_key_quotes_only_what_toml_would() {
        assert_eq!(quote_key("streams"), "streams");
        assert_eq!(quote_key("a-b_c9"), "a-b_c9");
        assert_eq!(quote_key("Read hit over. after read"), "\"Read hit over. after read\"");
        assert_eq!(quote_key(""), "\"\"");
        let odd = "a\"b\\c\nd\u{7}é";
        let quoted = quote_key(odd);
        assert_eq!(quoted, r#""a\"b\\c\nd\u0007é""#);
        // what it writes reads back as the same key, in TOML and in --set
        let t: toml::Table = toml::from_str(&format!("{quoted} = 1")).unwrap();
        assert!(t.contains_key(odd));
        let mut tree = toml::Value::Table(Default::default());
        apply_set(&mut tree, &format!("disk.overrides.{quoted}=1")).unwrap();
        assert_eq!(tree["disk"]["overrides"][odd].as_integer(), Some(1));
    }

    #[test]
    fn json_round_trip_of_sizes_beyond_toml_integers() {
        let c = Config::from_toml("[host]\nmemory = '18446744073709551615'\n[ssd]\ncapacity = '9EiB'", &[])
            .unwrap();
        assert_eq!((c.host.memory.0, c.ssd.capacity.0), (u64::MAX, 9 << 60));
        assert_eq!(Config::from_json(&c.to_json(), &[]).unwrap(), c);
    }

    #[test]
    fn json_null_and_big_plain_integers_are_named() {
        let e = Config::from_json(r#"{"run": {"seed": null}}"#, &[]).unwrap_err().to_string();
        assert!(e.contains("`run.seed`") && e.contains("null"), "{e}");
        let e = Config::from_json(r#"{"run": {"seed": 18446744073709551615}}"#, &[]).unwrap_err().to_string();
        assert!(e.contains("`run.seed`"), "{e}");
        let e =
            Config::from_json(r#"{"run": {"duration": 18446744073709551615}}"#, &[]).unwrap_err().to_string();
        assert!(e.contains("`run.duration`") && e.contains("292 years"), "{e}");
    }

    #[test]
    fn json_round_trip_of_floats_is_exact() {
        // found by fuzz_config: serde_json's default float parser is off by an ulp here
        let c = Config::from_toml("", &[r#"disk.overrides."a=b"=9.807340587455159e17"#.into()]).unwrap();
        assert_eq!(Config::from_json(&c.to_json(), &[]).unwrap(), c);
    }

    #[test]
    fn a_topology_without_clients_resolves_to_one_default_client() {
        let c = Config::from_toml("[[topology.nodes]]\ncount = 2", &[]).unwrap();
        assert_eq!(c.topology.clients, [ClientConfig::default()]);
        assert_eq!(Config::from_json(&c.to_json(), &[]).unwrap(), c);
        let local = Config::from_toml("", &[]).unwrap();
        assert!(local.topology.clients.is_empty(), "no topology, no client");
    }

    #[test]
    fn a_tier_key_of_the_other_kind_is_refused() {
        let node = |upper: &str, lower: &str| {
            format!("[[topology.nodes]]\nupper = {{ {upper} }}\nlower = {{ {lower} }}")
        };
        let e = refused(
            &node("kind = 'ssd'", "kind = 'hdd', read_latency = '1ms'"),
            &[],
            "topology.nodes[0].lower.read_latency",
        );
        assert!(e.contains("kind = \"ssd\" only"), "{e}");
        let e = refused(
            &node("kind = 'ssd', model = 'cheetah-15k5'", "kind = 'hdd'"),
            &[],
            "topology.nodes[0].upper.model",
        );
        assert!(e.contains("kind = \"hdd\" only"), "{e}");
        // each kind's own keys, and a configuration written out and read back
        let c = Config::from_toml(
            &node("kind = 'ssd', read_latency = '1ms'", "kind = 'hdd', model = 'cheetah-15k5'"),
            &[],
        )
        .unwrap();
        assert_eq!(c.topology.nodes[0].upper.read_latency, Duration(1_000_000));
        assert_eq!(Config::from_json(&c.to_json(), &[]).unwrap(), c);
    }

    #[test]
    fn json_round_trip() {
        let c = Config::from_toml("[workload]\nstreams=4", &[]).unwrap();
        let back = Config::from_json(&c.to_json(), &[]).unwrap();
        assert_eq!(c, back);
    }
}
