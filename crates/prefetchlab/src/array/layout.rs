//! RAID layouts (models.md §3, Linux md semantics): a logical range of array
//! blocks → per-disk extents.
//!
//! Everything is in 4 KiB blocks; a *strip* is md's chunk (the per-device
//! stripe unit, `strip_blocks` blocks) and a *stripe* (row) is the set of
//! strips at the same per-disk offset. Strip `s` holds array blocks
//! `[s·strip_blocks, (s+1)·strip_blocks)`.
//!
//! | layout | data disks `D` | strip `s` lives on | spec |
//! |---|---|---|---|
//! | `single` | 1 | disk 0, block = array block (never split) | — |
//! | `raid0` | `n` | `s mod n`, row `s div n` | §3.1 |
//! | `raid5` | `n−1` | left-symmetric: row `r = s div D`, parity `pd = D − (r mod n)`, disk `(pd+1+s mod D) mod n` | §3.2 (md `raid5_compute_sector`) |
//! | `raid6` | `n−2` | md default: `pd = (n−1) − (r mod n)`, `qd = (pd+1) mod n`, disk `(pd+2+s mod D) mod n` | §3.3 |
//! | `raid10` | `⌊n/2⌋` | near-2: slot `g = 2s`, first copy on `g mod n` row `g div n`, second copy on the next slot | §3.4 (md `__raid10_find_phys`) |
//!
//! **Splitting** (algorithms.md §0): a contiguous run of array blocks costs one
//! disk extent per distinct strip it touches. The only joining done here is
//! of pieces that come out one after the other and are contiguous on the same
//! disk (RAID-0 with one disk, RAID-10 with two, `single`); merging of separate
//! pieces that happen to be adjacent on a disk is the block layer's job, as
//! in Linux where md splits a bio per chunk and the member queue merges.
//!
//! **RAID-10 stripe width.** With an odd number of disks a row holds half a
//! chunk pair; `data_disks()` is then `⌊n/2⌋` (at least 1), the number of
//! distinct logical strips a stripe-sized prefetch should cover. Capacity is
//! exact (md's `raid10_size`: `⌊strips_per_disk·n / 2⌋` strips).
//!
//! **Writes** ([`ArrayLayout::map_write`]) produce the blocks that must be
//! *written*: the data, plus the parity strips' changed rows (RAID-5: P;
//! RAID-6: P and Q) or the second copy (RAID-10). The reads a partial-stripe
//! write needs first (read-modify-write or reconstruct-write, models.md §3.5)
//! are **not** modelled yet.

use crate::config::Layout;
use crate::error::{Error, Result};

/// A piece of a logical request on one member disk (4 KiB blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub disk: u32,
    /// First block on the member disk.
    pub disk_block: u64,
    pub blocks: u64,
    /// The array block this piece starts at; [`Extent::PARITY`] for a parity
    /// (P or Q) extent of a write, which holds no array block.
    pub array_block: u64,
}

impl Extent {
    /// The `array_block` of a parity (RAID-5 P, RAID-6 P/Q) extent.
    pub const PARITY: u64 = u64::MAX;

    /// Whether this is a parity extent written by [`ArrayLayout::map_write`].
    #[inline]
    pub fn is_parity(&self) -> bool {
        self.array_block == Self::PARITY
    }
}

/// The mapping of one array.
#[derive(Debug, Clone)]
pub struct ArrayLayout {
    layout: Layout,
    disks: u32,
    strip_blocks: u64,
    disk_blocks: u64,
    /// Logical strips per stripe (see the module doc).
    data_disks: u32,
}

