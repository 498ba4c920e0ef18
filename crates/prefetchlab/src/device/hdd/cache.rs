//! The on-drive segment cache (models.md §1.7, DiskSim's model): N
//! segments, each one logically sequential run `[start, end)` of at most
//! `size` blocks; replacement is least-recently-used. The segments live in
//! a fixed array allocated once, so nothing on the request path allocates.

/// One cache segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    /// Last use (a request counter), for LRU.
    pub stamp: u64,
}

impl Segment {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }
    #[inline]
    pub fn contains(&self, lba: u64, n: u64) -> bool {
        !self.is_empty() && self.start <= lba && lba + n <= self.end
    }
}

/// The segment array.
#[derive(Debug, Clone)]
pub struct SegCache {
    segs: Vec<Segment>,
    pub size_blocks: u64,
    clock: u64,
}

impl SegCache {
    pub fn new(segments: usize, size_blocks: u64) -> Self {
        SegCache {
            segs: vec![Segment::default(); segments.max(1)],
            size_blocks: size_blocks.max(1),
            clock: 0,
        }
    }

    /// The segment holding all of `[lba, lba+n)`, if any.
    #[inline]
    pub fn find_whole(&self, lba: u64, n: u64) -> Option<usize> {
        self.segs.iter().position(|s| s.contains(lba, n))
    }

    /// The segment holding `lba` (partial hit), if any.
    #[inline]
    pub fn find_start(&self, lba: u64) -> Option<usize> {
        self.segs.iter().position(|s| !s.is_empty() && s.start <= lba && lba < s.end)
    }

    #[inline]
    pub fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.segs[i].stamp = self.clock;
    }

    /// A segment for new data starting at `lba`: one that ends exactly at
    /// `lba` (a sequential stream continues in its segment), else the least
    /// recently used one. `except` is never chosen (the active read-ahead).
    pub fn choose(&mut self, lba: u64, except: Option<usize>) -> usize {
        if let Some(i) = self.segs.iter().position(|s| !s.is_empty() && s.end == lba) {
            return i;
        }
        let mut best = 0usize;
        let mut best_stamp = u64::MAX;
        for (i, s) in self.segs.iter().enumerate() {
            if Some(i) == except && self.segs.len() > 1 {
                continue;
            }
            let st = if s.is_empty() { 0 } else { s.stamp };
            if st < best_stamp {
                best_stamp = st;
                best = i;
            }
        }
        best
    }

    #[inline]
    pub fn get(&self, i: usize) -> Segment {
        self.segs[i]
    }

    /// Sets segment `i` to `[start, end)`, keeping at most `size_blocks`
    /// (the oldest blocks are dropped).
    #[inline]
    pub fn set(&mut self, i: usize, start: u64, end: u64) {
        let start = start.max(end.saturating_sub(self.size_blocks));
        self.segs[i].start = start;
        self.segs[i].end = end;
        self.touch(i);
    }

    /// Extends segment `i` to `end` (read-ahead), dropping the oldest blocks
    /// beyond the segment size.
    #[inline]
    pub fn extend(&mut self, i: usize, end: u64) {
        let s = &mut self.segs[i];
        if end > s.end {
            s.end = end;
            s.start = s.start.max(end.saturating_sub(self.size_blocks));
        }
    }

    /// Drops every cached block of `[lba, lba+n)` from the segments other
    /// than `keep` (stale after a write).
    pub fn invalidate(&mut self, lba: u64, n: u64, keep: Option<usize>) {
        let e = lba + n;
        for (i, s) in self.segs.iter_mut().enumerate() {
            if Some(i) == keep || s.is_empty() || s.end <= lba || e <= s.start {
                continue;
            }
            // keep the longer side that does not overlap
            let left = lba.saturating_sub(s.start);
            let right = s.end.saturating_sub(e);
            if left >= right {
                s.end = lba.max(s.start);
            } else {
                s.start = e;
            }
        }
    }

    pub fn clear(&mut self) {
        for s in &mut self.segs {
            *s = Segment::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lru_and_sequential_choice() {
        let mut c = SegCache::new(2, 100);
        let a = c.choose(0, None);
        c.set(a, 0, 10);
        let b = c.choose(500, None);
        assert_ne!(a, b);
        c.set(b, 500, 510);
        assert_eq!(c.choose(10, None), a); // continues the stream
        c.touch(a);
        assert_eq!(c.choose(900, None), b); // LRU
        assert_eq!(c.find_whole(2, 5), Some(a));
        assert_eq!(c.find_whole(8, 5), None);
        assert_eq!(c.find_start(8), Some(a));
    }

    #[test]
    fn size_limit_and_invalidate() {
        let mut c = SegCache::new(1, 8);
        c.set(0, 0, 4);
        c.extend(0, 20);
        assert_eq!(c.get(0), Segment { start: 12, end: 20, stamp: c.get(0).stamp });
        c.invalidate(10, 4, None);
        assert_eq!((c.get(0).start, c.get(0).end), (14, 20));
    }
}
