//! SASEQP, strip-aligned sequential prefetching (\[TC09\] §3; algorithms.md
//! §3.1, decisions.md #2–#3).
//!
//! SEQP chooses a window; before the I/O is issued SASEQP cuts it at the
//! first page that leaves the strip of its first page or is not physically
//! contiguous with the page before it, so no window is split into two disk
//! requests (independency). The next window starts right after the cut one
//! but grows from the **uncut** size (decisions.md #2; Fig. 4 needs 7
//! prefetches, not 8), and a cut never leaves out the demand pages the
//! window holds (#2c). The cut is [`StripAligned`] with [`Fit::Cut`]: the
//! same mechanism as basic SARA.
//!
//! "SEQP" is the Linux 2.6.18 readahead in \[TC09\]'s experiments
//! (`[saseqp] base = "linux"`, the default, on [`Linux2618`]); the didactic
//! SEQP of its Fig. 3 is `base = "seqp"` ([`Seqp`]). With a maximum of at
//! least a strip, a SASEQP window is at most one strip; a larger maximum
//! still makes the first window and the ramp larger.
//!
//! On 2.6.18 a cut puts the windows after it out of step with reads that
//! start at multiples of their size in the file. Where a window is no longer
//! than a read (max at or below the read size, or a strip that cuts windows
//! to it), each read then ends inside the ahead window it enters, so 2.6.18
//! builds the next one for the read's own last pages and reads it at once
//! (algorithms.md §1.2 step 8): the scheme loses its read-ahead there
//! (tc09-fig10.toml FINDINGS 2). Both rules are as specified; this is what
//! they do together.
//!
//! Golden (\[TC09\] Figs. 3–4, §3.1): a 20-block file at B16–B35 with 4-block
//! strips, SEQP 1 → 2 → 4 (max 4): windows B16, B17–18, **B19** (cut from 4),
//! B20–23, B24–27, B28–31, B32–35: 7 prefetches, 7 disk requests (SEQP: 11).
//!
//! [`Linux2618`]: super::linux_2_6_18::Linux2618
//! [`Seqp`]: super::seqp::Seqp

use super::strip_align::{Fit, StripAligned};
use super::Readahead;

/// SASEQP over the window policy `base` (2.6.18 or the didactic SEQP), cut
/// to strips of `strip_pages`.
pub fn saseqp<P: Readahead>(base: P, strip_pages: u64) -> StripAligned<P> {
    StripAligned::new(base, Fit::Cut, strip_pages)
}

#[cfg(test)]
mod tests {
    use super::super::linux_2_6_18::Linux2618;
    use super::super::seqp::Seqp;
    use super::super::testing::MockFile;
    use super::super::WindowKind;
    use super::*;
    use crate::config::Growth;

    /// \[TC09\] Fig. 4, the SASEQP column of §3.1: 7 prefetches, 7 disk requests.
    #[test]
    fn golden_tc09_fig4() {
        let mut f = MockFile::new(20);
        f.first_block = 16;
        f.strip_blocks = 4;
        let mut ra = saseqp(Seqp::new(1, Growth::Double, 4), 4);
        f.read_sequential(&mut ra, 1, 100);
        let got: Vec<(u64, u64)> = f.ranges().iter().map(|r| (r.0, r.1)).collect();
        assert_eq!(got, vec![(0, 1), (1, 3), (3, 4), (4, 8), (8, 12), (12, 16), (16, 20)]);
        let per_window: Vec<u64> = got.iter().map(|&(s, e)| f.strips_touched(s, e)).collect();
        assert_eq!(per_window, vec![1; 7]);
        assert!(f.fallback_reads.is_empty());
    }

    /// A 7-block file shows no difference between SASEQP and SEQP in disk
    /// requests (\[TC09\] §3): B19–B22 costs SEQP two requests, SASEQP two
    /// windows of one.
    #[test]
    fn seven_block_file_same_requests_as_seqp() {
        let run = |aligned: bool| {
            let mut f = MockFile::new(7);
            f.first_block = 16;
            f.strip_blocks = 4;
            if aligned {
                f.read_sequential(&mut saseqp(Seqp::new(1, Growth::Double, 4), 4), 1, 100);
            } else {
                f.read_sequential(&mut Seqp::new(1, Growth::Double, 4), 1, 100);
            }
            f.ranges().iter().map(|r| f.strips_touched(r.0, r.1)).sum::<u64>()
        };
        assert_eq!(run(true), 4);
        assert_eq!(run(false), 4);
    }

    /// On 2.6.18 with max 32 pages over 16-page strips, one page per read:
    /// the ahead window [12,28) is cut to the strip end, and the next ones,
    /// grown from the uncut sizes (16 → 32), are cut to one strip each.
    #[test]
    fn linux_2_6_18_windows_align_to_strips() {
        let mut f = MockFile::new(200);
        f.first_block = 0;
        f.strip_blocks = 16;
        let mut ra = saseqp(Linux2618::new(32), 16);
        f.read_sequential(&mut ra, 1, 200);
        let got: Vec<(u64, u64)> = f.ranges().iter().map(|r| (r.0, r.1)).collect();
        // plain 2.6.18: [0,4) [4,12) [12,28) [28,60) …; aligned: [12,16) then whole strips
        assert_eq!(&got[..6], &[(0, 4), (4, 12), (12, 16), (16, 32), (32, 48), (48, 64)]);
        assert!(got.iter().filter(|r| r.0 < r.1).all(|&(s, e)| f.strips_touched(s, e) == 1), "{got:?}");
        assert!(f.fallback_reads.is_empty());
    }

    /// On 2.6.18 with max = the read size (16 pages) over 64-page strips and
    /// a file that starts 22 pages into a strip: plain 2.6.18 keeps one read
    /// ahead (its windows start where reads start, each built before the
    /// reader needs it), while SASEQP's cut at the strip end (page 42) puts
    /// every later window out of step with the reads. Each read then ends
    /// inside the ahead window it enters, so the next one is built for the
    /// read's own last pages and read at once (§1.2 step 8): blocking, with
    /// no window ever read ahead again (tc09-fig10.toml FINDINGS 2).
    #[test]
    fn linux_2_6_18_cut_out_of_step_with_reads_reads_every_window_at_once() {
        let run = |aligned: bool| {
            let mut f = MockFile::new(256);
            f.first_block = 22;
            f.strip_blocks = 64;
            if aligned {
                f.read_sequential(&mut saseqp(Linux2618::new(16), 64), 16, 16);
            } else {
                f.read_sequential(&mut Linux2618::new(16), 16, 16);
            }
            assert!(f.fallback_reads.is_empty());
            f.ranges()
        };
        let plain = run(false);
        assert!(plain.iter().skip(2).all(|r| r.0 % 16 == 0 && r.2 == WindowKind::Async), "{plain:?}");
        let cut = run(true);
        assert_eq!((cut[2].0, cut[2].1, cut[2].2), (32, 42, WindowKind::Async), "{cut:?}");
        assert!(cut.iter().skip(3).all(|r| r.0 % 16 == 10 && r.2 == WindowKind::Sync), "{cut:?}");
        assert!(cut.len() > 10);
    }
}
