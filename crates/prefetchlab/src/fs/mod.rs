//! The file layer: files as extents of array blocks with ext2/3-style
//! indirect (metadata) blocks between the data runs (models.md §5.3), optional
//! fragmentation (§5.4), and the kernel's `bmap`.
//!
//! # Block map (models.md §5.3, 4 KiB blocks, 1024 pointers per block)
//!
//! Pages 0–11 are direct; pages 12–1035 are mapped by the single-indirect
//! block `IND`; pages 1036–1,049,611 by the double-indirect block `DIND` and
//! one `IND` per 1024 pages; from page 1,049,612 by the triple-indirect block
//! `TIND`, one `DIND` per 1024² pages and one `IND` per 1024 pages (files up to
//! 1024³ + 1,049,612 pages ≈ 4 TiB; larger files are a geometry error unless
//! `fs.indirect_blocks = false`). As ext3 allocates the blocks of a branch in
//! one call, each metadata block sits physically just before the first data
//! block it maps, outermost first, so a file written sequentially on an empty
//! file system is the *allocation sequence*
//!
//! ```text
//! D0..D11, IND, D12..D1035, DIND, IND, D1036..D2059, IND, D2060.. … TIND, DIND, IND, D1049612 ..
//! ```
//!
//! With `fs.indirect_blocks = false` the sequence is the data pages only (the
//! papers' worked examples assume that).
//!
//! # Placement
//!
//! Files are placed one after another in the order given, the first at
//! `fs.start_block`, with `fs.file_gap` free blocks between consecutive files.
//! With `layout = "contiguous"` a file's allocation sequence occupies
//! consecutive array blocks. With `layout = "fragmented"` (models.md §5.4,
//! the layout-score recipe) every boundary between two consecutive blocks of
//! the allocation sequence breaks independently with probability
//! `q = 1 − layout_score`; at a break the rest of the file continues after
//! `gap` free blocks, `gap` drawn from the geometric
//! distribution on {1, 2, …} with mean `max(1, extent_gap in pages)` (the
//! discrete analogue of the exponential gap of §5.4; a break always leaves at
//! least one free block so that it is a real discontinuity). Metadata blocks
//! are part of the sequence, so they can start an extent too. Gaps only move
//! forward, so a file's extents are in ascending order, as in an ext3 block
//! group with scattered free space; placing extents in other groups
//! (`p_far`) and interleaving files are not modelled.
//!
//! With `placement = "mballoc"` each file starts instead on the boundary of
//! the allocation ext4's multiblock allocator (2.6.3x) makes for it when it
//! is written back *while still open for writing* ([`mballoc_align_pages`]):
//! `ext4_mb_normalize_request` rounds a file of up to 1 MiB up to a power of
//! two (at least 16 KiB) and cuts a larger one into chunks of 2 MiB (files
//! up to 4 MiB), 4 MiB (up to 8 MiB) or 8 MiB, each aligned in the file; a
//! free buddy of that order is aligned on the volume to its own size (block
//! groups are 128 MiB, so in array blocks too), and a file's later chunks
//! follow its first. A file of at most `s_mb_stream_request` (16) blocks is
//! served from the CPU's locality group instead and is packed here. This is
//! the normalised case only: a file written back after it was closed (the
//! usual case under delayed allocation for a benchmark's file set, which
//! writes and closes each file before the flusher runs) is allocated with
//! `EXT4_MB_HINT_NOPREALLOC` (`ext4_mb_group_or_file`): its exact size from
//! the goal, without rounding, so roughly packed as `packed` has it (a
//! power-of-two size still gets a buddy aligned to that size; not
//! modelled). Not modelled either: the locality group's own preallocation
//! (512 blocks) that small files share, the lowest free buddy that a later
//! small file takes in an earlier file's hole (here the unused end of a
//! file's last chunk stays a hole), and flex_bg's metadata at the start of
//! the volume. Alignment is to array blocks (block 0 the first of a block
//! group), so the first file may start past `fs.start_block`. ext4's
//! extents need no indirect blocks: `fs.indirect_blocks = false` goes with
//! it (a file of more than four extents has an extent-tree leaf, not
//! modelled).
//!
//! Both draws come from the run's seeded [`Rng`]: the number of unbroken
//! boundaries before the next break is drawn directly (geometric, by
//! inversion with `ln`), so building costs O(extents), not O(blocks). The
//! result is bit-for-bit reproducible for a given seed and platform `libm`.
//!
//! # Lookups
//!
//! A file is a short run of the flat extent tables (`ext_seq`: first
//! allocation-sequence index of the extent, `ext_phys`: its first array
//! block). [`FileSystem::bmap`] turns a page into its allocation-sequence
//! index with O(1) arithmetic, then reads the extent directly (one extent:
//! contiguous files) or binary-searches the file's extents; it allocates
//! nothing.

pub mod aging;

