"""Readahead under memory pressure: `host.readahead_alloc` (README, `[host]`)."""

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
    tiny = """
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
record = "4KiB"
file_size = "1MiB"
"""
    for memory, streams in (("4KiB", 1), ("16KiB", 4), ("16KiB", 16)):
        m = prefetchlab.simulate(
            tiny + f'[host]\nmemory = "{memory}"\n', sets=[f"workload.streams={streams}"]
        ).metrics
        assert m["app_requests"] == streams * 256, (memory, streams)
        assert 0 < m["windows_over_budget"] <= m["room_waits"], (memory, streams)
