//! TIP on a single host (issue 11, "What it must show" 3): a 5-disk RAID-0
//! of the default drive with a 64 MiB array cache replays a hinted
//! random-read trace in closed loop (1 ms of compute between reads). TIP,
//! fetching the hinted reads up to its horizon ahead, must finish in well
//! under the time of no prefetching and of Linux readahead at the array
//! (which cannot help random reads); hinting half the reads lands between.

mod common;

use prefetchlab::config::{BlockPrefetchPolicy, Config, InformedPolicy, Layout, Replay, WorkloadKind};
use prefetchlab::metrics::Report;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// 2,000 random 4 KiB reads over the first 2 GiB (a fixed linear
/// congruential sequence), as an SPC trace.
fn random_trace(test: &str) -> PathBuf {
    let mut x: u64 = 12345;
    let mut text = String::new();
    for i in 0..2000 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let block = (x >> 33) % (2 << 30 >> 12);
        text.push_str(&format!("0,{},4096,R,{:.3}\n", block * 8, i as f64 * 0.001));
    }
    common::temp_file("tip", &format!("random-{test}.spc"), &text) // one per test: tests run at once
}

fn config(trace: &Path) -> Config {
    let mut c = Config::default();
    c.array.layout = Layout::Raid0;
    c.array.disks = 5;
    c.array.strip.0 = 64 << 10;
    c.array_cache.size.0 = 64 << 20;
    c.workload.kind = WorkloadKind::Trace;
    c.workload.path = trace.display().to_string();
    c.workload.format = "spc".into();
    c.workload.replay = Replay::Closed;
    c
}

fn run(c: &Config) -> Report {
    prefetchlab::simulate(c).unwrap_or_else(|e| panic!("{e}"))
}

fn tip(trace: &Path, hint_fraction: f64) -> Config {
    let mut c = config(trace);
    c.informed.policy = InformedPolicy::Tip;
    c.informed.t_cpu.0 = 1_000_000;
    c.informed.hint_fraction = hint_fraction;
    c
}

#[test]
fn tip_beats_no_prefetching_and_readahead_on_a_hinted_random_trace() {
    let trace = random_trace("beats");
    let mut none = config(&trace);
    none.workload.think_time.0 = 1_000_000;
    let mut linux = none.clone();
    linux.array_cache.prefetch = BlockPrefetchPolicy::Linux;
    let (none, linux) = (run(&none), run(&linux));
    let (all, half) = (run(&tip(&trace, 1.0)), run(&tip(&trace, 0.5)));
    let elapsed = |r: &Report| r.metrics.sim_time_s;
    // measured: none 8.08 s, readahead 8.08 s, TIP 2.67 s, TIP with half the reads hinted 5.35 s
    assert!(elapsed(&all) < 0.5 * elapsed(&none), "TIP {} s vs none {} s", elapsed(&all), elapsed(&none));
    assert!(
        elapsed(&all) < 0.5 * elapsed(&linux),
        "TIP {} s vs readahead {} s",
        elapsed(&all),
        elapsed(&linux)
    );
    assert!(elapsed(&all) < elapsed(&half) && elapsed(&half) < elapsed(&none));
    assert_eq!(all.metrics.app_requests, 2000);
    let s: Value = serde_json::from_str(&all.metrics.block_policy_state).unwrap();
    assert_eq!(s["hinted_reads"], 2000);
    assert!(s["prefetches"].as_u64().unwrap() > 1900, "{s}");
    // the horizon follows the measured disk time: ⌈T_disk / 1 ms⌉
    let t_disk_ms = s["t_disk_ms"].as_f64().unwrap();
    assert_eq!(s["horizon_reads"].as_u64().unwrap(), t_disk_ms.ceil() as u64, "{s}");
    let h: Value = serde_json::from_str(&half.metrics.block_policy_state).unwrap();
    assert_eq!(h["hinted_reads"], 1000, "every other read hinted");
}

