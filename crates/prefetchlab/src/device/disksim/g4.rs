//! `dm_layout_g4` (DiskSim's `layout_g4.c`, `layout_g4_load.c`,
//! `layout_g4.modspec`): a tree of index nodes (`IDX`, the last one the
//! root) whose leaves are track patterns (`TP`: lowest sector, highest
//! sector, sectors per track).
//!
//! * An index entry `lbn, cyl, off, len, cyllen, alen, runlen, cylrunlen,
//!   TRACK|IDX, child[, head]` covers `runlen` blocks of the tree's address
//!   space from `lbn` (relative to its parent instance) as ⌈runlen/len⌉
//!   instances of its child, instance `q` starting at `lbn + q·len`, on
//!   cylinder `cyl ± q·cyllen` (downwards when `cylrunlen` < 0), `off +
//!   q·alen` revolutions after the parent instance's angle; a last, shorter
//!   instance holds only what is left of `runlen`. A `TRACK` child is one
//!   track of head `head`: offset `r` of an instance is sector `r`, at angle
//!   `r/spt` past the instance's. The reader flattens the tree at load time
//!   into runs of tracks (one head, consecutive cylinders).
//! * `Slips = [ off, count, ... ]`: DiskSim's running slip count; logical
//!   LBN `L` is tree address `L + slipcount(L)`, where the count is the
//!   cumulative `count` of the last slip whose `off` ≤ `L` + the count so
//!   far. Counts may be negative ("spares"): the tree then holds fewer
//!   addresses than the LBNs it gets, as DiskSim computes it.
//! * `Remaps = [ lbn, len, cyl, head, sector, spt, ... ]`: LBNs `[lbn,
//!   lbn+len)` lie on track (cyl, head) from `sector` (a track of `spt`
//!   sectors), before any slip is counted, as DiskSim's `ltop` checks them
//!   first. Their angle is the tree's angle for that track (0 when the tree
//!   has no such track, as DiskSim's `g4_skew` returns).
//! * Capacity: `Block count` (DiskSim does not recompute it for g4); every
//!   block below it must lie on a track, or loading fails naming the first
//!   that does not.
//!
//! **Fewer surfaces** ([`super::Options::keep_heads`] = `(first, count)`):
//! keeps the tracks of heads `first..first+count`, in the tree's order,
//! renumbers those heads from 0 and the tree's addresses over the kept
//! tracks (a slip keeps its place on a kept track, and disappears with a
//! dropped one; remaps are dropped). This is how the 73 GB Cheetah 15K.5 is
//! derived from the 146 GB drive's description: same platters, zones,
//! skews and seek curve, two of the four surfaces.
//!
//! Malformed trees are errors: a track pattern with `low` > 0 (DiskSim maps
//! its offsets inconsistently), an entry with `len` ≤ 0 (DiskSim divides by
//! it), an instance longer than its track, references out of range or
//! cycles, trees expanding to more than [`MAX_RUNS`] runs.

use super::list;
use super::parse::{Block, Value};
use crate::device::hdd::geometry::{Layout, LayoutBuilder, Run};
use crate::error::{Error, Result};

/// Most runs a tree may expand to.
pub const MAX_RUNS: u64 = 4_000_000;
const MAX_DEPTH: usize = 16;

fn num(v: &Value, lay: &Block, line: usize, what: &str) -> Result<f64> {
    match v {
        Value::Num(x) => Ok(*x),
        _ => Err(Error::input(lay.path_str(), line, format!("dm_layout_g4: expected a number for {what}"))),
    }
}

fn int(v: &Value, lay: &Block, line: usize, what: &str) -> Result<i64> {
    let x = num(v, lay, line, what)?;
    if x.fract() != 0.0 || x.abs() > 1e15 {
        return Err(Error::input(
            lay.path_str(),
            line,
            format!("dm_layout_g4: expected a whole number for {what}"),
        ));
    }
    Ok(x as i64)
}

