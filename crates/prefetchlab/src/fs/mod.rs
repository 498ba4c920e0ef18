//! The file layer: files as extents of array blocks with ext-style indirect
//! blocks (models.md §5.3–5.4) and the kernel's `bmap`.
//! STUB (contiguous, no indirect blocks): to be written.

use crate::config::FsConfig;
use crate::error::{Error, Result};
use crate::sim::Rng;

/// Indirect (metadata) blocks that must be read before a page can be mapped,
/// outermost first (double-indirect, then indirect).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MetaChain {
    pub blocks: [u64; 2],
    pub len: u8,
}

impl MetaChain {
    pub fn as_slice(&self) -> &[u64] {
        &self.blocks[..self.len as usize]
    }
}

/// Where every file lives on the array.
pub struct FileSystem {
    starts: Vec<u64>,
    pages: Vec<u64>,
}

impl FileSystem {
    /// Lays out files of the given sizes (pages) on an array of `capacity_blocks`.
    pub fn build(cfg: &FsConfig, file_pages: &[u64], capacity_blocks: u64, _rng: &mut Rng) -> Result<Self> {
        let mut next = cfg.start_block;
        let mut starts = vec![];
        for &p in file_pages {
            starts.push(next);
            next += p + cfg.file_gap.pages();
        }
        if next > capacity_blocks {
            return Err(Error::geometry(format!(
                "the files need {next} blocks of 4KiB but the array holds {capacity_blocks}"
            )));
        }
        Ok(FileSystem { starts, pages: file_pages.to_vec() })
    }
    pub fn files(&self) -> usize {
        self.pages.len()
    }
    pub fn file_pages(&self, file: u32) -> u64 {
        self.pages[file as usize]
    }
    /// Physical array block of a file page.
    #[inline]
    pub fn bmap(&self, file: u32, page: u64) -> u64 {
        self.starts[file as usize] + page
    }
    /// Length of the physically contiguous run of pages starting at `page`, at most `max_pages`.
    pub fn contiguous_run(&self, file: u32, page: u64, max_pages: u64) -> u64 {
        max_pages.min(self.pages[file as usize] - page)
    }
    /// The metadata blocks needed to map `page`.
    pub fn meta_chain(&self, _file: u32, _page: u64) -> MetaChain {
        MetaChain::default()
    }
}
