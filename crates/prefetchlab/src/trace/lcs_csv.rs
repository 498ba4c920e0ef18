//! libCacheSim csv traces, block form: a header line naming the columns —
//! at least `time`, `obj_id` and `obj_size`, in any order, `op` optional,
//! any others (`next_access_vtime`, say) allowed and passed over — then
//! one request per line, comma-separated.
//!
//! * `time`: an integer count of **microseconds** (the unit prefetchlab's
//!   own converter writes; libCacheSim's sample csv traces count seconds —
//!   such a trace replays a million times faster, so convert it or replay
//!   it closed-loop). Times are rebased on the first record; a record
//!   before it is an error.
//! * `obj_id`: a block number, in blocks of
//!   [`ReadOptions::block_bytes`](super::ReadOptions::block_bytes) (4096
//!   by default): the offset is `obj_id × block_bytes`.
//! * `obj_size`: the bytes requested from that block. A request of 0 bytes
//!   is passed over, as libCacheSim does by default.
//! * `op` (absent: every request a read): `read`/`r`, `write`/`w`, or
//!   libCacheSim's operation names (its `req_op_str`): `get`, `gets` are
//!   reads; `set`, `add`, `cas`, `replace`, `append`, `prepend`, `incr`,
//!   `decr`, `update` writes; `nop` and `delete` move no data and are
//!   passed over. Case does not matter.
//!
//! One stream. The format is told by its header.

use super::{bytes, LineFormat, Op, Rebase, Record};

/// Where the header put the columns read (0-based), and how many it named.
#[derive(Debug, Clone, Copy)]
struct Columns {
    time: usize,
    obj_id: usize,
    obj_size: usize,
    op: Option<usize>,
    count: usize,
}

pub struct LcsCsv {
    block_bytes: u64,
    columns: Option<Columns>,
    clock: Rebase,
    /// The time column as errors name it, `field N (time, µs)`.
    time_field: String,
}

impl LcsCsv {
    /// A reader whose `obj_id` counts blocks of `block_bytes`.
    pub fn new(block_bytes: u64) -> LcsCsv {
        LcsCsv { block_bytes, columns: None, clock: Rebase::default(), time_field: String::new() }
    }

    fn header(line: &str) -> Result<Columns, String> {
        let (mut time, mut obj_id, mut obj_size, mut op) = (None, None, None, None);
        for (i, name) in line.split(',').map(str::trim_ascii).enumerate() {
            let slot = match name {
                "time" => &mut time,
                "obj_id" => &mut obj_id,
                "obj_size" => &mut obj_size,
                "op" => &mut op,
                _ => continue,
            };
            slot.get_or_insert(i);
        }
        let count = line.split(',').count();
        match (time, obj_id, obj_size) {
            (Some(time), Some(obj_id), Some(obj_size)) => Ok(Columns { time, obj_id, obj_size, op, count }),
            _ => Err(format!(
                "expected a header naming the columns time, obj_id and obj_size (libCacheSim csv), found `{}`",
                line.chars().take(80).collect::<String>()
            )),
        }
    }
}

/// libCacheSim's operation `name` as a direction, `None` for one moving
/// no data.
fn op_of(name: &str) -> Result<Option<Op>, ()> {
    const READS: [&str; 4] = ["read", "r", "get", "gets"];
    const WRITES: [&str; 11] =
        ["write", "w", "set", "add", "cas", "replace", "append", "prepend", "incr", "decr", "update"];
    const NONE: [&str; 2] = ["nop", "delete"];
    let is = |names: &[&str]| names.iter().any(|n| n.eq_ignore_ascii_case(name));
    if is(&READS) {
        Ok(Some(Op::Read))
    } else if is(&WRITES) {
        Ok(Some(Op::Write))
    } else if is(&NONE) {
        Ok(None)
    } else {
        Err(())
    }
}