#[derive(Debug, Clone)]
struct Ent {
    lbn: i64,
    cyl: i64,
    off: f64,
    len: i64,
    cyllen: i64,
    alen: f64,
    runlen: i64,
    cylrunlen: i64,
    track: bool,
    child: usize,
    head: i64,
}

struct Tree<'a> {
    tp: Vec<(u32, u32, u32)>,
    idx: Vec<Vec<Ent>>,
    lay: &'a Block,
    line: usize,
}

impl Tree<'_> {
    fn err(&self, m: impl Into<String>) -> Error {
        Error::input(self.lay.path_str(), self.line, format!("dm_layout_g4: {}", m.into()))
    }

    /// Runs a node expands to (saturating), for the size check.
    fn count(&self, node: usize, depth: usize, memo: &mut Vec<Option<u64>>) -> Result<u64> {
        if depth > MAX_DEPTH || node >= self.idx.len() {
            return Err(self.err("bad or cyclic IDX reference"));
        }
        if let Some(c) = memo[node] {
            return Ok(c);
        }
        let mut n = 0u64;
        for e in &self.idx[node] {
            if e.len <= 0 || e.runlen <= 0 {
                continue;
            }
            let inst = ((e.runlen + e.len - 1) / e.len) as u64;
            let per = if e.track {
                if e.cyllen == 1 {
                    n = n.saturating_add(2);
                    continue;
                }
                1
            } else {
                self.count(e.child, depth + 1, memo)?
            };
            n = n.saturating_add(inst.saturating_mul(per));
        }
        memo[node] = Some(n);
        Ok(n)
    }

    /// Pushes the runs of `node`'s instance at tree address `lbn0`,
    /// cylinder `cyl0`, angle `ang0`, up to address `limit`.
    #[allow(clippy::too_many_arguments)]
    fn flatten(
        &self,
        node: usize,
        lbn0: i64,
        cyl0: i64,
        ang0: f64,
        limit: i64,
        depth: usize,
        out: &mut Vec<Run>,
    ) -> Result<()> {
        if depth > MAX_DEPTH || node >= self.idx.len() {
            return Err(self.err("bad or cyclic IDX reference"));
        }
        for e in &self.idx[node] {
            if e.len <= 0 {
                return Err(self.err(format!("an entry with len {} (expected > 0)", e.len)));
            }
            if e.runlen <= 0 {
                continue;
            }
            let start = lbn0 + e.lbn;
            if start < 0 {
                return Err(self.err(format!("an entry starts at address {start} (expected ≥ 0)")));
            }
            let end = (start + e.runlen).min(limit);
            let dir: i64 = if e.cylrunlen < 0 { -1 } else { 1 };
            let inst = (e.runlen + e.len - 1) / e.len;
            let cyl_of = |q: i64| -> Result<u32> {
                let c =
                    cyl0.saturating_add(e.cyl).saturating_add(dir.saturating_mul(q).saturating_mul(e.cyllen));
                u32::try_from(c).map_err(|_| self.err(format!("an entry puts a track on cylinder {c}")))
            };
            if e.track {
                let Some(&(low, high, spt)) = self.tp.get(e.child) else {
                    return Err(self.err(format!("TRACK child {} out of range", e.child)));
                };
                if low != 0 {
                    return Err(self.err(
                        "a track pattern with low > 0 (expected 0: DiskSim maps such tracks inconsistently)",
                    ));
                }
                if e.len > high as i64 + 1 {
                    return Err(self.err(format!(
                        "a TRACK entry of len {} on a track of {} blocks",
                        e.len,
                        high + 1
                    )));
                }
                let head = u8::try_from(e.head)
                    .map_err(|_| self.err(format!("head {} (expected 0–255)", e.head)))?;
                let run = |p: i64, lpt: i64, tracks: i64, q: i64| -> Result<Run> {
                    let a = ang0 + e.off + q as f64 * e.alen;
                    Ok(Run {
                        p_start: p as u64,
                        lpt: lpt as u32,
                        spt,
                        first_sector: 0,
                        tracks: tracks as u32,
                        tpc: 1,
                        cyl0: cyl_of(q)?,
                        cyl_dir: dir as i8,
                        head0: head,
                        mapping: 0,
                        angle0: a - a.floor(),
                        a_track: e.alen,
                        a_cyl: 0.0,
                    })
                };
                if start >= end {
                    continue;
                }
                let full = ((end - start) / e.len).min(inst);
                if full > u32::MAX as i64 {
                    return Err(self.err("an entry with more than 2^32 tracks"));
                }
                let rest = (end - start) - full * e.len;
                if e.cyllen == 1 || full <= 1 {
                    if full > 0 {
                        cyl_of(full - 1)?;
                        out.push(run(start, e.len, full, 0)?);
                    }
                } else {
                    for q in 0..full {
                        out.push(run(start + q * e.len, e.len, 1, q)?);
                    }
                }
                if rest > 0 {
                    out.push(run(start + full * e.len, rest, 1, full)?);
                }
            } else {
                for q in 0..inst {
                    let s = start + q * e.len;
                    if s >= end {
                        break;
                    }
                    self.flatten(
                        e.child,
                        s,
                        cyl0.saturating_add(e.cyl)
                            .saturating_add(dir.saturating_mul(q).saturating_mul(e.cyllen)),
                        ang0 + e.off + q as f64 * e.alen,
                        end.min(s + e.len),
                        depth + 1,
                        out,
                    )?;
                }
            }
        }
        Ok(())
    }
}

