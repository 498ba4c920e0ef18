//! `dm_mech_g1`: access time type, seek curve, head switch, write settle,
//! rpm (DiskSim's `mech_g1.modspec`), and the extracted seek curve files.
//!
//! Seek types, compared with DiskSim 4.0's `mech_g1_seektime.c` (the model's
//! curves are in [`SeekCurve`]):
//! * `constant`: `Constant seek time` for every access, a zero-distance one
//!   included (DiskSim's function ignores the distance);
//! * `linear`: DiskSim's three-point line through single-cylinder, average
//!   and full-strobe times, with its breakpoint at a third of the cylinders;
//! * `curve`: Lee's equation from the same three figures;
//! * `hpl`: V6 for one cylinder (unless V6 = −1), V2 + V3·√d below V1
//!   cylinders, V4 + V5·d from there;
//! * `hplplus10`: the ten given times up to ten cylinders, then as `hpl`
//!   (V6 unused);
//! * `extracted`: the file's points, linear between them; below the first
//!   point linear from (0, 0) (DiskSim's table starts with zeros when the
//!   file has its `Seek distances measured` line), beyond the last point
//!   extrapolated from the last two.
//!
//! Where DiskSim 4.0's code departs from its manual through a defect, the
//! reader follows the manual and says so here: DiskSim stores `Constant`,
//! `Single cylinder`, `Average` and `Full strobe seek time` in its
//! picosecond clock without converting them from milliseconds (so its
//! `constant`, `linear` and `curve` seeks take almost no time) and never
//! turns the three figures into Lee's coefficients; its `linear` uses the
//! seek distance where the cylinder count is meant and integer multipliers
//! (a step from single-cylinder to full strobe); its `hpl` compares the
//! distance with an unset value instead of V1, so it never uses the square
//! root part. An extracted curve line DiskSim cannot read is skipped with a
//! warning, as DiskSim does.

use super::parse::{Block, Source};
use super::{nums, word, Get};
use crate::device::hdd::seek::SeekCurve;
use crate::device::hdd::AccessTime;
use crate::error::{Error, Result};
use std::path::Path;

/// What the mechanics block says.
pub struct Mech {
    pub seek: SeekCurve,
    pub access: AccessTime,
    pub head_switch_ms: f64,
    pub write_settle_ms: f64,
    pub rpm: f64,
    pub rpm_error_pct: f64,
}

pub fn mechanics(
    mech: &Block,
    g: &Get<'_>,
    src: &dyn Source,
    cylinders: u32,
    warnings: &mut Vec<String>,
) -> Result<Mech> {
    if mech.type_name != "dm_mech_g1" {
        return Err(Error::input(
            mech.path_str(),
            mech.line,
            format!("mechanical model `{}` is not supported: expected dm_mech_g1", mech.type_name),
        ));
    }
    let line_of = |k: &str| mech.get(k).map(|p| p.line).unwrap_or(mech.line);
    // a time ≥ 0 the clock can carry (at most a minute)
    let nonneg = |k: &str, v: f64| -> Result<f64> {
        if !(0.0..=60_000.0).contains(&v) {
            Err(g.refuse(mech, k, format!("`{k} = {v}`: expected a time from 0 to 60000 ms")))
        } else {
            Ok(v)
        }
    };
    let seek = seek_curve(mech, g, src, cylinders, warnings)?;
    let access = match word(mech, "Access time type").unwrap_or("trackSwitchPlusRotation") {
        "trackSwitchPlusRotation" => AccessTime::TrackSwitchPlusRotation,
        "averageRotation" => AccessTime::AverageRotation,
        "constant" => AccessTime::Constant {
            ms: nonneg("Constant access time", g.num_or(mech, "Constant access time", 0.0)?)?,
        },
        other => {
            return Err(Error::input(
                mech.path_str(),
                line_of("Access time type"),
                format!(
                    "unknown `Access time type = {other}`: expected trackSwitchPlusRotation, averageRotation or constant"
                ),
            ))
        }
    };
    // up to a million rpm: a period of at least 60 µs
    let rpm = g.int(mech, "Rotation speed (in rpms)", 1, 1_000_000)? as f64;
    let rpm_error_pct = g.num_or(mech, "Percent error in rpms", 0.0)?;
    if !(0.0..100.0).contains(&rpm_error_pct) {
        return Err(g.refuse(
            mech,
            "Percent error in rpms",
            format!("`Percent error in rpms = {rpm_error_pct}`: expected a percentage from 0 to below 100"),
        ));
    }
    Ok(Mech {
        seek,
        access,
        head_switch_ms: nonneg("Head switch time", g.num(mech, "Head switch time")?)?,
        write_settle_ms: nonneg(
            "Add. write settling delay",
            g.num_or(mech, "Add. write settling delay", 0.0)?,
        )?,
        rpm,
        rpm_error_pct,
    })
}

