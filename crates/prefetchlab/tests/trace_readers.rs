//! Each trace reader on its real sample in `../shared/traces` (and
//! DiskSim's validation traces in `../shared/disksim-valid`): the record
//! count, reads and bytes its PROVENANCE.md gives, the format detected
//! from the content where it can be, the same records from a compressed
//! copy of each kind; and the table of bad inputs every format must refuse
//! cleanly, naming the file, the line or byte, and the field.

mod common;
mod compress;

use prefetchlab::trace::lines::Compression;
use prefetchlab::trace::{detect, open, Format, Op, Record};
use std::path::{Path, PathBuf};

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

/// libCacheSim's csv of the CloudPhysics sample (`version,time,op,size,lbn`;
/// PROVENANCE.md: the same 113,872 requests as the `.vscsi`, times in whole
/// seconds) is told by its header and gives the binary trace's requests, one
/// for one, on a clock of seconds.
#[test]
fn the_cloudphysics_csv_is_the_vscsi_trace_in_seconds() {
    let Some(dir) = common::traces() else { return };
    let csv_path = dir.join("cloudphysics/cloudPhysicsIO.csv");
    assert_eq!(detect(&csv_path).unwrap(), Format::VscsiCsv);
    let csv = read_all(&csv_path, None);
    let vscsi = read_all(&dir.join("cloudphysics/cloudPhysicsIO.vscsi"), None);
    let reads = |rs: &[Record]| rs.iter().filter(|r| r.op == Op::Read).count();
    assert_eq!((csv.len(), reads(&csv)), (113_872, 46_974));
    assert_eq!((csv.len(), reads(&csv)), (vscsi.len(), reads(&vscsi)), "the .vscsi's count and read share");
    let request = |r: &Record| (r.op, r.offset_bytes, r.size_bytes, r.stream);
    assert!(csv.iter().map(request).eq(vscsi.iter().map(request)), "the same requests in the same order");
    // whole seconds: each record within a second of the binary's µs clock, 7,200 s in all
    assert!(csv.iter().all(|r| r.time_ns % 1_000_000_000 == 0));
    assert!(csv.iter().zip(&vscsi).all(|(c, v)| c.time_ns.abs_diff(v.time_ns) < 1_000_000_000));
    assert_eq!(csv.last().unwrap().time_ns, 7_200_000_000_000);
    assert!(csv.windows(2).all(|w| w[0].time_ns <= w[1].time_ns), "time order");
}

#[test]
fn a_compressed_copy_of_each_kind_gives_the_same_records() {
    let Some(dir) = common::traces() else { return };
    let src = dir.join("msr-sample/msr-cambridge1-sample.csv");
    let text = std::fs::read(&src).unwrap();
    let want = read_all(&src, None);
    for c in compress::ALL {
        // the name says nothing: the magic bytes tell
        let tmp = tmp_file("copies", &format!("copy-{}.trace", c.name()), &compress::compress(c, &text));
        assert_eq!(read_all(&tmp, None), want, "{}", c.name());
    }
    std::fs::remove_dir_all(tmp_dir("copies")).ok();
}

#[test]
fn disksims_validation_traces_are_read_and_detected() {
    let Some(dir) = common::disksim_valid() else { return };
    let mut traces: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "trace"))
        .collect();
    traces.push(dir.join("cheetah15k5/random.trace"));
    assert!(traces.len() >= 5, "{traces:?}");
    for path in traces {
        assert_eq!(detect(&path).unwrap(), Format::DisksimValidate, "{}", path.display());
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|f| !f.is_empty())
            .collect();
        let recs = read_all(&path, None);
        assert_eq!(recs.len(), lines.len(), "{}", path.display());
        let sectors: u64 = lines.iter().map(|f| f[3].parse::<u64>().unwrap()).sum();
        assert_eq!(recs.iter().map(|r| r.size_bytes).sum::<u64>(), sectors * 512, "{}", path.display());
        let writes = lines.iter().filter(|f| f[0] == "W").count();
        assert_eq!(recs.iter().filter(|r| r.op == Op::Write).count(), writes, "{}", path.display());
        // arrival i+1 = arrival i + service i + gap i (µs)
        let (service_us, gap_us): (f64, f64) = (lines[0][4].parse().unwrap(), lines[0][5].parse().unwrap());
        assert_eq!(recs[1].time_ns, ((service_us + gap_us) * 1000.0).round() as u64, "{}", path.display());
        assert!(recs.windows(2).all(|w| w[0].time_ns < w[1].time_ns), "{}: time order", path.display());
    }
}

