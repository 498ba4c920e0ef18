//! libCacheSim's `oracleGeneral` binary traces (its
//! `traceReader/customizedReader/oracle/oracleGeneralBin.h`): little-endian
//! 24-byte records `clock_time u32 (s), obj_id u64, obj_size u32 (bytes),
//! next_access_vtime i64` — the last is the index of the object's next
//! request (-1 or i64::MAX: none), an oracle this reader does not need.
//!
//! The object is a block: `obj_id` counts blocks of
//! [`ReadOptions::block_bytes`](super::ReadOptions::block_bytes) (4096 by
//! default), and `obj_size` is the bytes requested from that block.
//! libCacheSim's own block traces count 512-byte sectors: its
//! `data/cloudPhysicsIO.oracleGeneral.bin` (the shared CloudPhysics vSCSI
//! sample converted; clock_time = ts / 10^6) gives every vSCSI offset back
//! with `block_bytes = 512`. Every
//! record is a read (the format has no operation); records of size 0 are
//! passed over, as libCacheSim does by default (`ignore_size_zero_req`).
//! One stream; times are rebased on the first record.
//!
//! The format has no magic bytes: it is told from the file's name when
//! that contains `oracleGeneral` (libCacheSim's own naming,
//! `*.oracleGeneral.bin[.zst]`), else `--format oracle` must be given.
//! Errors name the record's byte offset.

use super::binary::{u32_at, u64_at, Records};
use super::{bytes, Format, Op, Rebase, Record, RecordSource};
use crate::error::Result;
use std::io::BufRead;

pub const RECORD_BYTES: usize = 24;

/// What a file's name must contain for the format to be told from it.
pub const NAME_MARK: &str = "oracleGeneral";

pub struct Oracle {
    records: Records<RECORD_BYTES>,
    block_bytes: u64,
    clock: Rebase,
}

impl Oracle {
    /// The records of `reader` (the file `path`), `obj_id` counting blocks
    /// of `block_bytes`.
    pub fn new(reader: Box<dyn BufRead>, path: String, block_bytes: u64) -> Oracle {
        Oracle { records: Records::new(reader, path), block_bytes, clock: Rebase::default() }
    }
}

impl RecordSource for Oracle {
    fn next_batch(&mut self, out: &mut Vec<Record>, max: usize) -> Result<usize> {
        let mut n = 0;
        while n < max {
            let Some(rec) = self.records.next()? else { break };
            let (clock_time_s, obj_id, obj_size) = (u32_at(&rec, 0), u64_at(&rec, 4), u32_at(&rec, 12));
            let err = |m: String| self.records.err(m);
            let time_ns =
                self.clock.ns(clock_time_s as u64, 1_000_000_000, "field clock_time (s)").map_err(err)?;
            let offset_bytes = bytes(obj_id, self.block_bytes, "field obj_id (blocks)").map_err(err)?;
            if obj_size == 0 {
                continue;
            }
            let r = Record { time_ns, stream: 0, offset_bytes, size_bytes: obj_size as u64, op: Op::Read };
            r.last_byte().map_err(err)?;
            out.push(r);
            n += 1;
        }
        Ok(n)
    }
    fn format(&self) -> Format {
        Format::Oracle
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(clock_time_s: u32, obj_id: u64, obj_size: u32, next_access_vtime: i64) -> Vec<u8> {
        [
            &clock_time_s.to_le_bytes()[..],
            &obj_id.to_le_bytes(),
            &obj_size.to_le_bytes(),
            &next_access_vtime.to_le_bytes(),
        ]
        .concat()
    }

    fn read(bytes: Vec<u8>) -> Result<Vec<Record>> {
        let mut o = Oracle::new(Box::new(std::io::Cursor::new(bytes)), "t.oracleGeneral.bin".into(), 4096);
        let mut out = Vec::new();
        while o.next_batch(&mut out, 2)? > 0 {}
        Ok(out)
    }

    #[test]
    fn records_and_errors() {
        let mut b = rec(1_000, 42, 4096, 3);
        b.extend(rec(1_000, 7, 0, -1)); // size 0: passed over
        b.extend(rec(1_002, 43, 512, i64::MAX));
        let r = read(b.clone()).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            Record { time_ns: 0, stream: 0, offset_bytes: 42 * 4096, size_bytes: 4096, op: Op::Read }
        );
        assert_eq!((r[1].time_ns, r[1].offset_bytes, r[1].size_bytes), (2_000_000_000, 43 * 4096, 512));
        let e = read(b[..60].to_vec()).unwrap_err().to_string();
        assert!(e.contains("t.oracleGeneral.bin: byte 48: a truncated record: 12 of its 24 bytes"), "{e}");
        let mut back = rec(5, 1, 1, 0);
        back.extend(rec(4, 1, 1, 0));
        let e = read(back).unwrap_err().to_string();
        assert!(e.contains("byte 24: field clock_time (s): 4 is before the first record's 5"), "{e}");
        let e = read(rec(0, u64::MAX, 1, 0)).unwrap_err().to_string();
        assert!(e.contains("byte 0: field obj_id (blocks)") && e.contains("overflows"), "{e}");
    }
}
