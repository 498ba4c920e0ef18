//! Checks of the engine that need its own file system: every disk read of
//! file pages is what one bio of the kernel's readahead can be.

use super::*;

/// Runs `toml` with the io_log on; gives the engine after the run (its file
/// system, its report) and the log.
fn run_logged(toml: &str) -> (Engine, IoLog) {
    let cfg = Config::from_toml(&format!("{toml}[output]\nio_log = true\n"), &[]).unwrap();
    let (mut engine, mut policies) = Engine::build(&cfg).unwrap();
    engine.run(&mut policies, &mut |_| true).unwrap();
    assert!(engine.lost_page.is_none(), "{:?}", engine.lost_page);
    let log = engine.io_log.take().unwrap();
    (engine, log)
}

/// Every block request that reads file pages (`file`, `page`, `pages` in its
/// io_log row) reads blocks that lie together on the array — page `page + i`
/// at `array_block + i` by the file system's own map — and that one indirect
/// block maps (the read waits for the chain of its first page only, as
/// `get_block` maps a bio's pages through one indirect block). Under memory
/// pressure on an aged volume with indirect blocks, where windows cross
/// fragments and indirect blocks and readers sleep for room with part of a
/// window allocated (the page pool's reads joined across the sleep).
#[test]
fn every_read_of_file_pages_is_contiguous_and_under_one_indirect_block() {
    // (policy, variant, allocation, whether readers sleep for room): SARA's
    // windows stay small under 16 streams, its readers never sleep
    let runs = [
        ("linux", "3.10", "wait", true),
        ("linux", "3.10", "fail", false),
        ("linux", "2.6.18", "wait", true),
        ("sara-extended", "3.10", "wait", false),
    ];
    for (policy, variant, alloc, sleeps) in runs {
        let toml = format!(
            "[array]\nlayout = 'raid0'\ndisks = 3\nstrip = '64KiB'\n\
             [disk]\nmodel = 'wd10evvs'\nscheduler = 'cfq'\nqueue_depth = 31\n\
             [host]\nmemory = '16MiB'\nreadahead_alloc = '{alloc}'\n\
             [readahead]\npolicy = '{policy}'\nvariant = '{variant}'\nmax = '1536KiB'\n\
             [workload]\nkind = 'fileserver'\nstreams = 16\nfiles = 200\nfile_size = '8MiB'\nrecord = '64KiB'\n\
             [fs.aging]\nops = 20000\nfile_size = '256KiB'\n\
             [run]\nduration = '4s'\n"
        );
        let policy = format!("{policy} {variant}");
        let (engine, log) = run_logged(&toml);
        let fs = &engine.fs;
        let (mut reads, mut pages_read, mut past_indirect, mut after_sleep) = (0, 0, 0, 0);
        for i in 0..log.event.len() {
            match IoEvent::NAMES[log.event[i] as usize] {
                "block_request" if log.file[i] >= 0 => {
                    let (file, page, pages) = (log.file[i] as u32, log.page[i] as u64, log.pages[i] as u64);
                    let block = log.array_block[i] as u64;
                    assert!(pages > 0 && page + pages <= fs.file_pages(file), "{policy}/{alloc} row {i}");
                    for k in 0..pages {
                        assert_eq!(
                            fs.bmap(file, page + k),
                            block + k,
                            "{policy}/{alloc}: row {i} reads file {file} pages {page}+{pages}, page {} lies apart",
                            page + k
                        );
                    }
                    assert_eq!(
                        fs.meta_chain(file, page).as_slice(),
                        fs.meta_chain(file, page + pages - 1).as_slice(),
                        "{policy}/{alloc}: row {i} reads file {file} pages {page}+{pages} across an indirect block"
                    );
                    reads += 1;
                    pages_read += pages;
                }
                "window_sync" | "window_async" => {
                    let (file, page, pages) = (log.file[i] as u32, log.page[i] as u64, log.pages[i] as u64);
                    let last = (page + pages).min(fs.file_pages(file)) - 1;
                    if page < last
                        && fs.meta_chain(file, page).as_slice() != fs.meta_chain(file, last).as_slice()
                    {
                        past_indirect += 1;
                    }
                }
                "window_sent" => after_sleep += 1,
                _ => {}
            }
        }
        // the configuration reaches what the check is for
        let m = engine.report(0.0).metrics;
        assert!(reads > 500 && pages_read > 30_000, "{policy}/{alloc}: {reads} reads, {pages_read} pages");
        assert!(m.mean_file_extents > 2.0, "{policy}/{alloc}: {} extents per file", m.mean_file_extents);
        assert!(past_indirect > 50, "{policy}/{alloc}: {past_indirect} windows across an indirect block");
        if sleeps {
            assert!(m.room_waits > 0 && after_sleep > 0, "{policy}/{alloc}: {} room waits", m.room_waits);
        }
    }
}

/// `max_sane_readahead` through the stack: with 256 KiB of page cache (64
/// pages, all inactive or free) the on-demand readahead of 3.10 reads
/// windows of at most 32 pages for a 512 KiB max, and wastes nothing; 2.6.24,
/// without the bound, reads 128-page windows into the same cache.
#[test]
fn a_small_page_cache_bounds_the_on_demand_windows() {
    let largest_window = |variant: &str| {
        let (engine, log) = run_logged(&format!(
            "[array]\nlayout = 'raid0'\ndisks = 3\nstrip = '64KiB'\n[host]\nmemory = '256KiB'\n\
             [readahead]\npolicy = 'linux'\nvariant = '{variant}'\nmax = '512KiB'\n\
             [workload]\nkind = 'iozone'\nstreams = 1\nrecord = '64KiB'\nfile_size = '2MiB'\n"
        ));
        let windows = (0..log.event.len())
            .filter(|&i| matches!(IoEvent::NAMES[log.event[i] as usize], "window_sync" | "window_async"));
        let largest = windows.map(|i| log.pages[i]).max().unwrap();
        (largest, engine.report(0.0).metrics.wasted_prefetch_pages)
    };
    assert_eq!(largest_window("3.10"), (32, 0));
    assert_eq!(largest_window("3.12").0, 32);
    let (largest, wasted) = largest_window("2.6.24");
    assert!(largest == 128 && wasted > 0, "{largest} {wasted}");
}
