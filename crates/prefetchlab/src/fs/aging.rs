//! File-system aging (models.md §5.4; \[IEICE13\] Fig. 11): before the
//! measured run, files of a given mean size are created and deleted many
//! times on an empty volume, then the measured files are written into the
//! free space that is left, so they are fragmented the way an aged ext3
//! volume fragments them — not by an injected layout score.
//!
//! # The volume and its allocator
//!
//! The volume is the `volume` bytes of the array from `fs.start_block` on
//! (0: the smallest volume that holds the aging files at `fill` with the
//! measured files taking half of the free space left, i.e.
//! `2 × need / (1 − fill)` blocks, where `need` counts the measured files'
//! data and indirect blocks; a volume the array cannot hold is a geometry
//! error). It is cut into
//! ext3 block groups of 32,768 blocks (128 MiB). Free space is a set of
//! maximal free runs.
//!
//! A file is allocated as ext3 allocates a file written sequentially:
//! its first block goes to the first free block at or after a *goal*, the
//! start of a block group drawn uniformly at random (Orlov's allocator
//! spreads directories over the groups and a new file goes to its
//! directory's group; FileBench spreads its file set over directories);
//! every further block to the next free block after the previous one —
//! the same run while it lasts, then the next free run, wrapping at the end
//! of the volume. A file's allocation sequence includes its indirect blocks
//! (module [`super`]). Left out: the per-group colour `(pid mod 16)`, the
//! reservation window, ext3's preference for runs of 8 free blocks and
//! delayed allocation (ext4): so a hole of one block is used as readily as
//! a large one, which is the allocator of ext2/ext3 without reservations.
//!
//! # The aging workload
//!
//! Each aging file has a gamma-distributed size (shape 1.5, FileBench's
//! `filesizegamma`) of mean `file_size`, rounded up to whole blocks.
//! Creation first fills the volume to `fill` of its blocks (a file too
//! large for the room left is skipped and another drawn); then `ops`
//! operations follow, each a deletion of a uniformly chosen live aging file
//! when the volume is above `fill`, a creation otherwise. Then the measured
//! files are allocated, in order, each with its own random group goal.
//! All draws come from the run's seeded file-system [`Rng`], so the aged
//! layout is bit-for-bit the same for a seed.
//!
//! Cost: O(log runs) per extent allocated or freed; the live files are
//! kept as extent lists only while aging.

use std::collections::BTreeMap;

use crate::config::AgingConfig;
use crate::error::{Error, Result};
use crate::sim::Rng;
use crate::units::PAGE_BYTES;
use crate::workload::{gamma, FILEBENCH_GAMMA_SHAPE};

/// Blocks per ext3 block group (4 KiB blocks: 8 × 4096 bits of bitmap).
pub const BLOCKS_PER_GROUP: u64 = 32_768;

/// The most aging files a volume holds at its fill (about 1 GiB of extent
/// lists while aging).
pub const MAX_AGING_FILES: u64 = 20_000_000;

/// The free runs of a volume: start block → length, maximal (no two touch).
struct FreeSpace {
    runs: BTreeMap<u64, u64>,
    start: u64,
    end: u64,
    free: u64,
}

impl FreeSpace {
    fn new(start: u64, blocks: u64) -> Self {
        let mut runs = BTreeMap::new();
        if blocks > 0 {
            runs.insert(start, blocks);
        }
        FreeSpace { runs, start, end: start + blocks, free: blocks }
    }

    /// The free run holding `pos`, or the first one after it, or (wrapping)
    /// the first of the volume: `(run start, run length)`.
    fn run_at_or_after(&self, pos: u64) -> Option<(u64, u64)> {
        if let Some((&s, &l)) = self.runs.range(..=pos).next_back() {
            if pos < s + l {
                return Some((s, l));
            }
        }
        self.runs.range(pos..).next().or_else(|| self.runs.iter().next()).map(|(&s, &l)| (s, l))
    }

    /// Allocates `blocks` blocks from `goal` on (see the module doc) and
    /// appends the extents `(first block, length)` to `out`. The caller
    /// checks there is room.
    fn allocate(&mut self, blocks: u64, goal: u64, out: &mut Vec<(u64, u64)>) {
        debug_assert!(blocks <= self.free);
        let mut pos = goal;
        let mut left = blocks;
        while left > 0 {
            let Some((s, l)) = self.run_at_or_after(pos) else { break };
            let from = if pos >= s && pos < s + l { pos } else { s };
            let take = left.min(s + l - from);
            self.runs.remove(&s);
            if from > s {
                self.runs.insert(s, from - s);
            }
            if from + take < s + l {
                self.runs.insert(from + take, s + l - from - take);
            }
            match out.last_mut() {
                Some((ps, pl)) if *ps + *pl == from => *pl += take,
                _ => out.push((from, take)),
            }
            self.free -= take;
            left -= take;
            pos = from + take;
            if pos >= self.end {
                pos = self.start;
            }
        }
    }

