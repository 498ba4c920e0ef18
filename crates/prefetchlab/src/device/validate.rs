//! DiskSim's validation replay and rms demerit figure
//! (`/work/shared/disksim-valid/README.md`).
//!
//! Replay: one request outstanding; request 1 at time 0; request i+1 is
//! issued `next_interarrival_us` of line i after request i completes in the
//! simulation. The simulated access time (issue → completion) of every
//! request is compared, as a distribution, with the measured `service_us`.
//!
//! `rms_ms` buckets both sets as DiskSim's statistics do ("Physical access
//! time" / "Trace access time": 1750 buckets, scale 1000, start 0, step 1,
//! grow 1), builds the cumulative curves and takes the rms of the x
//! difference over q = 0.0001 … 1 (DiskSim's `rms` tool); `rms_exact_ms`
//! does the same on exact quantiles of the raw values.

use super::hdd::{Hdd, Start};
use super::{Device, DiskRequest};
use crate::error::{Error, Result};
use crate::sim::Rng;
use std::path::Path;

/// The outcome of replaying a validation trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Validation {
    pub rms_ms: f64,
    pub rms_exact_ms: f64,
    pub mean_sim_ms: f64,
    pub mean_real_ms: f64,
    pub requests: u64,
    /// The same figures per class of request: where the model is off.
    pub classes: Vec<Residual>,
}

/// The comparison for one class of requests (reads, writes, drive-cache
/// hits and misses as simulated, no / short / long seeks).
#[derive(Debug, Clone, PartialEq)]
pub struct Residual {
    pub class: &'static str,
    pub requests: u64,
    pub mean_sim_ms: f64,
    pub mean_real_ms: f64,
    /// rms over exact quantiles of the class's two samples (ms).
    pub rms_exact_ms: f64,
}

/// One replayed request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sample {
    pub sim_ms: f64,
    pub real_ms: f64,
    pub write: bool,
    /// The simulated drive served it whole from its cache.
    pub hit: bool,
    pub seek_cyl: u64,
}

/// One line of a validation trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceLine {
    pub write: bool,
    pub lba: u64,
    pub sectors: u32,
    pub service_us: f64,
    pub next_interarrival_us: f64,
}

/// The longest service or gap time (µs) a validation trace line may give.
const MAX_TRACE_US: f64 = 86_400e6;

/// Reads `R|W Hit|Miss|… block size service_us next_interarrival_us` lines.
pub fn read_trace(path: &Path) -> Result<Vec<TraceLine>> {
    let ps = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| Error::io(ps.clone(), 0, "cannot read trace", &e))?;
    let mut out = Vec::with_capacity(text.len() / 40);
    for (i, line) in text.lines().enumerate() {
        match parse_trace_line(line) {
            Ok(Some(l)) => out.push(l),
            Ok(None) => {}
            Err(msg) => return Err(Error::input(ps.clone(), i + 1, msg)),
        }
    }
    if out.is_empty() {
        return Err(Error::input(ps, 0, "trace has no requests"));
    }
    Ok(out)
}

/// `digits[.digits]` as the nearest f64 when the digits, as an integer,
/// are below 2^53 and there are at most 22 after the point: that integer
/// over an exact power of ten, one correctly rounded division (Clinger's
/// fast path), so the same value `str::parse` gives; `None` for anything
/// else (signs, exponents, more digits), which `str::parse` then reads.
fn parse_decimal(x: &str) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
        1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let b = x.as_bytes();
    let mut m: u64 = 0;
    let mut frac: Option<usize> = None;
    let mut digits = 0;
    for &c in b {
        match c {
            b'0'..=b'9' => {
                m = m.checked_mul(10)?.checked_add((c - b'0') as u64)?;
                digits += 1;
                if let Some(k) = frac.as_mut() {
                    *k += 1;
                }
            }
            b'.' if frac.is_none() => frac = Some(0),
            _ => return None,
        }
    }
    let k = frac.unwrap_or(0);
    if digits == 0 || m >= 1 << 53 || k >= POW10.len() {
        return None;
    }
    Some(m as f64 / POW10[k])
}

