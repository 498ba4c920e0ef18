//! The md small-write planner (models.md §3.5): which member blocks a write
//! must *read* before it can be written, and which it writes.
//!
//! # What md does, and why
//!
//! A RAID-5/6 write changes parity, and parity is a function of every data
//! block of its row, so a write that does not cover a whole row must first
//! learn something from the disks. Linux md works on *stripe heads* of one
//! 4 KiB page per member device, i.e. on one **row** of a stripe at a time
//! (strip offset `o` of every strip of the stripe, plus P and Q at `o`), and
//! for each row decides in `handle_stripe_dirtying` (drivers/md/raid5.c)
//! between two ways of getting the new parity:
//!
//! * **read-modify-write** (rmw): read the old contents of the data blocks
//!   being written and the old parity, and fold the difference into the
//!   parity. md counts `rmw` = blocks it would have to read = the written data
//!   blocks that are not already up to date in the stripe cache (here: all of
//!   them — no stripe cache is modelled) + P (+ Q on RAID-6);
//! * **reconstruct-write** (rcw): read every data block of the row that is
//!   *not* being overwritten and compute the parity afresh. md counts `rcw` =
//!   those untouched data blocks; parity is never read.
//!
//! md takes read-modify-write when `rmw < rcw` (and `rmw > 0`), otherwise
//! reconstruct-write, so **a tie goes to reconstruct-write** (the default
//! `rmw_level`; the sysfs knob's "prefer rmw" setting is not modelled). A
//! fully overwritten row has `rcw = 0`: it is written with no reads at all —
//! a full-stripe write.
//!
//! | row of `k` data blocks, `m` written | reads | writes |
//! |---|---|---|
//! | RAID-5, `m + 1 < k − m` (rmw) | `m` old data + old P | `m` + P |
//! | RAID-5 otherwise, `m < k` (rcw) | `k − m` untouched data | `m` + P |
//! | RAID-6, rmw (allowed from Linux 4.1, `m + 2 < k − m`) | `m` + P + Q | `m` + P + Q |
//! | RAID-6, rcw | `k − m` | `m` + P + Q |
//! | `m = k` (full row) | none | `k` + P (+ Q) |
//!
//! So on RAID-5 with 5 disks a 4 KiB write is 2 reads + 2 writes (§3.5). On
//! RAID-6 of `n` disks reconstruct-write reads the `n − 3` other data blocks
//! and read-modify-write reads 3 (data, P, Q): 3 + 3 on 6 disks either way
//! (a tie, so rcw), and from 7 disks on read-modify-write (3 reads + 3 writes)
//! where the kernel allows it ([`Raid6Write`]), `n − 3` reads where it does not.
//!
//! RAID-10 writes both copies and reads nothing; RAID-0 and `single` write the
//! data only.
//!
//! # What this module produces
//!
//! [`plan_write`] fills a [`WritePlan`]: the **pre-reads** (member extents to
//! read before any write of the request can be issued), the **writes** —
//! exactly [`ArrayLayout::map_write`]'s extents: data, then per stripe the
//! changed rows of P (and Q), or RAID-10's second copies — and how many rows
//! went each way. Rows with the same written set get the same decision, and a
//! stripe has at most three such runs of rows (before / between / after the
//! first strip's first written row and the last strip's end), so the reads come
//! out as at most one extent per member disk per run, joined across runs where
//! they are contiguous on the disk: a 64 KiB write inside one 128 KiB strip of
//! a RAID-5 is two reads (old data, old P) and two writes, not sixteen of each.
//!
//! Not modelled: md's stripe cache (a row already up to date needs no read),
//! the delaying of partial-stripe writes to gather full stripes from later
//! requests, degraded arrays, and the forced reconstruct-write while the array
//! is resyncing.

use super::layout::{ArrayLayout, Extent};
use crate::config::Layout;

/// Whether md may use read-modify-write on RAID-6.
///
/// Before Linux 4.1 `handle_stripe_dirtying` forced reconstruct-write whenever
/// the array has two parity devices (`max_degraded == 2`). Linux 4.1 added
/// RAID-6 read-modify-write with the `rmw_level` knob, on by default when the
/// kernel's RAID-6 syndrome routine can update P and Q for a subset of the
/// data blocks (`xor_syndrome`). RAID-5 always chooses the cheaper way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Raid6Write {
    /// Kernels before 4.1: every partial RAID-6 row is a reconstruct-write.
    ReconstructOnly,
    /// Linux 4.1 and later: the cheaper of the two, as on RAID-5 (ties go to
    /// reconstruct-write).
    Cheaper,
}

