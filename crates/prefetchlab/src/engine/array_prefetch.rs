//! The array cache's side of a logical read, and the block policy's view of
//! the array ([`crate::policy::block`]'s module doc: the demand's blocks get
//! slots, the policy has its say — a prefetch touching the demand's unsent
//! read joins it — then the reads are sent), with the policy's hooks:
//! evictions, second chances and completed prefetches; its culls (ASP)
//! evict at once and are not reported back.

use super::{Engine, Fill, Io};
use crate::cache::lru::NONE;
use crate::policy::block::{self as block_policy, BlockAccess, BlockContext};

impl Engine {
    /// The array cache's side of a logical read: hits are served, blocks in
    /// flight are waited for, missing runs get demand fills (held); then the
    /// block policy sees the access and may prefetch, joining the held
    /// fills; then the fills are sent.
    pub(super) fn submit_to_array_cache(&mut self, io: u32) {
        let Io { array_block: b0, blocks: n, stream, .. } = self.ios[io as usize];
        let mut held = std::mem::take(&mut self.held_fills);
        held.clear();
        let mut pending = 0;
        let (mut first_miss, mut miss_end) = (NONE as u64, b0);
        let mut last_fill = NONE;
        let mut b = b0;
        while b < b0 + n {
            let ac = self.array_cache.as_mut().expect("array cache");
            let slot = ac.lookup(b);
            if slot != NONE {
                if ac.uptodate(slot) {
                    ac.stats.hits += 1;
                } else {
                    ac.stats.misses += 1;
                    let fill = ac.io(slot);
                    if fill != last_fill {
                        self.link(io, fill);
                        pending += 1;
                        last_fill = fill;
                    }
                }
                self.array_cache.as_mut().expect("array cache").access(slot);
                b += 1;
                continue;
            }
            let mut m = 1;
            while b + m < b0 + n && ac.lookup(b + m) == NONE {
                m += 1;
            }
            first_miss = first_miss.min(b);
            miss_end = b + m;
            let (fill, _) = self.fill_blocks(stream, b, m, Fill::Demand, NONE);
            self.link(io, fill);
            held.push(fill);
            pending += 1;
            last_fill = fill;
            b += m;
        }
        self.ios[io as usize].pending = pending;
        let hit = first_miss == NONE as u64;
        let first_miss = if hit { b0 } else { first_miss };
        let sequential = self.array_cache.as_ref().is_some_and(|a| a.sequential(first_miss));
        let access = BlockAccess { stream, block: b0, blocks: n, hit, first_miss, miss_end, sequential };
        let mut policy = std::mem::replace(&mut self.block_policy, Box::new(block_policy::NoBlockPrefetch));
        policy.on_access(&mut BlockCtx { e: self, stream, held: &mut held }, access);
        for &fill in &held {
            self.send_to_disks(fill);
        }
        held.clear();
        self.held_fills = held;
        self.block_policy = policy;
        self.block_policy_events(stream);
        if pending == 0 {
            self.complete_io(io);
        }
    }

    /// A fill holding prefetched blocks completed: the policy hears of it.
    pub(super) fn prefetch_done(&mut self, stream: u32, block: u64, blocks: u64, waited: bool) {
        let mut policy = std::mem::replace(&mut self.block_policy, Box::new(block_policy::NoBlockPrefetch));
        policy.on_complete(&mut BlockCtx { e: self, stream, held: &mut Vec::new() }, block, blocks, waited);
        self.block_policy = policy;
        self.block_policy_events(stream);
    }

    /// Delivers the evictions and second chances since the last call to the
    /// block policy (its prefetches from these hooks are sent at once).
    pub(super) fn block_policy_events(&mut self, stream: u32) {
        let stream = if stream == NONE { 0 } else { stream };
        loop {
            let mut chances = std::mem::take(&mut self.second_chances);
            if let Some(ac) = self.array_cache.as_mut() {
                ac.take_second_chances(&mut chances);
            }
            if self.evictions.is_empty() && chances.is_empty() {
                self.second_chances = chances;
                return;
            }
            let mut evictions = std::mem::take(&mut self.evictions);
            let mut policy =
                std::mem::replace(&mut self.block_policy, Box::new(block_policy::NoBlockPrefetch));
            {
                let mut none = Vec::new();
                let mut ctx = BlockCtx { e: self, stream, held: &mut none };
                for &(b, unused) in &evictions {
                    policy.on_evict(&mut ctx, b, unused);
                }
                for &b in &chances {
                    policy.on_second_chance(&mut ctx, b);
                }
            }
            self.block_policy = policy;
            evictions.clear();
            chances.clear();
            // keep the buffers; events the hooks caused go round again
            evictions.append(&mut self.evictions);
            self.evictions = evictions;
            self.second_chances = chances;
        }
    }
}

/// The block policy's view of the array cache during one read.
struct BlockCtx<'a> {
    e: &'a mut Engine,
    stream: u32,
    /// The read's demand fills, not sent yet: a prefetch touching one joins it.
    held: &'a mut Vec<u32>,
}

impl BlockContext for BlockCtx<'_> {
    fn is_cached(&self, block: u64) -> bool {
        self.e.array_cache.as_ref().is_some_and(|a| a.lookup(block) != NONE)
    }

    fn prefetch(&mut self, block: u64, blocks: u64) -> u64 {
        let end = block.saturating_add(blocks).min(self.e.layout.capacity_blocks());
        if block >= end {
            return 0;
        }
        let join = self.held.iter().copied().find(|&f| {
            let x = &self.e.ios[f as usize];
            block <= x.array_block + x.blocks && x.array_block <= end
        });
        let (fill, got) =
            self.e.fill_blocks(self.stream, block, end - block, Fill::Prefetch, join.unwrap_or(NONE));
        if join.is_none() && fill != NONE {
            self.e.send_to_disks(fill);
        }
        got
    }

    fn set_tag(&mut self, block: u64) {
        if let Some(ac) = self.e.array_cache.as_mut() {
            ac.set_tag(block);
        }
    }

    fn take_tag(&mut self, block: u64) -> bool {
        self.e.array_cache.as_mut().is_some_and(|a| a.take_tag(block))
    }

    fn give_second_chance(&mut self, block: u64) {
        if let Some(ac) = self.e.array_cache.as_mut() {
            ac.give_second_chance(block);
        }
    }

    fn cull(&mut self, block: u64) -> bool {
        self.e.array_cache.as_mut().is_some_and(|a| a.cull(block))
    }
    fn drop_read(&mut self, block: u64) -> bool {
        self.e.array_cache.as_mut().is_some_and(|a| a.drop_read(block))
    }
    fn now_ns(&self) -> u64 {
        self.e.events.now_ns()
    }
    fn word(&self, block: u64) -> u64 {
        self.e.array_cache.as_ref().map_or(0, |a| a.word(block))
    }
    fn set_word(&mut self, block: u64, word: u64) {
        if let Some(ac) = self.e.array_cache.as_mut() {
            ac.set_word(block, word);
        }
    }
    fn take_word(&mut self, block: u64) -> u64 {
        self.e.array_cache.as_mut().map_or(0, |a| a.take_word(block))
    }
    fn cull_if_words(&mut self, due: &[(u64, u64)], culled: &mut Vec<u64>) {
        if let Some(a) = self.e.array_cache.as_mut() {
            a.cull_if_words(due, culled);
        }
    }
}
