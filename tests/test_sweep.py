"""Sweeps: expansion of an experiment file, the two back ends, resuming after SIGKILL, and
bad input reported before any run."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import duckdb
import pytest

import prefetchlab
from prefetchlab.experiment import ExperimentError, load_experiment
from prefetchlab.results import ResultsDB

from .sweep_files import CLI, cli, columns, configs, demo_like, one_error_line, table, write


def test_axes_expand_to_the_cartesian_product(tmp_path: Path) -> None:
    exp = load_experiment(write(tmp_path, "e.toml", demo_like()))
    assert len(exp.runs) == 32
    assert [a.key for a in exp.axes] == ["array.disks", "array.strip", "readahead.max", "workload.streams"]
    assert len({r.run_id for r in exp.runs}) == 32
    first = exp.runs[0]
    assert first.point == {
        "array.disks": 2,
        "array.strip": "64KiB",
        "readahead.max": "128KiB",
        "workload.streams": 1,
    }
    assert first.flat["array.strip"] == 64 << 10 and first.flat["run.seed"] == 7


def test_run_ids_depend_only_on_the_resolved_configuration(tmp_path: Path) -> None:
    a = load_experiment(write(tmp_path, "a.toml", demo_like()))
    # The same sweep spelled differently: sizes in bytes, axes in another order, another name.
    text = (
        demo_like(name="other")
        .replace('max = ["128KiB", "512KiB"]', "max = [524288, 131072]")
        .replace("streams = [1, 2, 4, 8]", "streams = [8, 4, 2, 1]")
    )
    b = load_experiment(write(tmp_path, "b.toml", text))
    assert {r.run_id for r in a.runs} == {r.run_id for r in b.runs}
    # A changed value anywhere changes the id.
    c = load_experiment(write(tmp_path, "c.toml", demo_like().replace("seed = 7", "seed = 8")))
    assert not {r.run_id for r in a.runs} & {r.run_id for r in c.runs}


def test_only_and_exclude_restrict_the_product(tmp_path: Path) -> None:
    extra = """
[[sweep.only]]
"array.disks" = 5
[[sweep.only]]
"workload.streams" = 1
[[sweep.exclude]]
readahead.max = "512KiB"
"workload.streams" = [2, 4]
"""
    exp = load_experiment(write(tmp_path, "e.toml", demo_like(extra=extra)))
    # disks=5: 16 runs, less (512KiB, streams 2 or 4) x 2 strips = 4 -> 12; plus disks=2 at
    # 1 stream: 4 runs (none excluded).
    assert len(exp.runs) == 16
    for r in exp.runs:
        assert r.point["array.disks"] == 5 or r.point["workload.streams"] == 1
        assert not (r.point["readahead.max"] == "512KiB" and r.point["workload.streams"] in (2, 4))


def test_a_selector_on_a_key_another_is_computed_from_takes_any_of_its_values(tmp_path: Path) -> None:
    # the first run holds g = 127 (p/2 - 1 of p = 256); p = 8 is taken as it resolves on its
    # own run (g = 3), not refused as a trigger outside a set of 8 blocks
    extra = """
[array_cache]
size = "64MiB"
prefetch = "fa"
p = [256, 8]
[[sweep.exclude]]
"array_cache.p" = 8
"workload.streams" = [2, 4, 8]
"""
    exp = load_experiment(write(tmp_path, "e.toml", demo_like(extra=extra)))
    assert len(exp.runs) == 32 + 8
    assert {(r.flat["array_cache.p"], r.flat["array_cache.g"]) for r in exp.runs} == {(256, 127), (8, 3)}
    assert len(exp.select({"array_cache.p": 8})) == 8


def test_only_tables_in_groups_must_each_be_matched(tmp_path: Path) -> None:
    # two pairings that cross: disks with strips, readahead sizes with stream counts
    extra = """
