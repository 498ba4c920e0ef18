//! Property-based fuzzing of the trace readers (stable Rust, the shared fuzz
//! plumbing of `tests/fuzz/mod.rs`): a few lines of each format — made up,
//! and from the real samples in `../shared/traces` when present — are
//! mutated (tokens deleted, duplicated, swapped; numbers made huge,
//! negative, fractional, `nan`; junk lines; truncation), sometimes
//! compressed (gzip, zstd, xz or bzip2) and then cut short, written to a
//! file and read to the end with the format given and detected. Every
//! outcome must be records or one clean one-line error naming the file: no
//! panic. The binary formats (vSCSI, oracleGeneral) get their bytes
//! flipped, records cut short and junk appended.

mod compress;
mod fuzz;

use prefetchlab::trace::lines::Compression;
use prefetchlab::trace::{open, Format, Record};

const MADE_UP: [(Format, &str); 12] = [
    (Format::Blkparse, "  8,16   1     1272     0.012300000  4123  Q   R 123456 + 256 [iozone]\n  8,16   1     1273     0.012345678  4123  D   R 123456 + 256 [iozone]\n  8,16   1     1275     0.020000000  4123  D  WS 123712 + 8 [iozone]\nCPU1 (8,16):\n"),
    (Format::Fio, "fio version 3 iolog\n0 /dev/sdb add\n1 /dev/sdb open\n1520 /dev/sdb read 1048576 131072\n1600 /dev/sdb write 0 4096\n99000 /dev/sdb close\n"),
    (Format::Fiu, "\t0\t1\t2\t3\t4\t5\t6\t7\t8\n0\t89966811921625\t4257\tnfsd\t488846200\t8\tW\t6\t0\t2c47\n"),
    (Format::Arc, "110765 64 0 0\n110888 1 0 1\n110829 59 0 2\n"),
    (Format::Spc, "0,303567,3584,w,0.000000\n1,5,512,R,0.5\n0,303574,4096,r,1.25\n"),
    (Format::Msr, "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514878,hm,1,Read,11855351808,512,2617\n"),
    (Format::Disksim, "7961.833 0 20228336 8 0\n8346.206 0 6397360 496 1\n8348.644 0 6397856 472 0\n"),
    (Format::Mqsim, "11413000 0 657728 16 1\n11565000 1 31244784 64 1\n11721000 1 21868784 16 0\n"),
    (Format::DisksimValidate, "R Miss  564347     2     14095.370     13876.270\nW Doub 1194877    15     17221.000     21894.380\n# note\nR Hit 3962268  12   6657.00000  64047.00000\n"),
    (Format::LcsCsv, "time,obj_id,obj_size,op,next_access_vtime\n0,10,4096,read,3\n250,11,512,write,-1\n250,12,0,get,-1\n900,7,8192,delete,4\n"),
    (Format::Tencent, "1538323199,105352008,584,1,1576\n1538323199,8,8,0,3\n1538323200,105352592,16,1,1576\n"),
    (Format::VscsiCsv, "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633898,28,65536,8\n1,5633899,35,0,0\n1,5633900,0x88,4096,16\n"),
];

/// Real samples (folder of the shared data, file), the first 40 lines of each.
const SAMPLES: [(Format, &str, &str); 10] = [
    (Format::Fiu, "traces", "fiu-mail-excerpt/smalltrace.csv"),
    (Format::Arc, "traces", "arc-p6/P6.lis"),
    (Format::Msr, "traces", "msr-sample/msr-cambridge1-sample.csv"),
    (Format::VscsiCsv, "traces", "cloudphysics/cloudPhysicsIO.csv"),
    (Format::Mqsim, "traces", "websearch-excerpt/wsrch-small.trace"),
    (Format::Mqsim, "traces", "tpcc/tpcc-small.trace"),
    (Format::Disksim, "traces", "postmark/ssd-postmark-aligned2.trace"),
    (Format::DisksimValidate, "disksim-valid", "atlas10k.trace"),
    (Format::DisksimValidate, "disksim-valid", "hp_c2247a.trace"),
    (Format::DisksimValidate, "disksim-valid", "cheetah15k5/random.trace"),
];

const TOKENS: &[&str] = &[
    ",",
    " ",
    "-1",
    "1e999",
    "nan",
    "18446744073709551616",
    "0x",
    "R",
    "W",
    "Read",
    "\u{0}",
    "é",
    "Hit",
    "0",
    "1",
    "obj_id",
    "time",
];

