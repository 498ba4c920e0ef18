"""The Python API: ``simulate(config) -> Report`` and ``validate_disk``.

A configuration is given as a dict, as TOML text, or as a path to a TOML file
(a :class:`pathlib.Path`, or a one-line string ending in ``.toml``). The schema
is the engine's (``crates/prefetchlab/src/config/mod.rs``); every error is a
:class:`prefetchlab.PrefetchlabError` whose message is one line naming the key
or file at fault.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prefetchlab import _engine, config_error, engine_version

if TYPE_CHECKING:
    import pyarrow as pa

    #: Columns of :attr:`Report.io_log`, in order, with their Arrow types. Absent
    #: values (e.g. the disk of a readahead window) are null. Built on first use
    #: (:func:`__getattr__`), so that importing this module does not import pyarrow.
    IO_LOG_COLUMNS: tuple[tuple[str, pa.DataType], ...]

#: The columns of :attr:`Report.io_log` and the names of their pyarrow types; ``event`` is
#: a dictionary of strings with ``uint8`` codes.
_IO_LOG_TYPES: tuple[tuple[str, str], ...] = (
    ("time_ns", "uint64"),
    ("event", "dictionary"),
    ("stream", "int32"),
    ("file", "int32"),
    ("page", "int64"),
    ("pages", "int64"),
    ("marker", "int64"),
    ("issued", "int64"),
    ("array_block", "int64"),
    ("disk", "int32"),
    ("lba_sector", "int64"),
    ("sectors", "int64"),
)


def _io_log_columns() -> tuple[tuple[str, pa.DataType], ...]:
    import pyarrow as pa

    return tuple(
        (name, pa.dictionary(pa.uint8(), pa.string()) if kind == "dictionary" else getattr(pa, kind)())
        for name, kind in _IO_LOG_TYPES
    )


def __getattr__(name: str) -> Any:
    """``IO_LOG_COLUMNS``, built (and pyarrow imported) when first asked for."""
    if name == "IO_LOG_COLUMNS":
        value = _io_log_columns()
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Called now and then during a run with
#: ``(sim_s, duration_s, requests_done, requests_total)``; raising stops the run.
ProgressFn = Callable[[float, float, int, int], object]

ConfigLike = dict[str, Any] | str | Path


@dataclass
class Report:
    """What one run measured.

    ``metrics`` holds the scalar figures (names carry their units, e.g.
    ``bandwidth_mb_s``, ``latency_p99_ms``) and ``block_policy_state``, the array
    cache's block policy's own counters as a JSON text (AMP's p/g distribution, LSP's
    areas and holes, …; :meth:`policy_state` parses it) and ``readahead_policy_state``, the
    readahead's device-wide ones (extended SARA's concurrency; :meth:`readahead_state`);
    ``streams`` and ``disks`` one dict
    per reader and per member disk; ``config`` the resolved configuration
    (every default filled in; sizes in bytes, durations in nanoseconds);
    ``io_log`` a :class:`pyarrow.Table` when ``output.io_log = true``, else None;
    ``version`` the engine that ran it, ``prefetchlab.engine_version`` (``0.1.0+<build>``,
    as stored results carry it).
    """

    metrics: dict[str, Any]
    config: dict[str, Any]
    streams: list[dict[str, Any]] = field(default_factory=list)
    disks: list[dict[str, Any]] = field(default_factory=list)
    io_log: pa.Table | None = None
    version: str = ""

    def policy_state(self) -> dict[str, Any]:
        """The block policy's own counters (``metrics["block_policy_state"]``), parsed."""
        state: dict[str, Any] = json.loads(self.metrics.get("block_policy_state") or "{}")
        return state

    def readahead_state(self) -> dict[str, Any]:
        """The readahead policy's device-wide counters (``metrics["readahead_policy_state"]``:
        extended SARA's pending I/Os per member disk, its smoothed concurrency and its choices
        of max), parsed."""
        state: dict[str, Any] = json.loads(self.metrics.get("readahead_policy_state") or "{}")
        return state

    def to_dict(self) -> dict[str, Any]:
        """The report JSON object: ``{"version", "config", "metrics", "streams", "disks"}``."""
        return {
            "version": self.version,
            "config": self.config,
            "metrics": self.metrics,
            "streams": self.streams,
            "disks": self.disks,
        }


