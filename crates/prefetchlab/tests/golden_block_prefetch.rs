//! Golden tests of the array-cache schemes (issue 10) through the whole
//! stack: a block trace written here (SPC, one stream) replayed in a timed
//! run or in the cache-only mode, checked on what a user sees — the disk
//! requests of the io_log, the prefetch counts and each scheme's own
//! counters (`block_policy_state`). The worked examples are those of
//! algorithms.md §2, §6 and §7 (decisions.md 6–7c); TaP's (§9) is this file's.

use prefetchlab::config::{BlockPrefetchPolicy, Config, Layout, Replay, RunMode, WorkloadKind};
use prefetchlab::metrics::{IoEvent, Report};
use serde_json::Value;
use std::path::PathBuf;

const KIB: u64 = 1024;

/// Writes an SPC trace of reads `(first block, blocks)` of 4 KiB, 1 ms apart.
fn trace(name: &str, reads: &[(u64, u64)]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prefetchlab-golden-block-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.spc"));
    let text: String = reads
        .iter()
        .enumerate()
        .map(|(i, &(b, n))| format!("0,{},{},R,{:.3}\n", b * 8, n * 4096, i as f64 * 0.001))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// A RAID-5 of 5 disks with 64 KiB strips, an array cache of `cache_blocks`
/// and the scheme `prefetch`, replaying `reads` one at a time.
fn config(name: &str, reads: &[(u64, u64)], prefetch: BlockPrefetchPolicy, cache_blocks: u64) -> Config {
    let mut c = Config::default();
    c.array.layout = Layout::Raid5;
    c.array.disks = 5;
    c.array.strip.0 = 64 * KIB;
    c.array_cache.size.0 = cache_blocks * 4096;
    c.array_cache.prefetch = prefetch;
    c.workload.kind = WorkloadKind::Trace;
    c.workload.path = trace(name, reads).display().to_string();
    c.workload.format = "spc".into();
    c.workload.replay = Replay::Closed;
    c
}

fn run(c: &Config) -> Report {
    prefetchlab::simulate(c).unwrap_or_else(|e| panic!("{e}"))
}

fn cache_only(mut c: Config) -> Report {
    c.run.mode = RunMode::CacheOnly;
    run(&c)
}

fn state(r: &Report) -> Value {
    serde_json::from_str(&r.metrics.block_policy_state).unwrap()
}

/// `(array block, sectors)` of each disk read dispatched, in order.
fn disk_reads(c: &Config) -> Vec<(i64, i64)> {
    let mut c = c.clone();
    c.output.io_log = true;
    let r = run(&c);
    let log = r.io_log.expect("io_log");
    log.rows_of(IoEvent::DiskDispatch).map(|i| (log.array_block[i], log.sectors[i])).collect()
}

#[test]
fn sp_reads_the_strip_with_the_demand_as_one_disk_request_per_strip() {
    // one 8 KiB read in strip 1 (blocks 16..32), then one across strips 3 and 4
    let c = config("sp", &[(20, 2), (62, 4)], BlockPrefetchPolicy::Sp, 1024);
    assert_eq!(disk_reads(&c), vec![(16, 128), (48, 128), (64, 128)]);
    let r = run(&c);
    // 2 + 4 demand blocks; the rest of the three strips prefetched
    assert_eq!((r.metrics.misses, r.metrics.prefetched_blocks), (6, 3 * 16 - 6));
    assert_eq!(state(&r)["strip_prefetches"], 3);
    // without SP each read is what it asks for, split at the strip boundary
    let none = config("sp-none", &[(20, 2), (62, 4)], BlockPrefetchPolicy::None, 1024);
    assert_eq!(disk_reads(&none), vec![(20, 16), (62, 16), (64, 16)]);
}

#[test]
fn obl_does_nothing_on_an_isolated_miss_and_one_block_on_a_sequential_one() {
    let c = config("obl", &[(10, 1), (11, 1), (12, 1), (40, 1)], BlockPrefetchPolicy::Obl, 1024);
    // 10: isolated; 11: sequential, read with 12 as one request; 12: a hit; 40: isolated
    assert_eq!(disk_reads(&c), vec![(10, 8), (11, 16), (40, 8)]);
    for r in [run(&c), cache_only(c.clone())] {
        let m = &r.metrics;
        assert_eq!((m.hits, m.misses, m.prefetched_blocks, m.prefetch_used_blocks), (1, 3, 1, 1));
        // a trace meets the array cache first: its accuracy is the array cache's
        assert_eq!(m.prefetch_accuracy, Some(1.0));
    }
}

#[test]
fn fa_8_3_reads_the_next_set_when_the_block_3_before_the_end_is_read() {
    let reads: Vec<(u64, u64)> = (0..12).map(|i| (2 * i, 2)).collect();
    let after = |n: usize| {
        let mut c = config(&format!("fa{n}"), &reads[..n], BlockPrefetchPolicy::Fa, 1024);
        c.array_cache.p = 8; // g unset: p/2 − 1 = 3
        state(&cache_only(c))["async_prefetches"].as_u64().unwrap()
    };
    // the miss at block 2 reads 4..=11: its trigger is 8, read by the 5th request (8, 9)
    assert_eq!((after(4), after(5)), (0, 1));
    // the next set is 12..=19, its trigger 16: the 9th request
    assert_eq!((after(8), after(9)), (1, 2));
}

#[test]
fn amp_p_rises_on_a_hit_on_a_sets_last_block_and_falls_on_its_unused_eviction() {
    // 0-1 isolated; 2-3 sequential: p = 2, set 4..=5; 4-5 hits the set's last block: p = 4
    let c = config("amp-up", &[(0, 2), (2, 2), (4, 2)], BlockPrefetchPolicy::Amp, 1024);
    let s = state(&cache_only(c.clone()));
    assert_eq!((s["p_increments"].as_u64(), s["p_max_blocks"].as_u64()), (Some(1), Some(4)));
    assert_eq!(state(&run(&c))["p_max_blocks"], 4, "the same in a timed run");

    // the set 4..=5 is never read: in a cache of 8 blocks (5 4 3 2 1 0 from the most
    // recent), block 5 reaches the LRU end unread at the 8th block read after it, gets
    // its second chance, and p drops to 1
    let mut reads = vec![(0, 2), (2, 2)];
    reads.extend((1..=8).map(|i| (1000 * i, 1)));
    let c = config("amp-down", &reads, BlockPrefetchPolicy::Amp, 8);
    let s = state(&cache_only(c.clone()));
    assert_eq!(s["p_decrements"], 1);
    assert_eq!(s["p_histogram"], serde_json::json!({"1": 1}));
    assert_eq!(state(&run(&c))["p_decrements"], 1, "the same in a timed run");
}

/// LSP's areas as `(start KiB, end KiB)`, both ends inside.
#[test]
fn tap_reads_the_next_segment_when_a_read_continues_a_table_entry_and_drops_what_was_read() {
    // 100-101 enters the table; 102-103 continues it: the segment 104..112 (p = 8) is
    // read with the demand, one disk request; 104..110 hit; 110-111 uses the segment up,
    // so 112..120 is read ahead
    let reads = [(100, 2), (102, 2), (104, 2), (106, 2), (108, 2), (110, 2)];
    let c = config("tap", &reads, BlockPrefetchPolicy::Tap, 1024);
    assert_eq!(disk_reads(&c), vec![(100, 16), (102, 80), (112, 64)]);
    for r in [run(&c), cache_only(c.clone())] {
        let m = &r.metrics;
        assert_eq!((m.hits, m.misses, m.prefetched_blocks, m.prefetch_used_blocks), (8, 4, 16, 8));
        let s = state(&r);
        assert_eq!((s["sequential_reads"].as_u64(), s["segment_reads"].as_u64()), (Some(5), Some(2)));
        // the blocks read from the segment left the cache at once
        assert_eq!(s["dropped_after_read"], 8);
        assert_eq!(s["reconstruction"], "algorithms.md §9 (decisions.md 10)");
    }
}

fn areas(r: &Report) -> Vec<(u64, u64)> {
    state(r)["area_list_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a[0].as_u64().unwrap() / KIB, a[1].as_u64().unwrap() / KIB))
        .collect()
}

fn lsp(name: &str, reads_kib: &[u64], window: u32, cache_blocks: u64) -> Config {
    let reads: Vec<(u64, u64)> = reads_kib.iter().map(|k| (k * KIB / 4096, 1)).collect();
    let mut c = config(name, &reads, BlockPrefetchPolicy::Lsp, cache_blocks);
    c.array_cache.lsp.window = window;
    c
}

#[test]
fn lsp_makes_the_area_70_to_190_kib_from_units_100_120_160() {
    let c = lsp("lsp-area", &[100, 120, 160], 3, 1024);
    assert_eq!(areas(&cache_only(c.clone())), vec![(70, 190)]);
    assert_eq!(areas(&run(&c)), vec![(70, 190)], "the same in a timed run");
}

#[test]
fn lsp_merges_two_areas_100_kib_apart() {
    // {100, 200} → [50, 250]; {400, 500} → [350, 550]: 100 KiB < 128 KiB apart
    let r = cache_only(lsp("lsp-merge", &[100, 200, 400, 500], 2, 1024));
    assert_eq!(areas(&r), vec![(50, 550)]);
    assert_eq!(state(&r)["merges"], 1);
    let far = cache_only(lsp("lsp-far", &[100, 200, 500, 600], 2, 1024));
    assert_eq!(areas(&far), vec![(50, 250), (450, 650)], "200 KiB apart: two areas");
}

#[test]
fn lsp_holes_from_unused_strips_split_an_area_at_256_kib() {
    // {384, 448, 512, 576, 640} KiB → the area [256, 768] KiB; then one block read in
    // each of strips 5..=8 (320..576 KiB): each reads its strip (16 blocks) and grows
    // the area; a cache of 24 blocks evicts each strip's 15 unused blocks (the last
    // strip's by 24 reads far away, 200 KiB apart: no cluster), so strips 5, 6, 7 and 8
    // become holes, and a hole of 4 strips (256 KiB) splits the area
    let mut kib = vec![384, 448, 512, 576, 640];
    kib.extend([320, 384, 448, 512].map(|k| k + 4));
    kib.extend((0..24).map(|i| 4000 + 200 * i));
    let r = cache_only(lsp("lsp-split", &kib, 5, 24));
    let s = state(&r);
    assert_eq!(s["splits"], 1, "{s}");
    assert_eq!(s["holes"], 0, "the run of holes is cut out: {s}");
    let a = areas(&r);
    assert_eq!(a.len(), 2, "{a:?}");
    assert_eq!((a[0].1 + 1, a[1].0), (320, 576), "split at strips 5..=8: {a:?}");
}

/// ASP (algorithms.md §5.2, a reconstruction) with its gate deciding every
/// `gate_interval` reads.
fn asp(name: &str, reads: &[(u64, u64)], cache_blocks: u64, gate_interval: u32) -> Config {
    let mut c = config(name, reads, BlockPrefetchPolicy::Asp, cache_blocks);
    c.array_cache.asp.gate_interval = gate_interval;
    c
}

#[test]
fn asp_reads_whole_strips_with_the_demand_as_sp_does_on_sequential_reads() {
    let c = asp("asp-sp", &[(20, 2), (62, 4)], 1024, 1024);
    assert_eq!(disk_reads(&c), vec![(16, 128), (48, 128), (64, 128)], "the SP example");
    // 4-block reads through 64 strips, a cache of half of them: the gate stays on
    // (per strip one read against four) and ASP counts what SP counts
    let reads: Vec<(u64, u64)> = (0..256).map(|i| (4 * i, 4)).collect();
    let a = asp("asp-seq", &reads, 512, 64);
    let mut sp = a.clone();
    sp.array_cache.prefetch = BlockPrefetchPolicy::Sp;
    for (ra, rs) in [(run(&a), run(&sp)), (cache_only(a.clone()), cache_only(sp.clone()))] {
        let (ma, ms) = (&ra.metrics, &rs.metrics);
        assert_eq!(
            (ma.hits, ma.misses, ma.prefetched_blocks, ma.wasted_blocks),
            (ms.hits, ms.misses, ms.prefetched_blocks, ms.wasted_blocks)
        );
        assert_eq!(ma.prefetched_blocks, 64 * 12, "each strip's 12 blocks after the first read");
        let s = state(&ra);
        assert_eq!(s["reconstruction"], "algorithms.md §5.2 (decisions.md 5)");
        assert_eq!(s["strip_prefetches"], 64, "{s}");
        assert_eq!((s["gate_on"].as_bool(), s["gate_on_intervals"].as_u64()), (Some(true), Some(4)), "{s}");
        assert_eq!(
            (s["gate_off_intervals"].as_u64(), s["culled_blocks"].as_u64()),
            (Some(0), Some(0)),
            "{s}"
        );
        assert_eq!(s["culling_point_blocks"], 512, "nothing asked for culling: {s}");
    }
}

#[test]
fn asp_turns_strip_prefetching_off_on_random_reads_and_reads_fewer_blocks_than_sp() {
    // 1000 one-block reads spread over 4 GiB (2^20 blocks)
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let reads: Vec<(u64, u64)> = (0..1000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % (1 << 20), 1)
        })
        .collect();
    let a = asp("asp-random", &reads, 1024, 100);
    let mut sp = a.clone();
    sp.array_cache.prefetch = BlockPrefetchPolicy::Sp;
    for (ra, rs, timed) in [(run(&a), run(&sp), true), (cache_only(a.clone()), cache_only(sp.clone()), false)]
    {
        let s = state(&ra);
        assert_eq!(s["gate_on"], false, "{s}");
        assert_eq!(
            (s["gate_switched_off"].as_u64(), s["gate_switched_on"].as_u64()),
            (Some(1), Some(0)),
            "{s}"
        );
        assert_eq!(
            (s["gate_on_intervals"].as_u64(), s["gate_off_intervals"].as_u64()),
            (Some(1), Some(9)),
            "{s}"
        );
        let strips = s["strip_prefetches"].as_u64().unwrap();
        assert!((90..=100).contains(&strips), "strips read in the first interval only: {s}");
        assert!(s["gate_last_sp_ms"].as_f64() > s["gate_last_demand_ms"].as_f64(), "{s}");
        let (ma, ms) = (&ra.metrics, &rs.metrics);
        let (blocks_a, blocks_s) = if timed {
            (ma.disk_sectors / 8, ms.disk_sectors / 8)
        } else {
            (ma.misses + ma.prefetched_blocks, ms.misses + ms.prefetched_blocks)
        };
        assert!(blocks_a * 5 < blocks_s, "ASP read {blocks_a} blocks, SP {blocks_s}");
        assert!(ma.prefetched_blocks <= 15 * 100, "{}", ma.prefetched_blocks);
    }
}

#[test]
fn asp_culls_unread_prefetched_blocks_below_the_culling_point() {
    // one block read in each of 200 strips: each read prefetches 15 blocks never
    // read; with N_U = 51 of 1024 blocks (start 0.05) they are culled 51 blocks down,
    // long before the LRU end (the gate decides after 1024 reads: never here)
    let reads: Vec<(u64, u64)> = (0..200).map(|i| (16 * i, 1)).collect();
    let mut a = asp("asp-cull", &reads, 1024, 1024);
    a.array_cache.asp.start = 0.05;
    for r in [run(&a), cache_only(a.clone())] {
        let s = state(&r);
        let culled = s["culled_blocks"].as_u64().unwrap();
        assert_eq!(s["culling_point_blocks"], 51, "{s}");
        // 3000 prefetched; those prefetched by the last 4 reads are less than 51 blocks down
        assert!((2900..3000).contains(&culled), "{s}");
        let m = &r.metrics;
        assert_eq!((m.misses, m.prefetched_blocks), (200, 3000));
        assert_eq!(m.wasted_blocks, culled, "culled blocks are the wasted ones: none reached the LRU end");
    }
}
