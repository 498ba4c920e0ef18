//! Property-based fuzzing of the trace readers (stable Rust, the shared fuzz
//! plumbing of `tests/fuzz/mod.rs`): a few lines of each format — made up,
//! and from the real samples in `../shared/traces` when present — are
//! mutated (tokens deleted, duplicated, swapped; numbers made huge,
//! negative, fractional, `nan`; junk lines; truncation), sometimes
//! gzip-compressed and then cut short, written to a file and read to the
//! end with the format given and detected. Every outcome must be records
//! or one clean one-line error naming the file: no panic.

mod fuzz;

use prefetchlab::trace::{open, Format, Record};
use std::io::Write;

const MADE_UP: [(Format, &str); 8] = [
    (Format::Blkparse, "  8,16   1     1272     0.012300000  4123  Q   R 123456 + 256 [iozone]\n  8,16   1     1273     0.012345678  4123  D   R 123456 + 256 [iozone]\n  8,16   1     1275     0.020000000  4123  D  WS 123712 + 8 [iozone]\nCPU1 (8,16):\n"),
    (Format::Fio, "fio version 3 iolog\n0 /dev/sdb add\n1 /dev/sdb open\n1520 /dev/sdb read 1048576 131072\n1600 /dev/sdb write 0 4096\n99000 /dev/sdb close\n"),
    (Format::Fiu, "\t0\t1\t2\t3\t4\t5\t6\t7\t8\n0\t89966811921625\t4257\tnfsd\t488846200\t8\tW\t6\t0\t2c47\n"),
    (Format::Arc, "110765 64 0 0\n110888 1 0 1\n110829 59 0 2\n"),
    (Format::Spc, "0,303567,3584,w,0.000000\n1,5,512,R,0.5\n0,303574,4096,r,1.25\n"),
    (Format::Msr, "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,1,Read,11855351808,512,2617\n"),
    (Format::Disksim, "7961.833 0 20228336 8 0\n8346.206 0 6397360 496 1\n8348.644 0 6397856 472 0\n"),
    (Format::Mqsim, "11413000 0 657728 16 1\n11565000 1 31244784 64 1\n11721000 1 21868784 16 0\n"),
];

const SAMPLES: [(Format, &str); 6] = [
    (Format::Fiu, "fiu-mail-excerpt/smalltrace.csv"),
    (Format::Arc, "arc-p6/P6.lis"),
    (Format::Msr, "msr-sample/msr-cambridge1-sample.csv"),
    (Format::Mqsim, "websearch-excerpt/wsrch-small.trace"),
    (Format::Mqsim, "tpcc/tpcc-small.trace"),
    (Format::Disksim, "postmark/ssd-postmark-aligned2.trace"),
];

const TOKENS: &[&str] =
    &[",", " ", "-1", "1e999", "nan", "18446744073709551616", "0x", "R", "W", "Read", "\u{0}", "é"];

#[derive(Debug)]
struct Case {
    format: Format,
    given: bool,
    gzip_cut: Option<usize>,
    text: String,
}

fn check(c: &Case, path: &std::path::Path) -> Result<(), String> {
    let bytes = if let Some(cut) = c.gzip_cut {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(c.text.as_bytes()).unwrap();
        let z = e.finish().unwrap();
        z[..cut.min(z.len())].to_vec()
    } else {
        c.text.clone().into_bytes()
    };
    std::fs::write(path, bytes).map_err(|e| e.to_string())?;
    let name = path.file_name().unwrap().to_string_lossy().to_string();
    let read = || -> prefetchlab::Result<Vec<Record>> {
        let mut src = open(path, c.given.then_some(c.format))?;
        let mut out = Vec::new();
        while src.next_batch(&mut out, 7)? > 0 {}
        Ok(out)
    };
    match read() {
        Ok(_) => Ok(()),
        Err(e) => {
            let msg = e.to_string();
            fuzz::one_line(&msg)?;
            if !msg.contains(&name) {
                return Err(format!("error does not name the file: {msg}"));
            }
            Ok(())
        }
    }
}

#[test]
fn mutated_traces_read_or_fail_cleanly() {
    let dir = fuzz::shared_dir("traces");
    let mut inputs: Vec<(Format, String)> = MADE_UP.iter().map(|(f, t)| (*f, t.to_string())).collect();
    for (f, rel) in SAMPLES {
        // the first 40 lines of each real sample
        if let Ok(text) = std::fs::read_to_string(dir.join(rel)) {
            inputs.push((f, text.lines().take(40).collect::<Vec<_>>().join("\n")));
        }
    }
    let path = std::env::temp_dir().join(format!("prefetchlab-fuzz-trace-{}.trace", std::process::id()));
    fuzz::run(
        "trace",
        300,
        |g| {
            let (format, text) = g.pick(&inputs).clone();
            let mut text = text;
            for _ in 0..1 + g.below(3) {
                text = g.mutate(&text, TOKENS);
            }
            let gzip_cut = g.chance(20).then(|| g.below(200));
            Case { format, given: g.chance(70), gzip_cut, text }
        },
        |c| check(c, &path),
    );
    std::fs::remove_file(&path).ok();
}

/// vSCSI's binary records: the first records of the shared sample (or two
/// made-up ones) with bytes flipped, records cut short and junk appended,
/// read with the format given and detected.
#[test]
fn mutated_vscsi_records_read_or_fail_cleanly() {
    let dir = fuzz::shared_dir("traces");
    let mut base = std::fs::read(dir.join("cloudphysics/cloudPhysicsIO.vscsi")).unwrap_or_default();
    base.truncate(32 * 64);
    if base.is_empty() {
        for (cmd, ts) in [(0x28u16, 10u64), (0x2a, 20)] {
            base.extend_from_slice(&[1, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
            base.extend_from_slice(&cmd.to_le_bytes());
            base.extend_from_slice(&0x0100u16.to_le_bytes());
            base.extend_from_slice(&8u64.to_le_bytes());
            base.extend_from_slice(&ts.to_le_bytes());
        }
    }
    let path = std::env::temp_dir().join(format!("prefetchlab-fuzz-vscsi-{}.bin", std::process::id()));
    fuzz::run(
        "trace_vscsi",
        200,
        |g| {
            let mut b = base.clone();
            for _ in 0..1 + g.below(6) {
                let i = g.below(b.len().max(1));
                if let Some(x) = b.get_mut(i) {
                    *x = g.u64() as u8;
                }
            }
            if g.chance(30) {
                b.truncate(g.below(b.len() + 1));
            }
            if g.chance(10) {
                b.extend((0..g.below(40)).map(|_| g.u64() as u8));
            }
            (b, g.chance(50))
        },
        |(bytes, given)| {
            std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
            let read = || -> prefetchlab::Result<usize> {
                let mut src = open(&path, given.then_some(Format::Vscsi))?;
                let mut out = Vec::new();
                while src.next_batch(&mut out, 5)? > 0 {}
                Ok(out.len())
            };
            match read() {
                Ok(_) => Ok(()),
                Err(e) => fuzz::one_line(&e.to_string()),
            }
        },
    );
    std::fs::remove_file(&path).ok();
}
