//! Units used across the engine: integer nanoseconds for time, bytes for
//! sizes, 4 KiB pages/blocks for caches and arrays, 512-byte sectors for drives.
//!
//! Size strings follow the storage convention of Linux (`read_ahead_kb`) and of
//! the papers: `K`, `KB` and `KiB` all mean 1024 bytes (likewise M, G, T).

/// Bytes in a page (= file-system block = array block), as in all the papers.
pub const PAGE_BYTES: u64 = 4096;
/// Bytes in a drive sector.
pub const SECTOR_BYTES: u64 = 512;
/// Sectors per page.
pub const SECTORS_PER_PAGE: u64 = PAGE_BYTES / SECTOR_BYTES;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// Parses a size such as `"128KiB"`, `"4 MiB"`, `"512K"`, `"1G"` or `"4096"`
/// (bytes). Returns bytes, or a message saying what was expected.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim();
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        "s" | "sector" | "sectors" => SECTOR_BYTES,
        "p" | "page" | "pages" => PAGE_BYTES,
        _ => {
            return Err(format!(
                "bad size `{text}`: expected a number with B, KiB, MiB, GiB, TiB, sectors or pages"
            ))
        }
    };
    if num.is_empty() {
        return Err(format!("bad size `{text}`: expected a number such as \"128KiB\""));
    }
    let bytes = if num.contains('.') {
        let v: f64 = num.parse().map_err(|_| format!("bad size `{text}`"))?;
        (v * mult as f64).round() as u64
    } else {
        let v: u64 = num.parse().map_err(|_| format!("bad size `{text}`"))?;
        v.checked_mul(mult).ok_or_else(|| format!("size `{text}` is too large"))?
    };
    Ok(bytes)
}

/// Parses a duration such as `"10ms"`, `"2.5s"`, `"500us"`, `"0"` into nanoseconds.
pub fn parse_duration(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit() && c != '.').unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: f64 = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" => 1e3,
        "ms" => 1e6,
        "s" | "" => 1e9,
        "min" => 60e9,
        _ => return Err(format!("bad duration `{text}`: expected a number with ns, us, ms, s or min")),
    };
    let v: f64 = num.parse().map_err(|_| format!("bad duration `{text}`: expected e.g. \"10ms\""))?;
    if v.is_nan() || v < 0.0 {
        return Err(format!("bad duration `{text}`: must be >= 0"));
    }
    Ok((v * mult).round() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        assert_eq!(parse_size("128KiB"), Ok(131072));
        assert_eq!(parse_size("128K"), Ok(131072));
        assert_eq!(parse_size("1 GiB"), Ok(1 << 30));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("2pages"), Ok(8192));
        assert_eq!(parse_size("1.5MiB"), Ok(1572864));
        assert!(parse_size("12 furlongs").is_err());
        assert!(parse_size("KiB").is_err());
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("10ms"), Ok(10_000_000));
        assert_eq!(parse_duration("2.5s"), Ok(2_500_000_000));
        assert_eq!(parse_duration("0"), Ok(0));
        assert!(parse_duration("-1s").is_err());
        assert!(parse_duration("1 fortnight").is_err());
    }
}
