//! The array cache: a block-granular cache in the RAID layer with its own
//! memory budget and LRU, keeping the same prefetched/used bookkeeping as the
//! page cache. Block-level prefetching policies ([`crate::policy::block`])
//! live here.
//!
//! Array blocks are many (a 5-disk array of 73 GB drives has ~90 M), so the
//! index is a hash map of aligned block groups rather than a flat table
//! ([`BlockMap`]): arrays are read and prefetched in runs, and a run costs
//! one lookup per 16-block group it touches, not one per block.
//!
//! The timed engine fills a block through an I/O ([`ArrayCache::allocate`],
//! then [`ArrayCache::complete`]); the cache-only mode
//! ([`crate::cache_only`]) has no clock, so its blocks arrive at once
//! ([`ArrayCache::fill`]).

use crate::cache::block_map::BlockMap;
use crate::cache::lru::{flag, Evicted, LruSlots, NONE};
use std::collections::VecDeque;

/// Array-cache counters (blocks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ArrayCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub prefetched: u64,
    pub prefetch_used: u64,
    pub wasted: u64,
}

/// Blocks in flight moved from the LRU end per eviction, at most (Linux's
/// `SWAP_CLUSTER_MAX`).
pub const RECLAIM_BATCH: u32 = 32;

pub struct ArrayCache {
    /// The slots, each with a block policy's word ([`ArrayCache::word`]).
    lru: LruSlots<u64>,
    index: BlockMap<u32>,
    pub stats: ArrayCacheStats,
    /// Write-back: dirty blocks held now.
    dirty_blocks: u64,
    /// Write-back: blocks in the order they became dirty (an entry may be
    /// stale: written back or evicted since; checked when popped).
    dirty_order: VecDeque<u64>,
    /// Write-back: dirty blocks evicted, to be written to the disks.
    dirty_evicted: Vec<u64>,
    /// Sequential detection (algorithms.md §2, SARC's, decisions.md 6d):
    /// the threshold (0: off, for policies that do not ask) and each slot's
    /// counter, set when its block enters the cache — `min(threshold,
    /// counter(b − 1) + 1)` when block b − 1 is cached, else 1.
    seq_threshold: u8,
    seq: Vec<u8>,
    /// Some slot was ever given a second chance ([`flag::SECOND_CHANCE`]):
    /// evictions look for them (no cost for the policies that never ask).
    second_chance_on: bool,
    /// Blocks moved back to the MRU end by their second chance, for the policy.
    second_chances: Vec<u64>,
    /// Slots whose read has not completed (allocated, not yet uptodate).
    in_flight: u64,
    /// [`ArrayCache::cull_if_words`]'s slots, kept for the next batch.
    cull_slots: Vec<u32>,
}

impl ArrayCache {
    pub fn new(capacity_blocks: u64) -> Self {
        ArrayCache {
            lru: LruSlots::new(capacity_blocks.min(u32::MAX as u64 - 1) as u32),
            index: BlockMap::new(NONE),
            stats: ArrayCacheStats::default(),
            dirty_blocks: 0,
            dirty_order: VecDeque::new(),
            dirty_evicted: Vec::new(),
            seq_threshold: 0,
            seq: Vec::new(),
            second_chance_on: false,
            second_chances: Vec::new(),
            in_flight: 0,
            cull_slots: Vec::new(),
        }
    }

    /// Before an eviction: blocks still being read at the LRU end move to
    /// the MRU end (as Linux puts pages under I/O back at the head of the
    /// list when reclaim meets them), so that the victim is found at the end
    /// at once rather than by walking past every block in flight — under
    /// overload the end fills with them. At most [`RECLAIM_BATCH`] blocks
    /// are moved per eviction (Linux's reclaim scans a batch of
    /// `SWAP_CLUSTER_MAX` = 32 pages and gives up): `false` when no victim
    /// was found (a demand read then goes over the capacity, a prefetch
    /// stops).
    #[inline(always)]
    fn rotate_in_flight_tail(&mut self) -> bool {
        self.in_flight == 0 || self.rotate_in_flight_slow()
    }

