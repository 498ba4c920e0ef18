//! CFQ (models.md §2.3) through the whole stack: 16 IOzone readers of 16 MiB
//! files on one Cheetah 15K.5 under Linux readahead. CFQ's idle window keeps
//! the disk on one reader between its reads, as the anticipatory scheduler
//! does, where deadline and C-LOOK seek from file to file; writes never
//! reach it here, so its write queue does not enter.

use prefetchlab::config::{Config, Layout, SchedulerKind};

fn bandwidth(scheduler: SchedulerKind) -> f64 {
    let mut c = Config::default();
    c.array.layout = Layout::Single;
    c.array.disks = 1;
    c.disk.scheduler = scheduler;
    c.workload.streams = 16;
    c.workload.record.0 = 64 << 10;
    c.workload.file_size.0 = 16 << 20;
    c.check().unwrap();
    prefetchlab::simulate(&c).unwrap_or_else(|e| panic!("{e}")).metrics.bandwidth_mb_s
}

#[test]
fn cfq_idles_for_sequential_readers_as_anticipation_does() {
    let (cfq, deadline, antic) = (
        bandwidth(SchedulerKind::Cfq),
        bandwidth(SchedulerKind::Deadline),
        bandwidth(SchedulerKind::Anticipatory),
    );
    // measured: CFQ 121.8 MB/s, anticipatory 120.3, deadline 63.2
    assert!(cfq > 1.5 * deadline, "CFQ {cfq} MB/s vs deadline {deadline} MB/s");
    assert!((cfq / antic - 1.0).abs() < 0.1, "CFQ {cfq} MB/s vs anticipatory {antic} MB/s");
}
