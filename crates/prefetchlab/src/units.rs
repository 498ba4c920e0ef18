//! Units used across the engine: integer nanoseconds for time, bytes for
//! sizes, 4 KiB pages/blocks for caches and arrays, 512-byte sectors for drives.
//!
//! Size strings follow the storage convention of Linux (`read_ahead_kb`) and of
//! the papers: `K`, `KB` and `KiB` all mean 1024 bytes (likewise M, G, T, and
//! `PB`/`PiB`, `E`/`EB`/`EiB`; a lone `P` is refused as ambiguous with pages).
//! Sizes that do not fit in a `u64` of bytes, and durations longer than
//! [`MAX_DURATION_NS`], are refused, never wrapped or saturated.

/// Bytes in a page (= file-system block = array block), as in all the papers.
pub const PAGE_BYTES: u64 = 4096;
/// Bytes in a drive sector.
pub const SECTOR_BYTES: u64 = 512;
/// Sectors per page.
pub const SECTORS_PER_PAGE: u64 = PAGE_BYTES / SECTOR_BYTES;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// The longest duration a configuration may give: 2^63 − 1 ns, about 292
/// years — the range of TOML's (signed) integers, so that every resolved
/// configuration can be written back as TOML or JSON and read again.
pub const MAX_DURATION_NS: u64 = i64::MAX as u64;
/// What a duration beyond [`MAX_DURATION_NS`] is told.
pub const DURATION_TOO_LONG: &str =
    "is longer than the simulated clock allows (at most 2^63 - 1 ns, about 292 years)";

/// The lowest bandwidth a device model (SSD channel, network link) accepts:
/// 1 MB/s. Below it a value is almost surely a unit slip (`250` bytes/s
/// meant as 250 MB/s), and a zero would make every transfer endless.
pub const MIN_BANDWIDTH_BYTES_PER_S: u64 = 1_000_000;
/// The longest per-request latency a device model (SSD, network link)
/// accepts: 1 s. Flash answers in tens of microseconds and a network link in
/// at most a few hundred milliseconds.
pub const MAX_LATENCY_NS: u64 = NS_PER_S;

/// The slowest rate a stream may be held to (`workload.rate`): 1 kB/s. A
/// stream's rate is not a device's bandwidth: a video reads a few hundred
/// kB/s (2 Mbit/s is 250 kB/s), so this floor only catches a number meant in
/// other units (`250` for 250 kB/s).
pub const MIN_STREAM_RATE_BYTES_PER_S: u64 = 1_000;

/// The message for a rate below its floor `min` (bytes per second, `shown`
/// in words), with a size that would mean what was likely meant.
fn below_floor(bytes_per_s: u64, min: u64, shown: &str, example: &str) -> String {
    format!(
        "at least {min} bytes per second ({shown}), got {bytes_per_s}; \
         a size such as \"{example}\" means that many bytes per second"
    )
}

/// Checks a device bandwidth (bytes per second); the message says what was expected.
pub fn check_bandwidth(bytes_per_s: u64) -> Result<(), String> {
    if bytes_per_s < MIN_BANDWIDTH_BYTES_PER_S {
        return Err(format!(
            "must be {}",
            below_floor(bytes_per_s, MIN_BANDWIDTH_BYTES_PER_S, "1 MB/s", "250MB")
        ));
    }
    Ok(())
}

/// Checks a stream's rate (bytes per second; 0: as fast as served); the
/// message says what was expected.
pub fn check_stream_rate(bytes_per_s: u64) -> Result<(), String> {
    if bytes_per_s != 0 && bytes_per_s < MIN_STREAM_RATE_BYTES_PER_S {
        let floor = below_floor(bytes_per_s, MIN_STREAM_RATE_BYTES_PER_S, "1 kB/s", "250KB");
        return Err(format!("must be 0 (as fast as served) or {floor}"));
    }
    Ok(())
}

/// Checks a device's per-request latency (ns); the message says what was expected.
pub fn check_latency(ns: u64) -> Result<(), String> {
    if ns > MAX_LATENCY_NS {
        return Err(format!("must be at most 1s per request, got {ns} ns"));
    }
    Ok(())
}

/// Largest cache block (`array_cache.block`, `trace convert --block`).
pub const MAX_BLOCK_BYTES: u64 = 1 << 30;

/// Checks a cache block's size: whole sectors, 512 B to 1 GiB.
pub fn check_block(bytes: u64) -> Result<(), String> {
    if !(SECTOR_BYTES..=MAX_BLOCK_BYTES).contains(&bytes) || !bytes.is_multiple_of(SECTOR_BYTES) {
        return Err(format!("must be a multiple of 512 bytes from 512B to 1GiB, got {bytes} bytes"));
    }
    Ok(())
}

/// Why a number could not be scaled.
#[derive(Debug, PartialEq, Eq)]
enum Scale {
    NotANumber,
    TooLarge,
}

