//! Zoned geometry: LBA → (cylinder, head, sector) and the angle at which a
//! sector passes under the head (models.md §1.4, §1.5).
//!
//! Two spaces are used:
//! * the *logical* space of LBAs the host sees;
//! * a *physical block* space P that also holds the blocks no LBA maps to
//!   (DiskSim's slipped sectors, spare sectors/tracks at the end of a zone or
//!   cylinder range, the "empty space at zone front").
//!
//! LBA → P is one binary search over a sorted list of skipped ranges; P →
//! track is one binary search over a compact table of *runs*. A run is a
//! sequence of tracks laid out the same way:
//! * a DiskSim `dm_layout_g1` zone is one run of `surfaces` tracks per
//!   cylinder (head order 0..S-1, or serpentine per the mapping scheme),
//!   with a track skew added per track switch and a cylinder skew per
//!   cylinder switch;
//! * a `dm_layout_g4` leaf entry (one head, consecutive cylinders upwards or
//!   downwards, the layout of modern drives that fill a band of cylinders on
//!   one surface before switching heads) is one run of one track per
//!   cylinder, each track starting `alen` revolutions after the previous.
//!
//! Angles are fractions of a revolution: sector `s` of track `j` in a run
//! starts at `angle0 + j·a_track + ⌊j/tpc⌋·a_cyl + s/spt` (mod 1).

use crate::error::{Error, Result};

/// One run of identically laid-out tracks (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    /// First physical block of the run.
    pub p_start: u64,
    /// Physical blocks per track that belong to the run (≤ `spt`).
    pub lpt: u32,
    /// Sectors per track (the angular width of a sector is 1/spt).
    pub spt: u32,
    /// Physical sector of the first block on each track.
    pub first_sector: u32,
    /// Tracks in the run.
    pub tracks: u32,
    /// Tracks per cylinder step (surfaces for g1 zones, 1 for g4 runs).
    pub tpc: u32,
    pub cyl0: u32,
    /// +1 or -1: direction of cylinder numbers along the run.
    pub cyl_dir: i8,
    /// Head of a one-head run (g4).
    pub head0: u8,
    /// g1 LBN-to-PBN mapping scheme: 0 normal; 1 serpentine relative to
    /// the zone start; 2 serpentine on odd absolute cylinders.
    pub mapping: u8,
    /// Angle (revolutions) of sector 0 of the first track.
    pub angle0: f64,
    /// Revolutions added per track.
    pub a_track: f64,
    /// Extra revolutions added per cylinder step.
    pub a_cyl: f64,
}

/// `x.floor()` without the call to libm's `floor` that the default x86-64
/// target makes (no SSE4.1 `roundsd`): the same value for every finite `x`
/// (beyond ±2^52 every float is whole, and the cast is exact).
#[inline]
pub fn floor(x: f64) -> f64 {
    if x.abs() >= 4_503_599_627_370_496.0 || x.is_nan() {
        return x.floor();
    }
    let t = x as i64 as f64;
    if t == x {
        x // whole already (−0 stays −0)
    } else if t > x {
        t - 1.0
    } else {
        t
    }
}

/// A located block: track and angular position.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Loc {
    pub cyl: u32,
    pub head: u32,
    /// Physical sector on the track.
    pub sector: u32,
    pub spt: u32,
    /// Blocks left on this track from this one on (this one included).
    pub left_on_track: u32,
    /// Angle (revolutions, in [0,1)) where this sector starts.
    pub angle: f64,
}

/// The whole mapping of one drive.
#[derive(Debug, Clone)]
pub struct Layout {
    /// Logical position from which `skip_shift` applies (sorted).
    skip_key: Vec<u64>,
    /// P − LBA for LBAs ≥ the matching key.
    skip_shift: Vec<u64>,
    runs: Vec<Run>,
    /// The runs' `p_start`, apart: the search touches this small array,
    /// then the one run it finds.
    run_start: Vec<u64>,
    /// Coarse indexes over `skip_key` and the runs' `p_start`: a lookup
    /// searches only its own bucket (a drive description can have
    /// thousands of each, and every request looks several blocks up).
    skip_idx: Buckets,
    run_idx: Buckets,
    pub surfaces: u32,
    pub cylinders: u32,
    pub capacity_sectors: u64,
}

