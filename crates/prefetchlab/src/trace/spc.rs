//! SPC (the UMass Financial and WebSearch traces; models.md §6.1): one
//! request per line, `ASU,LBA,Size,Opcode,Timestamp[,…]` — LBA in 512-byte
//! blocks within the ASU, size in bytes, opcode `R`/`r` or `W`/`w`,
//! timestamp in seconds from the start of the trace. The ASU is the stream;
//! the offset is the LBA's byte offset within it.

use super::{bytes, fields, real, stream, to_ns, uint, LineFormat, Op, Record};

pub struct Spc;

impl LineFormat for Spc {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = fields(line, Some(','), 5, "ASU,LBA,Size,Opcode,Timestamp")?;
        let asu = stream(&f, 0, "ASU")?;
        let lba = uint(&f, 1, "LBA")?;
        let size = uint(&f, 2, "Size")?;
        let op = match f[3] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(format!("field 4 (Opcode): expected R or W, found `{other}`")),
        };
        let t = real(&f, 4, "Timestamp")?;
        Ok(Some(Record {
            time_ns: to_ns(t, 1e9, "Timestamp")?,
            stream: asu,
            offset_bytes: bytes(lba, 512, "LBA")?,
            size_bytes: size,
            op,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn financial1s_first_line() {
        let r = Spc.parse("0,303567,3584,w,0.000000").unwrap().unwrap();
        assert_eq!(
            r,
            Record { time_ns: 0, stream: 0, offset_bytes: 303567 * 512, size_bytes: 3584, op: Op::Write }
        );
        // optional fields after the timestamp are allowed
        assert!(Spc.parse("3,10,512,R,1.25,extra").unwrap().is_some());
    }

    #[test]
    fn bad_fields_are_named() {
        for (line, want) in [
            ("0,1,512,r", "expected 5 fields"),
            ("0,1,-512,r,0", "field 3 (Size)"),
            ("0,1,512,x,0", "field 4 (Opcode)"),
            ("0,1,512,r,-1", "field 5 (Timestamp)"),
            ("0,1,512,r,nan", "field 5 (Timestamp)"),
            ("a,1,512,r,0", "field 1 (ASU)"),
            ("0,36028797018963968,512,r,0", "overflows"),
        ] {
            let e = Spc.parse(line).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
    }
}