/// `num × mult` rounded to the nearest integer (halves up), computed exactly
/// in integers (no floating point, so `"18446744073 s"` is exact). `num` is
/// digits with at most one `.` and an optional exponent, as [`split_number`]
/// gives it. Up to 20 significant digits of a decimal count (more than any
/// `u64` has); a plain integer counts whole.
fn scale(num: &str, mult: u64) -> Result<u64, Scale> {
    if !num.is_empty() && num.bytes().all(|b| b.is_ascii_digit()) {
        let v: u64 = num.parse().map_err(|_| Scale::TooLarge)?;
        return v.checked_mul(mult).ok_or(Scale::TooLarge);
    }
    let (mantissa, exp) = match num.find(['e', 'E']) {
        Some(i) => (&num[..i], &num[i + 1..]),
        None => (num, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits_ok = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if int.len() + frac.len() == 0 || !digits_ok(int) || !digits_ok(frac) {
        return Err(Scale::NotANumber);
    }
    let exp_digits = exp.trim_start_matches(['+', '-']);
    if exp_digits.is_empty() || !digits_ok(exp_digits) || exp.len() - exp_digits.len() > 1 {
        return Err(Scale::NotANumber);
    }
    // A huge exponent only says "far too large" or "far too small".
    let e: i64 = exp_digits.parse::<i64>().unwrap_or(i64::MAX / 2).min(1_000_000);
    let mut e10 = if exp.starts_with('-') { -e } else { e } - frac.len() as i64;
    let all = format!("{int}{frac}");
    let sig = all.trim_start_matches('0');
    if sig.is_empty() {
        return Ok(0);
    }
    let keep = sig.len().min(20);
    e10 += (sig.len() - keep) as i64;
    let m: u128 = sig[..keep].parse().map_err(|_| Scale::NotANumber)?;
    // m < 10^20 < 2^67 and mult <= 2^60 (EiB): v < 2^127.
    let v = m.checked_mul(u128::from(mult)).ok_or(Scale::TooLarge)?;
    let out = if e10 >= 0 {
        if e10 > 38 {
            return Err(Scale::TooLarge);
        }
        v.checked_mul(10u128.pow(e10 as u32)).ok_or(Scale::TooLarge)?
    } else if -e10 > 38 {
        0 // v < 2^127 < 10^39 / 2: less than a half
    } else {
        let p = 10u128.pow((-e10) as u32);
        v / p + u128::from(2 * (v % p) >= p)
    };
    u64::try_from(out).map_err(|_| Scale::TooLarge)
}

/// Splits `"1.5e3 KiB"` into the number (`"1.5e3"`) and the unit (`"KiB"`,
/// trimmed). The number is digits with at most one `.`, optionally followed
/// by an exponent `e`/`E`, an optional sign and digits; an `e` that is not
/// followed by digits starts the unit (`"1EiB"`, `"1E"`).
fn split_number(t: &str) -> (&str, &str) {
    let b = t.as_bytes();
    let mut i = 0;
    while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
        i += 1;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    (&t[..i], t[i..].trim())
}

/// Parses a size such as `"128KiB"`, `"4 MiB"`, `"512K"`, `"1G"`, `"2PiB"`,
/// `"1.5e3"` or `"4096"` (bytes). Returns bytes, or a message saying what was
/// expected. A size of 16 EiB or more does not fit in a `u64` of bytes and is
/// refused as such (never wrapped or saturated).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, unit) = split_number(t);
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "pb" | "pib" => 1 << 50,
        "e" | "eb" | "eib" => 1 << 60,
        "s" | "sector" | "sectors" => SECTOR_BYTES,
        "page" | "pages" => PAGE_BYTES,
        "p" => {
            return Err(format!("bad size `{text}`: the unit `{unit}` is ambiguous, write `pages` or `PiB`"))
        }
        _ => {
            return Err(format!(
                "bad size `{text}`: expected a number with B, KiB, MiB, GiB, TiB, PiB, EiB, sectors or pages"
            ))
        }
    };
    if num.is_empty() {
        return Err(format!("bad size `{text}`: expected a number such as \"128KiB\""));
    }
    scale(num, mult).map_err(|e| match e {
        Scale::NotANumber => format!("bad size `{text}`: `{num}` is not a number"),
        Scale::TooLarge => {
            format!("size `{text}` does not fit in 64 bits of bytes (the largest is 16EiB - 1 byte)")
        }
    })
}

