"""Helpers of the experiment tests: small experiment files and the CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import duckdb

from prefetchlab.schema import WALL_CLOCK_METRICS

#: The command line, as a user runs it.
CLI = [sys.executable, "-m", "prefetchlab.cli"]

#: Columns that measure the host's clock; every other column is reproducible.
WALL_COLUMNS = ("wall_s", *WALL_CLOCK_METRICS)


def demo_like(
    name: str = "tiny", file_size: str = "1MiB", streams: str = "[1, 2, 4, 8]", extra: str = ""
) -> str:
    """A 32-run sweep of the foundation demo's set-up (RAID-0 of cheetah-15k5, iozone readers):
    4 stream counts x 2 readahead windows x 2 strip sizes x 2 array widths."""
    return f"""\
[experiment]
name = "{name}"
title = "A demo-like sweep"

[array]
layout = "raid0"
disks = [2, 5]
strip = ["64KiB", "128KiB"]

[disk]
model = "cheetah-15k5"

[readahead]
policy = "linux"
max = ["128KiB", "512KiB"]

[workload]
kind = "iozone"
streams = {streams}
record = "64KiB"
file_size = "{file_size}"

[run]
seed = 7

[[figure]]
name = "bw"
title = "Bandwidth"
x = "workload.streams"
y = "bandwidth_mb_s"
series = "readahead.max"
facets = "array.disks"
logx = true
units = "MB/s"
{extra}"""


def write(dir: Path, name: str, text: str) -> Path:
    path = dir / name
    path.write_text(text)
    return path


def cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Runs ``prefetchlab ARGS`` (not on a terminal, so without a progress bar)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [*CLI, *map(str, args)], cwd=cwd, capture_output=True, text=True, env=env, check=False
    )


def table(db: Path, exclude: tuple[str, ...] = WALL_COLUMNS) -> list[tuple[Any, ...]]:
    """Every row of ``runs``, ordered, without the wall-clock columns."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cols = [r[0] for r in con.execute("DESCRIBE runs").fetchall() if r[0] not in exclude]
        quoted = ", ".join(f'"{c}"' for c in cols)
        return con.execute(f"SELECT {quoted} FROM runs ORDER BY experiment, run_id").fetchall()
    finally:
        con.close()


def columns(db: Path) -> list[str]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [r[0] for r in con.execute("DESCRIBE runs").fetchall()]
    finally:
        con.close()


def one_error_line(stderr: str) -> str:
    """The one ``prefetchlab: error:`` line of a failed command (asserting it is alone)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1, f"expected one error line, got:\n{stderr}"
    assert lines[0].startswith("prefetchlab: error: "), lines[0]
    return lines[0]


def configs(db: Path) -> list[dict[str, Any]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return [json.loads(r[0]) for r in con.execute("SELECT config FROM runs ORDER BY run_id").fetchall()]
    finally:
        con.close()
