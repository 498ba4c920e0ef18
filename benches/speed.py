"""Speed of the engine, in simulated requests per wall-clock second (``make bench``).

(a) the 64-stream run of the demo (readahead max 128 KiB): application
    requests / wall time, as the engine measures it (``requests_per_wall_s``)
    and end to end through the Python API;
(b) the replay of the Cheetah 15K.5 validation trace on one drive
    (``validate_disk``), in this process: trace requests / wall time;
(c) whole processes: ``prefetchlab validate-disk`` replaying DiskSim validation
    traces of 10,000 and 100,000 requests (the lines of the Cheetah 15K.5's
    ``random.trace`` repeated, written to a temporary directory), timed from the
    start of the process to its exit (``time.perf_counter`` around
    ``subprocess.run``), start-up included; the start-up alone
    (``prefetchlab --help``) beside them, and the cost of one more request
    (the difference of the two runs over the difference of their lengths). When ``$DISKSIM`` names a DiskSim
    binary, DiskSim replays the same traces with the same overrides, timed the
    same way: ``$DISKSIM Seagate-Cheetah15k5.parv OUT validate TRACE 0 disk0
    "NAME" VALUE ...``, run in a copy of the drive's folder (DiskSim reads the
    files the .parv names from its working directory, and writes its logs there).

(b) and (c) are skipped, with a message, when the shared data (``../shared`` or
``$PREFETCHLAB_SHARED``) are absent. Each figure is the median of ``--repeat``
runs (DiskSim's of ``--disksim-repeat``). Prints numbers with their units;
asserts nothing.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import prefetchlab
from prefetchlab import demo
from prefetchlab._table import render

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PREFETCHLAB_SHARED", REPO.parent / "shared"))
CHEETAH = SHARED / "disksim-valid" / "cheetah15k5"
CHEETAH_SPEC = "Seagate-Cheetah15k5.parv"
CHEETAH_OVERRIDES = [
    ("Enable caching in buffer", 0.0),
    ("Fast write level", 0.0),
    ("Buffer continuous read", 0.0),
]
#: Requests in the generated validation traces of (c).
TRACE_SIZES = (10_000, 100_000)
#: Files DiskSim writes into its working directory (not copied with the drive's folder).
DISKSIM_OUTPUTS = ("exectrace", "log_sim_results.csv")


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


def _have_cheetah(label: str) -> bool:
    if (CHEETAH / CHEETAH_SPEC).is_file() and (CHEETAH / "random.trace").is_file():
        return True
    print(f"{label} skipped: the Cheetah 15K.5 validation data are not at {CHEETAH} (set PREFETCHLAB_SHARED)")
    return False


def bench_validation(repeat: int) -> None:
    if not _have_cheetah("(b)"):
        return
    spec = CHEETAH / CHEETAH_SPEC
    trace = CHEETAH / "random.trace"

    def run() -> float:
        return float(prefetchlab.validate_disk(spec, trace, CHEETAH_OVERRIDES)["requests"])

    try:
        walls, requests = timed(run, repeat)
    except prefetchlab.PrefetchlabError as e:
        print(f"(b) skipped: validate_disk failed: {e}")
        return
    wall = statistics.median(walls)
    print(f"(b) replay of {trace.name} on one cheetah15k5, in this process: {requests[0]:.0f} requests")
    rate = requests[0] / wall
    print(f"    end to end: {rate:>12,.0f} simulated requests / wall s  ({wall:.3f} s median wall)")


def write_trace(source: Path, requests: int, out: Path) -> Path:
    """``requests`` lines of ``source``, cycled (each line's next-request delay travels with it)."""
    lines = [line for line in source.read_text().splitlines() if line.strip()]
    out.write_text("\n".join(itertools.islice(itertools.cycle(lines), requests)) + "\n")
    return out


def prefetchlab_command() -> list[str]:
    """The console script beside this interpreter (as a user runs it), else ``python -m``."""
    script = Path(sys.executable).parent / "prefetchlab"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "prefetchlab.cli"]


def whole_process(argv: Sequence[str], repeat: int, cwd: Path | None = None) -> tuple[float, str]:
    """Median wall seconds of ``repeat`` runs of ``argv`` as a process, and the last run's stdout."""
    walls: list[float] = []
    out = ""
    for _ in range(repeat):
        start = time.perf_counter()
        proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
        walls.append(time.perf_counter() - start)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            raise RuntimeError(f"`{' '.join(argv[:2])} ...` exited with {proc.returncode}: {last}")
        out = proc.stdout
    return statistics.median(walls), out


