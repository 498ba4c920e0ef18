//! Small-write costs through the whole stack (issue 9; models.md §3.5):
//! one write of a block trace replayed on an array, counted in the io_log as
//! disk reads and writes per member disk, against counts worked out by hand
//! from md's rules — per row (stripe head), read-modify-write reads the old
//! data and old parity, reconstruct-write reads the untouched data, md takes
//! the one that reads less (a tie: reconstruct-write), a whole row reads
//! nothing; RAID-6 before Linux 4.1 always reconstructs.
//!
//! Strips of 4 KiB (one block) make a row one block per member, so "a write
//! of 3 strips" is 3 blocks of one row. Left-symmetric placement
//! (models.md §3.2–3.3): RAID-5 of 5, row 0 = D0 D1 D2 D3 on disks 0–3, P on
//! disk 4; RAID-6 of 6, row 0 = Q on disk 0, D0–D3 on disks 1–4, P on disk 5;
//! RAID-6 of 8, row 0 = Q on 0, D0–D5 on 1–6, P on 7.

use prefetchlab::config::{Config, Layout, Raid6WritePolicy, RunMode, WorkloadKind};
use prefetchlab::metrics::{IoEvent, Report};
use std::path::PathBuf;

/// A one-record SPC trace: a write of `blocks` 4 KiB blocks at array block `block`.
fn trace(name: &str, block: u64, blocks: u64) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prefetchlab-raid-writes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, format!("0,{},{},w,0.0\n", block * 8, blocks * 4096)).unwrap();
    path
}

fn run(layout: Layout, disks: u32, raid6: Raid6WritePolicy, block: u64, blocks: u64) -> Report {
    let mut c = Config::default();
    c.array.layout = layout;
    c.array.disks = disks;
    c.array.strip.0 = 4096;
    c.array.raid6_write = raid6;
    c.disk.kind = prefetchlab::config::DeviceKind::Ssd;
    c.workload.kind = WorkloadKind::Trace;
    let name = format!("{layout:?}-{disks}-{raid6:?}-{block}-{blocks}.spc");
    c.workload.path = trace(&name, block, blocks).display().to_string();
    c.workload.format = "spc".into();
    c.run.mode = RunMode::Timed;
    c.output.io_log = true;
    prefetchlab::simulate(&c).unwrap_or_else(|e| panic!("{e}"))
}

/// (disks read, disks written), each sorted, from the io_log's dispatches.
fn reads_and_writes(r: &Report) -> (Vec<i32>, Vec<i32>) {
    let log = r.io_log.as_ref().expect("io_log");
    let disks = |ev: IoEvent| {
        let mut d: Vec<i32> = log.rows_of(ev).map(|i| log.disk[i]).collect();
        d.sort_unstable();
        d
    };
    // every write leaves after the last read has completed
    let last_read_done = log.rows_of(IoEvent::DiskComplete).map(|i| log.time_ns[i]).max().unwrap_or(0);
    let first_write =
        log.rows_of(IoEvent::DiskWriteDispatch).map(|i| log.time_ns[i]).min().unwrap_or(u64::MAX);
    assert!(first_write >= last_read_done, "a write left before md's reads were done");
    (disks(IoEvent::DiskDispatch), disks(IoEvent::DiskWriteDispatch))
}

const CHEAPER: Raid6WritePolicy = Raid6WritePolicy::Cheaper;
const RECONSTRUCT: Raid6WritePolicy = Raid6WritePolicy::Reconstruct;

#[test]
fn raid5_of_5_small_writes() {
    // 4 KiB at D0: read-modify-write (2 reads < 3): read D0 and P, write D0 and P
    let r = run(Layout::Raid5, 5, CHEAPER, 0, 1);
    assert_eq!(reads_and_writes(&r), (vec![0, 4], vec![0, 4]));
    assert_eq!((r.metrics.rmw_stripes, r.metrics.rcw_stripes), (1, 0));
    // 3 strips D0–D2: reconstruct-write (1 read < 4): read D3, write D0–D2 and P
    let r = run(Layout::Raid5, 5, CHEAPER, 0, 3);
    assert_eq!(reads_and_writes(&r), (vec![3], vec![0, 1, 2, 4]));
    assert_eq!((r.metrics.rmw_stripes, r.metrics.rcw_stripes), (0, 1));
    // the full stripe: no reads, 5 writes
    let r = run(Layout::Raid5, 5, CHEAPER, 0, 4);
    assert_eq!(reads_and_writes(&r), (vec![], vec![0, 1, 2, 3, 4]));
    assert_eq!(r.metrics.full_stripe_rows, 1);
    // 2 strips: a tie (3 reads either way) goes to reconstruct-write: read D2, D3
    let r = run(Layout::Raid5, 5, CHEAPER, 0, 2);
    assert_eq!(reads_and_writes(&r), (vec![2, 3], vec![0, 1, 4]));
    assert_eq!(r.metrics.bytes_written, 8192);
    assert_eq!((r.metrics.writes, r.metrics.app_requests), (1, 1));
}

