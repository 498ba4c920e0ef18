//! What a trace holds (`prefetchlab trace stats`): records, reads and
//! writes, bytes, footprint, streams, time span, request sizes and how
//! sequential it is — read in one streaming pass.
//!
//! Sequentiality, per stream (ASU / device / volume): a request is
//! *strictly* sequential when it starts where the stream's previous request
//! ended, and *interleaved* sequential when it starts where any of the
//! stream's last 8 requests ended (several sequential readers interleaved,
//! the `seq_*_any8` of the shared traces' PROVENANCE files).

use super::{open_file, Format, Op, ReadOptions, Record, RecordSource};
use crate::error::Result;
use std::collections::{HashMap, HashSet};
use std::path::Path;

/// The requests a trace holds, counted.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceStats {
    pub format: Format,
    pub records: u64,
    pub reads: u64,
    pub writes: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    /// Distinct blocks of `block_bytes` touched (a stream's blocks are its
    /// own: ASUs and devices are separate address spaces).
    pub footprint_blocks: u64,
    pub block_bytes: u64,
    pub streams: u64,
    /// Last arrival less the first, s.
    pub span_s: f64,
    pub sequential_fraction: f64,
    pub interleaved_sequential_fraction: f64,
    /// (largest size in the bucket, bytes; requests): sizes by powers of two.
    pub sizes: Vec<(u64, u64)>,
    /// Malformed records skipped (`ReadOptions::skip_bad`), among them the
    /// bad lines format detection passed over.
    pub skipped_records: u64,
    /// The file line of the first of them (0: none).
    pub first_skipped_line: usize,
    /// Records whose time is before the previous record's (real traces have
    /// some: a replay issues them in file order, with the record before).
    pub out_of_order_records: u64,
    /// The longest such step back in time, s.
    pub max_step_back_s: f64,
    /// The file line of the first of them (0: none, or a binary format).
    pub first_out_of_order_line: usize,
}

const RECENT: usize = 8;

