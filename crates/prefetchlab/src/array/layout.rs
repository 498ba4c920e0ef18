//! RAID layouts (models.md §3): logical array block range → per-disk extents.
//! STUB (single/RAID-0 only): to be written for RAID-5/6/10.

use crate::config::Layout;
use crate::error::{Error, Result};

/// A piece of a logical request on one member disk (4 KiB blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    pub disk: u32,
    /// First block on the member disk.
    pub disk_block: u64,
    pub blocks: u64,
    /// The array block this piece starts at.
    pub array_block: u64,
}

/// The mapping of one array.
#[derive(Debug, Clone)]
pub struct ArrayLayout {
    layout: Layout,
    disks: u32,
    strip_blocks: u64,
    disk_blocks: u64,
}

impl ArrayLayout {
    /// `disk_blocks` is the capacity of each member in 4 KiB blocks.
    pub fn new(layout: Layout, disks: u32, strip_blocks: u64, disk_blocks: u64) -> Result<Self> {
        if strip_blocks == 0 {
            return Err(Error::config("array.strip", "must be at least one 4KiB block"));
        }
        Ok(ArrayLayout { layout, disks, strip_blocks, disk_blocks })
    }
    pub fn layout(&self) -> Layout {
        self.layout
    }
    pub fn disks(&self) -> u32 {
        self.disks
    }
    pub fn data_disks(&self) -> u32 {
        self.disks
    }
    pub fn strip_blocks(&self) -> u64 {
        self.strip_blocks
    }
    pub fn capacity_blocks(&self) -> u64 {
        self.disk_blocks / self.strip_blocks * self.strip_blocks * self.disks as u64
    }
    pub fn strip_of(&self, array_block: u64) -> u64 {
        array_block / self.strip_blocks
    }
    /// Maps a read. `pick_second_copy(d0, d1)` chooses between mirror copies
    /// (RAID-10); pieces contiguous on one disk are joined.
    pub fn map_read(
        &self,
        block: u64,
        blocks: u64,
        _pick_second_copy: &mut dyn FnMut(u32, u32) -> bool,
        out: &mut Vec<Extent>,
    ) {
        let mut b = block;
        let end = block + blocks;
        while b < end {
            let strip = b / self.strip_blocks;
            let off = b % self.strip_blocks;
            let n = (self.strip_blocks - off).min(end - b);
            let disk = (strip % self.disks as u64) as u32;
            let disk_block = strip / self.disks as u64 * self.strip_blocks + off;
            match out.last_mut() {
                Some(l) if l.disk == disk && l.disk_block + l.blocks == disk_block => l.blocks += n,
                _ => out.push(Extent { disk, disk_block, blocks: n, array_block: b }),
            }
            b += n;
        }
    }
}
