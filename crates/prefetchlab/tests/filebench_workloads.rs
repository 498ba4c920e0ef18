//! FileBench-style workloads through the whole stack (issue 8): a file set
//! read whole file by file, and rate-limited video streams.

use prefetchlab::{simulate, Config};

const ARRAY: &str = "[array]\nlayout = 'raid0'\ndisks = 3\nstrip = '256KiB'\n";

#[test]
fn fileserver_threads_read_whole_files_and_sara_splits_fewer_requests() {
    let run = |policy: &str| {
        let toml = format!(
            "{ARRAY}[readahead]\npolicy = '{policy}'\nmax = '256KiB'\n[workload]\nkind = 'fileserver'\n\
             streams = 8\nfiles = 200\nfile_size = '1MiB'\nrecord = '64KiB'\nrequests = 5\n"
        );
        simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap().metrics
    };
    let ra = run("linux");
    let sara = run("sara-basic");
    // the same files read by the same threads: the same requests and bytes
    assert_eq!(ra.app_requests, sara.app_requests);
    assert_eq!(ra.bytes_read, sara.bytes_read);
    assert!(ra.bytes_read > 8 * 5 * 4096, "whole files, not one record each");
    assert!(sara.request_splits < ra.request_splits, "{} vs {}", sara.request_splits, ra.request_splits);
    let web = Config::from_toml(
        &format!("{ARRAY}[workload]\nkind = 'webserver'\nstreams = 4\nfiles = 100\nfile_size = '16KiB'\nrecord = '16KiB'\nrequests = 10\n"),
        &[],
    )
    .unwrap();
    assert!(simulate(&web).unwrap().metrics.app_requests >= 40);
}

/// FileBench's webserver appends to its log after every 10 files: buffered,
/// written at ext3's next journal commit (every 5 s) in the journal thread's
/// context, after the file set on the disks; the files read are those of a
/// run without the log; a commit due after the last read is not made.
#[test]
fn the_webserver_appends_to_its_log_and_the_journal_writes_it() {
    for layout in ["raid0'\ndisks = 3", "raid5'\ndisks = 5"] {
        let toml = format!(
            "[array]\nlayout = '{layout}\nstrip = '64KiB'\n[workload]\nkind = 'webserver'\nstreams = 4\n\
             files = 100\nfile_size = '64KiB'\nrecord = '16KiB'\nrequests = 20\nthink_time = '100ms'\n\
             [output]\nio_log = true\n"
        );
        let with = simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap();
        let without =
            simulate(&Config::from_toml(&toml, &["workload.log_append=0".into()]).unwrap()).unwrap();
        let (m, m0) = (&with.metrics, &without.metrics);
        // 4 threads × 20 files: two appends each, of 1 to 16 KiB
        assert_eq!((m.writes, m0.writes), (8, 0));
        assert!(m.bytes_written >= 8 && m.bytes_written <= 8 * 16384, "{}", m.bytes_written);
        assert_eq!((m.bytes_read, m.app_requests), (m0.bytes_read, m0.app_requests + 8));
        // 20 files of about 4 reads 100 ms apart: the first appends at about 4 s,
        // committed at 5 s; the last at the end, whose commit (10 s) is not made
        assert!(m.sim_time_s > 6.0 && m.sim_time_s < 10.0, "{}", m.sim_time_s);
        let log = with.io_log.as_ref().unwrap();
        let journal: Vec<usize> = (0..log.len())
            .filter(|&i| {
                log.event[i] == prefetchlab::metrics::IoEvent::BlockRequest as u8 && log.stream[i] == 4
            })
            .collect();
        assert!(!journal.is_empty(), "no journal write");
        // the log file lies after the file set: beyond every block read
        let read_max = (0..log.len())
            .filter(|&i| {
                log.event[i] == prefetchlab::metrics::IoEvent::BlockRequest as u8 && log.stream[i] < 4
            })
            .map(|i| log.array_block[i])
            .max()
            .unwrap();
        assert!(journal.iter().all(|&i| log.array_block[i] > read_max));
        let writes = (0..log.len())
            .filter(|&i| log.event[i] == prefetchlab::metrics::IoEvent::DiskWriteDispatch as u8);
        assert!(writes.count() >= journal.len());
        if layout.starts_with("raid5") {
            assert!(m.rmw_stripes + m.rcw_stripes > 0, "md's parity work for a partial stripe");
        }
    }
}

