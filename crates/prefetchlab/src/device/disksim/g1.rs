//! `dm_layout_g1`: a list of zones (bands) of cylinders, each with its
//! sectors per track, skews, spare space, slipped sectors and remapped
//! defects (DiskSim's `layout_g1.c`, `layout_g1_load.c`, the g1 modspecs).
//!
//! **Physical order.** Within a zone, tracks are numbered cylinder by
//! cylinder, `surfaces` per cylinder; a zone-relative *position* is
//! `(cylinder·S + t)·bpt + sector`, `t` the track's place in its cylinder.
//! `LBN-to-PBN mapping scheme` gives the head of place `t`: 0 → `t`;
//! 1 → `S−1−t` on odd cylinders counted from the zone's first; 2 → `S−1−t`
//! on odd cylinder numbers. Slips and defects are positions (tracks for
//! scheme 1), as in DiskSim's files.
//!
//! **Sparing schemes** (`Sparing scheme used`; `n` = `Number of spares`):
//! * 0 — no spares: LBNs fill every position (DiskSim 4.0 cannot load this
//!   scheme, its block count has no case for it); slips and defects are
//!   ignored with a warning, as DiskSim's no-sparing mapping ignores them.
//! * 1 — `n` spare *tracks* at the end of the zone; a slipped track is
//!   skipped and the following tracks move up into the spares; a defective
//!   track's LBNs are remapped, sector for sector, to the given track.
//! * 2 — `n` spare sectors at the end of each cylinder; a slipped sector is
//!   skipped and the cylinder's following LBNs move into its spares.
//! * 3 — `n` spare sectors at the end of each track; slips use the track's
//!   spares.
//! * 4 — as 2, but slips do not use the cylinder's spares: every later LBN
//!   of the zone moves up one position (spares "at the end of the disk").
//! * 5 — `n` spare sectors at the front of each cylinder; a slip uses one
//!   of them: the cylinder's earlier LBNs move one position towards the
//!   front.
//! * 6 — spares at the front of each cylinder, slips moving every later
//!   LBN of the zone (as 4).
//! * 7 — spares at the end of the disk only: no spare space in the zones
//!   (a zone's `Number of spares` is ignored with a warning), slips move
//!   every later LBN.
//! * 8 — `n` spare sectors at the end of each range of `Rangesize for
//!   sparing` cylinders (a last, shorter range has none); slips use their
//!   range's spares.
//! * 9 — `n` spare sectors at the end of the zone; slips use them.
//! * 10 — `n` spare sectors at the end of the zone that slips do not use.
//!
//! `Empty space at zone front` is the first that many LBN *slots* (positions
//! that are neither spare nor slipped) of the zone. The zone holds DiskSim's
//! count of blocks (`blksinband`: positions − empty space − the spares the
//! scheme sets aside − for 4, 6, 7 and 10 the slips); the drive's capacity
//! is their sum, as DiskSim's `checknumblocks` makes it.
//!
//! **Defects** (`defects = [ position, replacement, ... ]`): the LBN on a
//! defective position (after slipping) lives at the replacement position
//! instead — for scheme 8 the replacement is taken modulo the range size,
//! within the defect's range, as DiskSim does; a pair whose replacement
//! equals the defect does nothing (schemes 2–10); when a position is listed
//! twice the first pair counts.
//!
//! **Angles** (DiskSim's `g1_map_pbn_skew`): sector `s` of place `t` on
//! zone cylinder `c` starts at `Offset of first block + (t + (S−1)·c)·track
//! skew + c·cylinder skew + k·w + s·w` (w = 1/bpt), where `k` counts the
//! zone's slips before the cylinder (schemes 2, 4, 5, 6) or before the
//! track (scheme 3; 0 otherwise). Skews in sectors are whole sectors (DiskSim
//! truncates them); `Skew units` (layout or zone) applies to the skews given
//! after it in the block, as DiskSim's loader reads them in file order.
//!
//! Where DiskSim's own mapping contradicts itself, the reader follows its
//! definition (the manual and its physical-to-logical direction) and not
//! the defect: DiskSim's logical-to-physical code for scheme 2 sends the last
//! LBNs of a cylinder with slips onto the first sectors of the next cylinder
//! (where other LBNs already are), and for schemes 5 and 6 ignores the front
//! spares. Slips are applied in increasing order (an unsorted list is sorted,
//! with a warning); a position listed twice slips two positions, as DiskSim's
//! running count does.

use super::parse::{Block, Value};
use super::{list, Get, INT_MAX};
use crate::device::hdd::geometry::{Layout, LayoutBuilder, Run};
use crate::error::{Error, Result};

/// Most tracks a layout may have (far above any real drive's).
pub const MAX_TRACKS: u64 = 1 << 24;

/// One zone as read.
#[derive(Debug, Clone)]
struct Zone {
    c0: u32,
    cyls: u32,
    bpt: u32,
    first: f64,
    tskew: f64,
    cskew: f64,
    dead: u64,
    spares: u64,
    slips: Vec<u64>,
    defects: Vec<(u64, u64)>,
    path: String,
    line: usize,
}

