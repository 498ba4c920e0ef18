//! Seek-time curves (models.md §1.2), as DiskSim's `dm_mech_g1` forms:
//! `constant`, `linear` (through single-cylinder / average / full stroke),
//! `curve` (Lee's three-point equation), `hpl`, `hplplus10` and `extracted`
//! (a measured piecewise-linear table). All times in milliseconds here; the
//! drive converts to nanoseconds.

/// A seek curve: time to move the arm `d` cylinders (0 for d = 0).
#[derive(Debug, Clone, PartialEq)]
pub enum SeekCurve {
    Constant {
        ms: f64,
    },
    /// Piecewise linear through (1, one), (N/3, avg), (N-1, full).
    Linear {
        one: f64,
        avg: f64,
        full: f64,
        cylinders: u32,
    },
    /// Lee: a·√(d−1) + b·(d−1) + c (models.md §1.2(c)).
    Lee {
        a: f64,
        b: f64,
        c: f64,
    },
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
    /// Measured (distance, ms) points, interpolated linearly (extrapolated
    /// from the last two beyond the last point).
    Extracted {
        dists: Vec<u32>,
        ms: Vec<f64>,
    },
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

    /// Seek time in ms for a move of `d` cylinders.
    #[inline]
    pub fn ms(&self, d: u32) -> f64 {
        if d == 0 {
            return 0.0;
        }
        match self {
            SeekCurve::Constant { ms } => *ms,
            SeekCurve::Linear { one, avg, full, cylinders } => {
                let n = (*cylinders).max(4) as f64;
                let x = d as f64;
                let third = n / 3.0;
                if x <= 1.0 {
                    *one
                } else if x <= third {
                    one + (avg - one) * (x - 1.0) / (third - 1.0)
                } else {
                    avg + (full - avg) * (x - third) / (n - 1.0 - third).max(1.0)
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
                let n = dists.len();
                if n == 0 {
                    return 0.0;
                }
                if n == 1 {
                    return ms[0];
                }
                let i = dists.partition_point(|&x| x < d);
                if i < n && dists[i] == d {
                    return ms[i];
                }
                // DiskSim interpolates between the neighbours; below the
                // first point it uses the first two, beyond the last the
                // last two.
                let i = i.clamp(1, n - 1);
                let (d1, d2) = (dists[i - 1] as f64, dists[i] as f64);
                let (t1, t2) = (ms[i - 1], ms[i]);
                let t = t1 + (d as f64 - d1) * (t2 - t1) / (d2 - d1).max(1.0);
                t.max(0.0)
            }
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

#[cfg(test)]
mod tests {
    use super::*;

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