use crate::config::{FileLayout, FsConfig, Placement};
use crate::error::{Error, Result};
use crate::sim::Rng;

/// Direct pointers in the inode.
const DIRECT_PAGES: u64 = 12;
/// Block pointers per 4 KiB indirect block.
const PTRS_PER_BLOCK: u64 = 1024;
/// First page mapped through the double-indirect block.
const DIND_FIRST_PAGE: u64 = DIRECT_PAGES + PTRS_PER_BLOCK;
/// First page mapped through the triple-indirect block.
const TIND_FIRST_PAGE: u64 = DIND_FIRST_PAGE + PTRS_PER_BLOCK * PTRS_PER_BLOCK;
/// Pages the ext2/3 block map can address.
const MAX_MAPPED_PAGES: u64 = TIND_FIRST_PAGE + PTRS_PER_BLOCK * PTRS_PER_BLOCK * PTRS_PER_BLOCK;

/// Metadata blocks allocated before data page `page` (including those that map
/// it), i.e. its allocation-sequence index minus `page`.
#[inline]
fn meta_before(page: u64) -> u64 {
    if page < DIRECT_PAGES {
        0
    } else if page < DIND_FIRST_PAGE {
        1
    } else if page < TIND_FIRST_PAGE {
        // IND0 + DIND + one IND per started 1024 pages.
        2 + 1 + (page - DIND_FIRST_PAGE) / PTRS_PER_BLOCK
    } else {
        let q = page - TIND_FIRST_PAGE;
        // Everything of the DIND tree (2 + 1024), TIND, the DINDs and INDs below it.
        2 + PTRS_PER_BLOCK + 1 + (1 + q / (PTRS_PER_BLOCK * PTRS_PER_BLOCK)) + (1 + q / PTRS_PER_BLOCK)
    }
}

/// The alignment, in blocks of 4 KiB, of where ext4's multiblock allocator
/// puts the first block of a file of `pages` pages written back while open
/// (the order of the free buddy that serves its normalised first request;
/// see the module doc). 1 for a file of at most 16 blocks (a locality-group
/// file).
pub fn mballoc_align_pages(pages: u64) -> u64 {
    const STREAM_REQUEST_PAGES: u64 = 16;
    const MIB_PAGES: u64 = 1 << 8; // 1 MiB
    match pages {
        p if p <= STREAM_REQUEST_PAGES => 1,
        p if p <= MIB_PAGES => p.next_power_of_two(),
        p if p <= 4 * MIB_PAGES => 2 * MIB_PAGES,
        p if p <= 8 * MIB_PAGES => 4 * MIB_PAGES,
        _ => 8 * MIB_PAGES,
    }
}

/// Metadata blocks of a file of `pages` pages.
#[inline]
fn meta_total(pages: u64) -> u64 {
    if pages == 0 {
        0
    } else {
        meta_before(pages - 1)
    }
}

/// Blocks of a file of `pages` pages in its allocation sequence: its data
/// and, with `indirect`, its indirect blocks.
#[inline]
fn seq_len(indirect: bool, pages: u64) -> u64 {
    pages + if indirect { meta_total(pages) } else { 0 }
}

/// The first page after `page` whose data block is preceded by a new metadata
/// block (`u64::MAX` if none).
#[inline]
fn next_meta_page(page: u64) -> u64 {
    if page < DIRECT_PAGES {
        DIRECT_PAGES
    } else if page < DIND_FIRST_PAGE {
        DIND_FIRST_PAGE
    } else {
        // From page 1036 on, an IND starts every 1024 pages (TIND_FIRST_PAGE is one of them).
        DIND_FIRST_PAGE + ((page - DIND_FIRST_PAGE) / PTRS_PER_BLOCK + 1) * PTRS_PER_BLOCK
    }
}

/// Indirect (metadata) blocks that must be read before a page can be mapped,
/// outermost first (triple-, double-indirect, then indirect), as physical
/// array blocks, each with its metadata id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MetaChain {
    pub blocks: [u64; 3],
    /// The blocks' ids: every metadata block of every file numbered from 0
    /// to [`FileSystem::meta_blocks`], for tables indexed by block.
    pub ids: [u64; 3],
    pub len: u8,
}

impl MetaChain {
    pub fn as_slice(&self) -> &[u64] {
        &self.blocks[..self.len as usize]
    }

    pub fn ids(&self) -> &[u64] {
        &self.ids[..self.len as usize]
    }

    #[inline]
    fn push(&mut self, block: u64, id: u64) {
        self.blocks[self.len as usize] = block;
        self.ids[self.len as usize] = id;
        self.len += 1;
    }
}

/// Where every file lives on the array.
pub struct FileSystem {
    indirect: bool,
    /// Pages per file.
    pages: Vec<u64>,
    /// File `f`'s extents are `first_ext[f]..first_ext[f + 1]` (len = files + 1).
    first_ext: Vec<usize>,
    /// Allocation-sequence index (within its file) where each extent starts;
    /// the first extent of a file starts at 0.
    ext_seq: Vec<u64>,
    /// Array block of each extent's first block.
    ext_phys: Vec<u64>,
    /// Id of each file's first metadata block (len = files + 1).
    meta_base: Vec<u64>,
}

