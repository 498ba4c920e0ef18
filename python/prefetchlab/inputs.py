"""The files a run reads besides its configuration, and a digest of their contents.

A stored run is reused only while the engine and these files are what they were when it ran
(:func:`prefetchlab.runner.sweep`): a run's id hashes its resolved configuration, which names
a trace or a DiskSim description by its path only, so a file changed in place would otherwise
leave the old run's results standing for the new file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from typing import Any

#: (path, size, mtime in ns) → the file's SHA-256, so that a sweep whose runs share one trace
#: reads it once.
_FILE_DIGESTS: dict[tuple[str, int, int], str] = {}

#: A DiskSim description's files, asked of the engine once per process.
_DESCRIPTION_FILES: dict[str, list[str]] = {}


def is_disksim_file(model: str) -> bool:
    """Whether `disk.model` names a DiskSim description file rather than a built-in preset (as
    the engine tells them apart)."""
    return model.lower().endswith((".parv", ".diskspecs"))


def drives_in(config: Any) -> Iterator[dict[str, Any]]:
    """The drives a resolved configuration names: its `disk` table and every device table of
    a `[topology]` (each a table with `kind` and `model`), wherever they sit."""
    if isinstance(config, dict):
        if "kind" in config and "model" in config:
            yield config
        for value in config.values():
            yield from drives_in(value)
    elif isinstance(config, list):
        for value in config:
            yield from drives_in(value)


def disksim_file(drive: Mapping[str, Any]) -> str | None:
    """The DiskSim description a drive table (from :func:`drives_in`) names, or None (a
    preset, an SSD)."""
    model = str(drive.get("model", ""))
    return model if drive.get("kind") == "hdd" and is_disksim_file(model) else None


def input_files(config: Mapping[str, Any]) -> list[str]:
    """The files a resolved configuration reads: the trace of a `trace` workload and every
    DiskSim description its drives name with the files each reads (what it sources, its seek
    curve and layout map), sorted, each once."""
    files: set[str] = set()
    workload = config.get("workload", {})
    if workload.get("kind") == "trace" and workload.get("path"):
        files.add(str(workload["path"]))
    for drive in drives_in(dict(config)):
        model = disksim_file(drive)
        if model is not None:
            files.update(_description_files(model))
    return sorted(files)


def _description_files(model: str) -> list[str]:
    """The files of a DiskSim description, as the engine reads them (the description alone when
    it cannot be read: the run then reports why)."""
    from prefetchlab._engine import PrefetchlabError, drive_files

    if model not in _DESCRIPTION_FILES:
        try:
            _DESCRIPTION_FILES[model] = drive_files(model)
        except PrefetchlabError:
            return [model]
    return _DESCRIPTION_FILES[model]


def _file_digest(path: str) -> str:
    """The file's SHA-256 (``missing`` when it cannot be read: the run then reports it)."""
    try:
        st = os.stat(path)
    except OSError:
        return "missing"
    key = (path, st.st_size, st.st_mtime_ns)
    digest = _FILE_DIGESTS.get(key)
    if digest is None:
        try:
            with open(path, "rb") as f:
                digest = hashlib.file_digest(f, "sha256").hexdigest()
        except OSError:
            return "missing"
        _FILE_DIGESTS[key] = digest
    return digest


def inputs_digest(config_json: str) -> str:
    """16 hex digits of a hash of the contents of the files the run reads, ``""`` when it reads
    none: equal exactly when every file holds what it held."""
    files = input_files(json.loads(config_json))
    if not files:
        return ""
    h = hashlib.sha256()
    for path in files:
        h.update(f"{path}\0{_file_digest(path)}\0".encode())
    return h.hexdigest()[:16]