/// One line of a validation trace: `None` for a blank or `#` comment line,
/// else its request or what is wrong with it (also the rule of the
/// `disksim-validate` trace reader, `trace::disksim_validate`).
pub fn parse_trace_line(line: &str) -> std::result::Result<Option<TraceLine>, String> {
    let t = line.trim();
    if t.is_empty() || t.starts_with('#') {
        return Ok(None);
    }
    let mut f = [""; 6];
    let mut n = 0;
    for (slot, field) in f.iter_mut().zip(t.split_whitespace()) {
        *slot = field;
        n += 1;
    }
    let bad =
        |what: &str| format!("expected `R|W Hit|Miss block size service_us next_interarrival_us`: {what}");
    if n < 6 {
        return Err(bad("too few fields"));
    }
    let write = match f[0] {
        "R" | "r" => false,
        "W" | "w" => true,
        _ => return Err(bad("first field must be R or W")),
    };
    let lba = f[2].parse::<u64>().map_err(|_| bad("block is not an integer"))?;
    let sectors = f[3].parse::<u32>().map_err(|_| bad("size is not an integer"))?;
    let finite = |x: &str| parse_decimal(x).or_else(|| x.parse::<f64>().ok()).filter(|v| v.is_finite());
    let service_us = finite(f[4]).ok_or_else(|| bad("service_us is not a finite number"))?;
    let next = finite(f[5]).ok_or_else(|| bad("next_interarrival_us is not a finite number"))?;
    if sectors == 0 || service_us < 0.0 || next < 0.0 {
        return Err(bad("size must be > 0 and times ≥ 0"));
    }
    // a day between two requests at most: the replay's clock adds them up
    if service_us > MAX_TRACE_US || next > MAX_TRACE_US {
        return Err(bad("times must be at most a day (86400000000 µs)"));
    }
    if lba.checked_add(sectors as u64).is_none() {
        return Err(bad("block + size is beyond any drive"));
    }
    Ok(Some(TraceLine { write, lba, sectors, service_us, next_interarrival_us: next }))
}

/// Replays `trace` on the drive of `spec` (`.parv` or `.diskspecs`), with
/// DiskSim parameters overridden by name.
///
/// The drive's capacity is DiskSim's: for a `dm_layout_g1` drive the blocks
/// its zones hold, which DiskSim uses in place of `Block count` (so a trace
/// reaching past `Block count` but within the zones replays, as in
/// DiskSim). A request beyond that capacity stops DiskSim ("Invalid set of
/// blocks requested from disk"); here it is an error naming the trace line.
pub fn validate(spec: &Path, trace: &Path, overrides: &[(String, f64)]) -> Result<Validation> {
    let lines = read_trace(trace)?;
    let params = super::disksim::load_drive(spec, overrides)?;
    validate_params(params, trace, &lines)
}

/// Replays trace `lines` (read from `trace`) on a drive of these parameters,
/// as [`validate`] does.
pub fn validate_params(
    params: super::hdd::DriveParams,
    trace: &Path,
    lines: &[TraceLine],
) -> Result<Validation> {
    let cap = params.layout.capacity_sectors;
    if let Some((i, l)) = lines.iter().enumerate().find(|(_, l)| l.lba + l.sectors as u64 > cap) {
        return Err(Error::input(
            trace.display().to_string(),
            i + 1,
            format!(
                "request {}+{} beyond the drive's {cap} blocks (DiskSim stops on it: \"Invalid set of blocks requested\")",
                l.lba, l.sectors
            ),
        ));
    }
    let cylinders = params.layout.cylinders as u64;
    let mut hdd = Hdd::with_start(params, true, Start::Index, Rng::derive(42, "validate"));
    let samples = replay_samples(&mut hdd, lines);
    let sim: Vec<f64> = samples.iter().map(|s| s.sim_ms).collect();
    let real: Vec<f64> = samples.iter().map(|s| s.real_ms).collect();
    // the samples sorted once, for the whole and for every class
    let orders = Orders::of(&samples);
    let mut v = compare_with(&sim, &real, orders.rms(&samples, |_| true));
    v.classes = residuals_with(&samples, cylinders, &orders);
    Ok(v)
}

/// Replays the lines on a drive; returns (simulated, measured) access
/// times in ms.
pub fn replay(hdd: &mut Hdd, lines: &[TraceLine]) -> (Vec<f64>, Vec<f64>) {
    let s = replay_samples(hdd, lines);
    (s.iter().map(|x| x.sim_ms).collect(), s.iter().map(|x| x.real_ms).collect())
}

