"""The results database: one DuckDB table ``runs``, one row per finished run.

Columns: ``run_id`` (the stable id of the resolved configuration), ``experiment``, ``config``
(the resolved configuration as JSON text), one column per metric named after it
(:mod:`prefetchlab.schema`), ``seed`` (``run.seed``), ``version`` (prefetchlab's and its
engine build's, ``prefetchlab.engine_version``), ``inputs`` (a digest of the files the run read:
its trace, DiskSim descriptions; :mod:`prefetchlab.inputs`) and ``wall_s`` (the run's wall
time, seconds). The key is (experiment, run_id): the same
configuration in two experiments is stored once for each.

Each finished run is written in its own transaction as soon as it is handed over, so a sweep
killed at any instant (even by SIGKILL) leaves exactly the runs it had committed. The file is
opened for each batch of runs that finished together and closed again, so other processes
(``results show``, a test polling the row count) can read it between two writes; opening costs
more than a write, and when runs finish faster than that, more of them are waiting at each
opening and written through it. DuckDB lets one process write or several read a file at a
time; an open that meets another process's lock is retried for up to ``LOCK_WAIT_S`` seconds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb

from prefetchlab._engine import PrefetchlabError
from prefetchlab.schema import metric_types

#: How long an open waits for another process's lock on the file.
LOCK_WAIT_S = 60.0


class ResultsError(PrefetchlabError):
    """The results database cannot be read or written."""


def columns() -> dict[str, str]:
    """Every column of ``runs`` and its SQL type, in order."""
    return {
        "run_id": "TEXT NOT NULL",
        "experiment": "TEXT NOT NULL",
        "config": "TEXT NOT NULL",
        **metric_types(),
        "seed": "UBIGINT",
        "version": "TEXT",
        "inputs": "TEXT",
        "wall_s": "DOUBLE",
    }


@contextmanager
def connect(path: Path, read_only: bool = False) -> Iterator[duckdb.DuckDBPyConnection]:
    """Opens the file (waiting out another process's lock) and closes it afterwards."""
    deadline = time.monotonic() + LOCK_WAIT_S
    delay = 0.005
    while True:
        try:
            con = duckdb.connect(str(path), read_only=read_only)
            break
        except duckdb.IOException as e:
            if "lock" not in str(e).lower() or time.monotonic() > deadline:
                raise ResultsError(f"{path}: cannot open the results database: {e}") from None
            time.sleep(delay)
            delay = min(delay * 2, 0.1)
        except duckdb.Error as e:
            raise ResultsError(f"{path}: cannot open the results database: {e}") from None
    try:
        yield con
    finally:
        con.close()


def _ensure_table(con: duckdb.DuckDBPyConnection) -> None:
    cols = columns()
    body = ", ".join(f'"{name}" {sql}' for name, sql in cols.items())
    con.execute(f"CREATE TABLE IF NOT EXISTS runs ({body}, PRIMARY KEY (experiment, run_id))")
    have = {
        row[0]
        for row in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'runs'"
        ).fetchall()
    }
    for name, sql in cols.items():
        if name not in have:  # the engine grew a metric since the file was made
            con.execute(f'ALTER TABLE runs ADD COLUMN "{name}" {sql.replace(" NOT NULL", "")}')


