//! fio's I/O logs (models.md §6.4), versions 2 and 3: a header line
//! `fio version N iolog`, then `filename action [offset length]` (v2) or
//! `ts filename action [offset length]` (v3, ts in µs from the start of the
//! run). `read` and `write` are requests (offset and length in bytes);
//! `add`, `open`, `close`, `sync`, `datasync`, `trim` carry none; a v2
//! `wait` pauses `offset` µs (values under 100 ignored, as fio does), which
//! is v2's only clock. Each file is a stream, numbered in the order the log
//! first names it.

use super::{Fields, LineFormat, Op, Record};
use std::collections::HashMap;

#[derive(Default)]
pub struct Fio {
    version: Option<u32>,
    /// v2: the waits so far, µs.
    clock_us: u64,
    files: HashMap<String, u32>,
}

fn num(s: &str, field: usize, name: &str) -> Result<u64, String> {
    s.parse().map_err(|_| format!("field {field} ({name}): expected a non-negative integer, found `{s}`"))
}

impl LineFormat for Fio {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = Fields::split(line, None);
        let Some(version) = self.version else {
            return match &f[..] {
                ["fio", "version", v @ ("2" | "3"), "iolog"] => {
                    self.version = Some(if *v == "2" { 2 } else { 3 });
                    Ok(None)
                }
                _ => Err("expected the header `fio version 2 iolog` or `fio version 3 iolog`".into()),
            };
        };
        // v3 lines start with their time
        let (t_us, rest) = if version == 3 {
            let Some((ts, rest)) = f.split_first() else { return Ok(None) };
            (num(ts, 1, "timestamp")?, rest)
        } else {
            (self.clock_us, &f[..])
        };
        let base = if version == 3 { 1 } else { 0 };
        let (file, action) = match rest {
            [file, action, ..] => (*file, *action),
            _ => {
                return Err(format!(
                    "expected `{}filename action [offset length]`",
                    if version == 3 { "ts " } else { "" }
                ))
            }
        };
        let op = match action {
            "read" => Op::Read,
            "write" => Op::Write,
            "wait" if version == 2 => {
                let us = num(rest.get(2).copied().unwrap_or(""), base + 3, "wait µs")?;
                if us >= 100 {
                    self.clock_us = self.clock_us.saturating_add(us);
                }
                return Ok(None);
            }
            "add" | "open" | "close" | "sync" | "datasync" | "trim" => return Ok(None),
            other => return Err(format!("field {} (action): expected read, write, trim, sync, datasync, wait, add, open or close, found `{other}`", base + 2)),
        };
        let (Some(off), Some(len)) = (rest.get(2), rest.get(3)) else {
            return Err(format!("a {action}: expected `offset length` after it"));
        };
        let offset = num(off, base + 3, "offset")?;
        let length = num(len, base + 4, "length")?;
        let n = self.files.len() as u32;
        let stream = *self.files.entry(file.to_string()).or_insert(n);
        let time_ns =
            t_us.checked_mul(1000).ok_or_else(|| format!("timestamp {t_us} µs overflows the clock"))?;
        Ok(Some(Record { time_ns, stream, offset_bytes: offset, size_bytes: length, op }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(text: &str) -> Result<Vec<Record>, String> {
        crate::trace::tests::parse_lines(Fio::default(), text)
    }

    #[test]
    fn version_3_as_the_spec_shows_it() {
        let r = all("fio version 3 iolog\n0 /dev/sdb add\n1 /dev/sdb open\n1520 /dev/sdb read 1048576 131072\n99000 /dev/sdb close\n").unwrap();
        assert_eq!(
            r,
            vec![Record {
                time_ns: 1_520_000,
                stream: 0,
                offset_bytes: 1048576,
                size_bytes: 131072,
                op: Op::Read
            }]
        );
    }

    #[test]
    fn version_2_keeps_time_by_its_waits_and_files_by_name() {
        let r = all("fio version 2 iolog\n/a add\n/a open\n/a write 0 4096\n/a wait 50\n/b read 8192 4096\n/a wait 2000\n/a read 4096 512\n").unwrap();
        assert_eq!(r.len(), 3);
        assert_eq!((r[1].time_ns, r[1].stream), (0, 1)); // a 50 µs wait is ignored
        assert_eq!((r[2].time_ns, r[2].stream, r[2].op), (2_000_000, 0, Op::Read));
    }

    #[test]
    fn bad_logs_are_named() {
        assert!(all("/a read 0 1\n").unwrap_err().contains("expected the header"));
        assert!(all("fio version 2 iolog\n/a read 0\n").unwrap_err().contains("expected `offset length`"));
        assert!(all("fio version 2 iolog\n/a seek 0 1\n").unwrap_err().contains("field 2 (action)"));
        assert!(all("fio version 3 iolog\nx /a read 0 1\n").unwrap_err().contains("field 1 (timestamp)"));
        assert!(all("fio version 3 iolog\n5 /a read 0 -1\n").unwrap_err().contains("field 5 (length)"));
    }
}
