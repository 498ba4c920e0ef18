"""The scalar metrics a run reports: their names and SQL types.

The engine defines the metrics once (``Metrics`` in crates/prefetchlab/src/metrics/mod.rs) and
serializes every field of it on every run, so the names and types are learned from the engine
rather than copied here: one tiny probe run (a single 4 KiB read on one disk, well under a
millisecond) is simulated once per process and its metric dict read. Integer metrics (``u64``)
become ``BIGINT`` columns, text (``block_policy_state`` and ``readahead_policy_state``, JSON
objects of the policies' own counters: query them with DuckDB's ``json_extract``) ``VARCHAR``,
the others ``DOUBLE``.

``WALL_CLOCK_METRICS`` are the metrics that measure the host, not the simulated system: they
are the only ones that differ between two runs of the same configuration.
"""

from __future__ import annotations

import json
from functools import cache

from prefetchlab import _engine

#: Metrics measured on the host's clock: not reproducible, excluded from equality checks.
WALL_CLOCK_METRICS: tuple[str, ...] = ("wall_time_s", "requests_per_wall_s")

_PROBE = {"workload": {"file_size": "4KiB", "record": "4KiB", "streams": 1}}


@cache
def metric_types() -> dict[str, str]:
    """Every metric name, in the engine's order, mapped to its SQL type."""
    out = _engine.simulate(json.dumps(_PROBE), "json", [])
    metrics = json.loads(out["report"])["metrics"]
    return {name: _sql_type(v) for name, v in metrics.items()}


def _sql_type(value: object) -> str:
    if isinstance(value, str):
        return "VARCHAR"
    if isinstance(value, int) and not isinstance(value, bool):
        return "BIGINT"
    return "DOUBLE"


def metric_names() -> list[str]:
    """Every metric name, in the engine's order."""
    return list(metric_types())


def numeric_metrics() -> list[str]:
    """The metrics that are numbers (what figures draw and claims compare), in the engine's order."""
    return [name for name, sql in metric_types().items() if sql != "VARCHAR"]


def text_metrics() -> set[str]:
    """The metrics that are text: the policies' own counters, as JSON."""
    return {name for name, sql in metric_types().items() if sql == "VARCHAR"}
