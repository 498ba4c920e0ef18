//! Tencent Cloud Block Storage traces (SNIA IOTTA, "Tencent CBS", October
//! 2018; the OSCA paper, ATC '20): csv without a header,
//! `Timestamp,Offset,Size,IOType,VolumeID` — Timestamp in Unix seconds,
//! Offset and Size in 512-byte sectors, IOType `0` a read and `1` a write,
//! VolumeID the cloud virtual volume. As the trace's README describes it
//! (its IOTTA page: "Offset is the starting offset of the I/O in sectors …
//! 1 sector = 512 bytes", "IOType is Read(0), Write(1)") and libCacheSim's
//! converter reads it (`bin/dep/cpp/tencent.h`: size × 512, op 0 a get,
//! 1 a set). The volume is the stream; times are rebased on the first
//! record (a record before it is an error).
//!
//! The published files are tar archives (`.tgz`): extract them first —
//! the tar headers are not trace lines (a gzip-only copy is read as is).

use super::{bytes, fields, stream, uint, LineFormat, Op, Rebase, Record};

#[derive(Default)]
pub struct Tencent {
    clock: Rebase,
}

const FIELDS: &str = "Timestamp,Offset,Size,IOType,VolumeID";

impl LineFormat for Tencent {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = fields(line, Some(','), 5, FIELDS)?;
        if f.total != 5 {
            return Err(format!("expected 5 fields ({FIELDS}), found {}", f.total));
        }
        let timestamp_s = uint(&f, 0, "Timestamp")?;
        let offset_sectors = uint(&f, 1, "Offset")?;
        let size_sectors = uint(&f, 2, "Size")?;
        let op = match f[3] {
            "0" => Op::Read,
            "1" => Op::Write,
            other => {
                return Err(format!("field 4 (IOType): expected 0 (read) or 1 (write), found `{other}`"))
            }
        };
        let volume = stream(&f, 4, "VolumeID")?;
        let time_ns = self.clock.ns(timestamp_s, 1_000_000_000, "field 1 (Timestamp)")?;
        Ok(Some(Record {
            time_ns,
            stream: volume,
            offset_bytes: bytes(offset_sectors, 512, "Offset")?,
            size_bytes: bytes(size_sectors, 512, "Size")?,
            op,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readmes_fields_and_bad_ones() {
        let mut t = Tencent::default();
        let a = t.parse("1538323199,105352008,584,1,1576").unwrap().unwrap();
        let b = t.parse("1538323201,8,8,0,3").unwrap().unwrap();
        assert_eq!(
            a,
            Record {
                time_ns: 0,
                stream: 1576,
                offset_bytes: 105352008 * 512,
                size_bytes: 584 * 512,
                op: Op::Write
            }
        );
        assert_eq!(
            (b.time_ns, b.stream, b.offset_bytes, b.size_bytes, b.op),
            (2_000_000_000, 3, 4096, 4096, Op::Read)
        );
        for (line, want) in [
            ("1538323201,8,8,0", "expected 5 fields"),
            ("1538323201,8,8,0,3,9", "found 6"),
            ("1538323201,x,8,0,3", "field 2 (Offset)"),
            ("1538323201,8,-8,0,3", "field 3 (Size)"),
            ("1538323201,8,8,2,3", "field 4 (IOType)"),
            ("1538323201,8,8,0,4294967296", "field 5 (VolumeID)"),
            ("1538323198,8,8,0,3", "before the first record"),
            ("1538323201,36028797018963968,8,0,3", "overflows"),
        ] {
            let e = t.parse(line).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
    }
}
