//! SP, strip prefetching (Baek & Park, USENIX ATC 2008; algorithms.md §5.1):
//! on a miss, the whole strip holding each missing block is read — its
//! missing blocks, as one disk request with the demand read (a strip is
//! contiguous on one disk), the others tagged prefetched. The head is
//! already there, so the extra cost is small and no request is split; the
//! price is accuracy, left to the cache.

use super::{BlockAccess, BlockContext, BlockPrefetch, Geometry};

/// SP.
pub struct StripPrefetch {
    geometry: Geometry,
    strip_reads: u64,
}

impl StripPrefetch {
    pub fn new(geometry: Geometry) -> StripPrefetch {
        StripPrefetch { geometry, strip_reads: 0 }
    }
}

impl BlockPrefetch for StripPrefetch {
    fn on_access(&mut self, ctx: &mut dyn BlockContext, a: BlockAccess) {
        if a.hit {
            return;
        }
        let sb = self.geometry.strip_blocks();
        for s in self.geometry.strip_of(a.first_miss)..=self.geometry.strip_of(a.miss_end - 1) {
            if ctx.prefetch(s * sb, sb) > 0 {
                self.strip_reads += 1;
            }
        }
    }
    fn state_json(&self) -> serde_json::Value {
        serde_json::json!({ "strip_prefetches": self.strip_reads, "strip_blocks": self.geometry.strip_blocks() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::layout::ArrayLayout;
    use crate::config::Layout;
    use crate::policy::block::sets::double::Cache;

    #[test]
    fn a_miss_reads_the_rest_of_each_strip_it_touches() {
        let g = Geometry::new(ArrayLayout::new(Layout::Raid5, 5, 16, 1 << 20).unwrap(), 4096, u64::MAX);
        let mut sp = StripPrefetch::new(g);
        let mut c = Cache::new();
        let a = c.demand(0, 20, 2);
        sp.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(16, 16)], "strip 1 is blocks 16..32");
        let a = c.demand(0, 24, 1);
        sp.on_access(&mut c, a);
        assert_eq!(c.reads.len(), 1, "a hit reads nothing");
        let a = c.demand(0, 30, 4); // 32, 33 missing: strip 2
        sp.on_access(&mut c, a);
        assert_eq!(c.reads, vec![(16, 16), (34, 14)]);
    }
}