/// Each journal commit writes the log's pages from where the previous one
/// ended (its partial last page again), no page skipped; a run bounded by
/// `run.duration` that ends before it is not lengthened by a commit due
/// after its last read.
#[test]
fn journal_commits_follow_each_other_and_end_with_the_reads() {
    let toml = "[array]\nlayout = 'raid0'\ndisks = 2\nstrip = '64KiB'\n[fs]\nindirect_blocks = false\n\
                [workload]\nkind = 'webserver'\nstreams = 2\nfiles = 100\nfile_size = '16KiB'\n\
                record = '16KiB'\nrequests = 60\nthink_time = '300ms'\n[output]\nio_log = true\n";
    let r = simulate(&Config::from_toml(toml, &[]).unwrap()).unwrap();
    let log = r.io_log.as_ref().unwrap();
    let commits: Vec<(i64, i64)> = (0..log.len())
        .filter(|&i| log.event[i] == prefetchlab::metrics::IoEvent::BlockRequest as u8 && log.stream[i] == 2)
        .map(|i| (log.array_block[i], log.pages[i]))
        .collect();
    assert!(commits.len() >= 3, "{commits:?}");
    for w in commits.windows(2) {
        let end = w[0].0 + w[0].1;
        assert!(w[1].0 == end || w[1].0 == end - 1, "a gap or a page written twice: {commits:?}");
    }
    // 12 appends of 1 to 16 KiB: the pages written cover what was appended before the last commit
    let written = commits.last().map(|c| c.0 + c.1).unwrap() - commits[0].0;
    assert!((1..=12 * 4).contains(&written), "{written}");
    // the reads end at 30.9 s; the commit due at 35 s is not made, and a duration that
    // ends between the two does not lengthen the run
    assert!(r.metrics.sim_time_s > 30.0 && r.metrics.sim_time_s < 34.0, "{}", r.metrics.sim_time_s);
    let bounded = simulate(&Config::from_toml(toml, &["run.duration='34s'".into()]).unwrap()).unwrap();
    assert_eq!(bounded.metrics.sim_time_s, r.metrics.sim_time_s);
}

#[test]
fn a_videoserver_stream_keeps_its_rate() {
    let toml = format!(
        "{ARRAY}[workload]\nkind = 'videoserver'\nstreams = 2\nfile_size = '4MiB'\nrecord = '64KiB'\nrate = '1MiB'\n"
    );
    let m = simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap().metrics;
    // 4 MiB at 1 MiB/s: about 4 s, not the fraction of a second the disks need
    assert!(m.sim_time_s > 3.9 && m.sim_time_s < 4.5, "{}", m.sim_time_s);
    let fast =
        simulate(&Config::from_toml(&toml.replace("rate = '1MiB'", "rate = 0"), &[]).unwrap()).unwrap();
    assert!(fast.metrics.sim_time_s < 1.0);
    // a video's rate, below a device's: at 2 Mbit/s (250 kB/s) the 16 reads of
    // 64 KiB of a 1 MiB file are issued 262 ms apart, the last at 3.93 s
    let sd =
        toml.replace("file_size = '4MiB'", "file_size = '1MiB'").replace("rate = '1MiB'", "rate = '250KB'");
    let m = simulate(&Config::from_toml(&sd, &[]).unwrap()).unwrap().metrics;
    assert!(m.sim_time_s > 3.93 && m.sim_time_s < 4.2, "{}", m.sim_time_s);
}