fn seek_curve(
    mech: &Block,
    g: &Get<'_>,
    src: &dyn Source,
    cylinders: u32,
    warnings: &mut Vec<String>,
) -> Result<SeekCurve> {
    let ty = word(mech, "Seek type")?;
    let line = mech.get("Seek type").map(|p| p.line).unwrap_or(mech.line);
    let time = |k: &str| -> Result<f64> {
        let v = g.num(mech, k)?;
        if v < 0.0 {
            return Err(Error::input(
                mech.path_str(),
                mech.get(k).map(|p| p.line).unwrap_or(line),
                format!("`{k} = {v}`: expected a time ≥ 0"),
            ));
        }
        Ok(v)
    };
    Ok(match ty {
        "constant" => SeekCurve::Constant { ms: time("Constant seek time")? },
        "linear" => SeekCurve::Linear {
            one: time("Single cylinder seek time")?,
            avg: time("Average seek time")?,
            full: time("Full strobe seek time")?,
            cylinders,
        },
        "curve" => SeekCurve::lee(
            time("Single cylinder seek time")?,
            time("Average seek time")?,
            time("Full strobe seek time")?,
            cylinders,
        ),
        "hpl" | "hplplus10" => {
            let vline = mech.get("HPL seek equation values").map(|p| p.line).unwrap_or(line);
            let v = nums(mech, "HPL seek equation values")?;
            if v.len() < 6 {
                return Err(Error::input(
                    mech.path_str(),
                    vline,
                    format!("expected 6 HPL seek equation values, found {}", v.len()),
                ));
            }
            if v[..5].iter().any(|&x| x < 0.0) {
                return Err(Error::input(
                    mech.path_str(),
                    vline,
                    "HPL seek equation values V1..V5 must be ≥ 0 (V6 is a time or −1)",
                ));
            }
            let first10 = if ty == "hplplus10" {
                let f = nums(mech, "First ten seek times")?;
                let fline = mech.get("First ten seek times").map(|p| p.line).unwrap_or(line);
                if f.len() < 10 || f[..10].iter().any(|&x| x < 0.0) {
                    return Err(Error::input(
                        mech.path_str(),
                        fline,
                        format!("expected 10 first seek times ≥ 0, found {}", f.len()),
                    ));
                }
                let mut a = [0.0; 10];
                a.copy_from_slice(&f[..10]);
                Some(a)
            } else {
                None
            };
            SeekCurve::Hpl {
                boundary: v[0],
                short_c: v[1],
                short_k: v[2],
                long_c: v[3],
                long_k: v[4],
                one: if v[5] == -1.0 { None } else { Some(v[5].max(0.0)) },
                first10,
            }
        }
        "extracted" => {
            let f = word(mech, "Full seek curve")?;
            let path = mech.resolve(f);
            let text = src.read(&path).map_err(|e| {
                let at = mech.get("Full seek curve").map(|p| p.line).unwrap_or(line);
                Error::io(mech.path_str(), at, format!("cannot read seek curve {}", path.display()), &e)
            })?;
            seek_text(&text, &path, warnings)?
        }
        other => {
            return Err(Error::input(
                mech.path_str(),
                line,
                format!("unknown `Seek type = {other}`: expected constant, linear, curve, hpl, hplplus10 or extracted"),
            ))
        }
    })
}