impl ArrayLayout {
    /// `disk_blocks` is the capacity of each member in 4 KiB blocks.
    ///
    /// Errors (naming the config key) when `strip_blocks` is 0 or the number
    /// of disks does not suit the layout (single: 1; RAID-0: ≥ 1; RAID-5: ≥ 3;
    /// RAID-6: ≥ 4; RAID-10: ≥ 2).
    pub fn new(layout: Layout, disks: u32, strip_blocks: u64, disk_blocks: u64) -> Result<Self> {
        if strip_blocks == 0 {
            return Err(Error::config("array.strip", "must be at least one 4KiB block"));
        }
        let (min, max, name) = match layout {
            Layout::Single => (1, 1, "single"),
            Layout::Raid0 => (1, u32::MAX, "raid0"),
            Layout::Raid5 => (3, u32::MAX, "raid5"),
            Layout::Raid6 => (4, u32::MAX, "raid6"),
            Layout::Raid10 => (2, u32::MAX, "raid10"),
        };
        if disks < min || disks > max {
            let want = if min == max { format!("exactly {min}") } else { format!("at least {min}") };
            return Err(Error::config(
                "array.disks",
                format!("layout {name} needs {want} disks, got {disks}"),
            ));
        }
        if disk_blocks == 0 {
            return Err(Error::geometry(
                "a member disk holds less than one 4KiB block (see disk.model's capacity, its overrides, or \
                 ssd.capacity)",
            ));
        }
        if layout != Layout::Single && strip_blocks > disk_blocks {
            return Err(Error::config(
                "array.strip",
                format!(
                    "a strip of {} KiB is larger than a member disk ({} KiB)",
                    strip_blocks * 4,
                    disk_blocks * 4
                ),
            ));
        }
        let data_disks = match layout {
            Layout::Single => 1,
            Layout::Raid0 => disks,
            Layout::Raid5 => disks - 1,
            Layout::Raid6 => disks - 2,
            Layout::Raid10 => (disks / 2).max(1),
        };
        Ok(ArrayLayout { layout, disks, strip_blocks, disk_blocks, data_disks })
    }

    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// Member disks.
    pub fn disks(&self) -> u32 {
        self.disks
    }

    /// Data strips per stripe: `n` (RAID-0), `n−1` (RAID-5), `n−2` (RAID-6),
    /// `⌊n/2⌋` (RAID-10), 1 (single).
    pub fn data_disks(&self) -> u32 {
        self.data_disks
    }

    pub fn strip_blocks(&self) -> u64 {
        self.strip_blocks
    }

    /// Usable logical blocks: whole strips per member only (a partial strip at
    /// the end of a disk is unused, as in md); `single` uses the whole disk.
    pub fn capacity_blocks(&self) -> u64 {
        let strips_per_disk = self.disk_blocks / self.strip_blocks;
        let n = self.disks as u64;
        let strips = match self.layout {
            Layout::Single => return self.disk_blocks,
            Layout::Raid0 | Layout::Raid5 | Layout::Raid6 => strips_per_disk * self.data_disks as u64,
            Layout::Raid10 => strips_per_disk * n / 2,
        };
        strips * self.strip_blocks
    }

    /// The strip holding an array block.
    #[inline]
    pub fn strip_of(&self, array_block: u64) -> u64 {
        array_block / self.strip_blocks
    }

    /// The stripe (row) holding an array block: `strip div data_disks`.
    #[inline]
    pub fn stripe_of(&self, array_block: u64) -> u64 {
        self.strip_of(array_block) / self.data_disks as u64
    }

    /// The disk holding a strip (its first copy on RAID-10).
    #[inline]
    pub fn disk_of_strip(&self, strip: u64) -> u32 {
        self.locate(strip).0
    }

    /// The parity disks of a stripe: `(P, Q)`; `Q` only on RAID-6, both
    /// `None` on layouts without parity.
    pub fn parity_disks_of_stripe(&self, stripe: u64) -> (Option<u32>, Option<u32>) {
        let n = self.disks as u64;
        match self.layout {
            Layout::Raid5 => (Some((n - 1 - stripe % n) as u32), None),
            Layout::Raid6 => {
                let pd = n - 1 - stripe % n;
                (Some(pd as u32), Some(((pd + 1) % n) as u32))
            }
            _ => (None, None),
        }
    }

    /// `(disk, row)` of a strip's (first) copy; the strip starts at
    /// `row · strip_blocks` on that disk. Integer ops only.
    #[inline]
    fn locate(&self, strip: u64) -> (u32, u64) {
        let n = self.disks as u64;
        match self.layout {
            Layout::Single => (0, strip),
            Layout::Raid0 => ((strip % n) as u32, strip / n),
            Layout::Raid5 => {
                let k = n - 1;
                let (row, dd) = (strip / k, strip % k);
                let pd = k - row % n;
                (((pd + 1 + dd) % n) as u32, row)
            }
            Layout::Raid6 => {
                let k = n - 2;
                let (row, dd) = (strip / k, strip % k);
                let pd = n - 1 - row % n;
                (((pd + 2 + dd) % n) as u32, row)
            }
            Layout::Raid10 => {
                let g = strip.wrapping_mul(2);
                ((g % n) as u32, g / n)
            }
        }
    }

