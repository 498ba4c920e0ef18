//! Linux readahead at the array (`array_cache.prefetch = "linux"`), for a
//! block trace: the readahead policies of [`crate::policy::readahead`] run
//! over the array's blocks as over a file's pages — the block device's
//! readahead — with the array cache as the page cache.

use super::{Engine, Fill};
use crate::cache::lru::NONE;
use crate::metrics::{IoEvent, IoRow};
use crate::policy::readahead::{self, PageStatus, RaContext, RaDeviceState, Submitted, Window, WindowKind};

impl Engine {
    /// Linux readahead at the array (`array_cache.prefetch = "linux"`): the
    /// kernel's read loop over the blocks `[start, end)` of a trace read, as
    /// over the pages of a file — the block device's readahead — with the
    /// array cache as the page cache and the array as the file. A block
    /// carrying the marker is reported as such (and its marker cleared);
    /// cached blocks are skipped, as the Linux policies allow. Unlike the
    /// kernel's loop, a block the policy leaves missing is not read alone at
    /// once: the demand read that follows reads every block still missing.
    pub(super) fn array_readahead(&mut self, stream: u32, start: u64, end: u64, end_byte: u64) {
        let t = self.trace.as_mut().expect("a trace");
        let s = stream as usize;
        if s >= t.ra_states.len() {
            t.ra_states.resize_with(s + 1, || None);
        }
        let cfg = t.array_ra.as_deref().expect("array readahead");
        let mut ra = t.ra_states[s].take().unwrap_or_else(|| readahead::build(cfg));
        for b in start..end {
            let ac = self.array_cache.as_mut().expect("array cache");
            let slot = ac.lookup(b);
            let status = if slot == NONE {
                PageStatus::Missing
            } else if ac.has_marker(slot) {
                ac.clear_marker(slot);
                PageStatus::Marker
            } else {
                PageStatus::Cached
            };
            if status == PageStatus::Cached && ra.ignores_cached_pages() {
                continue;
            }
            let mut ctx = ArrayRaCtx { e: self, stream, demand_start: start, demand_end: end };
            ra.on_page(&mut ctx, b, end - b, status);
            let ac = self.array_cache.as_mut().expect("array cache");
            let slot = ac.lookup(b);
            if status == PageStatus::Missing && slot != NONE && ac.has_marker(slot) {
                ac.clear_marker(slot);
                let mut ctx = ArrayRaCtx { e: self, stream, demand_start: start, demand_end: end };
                ra.on_page(&mut ctx, b, end - b, PageStatus::Marker);
            } else if slot == NONE {
                ra.on_fallback_miss(b);
            }
        }
        ra.on_read_end(end_byte);
        self.trace.as_mut().expect("a trace").ra_states[s] = Some(ra);
    }

    /// A readahead window at the array: reads the blocks of `[start,
    /// start+size)` not in the array cache (stopping at the array's end, or
    /// where no room can be made); those outside the demand range count as
    /// prefetched; the marker block gets the marker if newly allocated.
    /// Returns the blocks issued. The demand blocks are counted (as misses)
    /// by the demand read that follows.
    pub(super) fn array_window(
        &mut self,
        stream: u32,
        w: Window,
        kind: WindowKind,
        demand: (u64, u64),
    ) -> u64 {
        let now = self.events.now_ns();
        self.readahead_windows += 1;
        let end = (w.start + w.size).min(self.layout.capacity_blocks());
        let marker = w.marker();
        let mut issued = 0;
        let mut b = w.start;
        while let Some((start, n)) = self.absent_run(b, end) {
            let (fill, got) = self.fill_blocks(stream, start, n, Fill::Window { demand, marker }, NONE);
            if fill != NONE {
                self.send_to_disks(fill);
            }
            issued += got;
            if got < n {
                break; // no room left
            }
            b = start + n;
        }
        let mut row = IoRow::new(
            now,
            if kind == WindowKind::Sync { IoEvent::WindowSync } else { IoEvent::WindowAsync },
        );
        row.stream = stream as i32;
        row.page = w.start as i64;
        row.pages = w.size as i64;
        row.marker = marker.map_or(-1, |m| m as i64);
        row.issued = issued as i64;
        self.log(row);
        issued
    }
}

/// A readahead policy's view of the array cache, for array-level
/// readahead: the array is the file, its blocks the pages.
struct ArrayRaCtx<'a> {
    e: &'a mut Engine,
    stream: u32,
    demand_start: u64,
    demand_end: u64,
}

impl RaContext for ArrayRaCtx<'_> {
    fn is_cached(&self, block: u64) -> bool {
        self.e.array_cache.as_ref().is_some_and(|a| a.lookup(block) != NONE)
    }
    fn file_pages(&self) -> u64 {
        self.e.layout.capacity_blocks()
    }
    fn congested(&self) -> bool {
        self.e.block.any_congested()
    }
    fn phys_block(&self, block: u64) -> u64 {
        block
    }
    fn strip_blocks(&self) -> u64 {
        self.e.layout.strip_blocks()
    }
    fn pending_ios_per_disk(&self) -> f64 {
        self.e.block.outstanding_per_disk()
    }
    fn now_ns(&self) -> u64 {
        self.e.events.now_ns()
    }
    /// Trace streams seen so far (a trace does not say when a stream ends).
    fn active_streams(&self) -> u32 {
        self.e.trace.as_ref().map_or(0, |t| t.streams.len() as u32)
    }
    /// The array cache as the page cache: one LRU list, every block on it
    /// inactive, so half its blocks, held or free.
    fn sane_max_pages(&self) -> u64 {
        self.e.array_cache.as_ref().map_or(u64::MAX, |a| a.capacity() / 2)
    }
    fn device_state(&mut self) -> &mut RaDeviceState {
        &mut self.e.ra_device
    }
    fn submit(&mut self, w: Window, kind: WindowKind) -> Submitted {
        let issued_pages = self.e.array_window(self.stream, w, kind, (self.demand_start, self.demand_end));
        Submitted { window: w, issued_pages }
    }
}
