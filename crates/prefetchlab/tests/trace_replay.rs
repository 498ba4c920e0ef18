//! Timed replay of a real block trace (issue 9): the MSR Cambridge sample of
//! `../shared/traces` (1,000 records of `hm_0`, disk 0: 508 reads, 492
//! writes, over ≈ 127 s) on a RAID-5 of 5 drives — open loop at the trace's
//! times and faster, closed loop, time-shifted fragments — and what each
//! must show.

mod common;

use prefetchlab::config::{Config, Layout, Replay, RunMode, WorkloadKind};
use prefetchlab::metrics::Metrics;

fn config(trace: &std::path::Path) -> Config {
    let mut c = Config::default();
    c.array.layout = Layout::Raid5;
    c.array.disks = 5;
    c.workload.kind = WorkloadKind::Trace;
    c.workload.path = trace.display().to_string();
    c.run.mode = RunMode::Timed;
    c
}

fn run(c: &Config) -> (Metrics, usize) {
    let r = prefetchlab::simulate(c).unwrap_or_else(|e| panic!("{e}"));
    (r.metrics, r.streams.len())
}

#[test]
fn open_closed_speed_and_fragments() {
    let Some(dir) = common::traces() else { return };
    let trace = dir.join("msr-sample/msr-cambridge1-sample.csv");
    let base = config(&trace);
    let (open, streams) = run(&base);
    assert_eq!((open.app_requests, open.writes, streams), (1000, 492, 1));
    assert_eq!((open.bytes_read, open.bytes_written), (6_108_672, 3_580_928));
    // the trace spans 127.2 s; the run ends with the last request's completion
    assert!((127.0..128.0).contains(&open.sim_time_s), "{}", open.sim_time_s);
    assert!(open.rmw_stripes + open.rcw_stripes + open.full_stripe_rows > 0);

    // the same configuration again: bit-identical
    let (again, _) = run(&base);
    assert_eq!(
        (again.latency_mean_ms, again.disk_requests, again.sim_time_s),
        (open.latency_mean_ms, open.disk_requests, open.sim_time_s)
    );

    // twice as fast: half the span, the same work
    let mut fast = base.clone();
    fast.workload.speed = 2.0;
    let (f, _) = run(&fast);
    assert!((63.0..64.5).contains(&f.sim_time_s), "{}", f.sim_time_s);
    assert_eq!((f.app_requests, f.bytes_written), (1000, open.bytes_written));

    // closed loop: no idle gaps, so the run is as long as the service times add up
    let mut closed = base.clone();
    closed.workload.replay = Replay::Closed;
    let (c, _) = run(&closed);
    assert_eq!(c.app_requests, 1000);
    assert!(c.sim_time_s < 0.2 * open.sim_time_s, "{} vs {}", c.sim_time_s, open.sim_time_s);
    // one request at a time: the run lasts the sum of the latencies
    let sum_s = c.latency_mean_ms.unwrap() * 1000.0 / 1e3;
    assert!((c.sim_time_s - sum_s).abs() < 1e-6 * sum_s.max(1.0), "{} vs {sum_s}", c.sim_time_s);

    // four time-shifted fragments: four streams replayed together over a quarter of the span
    let mut scaled = base.clone();
    scaled.workload.fragments = 4;
    let (s, streams) = run(&scaled);
    assert_eq!((s.app_requests, streams), (1000, 4));
    assert!(s.sim_time_s < 0.3 * open.sim_time_s, "{}", s.sim_time_s);
}

#[test]
fn a_record_beyond_the_array_is_named() {
    let Some(dir) = common::traces() else { return };
    let mut c = config(&dir.join("msr-sample/msr-cambridge1-sample.csv"));
    c.array.layout = Layout::Single;
    c.array.disks = 1;
    c.disk.kind = prefetchlab::config::DeviceKind::Ssd;
    c.ssd.capacity.0 = 1 << 30; // hm_0 reaches past 1 GiB
    let e = prefetchlab::simulate(&c).unwrap_err().to_string();
    assert!(
        e.contains("msr-cambridge1-sample.csv") && e.contains("record ") && e.contains("beyond the array"),
        "{e}"
    );
}

#[test]
fn a_record_beyond_the_array_is_named_by_its_line() {
    // a blank line and a write not replayed before it: record 3, line 4 of the file;
    // in two fragments too (each reads the trace from its start), and in cache-only mode
    let path = common::temp_file(
        "trace-far",
        "far.spc",
        "0,0,4096,r,0.000\n\n0,8,4096,w,0.001\n0,2199023255552,4096,r,0.002\n",
    );
    let mut c = config(&path);
    c.workload.format = "spc".into();
    c.workload.writes = false;
    for fragments in [1, 2] {
        c.workload.fragments = fragments;
        let e = prefetchlab::simulate(&c).expect_err("refused").to_string();
        assert!(e.contains("far.spc:4: record 3:") && e.contains("beyond the array"), "{fragments}: {e}");
    }
    // a cache-only run has no array: a range past 2^64 bytes is what it refuses
    std::fs::write(&path, "0,0,4096,r,0.000\n\n0,8,4096,w,0.001\n0,36028797018963967,8192,r,0.002\n")
        .unwrap();
    c.run.mode = RunMode::CacheOnly;
    c.workload.fragments = 1;
    let e = prefetchlab::simulate(&c).expect_err("refused").to_string();
    assert!(e.contains("far.spc:4:") && e.contains("beyond 2^64"), "{e}");
    // the reader takes it for a bad record: skip_bad passes over it, counted
    c.workload.skip_bad = 1;
    let r = prefetchlab::simulate(&c).unwrap();
    assert_eq!((r.metrics.app_requests, r.metrics.trace_records_skipped), (1, 1));
    // the write is not replayed
}