/// A coarse index over sorted keys: `first[b]` counts the keys ≤ `b <<
/// shift`, so the keys ≤ any `x` in bucket `b` number `first[b]` plus those
/// of `(b << shift, (b + 1) << shift]` that are ≤ `x` — found by searching
/// that slice alone. Gives exactly what a search of all the keys gives.
#[derive(Debug, Clone, Default)]
pub(crate) struct Buckets {
    shift: u32,
    first: Vec<u32>,
}

impl Buckets {
    /// About two buckets per key, at most 8,192 (a few pages of memory).
    pub(crate) fn new(keys: impl Iterator<Item = u64> + Clone) -> Buckets {
        let n = keys.clone().count();
        let max = keys.clone().max().unwrap_or(0);
        if n < 16 {
            return Buckets::default();
        }
        let target = (2 * n as u64).clamp(1, 8192);
        let mut shift = 0u32;
        while shift < 63 && (max >> shift) >= target {
            shift += 1;
        }
        let buckets = (max >> shift) as usize + 2;
        let mut first = Vec::with_capacity(buckets);
        let mut it = keys.peekable();
        let mut count = 0u32;
        for b in 0..buckets as u64 {
            let edge = b << shift;
            while it.peek().is_some_and(|&k| k <= edge) {
                it.next();
                count += 1;
            }
            first.push(count);
        }
        Buckets { shift, first }
    }

    /// How many of `items` (sorted by `key`) have a key ≤ `x`.
    #[inline]
    pub(crate) fn count_le<T>(&self, items: &[T], key: impl Fn(&T) -> u64, x: u64) -> usize {
        let b = (x >> self.shift) as usize;
        if b + 1 >= self.first.len() {
            return items.partition_point(|t| key(t) <= x);
        }
        let (lo, hi) = (self.first[b] as usize, self.first[b + 1] as usize);
        lo + items[lo..hi].partition_point(|t| key(t) <= x)
    }
}

/// A builder collecting runs and skipped physical ranges in P order.
///
/// The LBA → P map is given either by skips (P ranges no LBA maps to; LBAs
/// fill the rest in order) or, for layouts that state it outright (g4's
/// slip list, negative slips included), by [`map_from`](Self::map_from)
/// points. On top of either, [`remap`](Self::remap) moves single LBA ranges
/// to tracks of their own (DiskSim's remapped defects).
#[derive(Debug, Default)]
pub struct LayoutBuilder {
    runs: Vec<Run>,
    /// (physical start, length) of ranges no LBA maps to.
    skips: Vec<(u64, u64)>,
    p_end: u64,
    /// (LBA, P): from LBA on, LBAs map to consecutive P from P.
    points: Vec<(u64, u64)>,
    /// (LBA, length, run): LBAs placed on a run of their own.
    remaps: Vec<(u64, u64, Run)>,
}

impl LayoutBuilder {
    pub fn new() -> Self {
        Self::default()
    }
    /// The physical block the next run starts at.
    pub fn p_end(&self) -> u64 {
        self.p_end
    }
    /// Appends a run at the current end of P.
    pub fn push_run(&mut self, mut run: Run) {
        run.p_start = self.p_end;
        self.p_end += run.lpt as u64 * run.tracks as u64;
        if run.tracks > 0 && run.lpt > 0 {
            self.runs.push(run);
        }
    }
    /// Appends a run at an explicit physical start (g4: the tree gives it).
    pub fn push_run_at(&mut self, run: Run) {
        self.p_end = self.p_end.max(run.p_start + run.lpt as u64 * run.tracks as u64);
        if run.tracks > 0 && run.lpt > 0 {
            self.runs.push(run);
        }
    }
    /// Marks `len` physical blocks from `p` as mapped by no LBA.
    pub fn skip(&mut self, p: u64, len: u64) {
        if len > 0 {
            self.skips.push((p, len));
        }
    }
    /// From `lba` on (up to the next point), LBAs map to consecutive
    /// physical blocks starting at `p` (which must be ≥ `lba`). With points
    /// given, skips are not used.
    pub fn map_from(&mut self, lba: u64, p: u64) {
        self.points.push((lba, p));
    }
    /// LBAs `[lba, lba+len)` lie on `run` (its first `len` blocks, in
    /// order) rather than where the rest of the map puts them; `run` gets
    /// physical blocks of its own past every other run.
    pub fn remap(&mut self, lba: u64, len: u64, run: Run) {
        if len > 0 {
            self.remaps.push((lba, len, run));
        }
    }
    /// The runs pushed so far (in push order).
    pub fn pushed_runs(&self) -> &[Run] {
        &self.runs
    }

