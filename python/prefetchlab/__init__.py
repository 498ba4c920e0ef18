"""prefetchlab: a deterministic simulator of prefetching on striped disk arrays.

``prefetchlab.simulate(config) -> Report`` runs one configuration;
``prefetchlab.validate_disk(spec, trace)`` checks a drive model against a real
drive's measurements. The command line is ``prefetchlab`` (see ``cli.py``).

Importing the package loads only the engine: the names of the Python API
(:mod:`prefetchlab.api`) are loaded on first use, and pyarrow, DuckDB,
matplotlib and Dask only by the functions that need them, so that the
command line starts quickly.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from prefetchlab._engine import PrefetchlabError, __version__, engine_build

#: prefetchlab's version and the build fingerprint of its engine (``0.1.0+<16 hex digits>``, the
#: engine's sources hashed when it was built): the version stays the same while the model
#: changes, this does not. Stored results carry it (a run stored under another is run again),
#: and ``prefetchlab --version`` and the reproduction report print it.
engine_version = f"{__version__}+{engine_build}"

# An engine error carries its parts (kind, the configuration key it names, the message
# after the key); one raised on the Python side has them from config_error, or none.
PrefetchlabError.kind = None
PrefetchlabError.key = None
PrefetchlabError.detail = None


def config_error(key: str, detail: str) -> PrefetchlabError:
    """The error about the configuration key ``key`` that the engine would raise: the message
    ``config key `KEY`: DETAIL``, with ``kind``, ``key`` and ``detail`` set."""
    error = PrefetchlabError(f"config key `{key}`: {detail}")
    error.kind, error.key, error.detail = "config", key, detail
    return error


if TYPE_CHECKING:
    from prefetchlab.api import (
        IO_LOG_COLUMNS,
        Report,
        convert_trace,
        resolve,
        simulate,
        topology_timeline,
        validate_disk,
    )

#: Public names defined in other modules, loaded when first asked for.
_LAZY = {
    "IO_LOG_COLUMNS": "prefetchlab.api",
    "Report": "prefetchlab.api",
    "convert_trace": "prefetchlab.api",
    "resolve": "prefetchlab.api",
    "simulate": "prefetchlab.api",
    "topology_timeline": "prefetchlab.api",
    "validate_disk": "prefetchlab.api",
}

__all__ = [
    "IO_LOG_COLUMNS",
    "PrefetchlabError",
    "Report",
    "__version__",
    "convert_trace",
    "engine_version",
    "resolve",
    "simulate",
    "topology_timeline",
    "validate_disk",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once loaded, an ordinary attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