/// Parses a duration such as `"10ms"`, `"2.5s"`, `"500us"`, `"3e10 ns"` or
/// `"0"` into nanoseconds. A duration longer than [`MAX_DURATION_NS`] (about
/// 292 years) is refused as such (never wrapped or saturated).
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.starts_with('-') {
        return Err(format!("bad duration `{text}`: must be >= 0"));
    }
    let (num, unit) = split_number(t);
    let mult: u64 = match unit {
        "ns" => 1,
        "us" | "µs" => NS_PER_US,
        "ms" => NS_PER_MS,
        "s" => NS_PER_S,
        "min" => 60 * NS_PER_S,
        // A bare number in a string would be read as seconds by some and as
        // nanoseconds (like a bare integer) by others: only 0 needs no unit.
        "" => 1,
        _ => return Err(format!("bad duration `{text}`: expected a number with ns, us, ms, s or min")),
    };
    let ns = match scale(num, mult) {
        Ok(ns) if ns <= MAX_DURATION_NS => ns,
        Ok(_) | Err(Scale::TooLarge) => return Err(format!("duration `{text}` {DURATION_TOO_LONG}")),
        Err(Scale::NotANumber) => return Err(format!("bad duration `{text}`: expected e.g. \"10ms\"")),
    };
    if unit.is_empty() && ns != 0 {
        return Err(format!(
            "bad duration `{text}`: give a unit (ns, us, ms, s or min); a bare integer, unquoted, is nanoseconds"
        ));
    }
    Ok(ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_may_read_slower_than_a_device_and_not_below_1_kb_per_s() {
        assert!(check_stream_rate(0).is_ok() && check_stream_rate(250_000).is_ok());
        assert!(check_bandwidth(250_000)
            .unwrap_err()
            .starts_with("must be at least 1000000 bytes per second"));
        let e = check_stream_rate(250).unwrap_err();
        assert!(e.starts_with(
            "must be 0 (as fast as served) or at least 1000 bytes per second (1 kB/s), got 250"
        ));
        assert!(e.ends_with("a size such as \"250KB\" means that many bytes per second"), "{e}");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("128KiB"), Ok(131072));
        assert_eq!(parse_size("128K"), Ok(131072));
        assert_eq!(parse_size("1 GiB"), Ok(1 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("2pages"), Ok(8192));
        assert_eq!(parse_size("1.5MiB"), Ok(1572864));
        assert_eq!(parse_size("1e3"), Ok(1000));
        assert_eq!(parse_size("1.5e1 KiB"), Ok(15 << 10));
        assert!(parse_size("12 furlongs").is_err());
        assert!(parse_size("KiB").is_err());
    }

    #[test]
    fn peta_and_exa_bytes() {
        assert_eq!(parse_size("2PiB"), Ok(2 << 50));
        assert_eq!(parse_size("1 PB"), Ok(1 << 50));
        assert_eq!(parse_size("15EiB"), Ok(15 << 60));
        assert_eq!(parse_size("1E"), Ok(1 << 60));
        assert_eq!(parse_size("1.5EiB"), Ok(3 << 59));
        let e = parse_size("2p").unwrap_err();
        assert!(e.contains("ambiguous") && e.contains("pages") && e.contains("PiB"), "{e}");
    }

    #[test]
    fn sizes_beyond_64_bits_are_refused_not_wrapped() {
        for text in [
            "16EiB",
            "16384PiB",
            "18446744073709551616",
            "99999999999999999999999",
            "1e20",
            "20.0EiB",
            "1e400",
        ] {
            let e = parse_size(text).unwrap_err();
            assert!(e.contains(text) && e.contains("does not fit in 64 bits"), "{text}: {e}");
        }
        assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration("2.5s"), Ok(2_500_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert_eq!(parse_duration("3e3 us"), Ok(3_000_000));
        assert_eq!(parse_duration("1min"), Ok(60_000_000_000));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1 fortnight").is_err());
    }

    #[test]
    fn a_bare_number_string_needs_a_unit() {
        let e = parse_duration("5").unwrap_err();
        assert!(e.contains("`5`") && e.contains("unit"), "{e}");
    }

    #[test]
    fn durations_beyond_the_clock_are_refused_not_wrapped() {
        // 3e10 s = 3e19 ns, beyond even 2^64 - 1 ≈ 1.8447e19 ns.
        for text in
            ["3e10 s", "30000000000 s", "18446744073709551616ns", "1e300min", "1e999s", "9223372037 s"]
        {
            let e = parse_duration(text).unwrap_err();
            assert!(e.contains(text) && e.contains("at most 2^63 - 1 ns, about 292 years"), "{text}: {e}");
        }
        assert_eq!(parse_duration("9223372036 s"), Ok(9_223_372_036_000_000_000));
        assert_eq!(parse_duration("9223372036.854775807s"), Ok(i64::MAX as u64));
        assert!(parse_duration("9223372036.854775808s").is_err());
    }

    #[test]
    fn decimals_are_exact_and_round_half_up() {
        assert_eq!(parse_duration("0.1s"), Ok(100_000_000));
        assert_eq!(parse_duration("1.0000000005s"), Ok(1_000_000_001));
        assert_eq!(parse_duration("2.5ns"), Ok(3));
        assert_eq!(parse_duration("1e-9s"), Ok(1));
        assert_eq!(parse_duration("1e-99999999999s"), Ok(0));
        assert_eq!(parse_size("0.5 sectors"), Ok(256));
        assert_eq!(parse_size("1.1KiB"), Ok(1126));
        assert_eq!(
            parse_size("1e99999999999"),
            Err("size `1e99999999999` does not fit in 64 bits of bytes (the largest is 16EiB - 1 byte)"
                .into())
        );
        for bad in [".", "1..2", "1e+", "1.e-", "1.2.3"] {
            assert!(parse_size(bad).is_err() && parse_duration(bad).is_err(), "{bad}");
        }
    }
}