    /// Returns an extent to the free space, merging it with its neighbours.
    fn release(&mut self, first: u64, len: u64) {
        let (mut s, mut l) = (first, len);
        if let Some((&ps, &pl)) = self.runs.range(..first).next_back() {
            if ps + pl == first {
                self.runs.remove(&ps);
                s = ps;
                l += pl;
            }
        }
        if let Some(&nl) = self.runs.get(&(first + len)) {
            self.runs.remove(&(first + len));
            l += nl;
        }
        self.runs.insert(s, l);
        self.free += len;
    }
}

/// Blocks of the volume for measured files needing `need` blocks.
pub fn volume_blocks(cfg: &AgingConfig, need: u64) -> u64 {
    if cfg.volume.0 > 0 {
        cfg.volume.pages()
    } else {
        (2.0 * need as f64 / (1.0 - cfg.fill)).ceil() as u64
    }
}

/// Ages a volume and allocates the measured files on it: for each file (of
/// `seq_lens[f]` blocks, data and indirect blocks), its extents as
/// `(first block, length)` in allocation-sequence order. `seq_len_of`
/// gives the allocation-sequence blocks (data and indirect) of an aging
/// file of the given data pages.
pub fn place(
    cfg: &AgingConfig,
    start_block: u64,
    seq_lens: &[u64],
    capacity_blocks: u64,
    seq_len_of: impl Fn(u64) -> u64,
    rng: &mut Rng,
) -> Result<Vec<Vec<(u64, u64)>>> {
    let need: u64 = seq_lens.iter().sum();
    let blocks = volume_blocks(cfg, need);
    let end = start_block.saturating_add(blocks);
    if end > capacity_blocks {
        return Err(Error::geometry(format!(
            "fs.aging: the aged volume needs {blocks} blocks of 4KiB from block {start_block} \
             ({}) but the array holds {capacity_blocks}; lower fs.aging.fill or set fs.aging.volume",
            if cfg.volume.0 > 0 {
                "fs.aging.volume".to_string()
            } else {
                format!("2 × the files' {need} blocks / (1 − fill {})", cfg.fill)
            }
        )));
    }
    let target = (cfg.fill * blocks as f64) as u64;
    if need > blocks - target.min(blocks) {
        return Err(Error::geometry(format!(
            "fs.aging: the files need {need} blocks of 4KiB but a volume of {blocks} filled to \
             {} leaves {}; enlarge fs.aging.volume or lower fs.aging.fill",
            cfg.fill,
            blocks - target.min(blocks)
        )));
    }
    let mean_pages = (cfg.file_size.0 as f64 / PAGE_BYTES as f64).max(1.0);
    let aging_files = target as f64 / mean_pages;
    if aging_files > MAX_AGING_FILES as f64 {
        return Err(Error::geometry(format!(
            "fs.aging: keeping {blocks} blocks of 4KiB {} full takes about {aging_files:.0} aging files of \
             {} bytes, at most {MAX_AGING_FILES}: raise fs.aging.file_size or lower fs.aging.volume",
            cfg.fill, cfg.file_size.0
        )));
    }
    let groups = blocks.div_ceil(BLOCKS_PER_GROUP).max(1);
    let mut space = FreeSpace::new(start_block, blocks);
    let goal = |rng: &mut Rng| start_block + rng.below(groups) * BLOCKS_PER_GROUP;
    // Live aging files: their extents, in one arena (swap-remove on deletion).
    let mut live: Vec<Vec<(u64, u64)>> = Vec::new();
    let create = |space: &mut FreeSpace, live: &mut Vec<Vec<(u64, u64)>>, rng: &mut Rng| -> bool {
        let pages = (gamma(rng, FILEBENCH_GAMMA_SHAPE, mean_pages).ceil() as u64).max(1);
        let len = seq_len_of(pages);
        // Never eat into the room the measured files need.
        if space.free < len.saturating_add(need) {
            return false;
        }
        let g = goal(rng);
        let mut ext = Vec::new();
        space.allocate(len, g, &mut ext);
        live.push(ext);
        true
    };
    let used = |space: &FreeSpace| blocks - space.free;
    // a draw too large for the room left is skipped; many in a row: full
    let mut misses = 0;
    while used(&space) < target && misses < 64 {
        if create(&mut space, &mut live, rng) {
            misses = 0;
        } else {
            misses += 1;
        }
    }
    for _ in 0..cfg.ops {
        if used(&space) > target && !live.is_empty() {
            let i = rng.below(live.len() as u64) as usize;
            for (s, l) in live.swap_remove(i) {
                space.release(s, l);
            }
        } else {
            create(&mut space, &mut live, rng);
        }
    }
    let mut files = Vec::with_capacity(seq_lens.len());
    for &len in seq_lens {
        let g = goal(rng);
        let mut ext = Vec::new();
        space.allocate(len, g, &mut ext);
        files.push(ext);
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Size;

    fn aging(ops: u64, fill: f64) -> AgingConfig {
        AgingConfig { ops, file_size: Size(256 << 10), fill, volume: Size(0) }
    }

    #[test]
    fn free_space_allocates_first_fit_from_the_goal_and_merges_on_release() {
        let mut fs = FreeSpace::new(100, 50);
        let mut a = Vec::new();
        fs.allocate(10, 120, &mut a);
        assert_eq!(a, vec![(120, 10)]);
        let mut b = Vec::new();
        fs.allocate(25, 125, &mut b); // 130..150, then wraps to 100..105
        assert_eq!(b, vec![(130, 20), (100, 5)]);
        assert_eq!(fs.free, 15);
        fs.release(120, 10);
        fs.release(130, 20);
        assert_eq!(fs.runs.get(&105), Some(&45)); // 105..150 merged into one run
        fs.release(100, 5);
        assert_eq!(fs.runs.len(), 1);
        assert_eq!(fs.free, 50);
    }

    #[test]
    fn a_fresh_volume_leaves_files_in_few_extents_and_aging_fragments_them() {
        let lens = vec![1025u64; 40]; // 4 MiB files (1024 pages + an indirect block)
        let mut rng = Rng::new(3);
        let fresh = place(&aging(0, 0.0), 0, &lens, 1 << 30, |p| p, &mut rng).unwrap();
        // Goals are group starts; on an empty volume a file may only wrap.
        assert!(fresh.iter().map(Vec::len).sum::<usize>() <= 2 * lens.len(), "{fresh:?}");
        let mut rng = Rng::new(3);
        let aged =
            place(&aging(20_000, 0.7), 0, &lens, 1 << 30, |p| p + u64::from(p > 12), &mut rng).unwrap();
        let extents: usize = aged.iter().map(Vec::len).sum();
        assert!(extents > 3 * lens.len(), "aging left {extents} extents for {} files", lens.len());
        for (e, &len) in aged.iter().zip(&lens) {
            assert_eq!(e.iter().map(|x| x.1).sum::<u64>(), len);
        }
        // No block is given twice.
        let mut all: Vec<(u64, u64)> = aged.iter().flatten().copied().collect();
        all.sort();
        assert!(all.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0));
    }

    #[test]
    fn the_same_seed_gives_the_same_layout() {
        let lens = vec![300u64, 5000, 64];
        let a = place(&aging(5000, 0.6), 8, &lens, 1 << 30, |p| p, &mut Rng::new(9)).unwrap();
        let b = place(&aging(5000, 0.6), 8, &lens, 1 << 30, |p| p, &mut Rng::new(9)).unwrap();
        assert_eq!(a, b);
        assert!(a.iter().flatten().all(|&(s, _)| s >= 8));
    }

    #[test]
    fn a_small_volume_is_aged_too() {
        // 10 one-block files: the default volume is 67 blocks, smaller than
        // many 256 KiB draws; smaller ones still fill it
        let lens = vec![1u64; 10];
        let mut cfg = aging(0, 0.7);
        cfg.file_size = Size(64 << 10);
        cfg.ops = 1000;
        let files = place(&cfg, 0, &lens, 1 << 30, |p| p, &mut Rng::new(4)).unwrap();
        assert_eq!(files.iter().map(|e| e[0].1).sum::<u64>(), 10);
        assert!(files.iter().flatten().any(|&(s, _)| s > 10), "files placed among aging files: {files:?}");
    }

    #[test]
    fn too_many_aging_files_is_a_clear_error() {
        let mut cfg = aging(10, 0.9);
        cfg.file_size = Size(4096);
        cfg.volume = Size(4096 * 100_000_000);
        let e = place(&cfg, 0, &[10], 1 << 40, |p| p, &mut Rng::new(1)).unwrap_err();
        assert!(e.to_string().contains("fs.aging.file_size"), "{e}");
    }

    #[test]
    fn a_volume_the_array_cannot_hold_is_a_geometry_error() {
        let e = place(&aging(10, 0.9), 0, &[10_000], 100_000, |p| p, &mut Rng::new(1)).unwrap_err();
        assert!(e.to_string().contains("fs.aging"), "{e}");
        let mut cfg = aging(10, 0.5);
        cfg.volume = Size(4096 * 1000);
        let e = place(&cfg, 0, &[600], 1 << 30, |p| p, &mut Rng::new(1)).unwrap_err();
        assert!(e.to_string().contains("leaves 500"), "{e}");
    }
}
