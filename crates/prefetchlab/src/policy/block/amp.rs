//! AMP, adaptive multi-stream prefetching (Gill & Bathen, FAST 2007;
//! algorithms.md §7.2, decisions.md 6–6d), in the array cache's single LRU.
//!
//! Each *prefetched set* (the blocks one prefetch read) carries the degree
//! `p` and trigger distance `g` of its stream on its **last block** — no
//! per-stream table, so any number of streams is tracked:
//! * a **sequential miss** on `x` (the array cache's detection, `x − 1`
//!   cached) reads the request and `p` more blocks in one read, `p` taken
//!   from the set ending at `x − 1` (the read size when `x − 1` ends no set);
//! * when `p > apt` (asynchronous prefetching on, `array_cache.amp.apt`,
//!   4) the block `last − g` of the new set is tagged (the first block
//!   after the request it was read with, when fewer than `g + 1` follow
//!   it; an asynchronous set's first block, when it is that short), `g`
//!   starting at `apt / 2`; a **hit on a tag** reads the next `p` blocks after the set's
//!   last cached block, a new set inheriting `p` and `g`;
//! * a **hit on the last block of a set** not marked *old* raises the
//!   stream's `p` by the read size (up to `array_cache.max_degree`, 256);
//! * the last block of a set gets one **second chance**: reaching the LRU
//!   end unread it moves to the MRU end, is marked old, and the stream's
//!   `p` drops by 1 (at least 1) and `g` to `max(0, min(g − 1, p − 1))`
//!   (decisions.md 6b, 6c). `amp.second_chance = "any"` gives every block
//!   of a set that second chance, each lowering `p` (the other reading of
//!   algorithms.md §10.6, the third-party code's): the decrease then
//!   follows the blocks wasted, not the sets late;
//! * when a read completes and a request was **already waiting** for it
//!   (`readWaiting`) the prefetch came too late: `g += 1`, `g ≤ p − 1`.
//!   Our reading of "waiting for the first page of the set": a read that
//!   found *any* block of the set in flight after the set's read was sent
//!   (a stream reaches a set at its first block); the demand read a
//!   synchronous set was folded into does not count, as it was never late.
//!   Timed runs only: the cache-only mode has no clock, so there `g` only
//!   falls (as in the third-party code algorithms.md §7.2 cites).
//!
//! "The stream's p" is the newest set's: a set continued by a later one
//! records the later one's last block, and the changes go to the end of
//! that chain. A new set continues the chain of the set holding the block
//! before it (a synchronous set, of `x − 1`; an asynchronous one, of the
//! block before its first, which is a later set of the stream's rather than
//! the set of the trigger when a read after a miss inside that set came
//! first), so a stream keeps one chain.

use super::sets::{degree_histogram, read_ahead, read_set_with_demand, trigger, SetIndex};
use super::{BlockAccess, BlockContext, BlockPrefetch};
use crate::config::SecondChance;
use rustc_hash::FxHashMap;

/// No block.
const NO_SET: u64 = u64::MAX;
/// The longest chain of sets followed to a stream's newest (a stream has a
/// few sets in the cache; the bound only keeps a pathological trace cheap).
const MAX_CHAIN: usize = 64;

/// What the last block of a prefetched set carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct SetMeta {
    p: u32,
    g: u32,
    /// The second chance was used.
    old: bool,
    /// The last block of the set that continued this one, or `NO_SET`.
    next: u64,
}

/// Counters for the state report.
#[derive(Debug, Clone, Copy, Default)]
struct Counters {
    sync_reads: u64,
    async_reads: u64,
    p_increments: u64,
    p_decrements: u64,
    g_increments: u64,
    g_decrements: u64,
}

/// AMP.
pub struct Amp {
    apt: u32,
    max_degree: u32,
    second_chance: SecondChance,
    /// The prefetched sets, by their last block.
    sets: SetIndex<SetMeta>,
    /// Tagged block → the last block of its set.
    triggers: FxHashMap<u64, u64>,
    n: Counters,
    /// Reused: the blocks a synchronous read brought in.
    brought: Vec<u64>,
}

impl Amp {
    pub fn new(apt: u64, max_degree: u64, second_chance: SecondChance) -> Amp {
        Amp {
            apt: apt.min(u32::MAX as u64) as u32,
            max_degree: max_degree.min(u32::MAX as u64) as u32,
            second_chance,
            sets: SetIndex::default(),
            triggers: FxHashMap::default(),
            n: Counters::default(),
            brought: Vec::new(),
        }
    }

