"""Trace experiments: a trace path in an experiment file is read relative to the file (so it runs
the same from any working directory), a selector may pair each trace with its format, and the
shipped experiments/trace-replay.toml expands to its 20 runs over the shared traces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from prefetchlab.experiment import load_experiment

from .helpers import REPO, run_cli


def test_trace_replay_experiment_expands_over_the_shared_traces(traces: Path) -> None:
    exp = load_experiment(REPO / "experiments" / "trace-replay.toml")
    assert len(exp.runs) == 5 * 2 * 2
    for r in exp.runs:
        path = Path(json.loads(r.config_json)["workload"]["path"])
        assert path.is_absolute() and path.is_file() and path.is_relative_to(traces.resolve()), path
    formats = {(Path(r.flat["workload.path"]).name, r.flat["workload.format"]) for r in exp.runs}
    assert ("ssd-postmark-aligned2.trace", "disksim") in formats and len(formats) == 5
    assert exp.label("workload.path", exp.runs[0].flat["workload.path"]) == "wsrch-small.trace"


def test_a_relative_trace_path_is_read_from_the_experiment_file(tmp_path: Path, traces: Path) -> None:
    folder = tmp_path / "exp"
    folder.mkdir()
    shutil.copy(traces / "msr-sample" / "msr-cambridge1-sample.csv", folder / "hm0.csv")
    (folder / "t.toml").write_text(
        '[experiment]\nname = "t"\n[workload]\nkind = "trace"\npath = "hm0.csv"\nwrites = [true, false]\n'
        '[run]\nmode = "cache-only"\n[array_cache]\nsize = "1MiB"\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run_cli("sweep", folder / "t.toml", "--db", tmp_path / "r.duckdb", "--quiet", cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    import duckdb

    with duckdb.connect(str(tmp_path / "r.duckdb"), read_only=True) as con:
        rows = con.execute("SELECT app_requests FROM runs ORDER BY app_requests").fetchall()
    assert [r[0] for r in rows] == [508, 1000]  # reads only; reads and writes
