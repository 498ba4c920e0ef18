//! A map from block to a small value over a large, sparse block space: the
//! array cache's block → slot index (a 5-disk array of 73 GB drives has
//! ~90 M blocks, too many for a flat table), and the per-block tables of
//! the block policies (ASP's ghosts and gate shadow).
//!
//! Blocks are kept in aligned *groups* of [`GROUP_BLOCKS`] (64 KiB of 4 KiB
//! blocks, a common strip): a hash map finds a group, and the group's 16
//! values lie side by side (64 bytes of `u32` slots for the array cache).
//! Arrays are read and prefetched in runs — a strip at a time for SP, a
//! window for readahead, a stripe for MSP — and the last two groups found
//! are remembered, so a run costs one hash lookup per group it touches
//! instead of one per block, even while another run leaves (a cache filling
//! one strip as it evicts another). A scattered block costs what a map of
//! blocks would (one lookup), and in the worst case (every group holding one
//! block) a whole group's values of memory.
//!
//! The map hashes with rustc-hash's multiply-rotate: block numbers are not
//! adversarial, and the std hasher's SipHash costs more than the rest of a
//! lookup.

use rustc_hash::FxHashMap;
use std::cell::Cell;

/// Blocks per group, a power of two.
pub const GROUP_BLOCKS: u64 = 16;
const GROUP_SHIFT: u32 = GROUP_BLOCKS.trailing_zeros();

/// No group remembered.
const NO_GROUP: u64 = u64::MAX;

/// Block → `V`; a block not held maps to the map's `empty` value, which is
/// never stored.
pub struct BlockMap<V> {
    empty: V,
    /// Group number (block / GROUP_BLOCKS) → its place in `values`.
    groups: FxHashMap<u64, u32>,
    /// `place · GROUP_BLOCKS + block's offset in its group` → value or `empty`.
    values: Vec<V>,
    /// Blocks held per place.
    held: Vec<u8>,
    /// Places no group holds.
    free: Vec<u32>,
    len: usize,
    /// The last two groups found (number, or `NO_GROUP`, and place), the
    /// most recent first.
    last: [Cell<(u64, u32)>; 2],
}

impl<V: Copy + PartialEq> BlockMap<V> {
    /// An empty map whose absent blocks read as `empty`.
    pub fn new(empty: V) -> BlockMap<V> {
        BlockMap {
            empty,
            groups: FxHashMap::default(),
            values: Vec::new(),
            held: Vec::new(),
            free: Vec::new(),
            len: 0,
            last: [Cell::new((NO_GROUP, 0)), Cell::new((NO_GROUP, 0))],
        }
    }

    /// Blocks held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The place of `group`, if some block of it is held. The check of the
    /// last group found is inlined; the rest (the hash map) is not, so that
    /// a run's blocks after its first cost a compare.
    #[inline(always)]
    fn place(&self, group: u64) -> Option<u32> {
        let (g, p) = self.last[0].get();
        if g == group {
            return Some(p);
        }
        self.place_slow(group)
    }

    #[inline(never)]
    fn place_slow(&self, group: u64) -> Option<u32> {
        let (g1, p1) = self.last[1].get();
        let p = if g1 == group { p1 } else { *self.groups.get(&group)? };
        self.remember(group, p);
        Some(p)
    }

    #[inline]
    fn remember(&self, group: u64, place: u32) {
        self.last[1].set(self.last[0].get());
        self.last[0].set((group, place));
    }

    /// Forgets `group` if remembered (it no longer holds a place).
    #[inline]
    fn forget(&self, group: u64) {
        for l in &self.last {
            if l.get().0 == group {
                l.set((NO_GROUP, 0));
            }
        }
    }

    #[inline]
    fn split(block: u64) -> (u64, usize) {
        (block >> GROUP_SHIFT, (block & (GROUP_BLOCKS - 1)) as usize)
    }

    /// `block`'s value, or `empty`.
    #[inline(always)]
    pub fn get(&self, block: u64) -> V {
        if self.len == 0 {
            return self.empty;
        }
        let (group, i) = Self::split(block);
        match self.place(group) {
            Some(p) => self.values[p as usize * GROUP_BLOCKS as usize + i],
            None => self.empty,
        }
    }

    /// Whether `block` is held.
    #[inline]
    pub fn contains(&self, block: u64) -> bool {
        self.get(block) != self.empty
    }

    /// A place for `group`, which holds none.
    #[inline(never)]
    fn new_group(&mut self, group: u64) -> u32 {
        let p = self.free.pop().unwrap_or_else(|| {
            self.held.push(0);
            self.values.resize(self.values.len() + GROUP_BLOCKS as usize, self.empty);
            (self.held.len() - 1) as u32
        });
        self.groups.insert(group, p);
        self.remember(group, p);
        p
    }

    /// `group`, at `place`, holds no block any more.
    #[inline(never)]
    fn drop_group(&mut self, group: u64, place: u32) {
        self.groups.remove(&group);
        self.free.push(place);
        self.forget(group);
    }

    /// Maps `block` to `value`; returns the value it had, or `empty`. The
    /// `empty` value itself is never stored (the callers' encodings keep it
    /// apart: slots are never `NONE`, stamps start at 1).
    #[inline(always)]
    pub fn insert(&mut self, block: u64, value: V) -> V {
        debug_assert!(value != self.empty);
        let (group, i) = Self::split(block);
        let p = match self.place(group) {
            Some(p) => p,
            None => self.new_group(group),
        };
        let cell = &mut self.values[p as usize * GROUP_BLOCKS as usize + i];
        let old = std::mem::replace(cell, value);
        if old == self.empty {
            self.held[p as usize] += 1;
            self.len += 1;
        }
        old
    }

