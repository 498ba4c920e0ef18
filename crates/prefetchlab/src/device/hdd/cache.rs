//! The on-drive segment cache (models.md §1.7; DiskSim's `disksim_diskcache`):
//! `segments` segments, each one logically sequential run `[start, end)`
//! of at most `size` blocks, in a fixed array allocated once (nothing on
//! the request path allocates).
//!
//! A read chooses its segment as DiskSim's `disk_buffer_select_read_segment`
//! does, by value, the highest winning and the least recently used first
//! among equals (DiskSim keeps its list in LRU order, moving a segment to
//! the end whenever a request takes it):
//!
//! | value | segment | hit |
//! |---|---|---|
//! | 11 / 10 | dirty / being written, holding the first block (with `Allow read hits on write data`) | whole or partial |
//! | 9 | being read (read-ahead), holding the first block | whole or partial |
//! | 8 | clean, holding the first block (filled by a read, or read hits on write data allowed) | whole or partial |
//! | 5 | being read, its next block is the first block (`Allow almost read hits`) | partial |
//! | 3 | empty | none |
//! | 2 | clean, not holding the first block | none |
//! | 1 | a pure read-ahead, not holding it | none |
//!
//! A partial hit counts 4 less than the whole hit of the same segment.

/// DiskSim's segment states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SegState {
    #[default]
    Empty,
    Clean,
    /// The read-ahead (or a read) is filling it.
    Reading,
    /// Holds data not yet on the media.
    Dirty,
    /// Its data is being written to the media.
    Writing,
}

/// One cache segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Segment {
    pub start: u64,
    pub end: u64,
    pub state: SegState,
    /// Its last access was a read (DiskSim `seg->access->flags & READ`).
    pub by_read: bool,
    /// LRU order: the smallest is the least recently used.
    pub order: u64,
    /// DiskSim's `maxreadaheadblkno` / `minreadaheadblkno` of the
    /// segment (0: none yet): the read-ahead into it stops there.
    pub ra_limit: u64,
    pub ra_min: u64,
}

impl Segment {
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.state == SegState::Empty || self.end <= self.start
    }
}

/// How much of a request a segment holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HitKind {
    None,
    Whole,
    Partial,
}

