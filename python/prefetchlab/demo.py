"""``python -m prefetchlab.demo`` (what ``make demo`` runs).

Bandwidth of IOzone-style sequential readers on a 5-disk RAID-0 of
``cheetah-15k5`` drives with 128 KiB strips, under Linux readahead, at 1, 4, 16
and 64 streams, with a maximum readahead window of 128 KiB and of 512 KiB:
8 runs in a small process pool. Prints the bandwidth table and writes a plot
to ``out/demo-bandwidth.png``.

The base configuration is ``experiments/demo.toml``; the two axes are applied
to it as ``--set`` overrides (:data:`AXES`). Only built-in drive presets are
used, nothing from outside the repository.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from prefetchlab._table import render

#: The repository's ``experiments/demo.toml`` (the package lives in ``python/prefetchlab``).
DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "experiments" / "demo.toml"
DEFAULT_PLOT = Path("out") / "demo-bandwidth.png"

STREAMS: tuple[int, ...] = (1, 4, 16, 64)
READAHEAD_MAX_KIB: tuple[int, ...] = (128, 512)

#: The demo's axes as configuration keys and values, for ``--set``.
AXES: dict[str, list[str]] = {
    "workload.streams": [str(n) for n in STREAMS],
    "readahead.max": [f"{k}KiB" for k in READAHEAD_MAX_KIB],
}

Point = tuple[int, int]  # (streams, readahead max KiB)


def point_sets(streams: int, max_kib: int) -> list[str]:
    """The ``--set`` overrides of one point of the demo."""
    return [f"workload.streams={streams}", f"readahead.max={max_kib}KiB"]


def run_point(args: tuple[str, int, int]) -> tuple[int, int, dict[str, Any] | str]:
    """Runs one point in a worker; returns its metrics, or the error message.

    Errors travel back as text: the engine's exception class does not pickle.
    """
    from prefetchlab import PrefetchlabError, simulate

    config, streams, max_kib = args
    try:
        return streams, max_kib, simulate(Path(config), point_sets(streams, max_kib)).metrics
    except PrefetchlabError as e:
        return streams, max_kib, str(e)


def _ignore_sigint() -> None:
    # Ctrl-C is handled once, by the parent, which then terminates the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run_all(config: Path, workers: int) -> dict[Point, dict[str, Any]]:
    """Runs every point, the largest first; raises RuntimeError on the first failure."""
    jobs = [(str(config), s, m) for s in sorted(STREAMS, reverse=True) for m in READAHEAD_MAX_KIB]
    results: dict[Point, dict[str, Any]] = {}
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(processes=max(1, min(workers, len(jobs))), initializer=_ignore_sigint)
    try:
        for streams, max_kib, out in pool.imap_unordered(run_point, jobs):
            if isinstance(out, str):
                raise RuntimeError(f"{streams} streams, readahead max {max_kib} KiB: {out}")
            results[(streams, max_kib)] = out
            print(
                f"  ran {streams:>2} stream(s), readahead max {max_kib:>3} KiB: "
                f"{out['bandwidth_mb_s']:8.1f} MB/s  ({out['wall_time_s']:.2f} s wall)",
                flush=True,
            )
        pool.close()
    finally:
        pool.terminate()
        pool.join()
    return results


def bandwidth_table(results: dict[Point, dict[str, Any]]) -> str:
    """Rows = streams, columns = readahead max; aggregate bandwidth in MB/s."""
    headers = ["streams"] + [f"max {k} KiB" for k in READAHEAD_MAX_KIB]
    rows = [
        [str(s)] + [f"{results[(s, k)]['bandwidth_mb_s']:.1f}" for k in READAHEAD_MAX_KIB] for s in STREAMS
    ]
    return render(headers, rows)


def plot(results: dict[Point, dict[str, Any]], path: Path, title: str) -> None:
    """Bandwidth against streams, one line per readahead max, log2 x axis."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    for k in READAHEAD_MAX_KIB:
        ax.plot(
            STREAMS,
            [results[(s, k)]["bandwidth_mb_s"] for s in STREAMS],
            marker="o",
            label=f"readahead max {k} KiB",
        )
    ax.set_xscale("log", base=2)
    ax.set_xticks(STREAMS, [str(s) for s in STREAMS])
    ax.set_xlabel("concurrent sequential streams")
    ax.set_ylabel("aggregate bandwidth (MB/s)")
    ax.set_ylim(bottom=0)
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m prefetchlab.demo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG, help="base configuration (TOML)")
    parser.add_argument("--plot", type=Path, default=DEFAULT_PLOT, help="where to write the PNG")
    parser.add_argument(
        "--workers", type=int, default=min(4, os.cpu_count() or 1), help="processes running the points"
    )
    args = parser.parse_args(argv)
    if not args.config.is_file():
        print(f"prefetchlab demo: error: {args.config}: no such configuration file", file=sys.stderr)
        return 2
    title = "5-disk RAID-0 of cheetah-15k5, 128 KiB strips, Linux readahead"
    print(f"prefetchlab demo: {title}")
    axes = "; ".join(f"{key} = {', '.join(values)}" for key, values in AXES.items())
    print(f"  base {args.config}; axes {axes}: {len(STREAMS) * len(READAHEAD_MAX_KIB)} runs", flush=True)
    start = time.monotonic()
    try:
        results = run_all(args.config, args.workers)
    except RuntimeError as e:
        print(f"prefetchlab demo: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    wall = time.monotonic() - start
    print()
    print("aggregate bandwidth, MB/s")
    print(bandwidth_table(results))
    plot(results, args.plot, title)
    print()
    print(f"plot: {args.plot.resolve()}")
    print(f"{len(results)} runs in {wall:.1f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
