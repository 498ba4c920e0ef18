"""The demo (``make demo``): its configuration, table and plot."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import prefetchlab
from prefetchlab import demo

from .helpers import REPO


def test_demo_configuration_is_the_documented_one() -> None:
    cfg = prefetchlab.resolve(REPO / "experiments" / "demo.toml")
    assert cfg["array"] == {"layout": "raid0", "disks": 5, "strip": 128 << 10}
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


def test_demo_prints_the_table_and_writes_the_plot(tmp_path: Path) -> None:
    # The demo's axes over a lighter base, so that the test stays small.
    base = tmp_path / "base.toml"
    base.write_text((REPO / "experiments" / "demo.toml").read_text().replace('"32MiB"', '"1MiB"'))
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
    table = proc.stdout.split("aggregate bandwidth, MB/s\n", 1)[1].splitlines()
    assert table[0].split() == ["streams", "max", "128", "KiB", "max", "512", "KiB"]
    rows = {int(line.split()[0]): line.split()[1:] for line in table[2:6]}
    assert sorted(rows) == [1, 4, 16, 64]
    for streams in (1, 64):
        for col, k in enumerate(demo.READAHEAD_MAX_KIB):
            m = prefetchlab.simulate(base, demo.point_sets(streams, k)).metrics
            assert rows[streams][col] == f"{m['bandwidth_mb_s']:.1f}"


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
