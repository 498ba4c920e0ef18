"""The results database, its export and terminal table, the claim language, and plots."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

from prefetchlab.claims import Check, ClaimError, evaluate, parse_check, parse_value
from prefetchlab.experiment import ExperimentError, load_experiment, run_id
from prefetchlab.results import ResultsDB
from prefetchlab.runner import execute
from prefetchlab.schema import metric_names, metric_types

from .sweep_files import cli, columns, demo_like, table, write

# The claim language.

VALUES = {"a": {"bw": 10.0, "lat": 2.0}, "b": {"bw": 4.0, "lat": 3.0}, "c": {"bw": 6.0, "lat": 1.0}}


def _bound(text: str, ids: dict[str, list[str]], ours: str | None = None) -> Check:
    """Parses ``text`` and binds its terms: a selector ``run=X`` picks the runs listed for X."""
    check = parse_check(text, ours)
    for term in check.terms():
        term.run_ids = ids[str(term.selector.get("run", "all"))]
    return check


def test_claims_compare_ratios_and_report_ours_as_the_ratio() -> None:
    ids = {"a": ["a"], "b": ["b"], "all": ["a", "b", "c"]}
    check = _bound("bw[run=a] >= 2 * bw[run=b]", ids)
    out = evaluate(check, VALUES)
    assert out.holds and out.ours_kind == "ratio" and out.ours == pytest.approx(2.5)
    assert (out.left, out.right) == (10.0, 8.0)
    out = evaluate(_bound("bw[run=a] ≥ 3 × bw[run=b]", ids), VALUES)
    assert not out.holds and out.ours == pytest.approx(2.5)
    out = evaluate(_bound("mean(bw) > 6.5", ids), VALUES)
    assert out.holds and out.ours_kind == "value" and out.ours == pytest.approx(20 / 3)
    out = evaluate(_bound("max(lat) - min(lat) == 2", ids), VALUES)
    assert out.holds
    # a division by zero is no evidence: neither side infinite nor undefined holds
    zero = {"a": {"bw": 10.0, "lat": 2.0}, "b": {"bw": 0.0, "lat": 4.0}}
    assert not evaluate(_bound("bw[run=a] / bw[run=b] > 1", ids), zero).holds
    assert not evaluate(_bound("lat[run=a] < bw[run=b] / bw[run=b]", ids), zero).holds
    assert evaluate(_bound("bw[run=b] / bw[run=a] < 1", ids), zero).holds
    out = evaluate(_bound("bw[run=a] / bw[run=b] < (1 + 1.5)", ids, ours="lat[run=b]"), VALUES)
    assert not out.holds and out.ours == 3.0


@pytest.mark.parametrize(
    "text, message",
    [
        ("bw[run=a]", "expected a comparison"),
        ("bw[run=a] >= ", "unexpected end"),
        ("bw[run=a] >= 2 2", "unexpected `2`"),
        ("__import__('os') > 1", "unexpected text"),
        ("bw[run] > 1", "KEY=VALUE"),
        ("bw[run=a] >= (2", "expected `)`"),
        ("bw[run=a] => 2", "unexpected text at `=> 2`"),
    ],
)
def test_bad_claim_text_is_rejected(text: str, message: str) -> None:
    with pytest.raises(ClaimError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_check(text)


def test_selector_values_read_like_set_overrides() -> None:
    assert parse_value("512KiB") == "512KiB"
    assert parse_value(" 4 ") == 4
    assert parse_value('"2.6.18"') == "2.6.18"
    assert parse_value("true") is True


def test_claims_are_bound_to_runs_when_the_experiment_loads(tmp_path: Path) -> None:
    ok = """