/// Replays the lines on a drive, request by request.
pub fn replay_samples(hdd: &mut Hdd, lines: &[TraceLine]) -> Vec<Sample> {
    let mut out = Vec::with_capacity(lines.len());
    let mut t: u64 = 0;
    for l in lines {
        let req = DiskRequest { lba_sector: l.lba, sectors: l.sectors, write: l.write };
        let s = hdd.service(&req, t);
        out.push(Sample {
            sim_ms: (s.done_ns - t) as f64 / 1e6,
            real_ms: l.service_us / 1000.0,
            write: l.write,
            hit: s.cache_hit,
            seek_cyl: s.seek_distance_cyl,
        });
        // gaps are at most a day (read_trace): no overflow in centuries of trace
        t = s.done_ns.saturating_add((l.next_interarrival_us * 1000.0).round() as u64);
    }
    out
}

/// The comparison per class: reads, writes, simulated whole cache hits and
/// misses, no seek, short seeks (under a tenth of the cylinders), long ones.
pub fn residuals(samples: &[Sample], cylinders: u64) -> Vec<Residual> {
    residuals_with(samples, cylinders, &Orders::of(samples))
}

/// The samples' indices in the order of their simulated and of their
/// measured times: the times of any subset, taken in these orders, come
/// out sorted.
struct Orders {
    by_sim: Vec<u32>,
    by_real: Vec<u32>,
}

impl Orders {
    fn of(samples: &[Sample]) -> Orders {
        Orders {
            by_sim: total_order(samples.iter().map(|s| s.sim_ms)),
            by_real: total_order(samples.iter().map(|s| s.real_ms)),
        }
    }

    /// The exact rms of the samples `keep` takes (ms).
    fn rms(&self, samples: &[Sample], keep: impl Fn(&Sample) -> bool) -> f64 {
        let sorted = |order: &[u32], time: fn(&Sample) -> f64| -> Vec<f64> {
            order.iter().map(|&i| &samples[i as usize]).filter(|s| keep(s)).map(time).collect()
        };
        rms_sorted(&sorted(&self.by_sim, |s| s.sim_ms), &sorted(&self.by_real, |s| s.real_ms))
    }
}

fn residuals_with(samples: &[Sample], cylinders: u64, orders: &Orders) -> Vec<Residual> {
    let tenth = (cylinders / 10).max(1);
    type Class<'a> = (&'static str, &'a dyn Fn(&Sample) -> bool);
    let classes: [Class; 7] = [
        ("reads", &|s| !s.write),
        ("writes", &|s| s.write),
        ("cache hits", &|s| s.hit),
        ("cache misses", &|s| !s.hit),
        ("no seek", &|s| !s.hit && s.seek_cyl == 0),
        ("short seeks", &|s| s.seek_cyl > 0 && s.seek_cyl < tenth),
        ("long seeks", &|s| s.seek_cyl >= tenth),
    ];
    classes
        .iter()
        .map(|(class, keep)| {
            // counts and sums in the samples' order
            let (mut n, mut sum_sim, mut sum_real) = (0u64, 0.0, 0.0);
            for s in samples.iter().filter(|s| keep(s)) {
                n += 1;
                sum_sim += s.sim_ms;
                sum_real += s.real_ms;
            }
            let mean = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
            Residual {
                class,
                requests: n,
                mean_sim_ms: mean(sum_sim),
                mean_real_ms: mean(sum_real),
                rms_exact_ms: orders.rms(samples, keep),
            }
        })
        .collect()
}

/// The demerit figures of two samples (ms).
pub fn compare(sim: &[f64], real: &[f64]) -> Validation {
    compare_with(sim, real, rms_exact(sim, real))
}

/// [`compare`] with the exact rms already worked out.
fn compare_with(sim: &[f64], real: &[f64], rms_exact_ms: f64) -> Validation {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    Validation {
        rms_ms: rms_bucketed(sim, real),
        rms_exact_ms,
        mean_sim_ms: mean(sim),
        mean_real_ms: mean(real),
        requests: sim.len() as u64,
        classes: Vec::new(),
    }
}

const BUCKETS: usize = 1750;

/// DiskSim's bucket starts in µs: b0 = 0, b(k+1) = bk + 1 + ⌊bk/100⌋.
fn bucket_starts() -> Vec<u64> {
    let mut b = Vec::with_capacity(BUCKETS + 1);
    let mut x = 0u64;
    for _ in 0..=BUCKETS {
        b.push(x);
        x = x + 1 + x / 100;
    }
    b
}

