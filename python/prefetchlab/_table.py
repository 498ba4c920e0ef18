"""Plain-text tables for the command line and the demo: a run's summary with units,
and compact per-stream and per-disk tables."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from pathlib import PurePath
from typing import Any

from prefetchlab._engine import EXACT_LATENCIES
from prefetchlab.api import Report

#: Metrics shown in a run's summary, in order: (key, label, unit, scale).
#: The shown value is ``metrics[key] * scale``.
SUMMARY_ROWS: tuple[tuple[str, str, str, float], ...] = (
    ("bandwidth_mb_s", "bandwidth", "MB/s", 1.0),
    ("iops", "IOPS", "req/s", 1.0),
    ("app_requests", "application requests", "", 1.0),
    ("writes", "of which writes", "", 1.0),
    ("bytes_read", "data read", "MB", 1e-6),
    ("bytes_written", "data written", "MB", 1e-6),
    ("write_bandwidth_mb_s", "write bandwidth", "MB/s", 1.0),
    ("latency_mean_ms", "latency mean", "ms", 1.0),
    ("latency_p50_ms", "latency p50", "ms", 1.0),
    ("latency_p95_ms", "latency p95", "ms", 1.0),
    ("latency_p99_ms", "latency p99", "ms", 1.0),
    ("latency_max_ms", "latency max", "ms", 1.0),
    ("latency_samples", "requests timed (the latency rows)", "", 1.0),
    ("hit_ratio", "hit ratio", "", 1.0),
    ("readahead_windows", "readahead windows", "", 1.0),
    ("prefetched_pages", "prefetched pages", "pages", 1.0),
    ("prefetch_used_pages", "prefetched pages read", "pages", 1.0),
    ("prefetch_accuracy", "prefetch accuracy", "", 1.0),
    ("wasted_prefetch_pages", "wasted prefetch pages", "pages", 1.0),
    ("block_requests", "block requests", "", 1.0),
    ("disk_requests", "disk requests", "", 1.0),
    ("request_splits", "request splits", "", 1.0),
    ("disk_sectors", "disk data moved", "MB", 512e-6),
    ("mean_disk_request_kib", "mean disk request", "KiB", 1.0),
    ("disk_utilization", "disk utilisation (mean)", "%", 100.0),
    ("mean_seek_distance_cyl", "mean seek distance", "cylinders", 1.0),
    ("drive_cache_hits", "drive cache hits", "", 1.0),
    ("congestion_events", "congestion events", "", 1.0),
    ("queue_full_events", "queue-full events", "", 1.0),
    ("room_waits", "readahead windows that slept for memory", "", 1.0),
    ("windows_over_budget", "readahead windows read over the memory budget", "", 1.0),
    ("trace_records_skipped", "malformed trace records skipped (workload.skip_bad)", "records", 1.0),
    ("request_sleep_s", "time parts slept for a request (full queue)", "s", 1.0),
    ("layout_score", "file layout score (1 = every file one extent)", "", 1.0),
    ("mean_file_extents", "extents per file (mean)", "", 1.0),
    ("hits", "array-cache hits", "blocks", 1.0),
    ("misses", "array-cache misses", "blocks", 1.0),
    ("array_cache_hit_ratio", "array-cache hit ratio", "", 1.0),
    ("prefetched_blocks", "array-cache prefetched blocks", "blocks", 1.0),
    ("prefetch_used_blocks", "array-cache prefetched blocks read", "blocks", 1.0),
    ("wasted_blocks", "array-cache wasted blocks", "blocks", 1.0),
    ("rmw_stripes", "RAID rows by read-modify-write", "rows", 1.0),
    ("rcw_stripes", "RAID rows by reconstruct-write", "rows", 1.0),
    ("full_stripe_rows", "RAID rows written whole", "rows", 1.0),
    ("writeback_blocks", "array-cache blocks written back", "blocks", 1.0),
    ("peak_cache_pages", "peak page-cache pages", "pages", 1.0),
    ("activated_pages", "page-cache pages activated (read twice)", "pages", 1.0),
    ("deactivated_pages", "page-cache pages deactivated", "pages", 1.0),
    ("elapsed_s", "elapsed time (last read consumed)", "s", 1.0),
    ("stall_s", "application stall", "s", 1.0),
    ("ssd_hits", "fetches from an upper level (SSD)", "", 1.0),
    ("hdd_reads", "fetches from a lower level (HDD)", "", 1.0),
    ("sim_time_s", "simulated time", "s", 1.0),
    ("wall_time_s", "wall time", "s", 1.0),
    ("requests_per_wall_s", "simulated requests per wall second", "req/s", 1.0),
)

#: The rows of a ``[topology]`` run (the others do not apply to it).
_TOPOLOGY_KEYS = frozenset(
    {
        "bandwidth_mb_s",
        "iops",
        "app_requests",
        "bytes_read",
        "hit_ratio",
        "disk_requests",
        "disk_utilization",
        "elapsed_s",
        "stall_s",
        "ssd_hits",
        "hdd_reads",
        "sim_time_s",
        "wall_time_s",
        "requests_per_wall_s",
    }
)
#: Extended SARA's device-wide figures (``readahead_policy_state``), shown with their units.
_READAHEAD_STATE: tuple[tuple[str, str, str], ...] = (
    ("sara_pending_ios_mean", "SARA: pending I/Os per member disk N at its choices (mean)", "requests"),
    ("sara_concurrency_mean", "SARA: smoothed concurrency D at its choices (mean)", "requests"),
    ("sara_large_max_choices", "SARA: readaheads sized by the large max (low concurrency)", ""),
    ("sara_small_max_choices", "SARA: readaheads sized by the small max (high concurrency)", ""),
)
#: The IPODS/TIP figures of a topology run's state, shown with their units.
_TOPOLOGY_STATE: tuple[tuple[str, str, str], ...] = (
    ("t_unit_s", "T_unit (informed.t_cpu)", "s"),
    ("t_hdd_net_s", "T_hdd-net (one block, lower level to client)", "s"),
    ("t_ss_net_s", "T_ss-net (one block, upper level to client)", "s"),
    ("t_hdd_ss_s", "T_hdd-ss (one block, lower to upper level)", "s"),
    ("horizon_hdd", "TIP's prefetch horizon on the HDD path", "reads"),
    ("x_cache", "blocks fetched ahead (X_cache)", "blocks"),
    ("max_bw", "Max_BW", "requests"),
    ("pstart", "IPODS Pstart", "read"),
    ("pnext_offset", "IPODS Pnext offset", "reads"),
    ("depth", "IPODS pipeline depth (Max_BW − X_cache)", "copies"),
    ("depth_at_end", "IPODS depth at the end (after shortages)", "copies"),
    ("max_bw_needed", "Max_BW needed to hide every latency", "requests"),
    ("copies", "HDD → SSD copies", ""),
)

#: Array-cache rows are shown only when the configuration has an array cache.
_ARRAY_CACHE_KEYS = frozenset(
    {"hits", "misses", "array_cache_hit_ratio", "prefetched_blocks", "prefetch_used_blocks", "wasted_blocks"}
)

#: Rows shown only when the run had writes.
_WRITE_KEYS = frozenset(
    {
        "writes",
        "bytes_written",
        "write_bandwidth_mb_s",
        "rmw_stripes",
        "rcw_stripes",
        "full_stripe_rows",
        "writeback_blocks",
    }
)

#: Page-cache rows, not shown for a block trace (it enters below the page cache).
_PAGE_CACHE_KEYS = frozenset(
    {
        "readahead_windows",
        "prefetched_pages",
        "prefetch_used_pages",
        "prefetch_accuracy",
        "wasted_prefetch_pages",
        "peak_cache_pages",
        "activated_pages",
        "deactivated_pages",
    }
)

#: Streams and disks beyond this many are summarised (slowest, fastest, mean).
COMPACT_LIMIT = 8


def fmt_number(value: float | int | None) -> str:
    """A number with about four significant digits, integers exact, thousands unseparated; "—"
    for None (a mean or ratio over nothing: no request, nothing prefetched)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if math.isnan(value) or math.isinf(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = abs(value)
    if magnitude >= 1000:
        return f"{value:.0f}"
    if magnitude >= 1:
        return f"{value:.{max(0, 3 - int(math.log10(magnitude)))}f}"
    return f"{value:.4g}"


def fmt_bytes(n: int) -> str:
    """A byte count as the largest binary unit it is a whole multiple of (``"128 KiB"``)."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} B"


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], align: str = "", indent: str = "  ") -> str:
    """Aligns columns: ``align[i]`` is ``"l"`` or ``"r"`` (default: first column left, the rest right)."""
    align = align or "l" + "r" * (len(headers) - 1)
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        pairs = zip(cells, widths, strict=True)
        parts = [c.ljust(w) if align[i] == "l" else c.rjust(w) for i, (c, w) in enumerate(pairs)]
        return (indent + "  ".join(parts)).rstrip()

    out = [line(headers), indent + "  ".join("-" * w for w in widths)]
    out.extend(line(r) for r in rows)
    return "\n".join(out)


def _plain(x: float) -> str:
    """A parameter as written: ``250``, ``262.1``, ``0.5`` (at most 4 significant digits)."""
    return f"{x:.0f}" if abs(x) >= 1e4 or x == int(x) else f"{x:.4g}"


def describe_device(config: dict[str, Any]) -> str:
    """The member device that was simulated, as the run's header names it: every word of the
    header about the device comes from here (so, e.g., where a preset's figures come from can
    be added in this one place).

    An HDD is its drive: the preset's name (``cheetah-15k5``) or the DiskSim file's name, with
    "datasheet" for a preset built from datasheet figures alone, "drive cache off", the queue
    depth the host keeps when set, and the DiskSim overrides when there are any. An SSD is its parameters:
    ``SSD (8 channels, per channel 250 MB/s read, 80 MB/s write; latency 80 µs read, 200 µs
    write; 80 GB)``, rates and sizes in decimal MB/GB as the metrics are.
    """
    d = config["disk"]
    if d["kind"] == "ssd":
        s = config["ssd"]
        read_mb_s, write_mb_s = _plain(s["read_bandwidth"] / 1e6), _plain(s["write_bandwidth"] / 1e6)
        rates = f"per channel {read_mb_s} MB/s read, {write_mb_s} MB/s write"
        latency = (
            f"latency {_plain(s['read_latency'] / 1e3)} µs read, {_plain(s['write_latency'] / 1e3)} µs write"
        )
        channels = f"{s['channels']} channel{'s' if s['channels'] != 1 else ''}"
        return f"SSD ({channels}, {rates}; {latency}; {_plain(s['capacity'] / 1e9)} GB)"
    model = str(d["model"])
    name = PurePath(model).name if "/" in model or "\\" in model else model
    from prefetchlab._engine import preset_info

    info = preset_info(model)
    notes = ["datasheet"] if info is not None and info["kind"] == "datasheet" else []
    notes += [] if d.get("cache", True) else ["drive cache off"]
    if d.get("queue_depth", 0):
        notes.append(f"queue depth {d['queue_depth']}")
    overrides = sorted(d.get("overrides", {}).items())
    notes += [f"{k}={_plain(v)}" for k, v in overrides]
    notes += _interface_note(model, overrides)
    return name + (f" ({', '.join(notes)})" if notes else "")


def _interface_note(model: str, overrides: list[tuple[str, float]]) -> list[str]:
    """A note when the drive's host interface is slower than its platters: slower than every
    zone's rate, the drive streams at the interface's rate everywhere, as the validated drives
    of the 1990s do with their measuring rigs' buses (the Atlas 10K's 0.099 ms per sector is
    5.2 MB/s); between the innermost and outermost zones' rates, in the outer zones only. The
    media rates are per revolution (switches left out). `disk.overrides`
    `"Bulk sector transfer time"` sets another interface. No note when the model cannot be
    read (the run itself reports that)."""
    from prefetchlab._engine import PrefetchlabError, drive_facts

    try:
        r = drive_facts(model, [(k, float(v)) for k, v in overrides])
    except PrefetchlabError:
        return []
    note = interface_bound(r["interface_mb_s"], r["media_inner_mb_s"], r["media_outer_mb_s"])
    return [f"host interface {r['interface_mb_s']:.1f} MB/s, {note}"] if note else []


def interface_bound(interface_mb_s: float | None, inner_mb_s: float, outer_mb_s: float) -> str:
    """What a drive's host interface bounds, said after its rate: ``""`` when nothing (no
    interface time, or one at least as fast as the outermost zone), else which zones it is
    slower than, with their rates per revolution."""
    if interface_mb_s is None or interface_mb_s >= outer_mb_s:
        return ""
    if interface_mb_s >= inner_mb_s:
        return f"slower than its outer zones ({outer_mb_s:.1f} MB/s at most, per revolution)"
    return f"slower than its media ({inner_mb_s:.1f}-{outer_mb_s:.1f} MB/s per revolution)"


def describe_scheduler(config: dict[str, Any]) -> str:
    """The member queues' I/O scheduler as the run's header names it: ``scheduler cfq``, with
    what of later kernels' CFQ is on: ``(low_latency)`` when it scales its slices
    (``disk.cfq_low_latency``), ``(sync-noidle tree)`` when a queue without an idle window
    does not keep the disk while its reads are in flight (``disk.cfq_noidle_tree``)."""
    d = config["disk"]
    on = [
        name
        for key, name in (("cfq_low_latency", "low_latency"), ("cfq_noidle_tree", "sync-noidle tree"))
        if d.get(key)
    ]
    return f"scheduler {d['scheduler']}" + (f" ({', '.join(on)})" if on else "")


def fmt_duration_ns(ns: int) -> str:
    """A duration with its unit: ``5 ns``, ``250 µs``, ``2.5 s``."""
    for unit, scale in (("s", 10**9), ("ms", 10**6), ("µs", 10**3)):
        if ns >= scale:
            return f"{ns / scale:g} {unit}"
    return f"{ns} ns"


def describe_config(config: dict[str, Any]) -> str:
    """One line saying what was simulated (and the run's time limit, when it has one: a bare
    integer is nanoseconds, so ``run.duration = 5`` is 5 ns and the header shows it)."""
    line = _describe_config(config)
    duration = config.get("run", {}).get("duration", 0)
    return f"{line}; stopped at run.duration {fmt_duration_ns(duration)}" if duration else line


def _describe_config(config: dict[str, Any]) -> str:
    a, ra, w = config["array"], config["readahead"], config["workload"]
    topo = config.get("topology", {})
    if topo.get("nodes"):
        return _describe_topology(config)
    device = describe_device(config)
    if a["layout"] == "single":
        array = f"one {device}"
    else:
        array = f"{a['layout']} of {a['disks']} × {device}, strip {fmt_bytes(a['strip'])}"
    if a.get("io_context") == "driver":
        array += ", member I/O in the driver's context"
    array += f", {describe_scheduler(config)}"
    if ra["policy"] == "linux":
        readahead = f"readahead linux {ra['variant']} max {fmt_bytes(ra['max'])}"
    elif ra["policy"] == "saseqp":
        base = config.get("saseqp", {}).get("base", "linux")
        on = "linux 2.6.18" if base == "linux" else "seqp"
        readahead = f"readahead saseqp on {on}, max {fmt_bytes(ra['max'])}"
    elif ra["policy"] in ("sara-basic", "sara-extended"):
        # the resolved configuration holds SARA's strip and factor, given or computed
        s = config["sara"]
        strip = s["strip_kb"] << 10
        readahead = f"readahead {ra['policy']} max {fmt_bytes(ra['max'])}, strip {fmt_bytes(strip)}"
        if ra["policy"] == "sara-extended":
            readahead += (
                f", large max {fmt_bytes(strip * s['factor'])} while pending I/Os per disk "
                f"<= {s.get('threshold', 32):g}"
            )
    else:
        readahead = f"readahead {ra['policy']}"
    if w["kind"] == "trace":
        c = config["array_cache"]
        cache = (
            f"array cache {fmt_bytes(c['size'])} in {fmt_bytes(c['block'])} blocks, LRU, "
            f"prefetch {c['prefetch']}, {c['write_policy']}"
            if c["size"]
            else "no array cache"
        )
        trace = f"trace {PurePath(w['path']).name} ({w['format']})"
        if config.get("run", {}).get("mode") == "cache-only":
            return f"cache-only; {cache}; {trace}"
        speed = f" × {w['speed']:g}" if w["speed"] != 1 and w["replay"] == "open" else ""
        fragments = f", {w['fragments']} time-shifted fragments" if w["fragments"] > 1 else ""
        return f"{array}; {cache}; {trace}, {w['replay']} loop{speed}{fragments}"
    io = "O_DIRECT " if w["direct"] else ""
    if w["kind"] in ("webserver", "fileserver"):
        workload = (
            f"{w['kind']} {w['streams']} thread(s), {w['files']} files of {fmt_bytes(w['file_size'])} "
            f"on average, {io}record {fmt_bytes(w['record'])}"
        )
        if w.get("log_append"):
            workload += f", log appends up to {fmt_bytes(w['log_append'])} every 10 files"
    else:
        workload = (
            f"{w['kind']} {w['streams']} stream(s) × {fmt_bytes(w['file_size'])}, "
            f"{io}record {fmt_bytes(w['record'])}"
        )
    fs = config.get("fs", {})
    aging = fs.get("aging", {})
    if aging.get("ops"):
        workload += (
            f"; files written on a volume aged by {aging['ops']:,} create/delete operations of "
            f"{fmt_bytes(aging['file_size'])} files at {aging['fill']:.0%} full"
        )
    elif fs.get("layout") == "fragmented":
        workload += f"; files fragmented (layout score {fs['layout_score']:g})"
    if fs.get("placement") == "mballoc":
        workload += "; files placed as ext4's mballoc places a file written back while open"
    memory = f"memory {fmt_bytes(config['host']['memory'])}"
    if config["host"].get("readahead_alloc") == "fail":
        memory += " (a readahead window ends where it finds no room)"
    if config["host"].get("reclaim") == "lru":
        memory += " (LRU reclaim: every read moves a page to the head of one list)"
    return f"{array}; {readahead}; {workload}; {memory}"


def _describe_topology(config: dict[str, Any]) -> str:
    """One line for a ``[topology]`` run: nodes and tiers, network, policy, hinted sequence."""
    topo, w, inf = config["topology"], config["workload"], config["informed"]

    def tier(t: dict[str, Any]) -> str:
        if t["kind"] == "hdd":
            return f"HDD {t['model']}"
        return f"{t['read_bandwidth'] / 1e6:g} MB/s device"

    nodes = "; ".join(
        f"{n['count']} node(s) of {tier(n['upper'])} over {tier(n['lower'])}" for n in topo["nodes"]
    )
    net = topo["network"]
    policy = inf["policy"]
    if policy != "none":
        policy += f" X_cache {inf['x_cache'] or 'by cost and benefit'}"
        if inf.get("hint_fraction", 1.0) < 1.0:
            policy += f", {inf['hint_fraction']:g} of the reads hinted"
        if inf["policy"] == "ipods":
            policy += f" Max_BW {inf['max_bw'] or 'nodes'}"
    hints = (
        f"trace {PurePath(w['path']).name}"
        if w["kind"] == "trace"
        else f"{w['kind']} over {fmt_bytes(w['file_size'])}"
    )
    clients = topo["clients"]  # the engine's resolved config has the default client when none is given
    count = sum(c.get("count", 1) for c in clients)
    caches = ", ".join(sorted({fmt_bytes(c["cache"]) for c in clients}))
    who = f"{count} client(s) with {caches} of cache each"
    return (
        f"topology: {who}; {nodes}; blocks of {fmt_bytes(topo['block'])}; "
        f"links {net['bandwidth'] / 1e6:g} MB/s, {net['latency'] / 1e3:g} µs; "
        f"informed {policy}, T_unit {inf['t_cpu'] / 1e9:g} s; hinted {hints}"
    )


def summary_table(report: Report) -> str:
    """The scalar metrics, one per row, with units."""
    # past the latencies the engine keeps one by one, its percentiles are bucket floors 0.1 % apart
    binned = (report.metrics.get("latency_samples") or 0) > EXACT_LATENCIES
    has_array_cache = bool(report.config.get("array_cache", {}).get("size", 0))
    has_writes = bool(report.metrics.get("writes"))
    topology = bool(report.config.get("topology", {}).get("nodes"))
    cache_only = report.config.get("run", {}).get("mode") == "cache-only"
    # a block trace (recorded below a page cache) and O_DIRECT reads meet the array cache first
    array_first = _is_trace(report.config) or bool(report.config.get("workload", {}).get("direct"))
    rows: list[list[str]] = []
    shown: set[str] = set()
    for key, label, unit, scale in SUMMARY_ROWS:
        shown.add(key)
        value = report.metrics.get(key)
        if value is None and (cache_only or key not in report.metrics):
            continue  # not measured by this run's mode (cache-only: no clock, no disks)
        if topology != (key in _TOPOLOGY_KEYS) and (
            topology or key in ("elapsed_s", "stall_s", "ssd_hits", "hdd_reads")
        ):
            continue
        if topology and key == "hit_ratio":
            rows.append(["client-cache hit ratio (block there when due)", fmt_number(value), ""])
            continue
        if key == "trace_records_skipped" and not report.config.get("workload", {}).get("skip_bad"):
            continue  # bad records are an error unless the run may skip some
        if key in ("layout_score", "mean_file_extents") and not report.metrics.get("mean_file_extents"):
            continue  # no files (a trace, a cache-only run)
        if (key in _ARRAY_CACHE_KEYS and not has_array_cache) or (key in _WRITE_KEYS and not has_writes):
            continue
        if key in ("activated_pages", "deactivated_pages") and report.config["host"].get("reclaim") == "lru":
            continue  # one list: nothing to move between lists
        if key in _PAGE_CACHE_KEYS and array_first:
            if key != "prefetch_accuracy" or not has_array_cache:  # then it is the array cache's
                continue
        if key == "hit_ratio":
            label = "page-cache hit ratio"
            if array_first:
                continue  # the same figure as array_cache_hit_ratio
        if binned and key in ("latency_p50_ms", "latency_p95_ms", "latency_p99_ms"):
            unit = "ms (to 0.1 %: over 2^24 requests)"
        if value is None:  # a mean or ratio over nothing (nothing prefetched, no request timed)
            rows.append([label, fmt_number(None), "(nothing to measure)"])
            continue
        rows.append([label, fmt_number(value * scale if scale != 1.0 else value), unit])
    # the figures a policy keeps in its state (JSON text), those it has
    states = [("readahead_policy_state", _READAHEAD_STATE)]
    if topology:
        states.insert(0, ("block_policy_state", _TOPOLOGY_STATE))
    for metric, known in states:
        state = json.loads(report.metrics.get(metric) or "{}")
        rows += [
            [label, fmt_number(state[key]), unit] for key, label, unit in known if state.get(key) is not None
        ]
    # Figures the engine reports that this table does not know yet: shown by name.
    for key, value in report.metrics.items():
        if key not in shown and isinstance(value, int | float):
            rows.append([key, fmt_number(value), ""])
    return render(["metric", "value", "unit"], rows, align="lrl")


def _is_trace(config: dict[str, Any]) -> bool:
    """A block-trace run: it enters the stack at the array, below any page cache."""
    return bool(config.get("workload", {}).get("kind") == "trace")


def _compact(
    items: list[dict[str, Any]], by: str, cells: Callable[[dict[str, Any]], list[str]], what: str
) -> tuple[list[list[str]], str]:
    """All rows when few; else the rows of the smallest and largest ``by`` and a mean row."""
    if len(items) <= COMPACT_LIMIT:
        return [cells(i) for i in items], ""
    lo = min(items, key=lambda i: i[by])
    hi = max(items, key=lambda i: i[by])
    mean: dict[str, Any] = {}
    for key, value in items[0].items():
        if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
            xs = [float(i[key]) for i in items if i[key] is not None]  # None: a mean over nothing
            mean[key] = math.fsum(xs) / len(xs) if xs else None
    rows = [cells(lo), cells(hi), cells(mean)]
    rows[2][0] = "mean"
    note = f"  ({len(items)} {what}: lowest and highest {by}, and the mean; --json lists all)"
    return rows, note


def streams_table(report: Report) -> str:
    """Per stream: requests, data, bandwidth, mean latency, finish time."""

    def cells(s: dict[str, Any]) -> list[str]:
        return [
            str(s["stream"]) if isinstance(s["stream"], int) else fmt_number(s["stream"]),
            fmt_number(round(s["requests"])),
            fmt_number(s["bytes_read"] / 1e6),
            fmt_number(s["bandwidth_mb_s"]),
            fmt_number(s["latency_mean_ms"]),
            fmt_number(s["finish_time_s"]),
        ]

    rows, note = _compact(report.streams, "bandwidth_mb_s", cells, "streams")
    table = render(["stream", "requests", "MB", "MB/s", "latency ms", "finish s"], rows)
    return table + ("\n" + note if note else "")


def disks_table(report: Report) -> str:
    """Per member disk: requests, data, utilisation, seek distance, drive-cache hits, queue wait."""

    def cells(d: dict[str, Any]) -> list[str]:
        return [
            str(d["disk"]) if isinstance(d["disk"], int) else fmt_number(d["disk"]),
            fmt_number(round(d["requests"])),
            fmt_number(d["sectors"] * 512 / 1e6),
            fmt_number(d["utilization"] * 100.0),
            fmt_number(d["mean_seek_distance_cyl"]),
            fmt_number(round(d["cache_hits"])),
            fmt_number(d["mean_queue_wait_ms"]),
        ]

    rows, note = _compact(report.disks, "utilization", cells, "disks")
    headers = ["disk", "requests", "MB", "util %", "seek cyl", "cache hits", "queue wait ms"]
    return render(headers, rows) + ("\n" + note if note else "")


def full_summary(report: Report, title: str) -> str:
    """Everything ``prefetchlab run`` prints."""
    parts = [
        f"prefetchlab {report.version} — {title}",
        "  " + describe_config(report.config),
        "",
        summary_table(report),
    ]
    if report.streams:
        parts += ["", "per stream", streams_table(report)]
    if report.disks:
        parts += ["", "per disk", disks_table(report)]
    return "\n".join(parts)
