"""Running the command line: ``prefetchlab run`` and ``prefetchlab validate-disk``."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import math
import os
import re
import signal
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

import prefetchlab
from prefetchlab import cli
from prefetchlab._table import fmt_number

from .helpers import (
    CHEETAH_OVERRIDES,
    SMALL_DISKS,
    SMALL_FILE_BYTES,
    SMALL_STREAMS,
    SMALL_TOML,
    assert_one_line_error,
    run_cli,
    simulated,
)

REPORT_KEYS = {"version", "config", "metrics", "streams", "disks"}


def _row(stdout: str, label: str) -> list[str]:
    """The cells of the summary row whose label is ``label``."""
    for line in stdout.splitlines():
        if line.strip().startswith(label + "  "):
            return line.strip()[len(label) :].split()
    raise AssertionError(f"no row {label!r} in:\n{stdout}")


def test_console_script_is_installed() -> None:
    script = Path(sys.executable).parent / "prefetchlab"
    assert script.is_file(), "the `prefetchlab` console script is not installed beside the interpreter"
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"prefetchlab {prefetchlab.engine_version}"
    assert re.fullmatch(rf"{re.escape(prefetchlab.__version__)}\+[0-9a-f]{{16}}", prefetchlab.engine_version)


def test_run_json_is_the_report(small_config: Path) -> None:
    proc = run_cli("run", small_config, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert set(report) == REPORT_KEYS
    assert report["version"] == prefetchlab.engine_version
    # The resolved configuration: sizes in bytes, defaults filled in.
    assert report["config"]["array"] == {
        "layout": "raid0",
        "disks": 3,
        "strip": 64 << 10,
        "raid6_write": "cheaper",
        "io_context": "caller",
    }
    assert report["config"]["block"]["nr_requests"] == 128
    m = report["metrics"]
    assert m["bytes_read"] == SMALL_STREAMS * SMALL_FILE_BYTES
    assert m["app_requests"] == SMALL_STREAMS * SMALL_FILE_BYTES // (64 << 10)
    assert m["bandwidth_mb_s"] > 0 and m["sim_time_s"] > 0
    assert [s["stream"] for s in report["streams"]] == list(range(SMALL_STREAMS))
    assert [d["disk"] for d in report["disks"]] == list(range(SMALL_DISKS))


def test_run_json_matches_the_api(small_config: Path) -> None:
    proc = run_cli("run", small_config, "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    api = prefetchlab.simulate(small_config)
    assert simulated(report["metrics"]) == simulated(api.metrics)
    assert report["config"] == api.config


def test_run_prints_a_summary_with_units(small_config: Path) -> None:
    proc = run_cli("run", small_config)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert proc.stderr == ""
    metrics = json.loads(run_cli("run", small_config, "--json").stdout)["metrics"]
    # Each figure in its unit, with the value the report holds.
    assert _row(out, "bandwidth") == [fmt_number(metrics["bandwidth_mb_s"]), "MB/s"]
    assert _row(out, "latency p99") == [fmt_number(metrics["latency_p99_ms"]), "ms"]
    assert _row(out, "disk utilisation (mean)") == [fmt_number(metrics["disk_utilization"] * 100), "%"]
    assert _row(out, "mean seek distance") == [fmt_number(metrics["mean_seek_distance_cyl"]), "cylinders"]
    assert _row(out, "peak page-cache pages") == [str(metrics["peak_cache_pages"]), "pages"]
    assert _row(out, "disk requests") == [str(metrics["disk_requests"])]
    assert _row(out, "simulated time")[1] == "s"
    assert _row(out, "simulated requests per wall second")[1] == "req/s"
    for label in ("IOPS", "latency mean", "latency p50", "latency p95", "page-cache hit ratio"):
        _row(out, label)
    for label in ("prefetch accuracy", "wasted prefetch pages", "request splits", "wall time"):
        _row(out, label)
    assert "raid0 of 3 × cheetah-15k5, strip 64 KiB, scheduler anticipatory;" in out
    # Per-stream and per-disk tables: one row each (3 streams, 3 disks: not compacted).
    stream_part = out.split("per stream\n", 1)[1].split("\n\n", 1)[0].splitlines()
    disk_part = out.split("per disk\n", 1)[1].splitlines()
    assert len(stream_part) == 2 + SMALL_STREAMS
    assert len(disk_part) == 2 + SMALL_DISKS
    assert "util %" in disk_part[0] and "MB/s" in stream_part[0]


def test_the_summary_says_when_the_percentiles_are_binned() -> None:
    """Past 2^24 latencies the engine keeps them in buckets 0.1 % wide: the percentile rows say
    so; up to 2^24, exact, they say nothing more; the max is exact either way. The engine counts
    the requests that have a latency (a webserver's buffered log appends have none)."""
    from prefetchlab._engine import EXACT_LATENCIES
    from prefetchlab._table import summary_table
    from prefetchlab.api import Report

    for samples, unit in (
        (EXACT_LATENCIES, "ms"),
        (EXACT_LATENCIES + 1, "ms (to 0.1 %: over 2^24 requests)"),
    ):
        metrics = {"app_requests": samples + 5, "latency_samples": samples, "latency_p99_ms": 2.5}
        lines = summary_table(Report(metrics={**metrics, "latency_max_ms": 3.0}, config={})).splitlines()
        p99 = next(line for line in lines if "latency p99" in line)
        assert p99.split(fmt_number(2.5), 1)[1].strip() == unit, p99
        assert next(line for line in lines if "latency max" in line).rstrip().endswith("ms")


def test_a_webservers_log_appends_have_no_latency(small_config: Path) -> None:
    sets = ["--set", "workload.kind=webserver", "--set", "workload.log_append=16KiB"]
    m = json.loads(run_cli("run", small_config, *sets, "--json").stdout)["metrics"]
    assert m["writes"] > 0 and m["latency_samples"] == m["app_requests"] - m["writes"]


def test_run_summary_shows_extended_saras_concurrency(small_config: Path) -> None:
    sets = ["--set", "readahead.policy=sara-extended", "--set", "sara.threshold=1"]
    proc = run_cli("run", small_config, *sets)
    assert proc.returncode == 0, proc.stderr
    state = json.loads(
        json.loads(run_cli("run", small_config, *sets, "--json").stdout)["metrics"]["readahead_policy_state"]
    )
    assert state["sara_large_max_choices"] + state["sara_small_max_choices"] > 0
    label = "SARA: pending I/Os per member disk N at its choices (mean)"
    assert _row(proc.stdout, label) == [fmt_number(state["sara_pending_ios_mean"]), "requests"]
    label = "SARA: readaheads sized by the small max (high concurrency)"
    assert _row(proc.stdout, label) == [str(state["sara_small_max_choices"])]
    # the other policies keep no such figures, and the table shows none
    assert "SARA:" not in run_cli("run", small_config).stdout


def _header(stdout: str) -> str:
    """The line under the title that says what was simulated."""
    return stdout.splitlines()[1].strip()


def test_run_header_names_an_ssd_array_by_its_parameters(small_config: Path) -> None:
    sets = ["--set", "disk.kind=ssd", "--set", "array.disks=5", "--set", "ssd.channels=4"]
    sets += ["--set", "ssd.read_bandwidth=100000000", "--set", "ssd.read_latency=25us"]
    proc = run_cli("run", small_config, *sets)
    assert proc.returncode == 0, proc.stderr
    header = _header(proc.stdout)
    ssd = json.loads(run_cli("run", small_config, *sets, "--json").stdout)["config"]["ssd"]
    assert (ssd["channels"], ssd["read_bandwidth"], ssd["read_latency"]) == (4, 10**8, 25_000)
    device = (
        f"SSD (4 channels, per channel 100 MB/s read, {ssd['write_bandwidth'] / 1e6:g} MB/s write; "
        f"latency 25 µs read, {ssd['write_latency'] / 1e3:g} µs write; {ssd['capacity'] / 1e9:g} GB)"
    )
    assert header.startswith(f"raid0 of 5 × {device}, strip 64 KiB, scheduler anticipatory;"), header
    assert "cheetah" not in proc.stdout


def test_run_header_names_the_drive_and_its_cache(small_config: Path) -> None:
    proc = run_cli("run", small_config, "--set", "disk.cache=false")
    assert proc.returncode == 0, proc.stderr
    assert _header(proc.stdout).startswith(
        "raid0 of 3 × cheetah-15k5 (drive cache off), strip 64 KiB, scheduler anticipatory;"
    )


def test_run_header_says_when_the_interface_bounds_the_drive(small_config: Path) -> None:
    # 0.1 ms per sector is 5.12 MB/s, below the Cheetah 15K.4's platters (the 1990s rigs' buses)
    slow = 'disk.overrides."Bulk sector transfer time"=0.1'
    proc = run_cli("run", small_config, "--set", "disk.model=cheetah-15k4", "--set", slow)
    assert proc.returncode == 0, proc.stderr
    header = _header(proc.stdout)
    note = "host interface 5.1 MB/s, slower than its media ("
    assert f"(datasheet, Bulk sector transfer time=0.1, {note}" in header
    # its own Ultra320 interface bounds nothing: no note
    proc = run_cli("run", small_config, "--set", "disk.model=cheetah-15k4")
    assert "host interface" not in _header(proc.stdout) and "(datasheet)" in _header(proc.stdout)


def test_set_overrides_the_file(small_config: Path) -> None:
    proc = run_cli(
        "run",
        small_config,
        "--set",
        "workload.streams=5",
        "--set",
        "array.disks=4",
        "--set",
        "readahead.max=512KiB",
        "--json",
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["config"]["workload"]["streams"] == 5
    assert report["config"]["array"]["disks"] == 4
    assert report["config"]["readahead"]["max"] == 512 << 10
    assert len(report["streams"]) == 5
    assert len(report["disks"]) == 4
    assert report["metrics"]["bytes_read"] == 5 * SMALL_FILE_BYTES


def test_many_streams_are_summarised(small_config: Path) -> None:
    proc = run_cli("run", small_config, "--set", "workload.streams=12")
    assert proc.returncode == 0, proc.stderr
    stream_part = proc.stdout.split("per stream\n", 1)[1].split("\n\n", 1)[0].splitlines()
    # header, rule, slowest, fastest, mean, note
    assert len(stream_part) == 6, stream_part
    assert stream_part[4].split()[0] == "mean"
    assert "12 streams" in stream_part[5]


def test_ctrl_c_exits_130_with_one_line(
    small_config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "simulate", interrupted)
    assert cli.main(["run", str(small_config)]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "prefetchlab: interrupted\n"


#: A run of several seconds (8 random readers, 8 M requests of 4 KiB), stopped by the tests.
LONG_RUN = [
    "--set",
    "workload.kind=random",
    "--set",
    "workload.streams=8",
    "--set",
    "workload.requests=1000000",
]
LONG_RUN += [
    "--set",
    "workload.record=4KiB",
    "--set",
    "workload.file_size=1GiB",
    "--set",
    "host.memory=64MiB",
]


def _pty(columns: int = 100) -> tuple[int, int]:
    """A pseudo-terminal (master, slave) of 24 lines × ``columns``."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    return master, slave


def _start(*args: str | Path, stderr: int) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "prefetchlab.cli", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=stderr,
        # A shell may start background jobs with SIGINT ignored; the CLI gets it as from a terminal.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _read_until(fd: int, marker: bytes) -> bytes:
    """Reads a pty until ``marker`` appears; fails if the other side closes first."""
    seen = b""
    while marker not in seen:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            chunk = b""
        if not chunk:
            raise AssertionError(f"closed before {marker!r} appeared; got {seen!r}")
        seen += chunk
    return seen


def _drain(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:
            return out
        if not chunk:
            return out
        out += chunk


def _stop(proc: subprocess.Popen[bytes]) -> int:
    proc.send_signal(signal.SIGINT)
    try:
        return proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()


def test_progress_bar_on_a_terminal_and_ctrl_c(small_config: Path) -> None:
    """On a terminal a long run shows a progress bar on stderr (requests done / total, rate,
    elapsed and remaining time, simulated time); Ctrl-C clears it and stops the run: exit 130
    and one line. A quiet run beside it (--quiet; stderr not a terminal) shows nothing."""
    master, slave = _pty()
    quiet_master, quiet_slave = _pty()
    shown = _start("run", small_config, *LONG_RUN, stderr=slave)
    quiet = _start("run", small_config, *LONG_RUN, "--quiet", stderr=quiet_slave)
    piped = _start("run", small_config, *LONG_RUN, stderr=subprocess.PIPE)
    for fd in (slave, quiet_slave):
        os.close(fd)
    try:
        seen = _read_until(master, b"req/s]")  # a whole bar, drawn after about a second
        time.sleep(0.3)
        codes = [_stop(p) for p in (shown, quiet, piped)]
        seen += _drain(master)
        quiet_seen = _drain(quiet_master)
    finally:
        for p in (shown, quiet, piped):
            p.kill()
            p.wait()
        os.close(master)
        os.close(quiet_master)
    assert codes == [130, 130, 130], (codes, seen)
    bar = seen.decode().split("\r")[1]
    counts = r"[\d.]+[kM]?/[\d.]+M requests, [\d.]+ s simulated"
    times = r"\[\d\d:\d\d<\d\d:\d\d, [\d.]+[kM]? req/s\]"
    assert re.fullmatch(rf"\s+\d+%\|.*\| {counts} {times}", bar), bar
    assert len(bar) < 100  # it fits the terminal
    # The bar is cleared (its line rubbed out), then one line.
    assert seen.decode().split("\r")[-3].strip() == "" and seen.endswith(b"\rprefetchlab: interrupted\r\n"), (
        seen
    )
    assert b"Traceback" not in seen and b"error" not in seen, seen
    assert quiet_seen == b"prefetchlab: interrupted\r\n"
    assert piped.stderr is not None and piped.stderr.read() == b"prefetchlab: interrupted\n"
    for p in (shown, quiet, piped):
        assert p.stdout is not None and p.stdout.read() == b""


def test_a_short_run_on_a_terminal_shows_no_bar(small_config: Path) -> None:
    master, slave = _pty()
    proc = _start("run", small_config, stderr=slave)
    os.close(slave)
    try:
        err = _drain(master)
        code = proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    assert code == 0 and err == b""
    assert proc.stdout is not None and b"bandwidth" in proc.stdout.read()


def test_progress_bar_over_simulated_time() -> None:
    """A run bounded by run.duration counts simulated seconds (the requests beside them)."""
    err = io.StringIO()
    bar = cli.ProgressBar(delay_s=0.0)
    with contextlib.redirect_stderr(err):
        bar(2.5, 10.0, 1234, 10**9)
        bar.close()
    assert "2.5/10.0 s simulated, 1234 requests" in err.getvalue() and " 25%|" in err.getvalue()


def test_progress_bar_waits_before_it_shows() -> None:
    err = io.StringIO()
    bar = cli.ProgressBar()  # the default delay
    with contextlib.redirect_stderr(err):
        bar(2.5, 0.0, 10, 100)
        bar.close()
    assert err.getvalue() == ""


def test_a_reader_that_goes_away_is_no_error(small_config: Path) -> None:
    """`prefetchlab run ... | head -1`: the pipe closes under the summary; the CLI stops quietly."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before anything is written
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "prefetchlab.cli", "run", str(small_config)],
            stdout=write,
            stderr=subprocess.PIPE,
            check=False,
        )
    finally:
        os.close(write)
    assert (proc.returncode, proc.stderr) == (0, b"")


def test_an_unexpected_exception_is_still_one_line(
    small_config: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setattr(cli, "simulate", broken)
    assert cli.main(["run", str(small_config)]) == 2
    err = capsys.readouterr().err
    assert err == "prefetchlab: error: internal error (please report): RuntimeError: boom second line\n"


def test_parse_override() -> None:
    assert cli.parse_override("Enable caching in buffer=0") == ("Enable caching in buffer", 0.0)
    assert cli.parse_override(" Fast write level = 2.5 ") == ("Fast write level", 2.5)
    for bad in ("no equals sign", "=3", "Buffer continuous read=yes", "x=nan"):
        with pytest.raises(cli.UsageError):
            cli.parse_override(bad)


def _validate_args(cheetah: Path) -> list[str]:
    args = ["validate-disk", str(cheetah / "Seagate-Cheetah15k5.parv"), str(cheetah / "random.trace")]
    for name, value in CHEETAH_OVERRIDES:
        args += ["--override", f"{name}={value:g}"]
    return args


def _measured_ms(trace: Path) -> list[float]:
    """Column 5 of a DiskSim validation trace: the real drive's response time, in microseconds."""
    return [float(line.split()[4]) / 1000.0 for line in trace.read_text().splitlines() if line.strip()]


def test_validate_disk_json(cheetah: Path) -> None:
    proc = run_cli(*_validate_args(cheetah), "--json")
    assert proc.returncode == 0, proc.stderr
    v = json.loads(proc.stdout)
    assert list(v) == ["rms_ms", "mean_sim_ms", "mean_real_ms", "requests", "rms_exact_ms", "classes"]
    measured = _measured_ms(cheetah / "random.trace")
    assert v["requests"] == len(measured)
    # the per-class residuals cover the trace: reads + writes, hits + misses
    n = {c["class"]: c["requests"] for c in v["classes"]}
    assert n["reads"] + n["writes"] == len(measured)
    assert n["cache hits"] + n["cache misses"] == len(measured)
    writes = [
        float(line.split()[4]) / 1000.0
        for line in (cheetah / "random.trace").read_text().splitlines()
        if line.startswith("W")
    ]
    by = {c["class"]: c for c in v["classes"]}
    assert by["writes"]["mean_real_ms"] == pytest.approx(statistics.fmean(writes), rel=1e-9)
    assert v["mean_real_ms"] == pytest.approx(statistics.fmean(measured), rel=1e-9)
    assert v["mean_sim_ms"] > 0
    for key in ("rms_ms", "rms_exact_ms"):
        assert math.isfinite(v[key]) and v[key] >= 0, v


def test_validate_disk_table(cheetah: Path) -> None:
    proc = run_cli(*_validate_args(cheetah))
    assert proc.returncode == 0, proc.stderr
    v = json.loads(run_cli(*_validate_args(cheetah), "--json").stdout)
    out = proc.stdout
    assert _row(out, "rms demerit") == [f"{v['rms_ms']:.4f}", "ms"]
    assert _row(out, "mean response, measured") == [f"{v['mean_real_ms']:.4f}", "ms"]
    assert _row(out, "requests") == [str(v["requests"])]
    assert "override Enable caching in buffer = 0" in out
    reads = next(c for c in v["classes"] if c["class"] == "reads")
    assert _row(out, "reads") == [
        str(reads["requests"]),
        f"{reads['mean_sim_ms']:.3f}",
        f"{reads['mean_real_ms']:.3f}",
        f"{reads['rms_exact_ms']:.3f}",
    ]
    # the drive's cache is off: no simulated hits, so no means to show
    hits = next(c for c in v["classes"] if c["class"] == "cache hits")
    assert hits["requests"] == 0 and _row(out, "cache hits") == ["0", "—", "—", "—"]


def test_what_the_reader_tolerated_in_a_drive_file_is_a_warning(cheetah: Path, small_config: Path) -> None:
    # the 146 GB Cheetah 15K.5's seek file lacks its first line; DiskSim goes on, and so do we
    expected = "prefetchlab: warning: "
    proc = run_cli(*_validate_args(cheetah), "--json")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith(expected)]
    assert len(warnings) == 1 and "Seek distances measured" in warnings[0], proc.stderr
    json.loads(proc.stdout)  # stdout stays the JSON alone
    parv = cheetah / "Seagate-Cheetah15k5.parv"
    proc = run_cli("run", small_config, "--set", f"disk.model={parv}")
    assert proc.returncode == 0 and proc.stderr.count(expected) == 1, proc.stderr
    # the built-in preset of that drive documents its departures instead: no warning
    proc = run_cli("run", small_config, "--set", "disk.model=cheetah-15k5")
    assert proc.returncode == 0 and expected not in proc.stderr, proc.stderr
    # a sweep says it once for the file, not once per run
    exp = small_config.parent / "e.toml"
    exp.write_text(
        '[experiment]\nname = "e"\n'
        + small_config.read_text().replace("streams = 3", "streams = [1, 2]")
        + f'[disk]\nmodel = "{parv.as_posix()}"\n'
    )
    proc = run_cli("sweep", exp, "--db", small_config.parent / "e.duckdb", "--quiet")
    assert proc.returncode == 0 and proc.stderr.count(expected) == 1, proc.stderr


def test_the_drives_of_a_configuration_include_a_topology_s_tiers() -> None:
    from prefetchlab.inputs import drives_in

    config = {
        "disk": {"kind": "hdd", "model": "cheetah-15k5"},
        "topology": {"nodes": [{"lower": {"kind": "hdd", "model": "a.parv"}, "upper": {"kind": "ssd"}}]},
    }
    assert [d["model"] for d in drives_in(config)] == ["cheetah-15k5", "a.parv"]


def test_drive_prints_a_models_figures() -> None:
    # the Cheetah 15K.4 from its datasheet: 15,000 rpm, 802 sectors per track outside, Ultra320
    proc = run_cli("drive", "cheetah-15k4", "--json")
    assert proc.returncode == 0, proc.stderr
    f = json.loads(proc.stdout)
    assert (f["rpm"], f["spt_outer"], f["preset"]["kind"]) == (15000, 802, "datasheet")
    assert f["media_outer_mb_s"] == pytest.approx(512 * 802 * 15000 / 60 / 1e6)
    assert f["interface_mb_s"] == pytest.approx(320.0) and f["capacity_sectors"] == 143_374_738
    assert f["seek_single_ms"] < f["seek_mean_random_ms"] < f["seek_full_ms"]
    # the table, and an override that makes the interface the bound
    proc = run_cli("drive", "cheetah-15k4", "--override", "Bulk sector transfer time=0.1")
    assert proc.returncode == 0, proc.stderr
    assert (
        _row(proc.stdout, "rotation")[0] == "15000"
        and "override Bulk sector transfer time = 0.1" in proc.stdout
    )
    interface = " ".join(_row(proc.stdout, "host interface"))
    assert interface.startswith("5.1 MB/s (0.1 ms per sector), slower than its media (62.0-102.7 MB/s"), (
        interface
    )
    # between the innermost and outermost zones' rates (62.0 and 102.7 MB/s): the outer zones only
    proc = run_cli("drive", "cheetah-15k4", "--override", "Bulk sector transfer time=0.0064", "--json")
    f = json.loads(proc.stdout)
    assert f["interface_mb_s"] == pytest.approx(80.0)
    assert f["media_inner_mb_s"] < f["interface_mb_s"] < f["media_outer_mb_s"]
    proc = run_cli("drive", "cheetah-15k4", "--override", "Bulk sector transfer time=0.0064")
    interface = " ".join(_row(proc.stdout, "host interface"))
    assert interface.endswith("slower than its outer zones (102.7 MB/s at most, per revolution)"), interface
    assert proc.stderr == ""
    # a preset says where it departs from its description, and what its reading tolerated
    proc = run_cli("drive", "cheetah-15k5")
    assert "departs from the description: Allow almost read hits = 1" in proc.stdout
    assert proc.stderr.count("prefetchlab: warning: ") == 1 and "Seek distances measured" in proc.stderr
    assert_one_line_error(run_cli("drive", "cheetah-99"), "unknown drive model `cheetah-99`", "cheetah-15k5")
    assert_one_line_error(run_cli("drive", "nope.parv"), "nope.parv: no such drive file")


def test_drive_reads_a_disksim_file_and_warns_of_its_flaws(cheetah: Path) -> None:
    proc = run_cli("drive", cheetah / "Seagate-Cheetah15k5.parv", "--json")
    assert proc.returncode == 0, proc.stderr
    f = json.loads(proc.stdout)
    assert (f["spt_outer"], f["spt_inner"], f["surfaces"], f["interface_mb_s"]) == (1200, 720, 4, None)
    assert f["preset"] is None and proc.stderr.count("prefetchlab: warning: ") == 1, proc.stderr


def test_run_help_says_where_each_preset_comes_from() -> None:
    proc = run_cli("run", "--help")
    assert proc.returncode == 0, proc.stderr
    lines = {
        line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith("  ") and line.split()
    }
    for name in ("cheetah-15k4", "barracuda-7200.10", "wd5000aaks", "wd10evvs"):
        assert "datasheet figures only" in lines[name], lines.get(name)
    for name in ("cheetah-15k5", "cheetah-15k5-146gb"):
        assert "DiskSim description" in lines[name], lines.get(name)


def test_run_header_says_datasheet_for_a_datasheet_preset(small_config: Path) -> None:
    proc = run_cli("run", small_config, "--set", "disk.model=wd10evvs")
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout.splitlines()[1]
    assert "wd10evvs (datasheet)" in header, header
    proc = run_cli("run", small_config, "--set", "disk.model=cheetah-15k5")
    assert "datasheet" not in proc.stdout.splitlines()[1]


def test_sigterm_turned_into_an_interruption_by_a_library_still_reads_as_sigterm(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # DuckDB, interrupted in a query by the exception SIGTERM's handler raises, reports its own
    # interruption, which reaches the command as KeyboardInterrupt.
    from prefetchlab import cli

    def sigterm_in_a_query(args: object) -> int:
        try:
            cli._on_sigterm(15, None)
        except cli.Terminated:
            raise KeyboardInterrupt from None
        return 0

    monkeypatch.setattr(cli, "cmd_run", sigterm_in_a_query)
    monkeypatch.setattr(cli, "_sigterm_seen", False)
    assert cli.main(["run", "x.toml"]) == cli.EXIT_TERMINATED
    assert capsys.readouterr().err.strip() == "prefetchlab: terminated"
    monkeypatch.setattr(cli, "_sigterm_seen", False)
    monkeypatch.setattr(cli, "cmd_run", lambda args: (_ for _ in ()).throw(KeyboardInterrupt))
    assert cli.main(["run", "x.toml"]) == cli.EXIT_INTERRUPTED


def test_run_says_where_a_bad_key_was_given_and_refuses_an_experiment_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("# a comment\n[array]\nlayout = 'raid5'\ndisks = 2\n")
    assert_one_line_error(run_cli("run", bad), f"{bad}:4: config key `array.disks`", "3 to 1024 disks")
    proc = run_cli("run", bad, "--set", "array.disks=-1")
    assert_one_line_error(proc, "--set array.disks=-1: config key `array.disks`", "got -1")
    # a file's key made wrong by another key's --set: the file's line, and the --set beside it
    proc = run_cli("run", bad, "--set", "array.layout=raid6")
    assert_one_line_error(proc, f"{bad}:4 (with --set array.layout=raid6): config key `array.disks`")
    exp = tmp_path / "exp.toml"
    exp.write_text("[experiment]\nname = 'exp'\n[[claim]]\ntext = 't'\n")
    # outside experiments/ reproduce takes the file by its path, not its name
    assert_one_line_error(
        run_cli("run", exp), "an experiment file ([experiment], [[claim]])", "sweep", f"reproduce {exp}`"
    )
    proc = run_cli("run", "experiments/foundation-demo.toml")
    assert_one_line_error(proc, "`prefetchlab reproduce foundation-demo`")
    assert_one_line_error(run_cli("run", tmp_path), "a directory")


def test_the_run_header_shows_a_time_limit_with_its_unit(tmp_path: Path) -> None:
    # a bare integer is nanoseconds: the header says what the run was stopped at
    config = tmp_path / "c.toml"
    config.write_text(SMALL_TOML)
    proc = run_cli("run", config, "--set", "run.duration=5")
    assert proc.returncode == 0, proc.stderr
    assert "stopped at run.duration 5 ns" in proc.stdout
    proc = run_cli("run", config, "--set", 'run.duration="2ms"')
    assert "stopped at run.duration 2 ms" in proc.stdout


def test_a_figure_over_nothing_shows_as_a_dash_and_null(tmp_path: Path) -> None:
    # without readahead nothing is prefetched: no accuracy, "—" in the table and null in JSON,
    # where 0 would read as every prefetch wasted
    config = tmp_path / "c.toml"
    config.write_text(SMALL_TOML)
    proc = run_cli("run", config, "--set", 'readahead.policy="none"')
    assert proc.returncode == 0, proc.stderr
    rows = {line.split("  ")[1].strip(): line for line in proc.stdout.splitlines() if line.startswith("  ")}
    assert "—" in rows["prefetch accuracy"] and "(nothing to measure)" in rows["prefetch accuracy"]
    assert "—" not in rows["page-cache hit ratio"] and "—" not in rows["latency mean"]
    out = json.loads(run_cli("run", config, "--set", 'readahead.policy="none"', "--json").stdout)
    assert out["metrics"]["prefetch_accuracy"] is None and out["metrics"]["latency_mean_ms"] > 0
    # O_DIRECT reads meet no page cache: its figures are not shown, the hit ratio is null
    proc = run_cli("run", config, "--set", "workload.direct=true")
    names = {line.split("  ")[1].strip() for line in proc.stdout.splitlines() if line.startswith("  ")}
    assert not names & {"page-cache hit ratio", "readahead windows", "prefetch accuracy"}, names
    out = json.loads(run_cli("run", config, "--set", "workload.direct=true", "--json").stdout)
    assert out["metrics"]["hit_ratio"] is None and out["metrics"]["array_cache_hit_ratio"] is None
    # with an array cache, the first cache they meet, its figures are theirs
    sets = ("--set", "workload.direct=true", "--set", 'array_cache={size="8MiB", prefetch="obl"}')
    m = json.loads(run_cli("run", config, *sets, "--json").stdout)["metrics"]
    assert m["hit_ratio"] == m["array_cache_hit_ratio"] is not None and m["prefetch_accuracy"] is not None