fn read_tree(lay: &Block) -> Result<Tree<'_>> {
    let line_of = |k: &str| lay.get(k).map(|p| p.line).unwrap_or(lay.line);
    let tp_line = line_of("TP");
    let tpl = list(lay, "TP")?;
    if tpl.len() % 3 != 0 || tpl.is_empty() {
        return Err(Error::input(
            lay.path_str(),
            tp_line,
            "dm_layout_g4 `TP`: expected triples low, high, spt",
        ));
    }
    let mut tp = Vec::with_capacity(tpl.len() / 3);
    for t in tpl.chunks(3) {
        let low = int(&t[0], lay, tp_line, "TP low")?;
        let high = int(&t[1], lay, tp_line, "TP high")?;
        let spt = int(&t[2], lay, tp_line, "TP spt")?;
        if low < 0 || high < low || spt <= 0 || high >= spt || spt > u32::MAX as i64 {
            return Err(Error::input(
                lay.path_str(),
                tp_line,
                format!("dm_layout_g4 `TP` {low}, {high}, {spt}: expected 0 ≤ low ≤ high < spt"),
            ));
        }
        tp.push((low as u32, high as u32, spt as u32));
    }
    let idx_line = line_of("IDX");
    let idx_l = list(lay, "IDX")?;
    let mut idx: Vec<Vec<Ent>> = Vec::with_capacity(idx_l.len());
    let bad = |m: &str| Error::input(lay.path_str(), idx_line, format!("dm_layout_g4 `IDX`: {m}"));
    for v in idx_l {
        let Value::List(items) = v else {
            return Err(bad("expected a list of lists"));
        };
        let mut ents = Vec::new();
        let mut p = 0usize;
        while p < items.len() {
            if p + 10 > items.len() {
                return Err(bad("truncated entry (expected 10 fields, 11 for a TRACK)"));
            }
            let n = |k: usize, w: &str| num(&items[p + k], lay, idx_line, w);
            let i = |k: usize, w: &str| int(&items[p + k], lay, idx_line, w);
            let track = match &items[p + 8] {
                Value::Word(w) if w == "TRACK" => true,
                Value::Word(w) if w == "IDX" => false,
                _ => return Err(bad("expected TRACK or IDX as 9th field")),
            };
            if track && p + 11 > items.len() {
                return Err(bad("truncated TRACK entry (expected a head)"));
            }
            let child = i(9, "child")?;
            ents.push(Ent {
                lbn: i(0, "lbn")?,
                cyl: i(1, "cyl")?,
                off: n(2, "off")?,
                len: i(3, "len")?,
                cyllen: i(4, "cyllen")?,
                alen: n(5, "alen")?,
                runlen: i(6, "runlen")?,
                cylrunlen: i(7, "cylrunlen")?,
                track,
                child: usize::try_from(child).map_err(|_| bad("negative child"))?,
                head: if track { i(10, "head")? } else { 0 },
            });
            p += if track { 11 } else { 10 };
        }
        idx.push(ents);
    }
    if idx.is_empty() {
        return Err(bad("empty"));
    }
    Ok(Tree { tp, idx, lay, line: idx_line })
}

