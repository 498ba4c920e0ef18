//! VMware vSCSI traces, version 1, as libCacheSim reads them (its
//! `vscsi.h`; the shared CloudPhysics sample): little-endian 32-byte
//! records `sn u32, len u32 (bytes), nSG u32, cmd u16 (SCSI opcode), ver u16
//! (0x0100), lbn u64 (512-byte sectors), ts u64 (µs)`. READ(6/10/12/16) are
//! reads, WRITE(6/10/12/16) writes; any other command (a SYNCHRONIZE CACHE,
//! say) carries no data and is passed over. One stream; times are rebased
//! on the first record. Errors name the record's byte offset.

use super::binary::{u16_at, u32_at, u64_at, Records};
use super::{bytes, Format, Op, Rebase, Record, RecordSource};
use crate::error::Result;
use std::io::BufRead;

pub const RECORD_BYTES: usize = 32;
const VERSION_1: u16 = 0x0100;

/// The SCSI opcode's direction, if it moves data.
pub fn op_of(cmd: u16) -> Option<Op> {
    match cmd {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(Op::Read),
        0x0a | 0x2a | 0xaa | 0x8a => Some(Op::Write),
        _ => None,
    }
}

/// Does `rec` (32 bytes) look like a vSCSI v1 record? (Format detection.)
pub fn looks_like(rec: &[u8]) -> bool {
    rec.len() >= RECORD_BYTES && u16_at(rec, 14) == VERSION_1 && op_of(u16_at(rec, 12)).is_some()
}

pub struct Vscsi {
    records: Records<RECORD_BYTES>,
    clock: Rebase,
}

impl Vscsi {
    pub fn new(reader: Box<dyn BufRead>, path: String) -> Vscsi {
        Vscsi { records: Records::new(reader, path), clock: Rebase::default() }
    }
}

impl RecordSource for Vscsi {
    fn next_batch(&mut self, out: &mut Vec<Record>, max: usize) -> Result<usize> {
        let mut n = 0;
        while n < max {
            let Some(rec) = self.records.next()? else { break };
            let (len, cmd, ver, lbn, ts) =
                (u32_at(&rec, 4), u16_at(&rec, 12), u16_at(&rec, 14), u64_at(&rec, 16), u64_at(&rec, 24));
            let err = |m: String| self.records.err(m);
            if ver != VERSION_1 {
                return Err(err(format!("field ver: expected 0x0100 (vSCSI version 1), found {ver:#06x}")));
            }
            let time_ns = self.clock.ns(ts, 1000, "field ts (µs)").map_err(err)?;
            let offset_bytes = bytes(lbn, 512, "lbn").map_err(err)?;
            if let Some(op) = op_of(cmd) {
                let r = Record { time_ns, stream: 0, offset_bytes, size_bytes: len as u64, op };
                r.last_byte().map_err(err)?;
                out.push(r);
                n += 1;
            }
        }
        Ok(n)
    }
    fn format(&self) -> Format {
        Format::Vscsi
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(cmd: u16, ver: u16, lbn: u64, ts: u64, len: u32) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&7u32.to_le_bytes());
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(&1u32.to_le_bytes());
        v.extend_from_slice(&cmd.to_le_bytes());
        v.extend_from_slice(&ver.to_le_bytes());
        v.extend_from_slice(&lbn.to_le_bytes());
        v.extend_from_slice(&ts.to_le_bytes());
        v
    }

    fn read(bytes: Vec<u8>) -> Result<Vec<Record>> {
        let mut v = Vscsi::new(Box::new(std::io::Cursor::new(bytes)), "t.vscsi".into());
        let mut out = Vec::new();
        while v.next_batch(&mut out, 2)? > 0 {}
        Ok(out)
    }

    #[test]
    fn records_and_errors() {
        let mut b = rec(0x28, 0x100, 42932745, 5_633_898_000_000, 512);
        b.extend(rec(0x35, 0x100, 0, 5_633_898_000_100, 0)); // SYNCHRONIZE CACHE: passed over
        b.extend(rec(0x2a, 0x100, 8, 5_633_898_000_250, 4096));
        assert!(looks_like(&b));
        let r = read(b.clone()).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(
            r[0],
            Record { time_ns: 0, stream: 0, offset_bytes: 42932745 * 512, size_bytes: 512, op: Op::Read }
        );
        assert_eq!((r[1].time_ns, r[1].op), (250_000, Op::Write));
        let e = read(b[..70].to_vec()).unwrap_err().to_string();
        assert!(e.contains("t.vscsi: byte 64: a truncated record: 6 of its 32 bytes"), "{e}");
        let e = read(rec(0x28, 0x200, 0, 0, 512)).unwrap_err().to_string();
        assert!(e.contains("byte 0: field ver"), "{e}");
        // the last sector of 2^64 bytes and 4096 bytes from it: past the end, refused here
        let e = read(rec(0x28, 0x100, u64::MAX / 512, 0, 4096)).unwrap_err().to_string();
        assert!(e.contains("byte 0: ") && e.contains("beyond 2^64 bytes"), "{e}");
    }
}
