//! End-to-end properties of the engine: every run drains, results are
//! deterministic, and the figures add up.

use prefetchlab::{simulate, Config};

fn cfg(extra: &str) -> Config {
    Config::from_toml(
        &format!(
            "[array]\nlayout='raid0'\ndisks=5\nstrip='128KiB'\n[workload]\nstreams=4\nrecord='64KiB'\nfile_size='8MiB'\n{extra}"
        ),
        &[],
    )
    .unwrap()
}

#[test]
fn a_run_reads_every_byte_and_drains() {
    let r = simulate(&cfg("")).unwrap();
    let m = &r.metrics;
    assert_eq!(m.bytes_read, (4 * 8) << 20);
    assert_eq!(m.app_requests, 4 * 128);
    assert!(m.bandwidth_mb_s > 0.0 && m.sim_time_s > 0.0);
    assert!(m.disk_requests > 0);
    assert_eq!(r.streams.len(), 4);
    assert!(r.streams.iter().all(|s| s.bytes_read == 8 << 20));
    eprintln!("{}", r.to_json());
}

#[test]
fn same_seed_same_result() {
    let mut a = simulate(&cfg("[run]\nseed=3")).unwrap().metrics;
    let mut b = simulate(&cfg("[run]\nseed=3")).unwrap().metrics;
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    a.requests_per_wall_s = 0.0;
    b.requests_per_wall_s = 0.0;
    assert_eq!(a, b);
}

#[test]
fn direct_io_and_random_reads_complete() {
    let r = simulate(&cfg("direct=true")).unwrap();
    assert_eq!(r.metrics.bytes_read, (4 * 8) << 20);
    assert_eq!(r.metrics.prefetched_pages, 0);
    let r = simulate(&cfg("kind='random'\nrequests=50")).unwrap();
    assert_eq!(r.metrics.app_requests, 200);
}

#[test]
fn a_figure_over_nothing_is_null_not_zero() {
    // direct I/O prefetches nothing and meets no array cache: no accuracy, no array-cache hit
    // ratio (an accuracy of 0 would say every prefetch was wasted)
    let r = simulate(&cfg("direct=true")).unwrap();
    let m = &r.metrics;
    assert_eq!((m.prefetched_pages, m.prefetch_accuracy, m.array_cache_hit_ratio), (0, None, None));
    assert!(m.latency_mean_ms.unwrap() > 0.0 && m.mean_disk_request_kib.unwrap() > 0.0);
    let json: serde_json::Value = serde_json::from_str(&r.to_json()).unwrap();
    assert!(json["metrics"]["prefetch_accuracy"].is_null(), "{}", json["metrics"]);
    assert!(json["metrics"]["array_cache_hit_ratio"].is_null());
    assert!(json["metrics"]["latency_p99_ms"].as_f64().unwrap() > 0.0);
    // with readahead, the accuracy is a number
    let r = simulate(&cfg("")).unwrap();
    assert!(r.metrics.prefetch_accuracy.unwrap() > 0.9, "{:?}", r.metrics);
}

#[test]
fn array_cache_with_obl_prefetches_and_serves_hits() {
    let base = "[readahead]\npolicy='none'\n[array_cache]\nsize='64MiB'\n";
    let none = simulate(&cfg(&format!("{base}prefetch='none'"))).unwrap().metrics;
    let obl = simulate(&cfg(&format!("{base}prefetch='obl'"))).unwrap().metrics;
    assert_eq!(none.bytes_read, obl.bytes_read);
    assert_eq!(none.prefetched_blocks, 0);
    assert!(obl.prefetched_blocks > 0);
    assert!(obl.array_cache_hit_ratio.unwrap() > none.array_cache_hit_ratio.unwrap(), "{obl:?}");
}

#[test]
fn io_log_records_windows_and_disk_requests() {
    let r = simulate(&cfg("[output]\nio_log=true")).unwrap();
    let log = r.io_log.expect("io_log requested");
    use prefetchlab::metrics::IoEvent;
    let dispatched = log.rows_of(IoEvent::DiskDispatch).count() as u64;
    assert_eq!(dispatched, r.metrics.disk_requests);
    assert_eq!(log.rows_of(IoEvent::DiskComplete).count() as u64, dispatched);
    assert!(log.time_ns.windows(2).all(|w| w[0] <= w[1]), "rows in time order");
    assert!(simulate(&cfg("")).unwrap().io_log.is_none());
}

/// An indirect block prefetched into the array cache (OBL fetches the block
/// after a data run, which is the indirect block) is later read as metadata
/// and served at once: the data read waiting for it must still be sent, and
/// an O_DIRECT request whose parts complete at once must still finish.
#[test]
fn metadata_served_by_the_array_cache_does_not_strand_reads() {
    for direct in [false, true] {
        let sets: Vec<String> = [
            "workload.record=\"4KiB\"".to_string(),
            format!("workload.direct={direct}"),
            "readahead.policy=\"none\"".into(),
            "array_cache.size=\"64MiB\"".into(),
            "array_cache.prefetch=\"obl\"".into(),
            "workload.think_time=\"5ms\"".into(),
        ]
        .into();
        let base =
            "[array]\nlayout='raid0'\ndisks=5\nstrip='128KiB'\n[workload]\nstreams=4\nfile_size='8MiB'";
        let r = simulate(&Config::from_toml(base, &sets).unwrap()).unwrap();
        assert_eq!(r.metrics.bytes_read, (4 * 8) << 20, "direct={direct}");
        assert!(r.metrics.array_cache_hit_ratio.unwrap() > 0.0);
    }
}

/// Drives that queue commands move a completion they have reported when a
/// command reaching them takes the bus while a read sends its blocks
/// (`Device::take_moved`): the engine drops the completion it scheduled
/// first and finishes the request once, at the moved time. This run moves
/// 992 completions (counted once, with a print in the engine).
#[test]
fn a_completion_the_drive_moves_finishes_its_request_once() {
    let toml = "[array]\nlayout='raid0'\ndisks=2\nstrip='64KiB'\n[disk]\nmodel='barracuda-7200.10'\nqueue_depth=32\n\
                [workload]\nstreams=48\nrecord='16KiB'\nfile_size='2MiB'\ndirect=true\n[output]\nio_log=true";
    let r = simulate(&Config::from_toml(toml, &[]).unwrap()).unwrap();
    let m = &r.metrics;
    assert_eq!(m.bytes_read, (48 * 2) << 20);
    let log = r.io_log.expect("io_log requested");
    use prefetchlab::metrics::IoEvent;
    // in time order, each request dispatched completes once before its tag
    // is dispatched again, and no tag completes that is not out
    let mut out = std::collections::HashSet::new();
    let (mut dispatched, mut completed) = (0u64, 0u64);
    for i in 0..log.len() {
        let key = (log.disk[i], log.issued[i]);
        if log.event[i] == IoEvent::DiskDispatch as u8 {
            assert!(out.insert(key), "dispatched while out: {key:?}");
            dispatched += 1;
        } else if log.event[i] == IoEvent::DiskComplete as u8 {
            assert!(out.remove(&key), "completed twice or never dispatched: {key:?} at {}", log.time_ns[i]);
            completed += 1;
        }
    }
    assert!(out.is_empty());
    assert_eq!((dispatched, completed), (m.disk_requests, m.disk_requests));
}
