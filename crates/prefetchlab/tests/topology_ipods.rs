//! IPODS and TIP on a distributed topology (issue 11; algorithms.md §8.2),
//! through the topology's devices, network and event queue.

use prefetchlab::policy::informed::ipods::{self, Source};
use prefetchlab::topology::run_with_timeline;
use prefetchlab::{simulate, Config};

const S: u64 = 1_000_000_000;
/// `300MB` in a configuration: 300 MiB.
const BLOCK: u64 = 300 << 20;

/// [IPODS] Fig. 2 on devices whose times are the figure's: 300 MB blocks,
/// lower level 60 MB/s (5 s, T_hdd-net), upper level reads 75 MB/s (4 s,
/// T_ss-net) and writes 100 MB/s (T_hdd-ss = 5 + 3 = 8 s), a network too
/// fast to count, T_unit = 1 s, Max_BW = 5, X_cache = 2; 20 nodes, so that
/// no two of the figure's blocks share a node (the step model has no
/// contention).
fn fig2(policy: &str, blocks: u64) -> String {
    format!(
        "[topology]\nblock = '300MB'\n[topology.network]\nlatency = 0\nbandwidth = '1EiB'\n\
         [[topology.nodes]]\ncount = 20\n\
         upper = {{ kind = 'ssd', read_latency = 0, read_bandwidth = '75MB', write_latency = 0, write_bandwidth = '100MB' }}\n\
         lower = {{ kind = 'ssd', read_latency = 0, read_bandwidth = '60MB', write_latency = 0, write_bandwidth = '60MB' }}\n\
         [informed]\npolicy = '{policy}'\nmax_bw = 5\nx_cache = 2\nt_cpu = '1s'\n\
         [workload]\nkind = 'iozone'\nstreams = 1\nfile_size = '{}MB'\n",
        blocks * 300
    )
}

#[test]
fn ipods_fig2_through_the_topology() {
    let cfg = Config::from_toml(&fig2("ipods", 9), &[]).unwrap();
    let (report, t) = run_with_timeline(&cfg).unwrap();
    let consumed: Vec<u64> = t.accesses.iter().map(|a| a.consumed_ns / S).collect();
    assert_eq!(&consumed[..7], &[5, 6, 10, 11, 14, 15, 18], "{:?}", t.accesses);
    let copies: Vec<(u64, u64, u64)> =
        t.copies.iter().map(|c| (c.block, c.start_ns / S, c.arrival_ns / S)).collect();
    assert_eq!(&copies[..3], &[(5, 0, 8), (6, 0, 8), (7, 0, 8)]);
    // the next pipelined reads are 11, 12, 13, copied when 5, 6, 7 are consumed
    let next: Vec<(u64, u64)> = t.copies[3..].iter().map(|c| (c.block, c.start_ns / S)).collect();
    assert!(next.iter().all(|&(b, _)| b > 9), "beyond the 9 reads: {next:?}");
    assert!(t.accesses[4..7].iter().all(|a| a.source == Source::Ssd));
    assert!(t.accesses[..4].iter().all(|a| a.source == Source::Hdd));
    // stalls: 4 before the first block, then 3 per two HDD reads, 2 per two SSD reads
    let stalls: Vec<u64> = t.accesses.iter().map(|a| a.stall_ns / S).collect();
    assert_eq!(&stalls[..7], &[4, 0, 3, 0, 2, 0, 2]);
    let m = &report.metrics;
    assert_eq!(m.ssd_hits, 3);
    assert_eq!(m.hdd_reads, 6);
    assert_eq!(m.elapsed_s, t.elapsed_ns as f64 / 1e9);
    let state: serde_json::Value = serde_json::from_str(&m.block_policy_state).unwrap();
    assert_eq!(
        (state["pstart"].as_u64(), state["pnext_offset"].as_u64(), state["depth"].as_u64()),
        (Some(5), Some(6), Some(3))
    );
    assert_eq!(state["t_hdd_net_s"].as_f64(), Some(5.0));
    assert_eq!(state["t_hdd_ss_s"].as_f64(), Some(8.0));
    // the same as the paper's step model
    let p = ipods::Params {
        max_bw: 5,
        x_cache: 2,
        t_unit_ns: S,
        t_hdd_net_ns: 5 * S,
        t_ss_net_ns: 4 * S,
        t_hdd_ss_ns: 8 * S,
    };
    let model = ipods::timeline(&p, 9, true).unwrap();
    let model_consumed: Vec<u64> = model.accesses.iter().map(|a| a.consumed_ns / S).collect();
    assert_eq!(consumed[..7], model_consumed[..7]);
}