/// md's decision for one row (stripe head) of a RAID-5/6 write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowWrite {
    /// Read the old data being overwritten and the old parity.
    ReadModifyWrite,
    /// Read the data blocks not being overwritten.
    ReconstructWrite,
    /// Every data block of the row is overwritten: no reads.
    Full,
}

impl RowWrite {
    /// The choice for a row of `data_disks` data blocks of which
    /// `written_blocks` (1 ..= `data_disks`) are overwritten, with
    /// `parity_disks` redundancy blocks (1: RAID-5, 2: RAID-6); `rmw_allowed`
    /// is false for RAID-6 under [`Raid6Write::ReconstructOnly`].
    #[inline]
    pub fn choose(data_disks: u64, written_blocks: u64, parity_disks: u64, rmw_allowed: bool) -> RowWrite {
        debug_assert!((1..=data_disks).contains(&written_blocks));
        let rcw_reads = data_disks - written_blocks;
        let rmw_reads = written_blocks + parity_disks;
        if rcw_reads == 0 {
            RowWrite::Full
        } else if rmw_allowed && rmw_reads < rcw_reads {
            RowWrite::ReadModifyWrite
        } else {
            RowWrite::ReconstructWrite
        }
    }
}

/// What one logical write costs on the members. Reuse one `WritePlan` across
/// requests: [`plan_write`] clears it and refills its vectors in place.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WritePlan {
    /// Extents to read before the writes: old data and old P/Q
    /// ([`Extent::PARITY`]) of read-modify-write rows, untouched data of
    /// reconstruct-write rows. In stripe order; within a stripe, data strips
    /// in array order, then P, then Q.
    pub reads: Vec<Extent>,
    /// Extents to write: exactly [`ArrayLayout::map_write`]'s output.
    pub writes: Vec<Extent>,
    /// Rows (RAID-5/6 stripe heads, one 4 KiB block per member) written by
    /// read-modify-write.
    pub rmw_rows: u64,
    /// Partially written rows done by reconstruct-write.
    pub rcw_rows: u64,
    /// Fully written rows (no reads). The three row counts stay 0 on layouts
    /// without parity.
    pub full_rows: u64,
}

impl WritePlan {
    pub fn new() -> Self {
        Self::default()
    }

    /// Empties the plan, keeping the vectors' capacity.
    pub fn clear(&mut self) {
        self.reads.clear();
        self.writes.clear();
        self.rmw_rows = 0;
        self.rcw_rows = 0;
        self.full_rows = 0;
    }

    /// 4 KiB blocks read before the writes.
    pub fn read_blocks(&self) -> u64 {
        self.reads.iter().map(|e| e.blocks).sum()
    }

    /// 4 KiB blocks written (data and redundancy).
    pub fn write_blocks(&self) -> u64 {
        self.writes.iter().map(|e| e.blocks).sum()
    }
}

/// A run of rows `[row_lo, row_hi)` of one stripe with one written set and so
/// one decision.
#[derive(Debug, Clone, Copy)]
struct RowRun {
    row_lo: u64,
    row_hi: u64,
    /// The first strip touched is written in these rows.
    first_strip_written: bool,
    /// The last strip touched is written in these rows.
    last_strip_written: bool,
    decision: RowWrite,
}