#[test]
fn what_trace_convert_writes_lcs_csv_reads_back() {
    let Some(dir) = common::traces() else { return };
    let src = dir.join("msr-sample/msr-cambridge1-sample.csv");
    let want = read_all(&src, None);
    let out = tmp_dir("convert").join("msr.lcs.csv");
    std::fs::create_dir_all(tmp_dir("convert")).unwrap();
    let mut source = open(&src, None).unwrap();
    let done = prefetchlab::trace::convert::to_lcs_csv(&mut *source, 4096, &out, &mut |_| true).unwrap();
    assert_eq!(detect(&out).unwrap(), Format::LcsCsv);
    let got = read_all(&out, None);
    // one record per block touched: the block's start, the bytes asked of it
    assert_eq!(got.len() as u64, done.blocks);
    let bytes = |rs: &[Record], op| rs.iter().filter(|r| r.op == op).map(|r| r.size_bytes).sum::<u64>();
    assert_eq!(
        (bytes(&got, Op::Read), bytes(&got, Op::Write)),
        (bytes(&want, Op::Read), bytes(&want, Op::Write))
    );
    assert!(got.iter().all(|r| r.offset_bytes % 4096 == 0 && r.size_bytes <= 4096));
    assert_eq!(got.last().unwrap().time_ns, want.last().unwrap().time_ns / 1000 * 1000);
    assert_eq!(got[0].offset_bytes, want[0].offset_bytes / 4096 * 4096);
    std::fs::remove_dir_all(tmp_dir("convert")).ok();
}

/// A conversion its caller stops (Ctrl-C) leaves the output as it was and
/// no partial file behind; `trace stats` stops the same way.
#[test]
fn a_conversion_stopped_midway_leaves_the_output_as_it_was() {
    let lines: String = (0..20_000).map(|i| format!("0,{},4096,r,{}.0\n", i * 8, i)).collect();
    let src = tmp_file("stopped", "t.spc", lines.as_bytes());
    let out = tmp_file("stopped", "out.csv", b"earlier\n");
    let mut source = open(&src, None).unwrap();
    let mut calls = 0;
    let e = prefetchlab::trace::convert::to_lcs_csv(&mut *source, 4096, &out, &mut |_| {
        calls += 1;
        calls < 2
    })
    .unwrap_err();
    assert!(matches!(e, prefetchlab::error::Error::Cancelled), "{e}");
    assert_eq!(std::fs::read(&out).unwrap(), b"earlier\n");
    let left: Vec<_> =
        std::fs::read_dir(tmp_dir("stopped")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 2, "no partial file: {left:?}");
    let opts = prefetchlab::trace::ReadOptions::default();
    let e = prefetchlab::trace::stats::stats(&src, None, &opts, 4096, &mut |_, _| false).unwrap_err();
    assert!(matches!(e, prefetchlab::error::Error::Cancelled), "{e}");
    std::fs::remove_dir_all(tmp_dir("stopped")).ok();
}

/// The folder of test `test`'s own files, under the system's temporary one.
fn tmp_dir(test: &str) -> PathBuf {
    std::env::temp_dir().join(format!("prefetchlab-trace-readers-{}/{test}", std::process::id()))
}