#[test]
fn tip_alone_reads_every_block_from_the_lower_level() {
    let cfg = Config::from_toml(&fig2("tip", 9), &[]).unwrap();
    let (report, t) = run_with_timeline(&cfg).unwrap();
    assert!(t.copies.is_empty());
    assert_eq!(report.metrics.ssd_hits, 0);
    assert_eq!(report.metrics.hdd_reads, 9);
    let consumed: Vec<u64> = t.accesses.iter().map(|a| a.consumed_ns / S).collect();
    assert_eq!(&consumed[..6], &[5, 6, 10, 11, 15, 16]);
    let ipods = simulate(&Config::from_toml(&fig2("ipods", 9), &[]).unwrap()).unwrap();
    assert!(ipods.metrics.elapsed_s < report.metrics.elapsed_s);
    let none = simulate(&Config::from_toml(&fig2("none", 9), &[]).unwrap()).unwrap();
    assert!(report.metrics.elapsed_s < none.metrics.elapsed_s);
    assert_eq!(none.metrics.stall_s, 9.0 * 5.0, "every read waits T_hdd-net");
}

#[test]
fn bad_topologies_are_refused_naming_the_key() {
    let base = fig2("ipods", 9);
    for (find, replace, key) in [
        ("x_cache = 2", "x_cache = 6", "informed.x_cache"),
        ("x_cache = 2", "x_cache = 5", "informed.x_cache"),
        ("count = 20", "count = 0", "topology.nodes"),
        ("bandwidth = '1EiB'", "bandwidth = 0", "topology.network.bandwidth"),
        ("t_cpu = '1s'", "t_cpu = 0", "informed.t_cpu"),
        ("read_bandwidth = '60MB'", "read_bandwidth = 0", "topology.nodes[0].lower.read_bandwidth"),
        ("[informed]", "[[topology.clients]]\ncount = 0\n[informed]", "topology.clients"),
        ("[informed]", "[[topology.clients]]\ncount = 2000\n[informed]", "topology.clients"),
    ] {
        let toml = base.replace(find, replace);
        let err = Config::from_toml(&toml, &[])
            .map(|_| ())
            .and_then(|_| simulate(&Config::from_toml(&toml, &[]).unwrap()).map(|_| ()));
        let msg = err.unwrap_err().to_string();
        assert!(msg.contains(key), "{replace}: {msg}");
    }
    // IPODS without a topology
    let err = Config::from_toml("[informed]\npolicy = 'ipods'\nx_cache = 1", &[]).unwrap_err().to_string();
    assert!(err.contains("informed.policy") && err.contains("[topology]"), "{err}");
}

#[test]
fn a_data_set_larger_than_the_nodes_is_refused() {
    let toml = "[topology]\nblock = '200MB'\n[[topology.nodes]]\ncount = 2\n\
                upper = { kind = 'ssd' }\nlower = { kind = 'hdd', model = 'cheetah-15k5' }\n\
                [workload]\nkind = 'iozone'\nstreams = 1\nfile_size = '400GB'\n";
    let err = simulate(&Config::from_toml(toml, &[]).unwrap()).unwrap_err().to_string();
    assert!(err.contains("topology.nodes[0].lower") && err.contains("does not fit"), "{err}");
}

/// A single-host run is the engine's as before: no topology, the same figures.
#[test]
fn single_host_runs_do_not_see_the_topology() {
    let toml = "[array]\nlayout = 'raid0'\ndisks = 2\n[workload]\nstreams = 2\nfile_size = '4MiB'\n";
    let m = simulate(&Config::from_toml(toml, &[]).unwrap()).unwrap().metrics;
    assert_eq!(m.elapsed_s, m.sim_time_s);
    assert_eq!((m.ssd_hits, m.hdd_reads, m.stall_s), (0, 0, 0.0));
    assert!(m.disk_requests > 0);
}

/// Several clients: each reads its own copy of the data set, with its own
/// cache, link and TIP/IPODS state. Over nodes that no two clients' blocks
/// share, two clients take as long as one and read twice the bytes; over
/// fewer nodes they contend for them and take longer; and they share the
/// storage system's Max_BW, so IPODS's pipeline meets a bandwidth shortage
/// it does not meet with one client.
#[test]
fn several_clients_share_the_storage_nodes() {
    let clients = |n: u32, toml: &str| {
        let toml = toml
            .replace("[informed]", &format!("[[topology.clients]]\ncount = {n}\ncache = '1GiB'\n[informed]"));
        simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap().metrics
    };
    let one = clients(1, &fig2("tip", 9));
    let two = clients(2, &fig2("tip", 9));
    let default = simulate(&Config::from_toml(&fig2("tip", 9), &[]).unwrap()).unwrap().metrics;
    assert_eq!(
        (one.elapsed_s, one.stall_s, one.hdd_reads),
        (default.elapsed_s, default.stall_s, default.hdd_reads)
    );
    assert_eq!(two.bytes_read, 2 * one.bytes_read);
    assert_eq!(two.elapsed_s, one.elapsed_s, "18 blocks on 20 nodes: no contention");
    let few = fig2("tip", 9).replace("count = 20", "count = 3");
    let (one_few, two_few) = (clients(1, &few), clients(2, &few));
    assert!(two_few.elapsed_s > one_few.elapsed_s, "{} vs {}", two_few.elapsed_s, one_few.elapsed_s);
    let skipped = |m: &prefetchlab::metrics::Metrics| {
        let s: serde_json::Value = serde_json::from_str(&m.block_policy_state).unwrap();
        s["copies_skipped"].as_u64().unwrap()
    };
    assert_eq!(skipped(&clients(1, &fig2("ipods", 9))), 0);
    assert!(skipped(&clients(2, &fig2("ipods", 9))) > 0, "2 × (X_cache 2 + depth 3) > Max_BW 5");
}