#[derive(Debug)]
struct Case {
    format: Format,
    given: bool,
    /// Compressed, then cut to at most this many bytes (`usize::MAX`: not cut).
    compressed_cut: Option<(Compression, usize)>,
    /// Bytes of the compressed stream overwritten: (index, value).
    flips: Vec<(usize, u8)>,
    text: String,
}

fn check(c: &Case, path: &std::path::Path) -> Result<(), String> {
    let bytes = if let Some((kind, cut)) = c.compressed_cut {
        let mut z = compress::compress(kind, c.text.as_bytes());
        for &(i, x) in &c.flips {
            let n = z.len();
            z[i % n] = x;
        }
        z.truncate(cut);
        z
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
    let mut inputs: Vec<(Format, String)> = MADE_UP.iter().map(|(f, t)| (*f, t.to_string())).collect();
    for (f, folder, rel) in SAMPLES {
        // the first 40 lines of each real sample
        if let Ok(text) = std::fs::read_to_string(fuzz::shared_dir(folder).join(rel)) {
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
            let compressed_cut = g.chance(20).then(|| {
                let cut = if g.chance(50) { g.below(200) } else { usize::MAX };
                (*g.pick(&compress::ALL), cut)
            });
            let flips = match compressed_cut {
                Some(_) if g.chance(50) => {
                    (0..1 + g.below(3)).map(|_| (g.below(4096), g.u64() as u8)).collect()
                }
                _ => Vec::new(),
            };
            Case { format, given: g.chance(70), compressed_cut, flips, text }
        },
        |c| check(c, &path),
    );
    std::fs::remove_file(&path).ok();
}

/// The binary formats' records: the first records of the shared vSCSI
/// sample (or two made-up ones), two made-up oracleGeneral records, with
/// bytes flipped, records cut short and junk appended, sometimes
/// compressed and cut, read with the format given and detected (oracle by
/// its file name).
#[test]
fn mutated_binary_records_read_or_fail_cleanly() {
    let dir = fuzz::shared_dir("traces");
    let mut vscsi = std::fs::read(dir.join("cloudphysics/cloudPhysicsIO.vscsi")).unwrap_or_default();
    vscsi.truncate(32 * 64);
    if vscsi.is_empty() {
        for (cmd, ts) in [(0x28u16, 10u64), (0x2a, 20)] {
            vscsi.extend_from_slice(&[1, 0, 0, 0, 0, 2, 0, 0, 1, 0, 0, 0]);
            vscsi.extend_from_slice(&cmd.to_le_bytes());
            vscsi.extend_from_slice(&0x0100u16.to_le_bytes());
            vscsi.extend_from_slice(&8u64.to_le_bytes());
            vscsi.extend_from_slice(&ts.to_le_bytes());
        }
    }
    let mut oracle = Vec::new();
    for (t, id, size, next) in [(5633898u32, 42932745u64, 512u32, -1i64), (5633899, 42932746, 4096, 7)] {
        oracle.extend_from_slice(&t.to_le_bytes());
        oracle.extend_from_slice(&id.to_le_bytes());
        oracle.extend_from_slice(&size.to_le_bytes());
        oracle.extend_from_slice(&next.to_le_bytes());
    }
    let bases = [(Format::Vscsi, vscsi, "bin"), (Format::Oracle, oracle, "oracleGeneral.bin")];
    let tmp = std::env::temp_dir();
    fuzz::run(
        "trace_binary",
        200,
        |g| {
            let (format, base, _) = g.pick(&bases);
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
            if g.chance(15) {
                let z = compress::compress(*g.pick(&compress::ALL), &b);
                b = z[..g.below(z.len() + 1)].to_vec();
            }
            (*format, b, g.chance(50))
        },
        |(format, bytes, given)| {
            let ext = bases.iter().find(|b| b.0 == *format).map_or("bin", |b| b.2);
            let path = tmp.join(format!("prefetchlab-fuzz-binary-{}.{ext}", std::process::id()));
            std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
            let read = || -> prefetchlab::Result<usize> {
                let mut src = open(&path, given.then_some(*format))?;
                let mut out = Vec::new();
                while src.next_batch(&mut out, 5)? > 0 {}
                Ok(out.len())
            };
            let outcome = read();
            std::fs::remove_file(&path).ok();
            match outcome {
                Ok(_) => Ok(()),
                Err(e) => fuzz::one_line(&e.to_string()),
            }
        },
    );
}
