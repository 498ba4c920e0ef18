//! Caches: the host page cache (page granular, per-file index, LRU within a
//! memory budget, or 2.6's inactive and active lists with `host.reclaim =
//! "use-once"`) and the slot store it shares with the array cache.
//!
//! * [`lru`] — slots with prefetched/used/marker bookkeeping and an LRU list.
//! * [`block_map`] — block → value over a large, sparse block space (the array
//!   cache's index, the block policies' per-block tables).
//! * [`PageCache`] — the page cache: `(file, page)` → slot.
//!
//! A page is *prefetched* when it was brought in beyond the pages the
//! reader demanded at that moment; it is *used* once the reader reads it.
//! A page counts as a hit when it is uptodate at the moment it is read (a
//! page still in flight is a miss, even if readahead issued it).

pub mod block_map;
pub mod lru;

use lru::{flag, Evicted, LruSlots, NONE};
use std::ops::Range;

/// Page slots allocated when the cache is built, at most (24 MiB).
const MAX_RESERVED_SLOTS: u64 = 1 << 20;

/// Page-cache counters (pages).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub prefetched: u64,
    pub prefetch_used: u64,
    pub wasted: u64,
    pub evictions: u64,
}

/// The host page cache.
pub struct PageCache {
    /// Slots with each one's count of pins (readers waiting for it).
    lru: LruSlots<u16>,
    /// Page → slot (`NONE` if absent), the files one after the other; a
    /// slot's key is its page's place here.
    index: Vec<u32>,
    /// Where each file's pages start in `index`.
    file_base: Vec<u64>,
    /// `host.readahead_alloc = "wait"`: a window that finds no room waits
    /// for it (the engine asks [`PageCache::waits_for_room`]); `fail`: it ends
    /// there.
    wait_for_room: bool,
    /// `host.reclaim = "use-once"`: the slots keep the active list; a read
    /// moves a page there only when it was read before
    /// ([`LruSlots::access_use_once`]), and reclaim moves that list's oldest
    /// pages back as the kernel balances the lists (`host.list_balance`:
    /// [`LruSlots::balance_lists`]).
    use_once: bool,
    pub stats: CacheStats,
}

impl PageCache {
    /// A cache of `capacity_pages` for files of the given sizes (pages).
    pub fn new(capacity_pages: u64, file_pages: &[u64]) -> Self {
        let capacity = capacity_pages.min(u32::MAX as u64 - 1);
        // The slab up front, so that it does not grow by copying: a run never
        // holds more pages than its files have nor (but for a few demand pages
        // over budget) more than the budget; bounded, as memory may be large.
        let most = capacity.min(file_pages.iter().sum::<u64>()).min(MAX_RESERVED_SLOTS) as u32;
        PageCache {
            lru: LruSlots::with_reserve(capacity as u32, most),
            index: vec![NONE; file_pages.iter().sum::<u64>() as usize],
            file_base: file_pages
                .iter()
                .scan(0, |base, &p| {
                    *base += p;
                    Some(*base - p)
                })
                .collect(),
            wait_for_room: false,
            use_once: false,
            stats: CacheStats::default(),
        }
    }

    /// Whether a page could be allocated now without going over the budget:
    /// there is room, a page that can be evicted, or (use-once) active pages
    /// reclaim would move back to the inactive list first.
    #[inline]
    pub fn may_make_room(&self) -> bool {
        !self.lru.is_full() || self.lru.evictable() > 0 || self.lru.active_is_long()
    }

    /// The cache as `host.readahead_alloc` has it: `wait` (true) or `fail`.
    pub fn waiting_for_room(mut self, wait: bool) -> Self {
        self.wait_for_room = wait;
        self
    }

    /// The cache as `host.reclaim` has it: `use-once` (true: with the
    /// active list) or `lru`. Called on a new cache.
    pub fn use_once(mut self, use_once: bool) -> Self {
        if use_once && !self.use_once {
            self.lru = std::mem::replace(&mut self.lru, LruSlots::new(1)).two_lists();
        }
        self.use_once = use_once;
        self
    }