[[sweep.only]]
group = "array"
"array.disks" = 2
"array.strip" = "64KiB"
[[sweep.only]]
group = "array"
"array.disks" = 5
"array.strip" = "128KiB"
[[sweep.only]]
group = "load"
readahead.max = "128KiB"
"workload.streams" = [1, 2]
[[sweep.only]]
group = "load"
readahead.max = "512KiB"
"workload.streams" = 8
"""
    exp = load_experiment(write(tmp_path, "e.toml", demo_like(extra=extra)))
    pairs = {(r.point["array.disks"], r.point["array.strip"]) for r in exp.runs}
    loads = {(r.point["readahead.max"], r.point["workload.streams"]) for r in exp.runs}
    assert pairs == {(2, "64KiB"), (5, "128KiB")}
    assert loads == {("128KiB", 1), ("128KiB", 2), ("512KiB", 8)}
    assert len(exp.runs) == 2 * 3
    with pytest.raises(ExperimentError, match="`group` must be a string"):
        bad = '\n[[sweep.only]]\ngroup = 1\n"array.disks" = 2\n'
        load_experiment(write(tmp_path, "g.toml", demo_like(extra=bad)))


def test_a_figure_draws_the_runs_its_where_picks_and_a_claim_picks_alternatives(tmp_path: Path) -> None:
    extra = """
[[figure]]
name = "bw-of-five-disks"
x = "workload.streams"
y = "bandwidth_mb_s"
where = { "array.disks" = 5, "readahead.max" = ["128KiB", "512KiB"], "array.strip" = "64KiB" }

