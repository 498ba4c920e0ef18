//! VMware vSCSI traces as libCacheSim writes them in csv (its
//! `cloudPhysicsIO.csv`, the shared CloudPhysics sample's text form): the
//! header `version,time,op,size,lbn`, then one request per line —
//!
//! * `version`: the vSCSI trace version, `1`;
//! * `time`: **seconds** (libCacheSim's `ts // 10^6` of the binary trace's
//!   µs, so the sample's order within a second is the file's; a fraction
//!   is taken too), rebased on the first record, before which no record
//!   may be;
//! * `op`: the SCSI opcode in hex (`28` READ(10), `2a` WRITE(10); an
//!   optional `0x`), read as [`super::vscsi`] reads the binary's `cmd`:
//!   READ(6/10/12/16) reads, WRITE(6/10/12/16) writes, a command moving no
//!   data passed over;
//! * `size`: bytes;
//! * `lbn`: the first **512-byte sector**.
//!
//! One stream (one virtual disk). The format is told by its header; the
//! same requests as the binary trace, at a coarser clock.

use super::{bytes, real, to_ns, uint, Fields, LineFormat, Record};

/// The header line, field by field.
pub const HEADER: [&str; 5] = ["version", "time", "op", "size", "lbn"];

/// The fields of a line, as errors name them.
const FIELDS: &str = "version,time,op,size,lbn";

#[derive(Default)]
pub struct VscsiCsv {
    /// The header has been read.
    header_read: bool,
    /// The first record's time, ns from the trace clock's zero.
    t0_ns: Option<u64>,
}

impl LineFormat for VscsiCsv {
    fn parse(&mut self, line: &str) -> Result<Option<Record>, String> {
        let f = Fields::split(line, Some(','));
        if !self.header_read {
            if f.total != HEADER.len() || !f.iter().zip(HEADER).all(|(a, b)| a.eq_ignore_ascii_case(b)) {
                return Err(format!(
                    "expected the header `{FIELDS}` (libCacheSim's csv of a vSCSI trace), found `{}`",
                    line.chars().take(80).collect::<String>()
                ));
            }
            self.header_read = true;
            return Ok(None);
        }
        if f.total != HEADER.len() {
            return Err(format!("expected 5 fields ({FIELDS}), found {}", f.total));
        }
        if f[0] != "1" {
            return Err(format!("field 1 (version): expected 1 (vSCSI version 1), found `{}`", f[0]));
        }
        let time_s = real(&f, 1, "time, s")?;
        let hex = f[2].strip_prefix("0x").or_else(|| f[2].strip_prefix("0X")).unwrap_or(f[2]);
        let cmd = u16::from_str_radix(hex, 16).ok().filter(|_| !hex.starts_with('+')).ok_or_else(|| {
            format!("field 3 (op): expected a SCSI opcode in hex (28 read, 2a write), found `{}`", f[2])
        })?;
        let size_bytes = uint(&f, 3, "size, bytes")?;
        let lbn = uint(&f, 4, "lbn, sectors")?;
        let offset_bytes = bytes(lbn, 512, "field 5 (lbn, sectors)")?;
        let ns = to_ns(time_s, 1e9, "field 2 (time, s)")?;
        let t0 = *self.t0_ns.get_or_insert(ns);
        let time_ns = ns.checked_sub(t0).ok_or_else(|| {
            format!(
                "field 2 (time, s): {} is before the first record's {} (expected time order)",
                f[1],
                t0 as f64 / 1e9
            )
        })?;
        let Some(op) = super::vscsi::op_of(cmd) else { return Ok(None) };
        Ok(Some(Record { time_ns, stream: 0, offset_bytes, size_bytes, op }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    fn all(text: &str) -> Result<Vec<Record>, String> {
        crate::trace::tests::parse_lines(VscsiCsv::default(), text)
    }

    #[test]
    fn seconds_hex_opcodes_and_sectors() {
        // the sample's first lines, a READ(16), a SYNCHRONIZE CACHE (no data) and a fraction
        let r = all("version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633898,28,65536,8\n\
             1,5633899,0x88,4096,16\n1,5633899,35,0,0\n1,5633900.25,8A,8192,24\n")
        .unwrap();
        assert_eq!(
            r[0],
            Record { time_ns: 0, stream: 0, offset_bytes: 42932745 * 512, size_bytes: 512, op: Op::Write }
        );
        assert_eq!((r[1].op, r[1].offset_bytes, r[1].size_bytes), (Op::Read, 4096, 65536));
        assert_eq!((r[2].time_ns, r[2].op), (1_000_000_000, Op::Read));
        assert_eq!(r.len(), 4, "the command moving no data is passed over");
        assert_eq!((r[3].time_ns, r[3].op, r[3].offset_bytes), (2_250_000_000, Op::Write, 24 * 512));
        // the header's names in any case, with blanks around them
        assert!(all("Version, Time, OP, size, lbn\n1,0,28,512,0\n").unwrap().len() == 1);
    }

    #[test]
    fn a_bad_line_says_what_was_expected() {
        let head = "version,time,op,size,lbn\n";
        for (body, want) in [
            ("1,5,28,512\n", "expected 5 fields (version,time,op,size,lbn), found 4"),
            ("1,5,28,512,0,9\n", "found 6"),
            ("2,5,28,512,0\n", "field 1 (version): expected 1"),
            ("1,x,28,512,0\n", "field 2 (time, s): expected a non-negative number"),
            ("1,-5,28,512,0\n", "field 2 (time, s)"),
            (
                "1,5,read,512,0\n",
                "field 3 (op): expected a SCSI opcode in hex (28 read, 2a write), found `read`",
            ),
            ("1,5,+28,512,0\n", "field 3 (op)"),
            ("1,5,28,-512,0\n", "field 4 (size, bytes)"),
            ("1,5,28,512,x\n", "field 5 (lbn, sectors)"),
            ("1,5,28,512,36028797018963968\n", "overflows"),
            ("1,6,28,512,0\n1,5,28,512,0\n", "field 2 (time, s): 5 is before the first record's 6"),
        ] {
            let e = all(&format!("{head}{body}")).unwrap_err();
            assert!(e.contains(want), "{body}: {e}");
        }
        let e = all("time,obj_id,obj_size\n0,1,4096\n").unwrap_err();
        assert!(e.contains("expected the header `version,time,op,size,lbn`"), "{e}");
        assert!(all("version,time,op,size\n").is_err(), "a header of four columns");
    }
}
