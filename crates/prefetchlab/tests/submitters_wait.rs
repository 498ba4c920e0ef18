//! Submitters that wait (issue 8; models.md §2, the kernel's
//! `get_request_wait`): a reader whose readahead needs a request of a full
//! disk queue sleeps until one is free.

use prefetchlab::{simulate, Config};

fn run(extra: &str) -> prefetchlab::metrics::Metrics {
    let toml = format!(
        "[array]\nlayout = 'raid0'\ndisks = 2\nstrip = '64KiB'\n[readahead]\nmax = '512KiB'\n\
         [workload]\nstreams = 32\nfile_size = '8MiB'\nrecord = '64KiB'\n{extra}"
    );
    simulate(&Config::from_toml(&toml, &[]).unwrap()).unwrap().metrics
}

/// Below `nr_requests` nothing sleeps: a run is the same either way.
#[test]
fn a_queue_that_never_fills_changes_nothing() {
    let wait = run("[block]\nwait_on_full = true\n");
    let grow = run("[block]\nwait_on_full = false\n");
    assert_eq!(wait.queue_full_events, 0);
    assert_eq!(wait.request_sleep_s, 0.0);
    assert!(Config::default().block.wait_on_full, "the kernel's behaviour is the default");
    let mut a = wait.clone();
    let mut b = grow;
    a.wall_time_s = 0.0;
    b.wall_time_s = 0.0;
    a.requests_per_wall_s = 0.0;
    b.requests_per_wall_s = 0.0;
    assert_eq!(a, b);
}

/// With 4 requests per queue, 32 readers' windows fill the queues: parts
/// sleep, the readers with them, and every request still completes.
#[test]
fn a_full_queue_puts_readers_to_sleep() {
    let wait = run("[block]\nnr_requests = 4\nwait_on_full = true\n");
    let grow = run("[block]\nnr_requests = 4\nwait_on_full = false\n");
    assert!(wait.queue_full_events > 0 && grow.queue_full_events > 0);
    assert!(wait.request_sleep_s > 0.0, "{wait:?}");
    assert_eq!(grow.request_sleep_s, 0.0);
    assert_eq!(wait.app_requests, 32 * 128);
    assert_eq!(wait.bytes_read, grow.bytes_read);
    assert_ne!(wait.sim_time_s, grow.sim_time_s, "sleeping changes the run");
}

/// A reader asleep for a request slot holds the page it will read next, and
/// every reader holds a cached page through the readahead call its marker
/// starts (the kernel's reader holds a reference to it through the call):
/// with 32 readers' windows in 2 MiB of memory, reclaim for the others' (or
/// its own) windows would otherwise take it, and the reader would find it
/// gone (the run then ends with an internal error naming the page).
#[test]
fn a_reader_asleep_for_a_request_slot_keeps_the_page_it_will_read() {
    let m = run("[block]\nnr_requests = 4\n[host]\nmemory = '2MiB'\n");
    assert!(m.request_sleep_s > 0.0 && m.wasted_prefetch_pages > 0, "{m:?}");
    assert_eq!(m.app_requests, 32 * 128);
}