/// One pass over `path`; `progress` hears the records and the file's bytes
/// read so far now and then (every batch), and stops the pass by answering
/// `false` ([`crate::error::Error::Cancelled`]).
pub fn stats(
    path: &Path,
    format: Option<Format>,
    opts: &ReadOptions,
    block_bytes: u64,
    progress: &mut dyn FnMut(u64, u64) -> bool,
) -> Result<TraceStats> {
    let block = block_bytes.max(1);
    let mut src = open_file(path, format, opts)?;
    let mut batch: Vec<Record> = Vec::with_capacity(1 << 14);
    let (mut records, mut reads, mut read_bytes, mut write_bytes) = (0u64, 0u64, 0u64, 0u64);
    let (mut strict, mut any) = (0u64, 0u64);
    let mut t_first: Option<u64> = None;
    let mut t_last = 0u64;
    let mut t_prev = 0u64;
    let (mut back, mut back_max_ns, mut first_back) = (0u64, 0u64, 0u64);
    let mut footprint: HashSet<(u32, u64)> = HashSet::new();
    // per stream: the ends of its last RECENT requests, the newest at [0]
    let mut recent: HashMap<u32, [u64; RECENT]> = HashMap::new();
    let mut sizes = [0u64; 65];
    loop {
        batch.clear();
        if src.next_batch(&mut batch, 1 << 14)? == 0 {
            break;
        }
        for r in &batch {
            records += 1;
            match r.op {
                Op::Read => {
                    reads += 1;
                    read_bytes += r.size_bytes;
                }
                Op::Write => write_bytes += r.size_bytes,
            }
            t_first.get_or_insert(r.time_ns);
            t_last = t_last.max(r.time_ns);
            if r.time_ns < t_prev {
                back += 1;
                back_max_ns = back_max_ns.max(t_prev - r.time_ns);
                if first_back == 0 {
                    first_back = records;
                }
            }
            t_prev = r.time_ns;
            let end = r.offset_bytes.saturating_add(r.size_bytes);
            let (b0, b1) = (r.offset_bytes / block, end.saturating_sub(1) / block);
            for b in b0..=b1.max(b0) {
                footprint.insert((r.stream, b));
            }
            let ends = recent.entry(r.stream).or_insert([u64::MAX; RECENT]);
            strict += (ends[0] == r.offset_bytes) as u64;
            any += ends.contains(&r.offset_bytes) as u64;
            ends.copy_within(0..RECENT - 1, 1);
            ends[0] = end;
            sizes[(64 - r.size_bytes.saturating_sub(1).leading_zeros()) as usize] += 1;
        }
        if !progress(records, src.bytes_read()) {
            return Err(crate::error::Error::Cancelled);
        }
    }
    let frac = |n: u64| if records == 0 { 0.0 } else { n as f64 / records as f64 };
    let first_out_of_order_line = match first_back {
        0 => 0,
        n => super::line_of_record(&mut open_file(path, format, opts)?, n),
    };
    Ok(TraceStats {
        format: src.format(),
        records,
        reads,
        writes: records - reads,
        read_bytes,
        write_bytes,
        footprint_blocks: footprint.len() as u64,
        block_bytes: block,
        streams: recent.len() as u64,
        span_s: t_first.map_or(0.0, |t0| (t_last - t0) as f64 / 1e9),
        sequential_fraction: frac(strict),
        interleaved_sequential_fraction: frac(any),
        sizes: sizes
            .iter()
            .enumerate()
            .filter(|(_, &n)| n > 0)
            .map(|(k, &n)| (if k == 64 { u64::MAX } else { 1u64 << k }, n))
            .collect(),
        skipped_records: src.skipped(),
        first_skipped_line: src.first_skipped_line(),
        out_of_order_records: back,
        max_step_back_s: back_max_ns as f64 / 1e9,
        first_out_of_order_line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::tests::write_tmp;

    /// The stats of `text`, written to a file `name` (its format told from the content).
    fn stats_of(name: &str, text: &[u8]) -> TraceStats {
        stats(&write_tmp(name, text), None, &ReadOptions::default(), 4096, &mut |_, _| true).unwrap()
    }

    #[test]
    fn counts_a_small_spc_trace() {
        // stream 0: 0..4096, 4096..8192 (strict), stream 1: 0..512, then
        // stream 0 again at 0 (the end of none of its last requests), and at
        // 4096 (the end of its request before last: interleaved only)
        let s = stats_of(
            "s.spc",
            b"0,0,4096,r,0\n0,8,4096,r,1\n1,0,512,w,2\n0,0,1024,r,3\n0,16,512,r,4\n0,8,512,r,5\n",
        );
        assert_eq!((s.format, s.records, s.reads, s.writes), (Format::Spc, 6, 5, 1));
        assert_eq!((s.read_bytes, s.write_bytes), (4096 + 4096 + 1024 + 512 + 512, 512));
        assert_eq!((s.streams, s.footprint_blocks), (2, 4)); // stream 0: blocks 0, 1, 2; stream 1: block 0
        assert_eq!(s.span_s, 5.0);
        // strict: #2 only (at 4096, where #1 ended)
        assert_eq!(s.sequential_fraction, 1.0 / 6.0);
        // any of the stream's last 8: #2, #5 (8192, where #2 ended), #6 (4096, where #1 ended)
        assert_eq!(s.interleaved_sequential_fraction, 3.0 / 6.0);
        assert_eq!(s.sizes, vec![(512, 3), (1024, 1), (4096, 2)]);
        assert_eq!(s.skipped_records, 0);
    }

    #[test]
    fn a_record_ending_past_2_64_bytes_is_refused_with_its_line() {
        // SPC sectors: 36028797018963967 × 512 is 2^64 − 512; 512 bytes end at 2^64, 4096 past it
        let path = write_tmp(
            "big.spc",
            b"0,0,512,r,0\n\n0,36028797018963967,512,r,1\n0,36028797018963967,4096,r,2\n",
        );
        let e = stats(&path, None, &ReadOptions::default(), 4096, &mut |_, _| true).unwrap_err().to_string();
        assert!(
            e.ends_with("big.spc:4: offset 18446744073709551104 + size 4096 bytes is beyond 2^64 bytes"),
            "{e}"
        );
        // a bad record like any other: skipped within workload.skip_bad, with its line
        let one = ReadOptions { skip_bad: 1, ..ReadOptions::default() };
        let s = stats(&path, None, &one, 4096, &mut |_, _| true).unwrap();
        assert_eq!((s.records, s.skipped_records, s.first_skipped_line), (2, 1, 4));
    }

    #[test]
    fn records_out_of_time_order_are_counted_with_the_first_ones_line() {
        // a comment-free SPC trace with a blank line: 3 s back at line 4, 1 s back at line 6
        let s = stats_of(
            "back.spc",
            b"0,0,4096,r,1\n0,8,4096,r,4\n\n0,16,4096,r,1\n0,24,4096,r,2\n0,32,4096,r,1\n",
        );
        assert_eq!((s.out_of_order_records, s.max_step_back_s, s.first_out_of_order_line), (2, 3.0, 4));
        assert_eq!(s.span_s, 3.0);
        let s = stats_of("fwd.spc", b"0,0,4096,r,1\n0,8,4096,r,1\n");
        assert_eq!((s.out_of_order_records, s.max_step_back_s, s.first_out_of_order_line), (0, 0.0, 0));
    }

    #[test]
    fn bad_records_are_skipped_up_to_the_limit() {
        let p = write_tmp("bad.spc", b"0,0,4096,r,0\n0,x,1,r,1\n0,8,4096,r,2\n0,8,-1,r,3\n0,16,512,r,4\n");
        let two = ReadOptions { skip_bad: 2, ..ReadOptions::default() };
        let s = stats(&p, Some(Format::Spc), &two, 4096, &mut |_, _| true).unwrap();
        assert_eq!((s.records, s.skipped_records, s.first_skipped_line), (3, 2, 2));
        let one = ReadOptions { skip_bad: 1, ..ReadOptions::default() };
        let e = stats(&p, Some(Format::Spc), &one, 4096, &mut |_, _| true).unwrap_err().to_string();
        assert!(e.contains("bad.spc:4:") && e.contains("after 1 bad records skipped"), "{e}");
    }

    #[test]
    fn a_bad_first_line_is_passed_over_by_detection_too_and_counted() {
        let p = write_tmp("bad-first.spc", b"%%% garbage %%%\n0,0,4096,r,0\n0,8,4096,w,1\n0,16,512,r,2\n");
        let one = ReadOptions { skip_bad: 1, ..ReadOptions::default() };
        let s = stats(&p, None, &one, 4096, &mut |_, _| true).unwrap();
        assert_eq!(s.format, Format::Spc);
        assert_eq!((s.records, s.reads, s.skipped_records, s.first_skipped_line), (3, 2, 1, 1));
        // without skipping, detection's error names the file and the line, as before
        let e = stats(&p, None, &ReadOptions::default(), 4096, &mut |_, _| true).unwrap_err().to_string();
        assert!(e.contains("bad-first.spc:1:") && e.contains("give the format"), "{e}");
    }
}
