"""Readahead under memory pressure: `host.readahead_alloc` and `host.reclaim` (README, `[host]`)."""

from __future__ import annotations

from typing import Any

import prefetchlab

#: 128 readers with windows of 1.5 MiB (two stripes) in 64 MiB: the windows in flight alone
#: need three times the page cache.
PRESSED = """
[array]
layout = "raid0"
disks = 3
strip = "256KiB"
[disk]
model = "wd10evvs"
scheduler = "cfq"
queue_depth = 31
[host]
memory = "64MiB"
[fs]
indirect_blocks = false
[readahead]
policy = "linux"
max = "1536KiB"
[workload]
kind = "iozone"
streams = 128
record = "64KiB"
file_size = "64MiB"
[run]
duration = "5s"
seed = 1
"""


#: Two disks, readahead windows of at most 128 KiB, IOzone readers (the workload's keys to add).
SMALL = """
[array]
layout = "raid0"
disks = 2
strip = "64KiB"
[disk]
model = "cheetah-15k5"
[readahead]
policy = "linux"
max = "128KiB"
[workload]
kind = "iozone"
"""


def config(alloc: str, streams: int = 128) -> str:
    return PRESSED.replace('memory = "64MiB"', f'memory = "64MiB"\nreadahead_alloc = "{alloc}"').replace(
        "streams = 128", f"streams = {streams}"
    )


def run(alloc: str) -> dict[str, Any]:
    return prefetchlab.simulate(config(alloc)).metrics


def test_a_reader_waits_for_room_and_thrashes_where_a_window_would_be_cut() -> None:
    wait, fail = run("wait"), run("fail")
    budget_pages = 64 << 8
    # 2.6.x: windows read whole, the pages evicted read or not, so more prefetches wasted
    assert wait["wasted_prefetch_pages"] > 1.5 * fail["wasted_prefetch_pages"] > 0
    assert wait["bandwidth_mb_s"] < fail["bandwidth_mb_s"]
    # the readers slept for room under "wait", never under "fail"; none went over budget
    assert wait["room_waits"] > 0 and fail["room_waits"] == 0
    assert wait["windows_over_budget"] == fail["windows_over_budget"] == 0
    # the reader waits for room: the cache stays within its budget but for the demand pages
    # of the readers (16 each) that may go over it for a moment
    assert budget_pages <= wait["peak_cache_pages"] <= budget_pages + 128 * 16
    wall = {"wall_time_s", "requests_per_wall_s"}
    again = run("wait")
    assert {k: v for k, v in again.items() if k not in wall} == {
        k: v for k, v in wait.items() if k not in wall
    }


def test_the_run_header_says_when_a_window_ends_without_room() -> None:
    from prefetchlab._table import describe_config

    for alloc, said in (("wait", False), ("fail", True)):
        header = describe_config(prefetchlab.simulate(config(alloc, streams=2)).config)
        assert ("a readahead window ends where it finds no room" in header) == said, header


def test_every_reader_asleep_for_room_finishes() -> None:
    # no time limit: the run ends when every reader has read its whole file, so a reader
    # left asleep for room would fail it ("a request was lost")
    drained = (
        config("wait").replace('duration = "5s"\n', "").replace('file_size = "64MiB"', 'file_size = "8MiB"')
    )
    m = prefetchlab.simulate(drained).metrics
    assert m["app_requests"] == 128 * 8 * 16  # 8 MiB in 64 KiB reads, each reader
    assert m["wasted_prefetch_pages"] > 0


def test_a_page_cache_smaller_than_a_window_still_lets_every_reader_finish() -> None:
    # readers asleep for room that nothing can make (their own pages held, no read in
    # flight): the first goes on over the budget rather than sleep for good
    tiny = SMALL + 'record = "4KiB"\nfile_size = "1MiB"\n'
    for variant in ("2.6.24", "3.10"):
        for memory, streams in (("4KiB", 1), ("16KiB", 4), ("16KiB", 16)):
            m = prefetchlab.simulate(
                tiny + f'[host]\nmemory = "{memory}"\n',
                sets=[f"workload.streams={streams}", f'readahead.variant="{variant}"'],
            ).metrics
            assert m["app_requests"] == streams * 256, (variant, memory, streams)
            if variant == "3.10" and streams == 1:
                # max_sane_readahead: half of one page is no readahead at all
                assert m["readahead_windows"] == m["room_waits"] == 0, (memory, streams)
            else:
                assert 0 < m["windows_over_budget"] <= m["room_waits"], (variant, memory, streams)


#: One reader, windows of 128 KiB, a page cache of 48 pages: its two windows do not fit. On
#: 2.6.24: from 2.6.31 max_sane_readahead bounds a window by half the inactive and free pages,
#: so one reader's two windows always fit.
ONE_READER = (
    SMALL.replace('max = "128KiB"', 'max = "128KiB"\nvariant = "2.6.24"')
    + 'streams = 1\nfile_size = "4MiB"\n'
)


def reclaimed(reclaim: str, record: str, memory: str = "192KiB") -> dict[str, Any]:
    extra = f'record = "{record}"\n[host]\nmemory = "{memory}"\nreclaim = "{reclaim}"\n'
    return prefetchlab.simulate(ONE_READER + extra).metrics


