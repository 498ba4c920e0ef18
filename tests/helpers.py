"""Helpers of the Python tests: a small configuration, the CLI as a subprocess,
and the location of the shared data (``../shared`` beside the repository, or
``$PREFETCHLAB_SHARED``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PREFETCHLAB_SHARED", REPO.parent / "shared")).resolve()
CHEETAH = SHARED / "disksim-valid" / "cheetah15k5"

#: The overrides with which DiskSim's own validation of the Cheetah 15K.5 was run.
CHEETAH_OVERRIDES: tuple[tuple[str, float], ...] = (
    ("Enable caching in buffer", 0.0),
    ("Fast write level", 0.0),
    ("Buffer continuous read", 0.0),
)

#: A small run: 3 streams over a 3-disk RAID-0, quick even with the full drive model.
SMALL_TOML = """\
[array]
layout = "raid0"
disks = 3
strip = "64KiB"

[readahead]
policy = "linux"
max = "128KiB"

[workload]
kind = "iozone"
streams = 3
record = "64KiB"
file_size = "2MiB"

[run]
seed = 7
"""
SMALL_STREAMS = 3
SMALL_DISKS = 3
SMALL_FILE_BYTES = 2 << 20

#: Metrics that measure the host's wall clock, not the simulation.
WALL_CLOCK_METRICS = frozenset({"wall_time_s", "requests_per_wall_s"})


def simulated(metrics: dict[str, object]) -> dict[str, object]:
    """The metrics without the wall-clock ones (those differ between identical runs)."""
    return {k: v for k, v in metrics.items() if k not in WALL_CLOCK_METRICS}


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ``prefetchlab ARGS...`` in a fresh interpreter, capturing its output."""
    return subprocess.run(
        [sys.executable, "-m", "prefetchlab.cli", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


def assert_one_line_error(proc: subprocess.CompletedProcess[str], *expected: str) -> str:
    """Exit code 2, nothing on stdout, one ``prefetchlab: error:`` line naming ``expected``."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith("prefetchlab: error: "), line
    for bad in ("Traceback", "panicked", "internal error", "RUST_BACKTRACE"):
        assert bad not in proc.stderr, proc.stderr
    for word in expected:
        assert word in line, (word, line)
    return line
