//! Seek-time curves (models.md §1.2), as DiskSim's `dm_mech_g1` forms:
//! `constant`, `linear` (through single-cylinder / average / full stroke),
//! `curve` (Lee's three-point equation), `hpl`, `hplplus10` and `extracted`
//! (a measured piecewise-linear table). All times in milliseconds here; the
//! drive converts to nanoseconds. How each compares with DiskSim 4.0's
//! `mech_g1_seektime.c` is written in `device::disksim::mech`.

use super::geometry::Buckets;

/// A seek curve: time to move the arm `d` cylinders (0 for d = 0).
#[derive(Debug, Clone, PartialEq)]
pub enum SeekCurve {
    /// The same time for every access, a zero-distance one included.
    Constant { ms: f64 },
    /// DiskSim's three-point line over N cylinders: `one` for d = 1; for
    /// d ≤ ⌊N/3⌋, one + 3(d−1)/N·(avg − one); beyond, avg + (3d − N)/(2N)·(full − avg).
    Linear { one: f64, avg: f64, full: f64, cylinders: u32 },
    /// Lee: a·√(d−1) + b·(d−1) + c (models.md §1.2(c)).
    Lee { a: f64, b: f64, c: f64 },
    /// Ruemmler–Wilkes / DiskSim HPL six values (boundary, short const,
    /// short √ coefficient, long const, long linear coefficient, one or −1),
    /// with optionally the first ten distances given explicitly.
    Hpl {
        boundary: f64,
        short_c: f64,
        short_k: f64,
        long_c: f64,
        long_k: f64,
        one: Option<f64>,
        first10: Option<[f64; 10]>,
    },
    /// Measured (distance, ms) points, interpolated linearly; linear from
    /// (0, 0) below the first point and extrapolated from the last two
    /// beyond the last.
    Extracted { dists: Vec<u32>, ms: Vec<f64> },
}

impl SeekCurve {
    /// Lee's coefficients from datasheet figures (single-cylinder `one`,
    /// average `avg`, full stroke `full`, `n` cylinders). When they give a
    /// convex or non-monotone curve (a < 0 or b < 0), DiskSim keeps the
    /// figures; we fall back to the nearest valid fit (b = 0 or a = 0) that
    /// keeps single-cylinder and full stroke.
    pub fn lee(one: f64, avg: f64, full: f64, n: u32) -> SeekCurve {
        let nf = n.max(2) as f64;
        let a = (-10.0 * one + 15.0 * avg - 5.0 * full) / (3.0 * nf.sqrt());
        let b = (7.0 * one - 15.0 * avg + 8.0 * full) / (3.0 * nf);
        if a >= 0.0 && b >= 0.0 {
            SeekCurve::Lee { a, b, c: one }
        } else if a < 0.0 {
            SeekCurve::Lee { a: 0.0, b: (full - one) / (nf - 1.0), c: one }
        } else {
            SeekCurve::Lee { a: (full - one) / (nf - 1.0).sqrt(), b: 0.0, c: one }
        }
    }

    /// Seek time in ms for a move of `d` cylinders (0 for d = 0, except
    /// the constant curve).
    #[inline]
    pub fn ms(&self, d: u32) -> f64 {
        if let SeekCurve::Constant { ms } = self {
            return *ms;
        }
        if d == 0 {
            return 0.0;
        }
        match self {
            SeekCurve::Constant { ms } => *ms,
            SeekCurve::Linear { one, avg, full, cylinders } => {
                let n = (*cylinders).max(1);
                let (x, nf) = (d as f64, n as f64);
                if d == 1 {
                    *one
                } else if d <= n / 3 {
                    one + 3.0 * (x - 1.0) / nf * (avg - one)
                } else {
                    avg + (3.0 * x - nf) / (2.0 * nf) * (full - avg)
                }
            }
            SeekCurve::Lee { a, b, c } => {
                let x = (d - 1) as f64;
                a * x.sqrt() + b * x + c
            }
            SeekCurve::Hpl { boundary, short_c, short_k, long_c, long_k, one, first10 } => {
                if let Some(f) = first10 {
                    if d <= 10 {
                        return f[(d - 1) as usize];
                    }
                } else if let (1, Some(o)) = (d, one) {
                    return *o;
                }
                let x = d as f64;
                if x < *boundary {
                    short_c + short_k * x.sqrt()
                } else {
                    long_c + long_k * x
                }
            }
            SeekCurve::Extracted { dists, ms } => {
                extracted_ms(dists, ms, d, dists.partition_point(|&x| x < d))
            }
        }
    }