    /// The cache's reclaim balancing its two lists as Linux 2.6.18 does
    /// (`host.list_balance = "proportional"`; [`LruSlots::balance_lists`]).
    /// Called on a new cache, after [`PageCache::use_once`].
    pub fn proportional_balance(mut self, proportional: bool) -> Self {
        if proportional {
            self.lru = std::mem::replace(&mut self.lru, LruSlots::new(1)).proportional_balance();
        }
        self
    }

    /// Pages on the active list (`host.reclaim = "use-once"`; 0 with `lru`).
    pub fn active_pages(&self) -> u64 {
        self.lru.active() as u64
    }

    /// Pages moved to the active list so far (read twice), and back to the
    /// inactive list (`host.reclaim = "use-once"`; 0 with `lru`).
    pub fn activations(&self) -> (u64, u64) {
        self.lru.activations()
    }

    /// `host.readahead_alloc = "wait"`: a readahead window that finds no room
    /// waits for it.
    #[inline]
    pub fn waits_for_room(&self) -> bool {
        self.wait_for_room
    }

    /// The place of a page in `index` (its slot's key).
    #[inline]
    fn key(&self, file: u32, page: u64) -> u64 {
        debug_assert!(
            self.file_base.get(file as usize + 1).map_or(self.index.len() as u64, |&b| b)
                >= self.file_base[file as usize] + page,
            "page {page} beyond file {file}"
        );
        self.file_base[file as usize] + page
    }

    /// The slot of a page, or `NONE`.
    #[inline]
    pub fn lookup(&self, file: u32, page: u64) -> u32 {
        self.index[self.key(file, page) as usize]
    }

    #[inline]
    pub fn is_cached(&self, file: u32, page: u64) -> bool {
        self.lookup(file, page) != NONE
    }

    /// How many pages from `from` on (before `to`) are all cached
    /// (`cached`) or all absent (`!cached`).
    #[inline]
    pub fn presence_run(&self, file: u32, from: u64, to: u64, cached: bool) -> u64 {
        let base = self.key(file, 0) as usize;
        let pages = &self.index[base + from as usize..base + to as usize];
        pages.iter().position(|&s| (s != NONE) != cached).unwrap_or(pages.len()) as u64
    }

