//! DiskSim's validation traces (`validate` trace format; the measured
//! request streams of `disksim-valid/*.trace`): one request per line,
//! `R|W  Hit|Miss|…  blkno  bcount  service_us  next_interarrival_us` —
//! blkno and bcount in 512-byte sectors, the drive's measured service
//! time, and the gap before the next request, both in **µs**: DiskSim's
//! reader (`iotrace_validate_get_ioreq_event`) divides both by 1000 into
//! its ms clock. Lines are parsed by the device validation's own rule,
//! [`parse_trace_line`] (blank and `#` lines passed over).
//!
//! Times: DiskSim issues the next request `next_interarrival_us` after the
//! previous one *completes*, so on the measured drive request i+1 arrived
//! at `arrival_i + service_us_i + next_interarrival_us_i`; request 1 at 0.
//! One stream. (To replay the trace as DiskSim validates a drive — each
//! request after the simulated completion of the one before — use the
//! device validation, not an open-loop replay of these times.)

use super::{bytes, LineFormat, Op, Record};
use crate::device::validate::parse_trace_line;

#[derive(Default)]
pub struct DisksimValidate {
    /// The arrival of the next request, ns.
    next_ns: u64,
}

/// µs (finite, non-negative, at most a day: [`parse_trace_line`] checks)
/// as ns.
fn us_to_ns(us: f64) -> u64 {
    (us * 1000.0).round() as u64
}

impl LineFormat for DisksimValidate {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let Some(l) = parse_trace_line(line)? else { return Ok(None) };
        let time_ns = self.next_ns;
        self.next_ns = time_ns
            .checked_add(us_to_ns(l.service_us) + us_to_ns(l.next_interarrival_us))
            .ok_or("the running clock (arrival + service + gap) overflows 2^64 ns")?;
        Ok(Some(Record {
            time_ns,
            stream: 0,
            offset_bytes: bytes(l.lba, 512, "blkno")?,
            size_bytes: l.sectors as u64 * 512,
            op: if l.write { Op::Write } else { Op::Read },
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atlas10ks_first_lines() {
        let mut v = DisksimValidate::default();
        let a = v.parse("W Hit    4583176   4    663.00000  45422.00000").unwrap().unwrap();
        let b = v.parse("W Hit    4583180   4    607.00000  34200.00000").unwrap().unwrap();
        assert_eq!(v.parse("# a comment"), Ok(None));
        let c = v.parse("R Hit    3962268  12   6657.00000  64047.00000").unwrap().unwrap();
        assert_eq!(
            a,
            Record { time_ns: 0, stream: 0, offset_bytes: 4583176 * 512, size_bytes: 2048, op: Op::Write }
        );
        assert_eq!(b.time_ns, 46_085_000); // 663 µs service + 45422 µs gap
        assert_eq!((c.time_ns, c.size_bytes, c.op), (46_085_000 + 34_807_000, 6144, Op::Read));
        // hp_c2247a's fractional µs and its other cache words
        let d = v.parse("W Doub 1194877    15     17221.000     21894.380").unwrap().unwrap();
        assert_eq!(d.time_ns, 46_085_000 + 34_807_000 + 70_704_000);
    }

    #[test]
    fn bad_lines_are_named() {
        let mut v = DisksimValidate::default();
        for (line, want) in [
            ("R Hit 10 4 100.0", "too few fields"),
            ("X Hit 10 4 100.0 1.0", "first field must be R or W"),
            ("R Hit x 4 100.0 1.0", "block is not an integer"),
            ("R Hit 10 -4 100.0 1.0", "size is not an integer"),
            ("R Hit 10 4 nan 1.0", "service_us is not a finite number"),
            ("R Hit 10 4 1.0 -1.0", "times ≥ 0"),
            ("R Hit 36028797018963968 4 1.0 1.0", "overflows"),
        ] {
            let e = v.parse(line).unwrap_err();
            assert!(e.contains(want), "{line}: {e}");
        }
    }
}
