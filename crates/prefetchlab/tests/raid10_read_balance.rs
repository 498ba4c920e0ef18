//! RAID-10 reads go where md's `read_balance` sends them (raid10.c,
//! models.md §3.4), through the whole stack: a read continuing where a
//! disk's head is stays on that disk, an idle disk is taken next, then the
//! nearest head. Two O_DIRECT sequential readers on a 2-disk RAID-10 (a
//! mirror) thus settle one on each disk, and neither disk seeks between
//! their files.

use prefetchlab::config::{Config, Layout};

fn mirror(streams: u32) -> prefetchlab::metrics::Report {
    let mut c = Config::default();
    c.array.layout = Layout::Raid10;
    c.array.disks = 2;
    c.array.strip.0 = 64 << 10;
    c.workload.streams = streams;
    c.workload.direct = true;
    c.workload.record.0 = 64 << 10;
    c.workload.file_size.0 = 32 << 20;
    c.check().unwrap();
    prefetchlab::simulate(&c).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn two_sequential_readers_settle_one_on_each_copy() {
    let r = mirror(2);
    let d = &r.disks;
    // each disk serves about half of the 1,024 reads, all but a few from one file
    assert!(d.iter().all(|d| d.requests > 400), "{:?}", d.iter().map(|d| d.requests).collect::<Vec<_>>());
    for disk in d {
        assert!(
            disk.mean_seek_distance_cyl.unwrap() < 1.0,
            "disk {} seeks {} cylinders on average",
            disk.disk,
            disk.mean_seek_distance_cyl.unwrap()
        );
    }
    // one reader: every read continues on the disk it started on
    let one = mirror(1);
    let requests: Vec<u64> = one.disks.iter().map(|d| d.requests).collect();
    assert_eq!(requests.iter().filter(|&&n| n == 0).count(), 1, "one disk idle: {requests:?}");
}