[[claim]]
text = "either window"
check = "max(bandwidth_mb_s[readahead.max=128KiB|512KiB, array.disks=5]) > 0"
expected = "> 0"
source = "a test"
"""
    exp = load_experiment(write(tmp_path, "e.toml", demo_like(extra=extra)))
    fig = next(f for f in exp.figures if f.name == "bw-of-five-disks")
    assert fig.run_ids is not None and len(fig.run_ids) == 8  # 4 stream counts x 2 windows
    assert all(r.point["array.disks"] == 5 for r in exp.runs if r.run_id in fig.run_ids)
    assert len(exp.claims[-1].check.terms()[0].run_ids) == 16  # both windows, both strips
    bad = extra.replace('"array.disks" = 5,', '"array.disks" = 3,')
    with pytest.raises(ExperimentError, match="matches no run"):
        load_experiment(write(tmp_path, "b.toml", demo_like(extra=bad)))


def test_selector_naming_an_unknown_key_is_an_error(tmp_path: Path) -> None:
    extra = '\n[[sweep.exclude]]\n"workload.streamz" = 1\n'
    with pytest.raises(ExperimentError, match=r"e\.toml:\d+: \[\[sweep\.exclude\]\] 1: `workload\.streamz`"):
        load_experiment(write(tmp_path, "e.toml", demo_like(extra=extra)))


def test_an_exclude_table_that_excludes_no_run_is_an_error(tmp_path: Path) -> None:
    # 3 is not on the streams axis: most likely a mistyped value, which would run everything
    extra = '\n[[sweep.exclude]]\n"workload.streams" = 1\n[[sweep.exclude]]\n"workload.streams" = 3\n'
    with pytest.raises(ExperimentError, match=r"\[\[sweep\.exclude\]\] 2 excludes no run"):
        load_experiment(write(tmp_path, "e.toml", demo_like(extra=extra)))


def test_a_selector_on_a_key_computed_from_an_axis_matches_each_runs_value(tmp_path: Path) -> None:
    # readahead.max is no axis here: md's two stripes, 256 KiB only at 2 disks of 64 KiB strips
    # (the base run's value, which a selector must not take for every run's)
    extra = '\n[[sweep.exclude]]\n"readahead.max" = "256KiB"\n'
    text = demo_like(extra=extra).replace('max = ["128KiB", "512KiB"]\n', "")
    exp = load_experiment(
        write(tmp_path, "e.toml", text.replace('series = "readahead.max"', 'series = "array.strip"'))
    )
    assert len(exp.runs) == 12
    assert (2, 64 << 10) not in {(r.flat["array.disks"], r.flat["array.strip"]) for r in exp.runs}


def test_process_pool_and_local_cluster_store_identical_tables(tmp_path: Path) -> None:
    exp = write(tmp_path, "demo.toml", demo_like())
    dbs = {
        "pool-2": ["--workers", "2"],
        "pool-1": ["--workers", "1"],
        "dask": ["--scheduler", "local-cluster", "--workers", "2"],
    }
    for name, opts in dbs.items():
        r = cli("sweep", exp, "--db", tmp_path / f"{name}.duckdb", *opts)
        assert r.returncode == 0, r.stderr
        assert "32 runs, 32 run now" in r.stdout
    pool = table(tmp_path / "pool-2.duckdb")
    assert len(pool) == 32
    assert table(tmp_path / "pool-1.duckdb") == pool
    assert table(tmp_path / "dask.duckdb") == pool
    cols = columns(tmp_path / "pool-2.duckdb")
    for col in ("run_id", "experiment", "config", "bandwidth_mb_s", "seed", "version", "wall_s"):
        assert col in cols
    # The stored configuration is the resolved one, and the metrics are not all alike.
    assert {c["workload"]["streams"] for c in configs(tmp_path / "dask.duckdb")} == {1, 2, 4, 8}
    bandwidths = {row[cols.index("bandwidth_mb_s")] for row in pool}
    assert len(bandwidths) > 1


def test_a_running_dask_scheduler_by_address(tmp_path: Path) -> None:
    from dask.distributed import LocalCluster

    exp = write(tmp_path, "demo.toml", demo_like())
    assert cli("sweep", exp, "--db", tmp_path / "pool.duckdb", "--workers", "2").returncode == 0
    # A cluster that is already running, reached by its tcp:// address (on this machine only).
    with LocalCluster(  # type: ignore[no-untyped-call]
        n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        r = cli("sweep", exp, "--db", tmp_path / "tcp.duckdb", "--scheduler", address)
    assert r.returncode == 0, r.stderr
    assert table(tmp_path / "tcp.duckdb") == table(tmp_path / "pool.duckdb")


def test_rerun_skips_stored_runs_and_force_reruns(tmp_path: Path) -> None:
    exp = write(tmp_path, "demo.toml", demo_like())
    assert cli("sweep", exp, "--workers", "2").returncode == 0
    db = tmp_path / "results.duckdb"  # the default: next to the experiment
    before = table(db, exclude=())
    again = cli("sweep", exp, "--workers", "2")
    assert again.returncode == 0 and "0 run now, 32 already stored" in again.stdout
    assert table(db, exclude=()) == before  # not rewritten: even the wall times are the same
    forced = cli("sweep", exp, "--workers", "2", "--force")
    assert forced.returncode == 0 and "32 run now" in forced.stdout
    assert len(table(db)) == 32


def test_runs_stored_by_another_engine_build_are_run_again(tmp_path: Path) -> None:
    # The version stays the same while the model changes: a run is reused only when the engine
    # that stored it was built from the same sources.
    exp = write(tmp_path, "demo.toml", demo_like())
    assert cli("sweep", exp, "--workers", "2").returncode == 0
    db = tmp_path / "results.duckdb"
    con = duckdb.connect(str(db))
    assert con.execute("SELECT DISTINCT version FROM runs").fetchall() == [(prefetchlab.engine_version,)]
    con.execute("UPDATE runs SET version = ? WHERE run_id IN (SELECT run_id FROM runs LIMIT 5)", ["0.1.0"])
    con.close()
    again = cli("sweep", exp, "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert (
        "5 run now (5 stored by another engine build or from changed files), 27 already stored"
        in again.stdout
    )
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT DISTINCT version FROM runs").fetchall() == [(prefetchlab.engine_version,)]
    con.close()


def test_rows_of_another_engine_build_are_kept_but_left_out_of_exports(tmp_path: Path) -> None:
    # A configuration key added since changes every run id: the old build's rows stay (another
    # build sharing the file may want them), and exports and tables hold this build's alone.
    exp = write(tmp_path, "demo.toml", demo_like())
    assert cli("sweep", exp, "--workers", "2").returncode == 0
    db = tmp_path / "results.duckdb"
    con = duckdb.connect(str(db))
    con.execute(
        "UPDATE runs SET run_id = 'old' || run_id, version = '0.1.0' "
        "WHERE run_id IN (SELECT run_id FROM runs LIMIT 3)"
    )
    con.close()
    again = cli("sweep", exp, "--workers", "2")
    assert again.returncode == 0, again.stderr
    assert "3 run now, 29 already stored" in again.stdout
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*), count(DISTINCT version) FROM runs").fetchall() == [(35, 2)]
    con.close()
    name = load_experiment(exp).name
    out = cli("results", "export", "--parquet", tmp_path / "pq", "--db", db)
    assert out.returncode == 0, out.stderr
    assert "(32 runs)" in out.stdout and "3 runs stored by other engine builds left out" in out.stdout
    every = cli("results", "export", "--parquet", tmp_path / "pq-all", "--db", db, "--all-builds")
    assert "(35 runs)" in every.stdout and "left out" not in every.stdout
    shown = cli("results", "show", name, "--db", db)
    assert f"32 runs of {name}" in shown.stdout and "3 runs stored by other engine builds" in shown.stdout


def test_a_file_a_drive_description_sources_changed_in_place_is_run_again(
    tmp_path: Path, cheetah: Path
) -> None:
    import shutil

    drive = tmp_path / "drive"
    shutil.copytree(cheetah, drive)
    exp = write(
        tmp_path,
        "d.toml",
        '[experiment]\nname = "d"\n[array]\nlayout = "single"\n[disk]\n'
        f'model = "{(drive / "Seagate-Cheetah15k5.parv").as_posix()}"\n'
        '[workload]\nstreams = [1, 2]\nfile_size = "1MiB"\nrecord = "64KiB"\n',
    )
    assert cli("sweep", exp, "--workers", "1").returncode == 0
    assert "0 run now, 2 already stored" in cli("sweep", exp, "--workers", "1").stdout
    # the seek curve, read through the description's model: one time a little longer
    seeks = drive / "Seagate-Cheetah15k5.seeks"
    lines = seeks.read_text().splitlines(keepends=True)
    fields = lines[5].split(",")
    fields[1] = f" {float(fields[1]) + 0.001:.6f}"
    lines[5] = ",".join(fields)
    seeks.write_text("".join(lines))
    changed = cli("sweep", exp, "--workers", "1")
    assert changed.returncode == 0, changed.stderr
    assert "2 run now (2 stored by another engine build or from changed files)" in changed.stdout


def test_a_trace_changed_in_place_is_run_again(tmp_path: Path) -> None:
    # A run's id names the trace by its path: the digest of its contents decides reuse.
    trace = tmp_path / "t.spc"
    trace.write_text("".join(f"0,{i * 8},4096,r,{i / 1000:.3f}\n" for i in range(200)))
    exp = write(
        tmp_path,
        "tr.toml",
        '[experiment]\nname = "tr"\n[array_cache]\nsize = "1MiB"\nprefetch = ["none", "obl"]\n'
        '[workload]\nkind = "trace"\npath = "t.spc"\nformat = "spc"\n[run]\nmode = "cache-only"\n',
    )
    assert cli("sweep", exp, "--workers", "1").returncode == 0
    again = cli("sweep", exp, "--workers", "1")
    assert "0 run now, 2 already stored" in again.stdout
    trace.write_text("".join(f"0,{i * 8},4096,r,{i / 1000:.3f}\n" for i in range(50)))
    changed = cli("sweep", exp, "--workers", "1")
    assert changed.returncode == 0, changed.stderr
    assert "2 run now (2 stored by another engine build or from changed files)" in changed.stdout
    con = duckdb.connect(str(tmp_path / "results.duckdb"), read_only=True)
    assert con.execute("SELECT DISTINCT hits + misses FROM runs").fetchall() == [(50,)]
    con.close()


def _row_count(db: Path) -> int:
    """Rows stored so far; waits out the sweep's brief write locks."""
    while True:
        try:
            con = duckdb.connect(str(db), read_only=True)
        except duckdb.IOException:
            time.sleep(0.002)  # the sweep holds the file for a write just now
            continue
        except duckdb.Error:
            return 0  # not created yet
        try:
            tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE table_name = 'runs'").fetchone()
            if not tables or not tables[0]:
                return 0
            row = con.execute("SELECT count(*) FROM runs").fetchone()
            return int(row[0]) if row else 0
        finally:
            con.close()


