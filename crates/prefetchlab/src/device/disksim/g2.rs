//! `dm_layout_g2` (DiskSim's `layout_g2.c`, `layout_g2_load.c`): the
//! mapping is a raw map file (`Layout Map File`, DIXtrac's `layout.mappings`
//! format) and the zones give sectors per track and skews.
//!
//! The map file: two title lines, `C cylinders, R rot, H heads`, then one
//! line per extent `lbn L --> cyl C, head H, sect S, seqcnt N` (N+1 blocks;
//! any other word than `seqcnt` before the count means N blocks), then
//! optional `Defect at cyl C, head H, sect S` lines; reading stops at the
//! first line of neither form, as DiskSim's `fscanf` loop does. LBN `L + i`
//! of an extent is sector `S + i` of its track.
//!
//! Angles follow DiskSim's `pbn_skew_new`/`precompute_skews`: walking the
//! extents in file order, each cylinder's first extent starts at the
//! cylinder's skew; the next cylinder's skew is this one's plus `Skew for
//! track switch` per change of head within the cylinder and `Skew for
//! cylinder switch` at the change of cylinder; the first cylinder of a zone
//! (other than cylinder 0) starts at `Zone Skew` instead — and, as in
//! DiskSim, the cylinder after it does not carry the zone skew. A track's
//! sector 0 is at its cylinder's skew plus one track-switch skew per change
//! of head from the cylinder's first extent to the track's first.
//! Capacity is `Block count`; every block below it must be in an extent.

use super::parse::{Block, Source, Value};
use super::{list, word, Get, INT_MAX};
use crate::device::hdd::geometry::{Layout, LayoutBuilder, Run};
use crate::error::{Error, Result};

struct Zone {
    c0: u32,
    c1: u32,
    st: u32,
    zskew: f64,
    hs: f64,
    cs: f64,
}

#[derive(Debug, Clone, Copy)]
struct Ext {
    lbn: u64,
    cyl: u32,
    head: u32,
    sector: u32,
    len: u32,
}

/// Parses `lbn L --> cyl C, head H, sect S, WORD N`.
fn ext_line(t: &str) -> Option<Ext> {
    let t = t.strip_prefix("lbn ")?;
    let (lbn, rest) = t.split_once("-->")?;
    let f: Vec<&str> = rest.split(',').map(str::trim).collect();
    if f.len() != 4 {
        return None;
    }
    let field = |s: &str, key: &str| s.strip_prefix(key).and_then(|x| x.trim().parse::<u32>().ok());
    let (word, n) = f[3].split_once(char::is_whitespace)?;
    let n = n.trim().parse::<u32>().ok()?;
    Some(Ext {
        lbn: lbn.trim().parse().ok()?,
        cyl: field(f[0], "cyl")?,
        head: field(f[1], "head")?,
        sector: field(f[2], "sect")?,
        len: if word == "seqcnt" { n.checked_add(1)? } else { n },
    })
}

