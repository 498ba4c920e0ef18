"""Speed of the cache-only mode (``make bench``), side by side with libCacheSim.

(a) The CloudPhysics trace of ``../shared/traces`` split into 4 KiB blocks (1,141,869 block
    accesses) through LRU at 8 cache sizes from 128 MiB to 1 GiB, no prefetching:
    * prefetchlab: ``run.mode = "cache-only"`` through the Python API, reading the vSCSI
      file itself (parsing and splitting included), timed around ``prefetchlab.simulate``;
    * libCacheSim (PyPI ``libcachesim``): ``LRU(n).process_trace(reader)`` — its C loop — on
      the same block sequence, written once by ``prefetchlab trace convert --to lcs-csv``,
      read by its csv reader and, its fastest, from an oracleGeneral binary file (24-byte
      records) made from that csv; timed around ``process_trace`` (the reader's opening
      excluded, which favours libCacheSim).
    Both miss counts are printed (they must be equal: ``tests/test_libcachesim.py``) with
    block accesses per wall second (medians of ``--repeat`` runs) and prefetchlab's ratio
    to libCacheSim's faster reader.
(b) Scale: a generated trace (``examples/gen_trace``: SPC text, gzip-compressed; 8
    sequential 8 KiB readers and random 4 KiB reads and writes) of ``--records`` records
    (default 10^8) and of a tenth of that, each through cache-only LRU of 1 GiB in a
    Python process of its own: records and block accesses per wall second (start-up
    included), and the process's peak resident memory (``VmHWM``), which must not grow with
    the trace's length. The generated files are kept in
    ``--scratch`` (default: the system's temporary directory) and reused.

(a) is skipped, with a message, when the shared data or libcachesim are absent. Prints
numbers with their units; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.csv as pacsv

import prefetchlab
from prefetchlab._table import render

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PREFETCHLAB_SHARED", REPO.parent / "shared"))
CLOUDPHYSICS = SHARED / "traces" / "cloudphysics" / "cloudPhysicsIO.vscsi"
SIZES_MIB = (128, 256, 384, 512, 640, 768, 896, 1024)
BLOCK = 4096
#: libCacheSim's oracleGeneral record: clock_time u32, obj_id u64, obj_size u32, next_access_vtime i64.
ORACLE = np.dtype([("time", "<u4"), ("obj_id", "<u8"), ("obj_size", "<u4"), ("next", "<i8")])


def _cache_only(trace: Path, size: str) -> dict[str, Any]:
    return {
        "workload": {"kind": "trace", "path": str(trace)},
        "run": {"mode": "cache-only"},
        "array_cache": {"size": size, "block": BLOCK, "prefetch": "none"},
    }


def _lcs_reader(lcs: Any, path: Path, oracle: bool) -> Any:
    params = lcs.ReaderInitParam(ignore_obj_size=True)
    if oracle:
        return lcs.TraceReader(str(path), lcs.TraceType.ORACLE_GENERAL_TRACE, params)
    params = lcs.ReaderInitParam(has_header=True, has_header_set=True, delimiter=",", ignore_obj_size=True)
    params.time_field, params.obj_id_field, params.obj_size_field = 1, 2, 3
    return lcs.TraceReader(str(path), lcs.TraceType.CSV_TRACE, params)


def bench_libcachesim(repeat: int, scratch: Path) -> None:
    print("(a) CloudPhysics, 4 KiB blocks, LRU, no prefetching: prefetchlab cache-only vs libCacheSim")
    if not CLOUDPHYSICS.exists():
        print(f"    skipped: {CLOUDPHYSICS} not found (set PREFETCHLAB_SHARED)")
        return
    try:
        import libcachesim as lcs  # type: ignore[import-untyped]
    except ImportError:
        print("    skipped: libcachesim is not installed (make venv installs it)")
        return
    csv = scratch / "cloudphysics.lcs.csv"
    done = prefetchlab.convert_trace(CLOUDPHYSICS, csv, block=BLOCK)
    table = pacsv.read_csv(csv)
    oracle = scratch / "cloudphysics.oracleGeneral.bin"
    records = np.zeros(table.num_rows, dtype=ORACLE)
    records["time"] = table["time"].to_numpy() // 1_000_000  # µs → s, as oracleGeneral keeps it
    records["obj_id"] = table["obj_id"].to_numpy()
    records["obj_size"] = table["obj_size"].to_numpy()
    records["next"] = -1  # LRU does not look ahead
    records.tofile(oracle)
    accesses = done["blocks"]
    rows = []
    ratios = []
    for mib in SIZES_MIB:
        ours: list[float] = []
        misses = 0
        for _ in range(repeat):
            t = time.perf_counter()
            m = prefetchlab.simulate(_cache_only(CLOUDPHYSICS, f"{mib}MiB")).metrics
            ours.append(time.perf_counter() - t)
            misses = m["misses"]
        theirs: dict[bool, list[float]] = {False: [], True: []}
        their_misses = {}
        for is_oracle in (False, True):
            for _ in range(repeat):
                reader = _lcs_reader(lcs, oracle if is_oracle else csv, is_oracle)
                cache = lcs.LRU(mib * 2**20 // BLOCK)
                t = time.perf_counter()
                miss_ratio, _ = cache.process_trace(reader)
                theirs[is_oracle].append(time.perf_counter() - t)
                their_misses[is_oracle] = round(miss_ratio * accesses)
        ours_rate = accesses / statistics.median(ours)
        csv_rate = accesses / statistics.median(theirs[False])
        oracle_rate = accesses / statistics.median(theirs[True])
        ratios.append(ours_rate / max(csv_rate, oracle_rate))
        rows.append(
            [
                f"{mib} MiB",
                f"{misses:,}",
                f"{their_misses[False]:,} / {their_misses[True]:,}",
                f"{ours_rate / 1e6:.2f}",
                f"{csv_rate / 1e6:.2f}",
                f"{oracle_rate / 1e6:.2f}",
                f"{ratios[-1]:.1f}×",
            ]
        )
    headers = [
        "cache",
        "misses (ours)",
        "misses (lcs csv / oracle)",
        "ours M/s",
        "lcs csv M/s",
        "lcs oracle M/s",
        "ours / best lcs",
    ]
    print(render(headers, rows))
    print(
        f"    {accesses:,} block accesses per run; M/s = million block accesses per wall second "
        f"(medians of {repeat}); ours includes reading and splitting the vSCSI file"
    )
    print(f"    prefetchlab / libCacheSim's faster reader: {min(ratios):.1f}× to {max(ratios):.1f}×")


def _generated(records: int, scratch: Path) -> Path:
    out = scratch / f"generated-{records}.spc.gz"
    if not out.exists():
        scratch.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "-p", "prefetchlab", "--example", "gen_trace"],
            cwd=REPO,
            check=True,
        )
        t = time.perf_counter()
        partial = out.with_suffix(".partial")
        subprocess.run(
            [str(REPO / "target" / "release" / "examples" / "gen_trace"), str(records), str(partial)],
            check=True,
        )
        partial.rename(out)
        print(
            f"    generated {out} ({out.stat().st_size / 2**20:,.0f} MiB) in {time.perf_counter() - t:.1f} s"
        )
    return out


#: Run in a process of its own: one configuration in cache-only mode, then its metrics and the
#: process's peak resident memory (VmHWM: the high-water mark of this process image alone — a
#: forked child's ru_maxrss would also count the parent's memory it started with).
_CHILD = """
import json, sys, prefetchlab
m = prefetchlab.simulate(sys.argv[1]).metrics
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(json.dumps({"metrics": m, "peak_rss_bytes": int(hwm) * 1024}))
"""


def _run_measured(config: Path) -> tuple[dict[str, Any], float, int]:
    """(metrics, wall s, peak RSS bytes) of one cache-only run in a process of its own."""
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(config)], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"the cache-only run failed: {proc.stderr}")
    out = json.loads(proc.stdout)
    return out["metrics"], wall, out["peak_rss_bytes"]


def bench_scale(records: int, scratch: Path) -> None:
    print("(b) scale: generated traces through cache-only LRU of 1 GiB (4 KiB blocks)")
    rows = []
    for n in (records // 10, records):
        trace = _generated(n, scratch)
        config = scratch / f"scale-{n}.toml"
        config.write_text(
            f'[workload]\nkind = "trace"\npath = "{trace}"\nformat = "spc"\n'
            '[run]\nmode = "cache-only"\n[array_cache]\nsize = "1GiB"\n'
        )
        m, wall, rss = _run_measured(config)
        accesses = m["hits"] + m["misses"]
        rows.append(
            [
                f"{n:,}",
                f"{trace.stat().st_size / 2**20:,.0f}",
                f"{accesses:,}",
                f"{wall:.1f}",
                f"{n / wall / 1e6:.2f}",
                f"{accesses / wall / 1e6:.2f}",
                f"{rss / 2**20:.0f}",
            ]
        )
    headers = [
        "records",
        "file MiB (gzip)",
        "block accesses",
        "wall s",
        "M records/s",
        "M blocks/s",
        "peak RSS MiB",
    ]
    print(render(headers, rows))
    print("    whole processes (Python start-up included); peak RSS = the process's VmHWM")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure of (a) (median)")
    parser.add_argument("--records", type=int, default=10**8, help="records of (b)'s longer trace")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "prefetchlab-bench")
    parser.add_argument("--skip-scale", action="store_true", help="(a) only")
    args = parser.parse_args()
    args.scratch.mkdir(parents=True, exist_ok=True)
    bench_libcachesim(args.repeat, args.scratch)
    if not args.skip_scale:
        print()
        bench_scale(args.records, args.scratch)


if __name__ == "__main__":
    main()
