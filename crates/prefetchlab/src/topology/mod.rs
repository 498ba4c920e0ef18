//! A distributed multi-level system (`[topology]`, issue 11; models.md §4,
//! algorithms.md §8): one client with a buffer cache, a switched network,
//! and storage nodes that each keep an upper level (IPODS's SSD) over a
//! lower one (its HDD), the data striped across the nodes in
//! `topology.block`s. It is assembled here from the same parts as the single
//! host — the [`Hdd`] model or a latency + bandwidth device per tier, the
//! one [`EventQueue`] and clock — and runs the informed policies of
//! [`crate::policy::informed`] on it.
//!
//! **What a run is.** The application reads a hinted sequence of blocks
//! (`workload.kind = "trace"`: each read record's blocks, `offset /
//! block`; `"random"`: `workload.requests` blocks drawn uniformly from
//! `workload.file_size`; `"iozone"`: the file's blocks in order), spending
//! `informed.t_cpu` (IPODS's `T_unit`) between consuming one block and
//! asking for the next. Block `b` lives on node `b mod N` at that node's
//! local block `b div N` of its lower level.
//!
//! * **A fetch** (client ← node) reads the block from the node's upper level
//!   if its copy is there, else from the lower level, then moves it over the
//!   network: a transfer holds the node's and the client's links at once
//!   (cut-through at the switch) for `block / bandwidth`, and arrives both
//!   links' latencies later. Each tier serves one request at a time, in
//!   arrival order.
//! * **No informed policy**: a block is fetched when the application asks
//!   for it and is not in the client's cache.
//! * **TIP** keeps the next `x` hinted blocks fetched or in flight (block
//!   `i + x` is fetched when block `i` is consumed), `x = informed.x_cache`,
//!   or when 0 the prefetch horizon `⌈T_hdd-net / T_unit⌉` (§8.1), at most
//!   half the client's cache. A fixed `x_cache` is how IPODS runs TIP
//!   (decisions.md 9); TIP's cost–benefit allocation against the LRU cache is
//!   the single-host TIP's ([`crate::policy::informed::tip`]).
//! * **IPODS** (§8.2) adds the pipeline: from the plan of
//!   [`ipods::plan`] — `Pstart`, the `Pnext` offset and the depth
//!   `Max_BW − X_cache`, computed from this topology's own nominal times —
//!   it copies hinted blocks `Pstart … Pstart + depth − 1` lower → upper at
//!   time 0, and each time a pipelined block is consumed, the block `offset`
//!   further on (decisions.md 8, 8b), unless that block is on the upper
//!   level already. When the storage system already serves `Max_BW`
//!   requests the copy is not made and the depth shrinks by one (the
//!   paper's bandwidth shortage). A fetch reads the upper level when the
//!   block's copy has arrived by the time the fetch is issued.
//! * **Nominal times** (reported, and IPODS's plan): `T_hdd-net` = one
//!   block read by a fresh lower device at its first block + the network;
//!   `T_ss-net` = the same from the upper device; `T_hdd-ss` = the lower
//!   read + the upper write.
//! * **The client's cache** holds consumed blocks in LRU order (a block read
//!   again is a hit); blocks fetched ahead and not yet consumed are never
//!   evicted.
//!
//! **Metrics**: `elapsed_s` (when the last block was consumed), `stall_s`
//! (the time the application waited past each block's due time), `ssd_hits`
//! (fetches served by an upper level), `hdd_reads` (fetches served by a
//! lower level), and the plan and the nominal times in
//! `block_policy_state`. Not modelled yet: several clients, writes (and
//! IPODS's discarding of a modified pipelined block), TIP ejecting hinted
//! blocks, the network's switch as a bottleneck of its own.

