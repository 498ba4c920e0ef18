//! Golden tests from the papers' worked examples (algorithms.md), run through
//! the whole stack — workload, page cache, readahead, array, disk queues,
//! drives — and read back from the io_log.

use prefetchlab::metrics::{IoEvent, IoLog};
use prefetchlab::{simulate, Config};

/// A window as the io_log recorded it: (first page, size in pages, marker page or −1).
type Win = (i64, i64, i64);

fn windows(log: &IoLog) -> Vec<Win> {
    log.event
        .iter()
        .enumerate()
        .filter(|(_, &e)| e == IoEvent::WindowSync as u8 || e == IoEvent::WindowAsync as u8)
        .map(|(i, _)| (log.page[i], log.pages[i], log.marker[i]))
        .collect()
}

/// Disk requests dispatched whose first array block lies in `[start, start+size)`.
fn disk_requests_in(log: &IoLog, start: i64, size: i64) -> usize {
    log.rows_of(IoEvent::DiskDispatch)
        .filter(|&i| log.array_block[i] >= start && log.array_block[i] < start + size)
        .count()
}

fn run(toml: &str) -> IoLog {
    let cfg = Config::from_toml(toml, &[]).unwrap();
    simulate(&cfg).unwrap().io_log.expect("io_log on")
}

const COMMON: &str = "
[fs]
indirect_blocks = false
[output]
io_log = true
[workload]
kind = 'iozone'
streams = 1
";

/// algorithms.md §1.2: Linux 2.6.18, max 32 pages, one page per read.
#[test]
fn linux_2_6_18_ahead_window_trace() {
    let log = run(&format!(
        "{COMMON}record='4KiB'\nfile_size='600KiB'\n[readahead]\npolicy='linux'\nvariant='2.6.18'\nmax='128KiB'"
    ));
    let w: Vec<(i64, i64)> = windows(&log).iter().map(|&(s, n, _)| (s, n)).collect();
    assert_eq!(&w[..6], &[(0, 4), (4, 8), (12, 16), (28, 32), (60, 32), (92, 32)], "{w:?}");
}

/// algorithms.md §1.3 / [IEICE13] Fig. 1: on-demand (every variant), max 32, two pages per read.
#[test]
fn ondemand_ieice13_fig1() {
    for variant in ["2.6.24", "3.10", "3.12"] {
        let log = run(&format!(
            "{COMMON}record='8KiB'\nfile_size='600KiB'\n[readahead]\npolicy='linux'\nmax='128KiB'\nvariant='{variant}'"
        ));
        let w = windows(&log);
        let want = [(0, 4, 2), (4, 8, 4), (12, 16, 12), (28, 32, 28), (60, 32, 60), (92, 32, 92)];
        assert_eq!(&w[..6], &want, "{variant}: {w:?}");
    }
}

/// algorithms.md §1.3: on-demand, one page per read gives the 2.6.18 windows.
#[test]
fn ondemand_one_page_per_read() {
    let log =
        run(&format!("{COMMON}record='4KiB'\nfile_size='600KiB'\n[readahead]\npolicy='linux'\nmax='128KiB'"));
    let w = windows(&log);
    assert_eq!(&w[..5], &[(0, 4, 1), (4, 8, 4), (12, 16, 12), (28, 32, 28), (60, 32, 60)], "{w:?}");
}

/// [IEICE13] Fig. 3: max 16, two pages per read, RAID-0 of 2 disks with
/// 16-page strips, file at LBA 0 — every window from [12,27] on costs
/// **2 disk requests**.
#[test]
fn ondemand_ieice13_fig3_two_disk_requests_per_window() {
    let log = run(&format!(
        "{COMMON}record='8KiB'\nfile_size='400KiB'\n[array]\nlayout='raid0'\ndisks=2\nstrip='64KiB'\n\
         [readahead]\npolicy='linux'\nmax='64KiB'"
    ));
    let w = windows(&log);
    let spans: Vec<(i64, i64)> = w.iter().map(|&(s, n, _)| (s, n)).collect();
    assert_eq!(&spans[..6], &[(0, 4), (4, 8), (12, 16), (28, 16), (44, 16), (60, 16)], "{w:?}");
    assert_eq!(disk_requests_in(&log, 0, 4), 1);
    assert_eq!(disk_requests_in(&log, 4, 8), 1);
    for &(s, n) in &spans[2..6] {
        assert_eq!(disk_requests_in(&log, s, n), 2, "window [{s},{}]", s + n - 1);
    }
}