    /// The last block of the newest set of the stream whose set ends at `last`.
    fn newest(&self, mut last: u64) -> u64 {
        for _ in 0..MAX_CHAIN {
            match self.sets.get(last) {
                Some(m) if m.next != NO_SET && self.sets.get(m.next).is_some() => last = m.next,
                _ => break,
            }
        }
        last
    }

    /// Records a set just read, `[first, last]`, with the stream's `p` and
    /// `g`: tags its trigger when asynchronous prefetching is on, gives its
    /// last block a second chance (under `"any"`, every block in `read`, the
    /// blocks the read brought in: not the cached ones it passed over, which
    /// had their own), and links the set it continues. `ahead` is the first
    /// block of the set after the request it was read with (`first` for an
    /// asynchronous set): the stream has not read it yet.
    fn new_set(
        &mut self,
        ctx: &mut dyn BlockContext,
        (first, ahead, last): (u64, u64, u64),
        p: u32,
        g: u32,
        continues: Option<u64>,
        read: impl Iterator<Item = u64>,
    ) {
        // g only matters once asynchronous prefetching is on: kept as it
        // started (apt / 2) until then, and below p after
        let g = if p > self.apt { g.min(p - 1) } else { g };
        self.sets.insert(first, last, SetMeta { p, g, old: false, next: NO_SET });
        if let Some(prev) = continues.and_then(|c| self.sets.get_mut(c)) {
            prev.next = last;
        }
        if p > self.apt {
            let trigger = trigger(ahead, last, g as u64);
            ctx.set_tag(trigger);
            self.triggers.insert(trigger, last);
        }
        match self.second_chance {
            SecondChance::Last => ctx.give_second_chance(last),
            SecondChance::Any => read.for_each(|b| ctx.give_second_chance(b)),
        }
    }
}