/// Draws the number of failures before the first success of a Bernoulli(`p`)
/// sequence (geometric on {0, 1, …}), by inversion. `p` in (0, 1].
#[inline]
fn geometric_failures(rng: &mut Rng, p: f64) -> u64 {
    if p >= 1.0 {
        return 0;
    }
    let u = 1.0 - rng.next_f64(); // (0, 1]
    let k = (u.ln() / (-p).ln_1p()).floor();
    // `as` saturates: a huge draw becomes u64::MAX (= "never").
    k as u64
}

impl FileSystem {
    /// Lays out files of the given sizes (pages) on an array of
    /// `capacity_blocks` (see the module doc). Errors with `Error::Geometry`
    /// when the files do not fit, or a file is too large for the block map.
    pub fn build(cfg: &FsConfig, file_pages: &[u64], capacity_blocks: u64, rng: &mut Rng) -> Result<Self> {
        let indirect = cfg.indirect_blocks;
        let file_gap = cfg.file_gap.pages();
        // The least the files can need (no fragmentation gaps): check it before
        // building anything, with exact numbers in the message.
        let mut data = 0u64;
        let mut meta = 0u64;
        for (f, &p) in file_pages.iter().enumerate() {
            if indirect && p > MAX_MAPPED_PAGES {
                return Err(Error::geometry(format!(
                    "file {f} has {p} pages of 4KiB but ext-style indirect blocks map at most \
                     {MAX_MAPPED_PAGES}; set fs.indirect_blocks = false for larger files"
                )));
            }
            data = data.saturating_add(p);
            if indirect {
                meta = meta.saturating_add(meta_total(p));
            }
        }
        let gaps = file_gap.saturating_mul(file_pages.len().saturating_sub(1) as u64);
        let need = cfg.start_block.saturating_add(data).saturating_add(meta).saturating_add(gaps);
        let too_big = |need: u64, at_least: &str| {
            let more = match (at_least.is_empty(), cfg.placement) {
                (true, _) => "",
                (false, Placement::Packed) => " + fragmentation gaps",
                (false, Placement::Mballoc) => " + fragmentation gaps + alignment",
            };
            Error::geometry(format!(
                "the {} files need {at_least}{need} blocks of 4KiB (start_block {} + {data} data \
                 pages + {meta} indirect blocks + {gaps} between files{more}) but the array holds \
                 {capacity_blocks}",
                file_pages.len(),
                cfg.start_block,
            ))
        };
        if need > capacity_blocks {
            return Err(too_big(need, ""));
        }

        let break_p = match cfg.layout {
            FileLayout::Contiguous => 0.0,
            // NaN (rejected by the config check anyway) counts as contiguous.
            FileLayout::Fragmented if cfg.layout_score.is_nan() => 0.0,
            FileLayout::Fragmented => (1.0 - cfg.layout_score).clamp(0.0, 1.0),
        };
        let mean_gap = cfg.extent_gap.pages().max(1) as f64;

        let mut fs = FileSystem {
            indirect,
            pages: file_pages.to_vec(),
            first_ext: Vec::with_capacity(file_pages.len() + 1),
            ext_seq: Vec::with_capacity(file_pages.len()),
            ext_phys: Vec::with_capacity(file_pages.len()),
            meta_base: Vec::with_capacity(file_pages.len() + 1),
        };
        fs.meta_base.push(0);
        if cfg.aging.enabled() {
            let seq_lens: Vec<u64> = file_pages.iter().map(|&p| seq_len(indirect, p)).collect();
            let files = aging::place(
                &cfg.aging,
                cfg.start_block,
                &seq_lens,
                capacity_blocks,
                |p| seq_len(indirect, p),
                rng,
            )?;
            for (f, ext) in files.iter().enumerate() {
                fs.meta_base.push(fs.meta_base[f] + (seq_lens[f] - file_pages[f]));
                fs.first_ext.push(fs.ext_seq.len());
                let mut seq = 0;
                for &(first, len) in ext {
                    fs.ext_seq.push(seq);
                    fs.ext_phys.push(first);
                    seq += len;
                }
                if ext.is_empty() {
                    // An empty file: one empty extent keeps the tables' shape.
                    fs.ext_seq.push(0);
                    fs.ext_phys.push(cfg.start_block);
                }
            }
            fs.first_ext.push(fs.ext_seq.len());
            return Ok(fs);
        }
        let mut cursor = cfg.start_block;
        for (f, &p) in file_pages.iter().enumerate() {
            if f > 0 {
                cursor += file_gap;
            }
            if cfg.placement == Placement::Mballoc {
                cursor = cursor.next_multiple_of(mballoc_align_pages(p));
            }
            let metas = if indirect { meta_total(p) } else { 0 };
            fs.meta_base.push(fs.meta_base[f] + metas);
            let seq_len = p + metas;
            fs.first_ext.push(fs.ext_seq.len());
            fs.ext_seq.push(0);
            fs.ext_phys.push(cursor);
            let (mut ext_seq, mut ext_phys) = (0u64, cursor);
            if break_p > 0.0 && seq_len > 1 {
                // Boundary b lies between sequence blocks b − 1 and b.
                let mut b = 1u64;
                loop {
                    let brk = b.saturating_add(geometric_failures(rng, break_p));
                    if brk >= seq_len {
                        break;
                    }
                    let free = 1 + geometric_failures(rng, 1.0 / mean_gap);
                    ext_phys = ext_phys.saturating_add(brk - ext_seq).saturating_add(free);
                    ext_seq = brk;
                    if ext_phys.saturating_add(seq_len - ext_seq) > capacity_blocks {
                        let at_least = ext_phys.saturating_add(seq_len - ext_seq);
                        return Err(too_big(at_least, "at least "));
                    }
                    fs.ext_seq.push(ext_seq);
                    fs.ext_phys.push(ext_phys);
                    b = brk + 1;
                }
            }
            cursor = ext_phys + (seq_len - ext_seq);
            if cursor > capacity_blocks {
                return Err(too_big(cursor, "at least "));
            }
        }
        fs.first_ext.push(fs.ext_seq.len());
        Ok(fs)
    }