    pub fn build(
        mut self,
        surfaces: u32,
        cylinders: u32,
        capacity_sectors: u64,
        what: &str,
    ) -> Result<Layout> {
        let err = |m: String| Error::input(what, 0, m);
        self.runs.sort_by_key(|r| r.p_start);
        for w in self.runs.windows(2) {
            let end = w[0].p_start + w[0].lpt as u64 * w[0].tracks as u64;
            if end > w[1].p_start {
                return Err(err(format!(
                    "layout runs overlap at physical block {} (expected disjoint tracks)",
                    w[1].p_start
                )));
            }
        }
        if self.runs.is_empty() {
            return Err(err("layout has no tracks".into()));
        }
        if capacity_sectors == 0 {
            return Err(err("block count 0: expected a positive number of blocks".into()));
        }
        // the base map: (first LBA, P − LBA) pieces
        let mut keys: Vec<(u64, u64)> = Vec::new();
        if self.points.is_empty() {
            self.skips.sort_unstable();
            let mut cum = 0u64;
            let mut prev_end = 0u64;
            for &(s, len) in &self.skips {
                if s < prev_end {
                    return Err(err(format!("overlapping slipped/spare ranges at physical block {s}")));
                }
                prev_end = s + len;
                cum += len;
                keys.push((s - (cum - len), cum));
            }
            let mapped = self.p_end.saturating_sub(cum);
            if capacity_sectors > mapped {
                return Err(err(format!(
                    "block count {capacity_sectors} does not fit the layout (it maps {mapped} blocks)"
                )));
            }
        } else {
            self.points.sort_unstable();
            for &(l, p) in &self.points {
                if p < l {
                    return Err(Error::Internal(format!("{what}: LBA {l} mapped below itself")));
                }
                keys.push((l, p - l));
            }
            if keys[0].0 > 0 {
                keys.insert(0, (0, 0));
            }
        }
        // remapped ranges, on runs of their own past every other run
        self.remaps.sort_by_key(|r| r.0);
        let mut p_next =
            self.runs.iter().map(|r| r.p_start + r.lpt as u64 * r.tracks as u64).max().unwrap_or(0);
        p_next = p_next.max(self.p_end);
        let shift_at = |keys: &[(u64, u64)], lba: u64| -> u64 {
            let k = keys.partition_point(|&(key, _)| key <= lba);
            if k == 0 {
                0
            } else {
                keys[k - 1].1
            }
        };
        if !self.remaps.is_empty() {
            let mut out: Vec<(u64, u64)> = Vec::with_capacity(keys.len() + 2 * self.remaps.len());
            let mut ki = 0usize;
            let mut prev_end = 0u64;
            for &(lba, len, mut run) in &self.remaps {
                if lba < prev_end {
                    return Err(err(format!("remapped ranges overlap at LBA {lba}")));
                }
                if len > run.lpt as u64 * run.tracks as u64 {
                    return Err(err(format!("remap of {len} blocks at LBA {lba} is longer than its track")));
                }
                while ki < keys.len() && keys[ki].0 < lba {
                    out.push(keys[ki]);
                    ki += 1;
                }
                let after = shift_at(&keys, lba + len);
                run.p_start = p_next;
                out.push((lba, p_next - lba));
                while ki < keys.len() && keys[ki].0 <= lba + len {
                    ki += 1;
                }
                out.push((lba + len, after));
                p_next += run.lpt as u64 * run.tracks as u64;
                self.runs.push(run);
                prev_end = lba + len;
            }
            out.extend_from_slice(&keys[ki..]);
            keys = out;
        }
        // one entry per key: the last shift given for it
        let mut skip_key: Vec<u64> = Vec::with_capacity(keys.len());
        let mut skip_shift: Vec<u64> = Vec::with_capacity(keys.len());
        for &(k, sh) in &keys {
            if skip_key.last() == Some(&k) {
                *skip_shift.last_mut().expect("pushed") = sh;
            } else {
                skip_key.push(k);
                skip_shift.push(sh);
            }
        }
        let skip_idx = Buckets::new(skip_key.iter().copied());
        let run_idx = Buckets::new(self.runs.iter().map(|r| r.p_start));
        let run_start = self.runs.iter().map(|r| r.p_start).collect();
        let l = Layout {
            skip_key,
            skip_shift,
            runs: self.runs,
            run_start,
            skip_idx,
            run_idx,
            surfaces,
            cylinders,
            capacity_sectors,
        };
        l.check_covered(what)?;
        Ok(l)
    }
}