/// Plans md's write of `[block, block + blocks)` (4 KiB array blocks) on
/// `layout`: clears `plan`, then fills its reads, writes and row counts (see
/// the module doc). Allocates nothing once `plan`'s vectors have grown to
/// the largest request seen. `raid6` matters only on RAID-6.
///
/// Same range contract as [`ArrayLayout::map_write`]: a range beyond the
/// capacity trips a `debug_assert!`.
pub fn plan_write(layout: &ArrayLayout, raid6: Raid6Write, block: u64, blocks: u64, plan: &mut WritePlan) {
    plan.clear();
    layout.map_write(block, blocks, &mut plan.writes);
    let parity_disks = match layout.layout() {
        Layout::Raid5 => 1,
        Layout::Raid6 => 2,
        Layout::Single | Layout::Raid0 | Layout::Raid10 => return,
    };
    if blocks == 0 {
        return;
    }
    let rmw_allowed = layout.layout() == Layout::Raid5 || raid6 == Raid6Write::Cheaper;
    let strip_blocks = layout.strip_blocks();
    let data_disks = layout.data_disks() as u64;
    let stripe_blocks = strip_blocks * data_disks;
    let end = block.saturating_add(blocks);
    let mut b = block;
    while b < end {
        let stripe = b / stripe_blocks;
        let stripe_end = ((stripe + 1) * stripe_blocks).min(end);
        // Data indices (0..data_disks) of the first and last strips touched.
        let first_dd = b / strip_blocks - stripe * data_disks;
        let last_dd = (stripe_end - 1) / strip_blocks - stripe * data_disks;
        // The first strip is written from `first_row` on, the last one up to
        // `last_row_end`; strips between them in every row.
        let first_row = b % strip_blocks;
        let last_row_end = (stripe_end - 1) % strip_blocks + 1;
        let written = |dd: u64, run: &RowRun| {
            if first_dd == last_dd {
                dd == first_dd && run.first_strip_written && run.last_strip_written
            } else {
                (dd == first_dd && run.first_strip_written)
                    || (dd == last_dd && run.last_strip_written)
                    || (first_dd < dd && dd < last_dd)
            }
        };

        // Cut the strip's rows at the two boundaries: up to three runs.
        let cut_lo = first_row.min(last_row_end);
        let cut_hi = first_row.max(last_row_end);
        let mut runs = [None::<RowRun>; 3];
        for (slot, (row_lo, row_hi)) in
            runs.iter_mut().zip([(0, cut_lo), (cut_lo, cut_hi), (cut_hi, strip_blocks)])
        {
            if row_lo == row_hi {
                continue;
            }
            let first_strip_written = row_lo >= first_row;
            let last_strip_written = row_lo < last_row_end;
            let written_blocks = if first_dd == last_dd {
                (first_strip_written && last_strip_written) as u64
            } else {
                last_dd - first_dd - 1 + first_strip_written as u64 + last_strip_written as u64
            };
            if written_blocks == 0 {
                continue; // rows this write leaves alone
            }
            let decision = RowWrite::choose(data_disks, written_blocks, parity_disks, rmw_allowed);
            let rows = row_hi - row_lo;
            match decision {
                RowWrite::ReadModifyWrite => plan.rmw_rows += rows,
                RowWrite::ReconstructWrite => plan.rcw_rows += rows,
                RowWrite::Full => plan.full_rows += rows,
            }
            *slot = Some(RowRun { row_lo, row_hi, first_strip_written, last_strip_written, decision });
        }

        // Data reads, member by member so that runs join on each disk. A
        // strip of a parity stripe lies at row `stripe` of its disk.
        let stripe_disk_block = stripe * strip_blocks;
        for dd in 0..data_disks {
            let strip = stripe * data_disks + dd;
            let disk = layout.disk_of_strip(strip);
            for run in runs.iter().flatten() {
                let read = match run.decision {
                    RowWrite::ReadModifyWrite => written(dd, run),
                    RowWrite::ReconstructWrite => !written(dd, run),
                    RowWrite::Full => false,
                };
                if read {
                    push_joined(
                        &mut plan.reads,
                        Extent {
                            disk,
                            disk_block: stripe_disk_block + run.row_lo,
                            blocks: run.row_hi - run.row_lo,
                            array_block: strip * strip_blocks + run.row_lo,
                        },
                    );
                }
            }
        }
        // Old P (and Q) of the read-modify-write rows.
        let (p_disk, q_disk) = layout.parity_disks_of_stripe(stripe);
        for disk in [p_disk, q_disk].into_iter().flatten() {
            for run in runs.iter().flatten().filter(|r| r.decision == RowWrite::ReadModifyWrite) {
                push_joined(
                    &mut plan.reads,
                    Extent {
                        disk,
                        disk_block: stripe_disk_block + run.row_lo,
                        blocks: run.row_hi - run.row_lo,
                        array_block: Extent::PARITY,
                    },
                );
            }
        }
        b = stripe_end;
    }
}