/// What a read's segment choice depends on besides the segments.
#[derive(Debug, Clone, Copy, Default)]
pub struct ReadChoice {
    pub almost_read_hits: bool,
    pub read_hits_on_write_data: bool,
    /// The segment a pure read-ahead (no request waiting on it) is filling.
    pub prefetching: Option<usize>,
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
        let n = segments.max(1);
        let segs = (0..n).map(|i| Segment { order: i as u64, ..Segment::default() }).collect();
        SegCache { segs, size_blocks: size_blocks.max(1), clock: n as u64 }
    }

    #[inline]
    pub fn get(&self, i: usize) -> Segment {
        self.segs[i]
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// The segment a read of `[lba, lba + n)` takes, and what it holds
    /// (see the module doc).
    pub fn select_read(&self, lba: u64, n: u64, c: ReadChoice) -> (Option<usize>, HitKind) {
        // one pass; (value, LRU order) decides, the higher value and then
        // the older segment first: one key per segment, the value above
        // the order reversed (orders are distinct), 0 for a segment that
        // cannot take the read
        let prefetching = c.prefetching.unwrap_or(usize::MAX);
        let mut best_key = 0u128;
        let mut best_i = usize::MAX;
        for (i, s) in self.segs.iter().enumerate() {
            let inside = s.start <= lba && lba < s.end;
            let v: u32 = match s.state {
                SegState::Empty => 3,
                SegState::Dirty if inside && c.read_hits_on_write_data => 11,
                SegState::Writing if inside && c.read_hits_on_write_data => 10,
                SegState::Reading if inside => 9,
                SegState::Clean if inside && (c.read_hits_on_write_data || s.by_read) => 8,
                SegState::Clean if !inside => 2,
                SegState::Reading if s.end == lba && c.almost_read_hits => 5,
                SegState::Reading if i == prefetching => 1,
                _ => 0,
            };
            // a segment holding the start but not the end is a partial hit
            let v = if v >= 8 && s.end < lba + n { v - 4 } else { v };
            let key = if v == 0 { 0 } else { ((v as u128) << 64) | (u64::MAX - s.order) as u128 };
            if key > best_key {
                best_key = key;
                best_i = i;
            }
        }
        if best_i == usize::MAX {
            return (None, HitKind::None);
        }
        let hit = match (best_key >> 64) as u32 {
            8..=11 => HitKind::Whole,
            4..=7 => HitKind::Partial, // 5 is an almost hit
            _ => HitKind::None,
        };
        (Some(best_i), hit)
    }

    /// The segment a write takes: one it appends to (being written or
    /// dirty, ending at `lba`), else an empty one, else the least recently
    /// used clean one (DiskSim's write selection without combining
    /// policies beyond appending).
    pub fn select_write(&self, lba: u64, combine: bool) -> Option<usize> {
        let mut best: Option<(i32, u64, usize)> = None;
        for (i, s) in self.segs.iter().enumerate() {
            let v = match s.state {
                SegState::Writing | SegState::Dirty if combine && s.end == lba => 7,
                SegState::Empty => 3,
                SegState::Clean => 2,
                _ => continue,
            };
            let better = match best {
                None => true,
                Some((bv, bo, _)) => v > bv || (v == bv && s.order < bo),
            };
            if better {
                best = Some((v, s.order, i));
            }
        }
        best.map(|b| b.2)
    }

    /// Marks segment `i` most recently used.
    #[inline]
    pub fn touch(&mut self, i: usize) {
        self.clock += 1;
        self.segs[i].order = self.clock;
    }

    /// Takes segment `i` for new data starting at `lba` (a miss).
    #[inline]
    pub fn reset(&mut self, i: usize, lba: u64, state: SegState, by_read: bool) {
        let s = &mut self.segs[i];
        s.start = lba;
        s.end = lba;
        s.state = state;
        s.by_read = by_read;
        s.ra_limit = 0;
        s.ra_min = 0;
    }

    /// Raises segment `i`'s read-ahead limits (DiskSim keeps the larger).
    #[inline]
    pub fn raise_limits(&mut self, i: usize, limit: u64, min: u64) -> (u64, u64) {
        let s = &mut self.segs[i];
        s.ra_limit = s.ra_limit.max(limit);
        s.ra_min = s.ra_min.max(min);
        (s.ra_limit, s.ra_min)
    }

    #[inline]
    pub fn set_state(&mut self, i: usize, state: SegState) {
        self.segs[i].state = state;
    }

    /// Extends segment `i` to `end`, dropping its oldest blocks beyond the
    /// segment size (DiskSim `disk_buffer_segment_wrap`).
    #[inline]
    pub fn extend(&mut self, i: usize, end: u64) {
        let s = &mut self.segs[i];
        if end > s.end {
            s.end = end;
        }
        s.start = s.start.max(s.end.saturating_sub(self.size_blocks));
    }

    /// Moves segment `i`'s start back to `start` (blocks read before the
    /// request, DiskSim's `Read any free blocks`), within the segment size.
    #[inline]
    pub fn extend_front(&mut self, i: usize, start: u64) {
        let s = &mut self.segs[i];
        if start < s.start {
            s.start = start.max(s.end.saturating_sub(self.size_blocks));
        }
    }

    /// Empties the clean segments (other than `keep`, the one the
    /// read-ahead is filling) that hold any of `[lba, lba + n)`: stale after
    /// a write, as DiskSim's `disk_buffer_set_segment` does for a write.
    pub fn invalidate(&mut self, lba: u64, n: u64, keep: Option<usize>) {
        let e = lba + n;
        for (i, s) in self.segs.iter_mut().enumerate() {
            if Some(i) == keep || s.state != SegState::Clean || s.end <= lba || e <= s.start {
                continue;
            }
            s.state = SegState::Empty;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choice_follows_disksim_values() {
        let mut c = SegCache::new(3, 100);
        let rc = ReadChoice::default();
        // all empty: the first (least recently used) empty one, no hit
        assert_eq!(c.select_read(10, 4, rc), (Some(0), HitKind::None));
        c.reset(0, 10, SegState::Clean, true);
        c.extend(0, 20);
        c.touch(0);
        assert_eq!(c.select_read(12, 4, rc), (Some(0), HitKind::Whole));
        assert_eq!(c.select_read(18, 4, rc), (Some(0), HitKind::Partial));
        // an empty segment beats a clean one that misses
        assert_eq!(c.select_read(50, 4, rc), (Some(1), HitKind::None));
        c.reset(1, 50, SegState::Clean, true);
        c.extend(1, 60);
        c.touch(1);
        c.reset(2, 70, SegState::Clean, true);
        c.extend(2, 80);
        c.touch(2);
        // no empty one left: the least recently used clean one
        assert_eq!(c.select_read(500, 4, rc), (Some(0), HitKind::None));
        // a segment being read whose next block is the first: almost hit
        c.set_state(2, SegState::Reading);
        let almost = ReadChoice { almost_read_hits: true, ..rc };
        assert_eq!(c.select_read(80, 4, almost), (Some(2), HitKind::Partial));
        assert_eq!(c.select_read(80, 4, rc).1, HitKind::None);
    }

    #[test]
    fn extend_keeps_the_newest_blocks() {
        let mut c = SegCache::new(1, 8);
        c.reset(0, 0, SegState::Reading, true);
        c.extend(0, 20);
        assert_eq!((c.get(0).start, c.get(0).end), (12, 20));
        c.extend_front(0, 0);
        assert_eq!(c.get(0).start, 12);
    }
}
