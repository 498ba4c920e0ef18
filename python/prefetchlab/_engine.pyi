"""Typed stub of the compiled engine module (crates/prefetchlab-py): conversion only, no logic."""

from collections.abc import Callable
from typing import Any, Literal, TypedDict

__version__: str
#: A fingerprint of the sources the engine was built from (16 hex digits).
engine_build: str
#: latencies kept one by one before the engine bins them (metrics::EXACT_LATENCIES)
EXACT_LATENCIES: int

class PrefetchlabError(ValueError):
    """Any error the engine reports: a bad configuration key or value, an unreadable or
    malformed input file, or (prefixed "internal error") a bug. The message is one line.
    An engine error also carries its parts: ``kind`` ("config", "input", "geometry",
    "override", "cancelled", "internal"), ``key`` (the configuration key it names, or None)
    and ``detail`` (the message after the key); None on an error raised without them."""

    kind: str | None
    key: str | None
    detail: str | None

class IoLogColumns(TypedDict):
    """The io_log as little-endian column buffers; absent values are -1."""

    rows: int
    event_names: list[str]
    time_ns: bytes  # u64
    event: bytes  # u8, an index into event_names
    stream: bytes  # i32
    file: bytes  # i32
    page: bytes  # i64
    pages: bytes  # i64
    marker: bytes  # i64
    issued: bytes  # i64
    array_block: bytes  # i64
    disk: bytes  # i32
    lba_sector: bytes  # i64
    sectors: bytes  # i64

class SimulateResult(TypedDict):
    report: str  # JSON: {"version", "config", "metrics", "streams", "disks"}
    io_log: IoLogColumns | None

class Validation(TypedDict):
    rms_ms: float
    rms_exact_ms: float
    mean_sim_ms: float
    mean_real_ms: float
    requests: int
    classes: list[dict[str, Any]]

Format = Literal["toml", "json", "path"]

def resolve(text: str, fmt: Format, sets: list[str] = ..., stack: bool = ...) -> str:
    """Checks a configuration (with ``stack``, also that its stack can be built and its files
    read); returns it resolved (every default filled in) as JSON."""

def simulate(
    text: str,
    fmt: Format,
    sets: list[str] = ...,
    progress: Callable[[float, float, int, int], object] | None = ...,
) -> SimulateResult:
    """Runs a configuration. ``progress(sim_s, duration_s, requests_done, requests_total)`` is
    called now and then; Ctrl-C or an exception raised by ``progress`` stops the run."""

def validate_disk(spec: str, trace: str, overrides: list[tuple[str, float]] = ...) -> Validation:
    """Replays a DiskSim validation trace on the drive described by ``spec``."""

class Departure(TypedDict):
    param: str
    value: float
    reason: str

class PresetInfo(TypedDict):
    name: str
    kind: Literal["disksim", "datasheet"]
    description: str
    departures: list[Departure]

def preset_info(name: str) -> PresetInfo | None:
    """What a built-in drive preset is (its source: a DiskSim description or datasheet figures), or None."""

class DriveFacts(TypedDict):
    name: str
    capacity_sectors: int
    surfaces: int
    cylinders: int
    rpm: float
    spt_outer: int
    spt_inner: int
    media_outer_mb_s: float
    media_inner_mb_s: float
    interface_mb_s: float | None
    interface_ms_per_sector: float
    seek_single_ms: float
    seek_mean_random_ms: float
    seek_full_ms: float
    head_switch_ms: float
    cache_enabled: bool
    cache_segments: int
    cache_segment_sectors: int
    max_readahead_sectors: int
    queue_length: int
    warnings: list[str]

def drive_files(model: str) -> list[str]:
    """The files a DiskSim drive description (``disk.model`` a path) reads: itself and what it
    sources, its seek curve and layout map."""

def drive_facts(model: str, overrides: list[tuple[str, float]]) -> DriveFacts:
    """What a drive model is: geometry, mechanics, cache, queue, its platter rates (outermost
    and innermost zone) and host interface rate in MB/s, and what the DiskSim reader tolerated
    in its description."""

def preset_names() -> list[str]:
    """The built-in drive preset names."""

def trace_stats(
    path: str,
    format: str | None = ...,
    block_bytes: int = ...,
    progress: Callable[[int, int], object] | None = ...,
    blk_event: str = ...,
    skip_bad: int = ...,
) -> dict[str, Any]: ...
def trace_convert(
    path: str,
    out: str,
    to: str = ...,
    format: str | None = ...,
    block_bytes: int = ...,
    progress: Callable[[int, int], object] | None = ...,
    blk_event: str = ...,
    skip_bad: int = ...,
) -> dict[str, Any]: ...
def trace_formats() -> list[str]: ...
def computed_keys() -> list[str]: ...
def key_units() -> dict[str, str]: ...
def apply_sets(tree_json: str, sets: list[str]) -> str:
    """An experiment's base tree (JSON) with ``--set KEY=VALUE`` overrides applied as a
    configuration's are; the tree as JSON."""

def parse_size(text: str, what: str) -> int: ...
def ipods_plan(max_bw: int, x_cache: int, times: list[str]) -> dict[str, int]: ...
def ipods_timeline(
    max_bw: int, x_cache: int, times: list[str], blocks: int, ipods: bool
) -> dict[str, Any]: ...
def topology_timeline(text: str, fmt: Format, sets: list[str]) -> dict[str, Any]: ...