#[test]
fn raid6_reconstructs_before_linux_4_1_and_takes_the_cheaper_after() {
    // 6 disks, 1 block at D0 (disk 1): rmw = 3 reads (D0, P, Q), rcw = 3 (D1–D3): a tie,
    // reconstruct-write in both: read disks 2–4, write D0, P, Q
    for policy in [RECONSTRUCT, CHEAPER] {
        let r = run(Layout::Raid6, 6, policy, 0, 1);
        assert_eq!(reads_and_writes(&r), (vec![2, 3, 4], vec![0, 1, 5]), "{policy:?}");
    }
    // 6 disks, 2 blocks: rcw = 2 reads < rmw = 4: read D2, D3 (disks 3, 4), write 4
    let r = run(Layout::Raid6, 6, CHEAPER, 0, 2);
    assert_eq!(reads_and_writes(&r), (vec![3, 4], vec![0, 1, 2, 5]));
    // 8 disks, 1 block: rmw = 3 < rcw = 5 — taken from 4.1 on (read D0, P, Q), never before
    let r = run(Layout::Raid6, 8, CHEAPER, 0, 1);
    assert_eq!(reads_and_writes(&r), (vec![0, 1, 7], vec![0, 1, 7]));
    assert_eq!(r.metrics.rmw_stripes, 1);
    let r = run(Layout::Raid6, 8, RECONSTRUCT, 0, 1);
    assert_eq!(reads_and_writes(&r), (vec![2, 3, 4, 5, 6], vec![0, 1, 7]));
    assert_eq!(r.metrics.rcw_stripes, 1);
    // the full stripe of 6 disks: no reads, 6 writes
    let r = run(Layout::Raid6, 6, RECONSTRUCT, 0, 4);
    assert_eq!(reads_and_writes(&r), (vec![], vec![0, 1, 2, 3, 4, 5]));
}

#[test]
fn mirrors_and_stripes_without_parity_read_nothing() {
    // RAID-10 n2 of 4: block 0 lives on disks 0 and 1
    let r = run(Layout::Raid10, 4, CHEAPER, 0, 1);
    assert_eq!(reads_and_writes(&r), (vec![], vec![0, 1]));
    // RAID-0 of 4: block 5 is strip 5, disk 1
    let r = run(Layout::Raid0, 4, CHEAPER, 5, 1);
    assert_eq!(reads_and_writes(&r), (vec![], vec![1]));
}

/// An SPC trace of writes of one 4 KiB block each, at the given blocks, 10 ms apart.
fn write_trace(name: &str, blocks: &[u64]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("prefetchlab-raid-writes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    let text: String = blocks
        .iter()
        .enumerate()
        .map(|(i, b)| format!("0,{},4096,w,{}.{:02}\n", b * 8, i / 100, i % 100))
        .collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn run_cached(trace: PathBuf, write_back: bool) -> Report {
    use prefetchlab::config::WritePolicy;
    let mut c = Config::default();
    c.array.layout = Layout::Raid5;
    c.array.disks = 5;
    c.array.strip.0 = 4096;
    c.disk.kind = prefetchlab::config::DeviceKind::Ssd;
    c.workload.kind = WorkloadKind::Trace;
    c.workload.path = trace.display().to_string();
    c.workload.format = "spc".into();
    c.array_cache.size.0 = 100 * 4096;
    c.array_cache.dirty_limit = 0.2; // 20 blocks
    c.array_cache.write_policy = if write_back { WritePolicy::WriteBack } else { WritePolicy::WriteThrough };
    c.output.io_log = true;
    prefetchlab::simulate(&c).unwrap_or_else(|e| panic!("{e}"))
}

fn disk_writes(r: &Report) -> usize {
    let log = r.io_log.as_ref().expect("io_log");
    log.rows_of(IoEvent::DiskWriteDispatch).count()
}

#[test]
fn write_back_absorbs_rewrites_and_writes_back_in_batches() {
    // 50 rewrites of block 0: write-through = 50 read-modify-writes (2 writes each);
    // write-back holds the one dirty block (under the limit): no disk I/O, no wait
    let same = write_trace("same.spc", &[0; 50]);
    let wt = run_cached(same.clone(), false);
    assert_eq!((disk_writes(&wt), wt.metrics.rmw_stripes), (100, 50));
    let wb = run_cached(same, true);
    assert_eq!((disk_writes(&wb), wb.metrics.writeback_blocks, wb.metrics.latency_max_ms), (0, 0, Some(0.0)));
    assert_eq!(wb.metrics.writes, 50);
    // 24 consecutive blocks: the 21st dirty block passes the limit (20); the 11 dirty longest
    // (blocks 0–10, down to half the limit) go out as one run — 2 full rows of 4 blocks and a
    // 3-block row by reconstruct-write; then 10 + 3 = 13 dirty blocks stay under the limit
    let seq: Vec<u64> = (0..24).collect();
    let wb = run_cached(write_trace("seq.spc", &seq), true);
    assert_eq!(wb.metrics.writeback_blocks, 11);
    assert_eq!((wb.metrics.full_stripe_rows, wb.metrics.rcw_stripes, wb.metrics.rmw_stripes), (2, 1, 0));
}
