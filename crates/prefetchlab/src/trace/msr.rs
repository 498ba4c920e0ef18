//! MSR Cambridge (SNIA IOTTA; models.md §6.2): csv without a header,
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` —
//! timestamps in Windows FILETIME ticks (100 ns), `Read`/`Write`, offset and
//! size in bytes. The disk number is the stream; times are rebased on the
//! first record (a record before it is an error: MSR traces are in time
//! order).

use super::{fields, stream, uint, LineFormat, Op, Rebase, Record};

#[derive(Default)]
pub struct Msr {
    clock: Rebase,
}

impl LineFormat for Msr {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = fields(line, Some(','), 7, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime")?;
        let ts = uint(&f, 0, "Timestamp")?;
        let disk = stream(&f, 2, "DiskNumber")?;
        let op = match f[3] {
            "Read" | "read" => Op::Read,
            "Write" | "write" => Op::Write,
            other => return Err(format!("field 4 (Type): expected Read or Write, found `{other}`")),
        };
        let offset = uint(&f, 4, "Offset")?;
        let size = uint(&f, 5, "Size")?;
        uint(&f, 6, "ResponseTime")?;
        let time_ns = self.clock.ns(ts, 100, "field 1 (Timestamp)")?;
        Ok(Some(Record { time_ns, stream: disk, offset_bytes: offset, size_bytes: size, op }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rebased_in_100ns_ticks() {
        let mut m = Msr::default();
        let a = m.parse("128166385295514663,hm,0,Write,9056014336,2048,2833").unwrap().unwrap();
        let b = m.parse("128166385295514878,hm,1,Read,11855351808,512,2617").unwrap().unwrap();
        assert_eq!(a.time_ns, 0);
        assert_eq!(
            b,
            Record { time_ns: 21_500, stream: 1, offset_bytes: 11855351808, size_bytes: 512, op: Op::Read }
        );
        let e = m.parse("128166385295514000,hm,0,Read,0,512,1").unwrap_err();
        assert!(e.contains("before the first record"), "{e}");
        assert!(m.parse("1,hm,0,Trim,0,512,1").unwrap_err().contains("field 4 (Type)"));
    }
}