/// [TC09] Fig. 3 with the didactic SEQP (1 → 2 → 4, max 4 blocks): a
/// 20-block file at B16–B35 on a 5-disk array with 4-block strips, read
/// sequentially: **7 prefetches, 11 disk requests**.
#[test]
fn tc09_fig3_seqp_seven_prefetches_eleven_disk_requests() {
    let log = run("[fs]\nindirect_blocks=false\nstart_block=16\n[output]\nio_log=true\n\
         [workload]\nstreams=1\nrecord='4KiB'\nfile_size='80KiB'\n\
         [array]\nlayout='raid0'\ndisks=5\nstrip='16KiB'\n\
         [readahead]\npolicy='seqp'\nmax='16KiB'\n[seqp]\ninit=1\ngrowth='double'");
    // windows as read: clamped at EOF (the table's B35)
    let w: Vec<(i64, i64)> = windows(&log).iter().map(|&(s, n, _)| (s, n.min(20 - s))).collect();
    assert_eq!(w, vec![(0, 1), (1, 2), (3, 4), (7, 4), (11, 4), (15, 4), (19, 1)], "{w:?}");
    assert_eq!(log.rows_of(IoEvent::DiskDispatch).count(), 11);
}

/// [TC09] Fig. 4, SASEQP on the didactic SEQP: the same file and array as
/// Fig. 3, every window cut at its strip's end, growing from the uncut
/// size: **7 prefetches, 7 disk requests**.
#[test]
fn tc09_fig4_saseqp_seven_prefetches_seven_disk_requests() {
    let log = run("[fs]\nindirect_blocks=false\nstart_block=16\n[output]\nio_log=true\n\
         [workload]\nstreams=1\nrecord='4KiB'\nfile_size='80KiB'\n\
         [array]\nlayout='raid0'\ndisks=5\nstrip='16KiB'\n\
         [readahead]\npolicy='saseqp'\nmax='16KiB'\n[saseqp]\nbase='seqp'\n[seqp]\ninit=1\ngrowth='double'");
    let w: Vec<(i64, i64)> = windows(&log).iter().map(|&(s, n, _)| (s, n.min(20 - s))).collect();
    assert_eq!(w, vec![(0, 1), (1, 2), (3, 1), (4, 4), (8, 4), (12, 4), (16, 4)], "{w:?}");
    assert_eq!(log.rows_of(IoEvent::DiskDispatch).count(), 7);
    for &(s, n) in &w {
        assert_eq!(disk_requests_in(&log, 16 + s, n), 1, "window at page {s}");
    }
}

/// SASEQP on Linux 2.6.18 (the default base), two 16-page strips per max:
/// once the window crossing a strip is cut, every window is one strip and
/// one disk request; plain 2.6.18 splits its windows in two.
#[test]
fn saseqp_on_2_6_18_one_disk_request_per_window() {
    let cfg = |policy: &str| {
        format!(
            "{COMMON}record='4KiB'\nfile_size='1MiB'\n[array]\nlayout='raid0'\ndisks=2\nstrip='64KiB'\n\
             [readahead]\npolicy='{policy}'\nvariant='2.6.18'\nmax='128KiB'"
        )
    };
    let log = run(&cfg("saseqp"));
    let w: Vec<(i64, i64)> = windows(&log).iter().map(|&(s, n, _)| (s, n)).collect();
    assert_eq!(&w[..6], &[(0, 4), (4, 8), (12, 4), (16, 16), (32, 16), (48, 16)], "{w:?}");
    for &(s, n) in w.iter().filter(|w| w.0 < 256) {
        assert_eq!(disk_requests_in(&log, s, n), 1, "window at page {s}");
    }
    let plain = run(&cfg("linux"));
    let p: Vec<(i64, i64)> = windows(&plain).iter().map(|&(s, n, _)| (s, n)).collect();
    assert_eq!(&p[..4], &[(0, 4), (4, 8), (12, 16), (28, 32)], "{p:?}");
    assert_eq!(disk_requests_in(&plain, 28, 32), 2);
}