    /// Number of files.
    pub fn files(&self) -> usize {
        self.pages.len()
    }

    /// Metadata blocks of all files (their ids are `0..meta_blocks()`).
    pub fn meta_blocks(&self) -> u64 {
        self.meta_base[self.pages.len()]
    }

    /// Size of a file in pages.
    pub fn file_pages(&self, file: u32) -> u64 {
        self.pages[file as usize]
    }

    /// Number of physically contiguous extents of a file (1 when contiguous;
    /// indirect blocks do not start a new extent).
    pub fn file_extents(&self, file: u32) -> usize {
        self.first_ext[file as usize + 1] - self.first_ext[file as usize]
    }

    /// The layout score of the files (Smith & Seltzer, models.md §5.4): the
    /// fraction of allocation-sequence blocks after each file's first that
    /// sit right after the previous one; 1.0 when every file is one extent,
    /// and for no files.
    pub fn layout_score(&self) -> f64 {
        let mut boundaries = 0u64;
        let mut breaks = 0u64;
        for f in 0..self.pages.len() {
            boundaries += seq_len(self.indirect, self.pages[f]).saturating_sub(1);
            breaks += (self.first_ext[f + 1] - self.first_ext[f]).saturating_sub(1) as u64;
        }
        if boundaries == 0 {
            1.0
        } else {
            1.0 - breaks as f64 / boundaries as f64
        }
    }

    /// Mean number of extents per file (0 for no files).
    pub fn mean_extents(&self) -> f64 {
        let n = self.pages.len();
        if n == 0 {
            0.0
        } else {
            self.ext_seq.len() as f64 / n as f64
        }
    }

    /// Allocation-sequence index of a data page.
    #[inline]
    fn seq_of_page(&self, page: u64) -> u64 {
        if self.indirect {
            page + meta_before(page)
        } else {
            page
        }
    }

    /// Index (into the extent tables) of the extent holding sequence index `seq`.
    #[inline]
    fn extent_of(&self, file: u32, seq: u64) -> usize {
        let lo = self.first_ext[file as usize];
        let hi = self.first_ext[file as usize + 1];
        if hi - lo == 1 {
            lo
        } else {
            lo + self.ext_seq[lo..hi].partition_point(|&s| s <= seq) - 1
        }
    }

    #[inline]
    fn phys_of_seq(&self, file: u32, seq: u64) -> u64 {
        let e = self.extent_of(file, seq);
        self.ext_phys[e] + (seq - self.ext_seq[e])
    }

    /// Physical array block of a file page. `page < file_pages(file)` is the
    /// caller's to check (debug-asserted; beyond it the answer is meaningless
    /// but there is no panic). O(1) for a contiguous file, O(log extents)
    /// otherwise; no allocation.
    #[inline]
    pub fn bmap(&self, file: u32, page: u64) -> u64 {
        debug_assert!(page < self.pages[file as usize], "bmap beyond end of file {file}");
        self.phys_of_seq(file, self.seq_of_page(page))
    }

    /// How many pages from `page` on (at most `max_pages`, and not past the
    /// end of the file) are physically contiguous, i.e. `bmap(page + i) ==
    /// bmap(page) + i`. An indirect block or an extent boundary ends the run.
    /// 0 when `page` is past the end of the file or `max_pages` is 0.
    pub fn contiguous_run(&self, file: u32, page: u64, max_pages: u64) -> u64 {
        let pages = self.pages[file as usize];
        if page >= pages {
            return 0;
        }
        let mut run = max_pages.min(pages - page);
        if self.indirect {
            run = run.min(next_meta_page(page) - page);
        }
        let seq = self.seq_of_page(page);
        let e = self.extent_of(file, seq);
        if e + 1 < self.first_ext[file as usize + 1] {
            run = run.min(self.ext_seq[e + 1] - seq);
        }
        run
    }