use crate::config::{Config, InformedPolicy, TierConfig, TierKind, WorkloadKind};
use crate::device::hdd::Hdd;
use crate::device::{Device, DiskRequest};
use crate::engine::Progress;
use crate::error::{Error, Result};
use crate::metrics::{Metrics, Report};
use crate::policy::informed::ipods::{self, Access, Copy, Params, Plan, Source, Timeline};
use crate::sim::{EventQueue, Rng, TimeNs};
use crate::trace::Op;
use crate::units::{NS_PER_S, SECTOR_BYTES};
use crate::workload::replay::open_trace;
use std::collections::{BTreeMap, HashMap, VecDeque};

/// The most hinted block reads a run follows.
pub const MAX_HINTED_READS: usize = 50_000_000;

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
        elapsed_ns: t.last_consume_ns,
        stall_ns: t.stall_ns,
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
}

#[derive(Debug, Clone, Copy)]
struct Op2 {
    kind: OpKind,
    block: u64,
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
    /// A fetch's block reached the client.
    Arrived(u32),
    /// The application asks for its next block.
    Due,
}

/// Where a block is, as the client sees it.
const CLIENT_NONE: u8 = 0;
const CLIENT_IN_FLIGHT: u8 = 1;
const CLIENT_PRESENT: u8 = 2;
/// Where a block is on its node's upper level.
const UPPER_NONE: u8 = 0;
const UPPER_COPYING: u8 = 1;
const UPPER_PRESENT: u8 = 2;

