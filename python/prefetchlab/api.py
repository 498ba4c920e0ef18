"""The Python API: ``simulate(config) -> Report`` and ``validate_disk``."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from prefetchlab import _engine


@dataclass
class Report:
    """What one run measured."""

    metrics: dict[str, Any]
    config: dict[str, Any]
    streams: list[dict[str, Any]] = field(default_factory=list)
    disks: list[dict[str, Any]] = field(default_factory=list)
    io_log: pa.Table | None = None
    version: str = ""


_OPTIONAL = {
    "stream",
    "file",
    "page",
    "pages",
    "marker",
    "issued",
    "array_block",
    "disk",
    "lba_sector",
    "sectors",
}


def _io_log_table(raw: dict[str, Any]) -> pa.Table:
    n = raw["rows"]
    cols: dict[str, pa.Array] = {}
    cols["time_ns"] = pa.Array.from_buffers(pa.uint64(), n, [None, pa.py_buffer(raw["time_ns"])])
    codes = pa.Array.from_buffers(pa.uint8(), n, [None, pa.py_buffer(raw["event"])])
    cols["event"] = pa.DictionaryArray.from_arrays(codes, pa.array(raw["event_names"], pa.string()))
    for name in ("stream", "file", "disk"):
        arr = pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(raw[name])])
        cols[name] = _nulls_for_negative(arr)
    for name in ("page", "pages", "marker", "issued", "array_block", "lba_sector", "sectors"):
        arr = pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(raw[name])])
        cols[name] = _nulls_for_negative(arr)
    assert set(cols) - {"time_ns", "event"} == _OPTIONAL
    return pa.table(cols)


def _nulls_for_negative(arr: pa.Array) -> pa.Array:
    import pyarrow.compute as pc

    return pc.if_else(pc.less(arr, 0), pa.scalar(None, arr.type), arr)


def _config_args(config: dict[str, Any] | str | Path) -> tuple[str, str]:
    if isinstance(config, dict):
        return json.dumps(config), "json"
    if isinstance(config, Path):
        return str(config), "path"
    if isinstance(config, str):
        text = config.strip()
        if "\n" not in text and "=" not in text and text.endswith(".toml"):
            return text, "path"
        return config, "toml"
    raise TypeError(f"config must be a dict, TOML text or a path, not {type(config).__name__}")


def simulate(config: dict[str, Any] | str | Path, sets: list[str] | None = None) -> Report:
    """Runs one configuration (a dict, TOML text, or a path to a TOML file).

    ``sets`` are ``key.path=value`` overrides, as ``--set`` on the command line.
    Errors raise :class:`prefetchlab.PrefetchlabError` with the CLI's message.
    """
    text, fmt = _config_args(config)
    out = _engine.simulate(text, fmt, list(sets or []))
    report = json.loads(out["report"])
    io_log = _io_log_table(out["io_log"]) if out["io_log"] is not None else None
    return Report(
        metrics=report["metrics"],
        config=report["config"],
        streams=report["streams"],
        disks=report["disks"],
        io_log=io_log,
        version=report["version"],
    )


def validate_disk(
    spec: str | Path, trace: str | Path, overrides: list[tuple[str, float]] | None = None
) -> dict[str, float]:
    """Replays a DiskSim validation trace on the drive model; returns rms and means in ms."""
    return dict(_engine.validate_disk(str(spec), str(trace), list(overrides or [])))