    /// [`ms`](Self::ms), the search of an extracted curve's points narrowed
    /// by `index` (built from this curve): the same value.
    #[inline]
    pub fn ms_indexed(&self, d: u32, index: &SeekIndex) -> f64 {
        match self {
            SeekCurve::Extracted { dists, ms } if d != 0 => {
                // the points below d: those at most d - 1
                let i = index.0.count_le(dists, |&x| x as u64, d as u64 - 1);
                extracted_ms(dists, ms, d, i)
            }
            _ => self.ms(d),
        }
    }

    /// Mean seek over independent uniform start/end cylinders (models.md
    /// §1.2(c): triangular weights), for reports and calibration checks.
    pub fn mean_random_ms(&self, cylinders: u32) -> f64 {
        let n = cylinders.max(2) as u64;
        let mut num = 0.0;
        let mut den = 0.0;
        // weights (N - d) for d = 1..N-1; sample at most ~20k points
        let step = ((n / 20_000).max(1)) as u32;
        let mut d = 1u32;
        while (d as u64) < n {
            let w = (n - d as u64) as f64;
            num += w * self.ms(d);
            den += w;
            d += step;
        }
        num / den
    }
}

/// An extracted curve's seek time for distance `d`, the first point at or
/// beyond it being `i`: that point's time, else between the neighbours;
/// below the first point from (0, 0); beyond the last, the last two points
/// (or (0, 0) and the only one).
#[inline]
fn extracted_ms(dists: &[u32], ms: &[f64], d: u32, i: usize) -> f64 {
    let n = dists.len();
    if n == 0 {
        return 0.0;
    }
    if i < n && dists[i] == d {
        return ms[i];
    }
    let ((d1, t1), (d2, t2)) = if i == 0 || (i == n && n == 1) {
        ((0.0, 0.0), (dists[0] as f64, ms[0]))
    } else {
        let i = i.min(n - 1);
        ((dists[i - 1] as f64, ms[i - 1]), (dists[i] as f64, ms[i]))
    };
    let t = t1 + (d as f64 - d1) * (t2 - t1) / (d2 - d1).max(1.0);
    t.max(0.0)
}

/// The layout's coarse index (`Buckets`) over an extracted curve's
/// distances: a drive's curve can have hundreds of points, and a positional
/// scheduler weighs a seek for every queued command.
#[derive(Debug, Clone, Default)]
pub struct SeekIndex(Buckets);

