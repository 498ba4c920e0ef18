"""Configuration values that make no sense: each is one line naming the key and what was
expected (exit code 2 on the command line, :class:`prefetchlab.PrefetchlabError` through the
API) — and the values that used to be refused or mangled but are fine (PiB sizes, DiskSim
parameter names with dots in ``--set``) now run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prefetchlab
from prefetchlab import PrefetchlabError

from .helpers import SMALL_TOML, assert_one_line_error, run_cli

#: ``--set`` overrides on :data:`SMALL_TOML` that must be refused, and words the one-line
#: message must hold (the key first).
REFUSED: dict[str, tuple[list[str], tuple[str, ...]]] = {
    # the array-cache schemes (issue 10)
    "a degree of prefetch of 0": (
        ["array_cache.size=1MiB", "array_cache.prefetch=fs", "array_cache.p=0"],
        ("`array_cache.p`", "at least 1 block", "got 0"),
    ),
    "a trigger outside its set": (
        ["array_cache.size=1MiB", "array_cache.prefetch=fa", "array_cache.p=8", "array_cache.g=8"],
        ("`array_cache.g`", "0 <= g < p = 8", "got g = 8"),
    ),
    "a videoserver rate meant in other units": (
        ["workload.kind=videoserver", "workload.rate=250"],
        ("`workload.rate`", "at least 1000 bytes per second", "got 250", '"250KB"'),
    ),
    "an LSP window of 0": (
        ["array_cache.size=1MiB", "array_cache.prefetch=lsp", "array_cache.lsp.window=0"],
        ("`array_cache.lsp.window`", "at least 1 request", "got 0"),
    ),
    "strip prefetching without strips": (
        ["array.layout=single", "array.disks=1", "array_cache.size=1MiB", "array_cache.prefetch=sp"],
        ("`array_cache.prefetch`", "sp prefetches whole strips", "striped array", "single"),
    ),
    "LSP without strips": (
        ["array.layout=single", "array.disks=1", "array_cache.size=1MiB", "array_cache.prefetch=lsp"],
        ("`array_cache.prefetch`", "lsp prefetches whole strips"),
    ),
    "an unknown scheme": (
        ["array_cache.size=1MiB", "array_cache.prefetch=amp2"],
        ("`array_cache.prefetch`", "unknown variant `amp2`", "`amp`", "`lsp`"),
    ),
    "CFQ's low_latency without CFQ": (
        ["disk.scheduler=deadline", "disk.cfq_low_latency=true"],
        ("`disk.cfq_low_latency`", 'disk.scheduler = "cfq"', '"deadline"'),
    ),
    "CFQ's sync-noidle tree without CFQ": (
        ["disk.scheduler=anticipatory", "disk.cfq_noidle_tree=true"],
        ("`disk.cfq_noidle_tree`", 'disk.scheduler = "cfq"', '"anticipatory"'),
    ),
    "an I/O context neither caller nor driver": (
        ["array.io_context=thread"],
        ("`array.io_context`", "unknown variant `thread`", "`caller`", "`driver`"),
    ),
    "a scheme without an array cache": (
        ["array_cache.prefetch=amp"],
        ("`array_cache.prefetch`", "array_cache.size"),
    ),
    "a largest degree of 0": (
        ["array_cache.size=1MiB", "array_cache.prefetch=amp", "array_cache.max_degree=0"],
        ("`array_cache.max_degree`", "at least 1 block"),
    ),
    "an AMP second chance neither last nor any": (
        ["array_cache.size=1MiB", "array_cache.prefetch=amp", "array_cache.amp.second_chance=all"],
        ("`array_cache.amp.second_chance`", "`last`", "`any`"),
    ),
    "an ASP step of 0": (
        ["array_cache.size=1MiB", "array_cache.prefetch=asp", "array_cache.asp.delta=0"],
        ("`array_cache.asp.delta`", "at least 1 block"),
    ),
    # MSP (issue 8)
    "an MSP threshold SC never reaches": (
        ["array_cache.size=1MiB", "array_cache.prefetch=msp", "msp.sc_thresh=9", "msp.sc_max=8"],
        ("`msp.sc_thresh`", "sc_max = 8", "got sc_thresh = 9"),
    ),
    "MSP reading no stripe ahead": (["msp.stripes_ahead=0"], ("`msp.stripes_ahead`", "1 to 64")),
    "MSP on a single disk": (
        ["array.layout=single", "array.disks=1", "array_cache.size=1MiB", "array_cache.prefetch=msp"],
        ("`array_cache.prefetch`", "msp prefetches whole strips", "striped array"),
    ),
    # informed prefetching (issue 11)
    "TIP on a workload without hints": (
        ["array_cache.size=1MiB", "informed.policy=tip"],
        ("`informed.policy`", 'workload.kind = "trace"', "closed"),
    ),
    "an informed policy not known": (["informed.policy=oracle"], ("`informed.policy`", "`tip`")),
    "no reads hinted": (["informed.hint_fraction=0"], ("`informed.hint_fraction`", "within (0, 1]", "got 0")),
    "more prefetch buffers than allowed": (
        ["informed.x_cache=100000"],
        ("`informed.x_cache`", "at most 4096"),
    ),
    "a TaP table of no entries": (
        ["array_cache.size=1MiB", "array_cache.prefetch=tap", "array_cache.tap.table=0"],
        ("`array_cache.tap.table`", "at least 1 entry", "got 0"),
    ),
    "a TaP step of no cache": (
        ["array_cache.size=1MiB", "array_cache.prefetch=tap", "array_cache.tap.step=0"],
        ("`array_cache.tap.step`", "within (0, 1]", "got 0"),
    ),
    "a TaP threshold above 1": (
        ["array_cache.size=1MiB", "array_cache.prefetch=tap", "array_cache.tap.threshold=2"],
        ("`array_cache.tap.threshold`", "within 0 to 1", "got 2"),
    ),
    "SSD bandwidth of 0": (
        ["disk.kind=ssd", "ssd.read_bandwidth=0"],
        ("`ssd.read_bandwidth`", "at least 1000000 bytes per second", "got 0"),
    ),
    "SSD bandwidth of 0 on an HDD run": (["ssd.write_bandwidth=0"], ("`ssd.write_bandwidth`",)),
    "SSD latency over a second": (["ssd.read_latency=2s"], ("`ssd.read_latency`", "at most 1s")),
    "no SSD channel": (["ssd.channels=0"], ("`ssd.channels`", "1 to 1024")),
    "size beyond 64 bits": (["host.memory=16EiB"], ("`host.memory`", "does not fit in 64 bits of bytes")),
    "duration beyond 64 bits": (
        ["workload.think_time=3e10 s"],
        ("`workload.think_time`", "3e10 s", "about 292 years"),
    ),
    "duration float beyond the clock": (["workload.think_time=2e19"], ("`workload.think_time`", "292 years")),
    "think times past the clock": (
        ["workload.think_time=1e18"],
        ("`workload.think_time`", "32 requests per stream", "146 years"),
    ),
    "a duration string without unit": (['run.duration="5"'], ("`run.duration`", "unit")),
    "huge nr_requests": (
        ["block.nr_requests=4000000000"],
        ("`block.nr_requests`", "4 to 10240", "4000000000"),
    ),
    "nr_requests as a float": (["block.nr_requests=4e9"], ("`block.nr_requests`",)),
    "NaN layout score": (["fs.layout=fragmented", "fs.layout_score=nan"], ("`fs.layout_score`", "NaN")),
    "infinite layout score": (["fs.layout_score=inf"], ("`fs.layout_score`", "0 to 1")),
    "strip not in pages": (["array.strip=6KiB"], ("`array.strip`", "multiple of 4KiB")),
    "readahead max not in pages": (["readahead.max=6KiB"], ("`readahead.max`", "6144")),
    "max_request not in pages": (["block.max_request=6000"], ("`block.max_request`", "4KiB")),
    "max_request over 1 GiB": (["block.max_request=2GiB"], ("`block.max_request`", "1GiB")),
    "memory under a page": (["host.memory=100"], ("`host.memory`", "one 4KiB page")),
    "array cache under a block": (["array_cache.size=1000"], ("`array_cache.size`", "4096-byte block")),
    "array prefetch without a cache": (["array_cache.prefetch=obl"], ("`array_cache.prefetch`",)),
    "array cache block not in sectors": (["array_cache.block=1000"], ("`array_cache.block`", "512")),
    "unknown run mode": (["run.mode=fast"], ("`run.mode`", "cache-only")),
    "cache-only without a trace": (
        ["run.mode=cache-only", "array_cache.size=1MiB"],
        ("`workload.kind`", "trace"),
    ),
    "a trace without its path": (["workload.kind=trace"], ("`workload.path`",)),
    "an unknown trace format": (
        ["workload.kind=trace", "workload.path=t", "workload.format=csv"],
        ("`workload.format`", "spc"),
    ),
    "no stream": (["workload.streams=0"], ("`workload.streams`", "1 to 4096")),
    "too many streams": (["workload.streams=5000"], ("`workload.streams`", "1 to 4096")),
    "unaligned O_DIRECT record": (
        ["workload.direct=true", "workload.record=1000"],
        ("`workload.record`", "512"),
    ),
    "too much file data": (["workload.file_size=400GiB"], ("`workload.file_size`", "1TiB")),
    "file gap not in blocks": (["fs.file_gap=1000"], ("`fs.file_gap`",)),
    "extent gap of 0": (["fs.extent_gap=0"], ("`fs.extent_gap`",)),
    "aging a full volume": (["fs.aging.ops=10", "fs.aging.fill=1.0"], ("`fs.aging.fill`", "0..1")),
    "aging and a layout score": (
        ["fs.aging.ops=10", "fs.layout=fragmented"],
        ("`fs.aging`", "contiguous"),
    ),
    "unknown aging key": (["fs.aging.rounds=10"], ("`fs.aging.rounds`",)),
    "NaN DiskSim override": (
        ['disk.overrides."Read hit over. after read"=nan'],
        ('`disk.overrides."Read hit over. after read"`', "finite"),
    ),
    "a DiskSim override out of its range is the override's": (
        ['disk.overrides."Number of data surfaces"=0'],
        ("`disk.overrides`", "DiskSim override `Number of data surfaces = 0`", "from 1 to 255"),
    ),
    "a negative DiskSim time override": (
        ['disk.overrides."Head switch time"=-1'],
        ("`disk.overrides`", "DiskSim override `Head switch time = -1`", "from 0 to 60000 ms"),
    ),
    "unterminated quote in a --set key": (
        ['disk.overrides."Read hit over=0.2'],
        ("disk.overrides", "unterminated"),
    ),
    "a DiskSim overhead of hours": (
        ['disk.overrides."Per-request overhead time"=1e15'],
        ("Per-request overhead time", "at most 60000 ms"),
    ),
    "a billion cache segments": (
        ['disk.overrides."Number of buffer segments"=4e9'],
        ("Number of buffer segments",),
    ),
    "a DiskSim parameter that does not exist": (
        ["disk.overrides.Bogus=0"],
        ("Bogus",),
    ),
    "quote inside a --set key part": (
        ['disk.overrides.Read "hit"=0.2'],
        ("disk.overrides", "quote the whole part"),
    ),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_cli_names_the_key(name: str, small_config: Path) -> None:
    sets, expected = REFUSED[name]
    args: list[str | Path] = ["run", small_config]
    for s in sets:
        args += ["--set", s]
    assert_one_line_error(run_cli(*args), *expected)


@pytest.mark.parametrize("name", list(REFUSED))
def test_api_names_the_key(name: str) -> None:
    sets, expected = REFUSED[name]
    with pytest.raises(PrefetchlabError) as info:
        prefetchlab.resolve(SMALL_TOML, sets)
    message = str(info.value)
    assert "\n" not in message and "internal error" not in message, message
    for word in expected:
        assert word in message, (word, message)


def _run_json(config: Path, *sets: str) -> dict[str, object]:
    args: list[str | Path] = ["run", config, "--json"]
    for s in sets:
        args += ["--set", s]
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert isinstance(report, dict)
    return report


def test_peta_and_exa_sizes_run(small_config: Path) -> None:
    report = _run_json(small_config, "host.memory=1PiB", "disk.kind=ssd", "ssd.capacity=1.5EiB")
    config = report["config"]
    assert isinstance(config, dict)
    assert config["host"]["memory"] == 1 << 50
    assert config["ssd"]["capacity"] == 3 << 59


def test_disksim_name_with_dots_is_set_by_a_quoted_key(small_config: Path) -> None:
    name = "Read hit over. after read"
    low = _run_json(small_config, f'disk.overrides."{name}"=0.0')
    high = _run_json(small_config, f'disk.overrides."{name}"=5.0')
    config = high["config"]
    assert isinstance(config, dict)
    assert config["disk"]["overrides"] == {name: 5.0}
    # The drive's segment cache serves these sequential readers: a 5 ms overhead per
    # read hit must lengthen the run, so the override reached the drive model. (Not
    # the mean latency: which requests hit, and how long each waits, moves with it.)
    low_metrics, high_metrics = low["metrics"], high["metrics"]
    assert isinstance(low_metrics, dict) and isinstance(high_metrics, dict)
    assert low_metrics["drive_cache_hits"] > 0
    assert high_metrics["sim_time_s"] > low_metrics["sim_time_s"]
    assert high_metrics["bandwidth_mb_s"] < low_metrics["bandwidth_mb_s"]


def test_help_shows_quoted_keys() -> None:
    proc = run_cli("run", "--help")
    assert proc.returncode == 0, proc.stderr
    assert "disk.overrides." in proc.stdout and "quote" in proc.stdout