impl BlockPrefetch for Amp {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        let readsize = a.blocks.min(u32::MAX as u64) as u32;
        for b in a.block..a.end() {
            // a hit on a trigger: the next set, asynchronously
            if let Some(last) = self.triggers.remove(&b) {
                if ctx.take_tag(b) {
                    if let Some(&m) = self.sets.get(last) {
                        self.n.async_reads += 1;
                        if let Some(set) = read_ahead(ctx, last, m.p as u64) {
                            // the new set follows the set holding the block before it, at
                            // the end of that set's chain: a later set of the stream (a
                            // synchronous read after a miss inside this one) when the read
                            // passed over it, else this one
                            let follows = self.sets.holding(set.0 - 1).map_or(last, |l| self.newest(l));
                            self.new_set(ctx, (set.0, set.0, set.1), m.p, m.g, Some(follows), set.0..=set.1);
                        }
                    }
                }
            }
            // a hit on the last block of a set, not old: p grows
            if !(a.first_miss..a.miss_end).contains(&b) {
                if let Some(m) = self.sets.get(b) {
                    if !m.old {
                        let cur = self.newest(b);
                        let m = self.sets.get_mut(cur).expect("newest is a set");
                        let grown = (m.p.saturating_add(readsize)).min(self.max_degree);
                        if grown > m.p {
                            m.p = grown;
                            self.n.p_increments += 1;
                        }
                    }
                }
            }
        }
        if !a.hit && a.sequential {
            // sequential: x − 1 is cached, so x > 0; p from the set holding x − 1
            let (p, g, continues) = match self.sets.holding(a.first_miss - 1) {
                Some(last) => {
                    let cur = self.newest(last);
                    let m = *self.sets.get(cur).expect("newest is a set");
                    (m.p, m.g, Some(cur))
                }
                None => (readsize.min(self.max_degree).max(1), self.apt / 2, None),
            };
            self.n.sync_reads += 1;
            if let Some(last) = read_set_with_demand(ctx, &a, p as u64, &mut self.brought) {
                // the blocks read: the demand's and those brought in
                let brought = std::mem::take(&mut self.brought);
                let read = (a.first_miss..a.end()).chain(brought.iter().copied());
                self.new_set(ctx, (a.first_miss, a.end(), last), p, g, continues, read);
                self.brought = brought;
            }
        }
    }

    fn on_second_chance(&mut self, _ctx: &mut dyn BlockContext, block: u64) {
        let Some(last) = self.sets.holding(block) else { return };
        let m = self.sets.get_mut(last).expect("holding gives a set");
        if block == last {
            m.old = true;
        }
        let cur = self.newest(last);
        let m = self.sets.get_mut(cur).expect("newest is a set");
        if m.p > 1 {
            m.p -= 1;
            self.n.p_decrements += 1;
        }
        let g = m.g.saturating_sub(1).min(m.p - 1);
        self.n.g_decrements += (g < m.g) as u64;
        m.g = g;
    }

    fn on_complete(&mut self, _ctx: &mut dyn BlockContext, block: u64, blocks: u64, waited: bool) {
        if !waited || blocks == 0 {
            return;
        }
        let last = block + blocks - 1;
        if self.sets.get(last).is_some() {
            let cur = self.newest(last);
            let m = self.sets.get_mut(cur).expect("newest is a set");
            if m.g + 1 < m.p {
                m.g += 1;
                self.n.g_increments += 1;
            }
        }
    }

    fn on_evict(&mut self, ctx: &mut dyn BlockContext, block: u64, _unused: bool) {
        if !ctx.is_cached(block) {
            self.sets.remove(block);
            self.triggers.remove(&block);
        }
    }

    fn uses_sequential_detection(&self) -> bool {
        true
    }

    fn state_json(&self) -> serde_json::Value {
        let n = self.sets.len() as f64;
        let mean = |f: fn(&SetMeta) -> u32| {
            if n > 0.0 {
                self.sets.values().map(|m| f(m) as f64).sum::<f64>() / n
            } else {
                0.0
            }
        };
        serde_json::json!({
            "sets": self.sets.len(),
            "p_mean_blocks": mean(|m| m.p),
            "p_max_blocks": self.sets.values().map(|m| m.p).max().unwrap_or(0),
            "g_mean_blocks": mean(|m| m.g),
            "p_histogram": degree_histogram(self.sets.values().map(|m| m.p as u64)),
            "g_histogram": degree_histogram(self.sets.values().map(|m| m.g as u64 + 1)),
            "sync_prefetches": self.n.sync_reads,
            "async_prefetches": self.n.async_reads,
            "p_increments": self.n.p_increments,
            "p_decrements": self.n.p_decrements,
            "g_increments": self.n.g_increments,
            "g_decrements": self.n.g_decrements,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::sets::double::Cache;

    fn read(amp: &mut Amp, c: &mut Cache, block: u64) {
        let a = c.demand(0, block, 2);
        amp.on_access(c, a);
    }

    /// A synchronous read over the rest of a late set whose last block ends
    /// the range: the new set ends at the last block it read, the late set
    /// keeps its own, and the chain stays a chain (review case).
    #[test]
    fn a_read_over_a_late_sets_last_block_leaves_that_set_its_own() {
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        let mut c = Cache::new();
        c.cached.extend([26, 27, 33]);
        amp.sets.insert(26, 33, SetMeta { p: 4, g: 2, old: true, next: NO_SET });
        read(&mut amp, &mut c, 28); // x − 1 = 27 cached: sequential, p 4 from the set [26, 33]
        assert_eq!(c.reads.last(), Some(&(30, 3)), "30..=32 read, 33 passed over");
        let late = *amp.sets.get(33).expect("the late set stays");
        assert_eq!((late.old, late.next), (true, 32));
        assert_eq!(amp.newest(33), 32);
        assert_eq!(amp.sets.get(32).map(|m| m.p), Some(4));
    }

    #[test]
    fn p_rises_by_the_read_size_on_a_hit_on_a_sets_last_block() {
        let mut c = Cache::new();
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        read(&mut amp, &mut c, 0); // isolated
        read(&mut amp, &mut c, 2); // sequential: p = readsize 2, reads 4..=5
        assert_eq!(c.reads, vec![(4, 2)]);
        assert_eq!(amp.sets.get(5).unwrap().p, 2);
        assert_eq!(c.chances.iter().copied().collect::<Vec<_>>(), vec![5]);
        read(&mut amp, &mut c, 4); // hit on 5, the set's last block: p 2 → 4
        assert_eq!(amp.sets.get(5).unwrap().p, 4);
        read(&mut amp, &mut c, 6); // miss: p 4 from 5's set, reads 8..=11; p = apt: no tag
        assert_eq!(c.reads[1], (8, 4));
        assert!(c.tags.is_empty());
        read(&mut amp, &mut c, 8);
        read(&mut amp, &mut c, 10); // hit on 11: p 4 → 6
        read(&mut amp, &mut c, 12); // p 6 > apt: reads 14..=19, trigger 19 − 2
        assert_eq!(c.reads[2], (14, 6));
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![17]);
        read(&mut amp, &mut c, 14);
        read(&mut amp, &mut c, 16); // the trigger: the next 6 blocks, 20..=25, asynchronously
        assert_eq!(c.reads[3], (20, 6));
        assert_eq!(*amp.sets.get(25).unwrap(), SetMeta { p: 6, g: 2, old: false, next: NO_SET });
        assert_eq!(amp.sets.get(19).unwrap().next, 25);
        read(&mut amp, &mut c, 18); // hit on 19: the stream's p (the newest set's) 6 → 8
        assert_eq!((amp.sets.get(25).unwrap().p, amp.sets.get(19).unwrap().p), (8, 6));
    }

    /// A set with fewer than g + 1 blocks after its request is tagged on the
    /// first of them, not on a block before (another set's, or one the
    /// stream has read).
    #[test]
    fn a_short_sets_trigger_is_its_first_block_ahead_of_the_stream() {
        let mut c = Cache::new();
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        c.cached.extend((30..42).chain(50..58).chain(60..70));
        amp.new_set(&mut c, (40, 40, 41), 8, 5, None, 40..=41); // asynchronous
        assert_eq!(c.tags.iter().copied().collect::<Vec<_>>(), vec![40]);
        assert_eq!(amp.triggers.get(&40), Some(&41));
        amp.new_set(&mut c, (50, 50, 57), 8, 5, None, 50..=57);
        assert!(c.tags.contains(&52), "a whole set: last − g");
        // a synchronous set read with the request 60..=65: 66 and 67 after it
        amp.new_set(&mut c, (60, 66, 67), 8, 5, None, 60..=67);
        assert!(c.tags.contains(&66) && !c.tags.contains(&62), "{:?}", c.tags);
    }

    /// A trigger that fires after a synchronous read inside its set (a miss
    /// on an evicted block) made a later set of the stream: the new set
    /// follows that later one, so the stream keeps one chain and one
    /// current p (before, the set of the trigger was relinked to the new
    /// set, the later one left a chain of its own: 761 times at 100 streams
    /// in fast07).
    #[test]
    fn a_trigger_fired_past_a_later_set_continues_the_streams_chain() {
        let mut c = Cache::new();
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        // the set [10, 20], tagged at 18; a synchronous read 15..=25 continued it
        c.cached.extend(10..=25);
        amp.new_set(&mut c, (10, 10, 20), 8, 2, None, 10..=20);
        assert_eq!(amp.triggers.get(&18), Some(&20));
        amp.new_set(&mut c, (15, 17, 25), 8, 2, Some(20), 15..=25);
        assert_eq!(amp.sets.get(20).unwrap().next, 25);
        let a = c.demand(0, 18, 1);
        amp.on_access(&mut c, a); // the trigger: 8 blocks after the cached run, 26..=33
        assert_eq!(c.reads.last(), Some(&(26, 8)));
        assert_eq!(amp.sets.get(20).unwrap().next, 25, "the set of the trigger keeps its link");
        assert_eq!(amp.sets.get(25).unwrap().next, 33);
        assert_eq!(amp.newest(20), 33);
        // with nothing between, the new set follows the set of the trigger
        let mut c = Cache::new();
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        c.cached.extend(40..=47);
        amp.new_set(&mut c, (40, 40, 47), 8, 2, None, 40..=47);
        let a = c.demand(0, 45, 1);
        amp.on_access(&mut c, a);
        assert_eq!((c.reads.last(), amp.sets.get(47).unwrap().next), (Some(&(48, 8)), 55));
    }

    #[test]
    fn p_falls_by_one_on_the_second_chance_of_an_unused_last_block() {
        let mut c = Cache::new();
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        amp.sets.insert(92, 99, SetMeta { p: 8, g: 3, old: false, next: NO_SET });
        amp.on_second_chance(&mut c, 99);
        assert_eq!(*amp.sets.get(99).unwrap(), SetMeta { p: 7, g: 2, old: true, next: NO_SET });
        // an old last block no longer makes p grow
        c.cached.extend(90..100);
        let a = c.demand(0, 98, 2);
        amp.on_access(&mut c, a);
        assert_eq!(amp.sets.get(99).unwrap().p, 7);
        // g stays below p
        amp.sets.insert(49, 50, SetMeta { p: 2, g: 1, old: false, next: NO_SET });
        amp.on_second_chance(&mut c, 50);
        assert_eq!(*amp.sets.get(50).unwrap(), SetMeta { p: 1, g: 0, old: true, next: NO_SET });
        amp.on_second_chance(&mut c, 50);
        assert_eq!(amp.sets.get(50).unwrap().p, 1, "p stays at least 1");
    }

    #[test]
    fn g_rises_when_a_read_was_waiting_for_a_completed_set() {
        let mut c = Cache::new();
        let mut amp = Amp::new(4, 256, SecondChance::Last);
        amp.sets.insert(20, 25, SetMeta { p: 6, g: 2, old: false, next: NO_SET });
        amp.on_complete(&mut c, 20, 6, false);
        assert_eq!(amp.sets.get(25).unwrap().g, 2);
        for _ in 0..10 {
            amp.on_complete(&mut c, 20, 6, true);
        }
        assert_eq!(amp.sets.get(25).unwrap().g, 5, "g ≤ p − 1");
    }
}