class ResultsDB:
    """A results file; each method opens and closes it."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def create(self) -> None:
        """Creates the file and the table if they are missing."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with connect(self.path) as con:
            _has_table(con, self.path)  # a file of another program's: an error
            _ensure_table(con)

    def exists(self) -> bool:
        return self.path.exists()

    def stored_ids(self, experiment: str) -> set[str]:
        """The ids of the runs of ``experiment`` stored, by any engine build."""
        if not self.exists():
            return set()
        with connect(self.path, read_only=True) as con:
            if not _has_table(con, self.path):
                return set()
            rows = con.execute("SELECT run_id FROM runs WHERE experiment = ?", [experiment]).fetchall()
        return {r[0] for r in rows}

    def stored_inputs(self, experiment: str, version: str) -> dict[str, str | None]:
        """The runs of ``experiment`` stored by ``version``: run id → the digest of the files
        each read (None for a row stored before digests were kept). Call :meth:`create` first:
        it adds the column to an older file."""
        with connect(self.path, read_only=True) as con:
            rows = con.execute(
                "SELECT run_id, inputs FROM runs WHERE experiment = ? AND version = ?",
                [experiment, version],
            ).fetchall()
        return {r[0]: r[1] for r in rows}

    def copy_identical(self, experiment: str, wanted: Mapping[str, str], version: str) -> set[str]:
        """Stores for ``experiment`` the runs of other experiments that are these very runs: the
        same run id (the resolved configuration), the same engine build ``version`` and the
        same digest of the files read (``wanted``: run id → digest), so by determinism the same
        results, metric by metric. Returns the ids copied. A what-if (``--set``) whose sets change
        only some runs, or a variant whose sets change none, runs only what it changes."""
        if not wanted:
            return set()
        with connect(self.path) as con:
            candidates = con.execute(
                "SELECT run_id, experiment, inputs FROM runs WHERE experiment <> ? AND version = ? "
                "AND run_id IN (SELECT unnest(?)) ORDER BY run_id, experiment",
                [experiment, version, list(wanted)],
            ).fetchall()
            found: dict[str, str] = {}
            for run_id, source, inputs in candidates:
                if inputs == wanted[run_id]:
                    found.setdefault(run_id, source)
            if not found:
                return set()
            quoted = ", ".join(f'"{c}"' for c in columns() if c != "experiment")
            con.execute("BEGIN TRANSACTION")  # all or none: a copy costs no run
            try:
                con.executemany(
                    f'INSERT OR REPLACE INTO runs ("experiment", {quoted}) '
                    f"SELECT ?, {quoted} FROM runs WHERE experiment = ? AND run_id = ?",
                    [[experiment, source, run_id] for run_id, source in found.items()],
                )
                con.execute("COMMIT")
            except BaseException:
                _rollback(con)
                raise
        return set(found)

    def write(self, experiment: str, run_id: str, config_json: str, result: Mapping[str, Any]) -> None:
        """Stores one finished run in its own transaction (replacing a stored one: --force)."""
        self.write_many(experiment, [(run_id, config_json, result)])

    def write_many(self, experiment: str, runs: Sequence[tuple[str, str, Mapping[str, Any]]]) -> None:
        """Stores finished runs, each (run_id, config_json, result) in its own transaction,
        through one opening of the file (opening and closing it costs more than a write)."""
        cols = columns()
        names = list(metric_types())
        quoted = ", ".join(f'"{c}"' for c in cols)
        marks = ", ".join("?" for _ in cols)
        rows = []
        for run_id, config_json, result in runs:
            metrics: Mapping[str, Any] = result["metrics"]
            missing = [n for n in names if n not in metrics]
            if missing:
                raise ResultsError(f"run {run_id}: the engine reported no `{missing[0]}`")
            seed = json.loads(config_json).get("run", {}).get("seed", 0)
            rows.append(
                [
                    run_id,
                    experiment,
                    config_json,
                    *(metrics[n] for n in names),
                    seed,
                    result["version"],
                    result.get("inputs", ""),
                    result["wall_s"],
                ]
            )
        with connect(self.path) as con:
            for values in rows:
                con.execute("BEGIN TRANSACTION")
                try:
                    con.execute(f"INSERT OR REPLACE INTO runs ({quoted}) VALUES ({marks})", values)
                    con.execute("COMMIT")
                except BaseException as e:
                    _rollback(con)
                    if "interrupted" in str(e).lower():  # DuckDB's word for Ctrl-C in a query
                        raise KeyboardInterrupt from None
                    raise

    def rows(self, experiment: str | None = None, version: str | None = None) -> list[dict[str, Any]]:
        """Stored rows (of one experiment, or all; stored by ``version`` only, when given),
        ordered by experiment and run id."""
        if not self.exists():
            return []
        with connect(self.path, read_only=True) as con:
            if not _has_table(con, self.path):
                return []
            where, args = _where(experiment, version)
            cur = con.execute(f"SELECT * FROM runs {where} ORDER BY experiment, run_id", args)
            names = [d[0] for d in cur.description]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]

    def experiments(self) -> list[str]:
        if not self.exists():
            return []
        with connect(self.path, read_only=True) as con:
            if not _has_table(con, self.path):
                return []
            return [r[0] for r in con.execute("SELECT DISTINCT experiment FROM runs ORDER BY 1").fetchall()]

    def count_other_versions(self, experiment: str | None, version: str) -> int:
        """Rows (of one experiment, or all) stored by another version than ``version``."""
        if not self.exists():
            return 0
        with connect(self.path, read_only=True) as con:
            if not _has_table(con, self.path):
                return 0
            where, args = _where(experiment, None)
            joiner = "AND" if where else "WHERE"
            row = con.execute(
                f"SELECT count(*) FROM runs {where} {joiner} version IS DISTINCT FROM ?", [*args, version]
            ).fetchone()
            return int(row[0]) if row else 0

    def export_parquet(self, out_dir: str | Path, version: str | None = None) -> list[tuple[Path, int]]:
        """Writes one Parquet file per experiment, ``OUT_DIR/<experiment>.parquet``, of the rows
        stored by ``version`` (every row when None); returns each file and its row count."""
        import pyarrow.parquet as pq

        out = Path(out_dir)
        names = self.experiments()
        if not names:
            raise ResultsError(f"{self.path}: no results to export")
        out.mkdir(parents=True, exist_ok=True)
        written = []
        with connect(self.path, read_only=True) as con:
            for name in names:
                where, args = _where(name, version)
                rel = con.sql(f"SELECT * FROM runs {where} ORDER BY run_id", params=args)
                # DuckDB 2 names it to_arrow_table; DuckDB 1's arrow() returns the same table.
                fetch = getattr(rel, "to_arrow_table", None) or rel.arrow
                table = fetch()
                if table.num_rows == 0:
                    continue
                target = out / f"{_file_safe(name)}.parquet"
                pq.write_table(table, target)
                written.append((target, table.num_rows))
        return written


