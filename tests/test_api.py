"""Using the Python API: ``prefetchlab.simulate(config) -> Report``."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import prefetchlab
from prefetchlab import IO_LOG_COLUMNS, Report

from .helpers import SMALL_FILE_BYTES, SMALL_STREAMS, SMALL_TOML, simulated


def test_dict_toml_text_and_path_give_the_same_run(small_config: Path) -> None:
    as_dict = prefetchlab.simulate(tomllib.loads(SMALL_TOML))
    as_text = prefetchlab.simulate(SMALL_TOML)
    as_path = prefetchlab.simulate(small_config)
    as_str_path = prefetchlab.simulate(str(small_config))
    for other in (as_text, as_path, as_str_path):
        assert simulated(other.metrics) == simulated(as_dict.metrics)
        assert other.config == as_dict.config
        assert other.streams == as_dict.streams
        assert other.disks == as_dict.disks
    assert as_dict.metrics["bytes_read"] == SMALL_STREAMS * SMALL_FILE_BYTES


def test_a_string_naming_a_file_is_a_path_whatever_its_name(tmp_path: Path) -> None:
    """A one-line string naming a file is read as its path, though it lacks ``.toml`` or its
    folders hold an ``=`` (a hive-style ``sweep=1/``); one with no ``=`` that names nothing is
    a missing file, not TOML text; one-line TOML text with ``=`` stays text."""
    text = SMALL_TOML.replace("streams = ", "streams = 1 # ")
    for name in ("sweep=1/cfg.toml", "cfg.cfg", "plain"):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        assert prefetchlab.resolve(str(path))["workload"]["streams"] == 1
    for name in ("missing.cfg", "sweep=2/missing.toml"):
        with pytest.raises(prefetchlab.PrefetchlabError, match=f"{name}: cannot read: No such file"):
            prefetchlab.resolve(str(tmp_path / name))
    with pytest.raises(prefetchlab.PrefetchlabError, match="cannot read: Is a directory"):
        prefetchlab.resolve(str(tmp_path))
    assert prefetchlab.resolve("workload.streams = 3")["workload"]["streams"] == 3


def test_same_seed_same_metrics() -> None:
    a = prefetchlab.simulate(SMALL_TOML, ["workload.kind=random", "workload.requests=40"])
    b = prefetchlab.simulate(SMALL_TOML, ["workload.kind=random", "workload.requests=40"])
    assert simulated(a.metrics) == simulated(b.metrics)
    assert a.streams == b.streams and a.disks == b.disks
    assert a.metrics["app_requests"] == SMALL_STREAMS * 40


def test_sets_override_the_configuration() -> None:
    r = prefetchlab.simulate(SMALL_TOML, ["workload.streams=2", "array.layout=raid5", "array.disks=4"])
    assert r.config["workload"]["streams"] == 2
    assert r.config["array"]["layout"] == "raid5"
    assert len(r.streams) == 2 and len(r.disks) == 4


def test_one_override_may_be_a_string_and_values_json_lacks_name_their_key() -> None:
    assert prefetchlab.resolve({}, "workload.streams=3")["workload"]["streams"] == 3
    for value, words in [
        (float("nan"), "expected a finite number, got nan"),
        (2**70, "does not fit in 64 bits"),
        (b"x", "got bytes"),
    ]:
        with pytest.raises(prefetchlab.PrefetchlabError, match=words) as e:
            prefetchlab.resolve({"workload": {"streams": value}})
        assert "`workload.streams`" in str(e.value)
        # raised on the Python side, it has the parts an engine error has
        assert (e.value.kind, e.value.key) == ("config", "workload.streams")
        assert e.value.detail is not None and words in e.value.detail


def test_an_engine_error_carries_its_kind_key_and_detail(cheetah: Path) -> None:
    # the one-line message, and its parts, so that a caller need not parse the text
    with pytest.raises(prefetchlab.PrefetchlabError) as e:
        prefetchlab.resolve({"host": {"reclaim": "lru", "list_balance": "proportional"}})
    assert (e.value.kind, e.value.key) == ("config", "host.list_balance")
    assert str(e.value) == f"config key `host.list_balance`: {e.value.detail}"
    spec, trace = str(cheetah / "Seagate-Cheetah15k5.parv"), str(cheetah / "random.trace")
    with pytest.raises(prefetchlab.PrefetchlabError) as e:
        prefetchlab.validate_disk(spec, trace, {"No such parameter": 1.0})
    assert (e.value.kind, e.value.key) == ("override", None)
    assert str(e.value) == f"DiskSim override {e.value.detail}"
    with pytest.raises(prefetchlab.PrefetchlabError) as e:
        prefetchlab.validate_disk(spec, "/no/such/trace")
    assert (e.value.kind, e.value.key, e.value.detail) == ("input", None, str(e.value))
    # an error raised without its parts (the command line's own) has None for each
    bare = prefetchlab.PrefetchlabError("--to: unknown output format")
    assert (bare.kind, bare.key, bare.detail) == (None, None, None)


def test_resolve_fills_in_defaults_without_running() -> None:
    cfg = prefetchlab.resolve({"workload": {"streams": 4}})
    assert cfg["workload"]["streams"] == 4
    assert cfg["array"] == {
        "layout": "single",
        "disks": 1,
        "strip": 128 << 10,
        "raid6_write": "cheaper",
        "io_context": "caller",
    }
    assert cfg["readahead"] == {"policy": "linux", "variant": "3.10", "max": 128 << 10}
    assert cfg["host"]["memory"] == 1 << 30


def test_resolve_gives_the_values_computed_from_other_keys_and_reads_back_the_same() -> None:
    # md's readahead, SARA's strip and factor, FA's trigger: the values the run uses where they apply
    raid5 = ["array.layout=raid5", "array.disks=5", "array.strip=64KiB"]
    sara = prefetchlab.resolve({}, [*raid5, "readahead.policy=sara-extended"])
    assert (sara["sara"]["strip_kb"], sara["sara"]["factor"], sara["readahead"]["max"]) == (64, 8, 64 << 10)
    fa = prefetchlab.resolve({"array_cache": {"size": "1MiB", "prefetch": "fa", "p": 64}}, raid5)
    assert fa["array_cache"]["g"] == 31 and fa["readahead"]["max"] == 2 * 4 * (64 << 10)
    web = prefetchlab.resolve({"workload": {"kind": "webserver"}})
    assert web["workload"]["log_append"] == 16 << 10
    # left out where they do not apply, unless given
    assert "factor" not in fa["sara"] and "strip_kb" not in fa["sara"] and "g" not in sara["array_cache"]
    assert "log_append" not in sara["workload"], "only a webserver has a log"
    given = prefetchlab.resolve({"sara": {"factor": 3, "strip_kb": 32}, "array_cache": {"g": 5}}, raid5)
    assert (given["sara"]["factor"], given["sara"]["strip_kb"], given["array_cache"]["g"]) == (3, 32, 5)
    for c in (sara, fa, web, given):
        assert prefetchlab.resolve(c) == c, "resolving a resolved configuration changes nothing"


def test_report_to_dict_is_the_report_json() -> None:
    r = prefetchlab.simulate(SMALL_TOML)
    d = r.to_dict()
    assert list(d) == ["version", "config", "metrics", "streams", "disks"]
    assert d["metrics"] is r.metrics and d["version"] == prefetchlab.engine_version


def test_io_log_is_an_arrow_table_when_asked_for() -> None:
    r = prefetchlab.simulate(SMALL_TOML, ["output.io_log=true"])
    log = r.io_log
    assert isinstance(log, pa.Table)
    assert log.column_names == [name for name, _ in IO_LOG_COLUMNS]
    for name, dtype in IO_LOG_COLUMNS:
        assert log.schema.field(name).type == dtype, name
    assert log.num_rows > 0
    events = log.column("event").to_pylist()
    known = {
        "window_sync",
        "window_async",
        "page_read",
        "block_request",
        "disk_dispatch",
        "disk_complete",
        "array_prefetch",
    }
    assert set(events) <= known
    assert events.count("disk_dispatch") == r.metrics["disk_requests"]
    assert events.count("disk_complete") == r.metrics["disk_requests"]
    times = log.column("time_ns").to_pylist()
    assert times == sorted(times)
    assert max(times) <= round(r.metrics["sim_time_s"] * 1e9) + 1
    # Disk rows name a member disk and a sector range; other rows have nulls there.
    is_disk = pc.is_in(log.column("event"), pa.array(["disk_dispatch", "disk_complete"]))
    disk_rows = log.filter(is_disk)
    other_rows = log.filter(pc.invert(is_disk))
    assert disk_rows.column("disk").null_count == 0
    assert pc.min(disk_rows.column("disk")).as_py() >= 0
    assert pc.max(disk_rows.column("disk")).as_py() < len(r.disks)
    assert pc.min(disk_rows.column("sectors")).as_py() > 0
    assert other_rows.column("disk").null_count == other_rows.num_rows
    # Disk rows together carry the sectors the disks read (each once dispatched).
    dispatched = log.filter(pc.equal(log.column("event"), "disk_dispatch"))
    assert pc.sum(dispatched.column("sectors")).as_py() == r.metrics["disk_sectors"]
    # A block request of file pages names the file and its first page; one of an
    # indirect block (each file past 48 KiB has one) names neither.
    requests = log.filter(pc.equal(log.column("event"), "block_request")).to_pylist()
    fills = [row for row in requests if row["file"] is not None]
    assert all(row["page"] is not None and 0 <= row["file"] < SMALL_STREAMS for row in fills)
    assert {row["file"] for row in fills} == set(range(SMALL_STREAMS))
    assert sum(row["pages"] for row in fills) == 3 * 512  # every page of the three 2 MiB files, once
    assert len(requests) - len(fills) == SMALL_STREAMS
    assert all(row["page"] is None and row["pages"] == 1 for row in requests if row["file"] is None)


def test_io_log_is_none_by_default() -> None:
    assert prefetchlab.simulate(SMALL_TOML).io_log is None
    assert prefetchlab.simulate(SMALL_TOML, ["output.io_log=false"]).io_log is None


class _Stop(Exception):
    pass


#: Enough events for progress reports (one every 65,536 events): 65,536 requests of one page.
_LONG_SETS = ["workload.streams=8", "workload.record=4KiB", "workload.file_size=32MiB"]


def test_progress_is_reported_and_can_stop_a_run() -> None:
    seen: list[tuple[float, float, int, int]] = []

    def progress(sim_s: float, duration_s: float, done: int, total: int) -> None:
        seen.append((sim_s, duration_s, done, total))

    r = prefetchlab.simulate(SMALL_TOML, _LONG_SETS, progress=progress)
    assert seen, "no progress report"
    assert all(total == r.metrics["app_requests"] == 8 * 8192 for _, _, _, total in seen)
    assert all(0 <= done <= total and duration == 0.0 for _, duration, done, total in seen)
    sims = [s for s, _, _, _ in seen]
    assert sims == sorted(sims) and sims[-1] <= r.metrics["sim_time_s"]

    def stop(*_: object) -> None:
        raise _Stop

    with pytest.raises(_Stop):
        prefetchlab.simulate(SMALL_TOML, _LONG_SETS, progress=stop)


def test_report_is_a_dataclass_of_plain_values() -> None:
    r = prefetchlab.simulate(SMALL_TOML)
    assert isinstance(r, Report)
    text = {k for k, v in r.metrics.items() if not isinstance(v, int | float | None)}
    assert text == {"block_policy_state", "readahead_policy_state"}
    # a figure over nothing is None, not 0: this run has no array cache
    assert r.metrics["array_cache_hit_ratio"] is None and r.metrics["hit_ratio"] is not None
    assert r.policy_state() == {} and r.readahead_state() == {}
    assert r.version == prefetchlab.engine_version


def test_validate_disk_takes_overrides_as_pairs_or_a_mapping(cheetah: Path) -> None:
    spec = str(cheetah / "Seagate-Cheetah15k5.parv")
    trace = str(cheetah / "random.trace")
    plain = prefetchlab.validate_disk(spec, trace)
    pairs = prefetchlab.validate_disk(spec, trace, [("Read miss over. after read", 2.0)])
    mapping = prefetchlab.validate_disk(spec, trace, {"Read miss over. after read": 2.0})
    # the override reaches the drive (a 2 ms miss overhead moves the mean) the same either way
    assert mapping["mean_sim_ms"] == pairs["mean_sim_ms"] != plain["mean_sim_ms"]
    assert mapping["rms_ms"] == pairs["rms_ms"]