    /// The metadata blocks (physical array blocks) that must be read to map
    /// `page`, outermost first: empty for direct pages or without indirect
    /// blocks; `[IND]` for pages 12–1035; `[DIND, IND]` up to page 1,049,611;
    /// `[TIND, DIND, IND]` beyond.
    pub fn meta_chain(&self, file: u32, page: u64) -> MetaChain {
        let mut chain = MetaChain::default();
        if !self.indirect || page < DIRECT_PAGES {
            return chain;
        }
        // Each metadata block sits `back` blocks before the first data page
        // it maps, in the allocation sequence: it is the file's metadata
        // block number `meta_before(first_page) - back`.
        let mut push = |first_page: u64, back: u64| {
            let block = self.phys_of_seq(file, self.seq_of_page(first_page) - back);
            chain.push(block, self.meta_base[file as usize] + meta_before(first_page) - back);
        };
        if page < DIND_FIRST_PAGE {
            push(DIRECT_PAGES, 1);
        } else if page < TIND_FIRST_PAGE {
            let ind_first = page - (page - DIND_FIRST_PAGE) % PTRS_PER_BLOCK;
            push(DIND_FIRST_PAGE, 2);
            push(ind_first, 1);
        } else {
            let q = page - TIND_FIRST_PAGE;
            let dind_first = page - q % (PTRS_PER_BLOCK * PTRS_PER_BLOCK);
            let ind_first = page - q % PTRS_PER_BLOCK;
            push(TIND_FIRST_PAGE, 3);
            push(dind_first, 2);
            push(ind_first, 1);
        }
        chain
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Size;

    /// What is in one block of a file's allocation sequence.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Item {
        Data(u64),
        Meta,
    }

    /// An independent, step-by-step ext2 allocation of a file written
    /// sequentially: before each data page, allocate whatever metadata
    /// blocks its branch still lacks, outermost first. Returns the sequence
    /// and, per page, the indices of its metadata chain.
    fn ext2_sequence(pages: u64) -> (Vec<Item>, Vec<Vec<usize>>) {
        let mut seq = vec![];
        let mut chains = vec![];
        let (mut tind, mut dind, mut ind) = (None, None, None);
        let k = PTRS_PER_BLOCK;
        for p in 0..pages {
            let chain = if p < 12 {
                vec![]
            } else if p < 12 + k {
                if p == 12 {
                    ind = Some(seq.len());
                    seq.push(Item::Meta);
                }
                vec![ind.unwrap()]
            } else if p < 12 + k + k * k {
                let r = p - 12 - k;
                if r == 0 {
                    dind = Some(seq.len());
                    seq.push(Item::Meta);
                }
                if r.is_multiple_of(k) {
                    ind = Some(seq.len());
                    seq.push(Item::Meta);
                }
                vec![dind.unwrap(), ind.unwrap()]
            } else {
                let r = p - 12 - k - k * k;
                if r == 0 {
                    tind = Some(seq.len());
                    seq.push(Item::Meta);
                }
                if r.is_multiple_of(k * k) {
                    dind = Some(seq.len());
                    seq.push(Item::Meta);
                }
                if r.is_multiple_of(k) {
                    ind = Some(seq.len());
                    seq.push(Item::Meta);
                }
                vec![tind.unwrap(), dind.unwrap(), ind.unwrap()]
            };
            seq.push(Item::Data(p));
            chains.push(chain);
        }
        (seq, chains)
    }

    fn cfg(layout: FileLayout, indirect: bool) -> FsConfig {
        FsConfig {
            layout,
            indirect_blocks: indirect,
            start_block: 0,
            file_gap: Size(0),
            layout_score: 1.0,
            extent_gap: Size(256 << 10),
            ..FsConfig::default()
        }
    }

    fn build(c: &FsConfig, pages: &[u64], seed: u64) -> FileSystem {
        FileSystem::build(c, pages, 1 << 40, &mut Rng::new(seed)).unwrap()
    }