impl LineFormat for LcsCsv {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let Some(c) = self.columns else {
            let c = Self::header(line)?;
            self.time_field = format!("field {} (time, µs)", c.time + 1);
            self.columns = Some(c);
            return Ok(None);
        };
        let (mut time, mut obj_id, mut obj_size, mut op, mut count) = ("", "", "", None, 0);
        for (i, v) in line.split(',').map(str::trim_ascii).enumerate() {
            if i == c.time {
                time = v;
            } else if i == c.obj_id {
                obj_id = v;
            } else if i == c.obj_size {
                obj_size = v;
            } else if Some(i) == c.op {
                op = Some(v);
            }
            count = i + 1;
        }
        if count != c.count {
            return Err(format!("expected {} fields, as the header names, found {count}", c.count));
        }
        let uint = |v: &str, i: usize, name: &str| {
            v.parse::<u64>().map_err(|_| {
                format!("field {} ({name}): expected a non-negative integer, found `{v}`", i + 1)
            })
        };
        let time_us = uint(time, c.time, "time, µs")?;
        let block = uint(obj_id, c.obj_id, "obj_id")?;
        let size_bytes = uint(obj_size, c.obj_size, "obj_size, bytes")?;
        let offset_bytes = bytes(block, self.block_bytes, "obj_id")?;
        let time_ns = self.clock.ns(time_us, 1000, &self.time_field)?;
        let op = match op.map(|v| (v, op_of(v))) {
            None => Op::Read,
            Some((_, Ok(Some(op)))) => op,
            Some((_, Ok(None))) => return Ok(None),
            Some((v, Err(()))) => {
                return Err(format!(
                    "field {} (op): expected read, write, r, w or a libCacheSim operation (get, set, …), found `{v}`",
                    c.op.map_or(0, |i| i + 1)
                ))
            }
        };
        if size_bytes == 0 {
            return Ok(None);
        }
        Ok(Some(Record { time_ns, stream: 0, offset_bytes, size_bytes, op }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Result<Vec<Record>, String> {
        crate::trace::tests::parse_lines(LcsCsv::new(4096), text)
    }

    #[test]
    fn columns_in_any_order_op_optional() {
        let r = all("obj_size, time, obj_id, next_access_vtime\n4096,1000,10,2\n512,1250,11,-1\n").unwrap();
        assert_eq!(
            r,
            vec![
                Record { time_ns: 0, stream: 0, offset_bytes: 10 * 4096, size_bytes: 4096, op: Op::Read },
                Record {
                    time_ns: 250_000,
                    stream: 0,
                    offset_bytes: 11 * 4096,
                    size_bytes: 512,
                    op: Op::Read
                },
            ]
        );
        let r = all(
            "time,obj_id,obj_size,op\n0,1,8192,write\n1,2,4096,GET\n2,3,4096,delete\n3,4,0,read\n4,5,1,w\n",
        )
        .unwrap();
        let ops: Vec<Op> = r.iter().map(|r| r.op).collect();
        assert_eq!(ops, [Op::Write, Op::Read, Op::Write]); // delete and a 0-byte read passed over
        assert_eq!(LcsCsv::new(512).parse("time,obj_id,obj_size").unwrap(), None);
    }

    #[test]
    fn bad_lines_are_named() {
        let head = "time,obj_id,obj_size,op\n";
        for (body, want) in [
            ("0,1,4096\n", "expected 4 fields, as the header names, found 3"),
            ("0,1,4096,read,x\n", "found 5"),
            ("x,1,4096,read\n", "field 1 (time, µs)"),
            ("0,-1,4096,read\n", "field 2 (obj_id)"),
            ("0,1,-4096,read\n", "field 3 (obj_size, bytes)"),
            ("0,1,4096,seek\n", "field 4 (op)"),
            ("5,1,4096,read\n4,1,4096,read\n", "before the first record"),
            ("0,18446744073709551615,4096,read\n", "overflows"),
        ] {
            let e = all(&format!("{head}{body}")).unwrap_err();
            assert!(e.contains(want), "{body}: {e}");
        }
        let e = all("version,time,op,size,lbn\n1,5633898,2a,512,42932745\n").unwrap_err();
        assert!(e.contains("expected a header naming the columns time, obj_id and obj_size"), "{e}");
    }
}