[[claim]]
text = "t"
where = { "array.disks" = 5, "array.strip" = "128KiB" }
check = "bandwidth_mb_s[workload.streams=8, readahead.max=524288] >= mean(bandwidth_mb_s[workload.streams=1])"
paper = 1.5
"""
    exp = load_experiment(write(tmp_path, "ok.toml", demo_like(extra=ok)))
    left, right = exp.claims[0].check.terms()
    assert len(left.run_ids) == 1 and len(right.run_ids) == 2
    assert exp.claims[0].figure == "bw"  # the first figure by default
    ambiguous = ok.replace(
        ">= mean(bandwidth_mb_s[workload.streams=1])", ">= bandwidth_mb_s[workload.streams=1]"
    )
    with pytest.raises(ExperimentError, match="matches 2 runs"):
        load_experiment(write(tmp_path, "amb.toml", demo_like(extra=ambiguous)))
    nothing = ok.replace("workload.streams=8,", "workload.streams=3,")
    with pytest.raises(ExperimentError, match="matches no run"):
        load_experiment(write(tmp_path, "none.toml", demo_like(extra=nothing)))
    badkey = ok.replace("workload.streams=8,", "workload.streamz=8,")
    with pytest.raises(ExperimentError, match="workload.streamz"):
        load_experiment(write(tmp_path, "key.toml", demo_like(extra=badkey)))
    badfig = ok + 'figure = "nope"\n'
    with pytest.raises(ExperimentError, match="no figure named `nope`"):
        load_experiment(write(tmp_path, "fig.toml", demo_like(extra=badfig)))


def test_figures_are_checked(tmp_path: Path) -> None:
    with pytest.raises(
        ExperimentError, match="y: unknown metric `bandwidth` \\(did you mean `bandwidth_mb_s`"
    ):
        load_experiment(
            write(tmp_path, "y.toml", demo_like().replace('y = "bandwidth_mb_s"', 'y = "bandwidth"'))
        )
    with pytest.raises(ExperimentError, match="series `readahead.maximum`"):
        text = demo_like().replace('series = "readahead.max"', 'series = "readahead.maximum"')
        load_experiment(write(tmp_path, "s.toml", text))


# The database.


def test_metric_columns_come_from_the_engine() -> None:
    types = metric_types()
    assert types["bandwidth_mb_s"] == "DOUBLE" and types["disk_requests"] == "BIGINT"
    report = json.loads(__import__("prefetchlab")._engine.simulate("", "toml", [])["report"])
    assert metric_names() == list(report["metrics"])


def test_each_write_is_one_row_and_replaces_on_force(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, "e.toml", demo_like()))
    db = ResultsDB(tmp_path / "r.duckdb")
    db.create()
    run = exp.runs[3]
    result = execute(run.config_json)
    db.write(exp.name, run.run_id, run.config_json, result)
    assert db.stored_ids(exp.name) == {run.run_id}
    assert db.stored_ids("another") == set()
    db.write(exp.name, run.run_id, run.config_json, {**result, "wall_s": 123.0})
    rows = db.rows(exp.name)
    assert len(rows) == 1 and rows[0]["wall_s"] == 123.0
    row = rows[0]
    assert row["run_id"] == run_id(row["config"]) == run.run_id
    assert json.loads(row["config"]) == json.loads(run.config_json)
    assert row["seed"] == 7 and row["version"] == result["version"]
    assert row["bandwidth_mb_s"] == result["metrics"]["bandwidth_mb_s"]
    # The same configuration in another experiment is a row of its own.
    db.write("another", run.run_id, run.config_json, result)
    assert len(db.rows()) == 2 and db.experiments() == ["another", exp.name]


def test_an_old_file_gains_new_metric_columns(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute(
        "CREATE TABLE runs (run_id TEXT NOT NULL, experiment TEXT NOT NULL, config TEXT NOT NULL, "
        "bandwidth_mb_s DOUBLE, seed UBIGINT, version TEXT, wall_s DOUBLE, PRIMARY KEY (experiment, run_id))"
    )
    con.close()
    ResultsDB(path).create()
    assert set(metric_names()) <= set(columns(path))


def test_a_database_of_another_program_is_named(tmp_path: Path) -> None:
    db = tmp_path / "other.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE runs (a INTEGER)")
    con.close()
    exp = write(tmp_path, "demo.toml", demo_like())
    for args in (("sweep", exp, "--db", db), ("results", "show", "demo", "--db", db)):
        r = cli(*args)
        assert r.returncode == 2, r.stderr
        assert "not a prefetchlab results database" in r.stderr and "internal error" not in r.stderr


def test_export_parquet_and_show(tmp_path: Path) -> None:
    exp = write(tmp_path, "demo.toml", demo_like(name="demo-like"))
    assert cli("sweep", exp, "--workers", "2").returncode == 0
    out = cli("results", "export", "--parquet", tmp_path / "pq", "--db", tmp_path / "results.duckdb")
    assert out.returncode == 0, out.stderr
    parquet = tmp_path / "pq" / "demo-like.parquet"
    assert out.stdout.strip() == f"{parquet} (32 runs)"
    t = pq.read_table(parquet)
    assert t.num_rows == 32
    assert t.column_names == columns(tmp_path / "results.duckdb")
    stored = table(tmp_path / "results.duckdb", exclude=())
    assert [tuple(r.values()) for r in t.to_pylist()] == stored

    # Without --db, from the directory that holds the database.
    again = cli("results", "export", "--parquet", "pq2", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert pq.read_table(tmp_path / "pq2" / "demo-like.parquet").num_rows == 32

    show = cli("results", "show", exp)
    assert show.returncode == 0, show.stderr
    lines = show.stdout.splitlines()
    header = lines[0].split()
    assert header[:5] == ["run_id", "array.disks", "array.strip", "readahead.max", "workload.streams"]
    assert "bandwidth_mb_s" in header
    assert len(lines) == 2 + 32 + 1 and "32 of 32 runs of demo-like" in lines[-1]
    assert any("128KiB" in line and "512KiB" not in line for line in lines[2:])
    # By name, from the database alone: the keys that vary are found in the stored configs.
    by_name = cli("results", "show", "demo-like", "--db", tmp_path / "results.duckdb")
    assert by_name.returncode == 0, by_name.stderr
    assert by_name.stdout.splitlines()[0].split()[:5] == header[:5]
    # with their units, in the order of the values (not of the run ids)
    body = [line.split() for line in by_name.stdout.splitlines()[2:-1]]
    assert len(body) == 32 and all(r[3] in ("KiB", "MiB") and r[5] in ("KiB", "MiB") for r in body), body[0]

    def size(n: str, unit: str) -> int:
        return int(n) << 10 * ("KMG".index(unit[0]) + 1)

    points = [(int(r[1]), size(r[2], r[3]), size(r[4], r[5]), int(r[6])) for r in body]
    assert points == sorted(points) and len(set(points)) == 32
    missing = cli("results", "show", "nothing", "--db", tmp_path / "results.duckdb")
    assert missing.returncode == 2 and "no stored runs of experiment `nothing`" in missing.stderr


def test_plot_writes_png_and_svg(tmp_path: Path) -> None:
    exp = write(tmp_path, "demo.toml", demo_like(name="demo-like"))
    assert cli("sweep", exp, "--workers", "2").returncode == 0
    r = cli("plot", exp, "--out", tmp_path / "plots")
    assert r.returncode == 0, r.stderr
    png, svg = tmp_path / "plots" / "demo-like-bw.png", tmp_path / "plots" / "demo-like-bw.svg"
    assert r.stdout.split() == [str(png), str(svg)]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    # Two facets (array.disks = 2 and 5), each with a legend of the two windows.
    assert text.count("array.disks = ") >= 2 and "readahead.max = 512KiB" in text


def test_plot_draws_a_group_as_reproduce_names_it(tmp_path: Path) -> None:
    # `plot g` draws every experiments/g-*.toml, as `reproduce g` runs them
    (tmp_path / "experiments").mkdir()
    for part in ("one", "two"):
        write(tmp_path / "experiments", f"g-{part}.toml", demo_like(name=f"g-{part}", streams="[1, 2]"))
    for part in ("one", "two"):
        assert cli("sweep", f"experiments/g-{part}.toml", cwd=tmp_path).returncode == 0
    r = cli("plot", "g", "--out", "plots", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [Path(p).name for p in r.stdout.split()] == [
        "g-one-bw.png",
        "g-one-bw.svg",
        "g-two-bw.png",
        "g-two-bw.svg",
    ]
    missing = cli("plot", "nothing", cwd=tmp_path)
    assert missing.returncode == 2 and "nor a group" in missing.stderr


def test_the_documented_example_loads(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "experiments" / "README.md").read_text()
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    exp = load_experiment(write(tmp_path, "example.toml", example))
    assert len(exp.runs) == 7  # 2 windows x 4 stream counts, less the one excluded
    assert [f.name for f in exp.figures] == ["bandwidth"]
    assert [c.reference_kind for c in exp.claims] == ["paper", "expected"]
    assert exp.claims[1].source and exp.claims[1].paper is None


def test_a_stored_value_is_shown_with_its_unit() -> None:
    from prefetchlab._engine import key_units
    from prefetchlab.experiments_cli import _stored_value

    units = key_units()
    shown = {
        ("host.memory", 2 << 30): "2 GiB",
        ("array.strip", 262144): "256 KiB",
        ("ssd.capacity", 80_000_000_000): "78125000 KiB",
        ("host.memory", 1 << 50): "1024 TiB",
        ("workload.file_size", 4097): "4097 B",
        ("workload.rate", 500_000): "0.5 MB/s",
        ("run.duration", 60_000_000_000): "60 s",
        ("workload.think_time", 30_000_000): "30 ms",
        ("sara.threshold", 32.0): "32",
        ("sara.threshold", 2.5): "2.5",
        ("sara.threshold", 1e300): "1e+300",
        ("workload.streams", 512): "512",
        ("readahead.policy", "sara-basic"): "sara-basic",
        ("sara.factor", None): "",
    }
    for (key, value), words in shown.items():
        assert _stored_value(value, units.get(key)) == words, (key, value)