impl SeekIndex {
    pub fn new(curve: &SeekCurve) -> SeekIndex {
        match curve {
            SeekCurve::Extracted { dists, .. } => SeekIndex(Buckets::new(dists.iter().map(|&x| x as u64))),
            _ => SeekIndex::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_gives_the_curves_own_values() {
        // 40 uneven points: every distance, beyond the last too, bit for bit
        let dists: Vec<u32> = (1..=40u32).map(|k| k * k + k / 3).collect();
        let ms: Vec<f64> = dists.iter().map(|&d| 0.3 + (d as f64).sqrt() * 0.17).collect();
        let c = SeekCurve::Extracted { dists: dists.clone(), ms };
        let idx = SeekIndex::new(&c);
        for d in 0..dists[39] + 200 {
            assert_eq!(c.ms_indexed(d, &idx).to_bits(), c.ms(d).to_bits(), "{d}");
        }
        // other curves pass through
        let lee = SeekCurve::Lee { a: 0.1, b: 0.001, c: 0.5 };
        assert_eq!(lee.ms_indexed(77, &SeekIndex::new(&lee)), lee.ms(77));
    }

    #[test]
    fn lee_reproduces_its_three_points() {
        let n = 10_000u32;
        let s = SeekCurve::lee(0.8, 8.5, 17.0, n);
        assert!((s.ms(1) - 0.8).abs() < 1e-9);
        assert!((s.ms(n) - 17.0).abs() < 0.01, "{}", s.ms(n));
        let m = s.mean_random_ms(n);
        assert!((m - 8.5).abs() < 0.05, "{m}");
        assert_eq!(s.ms(0), 0.0);
    }

    #[test]
    fn extracted_interpolates_and_extrapolates() {
        let s = SeekCurve::Extracted { dists: vec![1, 10, 100], ms: vec![1.0, 2.0, 5.0] };
        assert_eq!(s.ms(10), 2.0);
        assert!((s.ms(55) - 3.5).abs() < 1e-12);
        assert!((s.ms(190) - 8.0).abs() < 1e-12);
        // below the first point: from (0, 0), as DiskSim's zero-led table
        // (checked against DiskSim: points 3→1.0, 10→2.0, 50→4.0 give
        // 1→0.333, 2→0.667, 60→4.5, 99→6.45)
        let s = SeekCurve::Extracted { dists: vec![3, 10, 50], ms: vec![1.0, 2.0, 4.0] };
        assert!((s.ms(1) - 1.0 / 3.0).abs() < 1e-12);
        assert!((s.ms(2) - 2.0 / 3.0).abs() < 1e-12);
        assert!((s.ms(60) - 4.5).abs() < 1e-12);
        assert!((s.ms(99) - 6.45).abs() < 1e-12);
        assert_eq!(s.ms(0), 0.0);
    }

    #[test]
    fn linear_and_constant_follow_disksims_definitions() {
        // N = 99: d ≤ 33 on the first line, beyond on the second
        let s = SeekCurve::Linear { one: 1.0, avg: 4.0, full: 7.0, cylinders: 99 };
        assert_eq!(s.ms(0), 0.0);
        assert_eq!(s.ms(1), 1.0);
        // 1 + 3·(33−1)/99·3 = 1 + 96/99·3 = 3.909…
        assert!((s.ms(33) - (1.0 + 3.0 * 32.0 / 99.0 * 3.0)).abs() < 1e-12);
        // 4 + (3·34 − 99)/198·3 = 4 + 3/198·3
        assert!((s.ms(34) - (4.0 + 9.0 / 198.0)).abs() < 1e-12);
        // d = N: full
        assert!((s.ms(99) - 7.0).abs() < 1e-12);
        let c = SeekCurve::Constant { ms: 2.5 };
        assert_eq!((c.ms(0), c.ms(1), c.ms(1000)), (2.5, 2.5, 2.5));
    }

    #[test]
    fn hpl_uses_v6_for_one_cylinder_and_the_root_below_v1() {
        let h = |one| SeekCurve::Hpl {
            boundary: 30.0,
            short_c: 1.0,
            short_k: 0.5,
            long_c: 5.0,
            long_k: 0.01,
            one,
            first10: None,
        };
        assert_eq!(h(Some(2.0)).ms(1), 2.0);
        assert_eq!(h(None).ms(1), 1.5);
        assert!((h(None).ms(16) - 3.0).abs() < 1e-12);
        assert!((h(None).ms(30) - 5.3).abs() < 1e-12);
    }

    #[test]
    fn hplplus10_uses_table_then_equation() {
        let mut f = [0.0; 10];
        for (i, x) in f.iter_mut().enumerate() {
            *x = 2.0 + i as f64 * 0.1;
        }
        let s = SeekCurve::Hpl {
            boundary: 300.0,
            short_c: 3.81,
            short_k: 0.33,
            long_c: 7.75,
            long_k: 0.0059,
            one: None,
            first10: Some(f),
        };
        assert_eq!(s.ms(3), 2.2);
        assert!((s.ms(100) - (3.81 + 3.3)).abs() < 1e-12);
        assert!((s.ms(1000) - (7.75 + 5.9)).abs() < 1e-12);
    }
}
