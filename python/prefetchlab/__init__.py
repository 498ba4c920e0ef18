"""prefetchlab: a deterministic simulator of prefetching on striped disk arrays."""

from prefetchlab._engine import PrefetchlabError, __version__
from prefetchlab.api import Report, simulate, validate_disk

__all__ = ["PrefetchlabError", "Report", "__version__", "simulate", "validate_disk"]
