//! Golden tests of Linux readahead's window sizing at maxima large enough for
//! every branch of the rules (algorithms.md §1.1, models.md §2.5), run through
//! the whole stack and read back from the io_log. At the default 32-page max,
//! `max/16 = 2` and `max/32 = 1`, so the ×4 ramp and the 4r first window
//! never show; at 128 pages (512 KiB) and 512 pages (2 MiB) they do.
//!
//! The rules, with sizes in pages:
//! * first window (`get_init_ra_size`): `r` = the request rounded up to a power
//!   of two; `4r` if `r <= max/32`, else `2r` if `r <= max/4`, else `max`;
//! * next window (`get_next_ra_size`): `4·cur` if `cur < max/16`, else `2·cur`,
//!   capped at `max`;
//! * on-demand (2.6.24, 3.10, 3.12): the first window's async size is
//!   `size - req`, so its marker sits on page `req`; each next window starts
//!   where the last ended and is all async, its marker on its first page, hit
//!   by the read that reaches it;
//! * 2.6.18: the ahead window is built on the first sequential call after the
//!   first window, and the next one when the reader enters the ahead window —
//!   the same windows, without markers.
//!
//! Every expected sequence below is worked out by hand from those rules, not
//! read back from the code.

use prefetchlab::metrics::{IoEvent, IoLog};
use prefetchlab::{simulate, Config};

const VARIANTS: [&str; 4] = ["2.6.18", "2.6.24", "3.10", "3.12"];

/// A window as the io_log recorded it: (first page, size in pages, marker page or −1).
type Win = (i64, i64, i64);

/// The windows of a run, each with the pages it actually read.
fn windows(log: &IoLog) -> Vec<(Win, i64)> {
    (0..log.len())
        .filter(|&i| log.event[i] == IoEvent::WindowSync as u8 || log.event[i] == IoEvent::WindowAsync as u8)
        .map(|i| ((log.page[i], log.pages[i], log.marker[i]), log.issued[i]))
        .collect()
}

/// One reader of `record`-sized requests over a contiguous file, readahead
/// `max`, the given Linux variant.
fn run(variant: &str, max: &str, record: &str, file_size: &str) -> Vec<(Win, i64)> {
    let toml = format!(
        "[fs]\nindirect_blocks = false\n[output]\nio_log = true\n\
         [workload]\nkind = 'iozone'\nstreams = 1\nrecord = '{record}'\nfile_size = '{file_size}'\n\
         [readahead]\npolicy = 'linux'\nvariant = '{variant}'\nmax = '{max}'"
    );
    let cfg = Config::from_toml(&toml, &[]).unwrap();
    windows(&simulate(&cfg).unwrap().io_log.expect("io_log on"))
}

/// `(start, size)` with the marker each variant gives: on its first page for
/// every window but the first, whose marker is on page `req`; none in 2.6.18.
fn expect(variant: &str, req: i64, spans: &[(i64, i64)]) -> Vec<Win> {
    spans
        .iter()
        .enumerate()
        .map(|(k, &(s, n))| {
            let marker = match (variant, k) {
                ("2.6.18", _) => -1,
                (_, 0) => req,
                _ => s,
            };
            (s, n, marker)
        })
        .collect()
}

fn check(max: &str, record: &str, req: i64, file_size: &str, spans: &[(i64, i64)]) {
    for variant in VARIANTS {
        let got = run(variant, max, record, file_size);
        let want = expect(variant, req, spans);
        assert!(got.len() >= want.len(), "{variant}, {record} reads: {got:?}");
        let (wins, issued): (Vec<Win>, Vec<i64>) = got[..want.len()].iter().copied().unzip();
        assert_eq!(wins, want, "{variant}, {record} reads, max {max}");
        // Every page of these windows is new to the cache and inside the file.
        let sizes: Vec<i64> = want.iter().map(|w| w.1).collect();
        assert_eq!(issued, sizes, "{variant}, {record} reads: pages read per window");
    }
}

/// max = 128 pages (512 KiB): max/32 = 4, max/4 = 32, max/16 = 8.
/// One page per read: r = 1 <= 4 → first window 4r = 4 at [0,4), marker on
/// page 1; 4 < 8 → ×4 = 16 at [4,20); 16 >= 8 → ×2 = 32 at [20,52);
/// 64 at [52,116); 128 at [116,244); capped: 128 at [244,372).
#[test]
fn max_128_pages_one_page_reads_quadruple_below_max_over_16() {
    let spans = [(0, 4), (4, 16), (20, 32), (52, 64), (116, 128), (244, 128)];
    check("512KiB", "4KiB", 1, "2MiB", &spans);
}

/// max = 128 pages, two pages per read: r = 2 <= 4 → 4r = 8 at [0,8),
/// marker on page 2; cur = 8 is not below max/16 = 8 → ×2 = 16 at [8,24);
/// 32 at [24,56); 64 at [56,120); 128 at [120,248); 128 at [248,376).
#[test]
fn max_128_pages_at_max_over_16_doubles() {
    let spans = [(0, 8), (8, 16), (24, 32), (56, 64), (120, 128), (248, 128)];
    check("512KiB", "8KiB", 2, "2MiB", &spans);
}

/// max = 128 pages, eight pages per read: r = 8 > max/32 = 4 but <= max/4 = 32
/// → 2r = 16 at [0,16), marker on page 8; 16 >= 8 → ×2 = 32 at [16,48); 64 at
/// [48,112); 128 at [112,240); 128 at [240,368).
#[test]
fn max_128_pages_first_window_2r() {
    let spans = [(0, 16), (16, 32), (48, 64), (112, 128), (240, 128)];
    check("512KiB", "32KiB", 8, "2MiB", &spans);
}

/// max = 128 pages, three pages per read: r = roundup(3) = 4 <= max/32 = 4 →
/// 4r = 16 at [0,16), marker on page 3; then ×2: 32 at [16,48), 64 at
/// [48,112), 128 at [112,240).
#[test]
fn max_128_pages_request_rounded_up_to_a_power_of_two() {
    let spans = [(0, 16), (16, 32), (48, 64), (112, 128), (240, 128)];
    check("512KiB", "12KiB", 3, "2MiB", &spans);
}

/// max = 128 pages, 64 pages per read: r = 64 > max/4 = 32 → max = 128 at
/// [0,128), marker on page 64; then max each time: [128,256), [256,384).
#[test]
fn max_128_pages_first_window_max() {
    let spans = [(0, 128), (128, 128), (256, 128)];
    check("512KiB", "256KiB", 64, "2MiB", &spans);
}

/// max = 512 pages (2 MiB): max/16 = 32, so the ramp quadruples twice.
/// One page per read: 4 at [0,4); 4 < 32 → 16 at [4,20); 16 < 32 → 64 at
/// [20,84); 64 >= 32 → 128 at [84,212); 256 at [212,468); 512 at [468,980);
/// capped: 512 at [980,1492).
#[test]
fn max_512_pages_quadruples_twice() {
    let spans = [(0, 4), (4, 16), (20, 64), (84, 128), (212, 256), (468, 512), (980, 512)];
    check("2MiB", "4KiB", 1, "8MiB", &spans);
}