def disksim_folder(spec_dir: Path, into: Path) -> Path:
    """A copy of the drive's DiskSim files, where DiskSim may write its logs."""
    into.mkdir()
    for f in spec_dir.iterdir():
        if f.is_file() and f.suffix != ".trace" and f.name not in DISKSIM_OUTPUTS:
            shutil.copy(f, into / f.name)
    return into


def run_disksim(disksim: str, folder: Path, trace: Path, requests: int, repeat: int) -> float:
    argv = [disksim, CHEETAH_SPEC, str(folder / "out.outv"), "validate", str(trace), "0"]
    for name, value in CHEETAH_OVERRIDES:
        argv += ["disk0", name, f"{value:g}"]
    wall, _ = whole_process(argv, repeat, cwd=folder)
    report = (folder / "out.outv").read_text(errors="replace")
    handled = f"Overall I/O System Total Requests handled:\t{requests}"
    if handled not in report:
        raise RuntimeError(f"DiskSim's output does not say it handled {requests} requests")
    return wall


def bench_whole_process(repeat: int, disksim_repeat: int) -> None:
    if not _have_cheetah("(c)"):
        return
    disksim = os.environ.get("DISKSIM")
    if disksim and not (os.path.isfile(disksim) and os.access(disksim, os.X_OK)):
        print(f"(c) DISKSIM={disksim} is not an executable file: DiskSim is not timed")
        disksim = None
    cmd = prefetchlab_command()
    startup, _ = whole_process([*cmd, "--help"], repeat)
    print(
        f"(c) whole processes, start to exit: validate-disk on {CHEETAH_SPEC}, "
        f"the lines of random.trace repeated (median of {repeat} runs"
        + (f"; DiskSim: of {disksim_repeat})" if disksim else ")")
    )
    print(f"    start-up alone (prefetchlab --help): {startup:.3f} s per run")
    headers = ["trace", "prefetchlab", "prefetchlab rate"]
    if disksim:
        headers += ["DiskSim", "DiskSim rate", "DiskSim / prefetchlab"]
    rows: list[list[str]] = []
    walls: dict[int, float] = {}
    ds_walls: dict[int, float] = {}
    with tempfile.TemporaryDirectory(prefix="prefetchlab-bench-") as tmp:
        folder = disksim_folder(CHEETAH, Path(tmp) / "drive") if disksim else None
        for n in TRACE_SIZES:
            trace = write_trace(CHEETAH / "random.trace", n, Path(tmp) / f"random-{n}.trace")
            argv = [*cmd, "validate-disk", str(CHEETAH / CHEETAH_SPEC), str(trace), "--json"]
            for name, value in CHEETAH_OVERRIDES:
                argv += ["--override", f"{name}={value:g}"]
            wall, out = whole_process(argv, repeat)
            if json.loads(out)["requests"] != n:
                raise RuntimeError(f"validate-disk replayed {json.loads(out)['requests']} requests, not {n}")
            walls[n] = wall
            row = [f"{n} requests", f"{wall:.3f} s/run", f"{n / wall:,.0f} req/s"]
            if disksim and folder is not None:
                ds_wall = run_disksim(disksim, folder, trace, n, disksim_repeat)
                ds_walls[n] = ds_wall
                row += [
                    f"{ds_wall:.3f} s/run",
                    f"{n / ds_wall:,.0f} req/s",
                    f"{ds_wall / wall:.1f}× the time",
                ]
            rows.append(row)
    print(render(headers, rows, indent="    "))
    # what one more request costs, start-up and file parsing left out: the
    # difference of the two runs over the difference of their lengths
    small, large = TRACE_SIZES
    per_us = (walls[large] - walls[small]) / (large - small) * 1e6
    line = f"    per request beyond start-up ({large:,} less {small:,} requests): {per_us:.2f} µs"
    if small in ds_walls and large in ds_walls:
        line += f"; DiskSim {(ds_walls[large] - ds_walls[small]) / (large - small) * 1e6:.1f} µs"
    print(line)
    if not disksim:
        print("    DiskSim not timed: set DISKSIM to a DiskSim binary to time it on the same traces")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (the median is printed)")
    parser.add_argument(
        "--disksim-repeat", type=int, default=3, help="DiskSim runs per figure (it is slow; the median)"
    )
    args = parser.parse_args()
    print(f"prefetchlab {prefetchlab.__version__} speed, median of {args.repeat} runs")
    try:
        bench_demo_run(args.repeat)
        bench_validation(args.repeat)
        bench_whole_process(args.repeat, args.disksim_repeat)
    except (prefetchlab.PrefetchlabError, RuntimeError, OSError) as e:
        print(f"speed: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