def _io_log_table(raw: _engine.IoLogColumns) -> pa.Table:
    """Builds the Arrow table from the engine's little-endian column buffers (no copy of the data)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    n = raw["rows"]
    cols: dict[str, pa.Array] = {}
    for name, dtype in _io_log_columns():
        buf = pa.py_buffer(raw[name])  # type: ignore[literal-required]
        if name == "event":
            codes = pa.Array.from_buffers(pa.uint8(), n, [None, buf])
            cols[name] = pa.DictionaryArray.from_arrays(codes, pa.array(raw["event_names"], pa.string()))
        elif name == "time_ns":
            cols[name] = pa.Array.from_buffers(dtype, n, [None, buf])
        else:
            arr = pa.Array.from_buffers(dtype, n, [None, buf])
            cols[name] = pc.if_else(pc.less(arr, 0), pa.scalar(None, dtype), arr)
    return pa.table(cols)


def _json_value(value: Any, key: str) -> Any:
    """``value`` as JSON takes it; a value JSON has no form for (NaN, infinity, bytes, an
    object) or an integer beyond 64 bits is an error naming its key."""
    if isinstance(value, dict):
        return {k: _json_value(v, f"{key}.{k}" if key else str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(v, key) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        if not -(2**63) <= value < 2**64:
            raise config_error(key, f"{value} does not fit in 64 bits")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise config_error(key, f"expected a finite number, got {value}")
        return value
    raise config_error(key, f"expected a number, string, boolean, list or table, got {type(value).__name__}")


def _sets(sets: Sequence[str] | str | None) -> list[str]:
    """``--set``-style overrides: a list of ``KEY=VALUE`` strings, or one such string."""
    if sets is None:
        return []
    if isinstance(sets, str):
        return [sets]
    return [str(s) for s in sets]


def _config_args(config: ConfigLike) -> tuple[str, _engine.Format]:
    if isinstance(config, dict):
        return json.dumps(_json_value(config, "")), "json"
    if isinstance(config, Path):
        return str(config), "path"
    if isinstance(config, str):
        text = config.strip()
        one_line = text and "\n" not in text
        if one_line and (text.endswith(".toml") or "=" not in text or _names_a_file(text)):
            # one line naming a file: an existing one, or one no one-line TOML
            # configuration could be (it ends in `.toml`, or it has no `=`)
            return text, "path"
        return config, "toml"
    raise TypeError(f"config must be a dict, TOML text or a path, not {type(config).__name__}")


def _names_a_file(text: str) -> bool:
    try:
        return Path(text).exists()
    except OSError:  # a name too long for the file system, say
        return False


def topology_timeline(
    config: ConfigLike, sets: Sequence[str] | str | None = None, reads: int | None = None
) -> dict[str, Any]:
    """Runs a ``[topology]`` configuration and returns its timeline, as [IPODS] Fig. 2 draws it:
    ``{elapsed_ns, stall_ns, metrics, accesses: {block, fetch_ns, from_ssd, arrival_ns,
    consumed_ns, stall_ns}, copies: {block, start_ns, arrival_ns}}`` (lists; ``block`` is the
    hinted read's number in the sequence, from 1). ``reads`` keeps the first that many reads and
    the copies made for them."""
    text, fmt = _config_args(config)
    t: dict[str, Any] = _engine.topology_timeline(text, fmt, _sets(sets))
    t["metrics"] = json.loads(t["metrics"])["metrics"]
    if reads is not None:
        a, c = t["accesses"], t["copies"]
        t["accesses"] = {k: v[:reads] for k, v in a.items()}
        keep = [i for i, b in enumerate(c["block"]) if b <= reads]
        t["copies"] = {k: [v[i] for i in keep] for k, v in c.items()}
    return t


def resolve(config: ConfigLike, sets: Sequence[str] | str | None = None) -> dict[str, Any]:
    """Checks a configuration without running it; returns it with every default filled in."""
    text, fmt = _config_args(config)
    resolved: dict[str, Any] = json.loads(_engine.resolve(text, fmt, _sets(sets)))
    return resolved


def simulate(
    config: ConfigLike,
    sets: Sequence[str] | str | None = None,
    *,
    progress: ProgressFn | None = None,
) -> Report:
    """Runs one configuration (a dict, TOML text, or a path to a TOML file).

    ``sets`` are ``key.path=value`` overrides, as ``--set`` on the command line.
    ``progress`` is called now and then with ``(sim_s, duration_s,
    requests_done, requests_total)``. Errors raise
    :class:`prefetchlab.PrefetchlabError` with the CLI's message; Ctrl-C raises
    :class:`KeyboardInterrupt`.
    """
    text, fmt = _config_args(config)
    out = _engine.simulate(text, fmt, _sets(sets), progress)
    report = json.loads(out["report"])
    raw_log = out["io_log"]
    return Report(
        metrics=report["metrics"],
        config=report["config"],
        streams=report["streams"],
        disks=report["disks"],
        io_log=_io_log_table(raw_log) if raw_log is not None else None,
        version=engine_version,
    )


def convert_trace(
    path: str | Path,
    out: str | Path,
    to: str = "lcs-csv",
    *,
    block: str | int = "4KiB",
    format: str = "auto",
) -> dict[str, Any]:
    """Writes the trace at ``path`` to ``out`` as ``to`` (``lcs-csv``: libCacheSim's csv,
    header ``time,obj_id,obj_size,op``, one line per ``block`` the records touch — the block
    sequence ``run.mode = "cache-only"`` simulates). Returns ``{"format", "records",
    "blocks"}``; errors raise :class:`prefetchlab.PrefetchlabError` naming the file and line."""
    block_bytes = block if isinstance(block, int) else _engine.parse_size(block, "block")
    fmt = None if format == "auto" else format
    return _engine.trace_convert(str(path), str(out), to, fmt, block_bytes)


def _override_pairs(overrides: Any) -> list[tuple[str, float]]:
    """``overrides`` as (DiskSim parameter name, value) pairs; a mapping of names to values works
    too. Anything else is a ``PrefetchlabError`` naming what was expected."""
    if overrides is None:
        return []
    items = overrides.items() if isinstance(overrides, Mapping) else overrides
    pairs = []
    try:
        for item in items:
            name, value = item
            if not isinstance(name, str) or isinstance(value, bool):
                raise TypeError
            pairs.append((name, float(value)))
    except (TypeError, ValueError):
        raise _engine.PrefetchlabError(
            f"overrides: expected (DiskSim parameter name, number) pairs or a dict of them, got {overrides!r}"
        ) from None
    return pairs


def validate_disk(
    spec: str | Path,
    trace: str | Path,
    overrides: list[tuple[str, float]] | dict[str, float] | None = None,
) -> dict[str, Any]:
    """Replays a DiskSim validation trace on the drive model of ``spec`` (``.parv`` or ``.diskspecs``).

    ``overrides`` set DiskSim parameters by name, e.g. ``("Enable caching in
    buffer", 0)`` (a list of such pairs, or a dict). Returns ``rms_ms``, ``rms_exact_ms``, ``mean_sim_ms``,
    ``mean_real_ms`` (milliseconds), ``requests`` and ``classes``: the same
    comparison per class of request (reads, writes, simulated drive-cache
    hits and misses, no / short / long seeks), each a dict with ``class``,
    ``requests``, ``mean_sim_ms``, ``mean_real_ms`` and ``rms_exact_ms``.
    """
    pairs = _override_pairs(overrides)
    v = _engine.validate_disk(str(spec), str(trace), pairs)
    return {
        "rms_ms": v["rms_ms"],
        "rms_exact_ms": v["rms_exact_ms"],
        "mean_sim_ms": v["mean_sim_ms"],
        "mean_real_ms": v["mean_real_ms"],
        "requests": v["requests"],
        "classes": [dict(c) for c in v["classes"]],
    }
