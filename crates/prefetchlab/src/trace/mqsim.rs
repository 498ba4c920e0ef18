//! MQSim ascii traces (the shared WebSearch and TPC-C excerpts):
//! `arrival_ns device lba_sectors size_sectors type`, whitespace-separated,
//! type 1 a read and 0 a write, 512-byte sectors. The device (the SPC ASU of
//! the converted trace) is the stream; times are rebased on the first
//! record.

use super::{bytes, fields, stream, uint, LineFormat, Op, Rebase, Record};

#[derive(Default)]
pub struct Mqsim {
    clock: Rebase,
}

impl LineFormat for Mqsim {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = fields(line, None, 5, "arrival_ns device lba size type")?;
        let t = uint(&f, 0, "arrival_ns")?;
        let dev = stream(&f, 1, "device")?;
        let lba = uint(&f, 2, "lba")?;
        let size = uint(&f, 3, "size")?;
        let op = match f[4] {
            "1" => Op::Read,
            "0" => Op::Write,
            other => return Err(format!("field 5 (type): expected 1 (read) or 0 (write), found `{other}`")),
        };
        let time_ns = self.clock.ns(t, 1, "field 1 (arrival_ns)")?;
        Ok(Some(Record {
            time_ns,
            stream: dev,
            offset_bytes: bytes(lba, 512, "lba")?,
            size_bytes: bytes(size, 512, "size")?,
            op,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn websearchs_first_lines() {
        let mut m = Mqsim::default();
        let a = m.parse("11413000 0 657728 16 1").unwrap().unwrap();
        let b = m.parse("11565000 1 31244784 64 1").unwrap().unwrap();
        assert_eq!(
            a,
            Record { time_ns: 0, stream: 0, offset_bytes: 657728 * 512, size_bytes: 8192, op: Op::Read }
        );
        assert_eq!((b.time_ns, b.stream, b.size_bytes), (152_000, 1, 32768));
        assert!(m.parse("11565001 1 0 8 2").unwrap_err().contains("field 5 (type)"));
        assert!(m.parse("1 1 0 8 1").unwrap_err().contains("before the first record"));
    }
}