/// Writes in the hinted sequence (a trace's, `workload.writes`): the
/// application modifies block 6 at its third access while IPODS's first
/// batch is copying block 6 (hinted access 7) to the upper level; that
/// copy is discarded when it lands, so access 7 reads block 6 from the
/// lower level. With the write replaced by a read of another block, the
/// copy serves access 7 from the upper level.
#[test]
fn a_modified_pipelined_block_loses_its_upper_copy() {
    let run = |write: bool| {
        let blocks = [0u64, 1, 6, 2, 3, 4, 6, 7, 8];
        let dir =
            std::env::temp_dir().join(format!("prefetchlab-ipods-write-{}-{write}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("hints.csv");
        let lines: Vec<String> = blocks
            .iter()
            .enumerate()
            .map(|(i, &b)| {
                let (op, b) = if i == 2 {
                    if write {
                        ("Write", b)
                    } else {
                        ("Read", 15)
                    }
                } else {
                    ("Read", b)
                };
                format!("{},h,0,{op},{},4096,0", 1000 + i, b * BLOCK)
            })
            .collect();
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let toml = fig2("ipods", 9).replace(
            "[workload]\nkind = 'iozone'\nstreams = 1\nfile_size = '2700MB'\n",
            &format!("[workload]\nkind = 'trace'\nformat = 'msr'\npath = '{}'\n", path.display()),
        );
        let cfg = Config::from_toml(&toml, &[]).unwrap();
        let (report, t) = run_with_timeline(&cfg).unwrap();
        std::fs::remove_dir_all(&dir).ok();
        (report.metrics, t)
    };
    let (m, t) = run(true);
    let state: serde_json::Value = serde_json::from_str(&m.block_policy_state).unwrap();
    assert_eq!((m.writes, m.app_requests, state["copies_discarded"].as_u64()), (1, 9, Some(1)));
    assert_eq!(m.bytes_written, BLOCK);
    assert_eq!(t.accesses[6].source, Source::Hdd, "{:?}", t.accesses);
    assert_eq!(t.accesses[2].stall_ns, 0, "a write does not wait");
    let (r, t) = run(false);
    assert_eq!((r.writes, r.app_requests), (0, 9));
    assert_eq!(t.accesses[6].source, Source::Ssd, "{:?}", t.accesses);
}

/// TIP's cost–benefit allocation on a topology (`x_cache = 0`, §8.1): half
/// the reads hinted (`hint_fraction`), a working set of 64 blocks and a
/// 40-block client cache. The unhinted reads miss on blocks the LRU cache
/// evicted lately, so its marginal buffers are worth keeping: TIP settles
/// below its cap of 20 buffers (half the cache) and finishes sooner than
/// with the cap fixed; with every read hinted it finishes sooner still.
#[test]
fn tip_allocates_its_buffers_by_cost_and_benefit_on_a_topology() {
    let toml = "[topology]\nblock = '1MiB'\n[[topology.clients]]\ncache = '40MiB'\n\
                [topology.network]\nlatency = 0\nbandwidth = '1EiB'\n\
                [[topology.nodes]]\ncount = 8\nupper = { kind = 'ssd' }\n\
                lower = { kind = 'ssd', read_latency = '5ms', read_bandwidth = '200MB', write_latency = '5ms', write_bandwidth = '200MB' }\n\
                [informed]\npolicy = 'tip'\nx_cache = 0\nmax_bw = 64\nt_cpu = '0.1ms'\nhint_fraction = 0.5\n\
                [workload]\nkind = 'random'\nfile_size = '64MiB'\nrequests = 20000\n";
    let run = |sets: &[&str]| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let m = simulate(&Config::from_toml(toml, &sets).unwrap()).unwrap().metrics;
        let s: serde_json::Value = serde_json::from_str(&m.block_policy_state).unwrap();
        (m, s)
    };
    let (cb, s) = run(&[]);
    assert_eq!(s["hinted_reads"].as_u64(), Some(10_000));
    assert_eq!(s["x_cache"].as_u64(), Some(20), "the cap: half the 40-block cache");
    let depth = s["cost_benefit_depth"].as_u64().unwrap();
    assert!(depth > 1 && depth < 20 && s["lru_ghost_hits"].as_u64().unwrap() > 0, "{s}");
    let (fixed, _) = run(&["informed.x_cache=20"]);
    assert!(cb.elapsed_s < fixed.elapsed_s, "{} vs {}", cb.elapsed_s, fixed.elapsed_s);
    assert!(cb.hit_ratio.unwrap() > fixed.hit_ratio.unwrap());
    let (all, _) = run(&["informed.hint_fraction=1"]);
    assert!(all.elapsed_s < cb.elapsed_s, "every read hinted: {} vs {}", all.elapsed_s, cb.elapsed_s);
}