/// The cumulative curve (x_k ms, F_k) of a sample, up to F = 1.
fn curve(v: &[f64], starts: &[u64]) -> Vec<(f64, f64)> {
    let mut counts = vec![0u64; BUCKETS];
    for &x in v {
        let us = (1000.0 * x).floor().max(0.0) as u64;
        let k = starts.partition_point(|&b| b <= us).saturating_sub(1);
        counts[k.min(BUCKETS - 1)] += 1;
    }
    let n = v.len().max(1) as f64;
    let mut out = Vec::new();
    let mut acc = 0u64;
    for (k, &c) in counts.iter().enumerate() {
        acc += c;
        let f = acc as f64 / n;
        out.push((starts[k + 1] as f64 / 1000.0, f));
        if acc as usize >= v.len() {
            break;
        }
    }
    out
}

/// x at which the curve first reaches q, interpolated with the point before.
fn x_at(c: &[(f64, f64)], q: f64) -> f64 {
    let i = c.partition_point(|&(_, f)| f < q - 1e-12);
    if i >= c.len() {
        return c.last().map(|p| p.0).unwrap_or(0.0);
    }
    let (x1, f1) = c[i];
    let (x0, f0) = if i == 0 { (0.0, 0.0) } else { c[i - 1] };
    if f1 - f0 <= 0.0 {
        return x1;
    }
    x0 + (x1 - x0) * (q - f0) / (f1 - f0)
}

/// DiskSim's rms over bucketed distributions (ms).
pub fn rms_bucketed(sim: &[f64], real: &[f64]) -> f64 {
    if sim.is_empty() || real.is_empty() {
        return 0.0;
    }
    let starts = bucket_starts();
    let a = curve(sim, &starts);
    let b = curve(real, &starts);
    rms_over_quantiles(|q| x_at(&a, q) - x_at(&b, q))
}

/// sqrt(mean of d(q)²) for q = 0.0001, 0.0002, …, 1.0 (the README's method).
fn rms_over_quantiles(d: impl Fn(f64) -> f64) -> f64 {
    let s: f64 = (1..=10_000).map(|i| d(i as f64 / 10_000.0).powi(2)).sum();
    (s / 10_000.0).sqrt()
}

fn quantile(sorted: &[f64], q: f64) -> f64 {
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    let pos = q * (n - 1) as f64;
    let i = pos.floor() as usize;
    let f = pos - i as f64;
    if i + 1 >= n {
        sorted[n - 1]
    } else {
        sorted[i] + f * (sorted[i + 1] - sorted[i])
    }
}

/// The indices of `values` in `f64::total_cmp` order, ties in index order
/// (what a stable `sort_by(f64::total_cmp)` of the indices gives), by a
/// least-significant-digit radix sort of the order-preserving bit keys (8
/// passes of 8 bits, a pass skipped when every key has the same digit):
/// linear in the length, where comparison sorts were most of a
/// 100,000-request validation.
fn total_order(values: impl Iterator<Item = f64>) -> Vec<u32> {
    // total_cmp's key: flip every bit of a negative, the sign bit of the rest
    let key = |x: f64| {
        let b = x.to_bits();
        if b >> 63 == 1 {
            !b
        } else {
            b | (1 << 63)
        }
    };
    let mut items: Vec<(u64, u32)> = values.enumerate().map(|(i, x)| (key(x), i as u32)).collect();
    let n = items.len();
    let mut tmp = vec![(0u64, 0u32); n];
    let mut counts = [[0usize; 256]; 8];
    for &(k, _) in &items {
        for (d, c) in counts.iter_mut().enumerate() {
            c[((k >> (8 * d)) & 0xff) as usize] += 1;
        }
    }
    for (d, c) in counts.iter_mut().enumerate() {
        if c.contains(&n) {
            continue; // every key has the same digit here
        }
        let mut at = 0;
        for m in c.iter_mut() {
            let here = *m;
            *m = at;
            at += here;
        }
        for &it in &items {
            let slot = &mut c[((it.0 >> (8 * d)) & 0xff) as usize];
            tmp[*slot] = it;
            *slot += 1;
        }
        std::mem::swap(&mut items, &mut tmp);
    }
    items.into_iter().map(|(_, i)| i).collect()
}

/// The rms over exact quantiles of two sorted samples (ms).
fn rms_sorted(a: &[f64], b: &[f64]) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    rms_over_quantiles(|q| quantile(a, q) - quantile(b, q))
}