    #[inline(never)]
    fn rotate_in_flight_slow(&mut self) -> bool {
        if self.in_flight >= self.lru.in_use() as u64 {
            return false;
        }
        for _ in 0..RECLAIM_BATCH {
            let t = self.lru.tail();
            if self.lru.has(t, flag::UPTODATE) {
                return true;
            }
            self.lru.touch(t);
        }
        self.lru.has(self.lru.tail(), flag::UPTODATE)
    }

    /// Gives the cached `block` one second chance (see [`flag::SECOND_CHANCE`]).
    pub fn give_second_chance(&mut self, block: u64) {
        let slot = self.lookup(block);
        if slot != NONE {
            self.second_chance_on = true;
            self.lru.set(slot, flag::SECOND_CHANCE);
        }
    }

    /// Moves the blocks that used their second chance since the last call into `out`.
    pub fn take_second_chances(&mut self, out: &mut Vec<u64>) {
        out.append(&mut self.second_chances);
    }

    /// Before an eviction: while the victim holds an unused second chance
    /// and was never read, it moves to the MRU end instead.
    #[inline(always)]
    fn honour_second_chances(&mut self) {
        if self.second_chance_on {
            self.move_second_chances_to_mru();
        }
    }

    #[inline(never)]
    fn move_second_chances_to_mru(&mut self) {
        while self.rotate_in_flight_tail() {
            let v = self.lru.tail();
            if v == crate::cache::lru::SENTINEL
                || self.lru.flags(v) & (flag::SECOND_CHANCE | flag::USED) != flag::SECOND_CHANCE
            {
                return;
            }
            self.lru.clear(v, flag::SECOND_CHANCE);
            self.lru.touch(v);
            self.second_chances.push(self.lru.key(v));
        }
    }

    /// Tags the cached `block` as a trigger (the marker flag); no-op when absent.
    pub fn set_tag(&mut self, block: u64) {
        let slot = self.lookup(block);
        if slot != NONE {
            self.lru.set(slot, flag::MARKER);
        }
    }

    /// Whether `block` is cached and tagged; clears the tag.
    pub fn take_tag(&mut self, block: u64) -> bool {
        let slot = self.lookup(block);
        if slot != NONE && self.lru.has(slot, flag::MARKER) {
            self.lru.clear(slot, flag::MARKER);
            return true;
        }
        false
    }

    /// Turns sequential detection on with `threshold` (≥ 1).
    pub fn set_seq_threshold(&mut self, threshold: u8) {
        self.seq_threshold = threshold;
    }

    /// Whether `block` is cached and sequential: its counter reached the
    /// threshold (a miss on it is a *sequential miss*). False with
    /// detection off.
    #[inline]
    pub fn sequential(&self, block: u64) -> bool {
        if self.seq_threshold == 0 {
            return false; // off: no lookup on the per-request path
        }
        let slot = self.lookup(block);
        slot != NONE && self.seq.get(slot as usize) == Some(&self.seq_threshold)
    }

    /// Sets the counter of `block`, just entered in `slot` (detection off:
    /// nothing, inlined).
    #[inline(always)]
    fn entered(&mut self, block: u64, slot: u32) {
        if self.seq_threshold != 0 {
            self.count_sequential(block, slot);
        }
    }

    #[inline(never)]
    fn count_sequential(&mut self, block: u64, slot: u32) {
        let prev = if block > 0 { self.lookup(block - 1) } else { NONE };
        let counter =
            if prev != NONE { self.seq[prev as usize].saturating_add(1).min(self.seq_threshold) } else { 1 };
        if slot as usize >= self.seq.len() {
            self.seq.resize(slot as usize + 1, 0);
        }
        self.seq[slot as usize] = counter;
    }

