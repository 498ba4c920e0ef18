"""The demo (``make demo``): its configuration, table and plot."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import prefetchlab
from prefetchlab import demo
from prefetchlab.experiment import run_id
from prefetchlab.results import ResultsDB

from .helpers import REPO, run_cli


def test_demo_configuration_is_the_documented_one() -> None:
    cfg = prefetchlab.resolve(REPO / "experiments" / "demo.toml")
    assert cfg["array"] == {
        "layout": "raid0",
        "disks": 5,
        "strip": 128 << 10,
        "raid6_write": "cheaper",
        "io_context": "caller",
    }
    assert cfg["disk"]["model"] == "cheetah-15k5"
    assert cfg["readahead"]["policy"] == "linux"
    assert cfg["readahead"]["variant"] == prefetchlab.resolve({})["readahead"]["variant"]
    assert cfg["workload"]["kind"] == "iozone"
    assert cfg["host"]["memory"] == 1 << 30
    assert demo.STREAMS == (1, 4, 16, 64) and demo.READAHEAD_MAX_KIB == (128, 512)
    # Every point of the demo is a valid configuration.
    for s in demo.STREAMS:
        for k in demo.READAHEAD_MAX_KIB:
            point = prefetchlab.resolve(demo.DEFAULT_CONFIG, demo.point_sets(s, k))
            assert point["workload"]["streams"] == s and point["readahead"]["max"] == k << 10


#: Published sustained media rate of the Seagate Cheetah 15K.5 at its outer zone, MB/s (10^6 B/s):
#: "125 MB/s max" (OSTEP ch. 37, Fig. 37.5; ../shared/specs/models.md §1). No array of N such
#: drives can deliver more than N times this from its platters.
CHEETAH_15K5_MAX_MB_S = 125.0


def _light(text: str) -> str:
    """The demo's set-up with 1 MiB files instead of 256 MiB, so that the test stays small."""
    assert '"256MiB"' in text
    return text.replace('"256MiB"', '"1MiB"')


def test_demo_prints_the_table_and_writes_the_plot(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text(_light((REPO / "experiments" / "demo.toml").read_text()))
    plot = tmp_path / "plot.png"
    args = ["--config", str(base), "--plot", str(plot), "--workers", "2"]
    proc = subprocess.run(
        [sys.executable, "-m", "prefetchlab.demo", *args],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"plot: {plot.resolve()}" in proc.stdout

    # The table's shape and units: a title with the unit, a header, a rule, one row per stream
    # count, one bandwidth (one decimal) per readahead window.
    table = proc.stdout.split("aggregate bandwidth, MB/s\n", 1)[1].splitlines()
    assert table[0].split() == ["streams", "max", "128", "KiB", "max", "512", "KiB"]
    assert set(table[1].replace(" ", "")) == {"-"}
    printed: dict[tuple[int, int], str] = {}
    for line in table[2:6]:
        first, *cells = line.split()
        assert re.fullmatch(r"\d+", first) and len(cells) == len(demo.READAHEAD_MAX_KIB), line
        for k, cell in zip(demo.READAHEAD_MAX_KIB, cells, strict=True):
            assert re.fullmatch(r"\d+\.\d", cell), line
            printed[(int(first), k)] = cell
    assert table[6] == ""
    assert sorted({s for s, _ in printed}) == list(demo.STREAMS)

    # Each printed number is the stored result of the same run, swept independently (the
    # experiment file, the sweep runner, the results database) and found by its run id.
    exp_file = tmp_path / "foundation-demo.toml"
    exp_file.write_text(_light((REPO / "experiments" / "foundation-demo.toml").read_text()))
    db = tmp_path / "results.duckdb"
    sweep = run_cli("sweep", exp_file, "--db", db, "--workers", "2", "--quiet")
    assert sweep.returncode == 0, sweep.stderr
    rows = {r["run_id"]: r for r in ResultsDB(db).rows("foundation-demo")}
    assert len(rows) == len(printed)
    for (streams, k), cell in printed.items():
        config = prefetchlab.resolve(base, demo.point_sets(streams, k))
        row = rows[run_id(json.dumps(config))]
        assert cell == f"{row['bandwidth_mb_s']:.1f}", (streams, k)

        # What must hold physically, whatever the model: every reader read its whole file once,
        # all of it from the disks (the caches start cold); the bandwidth is the bytes over the
        # simulated time, positive and below what the array's platters can deliver.
        file_size = config["workload"]["file_size"]
        assert row["bytes_read"] == streams * file_size
        assert row["disk_sectors"] * 512 >= row["bytes_read"]
        assert row["bandwidth_mb_s"] == pytest.approx(row["bytes_read"] / 1e6 / row["sim_time_s"], rel=1e-9)
        disks = config["array"]["disks"]
        assert 0 < row["bandwidth_mb_s"] < disks * CHEETAH_15K5_MAX_MB_S, (streams, k)
        assert 0 <= row["disk_utilization"] <= 1 and 0 <= row["hit_ratio"] <= 1


def test_the_demo_experiment_runs_the_demo_points() -> None:
    """experiments/foundation-demo.toml (what `make demo` reproduces into the report) is the
    demo's base configuration with its two axes: the report shows the printed table's runs."""
    from prefetchlab.experiment import load_experiment

    exp = load_experiment(REPO / "experiments" / "foundation-demo.toml")
    got = sorted(json.dumps(json.loads(r.config_json), sort_keys=True) for r in exp.runs)
    want = sorted(
        json.dumps(prefetchlab.resolve(demo.DEFAULT_CONFIG, demo.point_sets(s, k)), sort_keys=True)
        for s in demo.STREAMS
        for k in demo.READAHEAD_MAX_KIB
    )
    assert got == want