/// Sparing and mapping of the whole layout.
#[derive(Debug, Clone, Copy)]
struct Scheme {
    sparing: u32,
    mapping: u8,
    rangesize: u64,
    surfaces: u64,
}

pub fn layout(
    lay: &Block,
    g: &Get<'_>,
    surfaces: u32,
    cylinders: u32,
    blocks: u64,
    warnings: &mut Vec<String>,
) -> Result<Layout> {
    let sc = Scheme {
        mapping: g.int_or(lay, "LBN-to-PBN mapping scheme", 0, 2, 0)? as u8,
        sparing: g.int_or(lay, "Sparing scheme used", 0, 10, 0)? as u32,
        rangesize: g.int_or(lay, "Rangesize for sparing", 1, INT_MAX, 1)? as u64,
        surfaces: surfaces as u64,
    };
    // layout-wide skew units count for the zones if given before `Zones`
    let zones_at = lay.position("Zones").unwrap_or(usize::MAX);
    let lay_revs = match units(lay)? {
        Some((revs, at)) if at < zones_at => revs,
        Some((_, at)) => {
            warnings.push(format!(
                "{}:{}: `Skew units` after `Zones` does not apply to them (DiskSim reads the zones first); their skews are in sectors",
                lay.path_str(),
                lay.params[at].line
            ));
            false
        }
        None => false,
    };
    let zl = list(lay, "Zones")?;
    if zl.is_empty() {
        return Err(Error::input(lay.path_str(), lay.line, "`Zones`: expected at least one zone"));
    }
    let mut zones = Vec::with_capacity(zl.len());
    let mut tracks = 0u64;
    for v in zl {
        let Value::Block(z) = v else {
            return Err(Error::input(lay.path_str(), lay.line, "`Zones`: expected a list of zone blocks"));
        };
        let zone = read_zone(z, g, lay_revs, cylinders, warnings)?;
        tracks += zone.cyls as u64 * sc.surfaces;
        if tracks > MAX_TRACKS {
            return Err(Error::input(
                z.path_str(),
                z.line,
                format!("the zones hold more than {MAX_TRACKS} tracks (expected a real drive's geometry)"),
            ));
        }
        zones.push(zone);
    }
    let mut b = LayoutBuilder::new();
    let mut lba = 0u64;
    for (i, z) in zones.iter().enumerate() {
        lba += zone(&mut b, z, i, sc, lba, warnings)?;
    }
    if lba == 0 {
        return Err(Error::input(lay.path_str(), lay.line, "the zones hold no blocks"));
    }
    if lba != blocks {
        warnings.push(format!(
            "{}: Block count {blocks} differs from the {lba} blocks the zones hold; DiskSim uses {lba}",
            lay.path_str()
        ));
    }
    b.build(surfaces, cylinders, lba, &lay.path_str())
}

/// A block's `Skew units`: (in revolutions, position in the block).
fn units(b: &Block) -> Result<Option<(bool, usize)>> {
    let Some(at) = b.position("Skew units") else { return Ok(None) };
    let p = &b.params[at];
    match &p.value {
        Value::Word(w) if w == "revolutions" => Ok(Some((true, at))),
        Value::Word(w) if w == "sectors" => Ok(Some((false, at))),
        _ => Err(Error::input(b.path_str(), p.line, "`Skew units`: expected `revolutions` or `sectors`")),
    }
}