    /// The block policy's word for the cached `block` (0 when absent or
    /// never set). It lives in the block's slot: a block that leaves and is
    /// brought in again starts at 0 (ASP keeps its prefetch stamps here).
    #[inline]
    pub fn word(&self, block: u64) -> u64 {
        let slot = self.lookup(block);
        if slot == NONE {
            return 0;
        }
        self.lru.word(slot)
    }

    /// Sets the word of the cached `block` (no-op when absent).
    #[inline]
    pub fn set_word(&mut self, block: u64, word: u64) {
        let slot = self.lookup(block);
        if slot != NONE {
            *self.lru.word_mut(slot) = word;
        }
    }

    /// The word of the cached `block` (0 when absent), which becomes 0.
    #[inline]
    pub fn take_word(&mut self, block: u64) -> u64 {
        let slot = self.lookup(block);
        if slot == NONE {
            return 0;
        }
        std::mem::take(self.lru.word_mut(slot))
    }

    /// Sets the word of `slot` (as [`ArrayCache::try_fill`] returned it).
    #[inline]
    pub fn set_slot_word(&mut self, slot: u32, word: u64) {
        *self.lru.word_mut(slot) = word;
    }

    #[inline]
    pub fn lookup(&self, block: u64) -> u32 {
        self.index.get(block)
    }