impl Layout {
    /// Every LBA below the capacity lies on a run: walks the map's pieces
    /// and the runs each covers.
    fn check_covered(&self, what: &str) -> Result<()> {
        let cap = self.capacity_sectors;
        let n = self.skip_key.len();
        let mut starts: Vec<u64> = Vec::with_capacity(n + 1);
        if n == 0 || self.skip_key[0] > 0 {
            starts.push(0);
        }
        starts.extend_from_slice(&self.skip_key);
        for (i, &a) in starts.iter().enumerate() {
            if a >= cap {
                break;
            }
            let b = starts.get(i + 1).copied().unwrap_or(cap).min(cap);
            if b <= a {
                continue;
            }
            let (mut p, p_end) = (self.physical(a), self.physical(a) + (b - a));
            while p < p_end {
                let Some(r) = self.run_of(p) else {
                    let lba = a + (p - self.physical(a));
                    return Err(Error::input(
                        what,
                        0,
                        format!("layout leaves LBA {lba} without a track (expected every block below {cap} to lie on a track)"),
                    ));
                };
                p = r.p_start + r.lpt as u64 * r.tracks as u64;
            }
        }
        Ok(())
    }

    /// LBA → physical block.
    #[inline]
    pub fn physical(&self, lba: u64) -> u64 {
        let k = self.skip_idx.count_le(&self.skip_key, |&key| key, lba);
        if k == 0 {
            lba
        } else {
            lba + self.skip_shift[k - 1]
        }
    }

    #[inline]
    fn run_of(&self, p: u64) -> Option<&Run> {
        let k = self.run_idx.count_le(&self.run_start, |&x| x, p);
        if k == 0 {
            return None;
        }
        let r = &self.runs[k - 1];
        if p < r.p_start + r.lpt as u64 * r.tracks as u64 {
            Some(r)
        } else {
            None
        }
    }

    /// The cylinder of `lba` alone (what schedulers and the seek metric
    /// compare): `locate` without the angle arithmetic.
    #[inline]
    pub fn cylinder_of(&self, lba: u64) -> Option<u32> {
        let p = self.physical(lba);
        let r = self.run_of(p)?;
        let cstep = ((p - r.p_start) / r.lpt as u64) as u32 / r.tpc;
        Some((r.cyl0 as i64 + r.cyl_dir as i64 * cstep as i64).max(0) as u32)
    }

    /// Where `lba` is. `None` only for an LBA beyond the layout.
    #[inline]
    pub fn locate(&self, lba: u64) -> Option<Loc> {
        let p = self.physical(lba);
        let r = self.run_of(p)?;
        let off = p - r.p_start;
        let j = (off / r.lpt as u64) as u32;
        let in_track = (off % r.lpt as u64) as u32;
        let cstep = j / r.tpc;
        let cyl = (r.cyl0 as i64 + r.cyl_dir as i64 * cstep as i64).max(0) as u32;
        let head = if r.tpc == 1 {
            r.head0 as u32
        } else {
            let h = j % r.tpc;
            let flip = match r.mapping {
                1 => cstep % 2 == 1,
                2 => cyl % 2 == 1,
                _ => false,
            };
            if flip {
                r.tpc - 1 - h
            } else {
                h
            }
        };
        let sector = r.first_sector + in_track;
        let a = r.angle0 + j as f64 * r.a_track + cstep as f64 * r.a_cyl + sector as f64 / r.spt as f64;
        // Blocks left on the track (slipped ones included): `run_on_track`
        // trims the stretch at the next slip.
        Some(Loc { cyl, head, sector, spt: r.spt, left_on_track: r.lpt - in_track, angle: a - floor(a) })
    }

