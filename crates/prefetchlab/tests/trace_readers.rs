//! Each trace reader on its real sample in `../shared/traces`: the record
//! count, reads and bytes its PROVENANCE.md gives, the format detected
//! from the content where it can be, and the same records from a gzip copy.

mod common;

use prefetchlab::trace::{detect, open, Format, Op, Record};
use std::io::Write;
use std::path::Path;

fn read_all(path: &Path, format: Option<Format>) -> Vec<Record> {
    let mut src = open(path, format).unwrap_or_else(|e| panic!("{e}"));
    let mut out = Vec::new();
    while src.next_batch(&mut out, 4096).unwrap_or_else(|e| panic!("{e}")) > 0 {}
    out
}

/// (folder/file, format, detected from content?, records, reads, read bytes, written bytes;
/// 0 / 0 where PROVENANCE.md gives no byte totals for the file)
const SAMPLES: [(&str, Format, bool, usize, usize, u64, u64); 7] = [
    ("cloudphysics/cloudPhysicsIO.vscsi", Format::Vscsi, true, 113_872, 46_974, 1_797_412_352, 2_408_565_760),
    ("fiu-mail-excerpt/smalltrace.csv", Format::Fiu, true, 10_000, 8_905, 36_474_880, 4_485_120),
    ("arc-p6/P6.lis", Format::Arc, true, 519_711, 519_711, 6_488_126_976, 0),
    ("msr-sample/msr-cambridge1-sample.csv", Format::Msr, true, 1_000, 508, 6_108_672, 3_580_928),
    ("websearch-excerpt/wsrch-small.trace", Format::Mqsim, false, 24_783, 24_779, 382_085_120, 32_768),
    ("tpcc/tpcc-small.trace", Format::Mqsim, false, 6_999, 4_381, 36_315_136, 23_403_520),
    ("postmark/ssd-postmark-aligned2.trace", Format::Disksim, true, 62_257, 51_780, 0, 0),
];

#[test]
fn every_reader_reads_its_real_sample() {
    let Some(dir) = common::traces() else { return };
    for (file, format, detectable, records, reads, read_bytes, write_bytes) in SAMPLES {
        let path = dir.join(file);
        if detectable {
            assert_eq!(detect(&path).unwrap(), format, "{file}");
        } else {
            // integer times: DiskSim's ms or MQSim's ns, the user says which
            assert!(detect(&path).unwrap_err().to_string().contains("give the format"), "{file}");
        }
        let recs = read_all(&path, Some(format));
        let r = recs.iter().filter(|r| r.op == Op::Read).count();
        let rb: u64 = recs.iter().filter(|r| r.op == Op::Read).map(|r| r.size_bytes).sum();
        let wb: u64 = recs.iter().filter(|r| r.op == Op::Write).map(|r| r.size_bytes).sum();
        println!("{file}: {} records, {r} reads, {rb} / {wb} bytes read / written", recs.len());
        assert_eq!((recs.len(), r), (records, reads), "{file}");
        if read_bytes + write_bytes > 0 {
            assert_eq!((rb, wb), (read_bytes, write_bytes), "{file}");
        }
        assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns), "{file}: time order");
    }
}

#[test]
fn a_gzip_copy_gives_the_same_records() {
    let Some(dir) = common::traces() else { return };
    let src = dir.join("msr-sample/msr-cambridge1-sample.csv");
    let text = std::fs::read(&src).unwrap();
    let tmp = std::env::temp_dir().join(format!("prefetchlab-gz-{}.csv.gz", std::process::id()));
    let mut e =
        flate2::write::GzEncoder::new(std::fs::File::create(&tmp).unwrap(), flate2::Compression::default());
    e.write_all(&text).unwrap();
    e.finish().unwrap();
    assert_eq!(read_all(&tmp, None), read_all(&src, None));
    std::fs::remove_file(&tmp).ok();
}