    #[inline]
    pub fn uptodate(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::UPTODATE)
    }

    #[inline]
    pub fn io(&self, slot: u32) -> u32 {
        self.lru.io(slot)
    }

    /// Evicts the LRU uptodate block if full; `false` if no room can be made.
    pub fn make_room(&mut self) -> (Option<Evicted>, bool) {
        if self.lru.is_full() {
            if !self.rotate_in_flight_tail() {
                return (None, false);
            }
            self.honour_second_chances();
        }
        let (ev, room) = self.lru.make_room();
        if let Some(ev) = ev {
            self.index.remove(ev.key);
            self.stats.wasted += ev.unused_prefetch as u64;
            self.evicted_dirty(&ev);
        }
        (ev, room)
    }

    pub fn allocate(&mut self, block: u64, io: u32, prefetched: bool) -> u32 {
        let flags = if prefetched {
            self.stats.prefetched += 1;
            flag::PREFETCHED
        } else {
            0
        };
        let s = self.lru.insert(block, flags, io);
        self.index.insert(block, s);
        self.entered(block, s);
        self.in_flight += 1;
        s
    }

    pub fn complete(&mut self, slot: u32) {
        if !self.lru.has(slot, flag::UPTODATE) {
            self.in_flight -= 1;
        }
        self.lru.set(slot, flag::UPTODATE);
        self.lru.set_io(slot, NONE);
    }

    /// Brings `block` (absent) in, already uptodate: read by the layer
    /// above at once when a demand miss (`prefetched` false), else a
    /// prefetched block not yet read. Evicts the least recently used block
    /// when full; returns the block's slot and what was evicted (every block
    /// is evictable: none waits for an I/O without a clock).
    #[inline]
    pub fn fill(&mut self, block: u64, prefetched: bool) -> (u32, Option<Evicted>) {
        self.try_fill(block, prefetched).expect("without a clock every block is evictable")
    }

    /// [`Self::fill`] where blocks may be in flight: the slot and what was
    /// evicted, or `None` (nothing changed) when the cache is full of blocks
    /// that cannot be evicted.
    #[inline]
    pub fn try_fill(&mut self, block: u64, prefetched: bool) -> Option<(u32, Option<Evicted>)> {
        let flags = if prefetched { flag::UPTODATE | flag::PREFETCHED } else { flag::UPTODATE | flag::USED };
        let (slot, ev) = if self.lru.is_full() {
            if !self.rotate_in_flight_tail() {
                return None;
            }
            self.honour_second_chances();
            let (slot, ev) = self.lru.replace_victim(block, flags, NONE)?;
            self.index.remove(ev.key);
            self.stats.wasted += ev.unused_prefetch as u64;
            self.evicted_dirty(&ev);
            (slot, Some(ev))
        } else {
            (self.lru.insert(block, flags, NONE), None)
        };
        if prefetched {
            self.stats.prefetched += 1;
        } else {
            self.stats.misses += 1;
        }
        self.index.insert(block, slot);
        self.entered(block, slot);
        Some((slot, ev))
    }

    /// Evicts `block` now if it is cached, uptodate, prefetched and never
    /// read (ASP's culling, [`crate::policy::block::asp`]); returns whether
    /// it did. A culled block counts as a wasted prefetch. A block a reader
    /// waits for (pinned) or holding data the disks lack (dirty) is kept.
    pub fn cull(&mut self, block: u64) -> bool {
        let slot = self.lookup(block);
        slot != NONE && self.cull_slot(slot, block)
    }

    /// [`ArrayCache::cull`] of each `(block, word)` in turn whose block has
    /// the word `word`, appending the blocks culled to `culled`: first every
    /// block's slot is found and its word compared, then the matching ones
    /// are culled. The first pass's loads do not depend on each other, so the
    /// processor overlaps their cache misses (ASP culls blocks prefetched long
    /// ago, whose slots have left its caches); a cull changes no other block's
    /// slot or word, and a freed slot has no flags (a block listed twice is
    /// culled once), so the result is that of culling one by one.
    pub fn cull_if_words(&mut self, due: &[(u64, u64)], culled: &mut Vec<u64>) {
        let mut slots = std::mem::take(&mut self.cull_slots);
        slots.clear();
        slots.extend(due.iter().map(|&(block, word)| {
            let slot = self.lookup(block);
            if slot != NONE && self.lru.word(slot) == word {
                slot
            } else {
                NONE
            }
        }));
        for (&(block, _), &slot) in due.iter().zip(&slots) {
            if slot != NONE && self.cull_slot(slot, block) {
                culled.push(block);
            }
        }
        self.cull_slots = slots;
    }

    fn cull_slot(&mut self, slot: u32, block: u64) -> bool {
        let keep = flag::USED | flag::PINNED | flag::DIRTY;
        if self.lru.flags(slot) & (flag::UPTODATE | flag::PREFETCHED | keep)
            != flag::UPTODATE | flag::PREFETCHED
        {
            return false;
        }
        self.lru.remove(slot);
        self.index.remove(block);
        self.stats.wasted += 1;
        true
    }

    /// Evicts `block` now if it is cached, uptodate and was read (TaP drops
    /// prefetched data once read, [`crate::policy::block::tap`]); returns
    /// whether it did. A block a reader waits for (pinned), holding data the
    /// disks lack (dirty), unread or in flight is kept.
    pub fn drop_read(&mut self, block: u64) -> bool {
        let slot = self.lookup(block);
        if slot == NONE {
            return false;
        }
        let keep = flag::PINNED | flag::DIRTY;
        if self.lru.flags(slot) & (flag::UPTODATE | flag::USED | keep) != flag::UPTODATE | flag::USED {
            return false;
        }
        self.lru.remove(slot);
        self.index.remove(block);
        true
    }

    /// Whether the block carries the readahead marker (array-level readahead).
    #[inline]
    pub fn has_marker(&self, slot: u32) -> bool {
        self.lru.has(slot, flag::MARKER)
    }

    pub fn set_marker(&mut self, slot: u32) {
        self.lru.set(slot, flag::MARKER);
    }

    pub fn clear_marker(&mut self, slot: u32) {
        self.lru.clear(slot, flag::MARKER);
    }

    /// Write-back: the block in `slot` now holds data the disks do not.
    pub fn mark_dirty(&mut self, slot: u32) {
        if !self.lru.has(slot, flag::DIRTY) {
            self.lru.set(slot, flag::DIRTY);
            self.dirty_blocks += 1;
            self.dirty_order.push_back(self.lru.key(slot));
            if self.dirty_order.len() as u64 > 2 * self.lru.capacity() as u64 + 1024 {
                self.compact_dirty_order();
            }
        }
    }

    /// Drops the stale entries of the dirty order (blocks evicted since, or
    /// dirtied again after an eviction: the later entry is kept), so that it
    /// stays within twice the cache's size whatever the trace's length.
    fn compact_dirty_order(&mut self) {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut kept: Vec<u64> = Vec::with_capacity(self.dirty_blocks as usize);
        for &b in self.dirty_order.iter().rev() {
            let slot = self.lookup(b);
            if slot != NONE && self.lru.has(slot, flag::DIRTY) && seen.insert(b) {
                kept.push(b);
            }
        }
        self.dirty_order = kept.into_iter().rev().collect();
    }

    /// Dirty blocks held now.
    pub fn dirty_blocks(&self) -> u64 {
        self.dirty_blocks
    }

    /// The block that became dirty first of those still dirty, now marked
    /// clean (its write-back is the caller's), or `None`.
    pub fn clean_oldest_dirty(&mut self) -> Option<u64> {
        while let Some(b) = self.dirty_order.pop_front() {
            let slot = self.lookup(b);
            if slot != NONE && self.lru.has(slot, flag::DIRTY) {
                self.lru.clear(slot, flag::DIRTY);
                self.dirty_blocks -= 1;
                return Some(b);
            }
        }
        None
    }

    /// Moves the dirty blocks evicted since the last call into `out`.
    pub fn take_dirty_evicted(&mut self, out: &mut Vec<u64>) {
        out.append(&mut self.dirty_evicted);
    }

    fn evicted_dirty(&mut self, ev: &Evicted) {
        if ev.dirty {
            self.dirty_blocks -= 1;
            self.dirty_evicted.push(ev.key);
        }
    }

    /// Blocks it may hold.
    pub fn capacity(&self) -> u64 {
        self.lru.capacity() as u64
    }

    /// Blocks held now.
    pub fn len(&self) -> u64 {
        self.lru.in_use() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.lru.in_use() == 0
    }

    /// A read from above touched the block.
    pub fn access(&mut self, slot: u32) {
        self.stats.prefetch_used += self.lru.access(slot) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_back_keeps_the_dirty_order_and_hands_over_evicted_dirty_blocks() {
        let mut c = ArrayCache::new(2);
        for b in [1, 2] {
            c.fill(b, false);
            let s = c.lookup(b);
            c.mark_dirty(s);
            c.mark_dirty(s); // once only
        }
        assert_eq!(c.dirty_blocks(), 2);
        c.access(c.lookup(1)); // 2 is now the least recently used
        c.fill(3, false); // evicts 2, dirty
        let mut out = Vec::new();
        c.take_dirty_evicted(&mut out);
        assert_eq!((out, c.dirty_blocks()), (vec![2], 1));
        // 2's entry is stale: the oldest dirty block still held is 1
        assert_eq!(c.clean_oldest_dirty(), Some(1));
        assert_eq!((c.clean_oldest_dirty(), c.dirty_blocks()), (None, 0));
    }

    #[test]
    fn only_an_unread_uptodate_prefetched_block_is_culled() {
        let mut c = ArrayCache::new(8);
        c.fill(1, true);
        c.fill(2, true);
        c.fill(3, false);
        let slot = c.allocate(4, 0, true); // in flight
        c.access(c.lookup(2)); // read
        assert!(!c.cull(2) && !c.cull(3) && !c.cull(4) && !c.cull(9));
        assert!(c.cull(1));
        assert_eq!((c.lookup(1), c.len(), c.stats.wasted), (NONE, 3, 1));
        assert!(!c.cull(1), "once");
        c.complete(slot);
        assert!(c.cull(4));
        c.fill(5, true); // the freed slots are reused
        assert_eq!((c.len(), c.stats.prefetched), (3, 4));
    }

    #[test]
    fn a_policy_word_stays_with_its_block_and_a_block_brought_in_again_starts_at_0() {
        let mut c = ArrayCache::new(2);
        assert_eq!(c.word(1), 0);
        c.fill(1, true);
        c.set_word(9, 5); // absent: no-op
        c.set_word(1, 7);
        assert_eq!((c.word(1), c.word(9)), (7, 0));
        c.fill(2, true);
        c.fill(3, true); // evicts 1; its slot goes to 3
        assert_eq!((c.word(1), c.word(3)), (0, 0));
        c.set_word(3, 8);
        assert!(c.cull(3));
        let s = c.allocate(4, 0, true); // the culled slot, in flight
        assert_eq!((c.lookup(4), c.word(4)), (s, 0));
    }

    #[test]
    fn a_batch_of_culls_culls_what_one_by_one_would() {
        // blocks 0..8 prefetched, words 10.., some read, one in flight, one re-stamped
        let fresh = || {
            let mut c = ArrayCache::new(16);
            for b in 0..8 {
                c.fill(b, true);
                c.set_word(b, 10 + b);
            }
            c.access(c.lookup(2)); // read: not culled
            c.set_word(5, 99); // prefetched again since: the old stamp does not match
            let s = c.allocate(8, 3, true); // in flight
            c.set_word(8, 18);
            (c, s)
        };
        let due: Vec<(u64, u64)> = (0..10).map(|b| (b, 10 + b)).chain([(1, 11), (5, 99)]).collect(); // 1 twice
        let (mut one, _) = fresh();
        let mut expected = Vec::new();
        for &(b, w) in &due {
            if one.word(b) == w && one.cull(b) {
                expected.push(b);
            }
        }
        let (mut batch, in_flight) = fresh();
        let mut culled = vec![42];
        batch.cull_if_words(&due, &mut culled);
        assert_eq!(culled, [42, 0, 1, 3, 4, 6, 7, 5]);
        assert_eq!(culled[1..], expected[..]);
        assert_eq!((batch.len(), batch.stats.wasted), (one.len(), one.stats.wasted));
        assert_eq!((batch.lookup(8), batch.lookup(2) != NONE), (in_flight, true));
    }

    #[test]
    fn the_dirty_order_stays_bounded() {
        let mut c = ArrayCache::new(4);
        for b in 0..100_000u64 {
            c.fill(b, false);
            let s = c.lookup(b);
            c.mark_dirty(s); // every block dirtied, evicted dirty 4 blocks later
        }
        assert!(c.dirty_order.len() <= 2 * 4 + 1025, "{}", c.dirty_order.len());
        assert_eq!(c.dirty_blocks(), 4);
        let mut out = Vec::new();
        c.take_dirty_evicted(&mut out);
        assert_eq!(out.len(), 100_000 - 4);
    }

    #[test]
    fn blocks_in_flight_at_the_lru_end_move_to_the_mru_end_and_a_full_cache_of_them_has_no_room() {
        let mut c = ArrayCache::new(3);
        let a = c.allocate(1, 7, false); // in flight
        let b = c.allocate(2, 7, false);
        c.complete(b);
        c.allocate(3, 8, false); // in flight: LRU order 3 2 1, tail 1 in flight
        let (ev, room) = c.make_room();
        assert_eq!((ev.map(|e| e.key), room), (Some(2), true), "the in-flight 1 is passed over");
        assert_eq!(c.lookup(1), a);
        c.allocate(4, 9, false);
        let (ev, room) = c.make_room();
        assert_eq!((ev, room), (None, false), "every block in flight: no victim");
        c.complete(a);
        assert_eq!(c.make_room().0.map(|e| e.key), Some(1));
    }
}
