"""A real peer, side by side (issue 9): the CloudPhysics trace split into 4 KiB blocks through
the cache-only mode's LRU, and through libCacheSim's LRU (PyPI ``libcachesim``) on the same
block sequence — written by ``prefetchlab trace convert --to lcs-csv`` — give identical miss
counts at 8 cache sizes from 128 MiB to 1 GiB."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import prefetchlab

BLOCK_BYTES = 4096
SIZES_MIB = (128, 256, 384, 512, 640, 768, 896, 1024)


def _libcachesim() -> Any:
    if os.environ.get("CI") == "true":
        import libcachesim  # type: ignore[import-untyped]  # CI installs it (make venv): its absence is a failure there

        return libcachesim
    return pytest.importorskip("libcachesim", reason="libcachesim (a test dependency) is not installed")


def _libcachesim_misses(lcs: Any, csv: Path, cache_blocks: int) -> tuple[int, int]:
    """(misses, requests) of libCacheSim's LRU of ``cache_blocks`` objects over ``csv``."""
    params = lcs.ReaderInitParam(has_header=True, has_header_set=True, delimiter=",", ignore_obj_size=True)
    params.time_field, params.obj_id_field, params.obj_size_field = 1, 2, 3
    reader = lcs.TraceReader(str(csv), lcs.TraceType.CSV_TRACE, params)
    requests = reader.get_num_of_req()
    miss_ratio, _ = lcs.LRU(cache_blocks).process_trace(reader)
    return round(miss_ratio * requests), requests


def test_cache_only_lru_misses_equal_libcachesim(traces: Path, tmp_path: Path) -> None:
    lcs = _libcachesim()
    trace = traces / "cloudphysics" / "cloudPhysicsIO.vscsi"
    csv = tmp_path / "cloudphysics.lcs.csv"
    done = prefetchlab.convert_trace(trace, csv, block=BLOCK_BYTES)
    assert done["records"] == 113_872
    for mib in SIZES_MIB:
        report = prefetchlab.simulate(
            {
                "workload": {"kind": "trace", "path": str(trace)},
                "run": {"mode": "cache-only"},
                "array_cache": {"size": f"{mib}MiB", "block": BLOCK_BYTES, "prefetch": "none"},
            }
        )
        m = report.metrics
        misses, requests = _libcachesim_misses(lcs, csv, mib * 2**20 // BLOCK_BYTES)
        assert m["hits"] + m["misses"] == requests == done["blocks"], mib
        assert m["misses"] == misses, f"{mib} MiB: prefetchlab {m['misses']} misses, libCacheSim {misses}"
    # the smallest and largest by hand (an OrderedDict LRU): the counts are not trivially equal
    assert _libcachesim_misses(lcs, csv, 128 * 256)[0] == 991_924
    assert _libcachesim_misses(lcs, csv, 1024 * 256)[0] == 269_239