    /// RAID-10: both copies `((disk0, row0), (disk1, row1))` of a strip.
    #[inline]
    fn locate_mirror(&self, strip: u64) -> ((u32, u64), (u32, u64)) {
        let n = self.disks as u64;
        let g = strip.wrapping_mul(2);
        let (d0, row) = (g % n, g / n);
        let (d1, row1) = if d0 + 1 == n { (0, row + 1) } else { (d0 + 1, row) };
        ((d0 as u32, row), (d1 as u32, row1))
    }

    /// Appends `piece` to `out`, joining it to the last extent when that one
    /// is of the same kind and ends right where `piece` starts on the same disk.
    #[inline]
    fn push_joined(out: &mut Vec<Extent>, piece: Extent) {
        if let Some(l) = out.last_mut() {
            if l.disk == piece.disk
                && l.disk_block + l.blocks == piece.disk_block
                && l.is_parity() == piece.is_parity()
            {
                l.blocks += piece.blocks;
                return;
            }
        }
        out.push(piece);
    }

    /// Maps a read of `[block, block + blocks)` and appends the per-disk
    /// extents to `out` (in array order; nothing is cleared or allocated
    /// beyond `out`'s growth). One extent per strip touched, except that
    /// consecutive pieces contiguous on one disk are joined. `single` gives
    /// exactly one extent.
    ///
    /// `pick_second_copy(c0, c1)` is asked once per strip on RAID-10 with the
    /// two copies of the piece — `(disk, first block on that disk)` each —
    /// and returns true to read the second copy (the array layer implements
    /// md's `read_balance` with it); it is never called for other layouts.
    ///
    /// The caller checks the range: a range beyond [`Self::capacity_blocks`]
    /// trips a `debug_assert!`; in release builds it does not panic but maps to
    /// blocks past the end of the members.
    pub fn map_read(
        &self,
        block: u64,
        blocks: u64,
        pick_second_copy: &mut dyn FnMut((u32, u64), (u32, u64)) -> bool,
        out: &mut Vec<Extent>,
    ) {
        debug_assert!(
            block.checked_add(blocks).is_some_and(|e| e <= self.capacity_blocks()),
            "map_read [{block}, +{blocks}) beyond capacity {}",
            self.capacity_blocks()
        );
        if blocks == 0 {
            return;
        }
        if self.layout == Layout::Single {
            Self::push_joined(out, Extent { disk: 0, disk_block: block, blocks, array_block: block });
            return;
        }
        let sb = self.strip_blocks;
        let end = block.saturating_add(blocks);
        let mut b = block;
        while b < end {
            let strip = b / sb;
            let off = b % sb;
            let len = (sb - off).min(end - b);
            let (disk, row) = if self.layout == Layout::Raid10 {
                let (c0, c1) = self.locate_mirror(strip);
                let at = |(disk, row): (u32, u64)| (disk, row.wrapping_mul(sb).wrapping_add(off));
                if pick_second_copy(at(c0), at(c1)) {
                    c1
                } else {
                    c0
                }
            } else {
                self.locate(strip)
            };
            Self::push_joined(
                out,
                Extent {
                    disk,
                    disk_block: row.wrapping_mul(sb).wrapping_add(off),
                    blocks: len,
                    array_block: b,
                },
            );
            b += len;
        }
    }

