//! A distributed multi-level system (`[topology]`, issue 11; models.md §4,
//! algorithms.md §8): clients with a buffer cache each, a switched network,
//! and storage nodes that each keep an upper level (IPODS's SSD) over a
//! lower one (its HDD), the data striped across the nodes in
//! `topology.block`s. It is assembled here from the same parts as the single
//! host — the [`Hdd`] model or a latency + bandwidth device per tier, the
//! one [`EventQueue`] and clock — and runs the informed policies of
//! [`crate::policy::informed`] on it.
//!
//! **What a run is.** Each client's application makes a hinted sequence of
//! block accesses (`workload.kind = "trace"`: each record's blocks, `offset
//! / block`, its writes too with `workload.writes`; `"random"`:
//! `workload.requests` blocks drawn uniformly from `workload.file_size`,
//! each client with draws of its own; `"iozone"`: the file's blocks in
//! order), spending `informed.t_cpu` (IPODS's `T_unit`) between one access
//! and the next. Every client has its own copy of the data set (client `c`'s
//! block `b` is global block `c × D + b`, `D` the blocks of one copy), so
//! clients meet only at the nodes, their links and Max_BW. Global block `b`
//! lives on node `b mod N` at that node's local block `b div N` of its
//! lower level. A timeline ([`run_with_timeline`]) follows client 0.
//!
//! * **A write** (the application modified a block): the client keeps the
//!   block and goes on after `T_unit` (no stall); the block crosses the
//!   network and is written to its node's lower level; an upper-level copy
//!   of it — landed, or on its way (then dropped when it lands) — is
//!   discarded (IPODS: "if a pipelined block is modified, discard its SSD
//!   copy"; `copies_discarded`). TIP does not fetch a block ahead for a
//!   write, nor IPODS copy one.
//!
//! * **A fetch** (client ← node) reads the block from the node's upper level
//!   if its copy is there, else from the lower level, then moves it over the
//!   network: a transfer holds the node's and its client's links at once
//!   (cut-through at the switch) for `block / bandwidth`, and arrives both
//!   links' latencies later. Each tier serves one request at a time, in
//!   arrival order.
//! * **No informed policy**: a block is fetched when the application asks
//!   for it and is not in the client's cache.
//! * **TIP** keeps the client's next `x` hinted reads fetched or in flight
//!   (re-counted after every access), `x = informed.x_cache` — a fixed
//!   `x_cache` is how IPODS runs TIP (decisions.md 9) — or, with 0, by cost
//!   and benefit (§8.1): at most `min(⌈T_hdd-net / T_unit⌉, half the
//!   client's cache, Max_BW)` buffers, deepened only while the stall a
//!   buffer saves beats the hit rate of the LRU buffer it takes, estimated
//!   from demand misses on blocks the client's LRU cache evicted lately
//!   ([`LruEstimator`], the single-host TIP's estimator); the LRU cache
//!   holds what the depth leaves. With `informed.hint_fraction` f < 1, the
//!   `k`-th read record is hinted when `⌊(k+1)·f⌋ > ⌊k·f⌋` (all its blocks);
//!   TIP and IPODS fetch and copy hinted reads only, an unhinted one is read
//!   on demand.
//! * **IPODS** (§8.2) adds the pipeline: from the plan of
//!   [`ipods::plan`] — `Pstart`, the `Pnext` offset and the depth
//!   `Max_BW − X_cache`, computed from this topology's own nominal times —
//!   it copies hinted blocks `Pstart … Pstart + depth − 1` lower → upper at
//!   time 0, and each time a pipelined block is consumed, the block `offset`
//!   further on (decisions.md 8, 8b), unless that block is on the upper
//!   level already. When the storage system already serves `Max_BW`
//!   reads (fetches and copies in flight; writes do not count, Max_BW being
//!   "the concurrent read requests the storage system sustains") the copy
//!   is not made and the depth shrinks by one (the paper's bandwidth
//!   shortage). A fetch reads the upper level when the
//!   block's copy has arrived by the time the fetch is issued.
//! * **Nominal times** (reported, and IPODS's plan): `T_hdd-net` = one
//!   block read by a fresh lower device at its first block + the network;
//!   `T_ss-net` = the same from the upper device; `T_hdd-ss` = the lower
//!   read + the upper write.
//! * **The client's cache** holds accessed blocks in LRU order (a block read
//!   again is a hit) in what TIP's depth leaves of it; the blocks of the
//!   hinted reads TIP looks ahead to — fetched, or found cached and taken
//!   out of the LRU order — are held until their read and never evicted.
//!
//! **Metrics**: `elapsed_s` (when the last block was consumed), `stall_s`
//! (the time the application waited past each block's due time), `ssd_hits`
//! (fetches served by an upper level), `hdd_reads` (fetches served by a
//! lower level), and the plan and the nominal times in
//! `block_policy_state` (with `copies_skipped`, `copies_discarded` and the
//! number of clients); over all clients: `elapsed_s` is when the last one
//! finished, `stall_s` the sum; TIP's depth at the end, its cost–benefit
//! depth and ghost hits, and the hinted reads in `block_policy_state`.
//! Not modelled yet: TIP ejecting hinted blocks to make room (its buffers
//! come from the LRU side only, as on the single host), the network's
//! switch as a bottleneck of its own, clients sharing data.

use crate::config::{Config, InformedPolicy, TierConfig, TierKind, WorkloadKind};
use crate::device::hdd::Hdd;
use crate::device::{Device, DiskRequest};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::metrics::{ratio_of, Metrics, Report};
use crate::policy::informed::ipods::{self, Access, Copy, Params, Plan, Source, Timeline};
use crate::policy::informed::tip::LruEstimator;
use crate::sim::{EventQueue, Rng, TimeNs};
use crate::trace::Op;
use crate::units::{NS_PER_S, SECTOR_BYTES};
use crate::workload::replay::open_trace;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::rc::Rc;

