//! The traces of the ARC paper (Megiddo & Modha, FAST'03; `.lis`): one
//! request per line, `starting_block number_of_blocks ignore
//! request_number`, 512-byte blocks, reads only, no clock (every record at
//! time 0: replay them closed-loop or in cache-only mode) and one stream.

use super::{bytes, fields, uint, LineFormat, Op, Record};

pub struct Arc;

impl LineFormat for Arc {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = fields(line, None, 4, "starting_block number_of_blocks ignore request_number")?;
        if f.total != 4 {
            return Err(format!(
                "expected 4 fields (starting_block number_of_blocks ignore request_number), found {}",
                f.total
            ));
        }
        let start = uint(&f, 0, "starting_block")?;
        let n = uint(&f, 1, "number_of_blocks")?;
        uint(&f, 2, "ignore")?;
        uint(&f, 3, "request_number")?;
        Ok(Some(Record {
            time_ns: 0,
            stream: 0,
            offset_bytes: bytes(start, 512, "starting_block")?,
            size_bytes: bytes(n, 512, "number_of_blocks")?,
            op: Op::Read,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn p6s_first_line() {
        let r = Arc.parse("110765 64 0 0").unwrap().unwrap();
        assert_eq!(
            r,
            Record { time_ns: 0, stream: 0, offset_bytes: 110765 * 512, size_bytes: 32768, op: Op::Read }
        );
        assert!(Arc.parse("110765 64 0").unwrap_err().contains("expected 4 fields"));
        assert!(Arc.parse("110765 64 0 0 9").unwrap_err().contains("found 5"));
        assert!(Arc.parse("1 -4 0 0").unwrap_err().contains("field 2 (number_of_blocks)"));
    }
}