    #[test]
    fn mballoc_starts_each_file_on_its_normalised_allocation() {
        // ext4_mb_normalize_request's table, in 4 KiB blocks
        let cases = [
            (1, 1),
            (15, 1),
            (16, 1),
            (17, 32),
            (100, 128),
            (256, 256),
            (257, 512),
            (1024, 512),
            (1025, 1024),
            (2048, 1024),
            (2049, 2048),
            (1 << 20, 2048),
        ];
        for (pages, align) in cases {
            assert_eq!(mballoc_align_pages(pages), align, "a file of {pages} pages");
        }
        // 3 MiB, 100 KiB, 40 KiB, 5 MiB and 20 MiB files, no indirect blocks
        let c = FsConfig { placement: Placement::Mballoc, ..cfg(FileLayout::Contiguous, false) };
        let fs = build(&c, &[768, 25, 10, 1280, 5120], 1);
        let starts: Vec<u64> = (0..5).map(|f| fs.bmap(f, 0)).collect();
        // 0; 768 -> 32-aligned 768; 793 (packed); 803 -> 1024-aligned 1024; 2304 -> 2048-aligned 4096
        assert_eq!(starts, [0, 768, 793, 1024, 4096]);
        for f in 0..5 {
            assert_eq!(fs.file_extents(f), 1, "file {f} stays contiguous");
        }
        // packed (the default) puts them back to back
        let fs = build(&cfg(FileLayout::Contiguous, false), &[768, 25, 10, 1280, 5120], 1);
        let starts: Vec<u64> = (0..5).map(|f| fs.bmap(f, 0)).collect();
        assert_eq!(starts, [0, 768, 793, 803, 2083]);
    }

    #[test]
    fn worked_pages_of_a_3000_page_file() {
        let fs = build(&cfg(FileLayout::Contiguous, true), &[3000], 1);
        // D0..D11 @0..11, IND @12, D12..D1035 @13..1036, DIND @1037, IND @1038,
        // D1036..D2059 @1039..2062, IND @2063, D2060.. @2064..
        let expect: [(u64, u64, &[u64]); 7] = [
            (0, 0, &[]),
            (11, 11, &[]),
            (12, 13, &[12]),
            (1035, 1036, &[12]),
            (1036, 1039, &[1037, 1038]),
            (2059, 2062, &[1037, 1038]),
            (2060, 2064, &[1037, 2063]),
        ];
        for (page, block, chain) in expect {
            assert_eq!(fs.bmap(0, page), block, "bmap page {page}");
            assert_eq!(fs.meta_chain(0, page).as_slice(), chain, "chain page {page}");
        }
        assert_eq!(fs.bmap(0, 2999), 2999 + 4);
        assert_eq!(fs.contiguous_run(0, 0, 100), 12);
        assert_eq!(fs.contiguous_run(0, 5, 100), 7);
        assert_eq!(fs.contiguous_run(0, 12, 100), 100);
        assert_eq!(fs.contiguous_run(0, 1000, 100), 36);
        assert_eq!(fs.contiguous_run(0, 2060, 5000), 940);
        assert_eq!(fs.contiguous_run(0, 2999, 5), 1);
        assert_eq!(fs.contiguous_run(0, 3000, 5), 0);
    }

    /// Checks every page's block and chain against the reference allocation.
    fn check_against_reference(fs: &FileSystem, file: u32, base: u64) {
        let pages = fs.file_pages(file);
        let (seq, chains) = ext2_sequence(pages);
        let mut p = 0;
        for (i, item) in seq.iter().enumerate() {
            if let Item::Data(d) = *item {
                assert_eq!(d, p);
                assert_eq!(fs.bmap(file, p), base + i as u64, "page {p}");
                let want: Vec<u64> = chains[p as usize].iter().map(|&j| base + j as u64).collect();
                assert_eq!(fs.meta_chain(file, p).as_slice(), &want[..], "page {p}");
                // The run ends right before the next metadata block.
                let run = fs.contiguous_run(file, p, u64::MAX);
                let next_meta = seq[i..].iter().position(|x| *x == Item::Meta).unwrap_or(seq.len() - i);
                assert_eq!(run, next_meta as u64, "run at page {p}");
                p += 1;
            }
        }
        assert_eq!(p, pages);
    }

    #[test]
    fn exact_on_disk_pattern_3000_pages() {
        let mut c = cfg(FileLayout::Contiguous, true);
        c.start_block = 777;
        let fs = build(&c, &[3000], 1);
        check_against_reference(&fs, 0, 777);
        // The same pattern written out: D0..D11, IND, D12..D1035, DIND, IND, D1036..D2059, IND, D2060..
        let (seq, _) = ext2_sequence(3000);
        let metas: Vec<usize> =
            seq.iter().enumerate().filter(|(_, x)| **x == Item::Meta).map(|(i, _)| i).collect();
        assert_eq!(metas, vec![12, 1037, 1038, 2063]);
        assert_eq!(seq.len(), 3004);
    }

    #[test]
    fn triple_indirect_region() {
        let pages = TIND_FIRST_PAGE + PTRS_PER_BLOCK * PTRS_PER_BLOCK + 3000;
        let fs = build(&cfg(FileLayout::Contiguous, true), &[pages], 1);
        check_against_reference(&fs, 0, 0);
    }