    /// Maps a write of `[block, block + blocks)`: appends the data extents
    /// (exactly as [`Self::map_read`] with the first copy), then the
    /// redundancy extents:
    ///
    /// * RAID-10: the second copy of every strip piece, after all first
    ///   copies (so a 2-disk RAID-10 = RAID-1 write is one extent per disk);
    /// * RAID-5 / RAID-6: for every stripe touched, in stripe order, the
    ///   parity strip's rows whose data changed (P, then Q on RAID-6), marked
    ///   with [`Extent::PARITY`]. A contiguous write changes rows
    ///   `[o_first, o_last)` of one strip, or `[o_first, strip) ∪ [0, o_last)`
    ///   when it spans strips; the union is emitted as one or two extents.
    ///
    /// No read-modify-write / reconstruct-write reads are produced
    /// (models.md §3.5): the array layer must add those when it models them.
    /// Same range contract as `map_read`.
    pub fn map_write(&self, block: u64, blocks: u64, out: &mut Vec<Extent>) {
        debug_assert!(
            block.checked_add(blocks).is_some_and(|e| e <= self.capacity_blocks()),
            "map_write [{block}, +{blocks}) beyond capacity {}",
            self.capacity_blocks()
        );
        self.map_read(block, blocks, &mut |_, _| false, out);
        if blocks == 0 {
            return;
        }
        let sb = self.strip_blocks;
        let end = block.saturating_add(blocks);
        match self.layout {
            Layout::Single | Layout::Raid0 => {}
            Layout::Raid10 => {
                let mut b = block;
                while b < end {
                    let strip = b / sb;
                    let off = b % sb;
                    let len = (sb - off).min(end - b);
                    let (_, (disk, row)) = self.locate_mirror(strip);
                    Self::push_joined(
                        out,
                        Extent { disk, disk_block: row * sb + off, blocks: len, array_block: b },
                    );
                    b += len;
                }
            }
            Layout::Raid5 | Layout::Raid6 => {
                let stripe_blocks = sb * self.data_disks as u64;
                let mut b = block;
                while b < end {
                    let stripe = b / stripe_blocks;
                    let stripe_end = ((stripe + 1) * stripe_blocks).min(end);
                    let first_off = b % sb;
                    let last_end = (stripe_end - 1) % sb + 1;
                    let strips_spanned = (stripe_end - 1) / sb - b / sb + 1;
                    // Changed rows of the parity strip, as up to two ranges.
                    let (r1, r2) = if strips_spanned == 1 {
                        ((first_off, last_end), None)
                    } else if strips_spanned > 2 || last_end >= first_off {
                        ((0, sb), None)
                    } else {
                        ((0, last_end), Some((first_off, sb)))
                    };
                    let (p, q) = self.parity_disks_of_stripe(stripe);
                    for disk in [p, q].into_iter().flatten() {
                        for (lo, hi) in std::iter::once(r1).chain(r2) {
                            Self::push_joined(
                                out,
                                Extent {
                                    disk,
                                    disk_block: stripe * sb + lo,
                                    blocks: hi - lo,
                                    array_block: Extent::PARITY,
                                },
                            );
                        }
                    }
                    b = stripe_end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn lay(layout: Layout, disks: u32, strip: u64) -> ArrayLayout {
        ArrayLayout::new(layout, disks, strip, 1 << 20).unwrap()
    }

    fn read(l: &ArrayLayout, block: u64, blocks: u64) -> Vec<Extent> {
        let mut out = vec![];
        l.map_read(block, blocks, &mut |_, _| false, &mut out);
        out
    }

    /// Table of (disk, row) for the first `rows` rows: `None` = parity.
    fn raid5_row(l: &ArrayLayout, row: u64) -> Vec<String> {
        let n = l.disks() as usize;
        let mut cells = vec![String::new(); n];
        let (p, q) = l.parity_disks_of_stripe(row);
        cells[p.unwrap() as usize] = "P".into();
        if let Some(q) = q {
            cells[q as usize] = "Q".into();
        }
        let k = l.data_disks() as u64;
        for s in row * k..(row + 1) * k {
            let (d, r) = l.locate(s);
            assert_eq!(r, row);
            assert!(cells[d as usize].is_empty(), "two strips on disk {d}");
            cells[d as usize] = format!("D{s}");
        }
        cells
    }

    #[test]
    fn raid5_left_symmetric_rows_match_md() {
        let l = lay(Layout::Raid5, 4, 16);
        let rows: Vec<String> = (0..4).map(|r| raid5_row(&l, r).join(" ")).collect();
        assert_eq!(rows, ["D0 D1 D2 P", "D4 D5 P D3", "D8 P D6 D7", "P D9 D10 D11"]);
        // The rotation repeats after n rows.
        assert_eq!(raid5_row(&l, 4).join(" "), "D12 D13 D14 P");
    }

    #[test]
    fn raid5_any_n_consecutive_strips_touch_n_disks() {
        let mut rng = Rng::new(5);
        for n in 3..=9u32 {
            let strip = 8;
            let l = lay(Layout::Raid5, n, strip);
            for _ in 0..300 {
                let first = rng.below(10_000);
                // Start anywhere inside the strip: n consecutive strips.
                let block = first * strip + rng.below(strip);
                let len = (n as u64 - 1) * strip + 1;
                let ex = read(&l, block, len);
                let mut disks: Vec<u32> = ex.iter().map(|e| e.disk).collect();
                assert_eq!(ex.len(), n as usize, "n={n} block={block}");
                disks.sort_unstable();
                disks.dedup();
                assert_eq!(disks.len(), n as usize, "n={n} block={block}");
            }
        }
    }

    #[test]
    fn raid6_p_and_q_rotate_as_md() {
        let l = lay(Layout::Raid6, 5, 4);
        let rows: Vec<String> = (0..5).map(|r| raid5_row(&l, r).join(" ")).collect();
        assert_eq!(
            rows,
            ["Q D0 D1 D2 P", "D3 D4 D5 P Q", "D7 D8 P Q D6", "D11 P Q D9 D10", "P Q D12 D13 D14"]
        );
        // Data disks never coincide with P or Q over many rows.
        for row in 0..1000 {
            raid5_row(&l, row);
        }
    }

    #[test]
    fn raid10_near2_pairs_and_raid1e() {
        let l4 = lay(Layout::Raid10, 4, 8);
        assert_eq!(l4.locate_mirror(0), ((0, 0), (1, 0)));
        assert_eq!(l4.locate_mirror(1), ((2, 0), (3, 0)));
        assert_eq!(l4.locate_mirror(2), ((0, 1), (1, 1)));
        assert_eq!(l4.locate_mirror(3), ((2, 1), (3, 1)));
        // 3 disks: A1 A1 A2 / A2 A3 A3 / A4 A4 A5 / A5 A6 A6.
        let l3 = lay(Layout::Raid10, 3, 8);
        let grid: Vec<Vec<u64>> = (0..4)
            .map(|row| {
                let mut cells = vec![u64::MAX; 3];
                for s in 0..8 {
                    let (a, b) = l3.locate_mirror(s);
                    for (d, r) in [a, b] {
                        if r == row {
                            cells[d as usize] = s + 1;
                        }
                    }
                }
                cells
            })
            .collect();
        assert_eq!(grid, vec![vec![1, 1, 2], vec![2, 3, 3], vec![4, 4, 5], vec![5, 6, 6]]);
        // 2 disks = RAID-1: a long read from one copy is a single extent.
        let l2 = lay(Layout::Raid10, 2, 8);
        assert_eq!(read(&l2, 3, 40), vec![Extent { disk: 0, disk_block: 3, blocks: 40, array_block: 3 }]);
    }

    #[test]
    fn raid10_read_balance_callback_chooses_the_copy() {
        let l = lay(Layout::Raid10, 4, 8);
        let mut asked = vec![];
        let mut out = vec![];
        l.map_read(
            4,
            16,
            &mut |(d0, b0), (d1, b1)| {
                asked.push((d0, b0, d1, b1));
                d0 == 2
            },
            &mut out,
        );
        // each piece's copies, with the block on each disk where the piece starts
        assert_eq!(asked, vec![(0, 4, 1, 4), (2, 0, 3, 0), (0, 8, 1, 8)]);
        let got: Vec<(u32, u64, u64)> = out.iter().map(|e| (e.disk, e.disk_block, e.blocks)).collect();
        assert_eq!(got, vec![(0, 4, 4), (3, 0, 8), (0, 8, 4)]);
    }

    #[test]
    fn raid0_splits_once_per_strip() {
        let l = lay(Layout::Raid0, 5, 4);
        for k in 1..=12u64 {
            // Aligned: exactly k strips.
            assert_eq!(read(&l, 8, k * 4).len(), k as usize);
            // Unaligned by one block: k + 1 strips.
            assert_eq!(read(&l, 9, k * 4).len(), k as usize + 1);
        }
        let ex = read(&l, 6, 7);
        assert_eq!(
            ex,
            vec![
                Extent { disk: 1, disk_block: 2, blocks: 2, array_block: 6 },
                Extent { disk: 2, disk_block: 0, blocks: 4, array_block: 8 },
                Extent { disk: 3, disk_block: 0, blocks: 1, array_block: 12 },
            ]
        );
        // Second stripe goes to row 1.
        assert_eq!(read(&l, 20, 1)[0], Extent { disk: 0, disk_block: 4, blocks: 1, array_block: 20 });
        // One disk: everything joins.
        let one = lay(Layout::Raid0, 1, 4);
        assert_eq!(read(&one, 3, 50).len(), 1);
        // Single never splits.
        let single = lay(Layout::Single, 1, 4);
        assert_eq!(read(&single, 3, 50), vec![Extent { disk: 0, disk_block: 3, blocks: 50, array_block: 3 }]);
        assert!(read(&l, 3, 0).is_empty());
    }

    #[test]
    fn split_count_is_distinct_strips_on_every_layout() {
        let mut rng = Rng::new(11);
        for (layout, n) in [
            (Layout::Raid0, 4),
            (Layout::Raid5, 5),
            (Layout::Raid6, 6),
            (Layout::Raid10, 4),
            (Layout::Raid10, 3),
        ] {
            let l = lay(layout, n, 16);
            for _ in 0..500 {
                let block = rng.below(100_000);
                let blocks = 1 + rng.below(200);
                let strips = (block + blocks - 1) / 16 - block / 16 + 1;
                let ex = read(&l, block, blocks);
                assert_eq!(ex.len() as u64, strips, "{layout:?} {block}+{blocks}");
                assert_eq!(ex.iter().map(|e| e.blocks).sum::<u64>(), blocks);
                // Each piece maps back: array block → (disk, disk block).
                for e in &ex {
                    let s = l.strip_of(e.array_block);
                    let (d, row) = l.locate(s);
                    assert_eq!((e.disk, e.disk_block), (d, row * 16 + e.array_block % 16));
                    assert_eq!(l.disk_of_strip(s), d);
                }
            }
        }
    }

    #[test]
    fn mapping_is_injective_within_capacity() {
        for (layout, n, strips_per_disk) in [
            (Layout::Raid0, 3, 12),
            (Layout::Raid5, 4, 12),
            (Layout::Raid6, 5, 12),
            (Layout::Raid10, 3, 12),
            (Layout::Raid10, 3, 13), // 39 slots: one strip slot stays free
            (Layout::Raid10, 4, 12),
        ] {
            let disk_blocks = strips_per_disk * 4 + 2; // 2 blocks past the last whole strip
            let l = ArrayLayout::new(layout, n, 4, disk_blocks).unwrap();
            let mut used = vec![false; (n as u64 * disk_blocks) as usize];
            let mut out = vec![];
            l.map_write(0, l.capacity_blocks(), &mut out);
            for e in &out {
                for i in 0..e.blocks {
                    let b = e.disk_block + i;
                    assert!(b < strips_per_disk * 4, "{layout:?} past the whole strips");
                    let slot = (e.disk as u64 * disk_blocks + b) as usize;
                    assert!(!used[slot], "{layout:?} disk {} block {b} twice", e.disk);
                    used[slot] = true;
                }
            }
            // Every whole strip of every disk holds data or redundancy,
            // except RAID-10's odd leftover slot.
            let free = used.iter().filter(|u| !**u).count() as u64;
            let odd_slot =
                if layout == Layout::Raid10 && (n as u64 * strips_per_disk) % 2 == 1 { 4 } else { 0 };
            assert_eq!(free, n as u64 * 2 + odd_slot, "{layout:?} n={n}");
        }
    }

    #[test]
    fn capacity_counts_whole_strips() {
        let c =
            |layout, n, disk_blocks| ArrayLayout::new(layout, n, 16, disk_blocks).unwrap().capacity_blocks();
        assert_eq!(c(Layout::Single, 1, 1000), 1000);
        assert_eq!(c(Layout::Raid0, 4, 1000), 62 * 16 * 4);
        assert_eq!(c(Layout::Raid5, 4, 1000), 62 * 16 * 3);
        assert_eq!(c(Layout::Raid6, 6, 1000), 62 * 16 * 4);
        assert_eq!(c(Layout::Raid10, 4, 1000), 62 * 16 * 2);
        assert_eq!(c(Layout::Raid10, 3, 1000), 93 * 16); // ⌊62·3/2⌋ strips

        // a strip larger than a disk, or a disk of nothing: no array
        let e = ArrayLayout::new(Layout::Raid10, 3, 16, 15).unwrap_err().to_string();
        assert!(e.contains("`array.strip`") && e.contains("larger than a member disk (60 KiB)"), "{e}");
        assert!(ArrayLayout::new(Layout::Raid0, 3, 16, 0).unwrap_err().to_string().contains("less than one"));
    }

    #[test]
    fn stripes_and_data_disks() {
        let l = lay(Layout::Raid5, 5, 4);
        assert_eq!(l.data_disks(), 4);
        assert_eq!(l.stripe_of(15), 0);
        assert_eq!(l.stripe_of(16), 1);
        assert_eq!(lay(Layout::Raid6, 6, 4).data_disks(), 4);
        assert_eq!(lay(Layout::Raid10, 5, 4).data_disks(), 2);
        assert_eq!(lay(Layout::Raid0, 5, 4).data_disks(), 5);
    }

    #[test]
    fn bad_geometry_is_a_config_error() {
        let e = ArrayLayout::new(Layout::Raid5, 2, 16, 100).unwrap_err();
        assert_eq!(e.to_string(), "config key `array.disks`: layout raid5 needs at least 3 disks, got 2");
        assert!(ArrayLayout::new(Layout::Raid6, 3, 16, 100).is_err());
        assert!(ArrayLayout::new(Layout::Single, 2, 16, 100).is_err());
        assert!(ArrayLayout::new(Layout::Raid0, 0, 16, 100).is_err());
        let e = ArrayLayout::new(Layout::Raid0, 2, 0, 100).unwrap_err();
        assert!(e.to_string().contains("array.strip"));
    }

    #[test]
    fn raid5_write_adds_changed_parity_rows() {
        let l = lay(Layout::Raid5, 4, 8);
        // Inside one strip (strip 1 = disk 1 row 0): parity rows [2, 5) on disk 3.
        let mut out = vec![];
        l.map_write(10, 3, &mut out);
        assert_eq!(
            out,
            vec![
                Extent { disk: 1, disk_block: 2, blocks: 3, array_block: 10 },
                Extent { disk: 3, disk_block: 2, blocks: 3, array_block: Extent::PARITY },
            ]
        );
        // Across strips 1→2 with last end (3) < first offset (6): two parity pieces.
        out.clear();
        l.map_write(14, 5, &mut out);
        let parity: Vec<(u32, u64, u64)> =
            out.iter().filter(|e| e.is_parity()).map(|e| (e.disk, e.disk_block, e.blocks)).collect();
        assert_eq!(parity, vec![(3, 0, 3), (3, 6, 2)]);
        // A full stripe plus one block: whole parity strip of stripe 0, row 0 of stripe 1's (disk 2).
        out.clear();
        l.map_write(0, 25, &mut out);
        let parity: Vec<(u32, u64, u64)> =
            out.iter().filter(|e| e.is_parity()).map(|e| (e.disk, e.disk_block, e.blocks)).collect();
        assert_eq!(parity, vec![(3, 0, 8), (2, 8, 1)]);
        // Three strips of one stripe with last end < first offset: the middle
        // strip changes every row.
        out.clear();
        l.map_write(6, 11, &mut out);
        let parity: Vec<(u32, u64, u64)> =
            out.iter().filter(|e| e.is_parity()).map(|e| (e.disk, e.disk_block, e.blocks)).collect();
        assert_eq!(parity, vec![(3, 0, 8)]);
        assert_eq!(out.iter().filter(|e| !e.is_parity()).map(|e| e.blocks).sum::<u64>(), 11);
    }

    #[test]
    fn raid6_write_adds_p_and_q() {
        let l = lay(Layout::Raid6, 5, 4);
        let mut out = vec![];
        l.map_write(5, 2, &mut out); // strip 1 → stripe 0, disk 2
        let got: Vec<(u32, u64, u64, bool)> =
            out.iter().map(|e| (e.disk, e.disk_block, e.blocks, e.is_parity())).collect();
        assert_eq!(got, vec![(2, 1, 2, false), (4, 1, 2, true), (0, 1, 2, true)]);
    }

    #[test]
    fn raid10_write_goes_to_both_copies() {
        let l2 = lay(Layout::Raid10, 2, 8);
        let mut out = vec![];
        l2.map_write(3, 40, &mut out);
        let got: Vec<(u32, u64, u64)> = out.iter().map(|e| (e.disk, e.disk_block, e.blocks)).collect();
        assert_eq!(got, vec![(0, 3, 40), (1, 3, 40)]);
        let l4 = lay(Layout::Raid10, 4, 8);
        out.clear();
        l4.map_write(8, 8, &mut out);
        let got: Vec<(u32, u64, u64)> = out.iter().map(|e| (e.disk, e.disk_block, e.blocks)).collect();
        assert_eq!(got, vec![(2, 0, 8), (3, 0, 8)]);
        assert!(out.iter().all(|e| !e.is_parity() && e.array_block == 8));
    }
}