/// DiskSim's running slip count for logical `l` over (off, cumulative count).
fn slipcount(e: &[(i64, i64)], l: i64) -> i64 {
    if e.is_empty() {
        return 0;
    }
    let i0 = e.partition_point(|s| s.0 <= l).saturating_sub(1);
    let mut ct = e[i0].1;
    let mut i = i0;
    while i < e.len() && e[i].0 <= l + ct {
        ct = e[i].1;
        i += 1;
    }
    ct
}

pub fn layout(
    lay: &Block,
    surfaces: u32,
    cylinders: u32,
    blocks: u64,
    keep_heads: Option<(u32, u32)>,
    warnings: &mut Vec<String>,
) -> Result<Layout> {
    let tree = read_tree(lay)?;
    let root = tree.idx.len() - 1;
    let mut memo = vec![None; tree.idx.len()];
    let n = tree.count(root, 0, &mut memo)?;
    if n > MAX_RUNS {
        return Err(tree.err(format!("the IDX tree expands to more than {MAX_RUNS} runs of tracks")));
    }
    let mut runs: Vec<Run> = Vec::new();
    tree.flatten(root, 0, 0, 0.0, i64::MAX, 0, &mut runs)?;
    runs.sort_by_key(|r| r.p_start);
    // slips: (off, count) pairs
    let mut slips: Vec<(i64, i64)> = Vec::new();
    if let Some(pp) = lay.get("Slips") {
        let Value::List(items) = &pp.value else {
            return Err(Error::input(lay.path_str(), pp.line, "dm_layout_g4 `Slips`: expected a list"));
        };
        if items.len() % 2 != 0 {
            warnings.push(format!(
                "{}:{}: `Slips` has an odd number of values; the last is ignored (as DiskSim does)",
                lay.path_str(),
                pp.line
            ));
        }
        for c in items.chunks_exact(2) {
            let off = int(&c[0], lay, pp.line, "a slip offset")?;
            let cnt = int(&c[1], lay, pp.line, "a slip count")?;
            if off < 0 {
                return Err(Error::input(
                    lay.path_str(),
                    pp.line,
                    format!("dm_layout_g4 `Slips`: offset {off} (expected ≥ 0)"),
                ));
            }
            slips.push((off, cnt));
        }
    }
    if slips.windows(2).any(|w| w[1].0 < w[0].0) {
        warnings.push(format!("{}: `Slips` not in increasing order; applied sorted", lay.path_str()));
        slips.sort_by_key(|s| s.0);
    }
    let mut remaps: Vec<(i64, i64, i64, i64, i64, i64)> = Vec::new();
    if let Some(pp) = lay.get("Remaps") {
        let Value::List(items) = &pp.value else {
            return Err(Error::input(lay.path_str(), pp.line, "dm_layout_g4 `Remaps`: expected a list"));
        };
        if items.len() % 6 != 0 {
            warnings.push(format!(
                "{}:{}: `Remaps` is not a list of sixes; the rest is ignored (as DiskSim does)",
                lay.path_str(),
                pp.line
            ));
        }
        for c in items.chunks_exact(6) {
            let v: Vec<i64> =
                c.iter().map(|x| int(x, lay, pp.line, "a remap field")).collect::<Result<_>>()?;
            if v[0] < 0
                || v[1] <= 0
                || v[2] < 0
                || !(0..=255).contains(&v[3])
                || v[4] < 0
                || v[5] <= 0
                || v[4] + v[1] > v[5]
            {
                return Err(Error::input(
                    lay.path_str(),
                    pp.line,
                    format!(
                        "dm_layout_g4 `Remaps` {:?}: expected lbn ≥ 0, len > 0, cylinder ≥ 0, head 0–255, sector + len ≤ spt",
                        v
                    ),
                ));
            }
            remaps.push((v[0], v[1], v[2], v[3], v[4], v[5]));
        }
    }
    if let Some((first, count)) = keep_heads {
        let (r, s) = keep_tracks(&runs, &slips, first, count);
        runs = r;
        slips = s;
        if !remaps.is_empty() {
            warnings.push(format!(
                "{}: keeping {count} heads from head {first}: the layout's remaps are dropped",
                lay.path_str()
            ));
            remaps.clear();
        }
    }
    // cumulative counts, with DiskSim's leading (0, 0)
    let mut cum: Vec<(i64, i64)> = Vec::with_capacity(slips.len() + 1);
    let mut tot = 0i64;
    for &(off, c) in &slips {
        tot = tot.saturating_add(c);
        cum.push((off, tot));
    }
    if cum.first().is_some_and(|s| s.0 > 0) {
        cum.insert(0, (0, 0));
    }
    let cap = blocks as i64;
    let mut cands: Vec<i64> = vec![0];
    for (i, &(off, c)) in cum.iter().enumerate() {
        cands.push(off);
        cands.push(off.saturating_sub(c));
        if i > 0 {
            cands.push(off.saturating_sub(cum[i - 1].1));
        }
    }
    cands.retain(|&l| (0..cap).contains(&l));
    cands.sort_unstable();
    cands.dedup();
    let pieces: Vec<(i64, i64)> = cands.iter().map(|&l| (l, slipcount(&cum, l))).collect();
    let k = (-pieces.iter().map(|p| p.1).min().unwrap_or(0)).max(0);
    let mut b = LayoutBuilder::new();
    for r in &runs {
        let mut r = *r;
        r.p_start += k as u64;
        b.push_run_at(r);
    }
    let mut last = None;
    for &(l, ct) in &pieces {
        if last != Some(ct) {
            b.map_from(l as u64, (l + ct + k) as u64);
            last = Some(ct);
        }
    }
    for &(lbn, len, cyl, head, sector, spt) in &remaps {
        let angle = runs
            .iter()
            .find_map(|r| {
                let j = (cyl - r.cyl0 as i64) * r.cyl_dir as i64;
                (r.head0 as i64 == head && j >= 0 && j < r.tracks as i64)
                    .then_some(r.angle0 + j as f64 * r.a_track)
            })
            .unwrap_or(0.0);
        b.remap(
            lbn as u64,
            len as u64,
            Run {
                p_start: 0,
                lpt: len as u32,
                spt: spt as u32,
                first_sector: sector as u32,
                tracks: 1,
                tpc: 1,
                cyl0: u32::try_from(cyl).unwrap_or(u32::MAX),
                cyl_dir: 1,
                head0: head as u8,
                mapping: 0,
                angle0: angle - angle.floor(),
                a_track: 0.0,
                a_cyl: 0.0,
            },
        );
    }
    b.build(surfaces, cylinders, blocks, &lay.path_str())
}

