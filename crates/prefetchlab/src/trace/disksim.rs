//! DiskSim ascii traces (models.md §6.5): `time_ms devno blkno bcount
//! flags`, whitespace-separated — arrival in milliseconds, 512-byte blocks,
//! flags in hex with bit 0 set for a read. The device is the stream; times
//! are kept as they are (ms → ns), from DiskSim's own zero.

use super::{bytes, fields, real, stream, to_ns, uint, LineFormat, Op, Record};

#[derive(Default)]
pub struct Disksim;

impl LineFormat for Disksim {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = fields(line, None, 5, "time_ms devno blkno bcount flags")?;
        let t = real(&f, 0, "time")?;
        let dev = stream(&f, 1, "devno")?;
        let blk = uint(&f, 2, "blkno")?;
        let count = uint(&f, 3, "bcount")?;
        let hex = f[4].trim_start_matches("0x").trim_start_matches("0X");
        let flags = u64::from_str_radix(hex, 16)
            .map_err(|_| format!("field 5 (flags): expected a hexadecimal number, found `{}`", f[4]))?;
        Ok(Some(Record {
            time_ns: to_ns(t, 1e6, "time")?,
            stream: dev,
            offset_bytes: bytes(blk, 512, "blkno")?,
            size_bytes: bytes(count, 512, "bcount")?,
            op: if flags & 1 == 1 { Op::Read } else { Op::Write },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postmarks_first_line_and_disksims_example() {
        let r = Disksim.parse("7961.833 0 20228336 8 0").unwrap().unwrap();
        assert_eq!(
            r,
            Record {
                time_ns: 7_961_833_000,
                stream: 0,
                offset_bytes: 20228336 * 512,
                size_bytes: 4096,
                op: Op::Write
            }
        );
        let r = Disksim.parse("13.191135 30 0 5 1").unwrap().unwrap();
        assert_eq!((r.stream, r.size_bytes, r.op), (30, 2560, Op::Read));
        assert!(Disksim.parse("1.0 0 0 8 g").unwrap_err().contains("field 5 (flags)"));
        assert!(Disksim.parse("1.0 0 0 -8 1").unwrap_err().contains("field 4 (bcount)"));
    }
}