def test_use_once_reclaim_keeps_a_page_read_once_in_place_even_when_read_in_pieces() -> None:
    pages = ("wasted_prefetch_pages", "prefetched_pages", "room_waits")
    lru, once = reclaimed("lru", "4KiB"), reclaimed("use-once", "4KiB")
    # pages read once leave in the order they came in, not behind the unread window
    assert [lru[k] for k in pages] != [once[k] for k in pages]
    assert once["wasted_prefetch_pages"] > 0
    # 2 KiB reads go on in the page the last one ended in: each page is still read once
    # (marked by the first read only), so the run is the 4 KiB one; with every read
    # marking, the second would move each page to the head, as "lru" does
    halves = reclaimed("use-once", "2KiB")
    assert [halves[k] for k in pages] == [once[k] for k in pages]
    # with room for both windows nothing is evicted and the two agree
    roomy = [reclaimed(r, "4KiB", "512KiB") for r in ("lru", "use-once")]
    assert roomy[0]["bandwidth_mb_s"] == roomy[1]["bandwidth_mb_s"]
    assert roomy[0]["wasted_prefetch_pages"] == roomy[1]["wasted_prefetch_pages"] == 0


def test_the_run_header_says_when_reclaim_is_lru() -> None:
    from prefetchlab._table import describe_config

    for reclaim, said in (("lru", True), ("use-once", False)):
        header = describe_config(prefetchlab.simulate(ONE_READER + f'[host]\nreclaim = "{reclaim}"\n').config)
        assert ("LRU reclaim" in header) == said, header


#: Four webserver threads re-reading 40 files of about 256 KiB through a 2 MiB page cache.
REREAD = """
[array]
layout = "raid0"
disks = 2
strip = "64KiB"
[disk]
model = "cheetah-15k4"
[host]
memory = "2MiB"
[workload]
kind = "webserver"
streams = 4
files = 40
file_size = "256KiB"
[run]
duration = "2s"
seed = 1
"""


def test_use_once_reclaim_moves_pages_read_twice_to_the_active_list_and_back() -> None:
    lru, once = (
        prefetchlab.simulate(REREAD.replace("[workload]", f'reclaim = "{r}"\n[workload]')).metrics
        for r in ("lru", "use-once")
    )
    assert lru["activated_pages"] == lru["deactivated_pages"] == 0
    # files read again: their pages go to the active list; reclaim keeping it no longer than
    # the inactive one in the cache's 512 pages, some go back
    assert 0 < once["deactivated_pages"] < once["activated_pages"]


def test_2_6_18_reclaim_drains_the_active_list_where_2_6_35_keeps_it() -> None:
    def run(balance: str) -> dict[str, Any]:
        return prefetchlab.simulate(
            REREAD.replace("[workload]", f'list_balance = "{balance}"\n[workload]')
        ).metrics

    low, proportional = run("inactive-low"), run("proportional")
    assert low["activated_pages"] == proportional["activated_pages"] > 0
    # 2.6.35 moves pages back only while the active list is the longer; 2.6.18 scans it on
    # every reclaim (one page per victim while both lists are under 4,096 pages), so here
    # every page activated went back
    assert low["deactivated_pages"] < proportional["deactivated_pages"] == proportional["activated_pages"]
    # not given, the balance is the readahead's kernel's
    for variant, balance in (("2.6.18", "proportional"), ("3.10", "inactive-low")):
        report = prefetchlab.simulate(
            REREAD.replace("[workload]", f'[readahead]\nvariant = "{variant}"\n[workload]')
        )
        assert report.config["host"]["list_balance"] == balance


def test_the_summary_shows_the_lists_only_under_use_once() -> None:
    from prefetchlab._table import summary_table

    for reclaim, shown in (("lru", False), ("use-once", True)):
        report = prefetchlab.simulate(REREAD.replace("[workload]", f'reclaim = "{reclaim}"\n[workload]'))
        table = summary_table(report)
        assert ("page-cache pages activated (read twice)" in table) == shown, table


def test_a_window_whose_reader_sleeps_for_room_is_sent_whole() -> None:
    # the kernel allocates a window's pages into its page pool and reads them when all are
    # allocated: a window row's pages are sent with it (all) or, if its reader slept, none
    # then and all at a later window_sent row, never part before the sleep
    report = prefetchlab.simulate(config("wait") + "\n[output]\nio_log = true\n")
    assert report.io_log is not None
    log = report.io_log.to_pydict()
    pending: dict[int, int] = {}
    at: dict[int, int] = {}
    sent = 0
    for time, event, s, pages, issued in zip(
        log["time_ns"], log["event"], log["stream"], log["pages"], log["issued"], strict=True
    ):
        if at.get(s) != time:
            # every page a stream sent at one moment went with a window row or a window_sent row
            assert pending.get(s, 0) == 0, (at[s], s, pending[s])
            at[s], pending[s] = time, 0
        if event == "block_request":
            pending[s] += pages
        elif event == "page_read":
            pending[s] = 0
        elif event in ("window_sync", "window_async"):
            assert pending[s] in (0, issued), (time, s, pending[s], issued)
            pending[s] = 0
        elif event == "window_sent":
            assert pending[s] == pages > 0, (time, s, pending[s], pages)
            pending[s], sent = 0, sent + 1
    assert all(p == 0 for p in pending.values()), "pages sent without a window row at the end"
    assert 0 < sent <= report.metrics["room_waits"]