    #[inline]
    pub fn uptodate(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::UPTODATE)
    }

    #[inline]
    pub fn has_marker(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::MARKER)
    }

    #[inline]
    pub fn clear_marker(&mut self, slot: u32) {
        self.lru.clear(slot, flag::MARKER);
    }

    /// A reader waits for this page: keep it until the reader has read it
    /// ([`PageCache::unpin`]). Pins are counted (the slot's word), so a page
    /// two readers wait for stays until both have read it.
    #[inline]
    pub fn pin(&mut self, slot: u32) {
        let pins = self.lru.word_mut(slot);
        *pins = pins.saturating_add(1);
        self.lru.set(slot, flag::PINNED);
    }

    /// A reader that pinned this page has read it (or no longer waits).
    #[inline]
    pub fn unpin(&mut self, slot: u32) {
        let pins = self.lru.word_mut(slot);
        *pins = pins.saturating_sub(1);
        if *pins == 0 {
            self.lru.clear(slot, flag::PINNED);
        }
    }

    /// The I/O filling a slot that is not uptodate.
    #[inline]
    pub fn io(&self, slot: u32) -> u32 {
        self.lru.io(slot)
    }

    /// `max_sane_readahead`'s bound (Linux 2.6.31 on): half of the inactive
    /// pages (every cached page with `host.reclaim = "lru"`) plus the free
    /// pages (the budget not in use).
    pub fn sane_readahead_pages(&self) -> u64 {
        let in_use = self.lru.in_use() as u64;
        let free = (self.lru.capacity() as u64).saturating_sub(in_use);
        (free + in_use - self.lru.active() as u64) / 2
    }

    pub fn peak_pages(&self) -> u64 {
        self.lru.peak_in_use() as u64
    }

    pub fn pages_in_use(&self) -> u64 {
        self.lru.in_use() as u64
    }

    /// Allocates the absent pages `first..first + n` of `file` as in-flight
    /// pages filled by I/O `io`, making room for each in turn (`reclaim`,
    /// until below the budget again after demand pages went over it). A page
    /// inside the `demand` range is allocated even when no room can be made
    /// (over budget); any other page without room ends the run, unless
    /// `over_budget` (a reader that could otherwise never go on: every page
    /// is allocated as a demanded one is). What the caller does then is
    /// `host.readahead_alloc`'s ([`PageCache::waits_for_room`]). Pages
    /// outside `demand` count as prefetched; page `marker` gets
    /// PG_readahead. Returns the number of pages allocated.
    #[allow(clippy::too_many_arguments)]
    pub fn allocate_run(
        &mut self,
        file: u32,
        first: u64,
        n: u64,
        io: u32,
        demand: Range<u64>,
        marker: Option<u64>,
        over_budget: bool,
    ) -> u64 {
        let PageCache { lru, index, file_base, stats, .. } = self;
        let base = file_base[file as usize];
        let (mut got, mut prefetched) = (0, 0);
        for page in first..first + n {
            let demanded = demand.contains(&page);
            let mut flags = if demanded { 0 } else { flag::PREFETCHED };
            if marker == Some(page) {
                flags |= flag::MARKER;
            }
            while lru.is_full() && reclaim(lru, index, stats).is_some() {}
            if lru.is_full() && !(demanded || over_budget) {
                break;
            }
            let key = base + page;
            index[key as usize] = lru.insert(key, flags, io);
            prefetched += !demanded as u64;
            got += 1;
        }
        stats.prefetched += prefetched;
        got
    }

    /// I/O `io`, the read of pages `first..first + n` of `file`, completed:
    /// the pages it still fills (not evicted, not re-read by another I/O)
    /// become uptodate.
    pub fn complete_run(&mut self, file: u32, first: u64, n: u64, io: u32) {
        let from = self.key(file, first) as usize;
        for &slot in &self.index[from..from + n as usize] {
            if slot != NONE && self.lru.io(slot) == io {
                self.lru.set(slot, flag::UPTODATE);
                self.lru.set_io(slot, NONE);
            }
        }
    }

    /// The reader reads the page in `slot` (counts a first use of a
    /// prefetch). `mark`: the read marks it accessed (not a read that goes
    /// on in the page where the reader's last one ended); with `lru` every
    /// read moves the page to the head.
    #[inline]
    pub fn access(&mut self, slot: u32, mark: bool) {
        self.stats.prefetch_used += read_slot(&mut self.lru, self.use_once, slot, mark) as u64;
    }

    /// The reader reads pages `from..to` of `file` for as long as they are
    /// uptodate and carry no readahead marker: each counts as a hit and is
    /// accessed, in order, as the read loop does page by page for a policy
    /// that ignores cached pages (page `unmarked` is read without being
    /// marked accessed: see [`PageCache::access`]). Returns the number of
    /// pages read.
    pub fn read_uptodate_run(&mut self, file: u32, from: u64, to: u64, unmarked: u64) -> u64 {
        let base = self.key(file, 0) as usize;
        let index = &self.index[base + from as usize..base + to as usize];
        let mut read = 0;
        for &slot in index {
            if slot == NONE || self.lru.flags(slot) & (flag::UPTODATE | flag::MARKER) != flag::UPTODATE {
                break;
            }
            self.stats.prefetch_used +=
                read_slot(&mut self.lru, self.use_once, slot, from + read != unmarked) as u64;
            read += 1;
        }
        self.stats.hits += read;
        read
    }
}