/// A one-stream sequential trace of 4 KiB reads (SPC, 1 ms apart) of `n` blocks, written to a
/// temporary file.
fn sequential_trace(n: u64) -> std::path::PathBuf {
    let text: String = (0..n).map(|i| format!("0,{},4096,r,{}.{:03}\n", i * 8, i / 1000, i % 1000)).collect();
    common::temp_file("trace-replay", &format!("seq{n}.spc"), &text)
}

#[test]
fn linux_readahead_at_the_array_turns_a_sequential_trace_into_hits() {
    use prefetchlab::config::BlockPrefetchPolicy;
    let mut c = config(&sequential_trace(2000));
    c.workload.format = "spc".into();
    c.array_cache.size.0 = 64 << 20;
    let (none, _) = run(&c);
    assert_eq!((none.hits, none.misses, none.readahead_windows), (0, 2000, 0));
    c.array_cache.prefetch = BlockPrefetchPolicy::Linux;
    let (ra, _) = run(&c);
    // the first read misses and opens a sync window; every later one finds its block
    // prefetched, arrived (a hit) or, rarely, still in flight (a miss)
    assert_eq!(ra.hits + ra.misses, 2000);
    assert!(ra.hits > 1900, "{ra:?}");
    assert!(ra.readahead_windows > 10 && ra.prefetched_blocks >= 1999, "{ra:?}");
    assert!(ra.prefetch_used_blocks >= 1990 && ra.wasted_blocks == 0, "{ra:?}");
    assert!(ra.disk_requests < none.disk_requests / 4, "{} vs {}", ra.disk_requests, none.disk_requests);
    assert!(ra.latency_mean_ms.unwrap() < 0.5 * none.latency_mean_ms.unwrap());
}

#[test]
fn reads_only_leaves_the_writes_out() {
    let Some(dir) = common::traces() else { return };
    let mut c = config(&dir.join("msr-sample/msr-cambridge1-sample.csv"));
    c.workload.writes = false;
    let (m, _) = run(&c);
    assert_eq!((m.app_requests, m.writes, m.bytes_written, m.bytes_read), (508, 0, 0, 6_108_672));
    assert_eq!(m.rmw_stripes + m.rcw_stripes + m.full_stripe_rows, 0);
}

#[test]
fn streams_by_process_need_a_format_that_records_them() {
    // two processes reading one device
    let blk = common::temp_file(
        "trace-replay",
        "two.blk",
        "  8,16 1 1 0.000000000 100 D R 0 + 8 [a]\n  8,16 1 2 0.001000000 200 D R 64 + 8 [b]\n  \
         8,16 1 3 0.002000000 100 D R 8 + 8 [a]\n",
    );
    let mut c = config(&blk);
    let (_, by_device) = run(&c);
    c.workload.stream_by = prefetchlab::config::StreamBy::Process;
    let (m, by_process) = run(&c);
    assert_eq!((by_device, by_process, m.app_requests), (1, 2, 3));
    let Some(traces) = common::traces() else { return };
    let mut c = config(&traces.join("msr-sample/msr-cambridge1-sample.csv"));
    c.workload.stream_by = prefetchlab::config::StreamBy::Process;
    let e = prefetchlab::simulate(&c).unwrap_err().to_string();
    assert!(e.contains("workload.stream_by") && e.contains("only blkparse"), "{e}");
}

/// Every block a record touches counts once, as a hit or a miss: four reads
/// fill a four-block array cache with blocks in flight, then a write of two
/// blocks (one of them in flight, one new) arrives at the same instant. The
/// in-flight block is a hit for the write (its slot is there); the new one
/// finds no slot to take and goes around the cache, a miss all the same.
#[test]
fn a_write_that_finds_every_slot_in_flight_is_counted() {
    let reads: String = (0..4).map(|i| format!("0,{},4096,R,0.0\n", i * 80_000)).collect();
    let path = common::temp_file("trace-replay", "in-flight.spc", &format!("{reads}0,0,8192,W,0.0\n"));
    let mut c = config(&path);
    c.workload.format = "spc".into();
    c.array_cache.size.0 = 16 << 10;
    let (timed, _) = run(&c);
    assert_eq!((timed.hits, timed.misses), (1, 5), "{timed:?}");
    c.run.mode = RunMode::CacheOnly;
    let (cache_only, _) = run(&c);
    assert_eq!(cache_only.hits + cache_only.misses, 6, "{cache_only:?}");
}
