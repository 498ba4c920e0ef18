//! `prefetchlab trace convert FILE --to lcs-csv OUT`: any trace this
//! folder reads, as libCacheSim's csv, so that other tools see exactly the
//! block sequence the cache-only mode ([`crate::cache_only`]) simulates.
//!
//! The output has the header `time,obj_id,obj_size,op` and one line per
//! cache block a record touches, in order: `time` in µs from the trace's
//! first record (libCacheSim wants integers), `obj_id` the block number
//! (`offset / block`), `obj_size` the bytes the record asks of that block,
//! `op` `read` or `write`. A zero-size record touches no block and writes no
//! line. libCacheSim reads it with `time_field=1, obj_id_field=2,
//! obj_size_field=3, op_field=4` (1-based), `has_header=true`, `delimiter=','`.
//!
//! The file is written under a temporary name beside `out` and renamed when
//! complete, so a conversion that fails leaves no half-written file.

use super::{Op, Record, RecordSource};
use crate::error::{Error, Result};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

/// The header line [`to_lcs_csv`] writes.
pub const LCS_CSV_HEADER: &str = "time,obj_id,obj_size,op";

/// What a conversion read and wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Converted {
    pub records: u64,
    /// Lines written after the header: one per block touched.
    pub blocks: u64,
}

/// An error when `out` is the file `input` (written over, the trace would
/// be lost with its conversion): the same path, or a link to it (symbolic
/// or hard: the same file on the same device).
pub fn not_the_input(input: &Path, out: &Path) -> Result<()> {
    let same = match (std::fs::metadata(input), std::fs::metadata(out)) {
        (Ok(a), Ok(b)) => same_file(&a, &b) || input.canonicalize().ok() == out.canonicalize().ok(),
        _ => false, // an output that does not exist yet is not the input
    };
    if same {
        return Err(Error::input(
            out.display().to_string(),
            0,
            "is the trace being converted: give another output file",
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false // the canonical paths decide
}

/// Writes the records of `source` to `out` as lcs-csv in blocks of
/// `block_bytes`; `progress(records)` is called after each batch, and stops
/// the conversion by answering `false` (`Error::Cancelled`; `out` is left as
/// it was).
pub fn to_lcs_csv(
    source: &mut dyn RecordSource,
    block_bytes: u64,
    out: &Path,
    progress: &mut dyn FnMut(u64) -> bool,
) -> Result<Converted> {
    crate::units::check_block(block_bytes).map_err(|m| Error::config("block", m))?;
    let name = out.display().to_string();
    let tmp = out.with_file_name(format!(
        ".{}.partial",
        out.file_name().map_or("out".into(), |n| n.to_string_lossy().into_owned())
    ));
    let io = |e: std::io::Error| Error::io(name.clone(), 0, "cannot write", &e);
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 16, File::create(&tmp).map_err(io)?);
        writeln!(w, "{LCS_CSV_HEADER}").map_err(io)?;
        let mut done = Converted::default();
        let mut batch: Vec<Record> = Vec::with_capacity(4096);
        loop {
            batch.clear();
            if source.next_batch(&mut batch, 4096)? == 0 {
                break;
            }
            for r in &batch {
                done.records += 1;
                done.blocks += write_record(&mut w, r, block_bytes).map_err(io)?;
            }
            if !progress(done.records) {
                return Err(Error::Cancelled);
            }
        }
        w.flush().map_err(io)?;
        Ok(done)
    })();
    match result {
        Ok(done) => {
            std::fs::rename(&tmp, out).map_err(io)?;
            Ok(done)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// The lines of one record; how many.
fn write_record(w: &mut impl Write, r: &Record, block_bytes: u64) -> std::io::Result<u64> {
    if r.size_bytes == 0 {
        return Ok(0);
    }
    let op = match r.op {
        Op::Read => "read",
        Op::Write => "write",
    };
    let time_us = r.time_ns / 1000;
    let last_byte = r.last_byte().map_err(|msg| std::io::Error::new(std::io::ErrorKind::InvalidData, msg))?;
    let (first, last) = (r.offset_bytes / block_bytes, last_byte / block_bytes);
    for b in first..=last {
        // the bytes of block b within [offset, last_byte]
        let lo = if b == first { r.offset_bytes % block_bytes } else { 0 };
        let hi = if b == last { last_byte % block_bytes } else { block_bytes - 1 };
        writeln!(w, "{time_us},{b},{},{op}", hi - lo + 1)?;
    }
    Ok(last - first + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_is_one_line_per_block_with_the_bytes_asked_of_it() {
        let mut out = Vec::new();
        let r = Record { time_ns: 2_500_000, stream: 0, offset_bytes: 4000, size_bytes: 5000, op: Op::Write };
        assert_eq!(write_record(&mut out, &r, 4096).unwrap(), 3);
        assert_eq!(String::from_utf8(out).unwrap(), "2500,0,96,write\n2500,1,4096,write\n2500,2,808,write\n");
        let mut out = Vec::new();
        let zero = Record { size_bytes: 0, ..r };
        assert_eq!(write_record(&mut out, &zero, 4096).unwrap(), 0);
        assert!(out.is_empty());
    }
}