/// [IEICE13] Figs. 4–5 (algorithms.md §4.3): 2 disks, RAID-0, strip = max
/// = 16 pages, two pages per read. Basic SARA cuts [12,27] to [12,15] and
/// grows the next window from the intact 16; extended SARA extends it to
/// [12,31]; from then on every window is one disk request.
#[test]
fn ieice13_fig4_fig5_sara_windows() {
    let cfg = |policy: &str| {
        format!(
            "{COMMON}record='8KiB'\nfile_size='400KiB'\n[array]\nlayout='raid0'\ndisks=2\nstrip='64KiB'\n\
             [readahead]\npolicy='{policy}'\nmax='64KiB'\n[sara]\nfactor=1"
        )
    };
    let basic = windows(&run(&cfg("sara-basic")));
    assert_eq!(
        &basic[..6],
        &[(0, 4, 2), (4, 8, 4), (12, 4, 12), (16, 16, 16), (32, 16, 32), (48, 16, 48)],
        "{basic:?}"
    );
    let log = run(&cfg("sara-extended"));
    let ext = windows(&log);
    assert_eq!(
        &ext[..6],
        &[(0, 4, 2), (4, 8, 4), (12, 20, 12), (32, 16, 32), (48, 16, 48), (64, 16, 64)],
        "{ext:?}"
    );
    assert_eq!(disk_requests_in(&log, 12, 20), 2, "the extended window keeps its split");
    for &(s, n, _) in &ext[3..6] {
        assert_eq!(disk_requests_in(&log, s, n), 1, "window at page {s}");
    }
}

/// SASEQP and SARA need strips: on a single disk, one error naming the key.
#[test]
fn striping_aware_readahead_needs_a_striped_array() {
    for policy in ["saseqp", "sara-basic", "sara-extended"] {
        let err = Config::from_toml(&format!("[readahead]\npolicy='{policy}'"), &[]).unwrap_err().to_string();
        assert!(err.contains("readahead.policy") && err.contains("single"), "{policy}: {err}");
    }
    for (key, bad) in [("factor", "0"), ("threshold", "-1"), ("strip_kb", "6")] {
        let toml = format!(
            "[array]\nlayout='raid0'\ndisks=2\n[readahead]\npolicy='sara-extended'\n[sara]\n{key}={bad}"
        );
        let err = Config::from_toml(&toml, &[]).unwrap_err().to_string();
        assert!(err.contains(&format!("sara.{key}")), "{key}: {err}");
    }
}

/// SARA's max is the strip unless `readahead.max` is set; the resolved
/// configuration holds it.
#[test]
fn sara_max_defaults_to_the_strip() {
    let cfg = Config::from_toml(
        "[array]\nlayout='raid0'\ndisks=3\nstrip='256KiB'\n[readahead]\npolicy='sara-basic'",
        &[],
    )
    .unwrap();
    assert_eq!(cfg.readahead_max_bytes(), 256 << 10);
    assert_eq!(cfg.sara_factor(), 6);
    let linux = Config::from_toml("[array]\nlayout='raid0'\ndisks=3\nstrip='256KiB'", &[]).unwrap();
    assert_eq!(linux.readahead_max_bytes(), 1536 << 10, "md: two stripes");
}