#[test]
fn bad_file_sets_name_the_key() {
    for (bad, key) in [("files = 0", "workload.files"), ("gamma_shape = -1.0", "workload.gamma_shape")] {
        let toml = format!("[workload]\nkind = 'fileserver'\n{bad}\n");
        let err = Config::from_toml(&toml, &[]).unwrap_err().to_string();
        assert!(err.contains(key), "{err}");
    }
    // the log append: the webserver's, at most 1 MiB
    let err = Config::from_toml("[workload]\nkind = 'fileserver'\nlog_append = '8KiB'\n", &[]).unwrap_err();
    assert!(
        err.to_string().contains("`workload.log_append`")
            && err.to_string().contains("\"fileserver\" has none")
    );
    let err = Config::from_toml("[workload]\nkind = 'webserver'\nlog_append = '2MiB'\n", &[]).unwrap_err();
    assert!(err.to_string().contains("0 (no log) to 1MiB"), "{err}");
    Config::from_toml("[workload]\nkind = 'webserver'\nlog_append = 0\n", &[]).unwrap();
    // given at all to another workload, FileBench's own value included, it is an error;
    // a webserver's resolved configuration carries it, no other's does
    assert!(Config::from_toml("[workload]\nlog_append = '16KiB'\n", &[]).is_err());
    let web = Config::from_toml("[workload]\nkind = 'webserver'\n", &[]).unwrap();
    assert_eq!(web.workload.log_append.map(|s| s.0), Some(16384));
    assert!(!Config::from_toml("", &[]).unwrap().to_json().contains("log_append"));
}

/// [IEICE13] Fig. 11's setting through the stack: the same file set on an
/// aged volume (`fs.aging`) is fragmented (layout score below 1, several
/// extents per file), so the same reads take more and smaller disk
/// requests; extended SARA, which keeps windows at least `intact_size`
/// across fragments, still reads faster than basic SARA, which shrinks them
/// to each fragment; and aging is deterministic for a seed.
#[test]
fn an_aged_file_system_fragments_the_files_and_extended_sara_reads_them_faster() {
    let run = |policy: &str, ops: u64| {
        let toml = format!(
            "{ARRAY}[readahead]\npolicy = '{policy}'\nmax = '256KiB'\n[workload]\nkind = 'fileserver'\n\
             streams = 16\nfiles = 300\nfile_size = '4MiB'\nrecord = '64KiB'\nrequests = 4\n\
             [fs.aging]\nops = {ops}\nfile_size = '256KiB'\n"
        );
        simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap().metrics
    };
    let fresh = run("sara-basic", 0);
    let aged = run("sara-basic", 100_000);
    assert_eq!((fresh.layout_score, fresh.mean_file_extents), (1.0, 1.0));
    assert!(aged.layout_score < 1.0 && aged.mean_file_extents > 2.0, "{aged:?}");
    assert_eq!(fresh.bytes_read, aged.bytes_read);
    assert!(aged.disk_requests > fresh.disk_requests, "{} vs {}", aged.disk_requests, fresh.disk_requests);
    assert!(aged.mean_disk_request_kib.unwrap() < fresh.mean_disk_request_kib.unwrap());
    let ext = run("sara-extended", 100_000);
    assert!(
        ext.bandwidth_mb_s > aged.bandwidth_mb_s,
        "ext {} basic {}",
        ext.bandwidth_mb_s,
        aged.bandwidth_mb_s
    );
    let again = run("sara-basic", 100_000);
    assert_eq!(again.bandwidth_mb_s.to_bits(), aged.bandwidth_mb_s.to_bits());
    assert_eq!(again.disk_requests, aged.disk_requests);
}

#[test]
fn an_aged_volume_larger_than_the_array_is_a_clear_error() {
    let toml = format!(
        "{ARRAY}[disk]\nmodel = 'cheetah-15k5'\n[workload]\nkind = 'fileserver'\nfiles = 10\nfile_size = '1MiB'\n\
         [fs.aging]\nops = 10\nvolume = '1TiB'\n"
    );
    let err = simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap_err().to_string();
    assert!(err.contains("fs.aging") && err.contains("the array holds"), "{err}");
}