fn read_zone(
    z: &Block,
    g: &Get<'_>,
    lay_revs: bool,
    cylinders: u32,
    warnings: &mut Vec<String>,
) -> Result<Zone> {
    let err = |line: usize, m: String| Error::input(z.path_str(), line, m);
    let line_of = |k: &str| z.get(k).map(|p| p.line).unwrap_or(z.line);
    let c0 = g.int(z, "First cylinder number", 0, INT_MAX)? as u32;
    let c1 = g.int(z, "Last cylinder number", 0, INT_MAX)? as u32;
    let bpt = g.int(z, "Blocks per track", 1, INT_MAX)? as u32;
    if c1 < c0 {
        return Err(err(
            line_of("Last cylinder number"),
            format!("zone: last cylinder {c1} is below its first {c0}"),
        ));
    }
    if c1 >= cylinders {
        warnings.push(format!(
            "{}:{}: zone's last cylinder {c1} is beyond the {cylinders} cylinders (`Number of cylinders`); DiskSim does not check it",
            z.path_str(),
            line_of("Last cylinder number")
        ));
    }
    let zu = units(z)?;
    let mut angle = |k: &str| -> Result<f64> {
        let v = g.num_or(z, k, 0.0)?;
        let at = z.position(k).unwrap_or(usize::MAX);
        let revs = match zu {
            Some((r, u)) if u < at => r,
            Some((_, u)) => {
                if at != usize::MAX {
                    warnings.push(format!(
                        "{}:{}: `Skew units` after `{k}` does not apply to it (DiskSim reads the block in order)",
                        z.path_str(),
                        z.params[u].line
                    ));
                }
                lay_revs
            }
            None => lay_revs,
        };
        Ok(if revs { v - v.floor() } else { v.trunc() / bpt as f64 })
    };
    let first = angle("Offset of first block")?;
    let tskew = angle("Skew for track switch")?;
    let cskew = angle("Skew for cylinder switch")?;
    let dead = g.int(z, "Empty space at zone front", 0, INT_MAX)? as u64;
    let spares = g.int(z, "Number of spares", 0, INT_MAX)? as u64;
    let whole = |k: &str| -> Result<Vec<u64>> {
        match z.get(k) {
            None => Ok(Vec::new()),
            Some(p) => {
                let Value::List(items) = &p.value else {
                    return Err(err(p.line, format!("`{k}`: expected a list `[ ... ]`")));
                };
                items
                    .iter()
                    .map(|v| match v {
                        Value::Num(x) if *x >= 0.0 && x.fract() == 0.0 && *x <= INT_MAX as f64 => {
                            Ok(*x as u64)
                        }
                        _ => Err(err(p.line, format!("`{k}`: expected whole numbers ≥ 0"))),
                    })
                    .collect()
            }
        }
    };
    let slips = whole("slips")?;
    let d = whole("defects")?;
    if d.len() % 2 != 0 {
        return Err(err(line_of("defects"), "`defects`: expected pairs `defect, replacement`".into()));
    }
    Ok(Zone {
        c0,
        cyls: c1 - c0 + 1,
        bpt,
        first,
        tskew,
        cskew,
        dead,
        spares,
        slips,
        defects: d.chunks(2).map(|c| (c[0], c[1])).collect(),
        path: z.path_str(),
        line: z.line,
    })
}

