//! AS_Linear and AS_Exp, adaptive synchronous prefetching (algorithms.md
//! §2; decisions.md 6, 6e): FS whose degree grows with the detected
//! sequence — by the read size per sequential miss (Linear) or doubling
//! (Exp) — starting at the read size, up to `max_degree` (256 blocks by
//! default), and never shrinking.
//!
//! The stream's degree is kept, as AMP keeps its own, on the last block of
//! its latest set (no per-stream table): a sequential miss on `x` continues
//! the set holding `x − 1`.

use super::sets::{degree_histogram, read_set_with_demand, SetIndex};
use super::{BlockAccess, BlockContext, BlockPrefetch};

/// How the degree grows per sequential miss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Growth {
    /// `p += readsize` (AS_Linear).
    Linear,
    /// `p *= 2` (AS_Exp).
    Exp,
}

/// AS_Linear or AS_Exp.
pub struct AdaptiveSync {
    growth: Growth,
    max_degree: u64,
    /// The degree of each set.
    sets: SetIndex<u64>,
    sync_reads: u64,
    reached_max: u64,
    /// Reused: the blocks a read brought in.
    brought: Vec<u64>,
}

impl AdaptiveSync {
    pub fn new(growth: Growth, max_degree: u64) -> AdaptiveSync {
        AdaptiveSync {
            growth,
            max_degree,
            sets: SetIndex::default(),
            sync_reads: 0,
            reached_max: 0,
            brought: Vec::new(),
        }
    }
}

impl BlockPrefetch for AdaptiveSync {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        if a.hit || !a.sequential {
            return;
        }
        let readsize = a.blocks;
        let continued = a.first_miss.checked_sub(1).and_then(|prev| self.sets.holding(prev));
        let p = match continued.and_then(|last| self.sets.remove(last)) {
            Some(p) => match self.growth {
                Growth::Linear => p + readsize,
                Growth::Exp => p * 2,
            },
            None => readsize,
        }
        .min(self.max_degree);
        self.reached_max += (p == self.max_degree) as u64;
        self.sync_reads += 1;
        if let Some(last) = read_set_with_demand(ctx, &a, p, &mut self.brought) {
            self.sets.insert(a.first_miss, last, p);
        }
    }
    fn on_evict(&mut self, ctx: &mut dyn BlockContext, block: u64, _unused: bool) {
        if !ctx.is_cached(block) {
            self.sets.remove(block);
        }
    }
    fn uses_sequential_detection(&self) -> bool {
        true
    }
    fn state_json(&self) -> serde_json::Value {
        let n = self.sets.len() as f64;
        let mean = if n > 0.0 { self.sets.values().sum::<u64>() as f64 / n } else { 0.0 };
        let max = self.sets.values().copied().max().unwrap_or(0);
        serde_json::json!({
            "sync_prefetches": self.sync_reads,
            "prefetches_at_max_degree": self.reached_max,
            "sets": self.sets.len(),
            "p_mean_blocks": mean,
            "p_max_blocks": max,
            "p_histogram": degree_histogram(self.sets.values().copied()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::block::sets::double::Cache;

    fn reads(growth: Growth, max: u64) -> Vec<(u64, u64)> {
        let mut c = Cache::new();
        let mut p = AdaptiveSync::new(growth, max);
        let mut b = 0;
        while b < 200 {
            let a = c.demand(0, b, 2);
            p.on_access(&mut c, a);
            b += 2;
        }
        c.reads
    }

    #[test]
    fn linear_grows_by_the_read_size_and_exp_doubles_up_to_the_maximum() {
        // the first miss (0) is isolated; the second (2) reads 2 more; the
        // next misses come where each set ends
        assert_eq!(reads(Growth::Linear, 256)[..4], [(4, 2), (8, 4), (14, 6), (22, 8)]);
        assert_eq!(reads(Growth::Exp, 256)[..4], [(4, 2), (8, 4), (14, 8), (24, 16)]);
        let capped = reads(Growth::Exp, 8);
        assert!(capped[2..].iter().all(|&(_, n)| n == 8), "{capped:?}");
    }
}