pub fn layout(
    lay: &Block,
    g: &Get<'_>,
    src: &dyn Source,
    surfaces: u32,
    cylinders: u32,
    blocks: u64,
    warnings: &mut Vec<String>,
) -> Result<Layout> {
    let mline = lay.get("Layout Map File").map(|p| p.line).unwrap_or(lay.line);
    let file = word(lay, "Layout Map File")?;
    let path = lay.resolve(file);
    let text = src.read(&path).map_err(|e| {
        let what = format!("dm_layout_g2: cannot read its `Layout Map File` {}", path.display());
        Error::io(lay.path_str(), mline, what, &e)
    })?;
    let ps = path.display().to_string();
    // zones
    let mut zones = Vec::new();
    for v in list(lay, "Zones")? {
        let Value::Block(z) = v else {
            return Err(Error::input(lay.path_str(), lay.line, "`Zones`: expected a list of zone blocks"));
        };
        let st = g.int(z, "Blocks per track", 1, INT_MAX)? as u32;
        let units_at = z.position("Skew units");
        let revs = match units_at.map(|i| &z.params[i].value) {
            None => false,
            Some(Value::Word(w)) if w == "revolutions" => true,
            Some(Value::Word(w)) if w == "sectors" => false,
            Some(_) => {
                return Err(Error::input(
                    z.path_str(),
                    z.line,
                    "`Skew units`: expected `revolutions` or `sectors`",
                ))
            }
        };
        let ang = |k: &str| -> Result<f64> {
            let v = g.num_or(z, k, 0.0)?;
            let r = revs && units_at.is_some_and(|u| z.position(k).is_none_or(|p| u < p));
            Ok(if r { v - v.floor() } else { v.trunc() / st as f64 })
        };
        zones.push(Zone {
            c0: g.int(z, "First cylinder number", 0, INT_MAX)? as u32,
            c1: g.int(z, "Last cylinder number", 0, INT_MAX)? as u32,
            st,
            zskew: ang("Zone Skew")?,
            hs: ang("Skew for track switch")?,
            cs: ang("Skew for cylinder switch")?,
        });
    }
    if zones.is_empty() {
        return Err(Error::input(lay.path_str(), lay.line, "`Zones`: expected at least one zone"));
    }
    let zone_of = |c: u32| zones.iter().position(|z| z.c0 <= c && c <= z.c1);
    // the map file
    let mut lines = text.lines().enumerate().skip(2);
    let header = lines.next().map(|(_, l)| l.trim()).unwrap_or("");
    let ok_header = header.split_once("cylinders,").is_some_and(|(c, _)| c.trim().parse::<u64>().is_ok())
        && header.trim_end().ends_with("heads");
    if !ok_header {
        return Err(Error::input(
            ps,
            3,
            "expected `C cylinders, R rot, H heads` on line 3 of a layout map file",
        ));
    }
    let mut exts: Vec<Ext> = Vec::new();
    let mut stopped_at = None;
    for (i, l) in lines {
        let t = l.trim();
        if let Some(e) = ext_line(t) {
            if !exts.is_empty() && stopped_at.is_some() {
                break;
            }
            if e.len == 0 {
                continue;
            }
            let Some(z) = zone_of(e.cyl) else {
                return Err(Error::input(ps, i + 1, format!("extent on cylinder {}, in no zone", e.cyl)));
            };
            if e.sector as u64 + e.len as u64 > zones[z].st as u64 || e.head > 255 {
                return Err(Error::input(
                    ps,
                    i + 1,
                    format!(
                        "extent of {} blocks from sector {} on a track of {} (head ≤ 255)",
                        e.len, e.sector, zones[z].st
                    ),
                ));
            }
            exts.push(e);
        } else if t.starts_with("Defect at") {
            stopped_at.get_or_insert(i);
        } else {
            if !t.is_empty() {
                warnings.push(format!(
                    "{ps}:{}: the layout map is read up to here (as DiskSim's reader stops)",
                    i + 1
                ));
            }
            break;
        }
    }
    if exts.is_empty() {
        return Err(Error::input(ps, 0, "expected `lbn L --> cyl C, head H, sect S, seqcnt N` lines"));
    }
    // skews per cylinder, as DiskSim precomputes them
    let maxc = exts.iter().map(|e| e.cyl).max().unwrap_or(0) as usize;
    let mut skew = vec![0.0f64; maxc + 2];
    let mut first = vec![usize::MAX; maxc + 2];
    first[0] = 0;
    let mut zi = 0usize;
    for i in 0..exts.len() {
        let c = exts[i].cyl as usize;
        if first[c] == usize::MAX {
            first[c] = i;
            if zones[zi].c1 < c as u32 {
                zi += 1;
                if zi >= zones.len() {
                    return Err(Error::input(ps, 0, format!("cylinder {c} follows the last zone")));
                }
            }
            if c as u32 == zones[zi].c0 {
                skew[c] = zones[zi].zskew;
            } else {
                skew[c + 1] = skew[c];
            }
        }
        let (nc, nh) = exts.get(i + 1).map(|n| (n.cyl as usize, n.head)).unwrap_or((0, 0));
        if nc != c {
            skew[c + 1] += zones[zi].cs;
        } else if nh != exts[i].head {
            skew[c + 1] += zones[zi].hs;
        }
    }
    let mut b = LayoutBuilder::new();
    for e in &exts {
        let c = e.cyl as usize;
        let z = &zones[zone_of(e.cyl).expect("checked")];
        let fe = first[c];
        let mut a = skew[c];
        let (mut lc, mut lh) = (exts[fe].cyl, exts[fe].head);
        for x in &exts[fe..] {
            if x.cyl != lc {
                a += z.cs;
                lc = x.cyl;
            }
            if x.head != lh {
                a += z.hs;
                lh = x.head;
            }
            if x.cyl == e.cyl && x.head == e.head {
                break;
            }
        }
        b.push_run_at(Run {
            p_start: e.lbn,
            lpt: e.len,
            spt: z.st,
            first_sector: e.sector,
            tracks: 1,
            tpc: 1,
            cyl0: e.cyl,
            cyl_dir: 1,
            head0: e.head as u8,
            mapping: 0,
            angle0: a - a.floor(),
            a_track: 0.0,
            a_cyl: 0.0,
        });
    }
    b.build(surfaces, cylinders, blocks, &lay.path_str())
}

