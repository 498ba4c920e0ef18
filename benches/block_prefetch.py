"""Speed of the array-cache schemes (``make bench``): each against LRU alone (no prefetching).

(a) Timed: the [FAST07] Fig. 9 configuration of ``experiments/fast07.toml`` at 200 streams
    (5 Atlas 10K drives on Ultra160 in RAID-0, a 100 MB array cache, 8 KiB O_DIRECT reads with 30 ms think
    time, 2 simulated minutes) with each scheme: simulated application requests per wall
    second as the engine measures them (``requests_per_wall_s``, the median of ``--repeat``
    runs).
(b) Cache-only: a generated trace (``examples/gen_trace``, SPC gzip: 8 sequential 8 KiB readers
    among random 4 KiB reads and writes) of ``--records`` records (default 10^7) through a
    256 MiB array cache with each scheme: block accesses per wall second (reading and
    decompressing the trace included), in this process, the median of ``--repeat`` runs.

Each row gives the scheme's ratio to LRU alone ("× LRU's time": how many times longer the
scheme takes for the same work; LRU runs just before each run of the scheme and the ratio is the
median of the pairs', so that the machine's drift over the bench does not count) and the hit
ratio, so that a faster scheme that does nothing shows. (a) is skipped, with a message, when
the shared data (``../shared`` or ``$PREFETCHLAB_SHARED``) are absent. Prints numbers with their
units; asserts nothing.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import prefetchlab
from prefetchlab._table import render
from prefetchlab.experiment import load_experiment

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cache_only import _generated  # noqa: E402  (the generated trace, shared with that bench)

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PREFETCHLAB_SHARED", REPO.parent / "shared"))
ATLAS = SHARED / "disksim-valid" / "atlas10k.parv"

#: (label, array_cache settings) — the schemes, with the degrees [FAST07] names.
SCHEMES: list[tuple[str, dict[str, Any]]] = [
    ("none (LRU)", {"prefetch": "none"}),
    ("OBL", {"prefetch": "obl"}),
    ("FS_8", {"prefetch": "fs", "p": 8}),
    ("FS_64", {"prefetch": "fs", "p": 64}),
    ("FA_8/3", {"prefetch": "fa", "p": 8}),
    ("FA_64/31", {"prefetch": "fa", "p": 64}),
    ("AS_Linear", {"prefetch": "as-linear"}),
    ("AS_Exp", {"prefetch": "as-exp"}),
    ("AMP", {"prefetch": "amp"}),
    ("AMP (second chance: any)", {"prefetch": "amp", "amp": {"second_chance": "any"}}),
    ("SP", {"prefetch": "sp"}),
    ("LSP", {"prefetch": "lsp"}),
    ("ASP (reconstruction)", {"prefetch": "asp"}),
    ("TaP (reconstruction)", {"prefetch": "tap"}),
    ("MSP", {"prefetch": "msp"}),
]


@functools.cache
def _fast07_disk() -> dict[str, Any]:
    """experiments/fast07.toml's drives: the Atlas 10K (the file ATLAS names, the one checked
    for) with the experiment's overrides (the Ultra160 interface)."""
    run = load_experiment(REPO / "experiments" / "fast07.toml").runs[0]
    overrides = json.loads(run.config_json)["disk"]["overrides"]
    return {"model": str(ATLAS), "overrides": overrides}


def _fast07(scheme: dict[str, Any]) -> dict[str, Any]:
    return {
        "array": {"layout": "raid0", "disks": 5, "strip": "64KiB"},
        "disk": _fast07_disk(),
        "array_cache": {"size": "100MB", **scheme},
        "workload": {
            "kind": "iozone",
            "streams": 200,
            "record": "8KiB",
            "file_size": "64MiB",
            "direct": True,
            "think_time": "30ms",
        },
        "run": {"duration": "120s", "seed": 1},
    }


def _cache_only(trace: Path, scheme: dict[str, Any]) -> dict[str, Any]:
    return {
        "array": {"layout": "raid5", "disks": 5, "strip": "64KiB"},
        "array_cache": {"size": "256MiB", **scheme},
        "workload": {"kind": "trace", "path": str(trace), "format": "spc"},
        "run": {"mode": "cache-only"},
    }


def _paired(
    repeat: int, rate: Callable[[dict[str, Any]], float], run: Callable[[dict[str, Any]], dict[str, Any]]
) -> list[tuple[str, float, float, float]]:
    """Each scheme's median rate, its median ratio to LRU's time and its hit ratio. LRU alone runs
    just before each run of a scheme and the ratio is taken pair by pair, so that a drift in the
    machine's speed over the bench (a shared machine's) does not show as a difference of schemes."""
    lru_scheme = SCHEMES[0][1]
    warm_up = run(lru_scheme)  # the first run also reads the files into the OS's cache
    lru_rates: list[float] = []
    results = []
    for label, scheme in SCHEMES[1:]:
        rates, ratios = [], []
        for _ in range(repeat):
            base = rate(run(lru_scheme))
            m = run(scheme)
            lru_rates.append(base)
            rates.append(rate(m))
            ratios.append(base / rate(m))
        hit = m["array_cache_hit_ratio"]
        results.append((label, statistics.median(rates), statistics.median(ratios), hit))
    return [(SCHEMES[0][0], statistics.median(lru_rates), 1.0, warm_up["array_cache_hit_ratio"]), *results]


def _table(title: str, rate_name: str, results: list[tuple[str, float, float, float]]) -> None:
    rows = [
        [label, f"{rate / 1e6:.2f} M", f"{ratio:.2f}×", f"{hit:.3f}"] for label, rate, ratio, hit in results
    ]
    print(title)
    print(render(["scheme", rate_name, "× LRU's time", "hit ratio"], rows))
    worst = max(results[1:], key=lambda r: r[2])
    print(f"    slowest against LRU alone: {worst[0]}, {worst[2]:.2f}× LRU's time\n")


def bench_timed(repeat: int) -> None:
    if not ATLAS.exists():
        print(f"(a) skipped: {ATLAS} not found (set PREFETCHLAB_SHARED)\n")
        return
    results = _paired(
        repeat,
        lambda m: m["requests_per_wall_s"],
        lambda scheme: prefetchlab.simulate(_fast07(scheme)).metrics,
    )
    _table(
        f"(a) timed, [FAST07] Fig. 9 at 200 streams, 2 simulated minutes (medians of {repeat} pairs)",
        "requests / wall s",
        results,
    )


def bench_cache_only(records: int, repeat: int, scratch: Path) -> None:
    trace = _generated(records, scratch)
    results = _paired(
        repeat,
        lambda m: (m["hits"] + m["misses"]) / m["wall_time_s"],
        lambda scheme: prefetchlab.simulate(_cache_only(trace, scheme)).metrics,
    )
    _table(
        f"(b) cache-only, {records:,} generated records through a 256 MiB array cache "
        f"(medians of {repeat} pairs)",
        "block accesses / wall s",
        results,
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=10**7, help="records of the generated trace")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (the median is printed)")
    ap.add_argument(
        "--scratch", type=Path, default=Path(tempfile.gettempdir()), help="where the trace is kept"
    )
    args = ap.parse_args()
    bench_timed(args.repeat)
    bench_cache_only(args.records, args.repeat, args.scratch)


if __name__ == "__main__":
    main()