/// Reclaim evicts one page, as `shrink_page_list` (2.6.18's, 2.6.35's, 3.0's):
/// use-once's lists first balanced as the kernel does (`host.list_balance`:
/// [`LruSlots::balance_lists`]), then the least recently used page that is
/// uptodate and not held, the pages passed over (in flight, or held by a
/// waiting reader) put back at the head; under 2.6.18's balance, when none
/// is found, the active list is scanned further, as reclaim at a lower
/// priority does ([`LruSlots::drain_for_victim`]). `None` when no page can
/// be evicted.
#[inline]
fn reclaim(lru: &mut LruSlots<u16>, index: &mut [u32], stats: &mut CacheStats) -> Option<Evicted> {
    lru.balance_lists();
    let victim = match lru.victim_rotating() {
        Some(v) => v,
        None if lru.drain_for_victim() => lru.victim_rotating()?,
        None => return None,
    };
    let ev = lru.remove(victim);
    forget(index, stats, ev);
    Some(ev)
}

/// A page left the cache: its index entry cleared, the eviction counted
/// (and the prefetch wasted, if it was never read).
#[inline]
fn forget(index: &mut [u32], stats: &mut CacheStats, ev: Evicted) {
    index[ev.key as usize] = NONE;
    stats.evictions += 1;
    stats.wasted += ev.unused_prefetch as u64;
}

