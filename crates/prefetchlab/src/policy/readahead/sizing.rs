//! Window-sizing helpers shared by the Linux readahead schemes
//! (algorithms.md §1.1; identical in 2.6.18 through 4.19), kept in one place
//! so that [`super::linux_2_6_18`] and [`super::ondemand`] cannot drift apart.
//!
//! All sizes are in pages; `max_pages` is the file's `ra_pages`.

/// The smallest power of two `>= x` (the kernel's `roundup_pow_of_two`);
/// `x = 0` gives 1, as the kernel's version does for its valid inputs.
pub fn roundup_pow_of_two(x: u64) -> u64 {
    x.max(1).next_power_of_two()
}

/// `get_init_ra_size(req, max)` (§1.1): the first window for a read of
/// `req_pages`. With `n = roundup_pow_of_two(req)`: `4n` if `n <= max/32`,
/// `2n` if `n <= max/4`, else `max` (integer division).
pub fn get_init_ra_size(req_pages: u64, max_pages: u64) -> u64 {
    let n = roundup_pow_of_two(req_pages);
    if n <= max_pages / 32 {
        4 * n
    } else if n <= max_pages / 4 {
        2 * n
    } else {
        max_pages
    }
}

/// `get_next_ra_size(cur, max)` (§1.1): the ramp-up, `4·cur` while
/// `cur < max/16`, else `2·cur`, clamped to `max`. (2.6.18's version with the
/// MISS flag is [`super::linux_2_6_18`]'s `next_ra_size_old`, built on this.)
pub fn get_next_ra_size(cur_pages: u64, max_pages: u64) -> u64 {
    let next =
        if cur_pages < max_pages / 16 { cur_pages.saturating_mul(4) } else { cur_pages.saturating_mul(2) };
    next.min(max_pages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundup() {
        let got: Vec<u64> = [0, 1, 2, 3, 4, 5, 9, 16, 17].iter().map(|&x| roundup_pow_of_two(x)).collect();
        assert_eq!(got, vec![1, 1, 2, 4, 4, 8, 16, 16, 32]);
    }

    /// The examples of §1.1 for max = 32 and max = 16 pages.
    #[test]
    fn init_size_examples_of_the_spec() {
        let m32: Vec<u64> = [1, 2, 4, 8, 9, 16, 100].iter().map(|&r| get_init_ra_size(r, 32)).collect();
        assert_eq!(m32, vec![4, 4, 8, 16, 32, 32, 32]);
        let m16: Vec<u64> = [1, 2, 3, 4, 5, 16].iter().map(|&r| get_init_ra_size(r, 16)).collect();
        assert_eq!(m16, vec![2, 4, 8, 8, 16, 16]);
    }

    #[test]
    fn next_size_quadruples_below_max_over_16_then_doubles_and_clamps() {
        // max = 256: max/16 = 16.
        assert_eq!(get_next_ra_size(4, 256), 16);
        assert_eq!(get_next_ra_size(15, 256), 60);
        assert_eq!(get_next_ra_size(16, 256), 32);
        assert_eq!(get_next_ra_size(128, 256), 256);
        assert_eq!(get_next_ra_size(200, 256), 256);
        // max = 32: max/16 = 2, so 4 → 8 → 16 → 32 → 32.
        assert_eq!(get_next_ra_size(1, 32), 4);
        assert_eq!(get_next_ra_size(4, 32), 8);
        assert_eq!(get_next_ra_size(16, 32), 32);
        assert_eq!(get_next_ra_size(32, 32), 32);
    }
}