/// Appends `piece`, joining it to the last extent when that one is on the
/// same disk, ends where `piece` starts, and is of the same kind — for data,
/// also contiguous in array blocks, so `array_block + i` stays the array
/// block of the extent's `i`-th block.
#[inline]
fn push_joined(out: &mut Vec<Extent>, piece: Extent) {
    if let Some(last) = out.last_mut() {
        if last.disk == piece.disk
            && last.disk_block + last.blocks == piece.disk_block
            && last.is_parity() == piece.is_parity()
            && (piece.is_parity() || last.array_block + last.blocks == piece.array_block)
        {
            last.blocks += piece.blocks;
            return;
        }
    }
    out.push(piece);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    const DISK_BLOCKS: u64 = 1 << 20;

    fn lay(layout: Layout, disks: u32, strip_blocks: u64) -> ArrayLayout {
        ArrayLayout::new(layout, disks, strip_blocks, DISK_BLOCKS).unwrap()
    }

    fn plan(l: &ArrayLayout, raid6: Raid6Write, block: u64, blocks: u64) -> WritePlan {
        let mut p = WritePlan::new();
        plan_write(l, raid6, block, blocks, &mut p);
        p
    }

    fn data(disk: u32, disk_block: u64, blocks: u64, array_block: u64) -> Extent {
        Extent { disk, disk_block, blocks, array_block }
    }

    fn parity(disk: u32, disk_block: u64, blocks: u64) -> Extent {
        Extent { disk, disk_block, blocks, array_block: Extent::PARITY }
    }

    /// (rmw, rcw, full) rows.
    fn rows(p: &WritePlan) -> (u64, u64, u64) {
        (p.rmw_rows, p.rcw_rows, p.full_rows)
    }

    // RAID-5 of 5 disks (k = 4 data disks), left-symmetric:
    //   stripe 0: D0 D1 D2 D3 P   (strips 0..3 on disks 0..3, P on disk 4)
    //   stripe 1: D5 D6 D7 P D4   (P on disk 3, strip 4 on disk 4)
    //   stripe 2: D10 D11 P D8 D9 (P on disk 2, strip 8 on disk 3)

    #[test]
    fn raid5_one_block_is_read_modify_write() {
        // Strip 4 blocks. Block 1 = strip 0 row 1 (disk 0). m = 1 of k = 4:
        // rmw = 1 + 1 (P) = 2 < rcw = 3 untouched → rmw: read old D and old P.
        let l = lay(Layout::Raid5, 5, 4);
        let p = plan(&l, Raid6Write::ReconstructOnly, 1, 1);
        assert_eq!(p.reads, vec![data(0, 1, 1, 1), parity(4, 1, 1)]);
        assert_eq!(p.writes, vec![data(0, 1, 1, 1), parity(4, 1, 1)]);
        assert_eq!(rows(&p), (1, 0, 0));
    }

    #[test]
    fn raid5_three_of_four_strips_is_reconstruct_write() {
        // Strip = 1 block, so blocks [0, 3) are strips 0, 1, 2 of row 0 of
        // stripe 0: m = 3, rmw = 3 + 1 = 4 > rcw = 1 (strip 3) → rcw.
        // 1 read (strip 3 on disk 3) + 4 writes (disks 0, 1, 2 and P on 4).
        let l = lay(Layout::Raid5, 5, 1);
        let p = plan(&l, Raid6Write::ReconstructOnly, 0, 3);
        assert_eq!(p.reads, vec![data(3, 0, 1, 3)]);
        assert_eq!(p.writes, vec![data(0, 0, 1, 0), data(1, 0, 1, 1), data(2, 0, 1, 2), parity(4, 0, 1)]);
        assert_eq!(rows(&p), (0, 1, 0));
    }

    #[test]
    fn raid5_rows_of_one_decision_join_per_disk() {
        // Strip 4 blocks; write [2, 10): strip 0 rows 2..4, strip 1 whole,
        // strip 2 rows 0..2. Every row has m = 2 of 4 (rows 0-1: strips 1, 2;
        // rows 2-3: strips 0, 1): rmw = 3 > rcw = 2 → rcw in all 4 rows.
        // Reads: rows 0-1 of strips 0 and 3, rows 2-3 of strips 2 and 3; strip
        // 3 (disk 3) is read in both runs and joins into one 4-block extent.
        let l = lay(Layout::Raid5, 5, 4);
        let p = plan(&l, Raid6Write::Cheaper, 2, 8);
        assert_eq!(p.reads, vec![data(0, 0, 2, 0), data(2, 2, 2, 10), data(3, 0, 4, 12)]);
        assert_eq!(p.read_blocks(), 8); // 4 rows × 2 untouched
        assert_eq!(p.writes, vec![data(0, 2, 2, 2), data(1, 0, 4, 4), data(2, 0, 2, 8), parity(4, 0, 4)]);
        assert_eq!(rows(&p), (0, 4, 0));
    }

    #[test]
    fn raid5_full_stripe_needs_no_reads() {
        // Strip 4 blocks; [0, 16) is stripe 0 whole: 4 full rows, 0 reads,
        // 4 data extents + P.
        let l = lay(Layout::Raid5, 5, 4);
        let p = plan(&l, Raid6Write::ReconstructOnly, 0, 16);
        assert!(p.reads.is_empty());
        assert_eq!(
            p.writes,
            vec![data(0, 0, 4, 0), data(1, 0, 4, 4), data(2, 0, 4, 8), data(3, 0, 4, 12), parity(4, 0, 4)]
        );
        assert_eq!(rows(&p), (0, 0, 4));
        // Strip 1 block: the same as one row, 5 one-block writes.
        let p = plan(&lay(Layout::Raid5, 5, 1), Raid6Write::ReconstructOnly, 0, 4);
        assert!(p.reads.is_empty());
        assert_eq!(p.writes.len(), 5);
        assert_eq!(rows(&p), (0, 0, 1));
    }

    #[test]
    fn raid5_64k_inside_a_128k_strip_is_two_reads() {
        // Strip 32 blocks (128 KiB); 16 blocks (64 KiB) at block 8: rows
        // [8, 24) of strip 0, m = 1 each → 16 rmw rows, but one extent for the
        // old data and one for the old parity.
        let l = lay(Layout::Raid5, 5, 32);
        let p = plan(&l, Raid6Write::ReconstructOnly, 8, 16);
        assert_eq!(p.reads, vec![data(0, 8, 16, 8), parity(4, 8, 16)]);
        assert_eq!(p.writes, vec![data(0, 8, 16, 8), parity(4, 8, 16)]);
        assert_eq!(rows(&p), (16, 0, 0));
    }

    #[test]
    fn raid5_each_stripe_decides_for_itself() {
        // Strip 4 blocks, write [6, 33):
        // * stripe 0, [6, 16): strip 1 rows 2..4, strips 2, 3 whole. Rows 0-1:
        //   m = 2 (strips 2, 3) → rcw, read strips 0, 1; rows 2-3: m = 3 → rcw,
        //   read strip 0. Strip 0 joins to rows 0..4. 4 rcw rows.
        // * stripe 1, [16, 32): full, 4 rows, no reads.
        // * stripe 2, [32, 33): strip 8 row 0 (disk 3, disk block 8), m = 1 →
        //   rmw: old data + old P (disk 2). 1 rmw row.
        let l = lay(Layout::Raid5, 5, 4);
        let p = plan(&l, Raid6Write::ReconstructOnly, 6, 27);
        assert_eq!(p.reads, vec![data(0, 0, 4, 0), data(1, 0, 2, 4), data(3, 8, 1, 32), parity(2, 8, 1)]);
        assert_eq!(rows(&p), (1, 4, 4));
        // Writes: the 27 data blocks + P rows 4 (stripe 0) + 4 (stripe 1) + 1.
        assert_eq!(p.write_blocks(), 27 + 4 + 4 + 1);
        let parity_writes: Vec<Extent> = p.writes.iter().copied().filter(|e| e.is_parity()).collect();
        assert_eq!(parity_writes, vec![parity(4, 0, 4), parity(3, 4, 4), parity(2, 8, 1)]);
    }

    // RAID-6 of 6 disks (k = 4): stripe 0 = Q D0 D1 D2 D3 P (Q on disk 0,
    // strips 0..3 on disks 1..4, P on disk 5).

    #[test]
    fn raid6_one_block_ties_and_goes_reconstruct() {
        // m = 1: rmw = 1 + P + Q = 3, rcw = 3 untouched. Before 4.1: rcw
        // always; from 4.1: a tie, and md takes rmw only when rmw < rcw → rcw.
        // Either way 3 reads (strips 1, 2, 3) + 3 writes (D0, P, Q).
        let l = lay(Layout::Raid6, 6, 4);
        for raid6 in [Raid6Write::ReconstructOnly, Raid6Write::Cheaper] {
            let p = plan(&l, raid6, 0, 1);
            assert_eq!(p.reads, vec![data(2, 0, 1, 4), data(3, 0, 1, 8), data(4, 0, 1, 12)]);
            assert_eq!(p.writes, vec![data(1, 0, 1, 0), parity(5, 0, 1), parity(0, 0, 1)]);
            assert_eq!(rows(&p), (0, 1, 0));
        }
    }

    #[test]
    fn raid6_two_blocks_of_a_row_reconstruct() {
        // Strip 1 block: [0, 2) = strips 0, 1 of row 0. m = 2: rmw = 4 > rcw =
        // 2 → 2 reads (strips 2, 3) + 4 writes (D0, D1, P, Q), both policies.
        let l = lay(Layout::Raid6, 6, 1);
        for raid6 in [Raid6Write::ReconstructOnly, Raid6Write::Cheaper] {
            let p = plan(&l, raid6, 0, 2);
            assert_eq!(p.reads, vec![data(3, 0, 1, 2), data(4, 0, 1, 3)]);
            assert_eq!(p.writes, vec![data(1, 0, 1, 0), data(2, 0, 1, 1), parity(5, 0, 1), parity(0, 0, 1)]);
            assert_eq!(rows(&p), (0, 1, 0));
        }
    }

    #[test]
    fn raid6_read_modify_write_from_linux_4_1_on_wide_arrays() {
        // 8 disks, k = 6: stripe 0 = Q D0..D5 P (Q disk 0, D0 disk 1, P disk
        // 7). One block: rmw = 3 < rcw = 5.
        let l = lay(Layout::Raid6, 8, 4);
        let cheaper = plan(&l, Raid6Write::Cheaper, 0, 1);
        assert_eq!(cheaper.reads, vec![data(1, 0, 1, 0), parity(7, 0, 1), parity(0, 0, 1)]);
        assert_eq!(cheaper.writes, vec![data(1, 0, 1, 0), parity(7, 0, 1), parity(0, 0, 1)]);
        assert_eq!(rows(&cheaper), (1, 0, 0));
        // Before 4.1: the 5 untouched strips, one block each.
        let old = plan(&l, Raid6Write::ReconstructOnly, 0, 1);
        let read: Vec<(u32, u64)> = old.reads.iter().map(|e| (e.disk, e.array_block)).collect();
        assert_eq!(read, vec![(2, 4), (3, 8), (4, 12), (5, 16), (6, 20)]);
        assert_eq!(old.writes, cheaper.writes);
        assert_eq!(rows(&old), (0, 1, 0));
    }

    #[test]
    fn raid10_raid0_single_read_nothing() {
        // RAID-10 of 4: block 0 is strip 0 on the pair (0, 1).
        let p = plan(&lay(Layout::Raid10, 4, 4), Raid6Write::Cheaper, 0, 1);
        assert!(p.reads.is_empty());
        assert_eq!(p.writes, vec![data(0, 0, 1, 0), data(1, 0, 1, 0)]);
        assert_eq!(rows(&p), (0, 0, 0));
        let p = plan(&lay(Layout::Raid0, 4, 4), Raid6Write::Cheaper, 5, 6);
        assert!(p.reads.is_empty());
        assert_eq!(p.writes, vec![data(1, 1, 3, 5), data(2, 0, 3, 8)]);
        let p = plan(&lay(Layout::Single, 1, 4), Raid6Write::Cheaper, 5, 6);
        assert!(p.reads.is_empty());
        assert_eq!(p.writes, vec![data(0, 5, 6, 5)]);
    }

    #[test]
    fn plan_is_reused_without_reallocating() {
        let l = lay(Layout::Raid5, 5, 4);
        let mut p = WritePlan::new();
        plan_write(&l, Raid6Write::Cheaper, 6, 27, &mut p);
        let (reads_cap, writes_cap) = (p.reads.capacity(), p.writes.capacity());
        plan_write(&l, Raid6Write::Cheaper, 1, 1, &mut p);
        assert_eq!(p, plan(&l, Raid6Write::Cheaper, 1, 1));
        assert_eq!((p.reads.capacity(), p.writes.capacity()), (reads_cap, writes_cap));
        plan_write(&l, Raid6Write::Cheaper, 3, 0, &mut p);
        assert_eq!(p, WritePlan::new());
    }

    #[test]
    fn row_choice_follows_md() {
        // RAID-5, k = 4: m = 1 rmw (2 < 3); m = 2 rcw (3 vs 2); m = 4 full.
        assert_eq!(RowWrite::choose(4, 1, 1, true), RowWrite::ReadModifyWrite);
        assert_eq!(RowWrite::choose(4, 2, 1, true), RowWrite::ReconstructWrite);
        assert_eq!(RowWrite::choose(4, 4, 1, true), RowWrite::Full);
        // RAID-5, k = 3, m = 1: rmw 2 = rcw 2, a tie → rcw.
        assert_eq!(RowWrite::choose(3, 1, 1, true), RowWrite::ReconstructWrite);
        // RAID-6, k = 6, m = 1: rmw 3 < rcw 5, only when allowed.
        assert_eq!(RowWrite::choose(6, 1, 2, true), RowWrite::ReadModifyWrite);
        assert_eq!(RowWrite::choose(6, 1, 2, false), RowWrite::ReconstructWrite);
        assert_eq!(RowWrite::choose(6, 6, 2, false), RowWrite::Full);
    }

    /// Every member block touched, one by one: `(disk, disk_block,
    /// array_block or PARITY)`, sorted.
    fn blocks_of(extents: &[Extent]) -> Vec<(u32, u64, u64)> {
        let mut v: Vec<(u32, u64, u64)> = extents
            .iter()
            .flat_map(|e| {
                (0..e.blocks).map(move |i| {
                    let a = if e.is_parity() { Extent::PARITY } else { e.array_block + i };
                    (e.disk, e.disk_block + i, a)
                })
            })
            .collect();
        v.sort_unstable();
        v
    }

    /// An independent block-by-block model of md: for every row touched,
    /// count the written data blocks, decide, and list the blocks to read
    /// (data located with `map_read`, one block at a time). Returns the
    /// sorted reads and the (rmw, rcw, full) row counts.
    fn oracle(
        l: &ArrayLayout,
        raid6: Raid6Write,
        block: u64,
        blocks: u64,
    ) -> (Vec<(u32, u64, u64)>, u64, u64, u64) {
        let sb = l.strip_blocks();
        let k = l.data_disks() as u64;
        let parity_disks = if l.layout() == Layout::Raid6 { 2 } else { 1 };
        let rmw_allowed = l.layout() == Layout::Raid5 || raid6 == Raid6Write::Cheaper;
        let end = block + blocks;
        let mut rows_touched: Vec<(u64, u64)> = (block..end).map(|a| (l.stripe_of(a), a % sb)).collect();
        rows_touched.sort_unstable();
        rows_touched.dedup();
        let (mut reads, mut rmw, mut rcw, mut full) = (vec![], 0, 0, 0);
        for (stripe, offset) in rows_touched {
            let row_blocks: Vec<u64> = (0..k).map(|dd| (stripe * k + dd) * sb + offset).collect();
            let is_written = |a: u64| block <= a && a < end;
            let m = row_blocks.iter().filter(|&&a| is_written(a)).count() as u64;
            assert!(m > 0);
            let decision = RowWrite::choose(k, m, parity_disks, rmw_allowed);
            let locate = |a: u64| {
                let mut one = vec![];
                l.map_read(a, 1, &mut |_, _| false, &mut one);
                (one[0].disk, one[0].disk_block, a)
            };
            match decision {
                RowWrite::Full => full += 1,
                RowWrite::ReconstructWrite => {
                    rcw += 1;
                    reads.extend(row_blocks.iter().filter(|&&a| !is_written(a)).map(|&a| locate(a)));
                }
                RowWrite::ReadModifyWrite => {
                    rmw += 1;
                    reads.extend(row_blocks.iter().filter(|&&a| is_written(a)).map(|&a| locate(a)));
                    let (p, q) = l.parity_disks_of_stripe(stripe);
                    for d in [p, q].into_iter().flatten() {
                        reads.push((d, stripe * sb + offset, Extent::PARITY));
                    }
                }
            }
        }
        reads.sort_unstable();
        (reads, rmw, rcw, full)
    }

    #[test]
    fn random_writes_match_a_block_by_block_model() {
        let mut rng = Rng::new(35);
        let mut p = WritePlan::new();
        let mut map = vec![];
        let layouts = [Layout::Single, Layout::Raid0, Layout::Raid5, Layout::Raid6, Layout::Raid10];
        // Rows seen per (RAID-5, RAID-6 reconstruct-only, RAID-6 cheaper) ×
        // (rmw, rcw, full), to be sure the cases exercise every branch.
        let mut seen_rows = [[0u64; 3]; 3];
        for case in 0..3000 {
            let layout = layouts[rng.below(layouts.len() as u64) as usize];
            let disks = match layout {
                Layout::Single => 1,
                Layout::Raid0 => 1 + rng.below(6) as u32,
                Layout::Raid5 => 3 + rng.below(6) as u32,
                Layout::Raid6 => 4 + rng.below(7) as u32,
                Layout::Raid10 => 2 + rng.below(5) as u32,
            };
            let strip_blocks = [1, 2, 4, 8, 16, 32][rng.below(6) as usize];
            let disk_blocks = strip_blocks * (8 + rng.below(24));
            let l = ArrayLayout::new(layout, disks, strip_blocks, disk_blocks).unwrap();
            let cap = l.capacity_blocks();
            let blocks = 1 + rng.below((3 * strip_blocks * l.data_disks() as u64).min(cap));
            let block = rng.below(cap - blocks + 1);
            let raid6 = if rng.below(2) == 0 { Raid6Write::Cheaper } else { Raid6Write::ReconstructOnly };
            plan_write(&l, raid6, block, blocks, &mut p);
            let ctx = format!(
                "case {case}: {layout:?} n={disks} strip={strip_blocks} [{block}, +{blocks}) {raid6:?}"
            );

            // Writes are map_write's, untouched.
            map.clear();
            l.map_write(block, blocks, &mut map);
            assert_eq!(p.writes, map, "{ctx}");

            // Every extent lies on a member and inside it.
            for e in p.reads.iter().chain(&p.writes) {
                assert!(e.disk < disks && e.blocks > 0, "{ctx}: {e:?}");
                assert!(e.disk_block + e.blocks <= disk_blocks, "{ctx}: {e:?}");
            }

            let parity_layout = matches!(layout, Layout::Raid5 | Layout::Raid6);
            if !parity_layout {
                assert!(p.reads.is_empty(), "{ctx}");
                assert_eq!(rows(&p), (0, 0, 0), "{ctx}");
                let copies = if layout == Layout::Raid10 { 2 } else { 1 };
                assert_eq!(p.write_blocks(), copies * blocks, "{ctx}");
                continue;
            }

            // Reads and row counts equal the block-by-block model exactly.
            let (want, rmw, rcw, full) = oracle(&l, raid6, block, blocks);
            let got = blocks_of(&p.reads);
            assert_eq!(got, want, "{ctx}");
            assert_eq!(rows(&p), (rmw, rcw, full), "{ctx}");
            let kind = match (layout, raid6) {
                (Layout::Raid5, _) => 0,
                (_, Raid6Write::ReconstructOnly) => 1,
                (_, Raid6Write::Cheaper) => 2,
            };
            for (total, n) in seen_rows[kind].iter_mut().zip([rmw, rcw, full]) {
                *total += n;
            }

            // Written blocks = data + one parity block per row touched (per
            // P and Q).
            let parity_disks = if layout == Layout::Raid6 { 2 } else { 1 };
            let rows_touched = rmw + rcw + full;
            assert_eq!(p.write_blocks(), blocks + parity_disks * rows_touched, "{ctx}");

            // No member block is read twice.
            let mut seen: Vec<(u32, u64)> = got.iter().map(|&(d, b, _)| (d, b)).collect();
            seen.dedup();
            assert_eq!(seen.len(), got.len(), "{ctx}: a block read twice");

            // Row by row: a read-modify-write row reads old data inside the
            // write and P (and Q); a reconstruct-write row reads only data
            // outside the write — never a block it is about to overwrite.
            let sb = strip_blocks;
            let mut per_row = std::collections::BTreeMap::<(u64, u64), (u64, u64, u64)>::new();
            for &(_, disk_block, a) in &got {
                let (key, slot) = if a == Extent::PARITY {
                    ((disk_block / sb, disk_block % sb), 2)
                } else if (block..block + blocks).contains(&a) {
                    ((l.stripe_of(a), a % sb), 0)
                } else {
                    ((l.stripe_of(a), a % sb), 1)
                };
                let c = per_row.entry(key).or_default();
                match slot {
                    0 => c.0 += 1,
                    1 => c.1 += 1,
                    _ => c.2 += 1,
                }
            }
            let mut rmw_seen = 0;
            for (row, &(inside, outside, parity)) in &per_row {
                if parity > 0 {
                    rmw_seen += 1;
                    assert!(outside == 0 && inside > 0 && parity == parity_disks, "{ctx}: row {row:?}");
                } else {
                    assert!(inside == 0 && outside > 0, "{ctx}: row {row:?}");
                }
            }
            assert_eq!(rmw_seen, rmw, "{ctx}");
            if layout == Layout::Raid6 && raid6 == Raid6Write::ReconstructOnly {
                assert_eq!(rmw, 0, "{ctx}");
            }

            // Joined as far as the rules allow: no two read extents that
            // push_joined would have merged are left apart.
            for (i, a) in p.reads.iter().enumerate() {
                for b in &p.reads[i + 1..] {
                    let joinable = |x: &Extent, y: &Extent| {
                        x.disk == y.disk
                            && x.disk_block + x.blocks == y.disk_block
                            && x.is_parity() == y.is_parity()
                            && (x.is_parity() || x.array_block + x.blocks == y.array_block)
                            // P of one stripe and Q of the next may sit end
                            // to end on a disk: different strips, not joined.
                            && (!x.is_parity() || !y.disk_block.is_multiple_of(sb))
                    };
                    assert!(!joinable(a, b) && !joinable(b, a), "{ctx}: {a:?} and {b:?} not joined");
                }
            }
            // And few: at most 3 runs per member per stripe touched.
            let stripes = l.stripe_of(block + blocks - 1) - l.stripe_of(block) + 1;
            assert!(p.reads.len() as u64 <= 3 * disks as u64 * stripes, "{ctx}");
        }
        let [raid5, raid6_old, raid6_new] = seen_rows;
        assert!(raid5.iter().all(|&n| n > 0), "{raid5:?}");
        assert!(raid6_old[0] == 0 && raid6_old[1] > 0 && raid6_old[2] > 0, "{raid6_old:?}");
        assert!(raid6_new.iter().all(|&n| n > 0), "{raid6_new:?}");
    }
}