/// The most hinted block accesses a run follows (all clients).
pub const MAX_HINTED_READS: usize = 50_000_000;

/// The most blocks the clients' data sets span in all (a state byte per
/// block and level is kept).
pub const MAX_DATA_BLOCKS: u64 = 200_000_000;

/// Runs `cfg` on its topology.
pub fn run(cfg: &Config, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<Report> {
    let wall = std::time::Instant::now();
    let mut t = Topology::build(cfg, false)?;
    t.run(progress)?;
    Ok(t.report(cfg, wall.elapsed().as_secs_f64()))
}

/// Runs `cfg` on its topology and keeps its timeline, as the paper's
/// Fig. 2 draws it: for each hinted read (numbered from 1 in the
/// sequence) when its block was fetched, from which level, when it
/// arrived and was consumed, and every pipeline copy.
pub fn run_with_timeline(cfg: &Config) -> Result<(Report, Timeline)> {
    if !cfg.topology.is_distributed() {
        return Err(Error::config(
            "topology.nodes",
            "a timeline is kept for a [topology] run: give [[topology.nodes]]",
        ));
    }
    let wall = std::time::Instant::now();
    let mut t = Topology::build(cfg, true)?;
    t.run(&mut |_| true)?;
    let report = t.report(cfg, wall.elapsed().as_secs_f64());
    let timeline = Timeline {
        accesses: std::mem::take(&mut t.accesses),
        copies: std::mem::take(&mut t.copy_rows),
        elapsed_ns: t.clients.first().map_or(0, |c| c.last_consume_ns),
        stall_ns: t.clients.first().map_or(0, |c| c.stall_ns),
    };
    Ok((report, timeline))
}

/// Checks that the topology of `cfg` can be built (drives exist, the data
/// fits on the nodes) without running it.
pub fn check(cfg: &Config) -> Result<()> {
    Topology::build(cfg, false).map(|_| ())
}

/// One tier's device.
enum TierDevice {
    Hdd(Box<Hdd>),
    /// Latency + bytes / bandwidth, per direction.
    Rate {
        read_ns: u64,
        write_ns: u64,
    },
}

impl TierDevice {
    fn build(tier: &TierConfig, block_bytes: u64, rng: Rng, key: &str) -> Result<TierDevice> {
        Ok(match tier.kind {
            TierKind::Hdd => {
                let hdd = Hdd::from_model(&tier.model, true, &BTreeMap::new(), rng)
                    .map_err(|e| Error::config(format!("{key}.model"), e.to_string()))?;
                TierDevice::Hdd(Box::new(hdd))
            }
            TierKind::Ssd => {
                let t =
                    |lat: u64, bw: u64| lat + (block_bytes as u128 * NS_PER_S as u128 / bw as u128) as u64;
                TierDevice::Rate {
                    read_ns: t(tier.read_latency.0, tier.read_bandwidth.0),
                    write_ns: t(tier.write_latency.0, tier.write_bandwidth.0),
                }
            }
        })
    }

    fn capacity_sectors(&self) -> u64 {
        match self {
            TierDevice::Hdd(h) => h.capacity_sectors(),
            TierDevice::Rate { .. } => u64::MAX / SECTOR_BYTES,
        }
    }

    /// Serves one block at `lba` from `start_ns`; returns its completion.
    fn serve(&mut self, lba: u64, sectors: u32, write: bool, start_ns: TimeNs) -> TimeNs {
        match self {
            TierDevice::Hdd(h) => {
                h.service(&DiskRequest { lba_sector: lba, sectors, write }, start_ns).done_ns
            }
            TierDevice::Rate { read_ns, write_ns } => start_ns + if write { *write_ns } else { *read_ns },
        }
    }
}

/// A tier and its FIFO of operations waiting for it.
struct Tier {
    dev: TierDevice,
    waiting: VecDeque<u32>,
    /// The operation being served.
    serving: Option<u32>,
    busy_ns: u64,
}

struct Node {
    upper: Tier,
    lower: Tier,
    /// When the node's link is free towards the switch.
    link_free_ns: TimeNs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OpKind {
    /// Client ← node.
    Fetch,
    /// Lower → upper inside a node (IPODS's pipeline).
    Copy,
    /// Client → node: a block the application modified, written to the
    /// node's lower level.
    Write,
}

#[derive(Debug, Clone, Copy)]
struct Op2 {
    kind: OpKind,
    block: u64,
    /// The client it is for (a copy: whose hinted read it was made for).
    client: u32,
    /// A copy: the hinted read (sequence index) it was made for.
    seq_index: u32,
    issue_ns: TimeNs,
    /// A fetch served by the upper level; a copy writing the upper level.
    upper: bool,
}

#[derive(Debug, Clone, Copy)]
enum Ev {
    /// The tier (node, upper?) finished the operation it was serving.
    TierDone(u32, bool),
    /// A fetch's block reached its client.
    Arrived(u32),
    /// A written block reached its storage node.
    WriteArrived(u32),
    /// A client's application asks for its next block.
    Due(u32),
}

/// Where a block is, as its client sees it.
const CLIENT_NONE: u8 = 0;
const CLIENT_IN_FLIGHT: u8 = 1;
const CLIENT_PRESENT: u8 = 2;
/// Where a block is on its node's upper level.
const UPPER_NONE: u8 = 0;
const UPPER_COPYING: u8 = 1;
const UPPER_PRESENT: u8 = 2;
/// Being copied, but modified since: dropped when the copy lands.
const UPPER_STALE: u8 = 3;

/// One client: its application (a hinted sequence), buffer cache, link and
/// informed policy state.
struct Client {
    /// The hinted sequence in the client's copy of the data (shared by the
    /// clients that read the same one); [`Client::block`] is global.
    seq: Rc<[u64]>,
    /// The client's copy of the data starts at this global block.
    base: u64,
    /// Which accesses write their block (empty: none does).
    writes: Rc<[bool]>,
    /// Which accesses are hinted (`informed.hint_fraction`; empty: all).
    hinted: Rc<[bool]>,
    /// Accessed blocks in the LRU cache, in LRU order (stamp → block), and
    /// their stamps.
    lru: BTreeMap<u64, u64>,
    lru_stamp: HashMap<u64, u64>,
    stamp: u64,
    cache_blocks: u64,
    /// Reads whose block was in the cache when due.
    present_at_due: u64,
    next: usize,
    due_ns: TimeNs,
    waiting: bool,
    /// Sequence index up to which TIP has looked ahead (exclusive).
    ahead: usize,
    /// Accesses in `next..ahead` TIP fetches for (hinted reads).
    eligible_ahead: usize,
    /// TIP's depth: fixed (`x_cache`), or the most the cost–benefit
    /// allocation may reach when `lru` is kept.
    depth_tip: usize,
    /// TIP's LRU-side estimator when its depth is allocated by cost and
    /// benefit (`x_cache = 0`).
    lru_est: Option<LruEstimator>,
    depth_pipeline: u64,
    /// Sequence indexes whose block was pipelined when planned.
    pipelined: Vec<bool>,
    /// When the client's link is free from the switch.
    link_free_ns: TimeNs,
    stall_ns: u64,
    consumed: u64,
    last_consume_ns: TimeNs,
}

impl Client {
    /// The global block of access `j`.
    #[inline]
    fn block(&self, j: usize) -> u64 {
        self.base + self.seq[j]
    }

    fn is_write(&self, j: usize) -> bool {
        self.writes.get(j).copied().unwrap_or(false)
    }

    fn is_hinted(&self, j: usize) -> bool {
        self.hinted.get(j).copied().unwrap_or(true)
    }

    /// Whether TIP fetches access `j` ahead: a hinted read.
    fn eligible(&self, j: usize) -> bool {
        self.is_hinted(j) && !self.is_write(j)
    }

    /// TIP's depth now: `x_cache`, or `min(P, x*, cache / 2)` (§8.1).
    fn depth(&self) -> usize {
        match &self.lru_est {
            Some(e) => (self.depth_tip as u64).min(e.depth()) as usize,
            None => self.depth_tip,
        }
    }
}

struct Topology {
    events: EventQueue<Ev>,
    nodes: Vec<Node>,
    ops: Vec<Op2>,
    free_ops: Vec<u32>,
    block_bytes: u64,
    block_sectors: u32,
    link_ns: u64,
    latency_ns: u64,
    clients: Vec<Client>,
    /// By global block: CLIENT_* (each client has blocks of its own) and UPPER_*.
    client_state: Vec<u8>,
    upper: Vec<u8>,
    t_unit_ns: u64,
    plan: Option<Plan>,
    /// Reads in flight in the storage system (fetches and copies; what
    /// Max_BW bounds).
    outstanding: u64,
    max_bw: u64,
    policy: InformedPolicy,
    nominal: Nominal,
    // --- counts ---
    ssd_hits: u64,
    hdd_reads: u64,
    copies: u64,
    copies_skipped: u64,
    /// Upper-level copies dropped because the block was modified.
    discarded: u64,
    writes: u64,
    // --- the timeline (client 0), when kept ---
    record: bool,
    fetch_ns: Vec<TimeNs>,
    arrival_ns: Vec<TimeNs>,
    from_upper: Vec<bool>,
    accesses: Vec<Access>,
    copy_rows: Vec<Copy>,
}

/// The topology's uncontended times for one block (ns).
#[derive(Debug, Clone, Copy, Default)]
struct Nominal {
    t_hdd_net_ns: u64,
    t_ss_net_ns: u64,
    t_hdd_ss_ns: u64,
    t_net_ns: u64,
}

impl Topology {
    fn build(cfg: &Config, record: bool) -> Result<Topology> {
        cfg.check()?;
        let tc = &cfg.topology;
        let block_bytes = tc.block.0;
        // a block that is not whole sectors occupies its last sector in full
        let block_sectors = u32::try_from(block_bytes.div_ceil(SECTOR_BYTES))
            .map_err(|_| Error::config("topology.block", "at most 2^32 - 1 sectors per block"))?;
        // every client, `count` expanded
        let specs = tc.client_specs();
        let caches: Vec<(usize, u64)> =
            specs.iter().enumerate().flat_map(|(i, c)| (0..c.count).map(move |_| (i, c.cache.0))).collect();
        let hinted = hinted_sequences(cfg, block_bytes, caches.len())?;
        let data_blocks = hinted.iter().flat_map(|(s, _, _)| s.iter().copied()).max().map_or(0, |b| b + 1);
        let blocks = data_blocks.saturating_mul(caches.len() as u64);
        if blocks > MAX_DATA_BLOCKS {
            return Err(Error::config(
                "topology.block",
                format!(
                    "the hinted data set spans {data_blocks} blocks of {block_bytes} bytes per client × {} client(s) \
                     = {blocks} blocks, at most {MAX_DATA_BLOCKS}: use a larger topology.block",
                    caches.len()
                ),
            ));
        }
        let n_nodes = tc.node_count();
        let mut nodes = Vec::with_capacity(n_nodes as usize);
        let mut nominal = Nominal::default();
        let bw = tc.network.bandwidth.0;
        let link_ns = (block_bytes as u128 * NS_PER_S as u128 / bw as u128) as u64;
        let latency_ns = tc.network.latency.0;
        nominal.t_net_ns = link_ns + 2 * latency_ns;
        let mut i = 0u64;
        for (spec_i, spec) in tc.nodes.iter().enumerate() {
            for _ in 0..spec.count {
                let key = |tier: &str| format!("topology.nodes[{spec_i}].{tier}");
                let rng = |tier: &str| Rng::derive(cfg.run.seed, &format!("node{i}.{tier}"));
                let upper = TierDevice::build(&spec.upper, block_bytes, rng("upper"), &key("upper"))?;
                let lower = TierDevice::build(&spec.lower, block_bytes, rng("lower"), &key("lower"))?;
                let local_blocks = blocks.div_ceil(n_nodes).max(1);
                let need = local_blocks.saturating_mul(block_sectors as u64);
                if need > lower.capacity_sectors() {
                    return Err(Error::config(
                        format!("topology.nodes[{spec_i}].lower"),
                        format!(
                            "the data set ({blocks} blocks of {block_bytes} bytes over {n_nodes} nodes: {local_blocks} per node) \
                             does not fit on the lower level ({} bytes)",
                            lower.capacity_sectors() * SECTOR_BYTES
                        ),
                    ));
                }
                if i == 0 {
                    // the nominal times, from fresh devices of the first node
                    let mut l = TierDevice::build(&spec.lower, block_bytes, rng("lower"), &key("lower"))?;
                    let mut u = TierDevice::build(&spec.upper, block_bytes, rng("upper"), &key("upper"))?;
                    let lower_read = l.serve(0, block_sectors, false, 0);
                    let upper_read = u.serve(0, block_sectors, false, 0);
                    let mut u2 = TierDevice::build(&spec.upper, block_bytes, rng("upper"), &key("upper"))?;
                    let upper_write = u2.serve(0, block_sectors, true, 0);
                    nominal.t_hdd_net_ns = lower_read + nominal.t_net_ns;
                    nominal.t_ss_net_ns = upper_read + nominal.t_net_ns;
                    nominal.t_hdd_ss_ns = lower_read + upper_write;
                }
                nodes.push(Node {
                    upper: Tier { dev: upper, waiting: VecDeque::new(), serving: None, busy_ns: 0 },
                    lower: Tier { dev: lower, waiting: VecDeque::new(), serving: None, busy_ns: 0 },
                    link_free_ns: 0,
                });
                i += 1;
            }
        }
        let i_cfg = &cfg.informed;
        let t_unit_ns = i_cfg.t_cpu.0;
        let max_bw = cfg.max_bw();
        let horizon = nominal.t_hdd_net_ns.div_ceil(t_unit_ns.max(1));
        let plan = if i_cfg.policy == InformedPolicy::Ipods {
            let p = Params {
                max_bw: max_bw as u32,
                x_cache: i_cfg.x_cache,
                t_unit_ns,
                t_hdd_net_ns: nominal.t_hdd_net_ns,
                t_ss_net_ns: nominal.t_ss_net_ns,
                t_hdd_ss_ns: nominal.t_hdd_ss_ns,
            };
            Some(ipods::plan(&p).map_err(|e| Error::config("informed", e.to_string()))?)
        } else {
            None
        };
        let cost_benefit = i_cfg.policy != InformedPolicy::None && i_cfg.x_cache == 0;
        let mut clients = Vec::with_capacity(caches.len());
        for (c, ((spec_i, cache_bytes), (local, writes, hinted))) in
            caches.into_iter().zip(hinted).enumerate()
        {
            let cache_blocks = (cache_bytes / block_bytes).max(1);
            let depth_tip = match i_cfg.policy {
                InformedPolicy::None => 0,
                _ if i_cfg.x_cache > 0 => i_cfg.x_cache as u64,
                _ => horizon
                    .min((cache_blocks / 2).max(1))
                    .min(max_bw)
                    .min(crate::config::MAX_INFORMED_DEPTH as u64),
            } as usize;
            if depth_tip as u64 > cache_blocks {
                return Err(Error::config(
                    "informed.x_cache",
                    format!(
                        "{depth_tip} blocks fetched ahead do not fit in the cache of topology.clients[{spec_i}] \
                         ({cache_blocks} blocks)"
                    ),
                ));
            }
            let base = c as u64 * data_blocks;
            let len = local.len();
            clients.push(Client {
                seq: local,
                base,
                writes,
                hinted,
                lru: BTreeMap::new(),
                lru_stamp: HashMap::new(),
                stamp: 0,
                cache_blocks,
                present_at_due: 0,
                next: 0,
                due_ns: t_unit_ns,
                waiting: false,
                ahead: 0,
                eligible_ahead: 0,
                depth_tip,
                lru_est: cost_benefit.then(|| LruEstimator::new(depth_tip as u64)),
                depth_pipeline: plan.map_or(0, |p| p.depth),
                pipelined: vec![false; len],
                link_free_ns: 0,
                stall_ns: 0,
                consumed: 0,
                last_consume_ns: 0,
            });
        }
        Ok(Topology {
            events: EventQueue::new(),
            nodes,
            ops: Vec::with_capacity(64),
            free_ops: Vec::new(),
            block_bytes,
            block_sectors,
            link_ns,
            latency_ns,
            clients,
            client_state: vec![CLIENT_NONE; blocks as usize],
            upper: vec![UPPER_NONE; blocks as usize],
            t_unit_ns,
            plan,
            outstanding: 0,
            max_bw,
            policy: i_cfg.policy,
            nominal,
            ssd_hits: 0,
            hdd_reads: 0,
            copies: 0,
            copies_skipped: 0,
            discarded: 0,
            writes: 0,
            record,
            fetch_ns: if record { vec![0; data_blocks as usize] } else { Vec::new() },
            arrival_ns: if record { vec![0; data_blocks as usize] } else { Vec::new() },
            from_upper: if record { vec![false; data_blocks as usize] } else { Vec::new() },
            accesses: Vec::new(),
            copy_rows: Vec::new(),
        })
    }

    fn node_of(&self, block: u64) -> u32 {
        (block % self.nodes.len() as u64) as u32
    }

    fn lba_of(&self, block: u64) -> u64 {
        (block / self.nodes.len() as u64) * self.block_sectors as u64
    }

    /// Whether the timeline follows `block` (client 0's blocks, when kept).
    fn recorded(&self, block: u64) -> bool {
        self.record && (block as usize) < self.fetch_ns.len()
    }

    fn new_op(&mut self, op: Op2) -> u32 {
        // Max_BW bounds the storage system's concurrent reads (§8.2):
        // fetches and pipeline copies, not writes
        self.outstanding += (op.kind != OpKind::Write) as u64;
        if let Some(i) = self.free_ops.pop() {
            self.ops[i as usize] = op;
            i
        } else {
            self.ops.push(op);
            (self.ops.len() - 1) as u32
        }
    }

    fn free_op(&mut self, id: u32) {
        self.outstanding -= (self.ops[id as usize].kind != OpKind::Write) as u64;
        self.free_ops.push(id);
    }

    /// Starts operation `id` on a tier of `node` at `now`.
    fn start_on(&mut self, node: u32, upper: bool, id: u32, now: TimeNs) {
        let op = self.ops[id as usize];
        let lba = if upper { 0 } else { self.lba_of(op.block) };
        let write = (op.kind == OpKind::Copy && upper) || op.kind == OpKind::Write;
        let sectors = self.block_sectors;
        let n = &mut self.nodes[node as usize];
        let tier = if upper { &mut n.upper } else { &mut n.lower };
        tier.serving = Some(id);
        let done = tier.dev.serve(lba, sectors, write, now);
        tier.busy_ns += done - now;
        self.events.schedule(done, Ev::TierDone(node, upper));
    }

    /// Queues operation `id` at a tier of `node`, starting it if idle.
    fn enqueue(&mut self, node: u32, upper: bool, id: u32) {
        let n = &mut self.nodes[node as usize];
        let tier = if upper { &mut n.upper } else { &mut n.lower };
        if tier.serving.is_some() {
            tier.waiting.push_back(id);
            return;
        }
        let now = self.events.now_ns();
        self.start_on(node, upper, id, now);
    }

    /// Moves a block between `client` and `node` over the network: the
    /// transfer holds both links at once (cut-through at the switch) and
    /// lands both latencies after it ends.
    fn transfer(&mut self, client: u32, node: u32) -> TimeNs {
        let now = self.events.now_ns();
        let c = &mut self.clients[client as usize];
        let begin = now.max(self.nodes[node as usize].link_free_ns).max(c.link_free_ns);
        let end = begin + self.link_ns;
        self.nodes[node as usize].link_free_ns = end;
        c.link_free_ns = end;
        end + 2 * self.latency_ns
    }

    /// Fetches `block` for `client`.
    fn fetch(&mut self, client: u32, block: u64) {
        self.client_state[block as usize] = CLIENT_IN_FLIGHT;
        let upper = self.upper[block as usize] == UPPER_PRESENT;
        if upper {
            self.ssd_hits += 1;
        } else {
            self.hdd_reads += 1;
        }
        let now = self.events.now_ns();
        if self.recorded(block) {
            self.fetch_ns[block as usize] = now;
            self.from_upper[block as usize] = upper;
        }
        let id = self.new_op(Op2 { kind: OpKind::Fetch, block, client, seq_index: 0, issue_ns: now, upper });
        let node = self.node_of(block);
        self.enqueue(node, upper, id);
    }

    /// The application of `client` modified `block`: the client keeps it,
    /// sends it to its node's lower level, and an upper-level copy of the
    /// block, landed or on its way, is discarded (IPODS §8.2).
    fn write(&mut self, client: u32, block: u64) {
        self.writes += 1;
        if self.client_state[block as usize] == CLIENT_NONE {
            self.client_state[block as usize] = CLIENT_PRESENT;
        }
        match self.upper[block as usize] {
            UPPER_PRESENT => {
                self.upper[block as usize] = UPPER_NONE;
                self.discarded += 1;
            }
            UPPER_COPYING => self.upper[block as usize] = UPPER_STALE,
            _ => {}
        }
        let now = self.events.now_ns();
        let id = self.new_op(Op2 {
            kind: OpKind::Write,
            block,
            client,
            seq_index: 0,
            issue_ns: now,
            upper: false,
        });
        let node = self.node_of(block);
        let at = self.transfer(client, node);
        self.events.schedule(at, Ev::WriteArrived(id));
    }

    /// IPODS: copies the block of `client`'s hinted access `seq_index` lower
    /// → upper unless it is there, or the access writes it, or the storage
    /// system is at Max_BW (then the pipeline loses one request).
    fn pipeline(&mut self, client: u32, seq_index: usize) {
        let c = &self.clients[client as usize];
        let block = c.block(seq_index);
        if !c.eligible(seq_index)
            || self.upper[block as usize] != UPPER_NONE
            || self.client_state[block as usize] == CLIENT_PRESENT
        {
            return;
        }
        if self.outstanding >= self.max_bw {
            let c = &mut self.clients[client as usize];
            c.depth_pipeline = c.depth_pipeline.saturating_sub(1);
            self.copies_skipped += 1;
            return;
        }
        self.upper[block as usize] = UPPER_COPYING;
        self.copies += 1;
        let issue_ns = self.events.now_ns();
        let id = self.new_op(Op2 {
            kind: OpKind::Copy,
            block,
            client,
            seq_index: seq_index as u32,
            issue_ns,
            upper: false,
        });
        let node = self.node_of(block);
        self.enqueue(node, false, id);
    }

    /// TIP, after `client`'s access `next − 1`: its next `depth` hinted
    /// reads are fetched or in flight (writes and unhinted reads are not
    /// fetched ahead).
    fn look_ahead(&mut self, client: u32) {
        let c = &mut self.clients[client as usize];
        if c.ahead < c.next {
            c.ahead = c.next;
            c.eligible_ahead = 0;
        }
        let depth = c.depth();
        while self.clients[client as usize].eligible_ahead < depth {
            let c = &mut self.clients[client as usize];
            let j = c.ahead;
            if j >= c.seq.len() {
                break;
            }
            c.ahead += 1;
            if !c.eligible(j) {
                continue;
            }
            c.eligible_ahead += 1;
            let b = c.block(j);
            match self.client_state[b as usize] {
                CLIENT_NONE => self.fetch(client, b),
                // a hinted read found in the LRU cache: TIP holds the block
                // for it, out of LRU's reach, as it holds the blocks it fetched
                CLIENT_PRESENT => {
                    if let Some(stamp) = c.lru_stamp.remove(&b) {
                        c.lru.remove(&stamp);
                    }
                }
                _ => {}
            }
        }
    }

    fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<()> {
        let total: u64 = self.clients.iter().map(|c| c.seq.len() as u64).sum();
        for client in 0..self.clients.len() as u32 {
            let c = &mut self.clients[client as usize];
            if c.seq.is_empty() {
                continue;
            }
            // at 0: TIP's first fetches (blocks 1..x in the paper's numbering)
            // and IPODS's first pipeline batch
            c.ahead = 0;
            c.eligible_ahead = 0;
            self.look_ahead(client);
            if let Some(plan) = self.plan {
                let start = (plan.pstart - 1) as usize;
                let len = self.clients[client as usize].seq.len();
                for j in start..(start + plan.depth as usize).min(len) {
                    self.clients[client as usize].pipelined[j] = true;
                    self.pipeline(client, j);
                }
            }
            let due = self.clients[client as usize].due_ns;
            self.events.schedule(due, Ev::Due(client));
        }
        let mut events = 0u64;
        while let Some((_, ev)) = self.events.pop() {
            match ev {
                Ev::Due(c) => self.on_due(c),
                Ev::TierDone(node, upper) => self.on_tier_done(node, upper),
                Ev::Arrived(id) => self.on_arrived(id),
                Ev::WriteArrived(id) => {
                    let node = self.node_of(self.ops[id as usize].block);
                    self.enqueue(node, false, id);
                }
            }
            events += 1;
            if events.is_multiple_of(1 << 16) {
                let p = Progress {
                    sim_ns: self.events.now_ns(),
                    duration_ns: 0,
                    requests_done: self.clients.iter().map(|c| c.consumed).sum(),
                    requests_total: total,
                };
                if !progress(&p) {
                    return Err(Error::Cancelled);
                }
            }
        }
        let consumed: u64 = self.clients.iter().map(|c| c.consumed).sum();
        if consumed != total {
            return Err(Error::Internal(format!(
                "{} of {total} hinted accesses were never made",
                total - consumed
            )));
        }
        Ok(())
    }

    /// The application of `client` makes its next access.
    fn on_due(&mut self, client: u32) {
        let c = &self.clients[client as usize];
        let j = c.next;
        let b = c.block(j);
        if c.is_write(j) {
            self.write(client, b);
            self.consume(client);
            return;
        }
        let state = self.client_state[b as usize];
        if let Some(e) = self.clients[client as usize].lru_est.as_mut() {
            if state == CLIENT_NONE {
                e.missed(b);
            }
            e.read();
        }
        match state {
            CLIENT_PRESENT => self.consume(client),
            CLIENT_IN_FLIGHT => self.clients[client as usize].waiting = true,
            _ => {
                self.fetch(client, b);
                self.clients[client as usize].waiting = true;
            }
        }
    }

    fn on_tier_done(&mut self, node: u32, upper: bool) {
        let now = self.events.now_ns();
        let n = &mut self.nodes[node as usize];
        let tier = if upper { &mut n.upper } else { &mut n.lower };
        let id = tier.serving.take().expect("a tier finished what it served");
        if let Some(next) = tier.waiting.pop_front() {
            // start the next at once (the queue holds its own position)
            self.start_on(node, upper, next, now);
        }
        let op = self.ops[id as usize];
        match (op.kind, upper) {
            (OpKind::Fetch, _) => {
                let at = self.transfer(op.client, node);
                self.events.schedule(at, Ev::Arrived(id));
            }
            (OpKind::Copy, false) => {
                self.ops[id as usize].upper = true;
                self.enqueue(node, true, id);
            }
            (OpKind::Copy, true) => {
                let state = &mut self.upper[op.block as usize];
                if *state == UPPER_STALE {
                    *state = UPPER_NONE;
                    self.discarded += 1;
                } else {
                    *state = UPPER_PRESENT;
                }
                if self.record && op.client == 0 {
                    self.copy_rows.push(Copy {
                        block: op.seq_index as u64 + 1,
                        start_ns: op.issue_ns,
                        arrival_ns: now,
                    });
                }
                self.free_op(id);
            }
            (OpKind::Write, _) => self.free_op(id),
        }
    }

    fn on_arrived(&mut self, id: u32) {
        let Op2 { block, client, .. } = self.ops[id as usize];
        if self.recorded(block) {
            self.arrival_ns[block as usize] = self.events.now_ns();
        }
        self.free_op(id);
        self.client_state[block as usize] = CLIENT_PRESENT;
        let c = &mut self.clients[client as usize];
        if c.waiting && c.block(c.next) == block {
            c.waiting = false;
            self.consume(client);
        }
    }

    /// The application of `client` makes its access `seq[next]` now.
    fn consume(&mut self, client: u32) {
        let now = self.events.now_ns();
        let c = &mut self.clients[client as usize];
        let j = c.next;
        let b = c.block(j);
        let write = c.is_write(j);
        if now == c.due_ns && !write {
            c.present_at_due += 1;
        }
        c.stall_ns += now - c.due_ns;
        if self.record && client == 0 {
            // a block read again from the client's cache shows its last fetch
            self.accesses.push(Access {
                block: j as u64 + 1,
                fetch_ns: self.fetch_ns[b as usize],
                source: if self.from_upper[b as usize] { Source::Ssd } else { Source::Hdd },
                arrival_ns: self.arrival_ns[b as usize],
                consumed_ns: now,
                stall_ns: now - self.clients[0].due_ns,
            });
        }
        self.touch(client, b);
        let c = &mut self.clients[client as usize];
        c.consumed += 1;
        c.last_consume_ns = now;
        if let Some(plan) = self.plan {
            if c.pipelined[j] {
                if self.upper[b as usize] == UPPER_PRESENT {
                    self.upper[b as usize] = UPPER_NONE; // its upper-level slot is handed on
                }
                let k = j + plan.pnext_offset as usize;
                if k < c.seq.len() && !c.pipelined[k] && c.depth_pipeline > 0 {
                    c.pipelined[k] = true;
                    self.pipeline(client, k);
                }
            }
        }
        let c = &mut self.clients[client as usize];
        if j < c.ahead && c.eligible(j) {
            c.eligible_ahead -= 1;
        }
        c.next += 1;
        if c.next < c.seq.len() {
            c.due_ns = now + self.t_unit_ns;
            let due = c.due_ns;
            self.look_ahead(client);
            self.events.schedule(due, Ev::Due(client));
        }
    }

    /// `b` was accessed: it becomes the most recently used block of the
    /// client's cache; beyond the cache's size the least recently accessed
    /// blocks leave it (blocks fetched ahead and not accessed never do).
    fn touch(&mut self, client: u32, b: u64) {
        let c = &mut self.clients[client as usize];
        if let Some(old) = c.lru_stamp.insert(b, c.stamp) {
            c.lru.remove(&old);
        }
        c.lru.insert(c.stamp, b);
        c.stamp += 1;
        let room = c.cache_blocks.saturating_sub(c.depth() as u64).max(1);
        while c.lru.len() as u64 > room {
            let Some((_, victim)) = c.lru.pop_first() else { break };
            c.lru_stamp.remove(&victim);
            if let Some(e) = c.lru_est.as_mut() {
                e.evicted(victim);
            }
            if self.client_state[victim as usize] == CLIENT_PRESENT {
                self.client_state[victim as usize] = CLIENT_NONE;
            }
        }
    }

    fn report(&self, cfg: &Config, wall_s: f64) -> Report {
        let elapsed_ns = self.clients.iter().map(|c| c.last_consume_ns).max().unwrap_or(0);
        let secs = elapsed_ns as f64 / NS_PER_S as f64;
        let accesses: u64 = self.clients.iter().map(|c| c.seq.len() as u64).sum();
        let reads = accesses - self.writes;
        let bytes = reads * self.block_bytes;
        let stall_ns: u64 = self.clients.iter().map(|c| c.stall_ns).sum();
        let present: u64 = self.clients.iter().map(|c| c.present_at_due).sum();
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let busy: u64 = self.nodes.iter().map(|n| n.lower.busy_ns + n.upper.busy_ns).sum();
        let s = |ns: u64| ns as f64 / NS_PER_S as f64;
        let first = self.clients.first();
        let state = serde_json::json!({
            "policy": match self.policy {
                InformedPolicy::None => "none",
                InformedPolicy::Tip => "tip",
                InformedPolicy::Ipods => "ipods",
            },
            "clients": self.clients.len(),
            "nodes": self.nodes.len(),
            "max_bw": self.max_bw,
            "x_cache": first.map_or(0, |c| c.depth_tip),
            "tip_depth_at_end": first.map_or(0, |c| c.depth()),
            "cost_benefit_depth": first.and_then(|c| c.lru_est.as_ref()).map(|e| e.depth()).filter(|&d| d != u64::MAX),
            "lru_ghost_hits": self.clients.iter().filter_map(|c| c.lru_est.as_ref()).map(|e| e.ghost_hits()).sum::<u64>(),
            "hinted_reads": self.clients.iter().map(|c| (0..c.seq.len()).filter(|&j| c.eligible(j)).count()).sum::<usize>(),
            "t_unit_s": s(self.t_unit_ns),
            "t_hdd_net_s": s(self.nominal.t_hdd_net_ns),
            "t_ss_net_s": s(self.nominal.t_ss_net_ns),
            "t_hdd_ss_s": s(self.nominal.t_hdd_ss_ns),
            "t_net_s": s(self.nominal.t_net_ns),
            "horizon_hdd": self.nominal.t_hdd_net_ns.div_ceil(self.t_unit_ns.max(1)),
            "pstart": self.plan.map(|p| p.pstart),
            "pnext_offset": self.plan.map(|p| p.pnext_offset),
            "depth": self.plan.map(|p| p.depth),
            "depth_at_end": self.plan.map(|_| self.clients.iter().map(|c| c.depth_pipeline).min().unwrap_or(0)),
            "max_bw_needed": self.plan.map(|p| p.max_bw_needed),
            "copies": self.copies,
            "copies_skipped": self.copies_skipped,
            "copies_discarded": self.discarded,
        });
        let metrics = Metrics {
            bandwidth_mb_s: ratio(bytes as f64 / 1e6, secs),
            iops: ratio(accesses as f64, secs),
            app_requests: accesses,
            writes: self.writes,
            bytes_read: bytes,
            bytes_written: self.writes * self.block_bytes,
            write_bandwidth_mb_s: ratio((self.writes * self.block_bytes) as f64 / 1e6, secs),
            hit_ratio: ratio_of(present as f64, reads as f64),
            latency_mean_ms: ratio_of(stall_ns as f64 / 1e6, reads as f64),
            latency_samples: reads,
            disk_requests: self.ssd_hits + self.hdd_reads + 2 * self.copies + self.writes,
            disk_utilization: ratio(s(busy), secs * 2.0 * self.nodes.len() as f64),
            block_policy_state: state.to_string(),
            readahead_policy_state: "{}".into(),
            sim_time_s: secs,
            elapsed_s: secs,
            stall_s: s(stall_ns),
            ssd_hits: self.ssd_hits,
            hdd_reads: self.hdd_reads,
            wall_time_s: wall_s,
            requests_per_wall_s: ratio(accesses as f64, wall_s),
            ..Metrics::default()
        };
        Report { config_json: cfg.to_json(), metrics, ..Report::default() }
    }
}

/// Each client's hinted sequence (its blocks numbered from 0 in its own
/// copy of the data set), which of its accesses write (empty: none), and
/// which are hinted (empty: all): a trace's records in order, each
/// record's blocks (its writes too with `workload.writes`), the same for
/// every client; `random`: `requests` blocks drawn from `file_size`, each
/// client with draws of its own; otherwise the file's blocks in order.
/// With `informed.hint_fraction` f < 1 the `k`-th read record is hinted
/// when `⌊(k+1)·f⌋ > ⌊k·f⌋`, all its blocks with it (the single host's
/// rule; a block of `random` or `iozone` is one record).
type Hinted = (Rc<[u64]>, Rc<[bool]>, Rc<[bool]>);

fn hinted_sequences(cfg: &Config, block_bytes: u64, clients: usize) -> Result<Vec<Hinted>> {
    let w = &cfg.workload;
    let f = cfg.informed.hint_fraction;
    let hint = |k: u64| f >= 1.0 || ((k + 1) as f64 * f).floor() > (k as f64 * f).floor();
    let too_many = |key: &str, n: u64| {
        Error::config(
            key,
            format!(
                "a topology run follows at most {MAX_HINTED_READS} hinted block accesses in all, got {n} \
                 ({clients} client(s))"
            ),
        )
    };
    let per_block = |n: usize| -> Rc<[bool]> {
        if f < 1.0 {
            (0..n as u64).map(hint).collect()
        } else {
            Rc::from([])
        }
    };
    match w.kind {
        WorkloadKind::Trace => {
            let mut source = open_trace(cfg)?;
            let mut batch = Vec::with_capacity(4096);
            let (mut seq, mut writes, mut hinted) = (Vec::new(), Vec::new(), Vec::new());
            let mut reads = 0u64;
            loop {
                batch.clear();
                if source.next_batch(&mut batch, 4096)? == 0 {
                    break;
                }
                for r in batch.iter().filter(|r| r.size_bytes > 0 && (r.op == Op::Read || w.writes)) {
                    let first = r.offset_bytes / block_bytes;
                    let last = (r.offset_bytes + r.size_bytes - 1) / block_bytes;
                    let read = r.op == Op::Read;
                    let h = !read || hint(reads);
                    reads += read as u64;
                    seq.extend(first..=last);
                    writes.extend((first..=last).map(|_| !read));
                    hinted.extend((first..=last).map(|_| h));
                }
                if seq.len().saturating_mul(clients) > MAX_HINTED_READS {
                    return Err(too_many("workload.path", (seq.len() * clients) as u64));
                }
            }
            if !writes.contains(&true) {
                writes = Vec::new();
            }
            if f >= 1.0 {
                hinted = Vec::new();
            }
            // one copy, shared by every client
            Ok(vec![(seq.into(), writes.into(), hinted.into()); clients])
        }
        WorkloadKind::Random => {
            let blocks = (w.file_size.0 / block_bytes).max(1);
            let n = if w.requests > 0 { w.requests } else { blocks };
            if n.saturating_mul(clients as u64) > MAX_HINTED_READS as u64 {
                return Err(too_many("workload.requests", n.saturating_mul(clients as u64)));
            }
            Ok((0..clients)
                .map(|c| {
                    let mut rng = Rng::derive(cfg.run.seed, &format!("stream{c}"));
                    ((0..n).map(|_| rng.below(blocks)).collect(), Rc::from([]), per_block(n as usize))
                })
                .collect())
        }
        _ => {
            let blocks = w.file_size.0.div_ceil(block_bytes);
            if blocks.saturating_mul(clients as u64) > MAX_HINTED_READS as u64 {
                return Err(too_many("workload.file_size", blocks.saturating_mul(clients as u64)));
            }
            Ok(vec![((0..blocks).collect(), Rc::from([]), per_block(blocks as usize)); clients])
        }
    }
}
