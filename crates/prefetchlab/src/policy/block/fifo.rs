//! A set of block addresses kept in the order they entered, the oldest
//! leaving first: TaP's detection table, its prefetched blocks and its ghost
//! list ([`super::tap`]). Membership is a hash lookup; an address entering
//! again moves to the newest end. Entries removed out of order stay in the
//! queue as stale ones (recognised by their sequence number) and are skipped
//! when they reach the front; the queue is compacted when stale entries
//! outnumber live ones, so its memory follows the set's size.

use rustc_hash::FxHashMap;
use std::collections::VecDeque;

#[derive(Debug, Default)]
pub struct FifoSet {
    seq: u64,
    /// Address → the sequence number of its live entry.
    live: FxHashMap<u64, u64>,
    /// Entries in the order they entered, stale ones included.
    order: VecDeque<(u64, u64)>,
}

impl FifoSet {
    pub fn new() -> FifoSet {
        FifoSet::default()
    }

    /// Addresses in the set.
    #[inline]
    pub fn len(&self) -> usize {
        self.live.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    #[inline]
    pub fn contains(&self, addr: u64) -> bool {
        self.live.contains_key(&addr)
    }

    /// `addr` enters at the newest end (moving there if it was in).
    pub fn insert(&mut self, addr: u64) {
        self.seq += 1;
        self.live.insert(addr, self.seq);
        self.order.push_back((addr, self.seq));
        if self.order.len() > 2 * self.live.len() + 64 {
            let live = &self.live;
            self.order.retain(|(a, s)| live.get(a) == Some(s));
        }
    }

    /// Whether `addr` was in the set; it leaves it.
    #[inline]
    pub fn remove(&mut self, addr: u64) -> bool {
        !self.live.is_empty() && self.live.remove(&addr).is_some()
    }

    /// How many insertions ago `addr` entered (1: the newest), if it was in
    /// the set; it leaves it.
    pub fn remove_age(&mut self, addr: u64) -> Option<u64> {
        if self.live.is_empty() {
            return None;
        }
        self.live.remove(&addr).map(|s| self.seq - s + 1)
    }

    /// The oldest address, which leaves the set.
    pub fn pop_oldest(&mut self) -> Option<u64> {
        while let Some((a, s)) = self.order.pop_front() {
            if self.live.get(&a) == Some(&s) {
                self.live.remove(&a);
                return Some(a);
            }
        }
        None
    }

    /// Keeps at most `cap` addresses, the oldest leaving first.
    pub fn trim(&mut self, cap: usize) {
        while self.live.len() > cap {
            self.pop_oldest();
        }
    }

    pub fn clear(&mut self) {
        self.live.clear();
        self.order.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_leaves_first_and_reentering_moves_to_the_newest_end() {
        let mut f = FifoSet::new();
        for a in [10, 20, 30] {
            f.insert(a);
        }
        f.insert(10); // 10 is the newest now
        assert!(f.remove(20) && !f.remove(20));
        assert_eq!(f.remove_age(30), Some(2), "30 entered two insertions ago");
        f.insert(30); // the newest now
        assert_eq!(f.len(), 2);
        assert_eq!((f.pop_oldest(), f.pop_oldest(), f.pop_oldest()), (Some(10), Some(30), None));
        for a in 0..10 {
            f.insert(a);
        }
        f.trim(3);
        assert!((0..7).all(|a| !f.contains(a)) && (7..10).all(|a| f.contains(a)));
    }

    #[test]
    fn stale_entries_do_not_pile_up() {
        let mut f = FifoSet::new();
        for a in 0..100_000 {
            f.insert(a);
            f.remove(a);
        }
        assert!(f.is_empty());
        assert!(f.order.len() <= 64 + 1, "the queue was compacted: {}", f.order.len());
    }
}