    #[test]
    fn without_indirect_blocks_a_file_is_pure_data() {
        let mut c = cfg(FileLayout::Contiguous, false);
        c.start_block = 16;
        c.file_gap = Size(8 * 4096);
        let fs = build(&c, &[20, 3000], 1);
        assert_eq!(fs.bmap(0, 0), 16);
        assert_eq!(fs.bmap(0, 19), 35);
        assert_eq!(fs.bmap(1, 0), 36 + 8);
        assert_eq!(fs.bmap(1, 2999), 44 + 2999);
        assert!(fs.meta_chain(1, 2000).as_slice().is_empty());
        assert_eq!(fs.contiguous_run(1, 10, u64::MAX), 2990);
        assert_eq!(fs.files(), 2);
        assert_eq!(fs.file_pages(1), 3000);
    }

    #[test]
    fn files_follow_each_other_with_gaps_and_metadata() {
        let mut c = cfg(FileLayout::Contiguous, true);
        c.file_gap = Size(4 * 4096);
        let fs = build(&c, &[13, 5], 1);
        // File 0: D0..D11 @0..11, IND @12, D12 @13; file 1 after 4 free blocks.
        assert_eq!(fs.bmap(0, 12), 13);
        assert_eq!(fs.bmap(1, 0), 18);
        assert_eq!(fs.meta_chain(0, 12).as_slice(), &[12]);
    }

    #[test]
    fn layout_score_one_gives_contiguous_files() {
        let sizes = [3000, 1, 12, 13, 5000];
        let a = build(&cfg(FileLayout::Contiguous, true), &sizes, 3);
        let b = build(&cfg(FileLayout::Fragmented, true), &sizes, 3);
        for f in 0..sizes.len() as u32 {
            assert_eq!(b.file_extents(f), 1);
            for p in 0..sizes[f as usize] {
                assert_eq!(a.bmap(f, p), b.bmap(f, p));
                assert_eq!(a.meta_chain(f, p), b.meta_chain(f, p));
            }
        }
    }

    /// Every data and metadata block of every file, checked for overlap.
    #[test]
    fn fragmented_blocks_never_overlap() {
        let sizes = [3000u64, 1, 40, 2100, 12, 1036, 1037, 5000];
        for seed in [1u64, 2, 3, 42, 99] {
            for score in [0.0, 0.5, 0.9, 0.999] {
                let mut c = cfg(FileLayout::Fragmented, true);
                c.layout_score = score;
                c.extent_gap = Size(3 * 4096);
                c.start_block = 10;
                c.file_gap = Size(4096);
                let fs = build(&c, &sizes, seed);
                let mut data = vec![];
                let mut meta = vec![];
                let mut ids = std::collections::BTreeMap::new();
                let mut prev_max = 0;
                for f in 0..sizes.len() as u32 {
                    let mut fmin = u64::MAX;
                    let mut fmax = 0;
                    for p in 0..sizes[f as usize] {
                        let b = fs.bmap(f, p);
                        data.push(b);
                        let chain = fs.meta_chain(f, p);
                        meta.extend_from_slice(chain.as_slice());
                        for (&id, &block) in chain.ids().iter().zip(chain.as_slice()) {
                            assert_eq!(*ids.entry(id).or_insert(block), block, "id {id} names two blocks");
                        }
                        for &x in std::iter::once(&b).chain(chain.as_slice()) {
                            fmin = fmin.min(x);
                            fmax = fmax.max(x);
                        }
                        // The run agrees with bmap, and really ends.
                        let run = fs.contiguous_run(f, p, 64);
                        assert!(run >= 1);
                        for i in 1..run {
                            assert_eq!(fs.bmap(f, p + i), b + i);
                        }
                        if run < 64 && p + run < sizes[f as usize] {
                            assert_ne!(fs.bmap(f, p + run), b + run);
                        }
                    }
                    // Files in order, never interleaved.
                    assert!(fmin >= 10 && (f == 0 || fmin > prev_max), "seed {seed} score {score} file {f}");
                    prev_max = fmax;
                }
                meta.sort_unstable();
                meta.dedup();
                let mut all = data.clone();
                all.sort_unstable();
                all.dedup();
                assert_eq!(all.len(), data.len(), "two pages share a block (seed {seed}, score {score})");
                let total_meta: u64 = sizes.iter().map(|&p| meta_total(p)).sum();
                assert_eq!(meta.len() as u64, total_meta);
                // The ids number the metadata blocks densely, one id per block.
                assert!(ids.keys().copied().eq(0..fs.meta_blocks()));
                assert_eq!(fs.meta_blocks(), total_meta);
                all.extend_from_slice(&meta);
                all.sort_unstable();
                all.dedup();
                assert_eq!(
                    all.len(),
                    data.len() + meta.len(),
                    "data block = metadata block (seed {seed}, score {score})"
                );
            }
        }
    }