    /// Takes `block` out; returns the value it had, or `empty`.
    #[inline(always)]
    pub fn remove(&mut self, block: u64) -> V {
        if self.len == 0 {
            return self.empty;
        }
        let (group, i) = Self::split(block);
        let Some(p) = self.place(group) else { return self.empty };
        let value = std::mem::replace(&mut self.values[p as usize * GROUP_BLOCKS as usize + i], self.empty);
        if value != self.empty {
            self.len -= 1;
            self.held[p as usize] -= 1;
            if self.held[p as usize] == 0 {
                self.drop_group(group, p);
            }
        }
        value
    }

    /// Keeps the blocks for which `keep(block, value)` is true; forgets the
    /// others (a sweep: it visits every group held).
    pub fn retain(&mut self, mut keep: impl FnMut(u64, V) -> bool) {
        let (values, held, free, empty) = (&mut self.values, &mut self.held, &mut self.free, self.empty);
        let mut dropped = 0;
        self.groups.retain(|&group, &mut place| {
            let first = place as usize * GROUP_BLOCKS as usize;
            for (i, v) in values[first..first + GROUP_BLOCKS as usize].iter_mut().enumerate() {
                if *v != empty && !keep(group << GROUP_SHIFT | i as u64, *v) {
                    *v = empty;
                    held[place as usize] -= 1;
                    dropped += 1;
                }
            }
            if held[place as usize] == 0 {
                free.push(place);
                return false;
            }
            true
        });
        self.len -= dropped;
        for l in &self.last {
            if l.get().0 != NO_GROUP && !self.groups.contains_key(&l.get().0) {
                l.set((NO_GROUP, 0));
            }
        }
    }

    /// Forgets every block.
    pub fn clear(&mut self) {
        self.groups.clear();
        self.values.clear();
        self.held.clear();
        self.free.clear();
        self.len = 0;
        for l in &self.last {
            l.set((NO_GROUP, 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const NONE: u32 = u32::MAX;

    #[test]
    fn agrees_with_a_map_of_blocks_under_churn() {
        // runs and scattered blocks, inserted, replaced and removed
        let mut idx = BlockMap::new(NONE);
        let mut reference: HashMap<u64, u32> = HashMap::new();
        let mut x: u64 = 12345;
        for step in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let block = if x.is_multiple_of(3) { x % 5000 } else { (x >> 8) % 64 + 1_000_000 };
            if x % 5 < 3 {
                assert_eq!(idx.insert(block, step), reference.insert(block, step).unwrap_or(NONE));
            } else {
                assert_eq!(idx.remove(block), reference.remove(&block).unwrap_or(NONE));
            }
            assert_eq!(idx.get(block), reference.get(&block).copied().unwrap_or(NONE));
            assert_eq!(idx.get(block ^ 1), reference.get(&(block ^ 1)).copied().unwrap_or(NONE));
            assert_eq!(idx.len(), reference.len());
        }
        for (&b, &s) in &reference {
            assert_eq!(idx.get(b), s);
        }
    }

    #[test]
    fn an_emptied_group_gives_back_its_place() {
        let mut idx = BlockMap::new(NONE);
        for b in 0..GROUP_BLOCKS {
            idx.insert(b, b as u32);
        }
        idx.insert(GROUP_BLOCKS * 7, 99);
        for b in 0..GROUP_BLOCKS {
            assert_eq!(idx.remove(b), b as u32);
        }
        assert_eq!((idx.get(3), idx.len(), idx.free.len()), (NONE, 1, 1));
        assert!(!idx.contains(3) && idx.contains(GROUP_BLOCKS * 7));
        idx.insert(GROUP_BLOCKS * 9 + 2, 5); // reuses the place
        assert_eq!((idx.held.len(), idx.get(GROUP_BLOCKS * 9 + 2), idx.get(GROUP_BLOCKS * 7)), (2, 5, 99));
        assert_eq!(idx.remove(u64::MAX), NONE);
        assert_eq!(idx.get(u64::MAX), NONE);
        idx.clear();
        assert_eq!((idx.get(GROUP_BLOCKS * 7), idx.len()), (NONE, 0));
    }

    #[test]
    fn retain_keeps_what_is_asked_and_gives_back_emptied_groups() {
        let mut idx = BlockMap::new(NONE);
        for b in 0..3 * GROUP_BLOCKS {
            idx.insert(b, b as u32);
        }
        // group 0 is remembered
        assert_eq!(idx.get(5), 5);
        // keep the even blocks of group 0 and group 2 whole; group 1 empties
        idx.retain(|b, v| {
            assert_eq!(b as u32, v);
            (b < GROUP_BLOCKS && b % 2 == 0) || b >= 2 * GROUP_BLOCKS
        });
        assert_eq!((idx.len(), idx.free.len()), (GROUP_BLOCKS as usize / 2 + GROUP_BLOCKS as usize, 1));
        assert_eq!(
            (idx.get(4), idx.get(5), idx.get(GROUP_BLOCKS + 3), idx.get(2 * GROUP_BLOCKS + 9)),
            (4, NONE, NONE, 41)
        );
        idx.insert(GROUP_BLOCKS + 1, 7); // the emptied group's place is reused
        assert_eq!((idx.get(GROUP_BLOCKS + 1), idx.held.len()), (7, 3));
    }
}