/// A reader reads `slot`: LRU moves it to the head; use-once marks it or
/// activates it ([`LruSlots::access_use_once`]). Returns true on the first use of a
/// prefetched page. (Over the fields, so that a caller holding a slice of
/// the index may call it.)
#[inline]
fn read_slot(lru: &mut LruSlots<u16>, use_once: bool, slot: u32, mark: bool) -> bool {
    if use_once {
        lru.access_use_once(slot, mark)
    } else {
        lru.access(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Page by page, what `allocate_run` does in one pass: the reference
    /// its test compares with.
    impl PageCache {
        /// Makes room for one page if the cache is full ([`reclaim`]).
        /// Returns the eviction, if one happened, and whether there is room.
        pub fn make_room(&mut self) -> (Option<Evicted>, bool) {
            if !self.lru.is_full() {
                return (None, true);
            }
            let ev = reclaim(&mut self.lru, &mut self.index, &mut self.stats);
            (ev, ev.is_some())
        }

        /// Allocates an in-flight page filled by I/O `io` (room made first,
        /// or over budget).
        pub fn allocate(&mut self, file: u32, page: u64, io: u32, prefetched: bool, marker: bool) -> u32 {
            let mut flags = 0;
            if prefetched {
                flags |= flag::PREFETCHED;
                self.stats.prefetched += 1;
            }
            if marker {
                flags |= flag::MARKER;
            }
            let key = self.key(file, page);
            let s = self.lru.insert(key, flags, io);
            self.index[key as usize] = s;
            s
        }

        /// The read filling `slot` completed.
        pub fn complete(&mut self, slot: u32) {
            self.lru.set(slot, flag::UPTODATE);
            self.lru.set_io(slot, NONE);
        }
    }

    #[test]
    fn prefetch_accounting_and_wastage() {
        let mut c = PageCache::new(2, &[10]);
        let a = c.allocate(0, 0, 1, false, false);
        let b = c.allocate(0, 1, 1, true, true);
        c.complete(a);
        c.complete(b);
        assert!(c.has_marker(b));
        c.access(a, true);
        // full: the next page evicts the LRU page (b, never used → wasted)
        c.access(a, true);
        let (ev, room) = c.make_room();
        assert!(room);
        assert_eq!(ev.map(|e| e.unused_prefetch), Some(true));
        assert_eq!(c.stats.wasted, 1);
        assert!(!c.is_cached(0, 1));
        let d = c.allocate(0, 2, 3, true, false);
        c.complete(d);
        c.access(d, true);
        assert_eq!(c.stats.prefetched, 2);
        assert_eq!(c.stats.prefetch_used, 1);
    }

    /// Pins are counted: a page two readers wait for stays until both have
    /// read it (one reading it does not free it for reclaim).
    #[test]
    fn a_page_two_readers_hold_stays_until_both_let_go() {
        let mut c = PageCache::new(1, &[10]);
        let a = c.allocate(0, 0, 1, false, false);
        c.complete(a);
        c.pin(a);
        c.pin(a);
        c.access(a, true);
        c.unpin(a);
        assert_eq!(c.make_room(), (None, false), "still held by the other reader");
        c.access(a, true);
        c.unpin(a);
        let (ev, room) = c.make_room();
        assert!(room && ev.is_some());
    }

    /// host.reclaim: with "lru" a read moves a page to the head, so the
    /// prefetched page nobody read is the victim; with "use-once" a page read
    /// once stays where it came in (and goes first), one read twice moves to
    /// the head, and a read that goes on in the same page does not mark it.
    #[test]
    fn use_once_leaves_a_page_read_once_in_place_and_moves_one_read_twice() {
        for (use_once, victim) in [(false, 2), (true, 0)] {
            let mut c = PageCache::new(3, &[10]).use_once(use_once);
            for p in 0..3 {
                let s = c.allocate(0, p, 1, p == 2, false);
                c.complete(s);
            }
            let (p0, p1) = (c.lookup(0, 0), c.lookup(0, 1));
            c.access(p0, true);
            c.access(p1, true);
            c.access(p1, true);
            let (ev, _) = c.make_room();
            assert_eq!(ev.map(|e| e.key), Some(victim), "use_once {use_once}");
        }
        let mut c = PageCache::new(3, &[10]).use_once(true);
        for p in 0..3 {
            let s = c.allocate(0, p, 1, false, false);
            c.complete(s);
        }
        let p0 = c.lookup(0, 0);
        c.access(p0, true);
        c.access(p0, false); // the next sub-page read, going on where the last ended
        assert_eq!(c.make_room().0.map(|e| e.key), Some(0), "read once, still the oldest");
    }

    /// use-once keeps 2.6's active list apart: a page read twice is not
    /// pushed out by pages streamed once after it (under "lru" it would be,
    /// once as many had come in as the cache holds), while the active list
    /// stays no longer than the inactive one: its oldest page goes back to
    /// the inactive list's head, and is then evicted unless read again.
    #[test]
    fn use_once_keeps_pages_read_twice_on_the_active_list_up_to_half() {
        let load = |c: &mut PageCache, p: u64| {
            let (_, room) = c.make_room();
            assert!(room);
            let s = c.allocate(0, p, 1, false, false);
            c.complete(s);
            s
        };
        for use_once in [false, true] {
            let mut c = PageCache::new(4, &[64]).use_once(use_once);
            let hot = load(&mut c, 0);
            c.access(hot, true);
            c.access(hot, true);
            for p in 1..20 {
                let s = load(&mut c, p);
                c.access(s, true);
            }
            assert_eq!(c.is_cached(0, 0), use_once, "use_once {use_once}");
            assert_eq!(c.active_pages(), use_once as u64);
        }
        // three pages read twice in a cache of four: at the next reclaim the
        // oldest active page goes back (3 active > 1 inactive), to the head
        let mut c = PageCache::new(4, &[64]).use_once(true);
        for p in 0..4 {
            let s = load(&mut c, p);
            if p < 3 {
                c.access(s, true);
                c.access(s, true);
            }
        }
        assert_eq!((c.active_pages(), c.may_make_room()), (3, true));
        let (ev, _) = c.make_room();
        assert_eq!(ev.map(|e| e.key), Some(3), "the inactive page goes, page 0 comes back above it");
        assert_eq!(c.active_pages(), 2);
        load(&mut c, 4);
        assert_eq!(c.make_room().0.map(|e| e.key), Some(0), "deactivated and not read again");
        // a deactivated page read again goes back to the active list
        let mut c = PageCache::new(3, &[64]).use_once(true);
        let a = load(&mut c, 0);
        c.access(a, true);
        c.access(a, true);
        load(&mut c, 1);
        let b = load(&mut c, 2);
        c.access(b, true);
        c.access(b, true); // 2 active, 1 inactive
        assert_eq!(c.make_room().0.map(|e| e.key), Some(1), "page 0 went back above page 1");
        assert!(c.is_cached(0, 0));
        assert_eq!(c.active_pages(), 1);
        c.access(a, true); // not referenced since its activation: marked
        assert_eq!(c.active_pages(), 1);
        c.access(a, true); // referenced: active again
        assert_eq!(c.active_pages(), 2);
        assert_eq!(c.activations(), (3, 1));
    }

    /// Page `p` of file 0 read in and completed, room made first (an
    /// eviction, if any).
    fn load(c: &mut PageCache, p: u64) -> u32 {
        c.make_room();
        let s = c.allocate(0, p, 1, false, false);
        c.complete(s);
        s
    }

    /// `max_sane_readahead`: half of the inactive and free pages; an active
    /// page counts in neither.
    #[test]
    fn the_sane_readahead_bound_is_half_the_inactive_and_free_pages() {
        for use_once in [false, true] {
            let mut c = PageCache::new(100, &[200]).use_once(use_once);
            assert_eq!(c.sane_readahead_pages(), 50);
            let slots: Vec<u32> = (0..40).map(|p| load(&mut c, p)).collect();
            assert_eq!(c.sane_readahead_pages(), 50, "40 inactive, 60 free");
            for &s in &slots[..10] {
                c.access(s, true);
                c.access(s, true);
            }
            // use-once: 10 active, 30 inactive, 60 free; lru: one list, all inactive
            assert_eq!(c.sane_readahead_pages(), if use_once { 45 } else { 50 });
            for p in 40..200 {
                load(&mut c, p);
            }
            assert_eq!(c.sane_readahead_pages(), if use_once { 45 } else { 50 }, "full");
        }
    }

    /// use-once, the corners: a page read while active keeps its referenced
    /// flag when it goes back, so one read activates it again; a full cache
    /// whose pages are all active may make room (reclaim moves some back);
    /// `allocate_run` with every page active finds its victims among those
    /// it moved back, as page by page does.
    #[test]
    fn use_once_corners() {
        let mut c = PageCache::new(3, &[64]).use_once(true);
        let a = load(&mut c, 0);
        c.access(a, true);
        c.access(a, true);
        c.access(a, true); // read while active: referenced
        load(&mut c, 1);
        let b = load(&mut c, 2);
        c.access(b, true);
        c.access(b, true); // 2 active, 1 inactive: page 0 goes back at the next reclaim
        assert_eq!(c.make_room().0.map(|e| e.key), Some(1));
        assert_eq!(c.active_pages(), 1);
        c.access(a, true);
        assert_eq!(c.active_pages(), 2, "one read: active again");
        {
            let all_active = || {
                let mut c = PageCache::new(4, &[64, 64]).use_once(true);
                for p in 0..4 {
                    let s = load(&mut c, p);
                    c.access(s, true);
                    c.access(s, true);
                }
                assert_eq!((c.active_pages(), c.lru.evictable()), (4, 0));
                c
            };
            let mut run = all_active();
            assert!(run.may_make_room(), "the active list is the longer");
            let got = run.allocate_run(1, 0, 2, 7, 0..0, None, false);
            let mut one = all_active();
            for p in 0..2 {
                assert!(one.make_room().1);
                one.allocate(1, p, 7, true, false);
            }
            assert_eq!(got, 2);
            assert_eq!(run.stats, one.stats);
            for p in 0..4 {
                assert_eq!(run.is_cached(0, p), one.is_cached(0, p), "page {p}");
            }
            assert_eq!(run.active_pages(), one.active_pages());
        }
    }

    /// Under 2.6.18's balance `may_make_room` says yes while the active list
    /// holds a page, and reclaim keeps it: with 4,097 inactive pages all in
    /// flight (one scan owed of the two a page costs) it scans the active
    /// list further and finds its victim there (a review's case: the first
    /// allocation found no room before).
    #[test]
    fn proportional_reclaim_keeps_the_room_it_promises() {
        let mut c = PageCache::new(4098, &[10_000]).use_once(true).proportional_balance(true);
        let a = load(&mut c, 0);
        c.access(a, true);
        c.access(a, true);
        for p in 1..4098 {
            c.allocate(0, p, 1, true, false); // in flight
        }
        assert!(c.lru.is_full());
        assert_eq!((c.active_pages(), c.lru.evictable()), (1, 0));
        assert!(c.may_make_room(), "an active page: room may be made");
        assert_eq!(c.allocate_run(0, 5000, 1, 7, 0..0, None, false), 1, "may_make_room said there was room");
        // the active page was the victim: now every page is in flight, and no room is promised
        assert_eq!((c.active_pages(), c.lru.evictable()), (0, 0));
        assert!(!c.may_make_room());
        assert_eq!(c.allocate_run(0, 5001, 1, 7, 0..0, None, false), 0);
    }

    /// `allocate_run` against page by page under both list balances, with
    /// active pages, in-flight and pinned ones, lists shorter and longer than
    /// 4,096 pages (a review's check).
    #[test]
    fn allocate_run_is_page_by_page_under_both_list_balances() {
        for proportional in [false, true] {
            for cap in [12u64, 9000] {
                let setup = || {
                    let mut c = PageCache::new(cap, &[20_000, 20_000])
                        .use_once(true)
                        .proportional_balance(proportional);
                    for p in 0..cap {
                        let s = c.allocate(1, p, 9, p % 2 == 0, false);
                        if p % 7 != 2 {
                            c.complete(s);
                        }
                        if p % 3 == 0 && p % 7 != 2 {
                            c.access(s, true);
                            c.access(s, true);
                        }
                    }
                    c.pin(c.lookup(1, 4));
                    c
                };
                for (first, n, demand) in
                    [(0, 3, 0..1), (10, 80, 10..12), (200, 5000, 200..210), (9000, 20, 0..0)]
                {
                    let (run, one) = run_and_page_by_page(&setup, first, n, demand);
                    assert_eq!(run.activations(), one.activations(), "{proportional} {cap} run at {first}");
                    assert_eq!(run.active_pages(), one.active_pages());
                }
            }
        }
    }

    /// `allocate_run` does what `make_room` + `allocate` do page by page:
    /// same evictions (skipping in-flight and pinned pages), same stop for
    /// a prefetch without room, demand pages over budget.
    #[test]
    fn allocate_run_matches_page_by_page() {
        let setup = || {
            let mut c = PageCache::new(6, &[40, 40]);
            for p in 0..6 {
                let s = c.allocate(1, p, 9, p % 2 == 0, false);
                if p != 2 {
                    c.complete(s); // page 2 stays in flight
                }
            }
            c.pin(c.lookup(1, 4));
            c
        };
        for (first, n, demand) in [(0, 3, 0..1), (10, 8, 10..12), (20, 9, 20..29), (30, 2, 0..0)] {
            run_and_page_by_page(&setup, first, n, demand);
        }
    }

    /// Pages `first..first + n` of file 0 allocated by `allocate_run` in one
    /// cache from `setup` and by `make_room` + `allocate` page by page in
    /// another (the page-by-page reference: a prefetch stops without room,
    /// `demand` pages go over budget; page `first + 1` gets the marker):
    /// asserts the two allocate as many pages, evict the same, count the same
    /// and cache the same pages of files 0 and 1; gives both caches.
    fn run_and_page_by_page(
        setup: &dyn Fn() -> PageCache,
        first: u64,
        n: u64,
        demand: std::ops::Range<u64>,
    ) -> (PageCache, PageCache) {
        let mut run = setup();
        let mut one = setup();
        let got = run.allocate_run(0, first, n, 5, demand.clone(), Some(first + 1), false);
        let mut want = 0;
        for p in first..first + n {
            let (_, room) = one.make_room();
            if !room && !demand.contains(&p) {
                break;
            }
            one.allocate(0, p, 5, !demand.contains(&p), p == first + 1);
            want += 1;
        }
        assert_eq!(got, want, "run at {first}");
        assert_eq!(run.stats, one.stats, "run at {first}");
        assert_eq!(run.pages_in_use(), one.pages_in_use());
        for f in 0..2 {
            for p in 0..run.file_base.get(1).map_or(0, |&b| b).max(first + n) {
                assert_eq!(run.is_cached(f, p), one.is_cached(f, p), "run at {first}: file {f} page {p}");
            }
        }
        (run, one)
    }
}
