"""Speed of the engine, in simulated requests per wall-clock second (``make bench``).

(a) the 64-stream run of the demo (readahead max 128 KiB): application
    requests / wall time, as the engine measures it (``requests_per_wall_s``)
    and end to end through the Python API;
(b) the replay of the Cheetah 15K.5 validation trace on one drive
    (``validate_disk``): trace requests / wall time. Skipped, with a message,
    when the shared data (``../shared`` or ``$PREFETCHLAB_SHARED``) are absent.

Each figure is the median of ``--repeat`` runs. Prints numbers; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import prefetchlab
from prefetchlab import demo

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PREFETCHLAB_SHARED", REPO.parent / "shared"))
CHEETAH = SHARED / "disksim-valid" / "cheetah15k5"
CHEETAH_OVERRIDES = [
    ("Enable caching in buffer", 0.0),
    ("Fast write level", 0.0),
    ("Buffer continuous read", 0.0),
]


def timed(f: Callable[[], float], repeat: int) -> tuple[list[float], list[float]]:
    """Runs ``f`` ``repeat`` times; returns wall seconds and what ``f`` returned, per run."""
    walls: list[float] = []
    values: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        values.append(f())
        walls.append(time.perf_counter() - start)
    return walls, values


def bench_demo_run(repeat: int) -> None:
    sets = demo.point_sets(64, 128)
    first = prefetchlab.simulate(demo.DEFAULT_CONFIG, sets).metrics
    requests = first["app_requests"]

    def run() -> float:
        return float(prefetchlab.simulate(demo.DEFAULT_CONFIG, sets).metrics["requests_per_wall_s"])

    walls, engine_rates = timed(run, repeat)
    wall = statistics.median(walls)
    simulated_s = first["sim_time_s"]
    print(f"(a) demo run, 64 streams, readahead max 128 KiB: {requests} requests, {simulated_s:.2f} s sim.")
    print(f"    engine:     {statistics.median(engine_rates):>12,.0f} simulated requests / wall s")
    print(
        f"    end to end: {requests / wall:>12,.0f} simulated requests / wall s  ({wall:.3f} s median wall)"
    )


def bench_validation(repeat: int) -> None:
    spec = CHEETAH / "Seagate-Cheetah15k5.parv"
    trace = CHEETAH / "random.trace"
    if not (spec.is_file() and trace.is_file()):
        print(f"(b) skipped: the Cheetah 15K.5 validation data are not at {CHEETAH} (set PREFETCHLAB_SHARED)")
        return

    def run() -> float:
        return float(prefetchlab.validate_disk(spec, trace, CHEETAH_OVERRIDES)["requests"])

    try:
        walls, requests = timed(run, repeat)
    except prefetchlab.PrefetchlabError as e:
        print(f"(b) skipped: validate_disk failed: {e}")
        return
    wall = statistics.median(walls)
    print(f"(b) replay of {trace.name} on one cheetah15k5: {requests[0]:.0f} requests")
    rate = requests[0] / wall
    print(f"    end to end: {rate:>12,.0f} simulated requests / wall s  ({wall:.3f} s median wall)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (the median is printed)")
    args = parser.parse_args()
    print(f"prefetchlab {prefetchlab.__version__} speed, median of {args.repeat} runs")
    try:
        bench_demo_run(args.repeat)
        bench_validation(args.repeat)
    except prefetchlab.PrefetchlabError as e:
        print(f"speed: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