/// Keeps the runs of heads `first..first+count` (renumbered from 0),
/// renumbering the tree's addresses over them in order; slips on kept
/// tracks move with them.
fn keep_tracks(runs: &[Run], slips: &[(i64, i64)], first: u32, count: u32) -> (Vec<Run>, Vec<(i64, i64)>) {
    let mut out = Vec::new();
    // (old start, old end, new start) of the kept runs
    let mut map: Vec<(u64, u64, u64)> = Vec::new();
    let mut next = 0u64;
    for r in runs {
        let len = r.lpt as u64 * r.tracks as u64;
        if (first..first.saturating_add(count)).contains(&(r.head0 as u32)) {
            map.push((r.p_start, r.p_start + len, next));
            let mut r2 = *r;
            r2.p_start = next;
            r2.head0 -= first as u8;
            out.push(r2);
            next += len;
        }
    }
    let new_slips = slips
        .iter()
        .filter_map(|&(off, c)| {
            let x = off as u64;
            let k = map.partition_point(|m| m.0 <= x);
            let m = map.get(k.checked_sub(1)?)?;
            (x < m.1).then(|| ((m.2 + (x - m.0)) as i64, c))
        })
        .collect();
    (out, new_slips)
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse_str;
    use super::*;
    use std::path::Path;

    /// Two surfaces, cylinders 0..3: head 0 up cylinders 0..1, head 1 down
    /// 1..0, then cylinders 2..3 the same way; 10-sector tracks, 0.1
    /// revolution per cylinder on a head.
    const TREE: &str = "dm_layout_g4 {\n TP = [ 0, 9, 10 ],\n IDX = [\n  [ 0, 0, 0.0, 10, 1, 0.1, 20, 2, TRACK, 0, 0,\n    20, 1, 0.5, 10, 1, 0.1, 20, -2, TRACK, 0, 1 ],\n  [ 0, 0, 0.0, 40, 2, 0.25, 80, 4, IDX, 0 ]\n ],\n Slips = [ SLIPS ],\n Remaps = [ REMAPS ]\n}";

    fn g4(slips: &str, remaps: &str, blocks: u64, keep: Option<(u32, u32)>) -> Result<(Layout, Vec<String>)> {
        let t = TREE.replace("SLIPS", slips).replace("REMAPS", remaps);
        let d = parse_str(&t, Path::new("t.layout"), 0).unwrap();
        let mut w = Vec::new();
        let l = layout(&d.blocks[0], 2, 4, blocks, keep, &mut w)?;
        Ok((l, w))
    }

    fn chs(l: &Layout, lba: u64) -> (u32, u32, u32) {
        let x = l.locate(lba).unwrap();
        (x.cyl, x.head, x.sector)
    }

    #[test]
    fn tree_slips_negative_slips_and_remaps() {
        // no slips: LBN 0..9 c0 h0, 10..19 c1 h0, 20..29 c1 h1 (downwards),
        // 30..39 c0 h1, 40.. c2 h0 (second instance, +2 cylinders)
        let (l, _) = g4("", "", 80, None).unwrap();
        assert_eq!(chs(&l, 10), (1, 0, 0));
        assert_eq!(chs(&l, 20), (1, 1, 0));
        assert_eq!(chs(&l, 30), (0, 1, 0));
        assert_eq!(chs(&l, 45), (2, 0, 5));
        // angles: c1 h0 = 0.1; c1 h1 = 0.5; c0 h1 = 0.6; c2 h0 = 0.25
        assert!((l.locate(10).unwrap().angle - 0.1).abs() < 1e-9);
        assert!((l.locate(30).unwrap().angle - 0.6).abs() < 1e-9);
        assert!((l.locate(40).unwrap().angle - 0.25).abs() < 1e-9);
        // slip (5, 1): tree address 5 skipped: LBN 5 at sector 6
        let (l, _) = g4("5, 1", "", 79, None).unwrap();
        assert_eq!(chs(&l, 4), (0, 0, 4));
        assert_eq!(chs(&l, 5), (0, 0, 6));
        // LBN 78 → tree 79: the root's second instance, head 1's second
        // track, downwards from cylinder 3: cylinder 2
        assert_eq!(chs(&l, 78), (2, 1, 9));
        // slips (5, 2), (12, -2): cumulative 2 then 0. slipcount(L): L < 5
        // → 0; L = 5..9 → 2 (tree 7..11); L = 10: 2, and 12 ≤ 10 + 2 → 0:
        // tree 10, the same as L = 8; L ≥ 10 → tree L. DiskSim maps two
        // LBNs to 10 and 11; they are remapped: LBNs 8, 9 → c3 h1 s3..4.
        let (l, _) = g4("5, 2, 12, -2", "8, 2, 3, 1, 3, 10", 80, None).unwrap();
        assert_eq!(chs(&l, 5), (0, 0, 7));
        assert_eq!(chs(&l, 7), (0, 0, 9));
        assert_eq!(chs(&l, 8), (3, 1, 3));
        assert_eq!(chs(&l, 9), (3, 1, 4));
        assert_eq!(chs(&l, 10), (1, 0, 0));
        // the remapped track's angle is the tree's for c3 h1: 0.25 + 0.5,
        // sector 3 of 10 further: 1.05 → 0.05
        assert!((l.locate(8).unwrap().angle - 0.05).abs() < 1e-9);
    }

    #[test]
    fn a_net_negative_slip_count_still_maps() {
        // (3, −1): for L ≥ 3 the count is −1 (3 ≤ L − 1 fails at L = 3
        // but the count is already the entry's): tree address L − 1, so
        // L = 2 and 3 share address 2
        let (l, _) = g4("3, -1", "", 40, None).unwrap();
        assert_eq!(chs(&l, 2), (0, 0, 2));
        assert_eq!(chs(&l, 3), (0, 0, 2));
        assert_eq!(chs(&l, 4), (0, 0, 3));
        assert_eq!(chs(&l, 5), (0, 0, 4));
    }

    #[test]
    fn keeping_head_0_renumbers_its_tracks() {
        // head 0's tracks in tree order: c0, c1, c2, c3; a slip on tree
        // address 22 (head 1) disappears, one on 12 (c1 h0 s2) stays
        let (l, _) = g4("12, 1, 22, 1", "", 39, Some((0, 1))).unwrap();
        assert_eq!(chs(&l, 10), (1, 0, 0));
        assert_eq!(chs(&l, 12), (1, 0, 3));
        assert_eq!(chs(&l, 20), (2, 0, 1));
        assert_eq!(chs(&l, 38), (3, 0, 9));
        assert!(g4("", "", 41, Some((0, 1))).is_err());
        // keeping head 1 only: its tracks, renumbered head 0; a slip on
        // tree address 22 (c1, second sector of head 1's first track) stays
        let (l, _) = g4("12, 1, 22, 1", "", 39, Some((1, 1))).unwrap();
        assert_eq!(chs(&l, 0), (1, 0, 0));
        assert_eq!(chs(&l, 2), (1, 0, 3));
        assert_eq!(chs(&l, 9), (0, 0, 0));
    }

    #[test]
    fn malformed_trees_are_errors() {
        let t = "dm_layout_g4 { TP = [ 0, 9, 10 ], IDX = [ [ 0, 0, 0.0, 10, 1, 0.1, 20, 2, IDX, 0 ] ], Slips = [], Remaps = [] }";
        let d = parse_str(t, Path::new("t.layout"), 0).unwrap();
        let e = layout(&d.blocks[0], 1, 4, 10, None, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("cyclic"), "{e}");
        let t = "dm_layout_g4 { TP = [ 0, 9, 10 ], IDX = [ [ 0, 0, 0.0, 0, 1, 0.1, 20, 2, TRACK, 0, 0 ] ], Slips = [], Remaps = [] }";
        let d = parse_str(t, Path::new("t.layout"), 0).unwrap();
        let e = layout(&d.blocks[0], 1, 4, 10, None, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("len 0"), "{e}");
        let t = "dm_layout_g4 { TP = [ 0, 9, 10 ], IDX = [ [ 0, 0, 0.0, 10, 1, 0.1, 20, 2, TRACK, 0, 0 ] , [ 0, 0, 0.0, 20, 2, 0.25, 100000000, 4, IDX, 0 ] ], Slips = [], Remaps = [] }";
        let d = parse_str(t, Path::new("t.layout"), 0).unwrap();
        let e = layout(&d.blocks[0], 1, 4, 10, None, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("more than"), "{e}");
    }
}