def _where(experiment: str | None, version: str | None) -> tuple[str, list[str]]:
    """The WHERE clause picking one experiment's rows and one version's (each when given)."""
    terms = [(t, v) for t, v in (("experiment = ?", experiment), ("version = ?", version)) if v is not None]
    clause = " AND ".join(t for t, _ in terms)
    return (f"WHERE {clause}" if clause else ""), [v for _, v in terms]


def _rollback(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("ROLLBACK")
    except duckdb.Error:
        pass  # nothing to roll back: the failed statement ended the transaction


def _has_table(con: duckdb.DuckDBPyConnection, path: Path) -> bool:
    """Whether the file holds the table ``runs``; an error when it holds one that is not ours."""
    have = {
        row[0]
        for row in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE table_name = 'runs'"
        ).fetchall()
    }
    if have and not {"run_id", "experiment", "config"} <= have:
        raise ResultsError(
            f"{path}: not a prefetchlab results database (its table `runs` has no run_id, experiment "
            "and config columns): give another --db"
        )
    return bool(have)


def _file_safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def format_table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain-text table for the terminal: numbers right-aligned, text left-aligned."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def numeric(s: str) -> bool:
        try:
            float(s)
        except ValueError:
            return False
        return True

    def line(cells: list[str]) -> str:
        return "  ".join(
            c.rjust(w) if numeric(c) else c.ljust(w) for c, w in zip(cells, widths, strict=True)
        ).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])
