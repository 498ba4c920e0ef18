"""The sweep runner: one loop over an experiment's runs, two back ends.

* ``LocalPool`` (the default): a ``concurrent.futures`` process pool on this machine; nothing
  to start. Workers are spawned (not forked), so they never inherit the parent's DuckDB or
  progress-bar threads.
* ``DaskBackend``: a ``dask.distributed`` cluster, either an existing scheduler
  (``tcp://HOST:PORT``, reached with a short timeout before any run starts; its workers need
  prefetchlab installed) or a ``LocalCluster`` started for the sweep (``local-cluster``).

Each run is simulated by :func:`execute` from its resolved configuration alone, and the
engine is deterministic, so the stored metrics do not depend on the back end, the number of
workers or the order runs finish in. Results come back to this process, which alone writes
the database, one transaction per finished run, as soon as the run comes back (runs that
come back together are written through one opening of the file: see results.py).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from prefetchlab import engine_version
from prefetchlab._engine import PrefetchlabError
from prefetchlab.experiment import Experiment, RunSpec
from prefetchlab.inputs import inputs_digest
from prefetchlab.results import ResultsDB

#: How long connecting to a Dask scheduler may take before it is reported unreachable.
CONNECT_TIMEOUT_S = 5


class SchedulerError(PrefetchlabError):
    """The Dask scheduler cannot be reached or started."""


class RunFailed(PrefetchlabError):
    """A run failed; the other runs were stored (or, for an unexpected error, those finished)."""

    def __init__(self, config_json: str, error: BaseException) -> None:
        super().__init__(" ".join(str(error).split()) or type(error).__name__)
        self.config_json = config_json


def execute(
    config_json: str, progress: Callable[[float, float, int, int], object] | None = None
) -> dict[str, Any]:
    """Simulates one resolved configuration; returns its metrics, the version (``engine_version``:
    this process's engine's) and wall time,
    or ``{"error": message}`` when the engine rejects the run (such as files that do not fit
    on the array): a result like any other, so no back end has to carry the engine's
    exception across processes.

    ``progress(sim_s, duration_s, requests_done, requests_total)`` is the engine's callback.
    """
    from prefetchlab import _engine

    start = time.perf_counter()
    try:
        out = _engine.simulate(config_json, "json", [], progress)
    except _engine.PrefetchlabError as e:
        return {"error": str(e)}
    wall_s = time.perf_counter() - start
    report = json.loads(out["report"])
    return {"metrics": report["metrics"], "version": engine_version, "wall_s": wall_s}


class Backend(Protocol):
    """Runs ``fn(arg)`` for many args; yields lists of (arg, result), each list the runs that
    had finished when it was made (one at a time when runs finish slower than they are
    stored)."""

    def run(
        self, fn: Callable[[str], dict[str, Any]], args: list[str]
    ) -> Iterator[list[tuple[str, dict[str, Any]]]]: ...

    def close(self) -> None:
        """Releases the workers after the last run."""

    def abort(self) -> None:
        """Stops at once (Ctrl-C or an error): runs in flight are abandoned."""


def _ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the sweep, which stops them (no traceback from each)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored meanwhile (in the main thread), so processes started now ignore it too."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


class LocalPool:
    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.pool: ProcessPoolExecutor | None = None

    def run(
        self, fn: Callable[[str], dict[str, Any]], args: list[str]
    ) -> Iterator[list[tuple[str, dict[str, Any]]]]:
        if not args:
            return
        ctx = multiprocessing.get_context("spawn")
        self.pool = ProcessPoolExecutor(
            max_workers=min(self.workers, len(args)), mp_context=ctx, initializer=_ignore_sigint
        )
        # Keep at most 2 runs per worker queued, so a killed sweep wastes little work.
        todo = iter(args)
        running: dict[Future[dict[str, Any]], str] = {}
        for arg in todo:
            running[self.pool.submit(fn, arg)] = arg
            if len(running) >= 2 * self.workers:
                break
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            batch = []
            failed: RunFailed | None = None
            for fut in done:
                arg = running.pop(fut)
                error = fut.exception()
                if error is not None:
                    failed = failed or RunFailed(arg, error)
                    continue
                nxt = next(todo, None)
                if nxt is not None:
                    running[self.pool.submit(fn, nxt)] = nxt
                batch.append((arg, fut.result()))
            if batch:
                yield batch
            if failed is not None:
                raise failed

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None

    def abort(self) -> None:
        if self.pool is not None:
            # concurrent.futures cannot stop a running task: end the workers it started.
            workers = list(getattr(self.pool, "_processes", {}).values())
            self.pool.shutdown(wait=False, cancel_futures=True)
            for proc in workers:
                proc.terminate()
            for proc in workers:
                proc.join()
            self.pool = None


class DaskBackend:
    def __init__(self, address: str, workers: int) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError as e:  # pragma: no cover - a declared dependency
            raise SchedulerError(f"--scheduler needs dask[distributed]: {e}") from None
        self.cluster: Any = None
        if address == "local-cluster":
            try:
                with _sigint_ignored():  # its worker processes inherit it: Ctrl-C is ours
                    self.cluster = LocalCluster(  # type: ignore[no-untyped-call]
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                        # its workers' warnings as Ctrl-C cancels their tasks are not ours to show
                        silence_logs=logging.ERROR,
                    )
            except Exception as e:
                raise SchedulerError(f"cannot start a local Dask cluster: {e}") from None
            target: Any = self.cluster
        else:
            if "://" not in address:
                raise SchedulerError(
                    f"scheduler address `{address}`: expected tcp://HOST:PORT or local-cluster"
                )
            target = address
        try:
            self.client = Client(  # type: ignore[no-untyped-call]
                target, timeout=CONNECT_TIMEOUT_S, set_as_default=False
            )
        except Exception as e:
            self.close()
            raise SchedulerError(
                f"cannot reach the Dask scheduler at {address} within {CONNECT_TIMEOUT_S} s: {_one_line(e)}"
            ) from None

    def run(
        self, fn: Callable[[str], dict[str, Any]], args: list[str]
    ) -> Iterator[list[tuple[str, dict[str, Any]]]]:
        from dask.distributed import as_completed

        if not args:
            return
        futures = {self.client.submit(fn, a, pure=False): a for a in args}
        done = as_completed(futures, loop=self.client.loop, with_results=True, raise_errors=False)  # type: ignore[no-untyped-call]
        for batch in done.batches():  # type: ignore[no-untyped-call]
            ok = [(futures[fut], result) for fut, result in batch if fut.status != "error"]
            if ok:
                yield ok
            for fut, _result in batch:
                if fut.status == "error":
                    raise RunFailed(futures[fut], fut.exception())

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            client.close()
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None

    def abort(self) -> None:
        self.close()  # closing the client cancels its futures


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split()) or type(e).__name__


def open_backend(scheduler: str | None, workers: int | None) -> Backend:
    """The process pool, or a Dask client connected (or a cluster started) now."""
    n = workers if workers is not None else os.cpu_count() or 1
    if n < 1:
        raise SchedulerError(f"--workers must be at least 1, got {n}")
    if scheduler is None:
        return LocalPool(n)
    return DaskBackend(scheduler, n)


@dataclass(frozen=True)
class SweepSummary:
    experiment: str
    db: Path
    total: int
    stored_before: int
    ran: int
    #: Runs stored by an engine built from other sources, or from input files (a trace, a
    #: DiskSim description) that have changed since: run again (or to be, if they failed).
    outdated: int = 0
    #: Runs found stored for another experiment (the same configuration, engine build and
    #: input files) and stored for this one from them, not run.
    copied: int = 0

    def line(self) -> str:
        """The summary a command prints: runs, run now, reused, where."""
        again = (
            f" ({self.outdated} stored by another engine build or from changed files)"
            if self.outdated
            else ""
        )
        copied = f", {self.copied} copied from other experiments' identical runs" if self.copied else ""
        return (
            f"{self.experiment}: {self.total} runs, {self.ran} run now{again}, "
            f"{self.stored_before} already stored{copied} -> {self.db}"
        )


def sweep(
    exp: Experiment,
    db_path: Path | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    force: bool = False,
    quiet: bool = False,
) -> SweepSummary:
    """Runs every run of ``exp`` not yet stored (all with ``force``), storing each at once.

    A run the engine rejects (say, files that do not fit on the array) is not stored; the others
    still run, and :class:`RunFailed` names the first such run once they are done.

    Everything that can be wrong with the input (the experiment, the scheduler) has been
    reported before the first run starts: the experiment was checked when loaded and the
    back end connects here, before the database is touched.
    """
    db = ResultsDB(db_path or exp.default_db())
    backend = open_backend(scheduler, workers)
    failed: list[tuple[RunSpec, str]] = []
    try:
        db.create()
        digests = {r.run_id: inputs_digest(r.config_json) for r in exp.runs}
        stored = {} if force else db.stored_inputs(exp.name, engine_version)
        # a run is reused when this build stored it from the files as they are
        todo = [r for r in exp.runs if stored.get(r.run_id) != digests[r.run_id]]
        done_before = len(exp.runs) - len(todo)
        # and so is the same run stored for another experiment (a what-if's unchanged runs)
        copied = (
            set()
            if force
            else db.copy_identical(exp.name, {r.run_id: digests[r.run_id] for r in todo}, engine_version)
        )
        todo = [r for r in todo if r.run_id not in copied]
        outdated = 0 if force else len({r.run_id for r in todo} & db.stored_ids(exp.name))
        by_config: dict[str, RunSpec] = {r.config_json: r for r in todo}
        with _progress(len(exp.runs), len(exp.runs) - len(todo), exp.name, quiet) as bar:
            if len(todo) == 1 and isinstance(backend, LocalPool) and not bar.disable:
                # One long run: run it here, with progress over its requests.
                batches = iter([[(todo[0].config_json, _execute_with_progress(todo[0].config_json))]])
            else:
                batches = backend.run(execute, list(by_config))
            for batch in batches:
                ok = [
                    (by_config[c].run_id, c, {**result, "inputs": digests[by_config[c].run_id]})
                    for c, result in batch
                    if "error" not in result
                ]
                db.write_many(exp.name, ok)
                bar.update(len(ok))
                failed += [(by_config[c], result["error"]) for c, result in batch if "error" in result]
    except RunFailed as e:  # a bug in a run (not an error the engine reports): stop
        backend.abort()
        raise RunFailed(e.config_json, PrefetchlabError(f"{_name(by_config[e.config_json])}: {e}")) from None
    except BaseException:
        backend.abort()
        raise
    backend.close()
    if failed:
        run, error = failed[0]
        more = f" ({len(failed) - 1} more failed runs not stored)" if len(failed) > 1 else ""
        raise RunFailed(run.config_json, PrefetchlabError(f"{_name(run)}: {error}{more}"))
    return SweepSummary(exp.name, db.path, len(exp.runs), done_before, len(todo), outdated, len(copied))


def _name(run: RunSpec) -> str:
    at = ", ".join(f"{k}={v}" for k, v in run.point.items())
    return f"run {run.run_id}" + (f" ({at})" if at else "")


def _execute_with_progress(config_json: str) -> dict[str, Any]:
    from tqdm import tqdm

    with tqdm(desc="  requests", unit="req", file=sys.stderr, leave=False) as bar:

        def update(sim_s: float, duration_s: float, done: int, total: int) -> None:
            bar.total = total or None
            bar.set_postfix_str(f"{sim_s:.2f} s simulated", refresh=False)
            bar.update(done - bar.n)

        return execute(config_json, update)


def _progress(total: int, initial: int, name: str, quiet: bool) -> Any:
    """A tqdm bar over runs (done / total, rate, ETA), off when quiet or not on a terminal."""
    from tqdm import tqdm

    disable = quiet or not sys.stdout.isatty()
    return tqdm(total=total, initial=initial, desc=name, unit="run", disable=disable, file=sys.stderr)