#[test]
fn tip_with_prefetch_buffers_fetches_no_further_than_x_cache() {
    let trace = random_trace("x_cache");
    let mut c = tip(&trace, 1.0);
    c.informed.x_cache = 2;
    let r = run(&c);
    let s: Value = serde_json::from_str(&r.metrics.block_policy_state).unwrap();
    assert_eq!((s["x_cache"].as_u64(), s["depth_max_reads"].as_u64()), (Some(2), Some(2)));
    // the same configuration gives the same run
    assert_eq!(run(&c).metrics.sim_time_s, r.metrics.sim_time_s);
}

#[test]
fn tip_refuses_what_it_cannot_serve_naming_the_key() {
    let trace = random_trace("refusals");
    let refused = |c: Config, words: &[&str]| {
        let e = c.check().expect_err("refused").to_string();
        for w in words {
            assert!(e.contains(w), "{w:?} not in {e:?}");
        }
    };
    let mut c = tip(&trace, 1.0);
    c.array_cache.size.0 = 0;
    refused(c, &["`informed.policy`", "array_cache.size"]);
    let mut c = tip(&trace, 1.0);
    c.array_cache.prefetch = BlockPrefetchPolicy::Sp;
    refused(c, &["`informed.policy`", "must be \"none\", got \"sp\""]);
    let mut c = tip(&trace, 1.0);
    c.run.mode = prefetchlab::config::RunMode::CacheOnly;
    refused(c, &["`informed.policy`", "timed run"]);
    let mut c = tip(&trace, 1.0);
    c.workload.replay = Replay::Open;
    refused(c, &["`informed.policy`", "closed"]);
    let mut c = tip(&trace, 1.0);
    c.workload.think_time.0 = 5_000_000;
    refused(c, &["`workload.think_time`", "informed.t_cpu"]);
}

#[test]
fn unhinted_reuse_at_the_lru_end_limits_how_deep_tip_goes() {
    // 30 passes over 80 scattered blocks through a 64-block cache, every other read hinted:
    // the unhinted reads miss on blocks evicted 16 evictions before, so the LRU cache's
    // buffers near its end are worth a hit each pass, and TIP stops short of them
    let mut x: u64 = 99;
    let blocks: Vec<u64> = (0..80)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % (2 << 30 >> 12)
        })
        .collect();
    let mut text = String::new();
    for i in 0..30 * 80 {
        text.push_str(&format!("0,{},4096,R,{:.3}\n", blocks[i % 80] * 8, i as f64 * 0.001));
    }
    let path = common::temp_file("tip-loop", "loop.spc", &text);
    let mut c = tip(&path, 0.5);
    c.array_cache.size.0 = 64 * 4096;
    c.informed.t_cpu.0 = 0; // no horizon: only the cache limits the depth
    let s: Value = serde_json::from_str(&run(&c).metrics.block_policy_state).unwrap();
    assert!(s["lru_ghost_hits"].as_u64().unwrap() > 1000, "{s}");
    let x_star = s["cost_benefit_depth_reads"].as_u64().expect("a finite cost-benefit depth");
    // measured: 15, against the 32 that half the cache would allow
    assert!(x_star < 32, "{s}");
    assert_eq!(s["depth_reads"].as_u64().unwrap(), x_star);
    // every read hinted: TIP never misses, the LRU side never limits it
    let all: Value =
        serde_json::from_str(&run(&tip(&random_trace("all_hinted"), 1.0)).metrics.block_policy_state)
            .unwrap();
    assert!(all["cost_benefit_depth_reads"].is_null(), "{all}");
}

#[test]
fn a_hint_beyond_the_array_is_refused_before_the_run_naming_its_record() {
    // the third read lies 1 PiB in, far beyond five drives
    let text = "0,0,4096,R,0.000\n0,8,4096,R,0.001\n0,2199023255552,4096,R,0.002\n";
    let path = common::temp_file("tip-far", "far.spc", text);
    let e = prefetchlab::simulate(&tip(&path, 1.0)).expect_err("refused").to_string();
    assert!(e.contains("far.spc:3: record 3") && e.contains("beyond the array"), "{e}");
}
