//! blkparse's default text output (models.md §6.3): per event
//! `maj,min cpu seq sec.nsec pid action RWBS sector + nsectors [process]`.
//! One kind of event is taken as the requests — `D` (issued to the driver,
//! the default: what the device saw) or `Q` (queued: what the application
//! asked) — the others are passed over, as are the summary lines blkparse
//! prints at the end (any line that does not start with `maj,min`). RWBS
//! starting with `R` is a read, `W` a write; discards, flushes and
//! barrier-only events (`D`, `F`, `N`) carry no data and are passed over.
//! The device is the stream (`major << 16 | minor`), or the process (its
//! pid) with `stream_by_process`; times are rebased on the first record,
//! read exactly from their digits (no float rounding).

use super::{bytes, device_stream, uint, Fields, LineFormat, Op, Record};

pub struct Blkparse {
    /// The action taken as requests: `D` or `Q`.
    pub event: &'static str,
    /// A stream per process (pid) instead of per device.
    pub stream_by_process: bool,
    t0: Option<u64>,
}

impl Default for Blkparse {
    fn default() -> Self {
        Blkparse::with_event("D")
    }
}

impl Blkparse {
    pub fn with_event(event: &'static str) -> Self {
        Blkparse { event, stream_by_process: false, t0: None }
    }
}

/// `sec.nsec` (nsec at most 9 digits) as ns.
fn time_ns(s: &str) -> Option<u64> {
    let (sec, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let sec: u64 = sec.parse().ok()?;
    let ns: u64 = if frac.is_empty() { 0 } else { format!("{frac:0<9}").parse().ok()? };
    sec.checked_mul(1_000_000_000)?.checked_add(ns)
}

impl LineFormat for Blkparse {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = Fields::split(line, None);
        let Some((maj, min)) = f.first().and_then(|d| d.split_once(',')) else { return Ok(None) };
        let (Ok(maj), Ok(min)) = (maj.parse::<u32>(), min.parse::<u32>()) else { return Ok(None) };
        if f.len() < 7 {
            return Err(format!(
                "expected an event `maj,min cpu seq time pid action RWBS …`, found {} fields",
                f.len()
            ));
        }
        if f[5] != self.event {
            return Ok(None);
        }
        let op = match f[6].as_bytes().first() {
            Some(b'R') => Op::Read,
            Some(b'W') => Op::Write,
            Some(b'D' | b'F' | b'N') => return Ok(None),
            _ => return Err(format!("field 7 (RWBS): expected R… or W… (or D, F, N), found `{}`", f[6])),
        };
        if f.len() < 10 || f[8] != "+" {
            return Err(format!("a {} event: expected `sector + nsectors` after RWBS", self.event));
        }
        let t = time_ns(f[3])
            .ok_or_else(|| format!("field 4 (time): expected seconds.nanoseconds, found `{}`", f[3]))?;
        let sector = uint(&f, 7, "sector")?;
        let n = uint(&f, 9, "nsectors")?;
        let stream = if self.stream_by_process {
            let pid = uint(&f, 4, "pid")?;
            u32::try_from(pid)
                .map_err(|_| format!("field 5 (pid): {pid} is too large (at most {})", u32::MAX))?
        } else {
            device_stream(maj as u64, min as u64, "field 1 (device)")?
        };
        let t0 = *self.t0.get_or_insert(t);
        // blkparse sorts by time per CPU, not always across CPUs: a few
        // ns out of order are kept at the first record's time
        let time_ns = t.saturating_sub(t0);
        Ok(Some(Record {
            time_ns,
            stream,
            offset_bytes: bytes(sector, 512, "sector")?,
            size_bytes: bytes(n, 512, "nsectors")?,
            op,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "  8,16   1     1272     0.012300000  4123  Q   R 123456 + 256 [iozone]
  8,16   1     1273     0.012345678  4123  D   R 123456 + 256 [iozone]
  8,16   0     1274     0.013000001     0  C   R 123456 + 256 [0]
  8,16   1     1275     0.020000000  4123  D  WS 123712 + 8 [iozone]
  8,16   1     1276     0.020000001  4123  D   N 0 + 0 [iozone]
CPU1 (8,16):
 Reads Queued:           1,      128KiB	 Writes Queued:           0,        0KiB";

    fn all(mut p: Blkparse) -> Vec<Record> {
        SAMPLE.lines().filter_map(|l| p.parse(l).unwrap()).collect()
    }

    #[test]
    fn d_events_by_default_q_on_request() {
        let d = all(Blkparse::default());
        assert_eq!(d.len(), 2);
        assert_eq!(
            d[0],
            Record {
                time_ns: 0,
                stream: 8 << 16 | 16,
                offset_bytes: 123456 * 512,
                size_bytes: 131072,
                op: Op::Read
            }
        );
        assert_eq!((d[1].time_ns, d[1].op, d[1].size_bytes), (7_654_322, Op::Write, 4096));
        let q = all(Blkparse::with_event("Q"));
        assert_eq!(q.len(), 1);
        let by_pid = all(Blkparse { stream_by_process: true, ..Blkparse::default() });
        assert_eq!(by_pid.iter().map(|r| r.stream).collect::<Vec<_>>(), [4123, 4123]);
        assert_eq!(time_ns("0.012345678"), Some(12_345_678));
        assert_eq!(time_ns("3.5"), Some(3_500_000_000));
    }

    #[test]
    fn a_broken_event_is_an_error() {
        let mut p = Blkparse::default();
        assert!(p.parse("  8,16 1 2 0.1 4 D R 12 +").unwrap_err().contains("sector + nsectors"));
        assert!(p.parse("  8,16 1 2 x 4 D R 12 + 8 [a]").unwrap_err().contains("field 4 (time)"));
        assert!(p.parse("  8,16 1 2 0.1 4 D X 12 + 8 [a]").unwrap_err().contains("field 7 (RWBS)"));
        assert!(p.parse("  8,16 1 2").unwrap_err().contains("expected an event"));
    }
}