    /// LBAs on `lba`'s track before it (slipped blocks, which hold none,
    /// do not count): `lba` less the first LBA on its track.
    pub fn blocks_before_on_track(&self, lba: u64) -> u64 {
        let off = self.track_offset(lba);
        // the first LBA whose physical block is on this track: physical()
        // grows with the LBA, so a binary search over the `off` before it
        let p0 = self.physical(lba) - off;
        let (mut lo, mut hi) = (lba.saturating_sub(off), lba);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.physical(mid) >= p0 {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lba - lo
    }

    /// Physical blocks of `lba`'s track before it (0 for the first block
    /// of a track; slipped blocks on the track count).
    #[inline]
    pub fn track_offset(&self, lba: u64) -> u64 {
        let p = self.physical(lba);
        match self.run_of(p) {
            Some(r) => (p - r.p_start) % r.lpt as u64,
            None => 0,
        }
    }

    /// Number of LBAs from `lba` that lie on the same track, contiguous
    /// there (a slipped sector ends the stretch). At least 1.
    #[inline]
    pub fn run_on_track(&self, lba: u64, loc: &Loc) -> u32 {
        let max = loc.left_on_track as u64;
        // next skip key after lba: the first LBA whose shift differs
        let k = self.skip_idx.count_le(&self.skip_key, |&key| key, lba);
        let n = if k < self.skip_key.len() { (self.skip_key[k] - lba).min(max) } else { max };
        n.max(1) as u32
    }

    pub fn runs(&self) -> &[Run] {
        &self.runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zone(cyl0: u32, cyls: u32, spt: u32, surfaces: u32, tskew: u32, cskew: u32) -> Run {
        let sw = 1.0 / spt as f64;
        Run {
            p_start: 0,
            lpt: spt,
            spt,
            first_sector: 0,
            tracks: cyls * surfaces,
            tpc: surfaces,
            cyl0,
            cyl_dir: 1,
            head0: 0,
            mapping: 0,
            angle0: 0.0,
            a_track: tskew as f64 * sw,
            a_cyl: (cskew as f64 - tskew as f64) * sw,
        }
    }

    #[test]
    fn maps_lba_to_chs_with_skews_and_slips() {
        let mut b = LayoutBuilder::new();
        b.push_run(zone(0, 10, 100, 2, 10, 30));
        b.skip(5, 2); // two slipped sectors in track 0
        b.push_run(zone(10, 10, 50, 2, 5, 7));
        let l = b.build(2, 20, 2000 + 1000 - 2, "t").unwrap();
        let a = l.locate(4).unwrap();
        assert_eq!((a.cyl, a.head, a.sector), (0, 0, 4));
        let a = l.locate(5).unwrap();
        assert_eq!((a.cyl, a.head, a.sector), (0, 0, 7));
        // LBA 98 → P 100: cylinder 0, head 1, sector 0, skewed by 10 sectors
        let a = l.locate(98).unwrap();
        assert_eq!((a.cyl, a.head, a.sector), (0, 1, 0));
        assert!((a.angle - 0.10).abs() < 1e-12);
        // P 200 → cylinder 1 head 0: one track skew + one cylinder switch
        let a = l.locate(198).unwrap();
        assert_eq!((a.cyl, a.head), (1, 0));
        assert!((a.angle - 0.40).abs() < 1e-12, "{}", a.angle);
        // second zone starts at P 2000 = LBA 1998
        let a = l.locate(1998).unwrap();
        assert_eq!((a.cyl, a.head, a.sector, a.spt), (10, 0, 0, 50));
        assert!(l.locate(2998).is_none());
        assert_eq!(l.run_on_track(3, &l.locate(3).unwrap()), 2);
        // track 0 holds LBAs 0..98 (100 sectors, 2 slipped at 5, 6)
        assert_eq!(l.blocks_before_on_track(0), 0);
        assert_eq!(l.blocks_before_on_track(4), 4);
        assert_eq!(l.blocks_before_on_track(5), 5); // P 7: the slipped two hold no LBA
        assert_eq!(l.blocks_before_on_track(97), 97);
        assert_eq!(l.blocks_before_on_track(98), 0); // the next track
        assert_eq!(l.blocks_before_on_track(99), 1);
    }

    #[test]
    fn floor_is_libms_floor() {
        for x in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999999,
            -2.000001,
            1e15 + 0.5,
            -1e15 - 0.5,
            9e15,
            -9e15,
            1e300,
        ] {
            assert_eq!(floor(x).to_bits(), x.floor().to_bits(), "{x}");
        }
        assert!(floor(f64::NAN).is_nan());
        assert_eq!(floor(f64::INFINITY), f64::INFINITY);
    }

    #[test]
    fn block_count_beyond_layout_is_an_error() {
        let mut b = LayoutBuilder::new();
        b.push_run(zone(0, 1, 10, 1, 0, 0));
        assert!(b.build(1, 1, 11, "t").is_err());
    }
}