/// A file of test `test`'s own, in [`tmp_dir`].
fn tmp_file(test: &str, name: &str, bytes: &[u8]) -> PathBuf {
    let dir = tmp_dir(test);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// The records of `path` read as `format`, or the error.
fn try_read(path: &Path, format: Option<Format>) -> prefetchlab::Result<Vec<Record>> {
    let mut src = open(path, format)?;
    let mut out = Vec::new();
    while src.next_batch(&mut out, 5)? > 0 {}
    Ok(out)
}

/// One text format's row of the bad-input table.
struct BadText {
    format: Format,
    /// The lines before a record (a header).
    header: &'static str,
    /// A good record (a dozen of them before the bad one).
    good: &'static str,
    /// Bad lines — a truncated line, a non-numeric field, a negative size
    /// — each with what its error must say.
    bad: [(&'static str, &'static str); 3],
}

const TEXT_BAD: [BadText; 12] = [
    BadText {
        format: Format::Spc,
        header: "",
        good: "0,303567,3584,w,0.0\n",
        bad: [
            ("0,303567,3584", "expected 5 fields"),
            ("0,x,3584,w,0.0", "field 2 (LBA): expected a non-negative integer, found `x`"),
            ("0,1,-512,r,0", "field 3 (Size)"),
        ],
    },
    BadText {
        format: Format::Msr,
        header: "",
        good: "128166385295514663,hm,0,Write,9056014336,2048,2833\n",
        bad: [
            ("128166385295514663,hm,0,Write", "expected 7 fields"),
            ("128166385295514663,hm,0,Read,x,512,1", "field 5 (Offset)"),
            ("128166385295514663,hm,0,Read,0,-512,1", "field 6 (Size)"),
        ],
    },
    BadText {
        format: Format::Disksim,
        header: "",
        good: "7961.833 0 20228336 8 0\n",
        bad: [
            ("7961.833 0 20228336", "expected 5 fields"),
            ("7961.833 0 x 8 0", "field 3 (blkno)"),
            ("7961.833 0 1 -8 0", "field 4 (bcount)"),
        ],
    },
    BadText {
        format: Format::Mqsim,
        header: "",
        good: "11413000 0 657728 16 1\n",
        bad: [
            ("11413000 0 657728", "expected 5 fields"),
            ("11413000 0 x 16 1", "field 3 (lba)"),
            ("11413000 0 1 -16 1", "field 4 (size)"),
        ],
    },
    BadText {
        format: Format::Fiu,
        header: "",
        good: "89967003980393 4253 nfsd 508455704 8 R 6 0 88b9\n",
        bad: [
            ("89967003980393 4253 nfsd", "expected 9 fields"),
            ("89967003980393 4253 nfsd x 8 R 6 0 88b9", "field 4 (lba)"),
            ("89967003980393 4253 nfsd 5 -8 R 6 0 88b9", "field 5 (size)"),
        ],
    },
    BadText {
        format: Format::Arc,
        header: "",
        good: "110765 64 0 0\n",
        bad: [
            ("110765 64", "expected 4 fields"),
            ("x 64 0 0", "field 1 (starting_block)"),
            ("1 -64 0 0", "field 2 (number_of_blocks)"),
        ],
    },
    BadText {
        format: Format::Blkparse,
        header: "",
        good: "  8,0 1 1 0.000001 7 D R 8 + 8 [dd]\n",
        bad: [
            ("  8,0 1 1 0.1 7 D R 8 +", "expected `sector + nsectors`"),
            ("  8,0 1 1 0.1 7 D R x + 8 [dd]", "field 8 (sector)"),
            ("  8,0 1 1 0.1 7 D R 8 + -8 [dd]", "field 10 (nsectors)"),
        ],
    },
    BadText {
        format: Format::Fio,
        header: "fio version 3 iolog\n",
        good: "5 /a read 0 4096\n",
        bad: [
            ("5 /a read 0", "expected `offset length`"),
            ("5 /a read x 1", "field 4 (offset)"),
            ("5 /a read 0 -1", "field 5 (length)"),
        ],
    },
    BadText {
        format: Format::DisksimValidate,
        header: "",
        good: "R Hit 4583176 4 663.0 45422.0\n",
        bad: [
            ("R Hit 4583176 4 663.0", "too few fields"),
            ("R Hit x 4 663.0 1.0", "block is not an integer"),
            ("R Hit 4583176 -4 663.0 1.0", "size is not an integer"),
        ],
    },
    BadText {
        format: Format::LcsCsv,
        header: "time,obj_id,obj_size,op\n",
        good: "0,1,4096,read\n",
        bad: [
            ("0,1", "expected 4 fields, as the header names, found 2"),
            ("0,x,4096,read", "field 2 (obj_id)"),
            ("0,1,-4096,read", "field 3 (obj_size, bytes)"),
        ],
    },
    BadText {
        format: Format::VscsiCsv,
        header: "version,time,op,size,lbn\n",
        good: "1,5633898,2a,512,42932745\n",
        bad: [
            ("1,5633898,2a", "expected 5 fields (version,time,op,size,lbn), found 3"),
            ("1,5633898,write,512,42932745", "field 3 (op): expected a SCSI opcode in hex"),
            ("1,5633898,2a,-512,42932745", "field 4 (size, bytes)"),
        ],
    },
    BadText {
        format: Format::Tencent,
        header: "",
        good: "1538323199,105352008,584,1,1576\n",
        bad: [
            ("1538323199,105352008", "expected 5 fields"),
            ("1538323199,x,8,0,1", "field 2 (Offset)"),
            ("1538323199,8,-8,0,1", "field 3 (Size)"),
        ],
    },
];

/// The binary formats: a good record, a record size, a name the format is
/// told by.
fn binary_good(format: Format) -> (Vec<u8>, usize, &'static str) {
    let mut rec = Vec::new();
    match format {
        Format::Vscsi => {
            rec.extend_from_slice(&[1, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
            rec.extend_from_slice(&0x28u16.to_le_bytes());
            rec.extend_from_slice(&0x0100u16.to_le_bytes());
            rec.extend_from_slice(&8u64.to_le_bytes());
            rec.extend_from_slice(&10u64.to_le_bytes());
            (rec, 32, "bad-vscsi")
        }
        Format::Oracle => {
            rec.extend_from_slice(&5u32.to_le_bytes());
            rec.extend_from_slice(&8u64.to_le_bytes());
            rec.extend_from_slice(&4096u32.to_le_bytes());
            rec.extend_from_slice(&(-1i64).to_le_bytes());
            (rec, 24, "bad.oracleGeneral")
        }
        other => panic!("{} is not binary", other.name()),
    }
}

fn expect_error(path: &Path, format: Option<Format>, want: &[&str]) {
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    match try_read(path, format) {
        Ok(r) => panic!("{name}: read as {} records, expected an error saying {want:?}", r.len()),
        Err(e) => {
            let e = e.to_string();
            assert!(!e.contains('\n') && e.contains(&name), "{name}: {e}");
            for w in want {
                assert!(e.contains(w), "{name}: expected `{w}` in: {e}");
            }
        }
    }
}

#[test]
fn bad_inputs_of_every_format_fail_cleanly() {
    let mut covered = Vec::new();
    for BadText { format, header, good, bad } in TEXT_BAD {
        covered.push(format);
        let name = format.name();
        let good_text = format!("{header}{}", good.repeat(12));
        let first_bad_line = header.lines().count() + 13;
        for (i, (line, want)) in bad.iter().enumerate() {
            let p =
                tmp_file("bad", &format!("{name}-bad{i}.trace"), format!("{good_text}{line}\n").as_bytes());
            expect_error(&p, Some(format), &[&format!(":{first_bad_line}:"), want]);
        }
        // binary garbage where text was expected
        let garbage: Vec<u8> = (0..=255u8).rev().cycle().take(600).collect();
        let p = tmp_file("bad", &format!("{name}-garbage.trace"), &garbage);
        expect_error(&p, Some(format), &[":1:", "not text"]);
        expect_error(&p, None, &[]);
        // an empty file: no records (an error: nothing to replay); no format to tell
        let p = tmp_file("bad", &format!("{name}-empty.trace"), b"");
        expect_error(&p, Some(format), &[&format!("no records read as {name}"), "an empty file"]);
        expect_error(&p, None, &["empty trace"]);
        // a good trace whose compressed stream is cut short
        let many = format!("{header}{}", good.repeat(3000));
        for c in compress::ALL {
            let z = compress::compress(c, many.as_bytes());
            let p = tmp_file("bad", &format!("{name}-cut.{}", c.name()), &z[..z.len() / 2]);
            expect_error(&p, Some(format), &["truncated or corrupt", c.name()]);
        }
    }
    for format in [Format::Vscsi, Format::Oracle] {
        covered.push(format);
        let (rec, size, stem) = binary_good(format);
        let p =
            tmp_file("bad", &format!("{stem}-cut.bin"), &[rec.repeat(3), rec[..size - 5].to_vec()].concat());
        assert_eq!(detect(&p).unwrap(), format);
        expect_error(
            &p,
            None,
            &[&format!("byte {}: a truncated record: {} of its {size} bytes", 3 * size, size - 5)],
        );
        let p = tmp_file("bad", &format!("{stem}-empty.bin"), b"");
        expect_error(&p, Some(format), &[&format!("no records read as {}", format.name())]);
        let many = rec.repeat(20_000);
        for c in compress::ALL {
            let z = compress::compress(c, &many);
            let p = tmp_file("bad", &format!("{stem}-cut.bin.{}", c.name()), &z[..z.len() / 2]);
            expect_error(&p, Some(format), &["byte ", "truncated or corrupt", c.name()]);
        }
    }
    // vSCSI garbage: a record of the wrong version
    let p = tmp_file("bad", "garbage.vscsi", &[0xab; 64]);
    expect_error(&p, Some(Format::Vscsi), &["byte 0: field ver"]);
    for f in Format::ALL {
        assert!(covered.contains(&f), "{} has no row in the bad-input table", f.name());
    }
    assert_eq!(Compression::of(b"0,303567,3584,w"), Compression::None);
    std::fs::remove_dir_all(tmp_dir("bad")).ok();
}

/// A file that gives no record at all is an error naming it and the format
/// it was read as: an empty file, or one of another format that a reader
/// passes over (blkparse reads only its request events).
#[test]
fn a_trace_of_no_records_is_an_error() {
    let spc = tmp_file("no-records", "t.spc", b"0,0,4096,R,0.0\n0,8,4096,R,0.1\n");
    expect_error(
        &spc,
        Some(Format::Blkparse),
        &["t.spc", "no records read as blkparse", "not a blkparse trace"],
    );
    assert_eq!(try_read(&spc, Some(Format::Spc)).unwrap().len(), 2);
    let empty = tmp_file("no-records", "empty.spc", b"");
    expect_error(&empty, Some(Format::Spc), &["empty.spc", "no records read as spc", "an empty file"]);
    let oracle = tmp_file("no-records", "x.oracleGeneral", b"");
    expect_error(&oracle, Some(Format::Oracle), &["no records read as oracle"]);
}

/// A bad line among the first lines leaves no format to detect: the error
/// names it, with the format that read furthest and what it expected there.
#[test]
fn detection_names_the_line_the_nearest_format_stops_at() {
    let mut text: String = (0..10).map(|i| format!("0,{},4096,r,0.{i}\n", i * 8)).collect();
    text.push_str("0,zz,4096,r,1.0\n0,88,4096,r,1.1\n");
    let p = tmp_file("detect", "m.spc", text.as_bytes());
    expect_error(&p, None, &["m.spc:11:", "the nearest, spc, reads 10", "field 2 (LBA)", "one of spc, msr"]);
}