def test_sigkill_halfway_then_resume_gives_every_run_once(tmp_path: Path) -> None:
    # Runs big enough that a sweep on one worker takes a while.
    exp = write(tmp_path, "demo.toml", demo_like(file_size="16MiB", streams="[8, 16, 32, 64]"))
    db = tmp_path / "results.duckdb"
    proc = subprocess.Popen(
        [*CLI, "sweep", str(exp), "--workers", "1", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the pool's workers die with it
    )
    try:
        while proc.poll() is None and (db.exists() and _row_count(db) >= 16) is False:
            time.sleep(0.005)
        assert proc.poll() is None, f"the sweep ended before it was killed: {proc.stderr.read()!r}"  # type: ignore[union-attr]
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    killed_at = _row_count(db)
    print(f"killed with {killed_at} of 32 runs stored")
    assert 16 <= killed_at < 32, killed_at
    done = cli("sweep", exp, "--workers", "2")
    assert done.returncode == 0, done.stderr
    assert f"{32 - killed_at} run now, {killed_at} already stored" in done.stdout
    con = duckdb.connect(str(db), read_only=True)
    try:
        total, distinct = con.execute("SELECT count(*), count(DISTINCT run_id) FROM runs").fetchone()  # type: ignore[misc]
    finally:
        con.close()
    assert (total, distinct) == (32, 32)
    expected = {r.run_id for r in load_experiment(exp).runs}
    assert {row[0] for row in table(db)} == expected


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_sigterm_stops_a_sweep_and_its_workers_keeping_what_is_stored(tmp_path: Path) -> None:
    exp = write(tmp_path, "demo.toml", demo_like(file_size="16MiB", streams="[8, 16, 32, 64]"))
    db = tmp_path / "results.duckdb"
    proc = subprocess.Popen(
        [*CLI, "sweep", str(exp), "--workers", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        while proc.poll() is None and (db.exists() and _row_count(db) >= 4) is False:
            time.sleep(0.005)
        workers = _children(proc.pid)
        assert proc.poll() is None and workers, "the sweep ended before SIGTERM"
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143 and err.decode().strip().endswith("prefetchlab: terminated"), err
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(w) for w in workers), "a worker outlived the sweep"
    stored = _row_count(db)
    assert 4 <= stored < 32
    again = cli("sweep", exp, "--workers", "2")
    assert f"{32 - stored} run now, {stored} already stored" in again.stdout


# Bad input: one clear error, before any run (the database is never created).


def test_axis_naming_an_unknown_key(tmp_path: Path) -> None:
    text = demo_like().replace("streams = [1, 2, 4, 8]", "streamz = [1, 2, 4, 8]")
    r = cli("sweep", write(tmp_path, "bad.toml", text))
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    number = text.splitlines().index("streamz = [1, 2, 4, 8]") + 1
    assert f"bad.toml:{number}: " in line and "workload.streamz" in line
    assert not (tmp_path / "results.duckdb").exists()


def test_axis_with_a_bad_value_names_the_run(tmp_path: Path) -> None:
    text = demo_like().replace("disks = [2, 5]", "disks = [2, 0]")
    r = cli("sweep", write(tmp_path, "bad.toml", text))
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    assert "array.disks" in line and "array.disks=0" in line
    assert not (tmp_path / "results.duckdb").exists()


@pytest.mark.parametrize(
    "metric, words",
    [
        (
            "bandwidth_mbs",
            "unknown metric `bandwidth_mbs` (did you mean `bandwidth_mb_s` or `write_bandwidth_mb_s`?)",
        ),
        ("block_policy_state", "`block_policy_state` is text (a policy's own counters as JSON)"),
    ],
)
def test_claim_over_a_metric_it_cannot_compare(tmp_path: Path, metric: str, words: str) -> None:
    extra = f"""
[[claim]]
text = "more is better"
check = "{metric}[workload.streams=8, array.disks=5, array.strip=128KiB, readahead.max=512KiB] > 0"
paper = "yes"
"""
    r = cli("sweep", write(tmp_path, "bad.toml", demo_like(extra=extra)))
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    assert "claim 1" in line and words in line
    number = demo_like(extra=extra).splitlines().index("[[claim]]") + 1
    assert f"bad.toml:{number}: " in line
    assert not (tmp_path / "results.duckdb").exists()


def test_unreachable_scheduler(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    exp = write(tmp_path, "demo.toml", demo_like())
    r = cli("sweep", exp, "--scheduler", f"tcp://127.0.0.1:{port}")
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    assert f"tcp://127.0.0.1:{port}" in line and "cannot reach" in line
    assert not (tmp_path / "results.duckdb").exists()


def test_scheduler_address_without_a_scheme(tmp_path: Path) -> None:
    r = cli("sweep", write(tmp_path, "demo.toml", demo_like()), "--scheduler", "localhost")
    assert r.returncode == 2
    assert "tcp://HOST:PORT" in one_error_line(r.stderr)


def test_zero_workers(tmp_path: Path) -> None:
    r = cli("sweep", write(tmp_path, "demo.toml", demo_like()), "--workers", "0")
    assert r.returncode == 2
    assert "--workers must be at least 1" in one_error_line(r.stderr)
    assert not (tmp_path / "results.duckdb").exists()


def test_a_run_whose_stack_cannot_be_built_is_named_before_any_run(tmp_path: Path) -> None:
    # 128 files of 1 GiB do not fit on one 73 GB drive; one file does. Every run's stack is
    # checked (drive model, geometry, files that fit) before the first run starts.
    text = (
        '[experiment]\nname = "fit"\n[workload]\nstreams = [1, 128, 2]\nfile_size = "1GiB"\nrecord = "1MiB"\n'
    )
    exp = write(tmp_path, "fit.toml", text)
    r = cli("sweep", exp, "--workers", "2")
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    assert "geometry:" in line and "workload.streams=128" in line and "fit.toml" in line
    assert not (tmp_path / "results.duckdb").exists()


def test_a_set_changes_every_run_and_stores_them_as_a_variant(tmp_path: Path) -> None:
    """`--set` changes every run of an experiment (a what-if over a whole reproduction); the
    runs are stored and shown as NAME+VARIANT, beside the file's own, which stay as they were."""
    exp = write(tmp_path, "demo.toml", demo_like(streams="[1, 4]"))
    db = tmp_path / "results.duckdb"
    assert cli("sweep", exp).returncode == 0
    plain = table(db)
    setting = ["--set", 'disk.overrides."Read-ahead on idle hit"=1', "--set", "run.seed=8"]
    r = cli("sweep", exp, *setting, "--variant", "idlehit")
    assert r.returncode == 0, r.stderr
    assert "tiny+idlehit: 16 runs, 16 run now" in r.stdout
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT experiment, config FROM runs ORDER BY experiment, run_id").fetchall()
    finally:
        con.close()
    variant = [json.loads(c) for e, c in rows if e == "tiny+idlehit"]
    assert len(variant) == 16 and len(rows) == 32
    assert all(
        c["disk"]["overrides"] == {"Read-ahead on idle hit": 1.0} and c["run"]["seed"] == 8 for c in variant
    )
    assert [row for row in table(db) if row[1] == "tiny"] == plain  # the file's own runs untouched
    shown = cli("results", "show", exp, *setting, "--variant", "idlehit", "--db", db)
    assert shown.returncode == 0 and "16 of 16 runs of tiny+idlehit" in shown.stdout
    # without --variant the name is a digest of what the sets change, the same for the same values
    named = [cli("sweep", exp, *s).stdout for s in (setting, setting[2:] + setting[:2])]
    assert "tiny+set-" in named[0] and named[0].split(":")[0] == named[1].split(":")[0]
    # reproduce reports the variant as its own experiment, saying what changed every run
    out = tmp_path / "report"
    rep = cli("reproduce", exp, *setting, "--variant", "idlehit", "--db", db, "--out", out, "--quiet")
    assert rep.returncode == 0, rep.stderr
    page = (out / "index.html").read_text()
    assert 'id="tiny+idlehit"' in page and "every run changed by <code>--set disk.overrides." in page
    assert "<code>--set run.seed=8</code>" in page


@pytest.mark.parametrize(
    ("sets", "words"),
    [
        (
            ["--set", "readahead.max=256KiB"],
            "--set readahead.max=256KiB: `readahead.max` is an axis of this experiment (",
        ),
        (
            ["--set", "experiment.name=x"],
            "--set experiment.name=x: `experiment` is the experiment file's own",
        ),
        (["--set", "array.strip=256KiB"], "leave no run (with --set array.strip=256KiB)"),
        (["--set", "disk.queue_depth=-1"], "--set disk.queue_depth=-1: config key `disk.queue_depth`"),
        (["--set", "disk.modle=x"], "--set disk.modle=x: config key `disk.modle`: unknown field"),
        (["--set", "run.seed=[1, 2]"], "--set run.seed=[1, 2]: a list would make a new axis"),
        (["--variant", "x"], "--variant x: names the runs of a --set; no --set given"),
        (["--set", "=1"], "error: bad --set `=1`: empty part in key path"),
        (["--set", "run.seed=2", "--variant", "a b"], "--variant 'a b': expected letters, digits"),
    ],
)
def test_a_bad_set_is_one_error_before_any_run(tmp_path: Path, sets: list[str], words: str) -> None:
    # the strips are an axis here, but not in a file whose only table keeps the 64 KiB runs
    text = (
        demo_like()
        if "array.strip" not in sets[1]
        else demo_like().replace('strip = ["64KiB", "128KiB"]', 'strip = "128KiB"')
        + '\n[[sweep.only]]\n"array.strip" = "128KiB"\n'
    )
    exp = write(tmp_path, "demo.toml", text)
    r = cli("sweep", exp, *sets)
    assert r.returncode == 2
    line = one_error_line(r.stderr)
    assert words in line, line
    assert not (tmp_path / "results.duckdb").exists()


def test_a_set_reads_a_relative_path_from_the_working_directory_and_says_when_it_changes_nothing(
    tmp_path: Path,
) -> None:
    """A path a --set gives is read from where the command runs, as `prefetchlab run --set`
    reads it (the file's own paths from the file's folder); a set that gives what the file
    already gives is said, its runs being the file's own."""
    (tmp_path / "sub").mkdir()
    exp = write(tmp_path / "sub", "demo.toml", demo_like(streams="[1, 2]"))
    r = cli("sweep", "sub/demo.toml", "--set", "disk.model=./sub/../sub/nothing.parv", cwd=tmp_path)
    assert r.returncode == 2 and f"{tmp_path}/sub/nothing.parv" in one_error_line(r.stderr)
    base = cli("sweep", exp)
    assert base.returncode == 0 and "16 runs, 16 run now, 0 already stored ->" in base.stdout, base.stdout
    same = cli("sweep", exp, "--set", "run.seed=7", "--set", "readahead.policy=linux")
    assert same.returncode == 0, same.stderr
    assert "the file already gives these values, so tiny+set-" in same.stderr
    assert "runs are those of tiny (copied where stored)" in same.stderr
    copied = "16 runs, 0 run now, 0 already stored, 16 copied from other experiments' identical runs"
    assert copied in same.stdout, same.stdout
    by_name: dict[str, dict[str, dict[str, object]]] = {}
    for row in ResultsDB(tmp_path / "sub" / "results.duckdb").rows():
        by_name.setdefault(row.pop("experiment"), {})[row["run_id"]] = row
    (variant,) = (name for name in by_name if name.startswith("tiny+set-"))
    assert len(by_name["tiny"]) == 16 and by_name[variant] == by_name["tiny"]  # every column


def test_a_set_is_told_apart_from_the_file_by_every_run_and_by_what_it_changes(tmp_path: Path) -> None:
    """The warning that a set changes nothing looks at every run (md's default window follows
    the array's width, so 256 KiB is the 2-disk runs' own and not the 5-disk runs'); an inline
    table given to a table changes only the keys it gives (the label is the key's); an error
    about a key the set gave is the set's, said once, and a file's own error stays the file's."""
    text = (
        demo_like(streams="[1, 2]")
        .replace('max = ["128KiB", "512KiB"]\n', "")
        .replace('strip = ["64KiB", "128KiB"]', 'strip = "64KiB"')
    )
    text = text.replace(
        'model = "cheetah-15k5"', 'model = "cheetah-15k5"\noverrides = { "Head switch time" = 0.6 }'
    )
    exp = write(tmp_path, "md.toml", text)
    r = cli("sweep", exp, "--set", "readahead.max=256KiB")
    assert r.returncode == 0 and "already gives" not in r.stderr, r.stderr
    added = cli("sweep", exp, "--set", 'disk.overrides."Read hit over. after read"=0.2').stdout.split(":")[0]
    replaced = cli("sweep", exp, "--set", 'disk.overrides={"Read hit over. after read"=0.2}').stdout.split(
        ":"
    )[0]
    # an inline table sets the keys it gives and keeps the file's others: the same change
    assert added.startswith("tiny+set-") and replaced == added
    cleared = cli("sweep", exp, "--set", "disk.overrides={}")
    assert "the file already gives these values" in cleared.stderr, cleared.stderr
    bogus = cli("sweep", write(tmp_path, "plain.toml", demo_like()), "--set", "disk.overrides.Bogus=1")
    line = one_error_line(bogus.stderr)
    assert line.startswith("prefetchlab: error: --set disk.overrides.Bogus=1: ") and "(with --set" not in line
    own = demo_like().replace('y = "bandwidth_mb_s"', 'y = "no_such_metric"')
    mine = cli("sweep", write(tmp_path, "fig.toml", own), "--set", "run.seed=3")
    assert "no_such_metric" in one_error_line(mine.stderr) and "--set" not in mine.stderr