    /// An aged volume (`fs.aging`): every page and indirect block of every
    /// file has its own block, `contiguous_run` agrees with `bmap`, the
    /// metadata ids stay dense, and the files are fragmented (layout score
    /// below 1, several extents per file) where a fresh volume gives 1.0.
    #[test]
    fn aged_files_are_fragmented_and_never_overlap() {
        let sizes = [3000u64, 1, 40, 2100, 12, 1036, 1037, 5000, 1024, 1024];
        let mut c = cfg(FileLayout::Contiguous, true);
        c.start_block = 10;
        c.aging.ops = 4000;
        c.aging.file_size = Size(64 << 10);
        c.aging.fill = 0.8;
        let fresh = build(&cfg(FileLayout::Contiguous, true), &sizes, 5);
        assert_eq!(fresh.layout_score(), 1.0);
        assert_eq!(fresh.mean_extents(), 1.0);
        let fs = build(&c, &sizes, 5);
        assert!(
            fs.layout_score() < 0.999 && fs.mean_extents() > 2.0,
            "{} {}",
            fs.layout_score(),
            fs.mean_extents()
        );
        let mut blocks = vec![];
        let mut ids = std::collections::BTreeMap::new();
        for f in 0..sizes.len() as u32 {
            for p in 0..sizes[f as usize] {
                let b = fs.bmap(f, p);
                assert!(b >= 10);
                blocks.push(b);
                let chain = fs.meta_chain(f, p);
                for (&id, &block) in chain.ids().iter().zip(chain.as_slice()) {
                    assert_eq!(*ids.entry(id).or_insert(block), block, "id {id} names two blocks");
                }
                let run = fs.contiguous_run(f, p, 64);
                for i in 1..run {
                    assert_eq!(fs.bmap(f, p + i), b + i);
                }
                if run < 64 && p + run < sizes[f as usize] {
                    assert_ne!(fs.bmap(f, p + run), b + run);
                }
            }
        }
        blocks.extend(ids.values()); // each indirect block once
        let n = blocks.len();
        blocks.sort_unstable();
        blocks.dedup();
        assert_eq!(blocks.len(), n, "two pages or indirect blocks share a block");
        assert!(ids.keys().copied().eq(0..fs.meta_blocks()));
        // The same seed ages the same way.
        assert_eq!(build(&c, &sizes, 5).bmap(7, 4999), fs.bmap(7, 4999));
    }

    /// The fraction of unbroken boundaries is the layout score, and the gaps
    /// have the configured mean (seeded, so exact numbers are reproducible;
    /// the bounds are a few standard errors wide).
    #[test]
    fn fragmentation_statistics_match_the_parameters() {
        let mut c = cfg(FileLayout::Fragmented, false);
        c.layout_score = 0.9;
        c.extent_gap = Size(64 * 4096);
        let pages = 200_000u64;
        let fs = build(&c, &[pages], 7);
        let extents = fs.file_extents(0) as f64;
        let breaks = extents - 1.0;
        let frac = 1.0 - breaks / (pages - 1) as f64;
        assert!((0.897..0.903).contains(&frac), "layout score {frac}");
        let span = fs.bmap(0, pages - 1) + 1 - pages; // free blocks inside the file
        let mean_gap = span as f64 / breaks;
        assert!((62.0..66.0).contains(&mean_gap), "mean gap {mean_gap}");
        // Same seed, same layout; another seed, another one.
        let again = build(&c, &[pages], 7);
        let other = build(&c, &[pages], 8);
        assert_eq!(again.bmap(0, pages - 1), fs.bmap(0, pages - 1));
        assert_ne!(other.bmap(0, pages - 1), fs.bmap(0, pages - 1));
    }

    #[test]
    fn capacity_error_names_the_sizes() {
        let mut c = cfg(FileLayout::Contiguous, true);
        c.start_block = 100;
        c.file_gap = Size(10 * 4096);
        let e = FileSystem::build(&c, &[3000, 20], 3000, &mut Rng::new(1)).err().unwrap();
        assert_eq!(
            e.to_string(),
            "geometry: the 2 files need 3135 blocks of 4KiB (start_block 100 + 3020 data pages + \
             5 indirect blocks + 10 between files) but the array holds 3000"
        );
        // Exactly fitting is fine.
        assert!(FileSystem::build(&c, &[3000, 20], 3135, &mut Rng::new(1)).is_ok());
        // Fragmentation gaps can push it over.
        c.layout = FileLayout::Fragmented;
        c.layout_score = 0.5;
        let e = FileSystem::build(&c, &[3000, 20], 3135, &mut Rng::new(1)).err().unwrap();
        assert!(e.to_string().contains("need at least"), "{e}");
        assert!(e.to_string().contains("fragmentation gaps"), "{e}");
        // Too large for the block map.
        let e = FileSystem::build(
            &cfg(FileLayout::Contiguous, true),
            &[MAX_MAPPED_PAGES + 1],
            u64::MAX,
            &mut Rng::new(1),
        )
        .err()
        .unwrap();
        assert!(e.to_string().contains("fs.indirect_blocks = false"), "{e}");
    }
}
