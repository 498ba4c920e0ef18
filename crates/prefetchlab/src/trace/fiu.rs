//! FIU traces (SRCMap / I/O deduplication, SNIA IOTTA): one line per 4 KiB
//! page, `ts pid process lba size op major minor md5` — ts in ns on the
//! traced host's clock, lba and size in 512-byte sectors, op `R`/`W`. Also
//! read as pandas writes it out (the shared excerpt): tab-separated, a
//! header row of column numbers (its first cell empty) and an index column
//! first. The device (major, minor) is the stream, `major << 16 | minor`;
//! times are rebased on the first record.

use super::{bytes, device_stream, uint, Fields, LineFormat, Op, Rebase, Record};

#[derive(Default)]
pub struct Fiu {
    clock: Rebase,
}

impl LineFormat for Fiu {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let raw = Fields::split(line, line.contains('\t').then_some('\t'));
        // pandas: a header whose first cell is empty, then an index column
        let f = match raw.total {
            10 if raw[0].is_empty() => return Ok(None),
            10 => &raw[1..],
            9 => &raw[..],
            n => {
                return Err(format!(
                    "expected 9 fields (ts pid process lba size op major minor md5), found {n}"
                ))
            }
        };
        let ts = uint(f, 0, "ts")?;
        let lba = uint(f, 3, "lba")?;
        let size = uint(f, 4, "size")?;
        let op = match f[5] {
            "R" | "r" => Op::Read,
            "W" | "w" => Op::Write,
            other => return Err(format!("field 6 (op): expected R or W, found `{other}`")),
        };
        let (major, minor) = (uint(f, 6, "major")?, uint(f, 7, "minor")?);
        let stream = device_stream(major, minor, "fields 7-8 (major, minor)")?;
        let time_ns = self.clock.ns(ts, 1, "field 1 (ts)")?;
        Ok(Some(Record {
            time_ns,
            stream,
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
    fn both_the_original_and_the_pandas_form() {
        let mut f = Fiu::default();
        assert_eq!(f.parse("\t0\t1\t2\t3\t4\t5\t6\t7\t8"), Ok(None));
        let a = f.parse("0\t89966811921625\t4257\tnfsd\t488846200\t8\tW\t6\t0\t2c47").unwrap().unwrap();
        let b = f.parse("89967003980393 4253 nfsd 508455704 8 R 6 0 88b9").unwrap().unwrap();
        assert_eq!(
            a,
            Record {
                time_ns: 0,
                stream: 6 << 16,
                offset_bytes: 488846200 * 512,
                size_bytes: 4096,
                op: Op::Write
            }
        );
        assert_eq!((b.time_ns, b.op), (192_058_768, Op::Read));
        assert!(f.parse("1 2 p 3 8 X 6 0 h").unwrap_err().contains("field 6 (op)"));
        assert!(f.parse("1 2 p 3 8").unwrap_err().contains("expected 9 fields"));
    }
}