#[cfg(test)]
mod tests {
    use super::super::parse::{parse_with, MemFiles};
    use super::*;
    use std::path::Path;

    const MAP: &str = "vendor model\nsecond line\n2 cylinders, 6000 rot, 2 heads\nlbn 0 --> cyl 0, head 0, sect 0, seqcnt 9\nlbn 10 --> cyl 0, head 1, sect 0, seqcnt 9\nlbn 20 --> cyl 1, head 1, sect 0, seqcnt 4\nlbn 25 --> cyl 1, head 1, sect 6, len 4\nlbn 29 --> cyl 1, head 0, sect 0, seqcnt 9\nDefect at cyl 1, head 1, sect 5\n";

    #[test]
    fn map_file_extents_and_skews() {
        let mut m = MemFiles::new();
        m.add("/d/map", MAP);
        let t = "dm_layout_g2 { Layout Map File = map, Zones = [ dm_layout_g2_zone { First cylinder number = 0, Last cylinder number = 1, First LBN = 0, Last LBN = 38, Blocks per track = 10, Zone Skew = 2, Skew for track switch = 1, Skew for cylinder switch = 3 } ] }";
        let d = parse_with(t, Path::new("/d/x.model"), 0, &m).unwrap();
        let l = layout(&d.blocks[0], &Get::new(&[]), &m, 2, 2, 39, &mut Vec::new()).unwrap();
        let at = |lba| {
            let x = l.locate(lba).unwrap();
            (x.cyl, x.head, x.sector, (x.angle * 10.0).round() as u32 % 10)
        };
        // cylinder 0 is not given the zone skew (DiskSim starts it at 0):
        // LBN 0 at 0; head 1 one track switch later: 0.1
        assert_eq!(at(0), (0, 0, 0, 0));
        assert_eq!(at(10), (0, 1, 0, 1));
        // cylinder 1: one head change in cylinder 0 (+1) and a cylinder
        // change (+3): 4 sectors; its head 1 is first; the slipped sector
        // 5 is skipped; head 0 comes after one head change: 5
        assert_eq!(at(20), (1, 1, 0, 4));
        assert_eq!(at(25), (1, 1, 6, 0));
        assert_eq!(at(29), (1, 0, 0, 5));
        // a missing map file is named
        let t = "dm_layout_g2 { Layout Map File = nope, Zones = [] }";
        let d = parse_with(t, Path::new("/d/x.model"), 0, &m).unwrap();
        let e = layout(&d.blocks[0], &Get::new(&[]), &m, 2, 2, 39, &mut Vec::new()).unwrap_err().to_string();
        assert!(e.contains("/d/x.model:1") && e.contains("/d/nope") && e.contains("Layout Map File"), "{e}");
    }
}