/// Reads a DiskSim extracted seek curve file from disk.
pub fn read_seek_file(path: &Path) -> Result<SeekCurve> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Error::io(path.display().to_string(), 0, "cannot read seek curve", &e))?;
    seek_text(&text, path, &mut Vec::new())
}

/// A DiskSim extracted seek curve: an optional `Seek distances measured: n`
/// line, then `distance, time_ms[, stdev]` lines.
pub fn seek_text(text: &str, path: &Path, warnings: &mut Vec<String>) -> Result<SeekCurve> {
    let ps = path.display().to_string();
    let mut dists: Vec<u32> = Vec::new();
    let mut ms = Vec::new();
    let mut header = false;
    let mut declared: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if i == 0 && t.starts_with("Seek distances measured") {
            header = true;
            declared = t.split(':').nth(1).and_then(|n| n.trim().parse::<usize>().ok());
            continue;
        }
        let mut it = t.split(',').map(str::trim);
        let d = it.next().and_then(|x| x.parse::<u32>().ok());
        let v = it.next().and_then(|x| x.parse::<f64>().ok()).filter(|v| v.is_finite());
        match (d, v) {
            (Some(d), Some(v)) => {
                if v < 0.0 {
                    return Err(Error::input(ps, i + 1, format!("seek time {v} ms: expected a time ≥ 0")));
                }
                if let Some(&last) = dists.last() {
                    if d <= last {
                        return Err(Error::input(ps, i + 1, "expected seek distances in increasing order"));
                    }
                }
                dists.push(d);
                ms.push(v);
            }
            _ => warnings
                .push(format!("{ps}:{}: not a `distance, time_ms` line, skipped (as DiskSim does)", i + 1)),
        }
    }
    if dists.is_empty() {
        return Err(Error::input(ps, 0, "expected at least one `distance, time_ms` line"));
    }
    if let Some(n) = declared.filter(|&n| n != dists.len()) {
        warnings.push(format!(
            "{ps}:1: `Seek distances measured: {n}`, but the file holds {} (a cut or edited file?): the curve \
             is read from what is there",
            dists.len()
        ));
    }
    if !header {
        warnings.push(format!(
            "{ps}: no `Seek distances measured` first line: DiskSim reads outside its table for seeks shorter than the first point; prefetchlab interpolates from (0, 0)"
        ));
    }
    Ok(SeekCurve::Extracted { dists, ms })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extracted_file_tolerates_a_bogus_line_with_a_warning() {
        let mut w = Vec::new();
        let s = seek_text("Seek distances measured: 3\n1, 0.5\njunk\n10, 1.0\n", Path::new("x.seek"), &mut w)
            .unwrap();
        assert_eq!(s, SeekCurve::Extracted { dists: vec![1, 10], ms: vec![0.5, 1.0] });
        assert_eq!(w.len(), 2);
        assert!(w[0].contains("x.seek:3"), "{w:?}");
        assert!(w[1].contains("x.seek:1") && w[1].contains("measured: 3`, but the file holds 2"), "{w:?}");
        let mut w = Vec::new();
        seek_text("Seek distances measured: 2\n1, 0.5\n10, 1.0\n", Path::new("x.seek"), &mut w).unwrap();
        assert!(w.is_empty(), "{w:?}");
        let e = seek_text("1, 0.5\n1, 0.6\n", Path::new("x.seek"), &mut w).unwrap_err().to_string();
        assert!(e.contains("x.seek:2") && e.contains("increasing"), "{e}");
        let e = seek_text("1, inf\n", Path::new("x.seek"), &mut Vec::new());
        assert!(e.is_err());
    }
}