/// Sorted, merged `[start, end)` ranges.
fn merge(mut v: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    v.retain(|r| r.1 > r.0);
    v.sort_unstable();
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(v.len());
    for (a, b) in v {
        match out.last_mut() {
            Some(l) if a <= l.1 => l.1 = l.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Elements of sorted `v` in `[a, b)`.
fn count_in(v: &[u64], a: u64, b: u64) -> u64 {
    (v.partition_point(|&x| x < b) - v.partition_point(|&x| x < a)) as u64
}

/// The zone's positions that hold no LBN, and its LBN count.
struct ZoneMap {
    /// skipped `[start, end)` positions, sorted and merged
    skips: Vec<(u64, u64)>,
    /// positions neither spare nor slipped: (merged non-slot ranges)
    nonslot: Vec<(u64, u64)>,
    dead: u64,
    lbns: u64,
    pos_d: u64,
    pos_end: u64,
}

impl ZoneMap {
    /// Slots (non-spare, non-slipped positions) in `[0, pos)`.
    fn rank(&self, pos: u64) -> u64 {
        let mut n = 0;
        for &(a, b) in &self.nonslot {
            if a >= pos {
                break;
            }
            n += b.min(pos) - a;
        }
        pos - n
    }
    fn is_slot(&self, pos: u64) -> bool {
        let k = self.nonslot.partition_point(|r| r.0 <= pos);
        k == 0 || self.nonslot[k - 1].1 <= pos
    }
    /// The zone LBN at `pos`, if an LBN is there.
    fn lbn_at(&self, pos: u64) -> Option<u64> {
        (pos >= self.pos_d && pos < self.pos_end && self.is_slot(pos)).then(|| self.rank(pos) - self.dead)
    }
}

/// Position of the `k`-th slot, given merged non-slot ranges.
fn slot_pos(nonslot: &[(u64, u64)], k: u64) -> u64 {
    let mut pos = k;
    for &(a, b) in nonslot {
        if a <= pos {
            pos += b - a;
        } else {
            break;
        }
    }
    pos
}

fn zone_map(z: &Zone, i: usize, sc: Scheme, warnings: &mut Vec<String>) -> Result<ZoneMap> {
    let err = |m: String| Error::input(&z.path, z.line, format!("zone {i}: {m}"));
    let s = sc.surfaces;
    let bpt = z.bpt as u64;
    let cyls = z.cyls as u64;
    let tracks = cyls * s;
    let p_all = tracks * bpt;
    let cyl_len = s * bpt;
    let scheme = sc.sparing;
    let spares = if scheme == 7 && z.spares != 0 {
        warnings.push(format!(
            "{}:{}: zone {i}: sparing scheme 7 keeps its spares at the end of the disk; `Number of spares = {}` is ignored",
            z.path, z.line, z.spares
        ));
        0
    } else {
        z.spares
    };
    if scheme == 0 && (!z.slips.is_empty() || !z.defects.is_empty()) {
        warnings.push(format!(
            "{}:{}: zone {i}: sparing scheme 0 has no spares; its slips and defects are ignored (as DiskSim's mapping does)",
            z.path, z.line
        ));
    }
    // DiskSim's block count of the zone
    let numslips = z.slips.len() as i128;
    let (spi, cy, tr) = (spares as i128, cyls as i128, tracks as i128);
    let set_aside: i128 = match scheme {
        0 => 0,
        1 => spi * bpt as i128,
        2 | 5 => spi * cy,
        3 => spi * tr,
        4 | 6 => spi * cy + numslips,
        7 => numslips,
        8 => spi * (cy / sc.rangesize as i128),
        9 => spi,
        _ => spi + numslips,
    };
    if z.dead > p_all {
        return Err(err(format!(
            "`Empty space at zone front = {}` exceeds the zone's {p_all} sectors",
            z.dead
        )));
    }
    let lbns = p_all as i128 - z.dead as i128 - set_aside;
    if lbns < 0 {
        return Err(err(format!(
            "its {p_all} sectors are fewer than its empty space ({}) and spare space ({set_aside})",
            z.dead
        )));
    }
    let lbns = lbns as u64;
    // slips, in increasing order, a repeated one slipping the next position
    let unit = if scheme == 1 { bpt } else { 1 };
    let units_all = p_all / unit;
    let mut raw = z.slips.clone();
    if raw.windows(2).any(|w| w[1] < w[0]) {
        warnings
            .push(format!("{}:{}: zone {i}: slips not in increasing order; applied sorted", z.path, z.line));
        raw.sort_unstable();
    }
    let mut slips: Vec<u64> = Vec::with_capacity(raw.len());
    if scheme != 0 {
        for &x in &raw {
            let p = match slips.last() {
                Some(&l) if x <= l => l + 1,
                _ => x,
            };
            if p >= units_all {
                warnings.push(format!(
                    "{}:{}: zone {i}: slip {x} lies beyond the zone's {units_all} {}; ignored",
                    z.path,
                    z.line,
                    if scheme == 1 { "tracks" } else { "sectors" }
                ));
                continue;
            }
            slips.push(p);
        }
    }
    // positions that are spare space
    let mut nonslot: Vec<(u64, u64)> = slips.iter().map(|&p| (p * unit, p * unit + unit)).collect();
    let per_unit = |len: u64, front: bool, full_units: u64, nonslot: &mut Vec<(u64, u64)>| -> Result<()> {
        for u in 0..full_units {
            let (us, ue) = (u * len, u * len + len);
            let k = count_in(&slips, us, ue);
            if k > spares {
                return Err(err(format!(
                    "{k} slips in the {} starting at position {us}, which has only {spares} spares",
                    match scheme {
                        3 => "track",
                        8 => "range",
                        _ => "cylinder",
                    }
                )));
            }
            let r = spares - k;
            if r == 0 {
                continue;
            }
            if front {
                let mut hi = us + r;
                loop {
                    let h = us + r + count_in(&slips, us, hi);
                    if h == hi {
                        break;
                    }
                    hi = h;
                }
                nonslot.push((us, hi));
            } else {
                let mut lo = ue - r;
                loop {
                    let l = ue - r - count_in(&slips, lo, ue);
                    if l == lo {
                        break;
                    }
                    lo = l;
                }
                nonslot.push((lo, ue));
            }
        }
        Ok(())
    };
    match scheme {
        2 => per_unit(cyl_len, false, cyls, &mut nonslot)?,
        3 => per_unit(bpt, false, tracks, &mut nonslot)?,
        5 => per_unit(cyl_len, true, cyls, &mut nonslot)?,
        8 => per_unit(cyl_len * sc.rangesize, false, cyls / sc.rangesize, &mut nonslot)?,
        4 | 6 if spares > 0 => {
            for c in 0..cyls {
                let r = if scheme == 4 {
                    (c * cyl_len + cyl_len - spares.min(cyl_len), c * cyl_len + cyl_len)
                } else {
                    (c * cyl_len, c * cyl_len + spares.min(cyl_len))
                };
                nonslot.push(r);
            }
        }
        _ => {}
    }
    let nonslot = merge(nonslot);
    let slots = p_all - nonslot.iter().map(|r| r.1 - r.0).sum::<u64>();
    if z.dead + lbns > slots {
        return Err(err(format!(
            "its sectors hold {} blocks after spares and slips, fewer than DiskSim's count of {lbns} plus {} of empty space",
            slots,
            z.dead
        )));
    }
    let pos_d = if z.dead == 0 { 0 } else { slot_pos(&nonslot, z.dead) };
    let pos_end = if z.dead + lbns == slots { p_all } else { slot_pos(&nonslot, z.dead + lbns) };
    let mut skips = vec![(0, pos_d), (pos_end, p_all)];
    skips.extend(
        nonslot.iter().filter(|r| r.1 > pos_d && r.0 < pos_end).map(|&(a, b)| (a.max(pos_d), b.min(pos_end))),
    );
    Ok(ZoneMap { skips: merge(skips), nonslot, dead: z.dead, lbns, pos_d, pos_end })
}

/// Builds one zone into `b`: runs, skipped positions, remapped defects.
/// Returns the zone's LBN count.
fn zone(
    b: &mut LayoutBuilder,
    z: &Zone,
    i: usize,
    sc: Scheme,
    lba0: u64,
    warnings: &mut Vec<String>,
) -> Result<u64> {
    let m = zone_map(z, i, sc, warnings)?;
    let s = sc.surfaces;
    let bpt = z.bpt as u64;
    let w = 1.0 / bpt as f64;
    let base = b.p_end();
    let scheme = sc.sparing;
    let mut raw = z.slips.clone();
    raw.sort_unstable();
    let skew_slips = matches!(scheme, 2..=6);
    // the head of place t on zone cylinder c
    let head = |c: u64, t: u64| -> u32 {
        let flip = match sc.mapping {
            1 => c % 2 == 1,
            2 => (z.c0 as u64 + c) % 2 == 1,
            _ => false,
        };
        (if flip { s - 1 - t } else { t }) as u32
    };
    // slips counted into the skew of place t of cylinder c
    let offs = |c: u64, t: u64| -> u64 {
        if !skew_slips {
            return 0;
        }
        let cutoff = if scheme == 3 { (c * s + head(c, t) as u64) * bpt } else { c * s * bpt };
        raw.partition_point(|&x| x < cutoff) as u64
    };
    let track_angle = |c: u64, t: u64| -> f64 {
        let a = z.first + (t + (s - 1) * c) as f64 * z.tskew + c as f64 * z.cskew + offs(c, t) as f64 * w;
        a - a.floor()
    };
    let one_track = |c: u64, t: u64, sector: u64, len: u64| Run {
        p_start: 0,
        lpt: len as u32,
        spt: z.bpt,
        first_sector: sector as u32,
        tracks: 1,
        tpc: 1,
        cyl0: z.c0 + c as u32,
        cyl_dir: 1,
        head0: head(c, t) as u8,
        mapping: 0,
        angle0: track_angle(c, t),
        a_track: 0.0,
        a_cyl: 0.0,
    };
    let span = |ca: u64, cb: u64, mapping: u8| Run {
        p_start: 0,
        lpt: z.bpt,
        spt: z.bpt,
        first_sector: 0,
        tracks: ((cb - ca) * s) as u32,
        tpc: s as u32,
        cyl0: z.c0 + ca as u32,
        cyl_dir: 1,
        head0: 0,
        mapping,
        angle0: track_angle(ca, 0),
        a_track: z.tskew,
        a_cyl: z.cskew - z.tskew,
    };
    // cylinders where the skew's slip count may change
    let cyls = z.cyls as u64;
    let cyl_len = s * bpt;
    let mut breaks: Vec<u64> = Vec::new();
    let mut irregular: Vec<u64> = Vec::new();
    if skew_slips {
        for &x in &raw {
            let c = x / cyl_len;
            if scheme == 3 {
                irregular.push(c);
                breaks.push(c);
            }
            breaks.push(c + 1);
        }
    }
    breaks.retain(|&c| c > 0 && c < cyls);
    breaks.sort_unstable();
    breaks.dedup();
    irregular.sort_unstable();
    irregular.dedup();
    let mut c = 0u64;
    while c < cyls {
        if irregular.binary_search(&c).is_ok() {
            for t in 0..s {
                b.push_run(one_track(c, t, 0, bpt));
            }
            c += 1;
            continue;
        }
        let e = breaks[breaks.partition_point(|&x| x <= c)..].first().copied().unwrap_or(cyls);
        let mut ca = c;
        match sc.mapping {
            0 => b.push_run(span(ca, e, 0)),
            2 => b.push_run(span(ca, e, 2)),
            _ => {
                // serpentine from the zone's first cylinder
                if ca % 2 == 1 {
                    if z.c0.is_multiple_of(2) {
                        b.push_run(span(ca, e, 2));
                        ca = e;
                    } else {
                        for t in 0..s {
                            b.push_run(one_track(ca, t, 0, bpt));
                        }
                        ca += 1;
                    }
                }
                if ca < e {
                    b.push_run(span(ca, e, 1));
                }
            }
        }
        c = e;
    }
    debug_assert_eq!(b.p_end() - base, cyls * cyl_len);
    for &(a, e) in &m.skips {
        b.skip(base + a, e - a);
    }
    // remapped defects
    if scheme != 0 {
        let p_all = cyls * cyl_len;
        let mut seen: Vec<u64> = Vec::new();
        for &(d, r) in &z.defects {
            if seen.contains(&d) {
                continue;
            }
            seen.push(d);
            let pieces: Vec<(u64, u64, u64)> = if scheme == 1 {
                // a track: its LBNs go to the same sectors of track r
                let (ta, tb) = (d * bpt, d * bpt + bpt);
                let (a, e) = (ta.max(m.pos_d), tb.min(m.pos_end));
                if d >= p_all / bpt || a >= e || !m.is_slot(a) {
                    continue;
                }
                vec![(a, e - a, r * bpt + (a - ta))]
            } else {
                if r == d || m.lbn_at(d).is_none() {
                    continue;
                }
                let target = if scheme == 8 {
                    let range = cyl_len * sc.rangesize;
                    (d / range) * range + r % range
                } else {
                    r
                };
                vec![(d, 1, target)]
            };
            for (pos, len, target) in pieces {
                if target + len > p_all {
                    return Err(Error::input(
                        &z.path,
                        z.line,
                        format!("zone {i}: defect {d} is remapped to {r}, beyond the zone"),
                    ));
                }
                let lbn = m.lbn_at(pos).expect("an LBN position");
                let (c, t, sector) = (target / cyl_len, (target % cyl_len) / bpt, target % bpt);
                b.remap(lba0 + lbn, len, one_track(c, t, sector, len));
            }
        }
    }
    Ok(m.lbns)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_str;
    use super::super::Get;
    use super::*;
    use crate::device::hdd::geometry::Loc;
    use std::path::Path;

    /// A layout of one or two zones on a made-up drive: 2 surfaces,
    /// 10 sectors per track, the given sparing scheme, zone parameters and
    /// spares / slips / defects.
    fn g1(scheme: u32, mapping: u32, zones: &str) -> (Layout, Vec<String>) {
        let t = format!(
            "dm_layout_g1 {{ LBN-to-PBN mapping scheme = {mapping}, Sparing scheme used = {scheme}, Rangesize for sparing = 2, Zones = [ {zones} ] }}"
        );
        let d = parse_str(&t, Path::new("t.model"), 0).unwrap();
        let g = Get::new(&[]);
        let mut w = Vec::new();
        let l = layout(&d.blocks[0], &g, 2, 100, 1, &mut w).unwrap();
        (l, w)
    }

    fn zone(c0: u32, c1: u32, extra: &str) -> String {
        format!(
            "dm_layout_g1_zone {{ First cylinder number = {c0}, Last cylinder number = {c1}, Blocks per track = 10, Offset of first block = 0, Empty space at zone front = 0, Skew for track switch = 1, Skew for cylinder switch = 3, {extra} }}"
        )
    }

    fn chs(l: &Layout, lba: u64) -> (u32, u32, u32) {
        let Loc { cyl, head, sector, .. } = l.locate(lba).unwrap();
        (cyl, head, sector)
    }

    #[test]
    fn scheme_1_spare_tracks_slipped_and_remapped_tracks() {
        // 3 cylinders × 2 surfaces = tracks 0..5 of 10 sectors; 2 spare
        // tracks at the zone end → 4 tracks of LBNs = 40 blocks.
        // slip track 1: LBNs 0–9 on track 0 (c0 h0), 10–19 skip track 1
        // and land on track 2 (c1 h0), 20–29 on track 3 (c1 h1), 30–39 on
        // track 4 (c2 h0); track 5 stays spare.
        // defect track 3 → spare track 5: LBNs 20–29 on (c2 h1), same sectors.
        let (l, _) = g1(1, 0, &zone(0, 2, "Number of spares = 2, slips = [ 1 ], defects = [ 3, 5 ]"));
        assert_eq!(l.capacity_sectors, 40);
        assert_eq!(chs(&l, 9), (0, 0, 9));
        assert_eq!(chs(&l, 10), (1, 0, 0));
        assert_eq!(chs(&l, 20), (2, 1, 0));
        assert_eq!(chs(&l, 29), (2, 1, 9));
        assert_eq!(chs(&l, 30), (2, 0, 0));
        assert_eq!(chs(&l, 39), (2, 0, 9));
        // the remapped track keeps its own angle: c2 h1 is place 1 of zone
        // cylinder 2: (1 + 1·2)·1 + 2·3 = 9 sectors of skew → 0.9
        assert!((l.locate(20).unwrap().angle - 0.9).abs() < 1e-9);
    }

    #[test]
    fn scheme_2_spares_per_cylinder_used_by_slips() {
        // cylinders of 20 positions (2 tracks × 10), 2 spares at the end of
        // each: 18 LBNs per cylinder, 3 cylinders → 54.
        // slip at position 3 (c0 h0 s3): LBNs 0–2 at s0–2, LBN 3 at s4,
        // …, LBN 8 at s9, LBN 9 at c0 h1 s0, LBN 17 at c0 h1 s8 (one
        // spare used, h1 s9 still spare); LBN 18 starts cylinder 1.
        // Skew: cylinder 1 comes after 1 slip → +1 sector: c1 h0 s0 at
        // (0 + 1)·1 + 1·3 + 1 = 5 sectors → 0.5.
        let (l, _) = g1(2, 0, &zone(0, 2, "Number of spares = 2, slips = [ 3 ], defects = [ 25, 38 ]"));
        assert_eq!(l.capacity_sectors, 54);
        assert_eq!(chs(&l, 2), (0, 0, 2));
        assert_eq!(chs(&l, 3), (0, 0, 4));
        assert_eq!(chs(&l, 8), (0, 0, 9));
        assert_eq!(chs(&l, 9), (0, 1, 0));
        assert_eq!(chs(&l, 17), (0, 1, 8));
        assert_eq!(chs(&l, 18), (1, 0, 0));
        assert!((l.locate(18).unwrap().angle - 0.5).abs() < 1e-9);
        // defect at position 25 = c1 h0 s5 holds LBN 18 + 5 = 23; it is
        // remapped to position 38 = c1 h1 s8 (a spare of cylinder 1)
        assert_eq!(chs(&l, 23), (1, 1, 8));
        assert_eq!(chs(&l, 24), (1, 0, 6));
    }

    #[test]
    fn scheme_3_spares_per_track() {
        // 1 spare per track: 9 LBNs per track, 2 cylinders × 2 = 4 tracks
        // → 36. Slip at position 12 (track 1, s2): track 1 holds LBNs
        // 9–17 at s0,s1,s3..s9 (its spare used); track 2 (c1 h0) starts at
        // LBN 18 with one slip before it in the skew: (0 + 1)·1 + 1·3 + 1
        // = 5 → 0.5; track 1 itself (c0 h1) has no slip before it: 0.1.
        let (l, _) = g1(3, 0, &zone(0, 1, "Number of spares = 1, slips = [ 12 ], defects = []"));
        assert_eq!(l.capacity_sectors, 36);
        assert_eq!(chs(&l, 8), (0, 0, 8));
        assert_eq!(chs(&l, 9), (0, 1, 0));
        assert_eq!(chs(&l, 11), (0, 1, 3));
        assert_eq!(chs(&l, 17), (0, 1, 9));
        assert_eq!(chs(&l, 18), (1, 0, 0));
        assert!((l.locate(9).unwrap().angle - 0.1).abs() < 1e-9);
        assert!((l.locate(18).unwrap().angle - 0.5).abs() < 1e-9);
    }

    #[test]
    fn scheme_4_slips_move_the_rest_of_the_zone() {
        // 2 spares at the end of each 20-position cylinder, kept for
        // defects; 3 cylinders: 3·18 − 1 slip = 53 LBNs. Slip at position 3:
        // LBN 3 at c0 h0 s4, LBN 16 at c0 h1 s7 (positions 18, 19 spare),
        // LBN 17 moves to the next cylinder's first position, c1 h0 s0.
        let (l, _) = g1(4, 0, &zone(0, 2, "Number of spares = 2, slips = [ 3 ], defects = []"));
        assert_eq!(l.capacity_sectors, 53);
        assert_eq!(chs(&l, 3), (0, 0, 4));
        assert_eq!(chs(&l, 16), (0, 1, 7));
        assert_eq!(chs(&l, 17), (1, 0, 0));
        assert_eq!(chs(&l, 52), (2, 1, 7));
    }

    #[test]
    fn scheme_5_spares_at_the_front_of_each_cylinder() {
        // positions 0, 1 of each cylinder spare: LBN 0 at c0 h0 s2, 18 per
        // cylinder → 36 over 2 cylinders. A slip at position 25 (c1 h0 s5)
        // uses one front spare of cylinder 1: its LBNs take the last 18
        // non-slipped positions, 21..24 and 26..39: LBN 18 at c1 h0 s1.
        let (l, _) = g1(5, 0, &zone(0, 1, "Number of spares = 2, slips = [ 25 ], defects = []"));
        assert_eq!(l.capacity_sectors, 36);
        assert_eq!(chs(&l, 0), (0, 0, 2));
        assert_eq!(chs(&l, 17), (0, 1, 9));
        assert_eq!(chs(&l, 18), (1, 0, 1));
        assert_eq!(chs(&l, 21), (1, 0, 4));
        assert_eq!(chs(&l, 22), (1, 0, 6));
    }

    #[test]
    fn scheme_6_front_spares_and_slips_to_the_end() {
        // front spares 0, 1 of each cylinder; slip at position 5: LBN 3 at
        // s6; cylinder 0 holds 17 LBNs (2..4, 6..19), LBN 17 at c1 h0 s2;
        // 2·18 − 1 = 35 LBNs.
        let (l, _) = g1(6, 0, &zone(0, 1, "Number of spares = 2, slips = [ 5 ], defects = []"));
        assert_eq!(l.capacity_sectors, 35);
        assert_eq!(chs(&l, 2), (0, 0, 4));
        assert_eq!(chs(&l, 3), (0, 0, 6));
        assert_eq!(chs(&l, 16), (0, 1, 9));
        assert_eq!(chs(&l, 17), (1, 0, 2));
    }

    #[test]
    fn scheme_7_no_spares_in_zones_slips_to_the_end() {
        // 40 positions − 1 slip = 39 LBNs; `Number of spares` is ignored
        let (l, w) = g1(7, 0, &zone(0, 1, "Number of spares = 1, slips = [ 0 ], defects = []"));
        assert_eq!(l.capacity_sectors, 39);
        assert_eq!(chs(&l, 0), (0, 0, 1));
        assert_eq!(chs(&l, 38), (1, 1, 9));
        assert!(w.iter().any(|x| x.contains("scheme 7")), "{w:?}");
    }

    #[test]
    fn scheme_8_spares_per_range_of_cylinders() {
        // ranges of 2 cylinders = 40 positions with 3 spares each; 5
        // cylinders = 2 ranges + 1 shorter range without spares:
        // 2·37 + 20 = 94 LBNs. Range 0: LBN 36 at position 36 (c1 h1 s6).
        // Slip at 41 (range 1): LBN 37 at 40 (c2 h0 s0), LBN 38 at 42;
        // range 1's 37 LBNs take positions 40, 42..77 (one spare used), so
        // LBN 73 is at 77 (c3 h1 s7); the short range starts with LBN 74 at
        // c4. Defect at position 45 (LBN 41) → replacement 118 taken modulo
        // 40 within its range: 40 + 38 = 78 (c3 h1 s8).
        let (l, _) = g1(8, 0, &zone(0, 4, "Number of spares = 3, slips = [ 41 ], defects = [ 45, 118 ]"));
        assert_eq!(l.capacity_sectors, 94);
        assert_eq!(chs(&l, 36), (1, 1, 6));
        assert_eq!(chs(&l, 37), (2, 0, 0));
        assert_eq!(chs(&l, 38), (2, 0, 2));
        assert_eq!(chs(&l, 41), (3, 1, 8));
        assert_eq!(chs(&l, 73), (3, 1, 7));
        assert_eq!(chs(&l, 74), (4, 0, 0));
    }

    #[test]
    fn scheme_9_and_10_spares_per_zone() {
        // 40 positions, 3 spares; slip at 10 (c0 h1 s0).
        // 9: 37 LBNs; LBN 10 at c0 h1 s1; the slip uses a spare: LBN 36 at
        // position 37 (c1 h1 s7). Defect at 20 (LBN 19) → 39 (c1 h1 s9).
        let (l, _) = g1(9, 0, &zone(0, 1, "Number of spares = 3, slips = [ 10 ], defects = [ 20, 39 ]"));
        assert_eq!(l.capacity_sectors, 37);
        assert_eq!(chs(&l, 10), (0, 1, 1));
        assert_eq!(chs(&l, 19), (1, 1, 9));
        assert_eq!(chs(&l, 20), (1, 0, 1));
        assert_eq!(chs(&l, 36), (1, 1, 7));
        // 10: the slip does not use a spare: 36 LBNs, the last at 36 (c1 h1 s6)
        let (l, _) = g1(10, 0, &zone(0, 1, "Number of spares = 3, slips = [ 10 ], defects = []"));
        assert_eq!(l.capacity_sectors, 36);
        assert_eq!(chs(&l, 35), (1, 1, 6));
    }

    #[test]
    fn scheme_0_fills_every_sector_and_ignores_slips() {
        let (l, w) = g1(0, 0, &zone(0, 1, "Number of spares = 0, slips = [ 3 ], defects = []"));
        assert_eq!(l.capacity_sectors, 40);
        assert_eq!(chs(&l, 3), (0, 0, 3));
        assert!(!w.is_empty());
    }

    #[test]
    fn serpentine_mappings_and_empty_space() {
        // mapping 1 in a zone starting at cylinder 1: zone cylinder 1
        // (cylinder 2) runs from the last surface; empty space of 5 slots.
        let z = "dm_layout_g1_zone { First cylinder number = 1, Last cylinder number = 3, Blocks per track = 10, Offset of first block = 0, Empty space at zone front = 5, Skew for track switch = 1, Skew for cylinder switch = 3, Number of spares = 0, slips = [], defects = [] }";
        let (l, _) = g1(9, 1, z);
        assert_eq!(l.capacity_sectors, 55);
        assert_eq!(chs(&l, 0), (1, 0, 5));
        assert_eq!(chs(&l, 15), (2, 1, 0));
        assert_eq!(chs(&l, 25), (2, 0, 0));
        assert_eq!(chs(&l, 35), (3, 0, 0));
        // mapping 2: odd cylinder numbers run backwards: cylinder 1 first
        let (l, _) = g1(9, 2, z);
        assert_eq!(chs(&l, 0), (1, 1, 5));
        assert_eq!(chs(&l, 15), (2, 0, 0));
    }

    #[test]
    fn empty_space_beyond_the_zone_is_a_clear_error() {
        let z = "dm_layout_g1_zone { First cylinder number = 0, Last cylinder number = 0, Blocks per track = 10, Offset of first block = 0, Empty space at zone front = 21, Number of spares = 0, slips = [], defects = [] }";
        let t = format!(
            "dm_layout_g1 {{ LBN-to-PBN mapping scheme = 0, Sparing scheme used = 9, Zones = [ {z} ] }}"
        );
        let d = parse_str(&t, Path::new("t.model"), 0).unwrap();
        let e = layout(&d.blocks[0], &Get::new(&[]), 2, 100, 1, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("t.model:1") && e.contains("Empty space at zone front = 21"), "{e}");
    }
}
