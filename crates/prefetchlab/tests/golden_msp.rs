//! MSP's golden test through the whole stack ([TC09] Fig. 6, algorithms.md
//! §3.2): a file's data blocks interleaved with its indirect blocks, as the
//! array sees a sequential file read — blocks ⟨0,16,17,18,1,19,…⟩ with
//! 4-block strips — replayed as a block trace into an array cache with
//! `prefetch = "msp"`. The sequential counter goes ⟨1,0,1,2,3,2,3,4,3,4⟩, in
//! a timed run and in the cache-only mode; once it reaches `sc_thresh` (4)
//! the next two stripes are read, one strip per disk request.

use prefetchlab::config::{BlockPrefetchPolicy, Config, Layout, Replay, RunMode, WorkloadKind};
use prefetchlab::metrics::{IoEvent, Report};
use serde_json::Value;

const FIG6: [u64; 16] = [0, 16, 17, 18, 1, 19, 20, 21, 2, 22, 23, 24, 3, 25, 26, 27];

fn config() -> Config {
    let dir = std::env::temp_dir().join(format!("prefetchlab-golden-msp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fig6.spc");
    let text: String = FIG6
        .iter()
        .enumerate()
        .map(|(i, b)| format!("0,{},4096,R,{:.3}\n", b * 8, i as f64 * 0.001))
        .collect();
    std::fs::write(&path, text).unwrap();
    let mut c = Config::default();
    c.array.layout = Layout::Raid0;
    c.array.disks = 5;
    c.array.strip.0 = 16 << 10; // 4 blocks
    c.array_cache.size.0 = 4 << 20;
    c.array_cache.prefetch = BlockPrefetchPolicy::Msp;
    c.workload.kind = WorkloadKind::Trace;
    c.workload.path = path.display().to_string();
    c.workload.format = "spc".into();
    c.workload.replay = Replay::Closed;
    c.check().unwrap();
    c
}

fn state(r: &Report) -> Value {
    serde_json::from_str(&r.metrics.block_policy_state).unwrap()
}

#[test]
fn msp_counts_tc09_fig6_and_reads_whole_stripes_once_it_fires() {
    let c = config();
    let mut cache_only = c.clone();
    cache_only.run.mode = RunMode::CacheOnly;
    let mut timed = c.clone();
    timed.output.io_log = true;
    let timed = prefetchlab::simulate(&timed).unwrap();
    for r in [&timed, &prefetchlab::simulate(&cache_only).unwrap()] {
        let s = state(r);
        assert_eq!(s["sc_history"], serde_json::json!([1, 0, 1, 2, 3, 2, 3, 4, 3, 4]), "{s}");
        // SC is 4 after the reads of blocks 24 (strip 6, stripe 1), 25, 26 and 27: the first
        // reads stripes 2 and 3 (strips 10..20), the others find them in the cache
        assert_eq!(s["firing_reads"], 4, "{s}");
        assert_eq!(s["strip_prefetches"], 10, "{s}");
    }
    // each prefetch is one strip (16 KiB = 32 sectors) on one disk, strip-aligned
    let log = timed.io_log.as_ref().unwrap();
    let reads: Vec<(i64, i64)> =
        log.rows_of(IoEvent::DiskDispatch).map(|i| (log.array_block[i], log.sectors[i])).collect();
    let prefetched: Vec<(i64, i64)> = reads.iter().copied().filter(|&(b, _)| b >= 40).collect();
    assert_eq!(prefetched, (10..20).map(|s| (s * 4, 32)).collect::<Vec<_>>());
}