/// The rms over exact quantiles (ms).
pub fn rms_exact(sim: &[f64], real: &[f64]) -> f64 {
    if sim.is_empty() || real.is_empty() {
        return 0.0;
    }
    let a: Vec<f64> = total_order(sim.iter().copied()).into_iter().map(|i| sim[i as usize]).collect();
    let b: Vec<f64> = total_order(real.iter().copied()).into_iter().map(|i| real[i as usize]).collect();
    rms_sorted(&a, &b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_radix_order_is_a_stable_total_cmp_sort() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed
        };
        for n in [0usize, 1, 255, 256, 1000, 10_000] {
            let mut v: Vec<f64> = (0..n)
                .map(|i| match i % 7 {
                    0 => -0.0,
                    1 => 0.0,
                    2 => -((next() >> 11) as f64) / 1e3,
                    3 => f64::NAN,
                    4 => f64::INFINITY,
                    _ => (next() >> 20) as f64 / 7.0,
                })
                .collect();
            let mut want: Vec<u32> = (0..n as u32).collect();
            want.sort_by(|&i, &j| v[i as usize].total_cmp(&v[j as usize]));
            assert_eq!(total_order(v.iter().copied()), want, "n = {n}");
            v.clear();
        }
    }

    #[test]
    fn the_decimal_fast_path_reads_what_str_parse_reads() {
        for x in [
            "4067.00000",
            "9.00000",
            "0",
            "0.1",
            "123456789.123456",
            "1.",
            ".5",
            "9007199254740991",
            "0.333333333333333",
        ] {
            assert_eq!(parse_decimal(x).map(f64::to_bits), Some(x.parse::<f64>().unwrap().to_bits()), "{x}");
        }
        for x in ["-1.0", "1e3", "9007199254740993", ".", "", "1.2.3", "inf", "0.3333333333333333333333"] {
            assert_eq!(parse_decimal(x), None, "{x}");
        }
    }

    #[test]
    fn buckets_follow_disksim_growth() {
        let b = bucket_starts();
        assert_eq!(&b[..3], &[0, 1, 2]);
        assert_eq!(b[100], 100);
        assert_eq!(b[101], 102);
        assert_eq!(b[102], 104);
    }

    #[test]
    fn identical_samples_have_zero_rms_and_shift_shows() {
        let a: Vec<f64> = (0..1000).map(|i| 1.0 + i as f64 * 0.01).collect();
        assert_eq!(rms_bucketed(&a, &a), 0.0);
        assert_eq!(rms_exact(&a, &a), 0.0);
        let b: Vec<f64> = a.iter().map(|x| x + 0.5).collect();
        let e = rms_exact(&a, &b);
        assert!((e - 0.5).abs() < 1e-9, "{e}");
        let r = rms_bucketed(&a, &b);
        assert!((r - 0.5).abs() < 0.05, "{r}");
    }

    #[test]
    fn bad_trace_line_is_reported() {
        let d = std::env::temp_dir().join(format!("pl-vtrace-{}", std::process::id()));
        std::fs::write(&d, "R Hit 10 4 100.0 200.0\nX Hit 1 1 1 1\n").unwrap();
        let e = read_trace(&d).unwrap_err().to_string();
        assert!(e.contains(":2:"), "{e}");
        for bad in ["inf", "NaN", "infinity", "1e999"] {
            std::fs::write(&d, format!("R Hit 10 4 100.0 200.0\nR Miss 1 1 {bad} 1\n")).unwrap();
            let e = read_trace(&d).unwrap_err().to_string();
            assert!(e.contains(":2:") && e.contains("service_us is not a finite number"), "{bad}: {e}");
            std::fs::write(&d, format!("R Hit 10 4 100.0 {bad}\n")).unwrap();
            let e = read_trace(&d).unwrap_err().to_string();
            assert!(e.contains(":1:") && e.contains("next_interarrival_us"), "{bad}: {e}");
        }
        // a gap or service of more than a day, a request past 2^64 blocks
        for line in ["R Miss 1 1 1 1e30", "R Miss 1 1 1e12 1", "R Miss 18446744073709551615 8 1 1"] {
            std::fs::write(&d, format!("R Hit 10 4 100.0 200.0\n{line}\n")).unwrap();
            let e = read_trace(&d).unwrap_err().to_string();
            assert!(e.contains(":2:"), "{line}: {e}");
        }
        std::fs::remove_file(&d).ok();
    }
}
