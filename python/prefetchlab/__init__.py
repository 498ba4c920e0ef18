"""prefetchlab: a deterministic simulator of prefetching on striped disk arrays.

``prefetchlab.simulate(config) -> Report`` runs one configuration;
``prefetchlab.validate_disk(spec, trace)`` checks a drive model against a real
drive's measurements. The command line is ``prefetchlab`` (see ``cli.py``).
"""

from prefetchlab._engine import PrefetchlabError, __version__
from prefetchlab.api import IO_LOG_COLUMNS, Report, resolve, simulate, validate_disk

__all__ = [
    "IO_LOG_COLUMNS",
    "PrefetchlabError",
    "Report",
    "__version__",
    "resolve",
    "simulate",
    "validate_disk",
]