struct Topology {
    events: EventQueue<Ev>,
    nodes: Vec<Node>,
    ops: Vec<Op2>,
    free_ops: Vec<u32>,
    block_bytes: u64,
    block_sectors: u32,
    link_ns: u64,
    latency_ns: u64,
    /// When the client's link is free from the switch.
    client_link_free_ns: TimeNs,
    /// The hinted sequence.
    seq: Vec<u64>,
    /// By block: CLIENT_* and UPPER_*.
    client: Vec<u8>,
    upper: Vec<u8>,
    /// Consumed blocks in LRU order (stamp → block) and their stamps.
    lru: BTreeMap<u64, u64>,
    lru_stamp: HashMap<u64, u64>,
    stamp: u64,
    cache_blocks: u64,
    /// Consumed blocks still in the client's cache.
    consumed_present: u64,
    /// Accesses whose block was in the client's cache when due.
    present_at_due: u64,
    t_unit_ns: u64,
    // --- the application ---
    next: usize,
    due_ns: TimeNs,
    waiting: bool,
    /// Sequence index up to which TIP has looked ahead (exclusive).
    ahead: usize,
    depth_tip: usize,
    // --- IPODS ---
    plan: Option<Plan>,
    depth_pipeline: u64,
    /// Sequence indexes whose block was pipelined when planned.
    pipelined: Vec<bool>,
    outstanding: u64,
    max_bw: u64,
    policy: InformedPolicy,
    nominal: Nominal,
    // --- counts ---
    stall_ns: u64,
    ssd_hits: u64,
    hdd_reads: u64,
    copies: u64,
    copies_skipped: u64,
    consumed: u64,
    last_consume_ns: TimeNs,
    // --- the timeline, when kept ---
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
        let seq = hinted_sequence(cfg, block_bytes)?;
        let blocks = seq.iter().copied().max().map_or(0, |b| b + 1);
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
        let cache_blocks = (tc.clients.first().map_or(1 << 30, |c| c.cache.0) / block_bytes).max(1);
        let horizon = nominal.t_hdd_net_ns.div_ceil(t_unit_ns.max(1));
        let depth_tip = match i_cfg.policy {
            InformedPolicy::None => 0,
            _ if i_cfg.x_cache > 0 => i_cfg.x_cache as u64,
            _ => horizon.min((cache_blocks / 2).max(1)).min(crate::config::MAX_INFORMED_DEPTH as u64),
        } as usize;
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
        if depth_tip as u64 > cache_blocks {
            return Err(Error::config(
                "informed.x_cache",
                format!("{depth_tip} blocks fetched ahead do not fit in the client's cache of {cache_blocks} blocks"),
            ));
        }
        let len = seq.len();
        Ok(Topology {
            events: EventQueue::new(),
            nodes,
            ops: Vec::with_capacity(64),
            free_ops: Vec::new(),
            block_bytes,
            block_sectors,
            link_ns,
            latency_ns,
            client_link_free_ns: 0,
            seq,
            client: vec![CLIENT_NONE; blocks as usize],
            upper: vec![UPPER_NONE; blocks as usize],
            lru: BTreeMap::new(),
            lru_stamp: HashMap::new(),
            stamp: 0,
            cache_blocks,
            consumed_present: 0,
            present_at_due: 0,
            t_unit_ns,
            next: 0,
            due_ns: t_unit_ns,
            waiting: false,
            ahead: 0,
            depth_tip,
            depth_pipeline: plan.map_or(0, |p| p.depth),
            plan,
            pipelined: vec![false; len],
            outstanding: 0,
            max_bw,
            policy: i_cfg.policy,
            nominal,
            stall_ns: 0,
            ssd_hits: 0,
            hdd_reads: 0,
            copies: 0,
            copies_skipped: 0,
            consumed: 0,
            last_consume_ns: 0,
            record,
            fetch_ns: if record { vec![0; blocks as usize] } else { Vec::new() },
            arrival_ns: if record { vec![0; blocks as usize] } else { Vec::new() },
            from_upper: if record { vec![false; blocks as usize] } else { Vec::new() },
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

    fn new_op(&mut self, op: Op2) -> u32 {
        self.outstanding += 1;
        if let Some(i) = self.free_ops.pop() {
            self.ops[i as usize] = op;
            i
        } else {
            self.ops.push(op);
            (self.ops.len() - 1) as u32
        }
    }

    fn free_op(&mut self, id: u32) {
        self.outstanding -= 1;
        self.free_ops.push(id);
    }

    /// Queues operation `id` at a tier of `node`, starting it if idle.
    fn enqueue(&mut self, node: u32, upper: bool, id: u32) {
        let now = self.events.now_ns();
        let op = self.ops[id as usize];
        let lba = if upper { 0 } else { self.lba_of(op.block) };
        let write = op.kind == OpKind::Copy && upper;
        let sectors = self.block_sectors;
        let n = &mut self.nodes[node as usize];
        let tier = if upper { &mut n.upper } else { &mut n.lower };
        if tier.serving.is_some() {
            tier.waiting.push_back(id);
            return;
        }
        tier.serving = Some(id);
        let done = tier.dev.serve(lba, sectors, write, now);
        tier.busy_ns += done - now;
        self.events.schedule(done, Ev::TierDone(node, upper));
    }

    /// Fetches `block` for the client.
    fn fetch(&mut self, block: u64) {
        self.client[block as usize] = CLIENT_IN_FLIGHT;
        let upper = self.upper[block as usize] == UPPER_PRESENT;
        if upper {
            self.ssd_hits += 1;
        } else {
            self.hdd_reads += 1;
        }
        let now = self.events.now_ns();
        if self.record {
            self.fetch_ns[block as usize] = now;
            self.from_upper[block as usize] = upper;
        }
        let id = self.new_op(Op2 { kind: OpKind::Fetch, block, seq_index: 0, issue_ns: now, upper });
        let node = self.node_of(block);
        self.enqueue(node, upper, id);
    }

    /// IPODS: copies `block` lower → upper unless it is there, or the
    /// storage system is at Max_BW (then the pipeline loses one request).
    fn pipeline(&mut self, seq_index: usize) {
        let block = self.seq[seq_index];
        if self.upper[block as usize] != UPPER_NONE || self.client[block as usize] == CLIENT_PRESENT {
            return;
        }
        if self.outstanding >= self.max_bw {
            self.depth_pipeline = self.depth_pipeline.saturating_sub(1);
            self.copies_skipped += 1;
            return;
        }
        self.upper[block as usize] = UPPER_COPYING;
        self.copies += 1;
        let issue_ns = self.events.now_ns();
        let id = self.new_op(Op2 {
            kind: OpKind::Copy,
            block,
            seq_index: seq_index as u32,
            issue_ns,
            upper: false,
        });
        let node = self.node_of(block);
        self.enqueue(node, false, id);
    }

    /// TIP, after block `next − 1` was consumed: hinted reads `next …
    /// next + x − 1` are fetched or in flight.
    fn look_ahead(&mut self) {
        let until = (self.next + self.depth_tip).min(self.seq.len());
        self.ahead = self.ahead.max(self.next);
        while self.ahead < until {
            let b = self.seq[self.ahead];
            if self.client[b as usize] == CLIENT_NONE {
                self.fetch(b);
            }
            self.ahead += 1;
        }
    }

    fn run(&mut self, progress: &mut dyn FnMut(&Progress) -> bool) -> Result<()> {
        if self.seq.is_empty() {
            return Ok(());
        }
        // at 0: TIP's first fetches (blocks 1..x in the paper's numbering) and
        // IPODS's first pipeline batch
        let first_x = self.depth_tip.min(self.seq.len());
        for j in 0..first_x {
            let b = self.seq[j];
            if self.client[b as usize] == CLIENT_NONE {
                self.fetch(b);
            }
        }
        self.ahead = first_x;
        if let Some(plan) = self.plan {
            let start = (plan.pstart - 1) as usize;
            for j in start..(start + plan.depth as usize).min(self.seq.len()) {
                self.pipelined[j] = true;
                self.pipeline(j);
            }
        }
        self.events.schedule(self.due_ns, Ev::Due);
        let mut events = 0u64;
        while let Some((_, ev)) = self.events.pop() {
            match ev {
                Ev::Due => self.on_due(),
                Ev::TierDone(node, upper) => self.on_tier_done(node, upper),
                Ev::Arrived(id) => self.on_arrived(id),
            }
            events += 1;
            if events.is_multiple_of(1 << 16) {
                let p = Progress {
                    sim_ns: self.events.now_ns(),
                    duration_ns: 0,
                    requests_done: self.consumed,
                    requests_total: self.seq.len() as u64,
                };
                if !progress(&p) {
                    return Err(Error::Cancelled);
                }
            }
        }
        if self.consumed != self.seq.len() as u64 {
            return Err(Error::Internal(format!(
                "{} of {} hinted reads were never consumed",
                self.seq.len() as u64 - self.consumed,
                self.seq.len()
            )));
        }
        Ok(())
    }

    /// The application asks for block `seq[next]`.
    fn on_due(&mut self) {
        let b = self.seq[self.next];
        match self.client[b as usize] {
            CLIENT_PRESENT => self.consume(),
            CLIENT_IN_FLIGHT => self.waiting = true,
            _ => {
                self.fetch(b);
                self.waiting = true;
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
            tier.serving = Some(next);
            let op = self.ops[next as usize];
            let lba =
                if upper { 0 } else { (op.block / self.nodes.len() as u64) * self.block_sectors as u64 };
            let write = op.kind == OpKind::Copy && upper;
            let n = &mut self.nodes[node as usize];
            let tier = if upper { &mut n.upper } else { &mut n.lower };
            let done = tier.dev.serve(lba, self.block_sectors, write, now);
            tier.busy_ns += done - now;
            self.events.schedule(done, Ev::TierDone(node, upper));
        }
        let op = self.ops[id as usize];
        match (op.kind, upper) {
            (OpKind::Fetch, _) => {
                // the network: node link and client link at once
                let begin = now.max(self.nodes[node as usize].link_free_ns).max(self.client_link_free_ns);
                let end = begin + self.link_ns;
                self.nodes[node as usize].link_free_ns = end;
                self.client_link_free_ns = end;
                self.events.schedule(end + 2 * self.latency_ns, Ev::Arrived(id));
            }
            (OpKind::Copy, false) => {
                self.ops[id as usize].upper = true;
                self.enqueue(node, true, id);
            }
            (OpKind::Copy, true) => {
                self.upper[op.block as usize] = UPPER_PRESENT;
                if self.record {
                    self.copy_rows.push(Copy {
                        block: op.seq_index as u64 + 1,
                        start_ns: op.issue_ns,
                        arrival_ns: now,
                    });
                }
                self.free_op(id);
            }
        }
    }

    fn on_arrived(&mut self, id: u32) {
        let block = self.ops[id as usize].block;
        if self.record {
            self.arrival_ns[block as usize] = self.events.now_ns();
        }
        self.free_op(id);
        self.client[block as usize] = CLIENT_PRESENT;
        if self.waiting && self.seq[self.next] == block {
            self.waiting = false;
            self.consume();
        }
    }

    /// The application consumes `seq[next]` now.
    fn consume(&mut self) {
        let now = self.events.now_ns();
        let j = self.next;
        let b = self.seq[j];
        if now == self.due_ns {
            self.present_at_due += 1;
        }
        self.stall_ns += now - self.due_ns;
        if self.record {
            // a block read again from the client's cache shows its last fetch
            self.accesses.push(Access {
                block: j as u64 + 1,
                fetch_ns: self.fetch_ns[b as usize],
                source: if self.from_upper[b as usize] { Source::Ssd } else { Source::Hdd },
                arrival_ns: self.arrival_ns[b as usize],
                consumed_ns: now,
                stall_ns: now - self.due_ns,
            });
        }
        self.touch(b);
        self.consumed += 1;
        self.last_consume_ns = now;
        if let Some(plan) = self.plan {
            if self.pipelined[j] {
                if self.upper[b as usize] == UPPER_PRESENT {
                    self.upper[b as usize] = UPPER_NONE; // its upper-level slot is handed on
                }
                let k = j + plan.pnext_offset as usize;
                if k < self.seq.len() && !self.pipelined[k] && self.depth_pipeline > 0 {
                    self.pipelined[k] = true;
                    self.pipeline(k);
                }
            }
        }
        self.next += 1;
        if self.next < self.seq.len() {
            self.look_ahead();
            self.due_ns = now + self.t_unit_ns;
            self.events.schedule(self.due_ns, Ev::Due);
        }
    }

    /// `b` was consumed: it becomes the most recently used block of the
    /// client's cache; beyond the cache's size the least recently consumed
    /// blocks leave it (blocks fetched ahead and not consumed never do).
    fn touch(&mut self, b: u64) {
        if let Some(old) = self.lru_stamp.insert(b, self.stamp) {
            self.lru.remove(&old);
        } else {
            self.consumed_present += 1;
        }
        self.lru.insert(self.stamp, b);
        self.stamp += 1;
        while self.consumed_present > self.cache_blocks.saturating_sub(self.depth_tip as u64).max(1) {
            let Some((_, victim)) = self.lru.pop_first() else { break };
            self.lru_stamp.remove(&victim);
            self.consumed_present -= 1;
            if self.client[victim as usize] == CLIENT_PRESENT {
                self.client[victim as usize] = CLIENT_NONE;
            }
        }
    }

    fn report(&self, cfg: &Config, wall_s: f64) -> Report {
        let elapsed_ns = self.last_consume_ns;
        let secs = elapsed_ns as f64 / NS_PER_S as f64;
        let reads = self.seq.len() as u64;
        let bytes = reads * self.block_bytes;
        let ratio = |a: f64, b: f64| if b > 0.0 { a / b } else { 0.0 };
        let busy: u64 = self.nodes.iter().map(|n| n.lower.busy_ns + n.upper.busy_ns).sum();
        let s = |ns: u64| ns as f64 / NS_PER_S as f64;
        let state = serde_json::json!({
            "policy": match self.policy {
                InformedPolicy::None => "none",
                InformedPolicy::Tip => "tip",
                InformedPolicy::Ipods => "ipods",
            },
            "nodes": self.nodes.len(),
            "max_bw": self.max_bw,
            "x_cache": self.depth_tip,
            "t_unit_s": s(self.t_unit_ns),
            "t_hdd_net_s": s(self.nominal.t_hdd_net_ns),
            "t_ss_net_s": s(self.nominal.t_ss_net_ns),
            "t_hdd_ss_s": s(self.nominal.t_hdd_ss_ns),
            "t_net_s": s(self.nominal.t_net_ns),
            "horizon_hdd": self.nominal.t_hdd_net_ns.div_ceil(self.t_unit_ns.max(1)),
            "pstart": self.plan.map(|p| p.pstart),
            "pnext_offset": self.plan.map(|p| p.pnext_offset),
            "depth": self.plan.map(|p| p.depth),
            "depth_at_end": self.plan.map(|_| self.depth_pipeline),
            "max_bw_needed": self.plan.map(|p| p.max_bw_needed),
            "copies": self.copies,
            "copies_skipped": self.copies_skipped,
        });
        let metrics = Metrics {
            bandwidth_mb_s: ratio(bytes as f64 / 1e6, secs),
            iops: ratio(reads as f64, secs),
            app_requests: reads,
            bytes_read: bytes,
            hit_ratio: ratio(self.present_at_due as f64, reads as f64),
            latency_mean_ms: ratio(self.stall_ns as f64 / 1e6, reads as f64),
            disk_requests: self.ssd_hits + self.hdd_reads + 2 * self.copies,
            disk_utilization: ratio(s(busy), secs * 2.0 * self.nodes.len() as f64),
            block_policy_state: state.to_string(),
            sim_time_s: secs,
            elapsed_s: secs,
            stall_s: s(self.stall_ns),
            ssd_hits: self.ssd_hits,
            hdd_reads: self.hdd_reads,
            wall_time_s: wall_s,
            requests_per_wall_s: ratio(reads as f64, wall_s),
            ..Metrics::default()
        };
        Report { config_json: cfg.to_json(), metrics, ..Report::default() }
    }
}

/// The hinted sequence of block reads the application makes.
fn hinted_sequence(cfg: &Config, block_bytes: u64) -> Result<Vec<u64>> {
    let w = &cfg.workload;
    let mut seq = Vec::new();
    match w.kind {
        WorkloadKind::Trace => {
            let mut source = open_trace(cfg)?;
            let mut batch = Vec::with_capacity(4096);
            loop {
                batch.clear();
                if source.next_batch(&mut batch, 4096)? == 0 {
                    break;
                }
                for r in batch.iter().filter(|r| r.op == Op::Read && r.size_bytes > 0) {
                    let first = r.offset_bytes / block_bytes;
                    let last = (r.offset_bytes + r.size_bytes - 1) / block_bytes;
                    seq.extend(first..=last);
                }
                if seq.len() > MAX_HINTED_READS {
                    return Err(Error::config(
                        "workload.path",
                        format!("a topology run follows at most {MAX_HINTED_READS} hinted block reads"),
                    ));
                }
            }
        }
        WorkloadKind::Random => {
            let blocks = (w.file_size.0 / block_bytes).max(1);
            let n = if w.requests > 0 { w.requests } else { blocks };
            if n as usize > MAX_HINTED_READS {
                return Err(Error::config(
                    "workload.requests",
                    format!("at most {MAX_HINTED_READS}, got {n}"),
                ));
            }
            let mut rng = Rng::derive(cfg.run.seed, "stream0");
            seq.extend((0..n).map(|_| rng.below(blocks)));
        }
        _ => {
            let blocks = w.file_size.0.div_ceil(block_bytes);
            if blocks as usize > MAX_HINTED_READS {
                return Err(Error::config(
                    "workload.file_size",
                    format!("at most {MAX_HINTED_READS} blocks"),
                ));
            }
            seq.extend(0..blocks);
        }
    }
    Ok(seq)
}
