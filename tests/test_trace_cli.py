"""``prefetchlab trace stats`` through the command line: the figures of a real sample,
gzip read the same, and each bad input one clear line (exit 2)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

import prefetchlab

from .helpers import assert_one_line_error, run_cli


def _stats(*args: str | Path) -> dict[str, object]:
    proc = run_cli("trace", "stats", *args, "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert isinstance(result, dict)
    return result


def test_msr_sample_figures_match_its_provenance(traces: Path) -> None:
    # PROVENANCE.md: 1,000 records, 50.8 % reads, 6,108,672 / 3,580,928 bytes read / written
    s = _stats(traces / "msr-sample" / "msr-cambridge1-sample.csv")
    assert s["format"] == "msr"
    assert (s["records"], s["reads"], s["writes"]) == (1000, 508, 492)
    assert (s["read_bytes"], s["write_bytes"]) == (6_108_672, 3_580_928)
    sizes = s["sizes"]
    assert isinstance(sizes, list)
    assert sum(b["requests"] for b in sizes) == 1000


def test_gzip_copy_gives_the_same_figures(traces: Path, tmp_path: Path) -> None:
    src = traces / "fiu-mail-excerpt" / "smalltrace.csv"
    packed = tmp_path / "mail.trace"  # no .gz: told by its magic bytes
    packed.write_bytes(gzip.compress(src.read_bytes()))
    assert _stats(packed) == _stats(src)
    assert _stats(src)["records"] == 10_000


def test_integer_times_need_the_format(traces: Path) -> None:
    tpcc = traces / "tpcc" / "tpcc-small.trace"
    assert_one_line_error(
        run_cli("trace", "stats", tpcc), "tpcc-small.trace", "disksim, mqsim", "give the format"
    )
    assert _stats(tpcc, "--format", "mqsim")["records"] == 6999


def test_bad_inputs_are_one_line_each(tmp_path: Path) -> None:
    bad = tmp_path / "bad.spc"
    bad.write_text("0,1,512,r,0\n0,1,512,r,zero\n")
    assert_one_line_error(
        run_cli("trace", "stats", bad, "--format", "spc"), "bad.spc:2:", "field 5 (Timestamp)"
    )
    empty = tmp_path / "empty.trace"
    empty.write_text("")
    assert_one_line_error(run_cli("trace", "stats", empty), "empty.trace", "empty trace")
    garbage = tmp_path / "garbage.trace"
    garbage.write_bytes(bytes(range(256)) * 4)
    assert_one_line_error(run_cli("trace", "stats", garbage, "--format", "arc"), "garbage.trace")
    cut = tmp_path / "cut.spc"
    packed = gzip.compress(b"".join(b"0,%d,512,r,%d\n" % (i * 7919 % 100003, i) for i in range(5000)))
    cut.write_bytes(packed[: len(packed) // 2])
    assert_one_line_error(run_cli("trace", "stats", cut), "cut.spc", "truncated or corrupt")
    assert_one_line_error(
        run_cli("trace", "stats", tmp_path / "none.trace"), "none.trace", "no such trace file"
    )
    proc = run_cli("trace", "stats", bad, "--format", "blk")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    # a trace read as another format that finds none of its records in it
    spc = tmp_path / "good.spc"
    spc.write_text("0,0,4096,r,0.0\n0,8,4096,r,0.1\n")
    assert_one_line_error(
        run_cli("trace", "stats", spc, "--format", "blkparse"), "good.spc", "no records read as blkparse"
    )
    # converting a trace onto itself would lose it
    before = spc.read_bytes()
    assert_one_line_error(
        run_cli("trace", "convert", spc, "--to", "lcs-csv", spc), "good.spc", "give another output file"
    )
    assert spc.read_bytes() == before
    hard = tmp_path / "hard.csv"
    os.link(spc, hard)
    assert_one_line_error(
        run_cli("trace", "convert", spc, "--to", "lcs-csv", hard), "hard.csv", "give another output file"
    )
    assert spc.read_bytes() == before


BLKPARSE = """\
  8,16   1     1272     0.012300000  4123  Q   R 123456 + 256 [iozone]
  8,16   1     1273     0.012345678  4123  D   R 123456 + 256 [iozone]
  8,16   1     1274     0.013000000  4123  Q   W 9000 + 8 [iozone]
  8,16   0     1275     0.013000001     0  C   R 123456 + 256 [0]
  8,16   1     1276     0.020000000  4123  D   W 9000 + 8 [iozone]
CPU1 (8,16):
"""


def test_blkparse_takes_d_events_or_q_events(tmp_path: Path) -> None:
    trace = tmp_path / "sdb.blkparse"
    trace.write_text(BLKPARSE)
    d = _stats(trace)
    assert (d["format"], d["records"], d["reads"], d["writes"]) == ("blkparse", 2, 1, 1)
    assert d["span_s"] == 0.007654322  # 0.020000000 - 0.012345678, read digit by digit
    q = _stats(trace, "--blk-event", "Q")
    assert q["span_s"] == 0.0007


def test_fio_v3_iolog(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text(
        "fio version 3 iolog\n0 /dev/sdb add\n1 /dev/sdb open\n1520 /dev/sdb read 1048576 131072\n"
    )
    s = _stats(log)
    assert (s["format"], s["records"], s["read_bytes"]) == ("fio", 1, 131072)


def test_vscsi_binary_sample(traces: Path) -> None:
    # PROVENANCE.md: 113,872 requests, 41.25 % reads, 1,797,412,352 / 2,408,565,760 bytes
    s = _stats(traces / "cloudphysics" / "cloudPhysicsIO.vscsi")
    assert (s["format"], s["records"], s["reads"]) == ("vscsi", 113_872, 46_974)
    assert (s["read_bytes"], s["write_bytes"]) == (1_797_412_352, 2_408_565_760)


def test_vscsi_csv_sample_is_the_binary_trace(traces: Path) -> None:
    # PROVENANCE.md: cloudPhysicsIO.csv holds the .vscsi's 113,872 requests, its time in seconds
    folder = traces / "cloudphysics"
    csv, binary = _stats(folder / "cloudPhysicsIO.csv"), _stats(folder / "cloudPhysicsIO.vscsi")
    assert (csv["format"], csv["records"], csv["reads"]) == ("vscsi-csv", 113_872, 46_974)
    same = ("records", "reads", "writes", "read_bytes", "write_bytes", "footprint_blocks", "streams", "sizes")
    assert {k: csv[k] for k in same} == {k: binary[k] for k in same}
    assert csv["span_s"] == 7200.0


def test_skip_bad_counts_what_it_skips(tmp_path: Path) -> None:
    bad = tmp_path / "two-bad.spc"
    bad.write_text("0,0,4096,r,0\n0,x,1,r,1\n0,8,4096,r,2\n0,8,-1,r,3\n0,16,512,r,4\n")
    s = _stats(bad, "--format", "spc", "--skip-bad", "2")
    assert (s["records"], s["skipped_records"]) == (3, 2)
    proc = run_cli("trace", "stats", bad, "--format", "spc", "--skip-bad", "1")
    assert_one_line_error(proc, "two-bad.spc:4:", "after 1 bad records skipped")
    proc = run_cli("trace", "stats", bad, "--skip-bad", "-3")
    assert proc.returncode == 2 and "expected a whole number" in proc.stderr


def test_a_run_reports_the_bad_records_it_skipped(tmp_path: Path) -> None:
    bad = tmp_path / "two-bad.spc"
    bad.write_text("0,0,4096,r,0\n0,x,1,r,1\n0,8,4096,r,2\n0,8,-1,r,3\n0,16,512,r,4\n")
    label = "malformed trace records skipped (workload.skip_bad)"
    for mode in ("timed", "cache-only"):
        cfg = tmp_path / f"{mode}.toml"
        cfg.write_text(
            f'[workload]\nkind = "trace"\npath = "{bad}"\nformat = "spc"\nskip_bad = 3\n'
            f'[run]\nmode = "{mode}"\n[array_cache]\nsize = "1MiB"\n'
        )
        proc = run_cli("run", cfg)
        assert proc.returncode == 0, proc.stderr
        row = next(line for line in proc.stdout.splitlines() if label in line)
        assert row.split()[-2:] == ["2", "records"], row
        metrics = json.loads(run_cli("run", cfg, "--json").stdout)["metrics"]
        assert (metrics["trace_records_skipped"], metrics["app_requests"]) == (2, 3)
    # a run that may skip none shows no such row (a bad record is an error there)
    good = tmp_path / "good.toml"
    good.write_text(f'[workload]\nkind = "trace"\npath = "{tmp_path / "ok.spc"}"\n')
    (tmp_path / "ok.spc").write_text("0,0,4096,r,0\n0,8,4096,r,1\n")
    proc = run_cli("run", good)
    assert proc.returncode == 0 and label not in proc.stdout, proc.stderr


def test_skip_bad_lets_the_format_be_told_past_a_bad_first_line(tmp_path: Path) -> None:
    trace = tmp_path / "first-bad.trace"
    trace.write_text("%%% a line of no format %%%\n0,0,4096,r,0\n0,8,4096,w,1\n0,16,512,r,2\n")
    # without --skip-bad, detection's error as before: the file and the line
    assert_one_line_error(run_cli("trace", "stats", trace), "first-bad.trace:1:", "give the format")
    s = _stats(trace, "--skip-bad", "1")
    assert (s["format"], s["records"], s["reads"]) == ("spc", 3, 2)
    assert (s["skipped_records"], s["first_skipped_line"]) == (1, 1)
    proc = run_cli("trace", "stats", trace, "--skip-bad", "3")
    assert proc.returncode == 0, proc.stderr
    assert "of at most 3; the first at line 1" in proc.stdout
    # a run reads it as trace stats does
    cfg = {"workload": {"kind": "trace", "path": str(trace), "skip_bad": 1}}
    assert prefetchlab.simulate(cfg).metrics["app_requests"] == 3
    with pytest.raises(prefetchlab.PrefetchlabError, match="first-bad.trace:1:"):
        prefetchlab.simulate({"workload": {"kind": "trace", "path": str(trace)}})


def test_convert_writes_one_lcs_csv_line_per_block(tmp_path: Path) -> None:
    src = tmp_path / "two.spc"
    # 5000 bytes from 4000 (blocks 0, 1, 2), then a zero-size record (no line), then a write
    src.write_text("0,0,0,r,0\n0,7,5000,r,0.0025\n0,0,0,r,0.003\n0,16,512,w,1.0\n")
    out = tmp_path / "out.csv"
    proc = run_cli("trace", "convert", src, "--format", "spc", "--to", "lcs-csv", out)
    assert proc.returncode == 0, proc.stderr
    assert "4 records" in proc.stdout and "4 lines" in proc.stdout, proc.stdout
    lines = out.read_text().splitlines()
    # SPC LBAs are 512-byte sectors: 7 × 512 = 3584
    assert lines == [
        "time,obj_id,obj_size,op",
        "2500,0,512,read",
        "2500,1,4096,read",
        "2500,2,392,read",
        "1000000,2,512,write",
    ]
    proc = run_cli("trace", "convert", src, "--format", "spc", "--to", "lcs-csv", out, "--block", "1000")
    assert proc.returncode == 2 and "--block" in proc.stderr and "multiple of 512" in proc.stderr


def test_a_failed_conversion_leaves_no_file(tmp_path: Path) -> None:
    src = tmp_path / "bad.spc"
    src.write_text("0,0,512,r,0\n" * 5000 + "0,1,512,r,zero\n")
    out = tmp_path / "out.csv"
    assert_one_line_error(
        run_cli("trace", "convert", src, "--to", "lcs-csv", out), "bad.spc:5001", "Timestamp"
    )
    assert list(tmp_path.iterdir()) == [src]


def test_an_interrupted_conversion_stops_and_leaves_the_output_as_it_was(tmp_path: Path) -> None:
    """Ctrl-C (here raised where Python's handler raises it, in the progress callback) stops
    `trace convert` at once: the earlier output stays, no partial file is left; `trace stats`
    stops the same way."""
    from prefetchlab._engine import trace_convert, trace_stats

    src = tmp_path / "t.spc"
    src.write_text("".join(f"0,{8 * i},4096,r,{i}.0\n" for i in range(50_000)))
    out = tmp_path / "out.csv"
    out.write_text("earlier\n")
    heard: list[int] = []

    def interrupt(records: int, file_bytes: int) -> None:
        heard.append(records)
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        trace_convert(str(src), str(out), "lcs-csv", "spc", 4096, interrupt)
    assert heard == [4096], "stopped at the first batch"
    assert out.read_text() == "earlier\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "t.spc"]
    heard.clear()
    with pytest.raises(KeyboardInterrupt):
        trace_stats(str(src), "spc", 4096, interrupt)
    assert heard == [16_384]


def test_cache_only_run_of_a_trace(traces: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "co.toml"
    trace = traces / "cloudphysics" / "cloudPhysicsIO.vscsi"
    cfg.write_text(
        f'[workload]\nkind = "trace"\npath = "{trace}"\n[run]\nmode = "cache-only"\n'
        '[array_cache]\nsize = "128MiB"\nprefetch = "obl"\n'
    )
    proc = run_cli("run", cfg)
    assert proc.returncode == 0, proc.stderr
    assert "cache-only; array cache 128 MiB in 4 KiB blocks, LRU, prefetch obl" in proc.stdout
    for label in ("array-cache misses", "array-cache prefetched blocks", "of which writes"):
        assert label in proc.stdout, proc.stdout
    assert "bandwidth" not in proc.stdout and "latency" not in proc.stdout  # no clock: not shown
    proc = run_cli("run", cfg, "--json")
    metrics = json.loads(proc.stdout)["metrics"]
    assert metrics["bandwidth_mb_s"] is None and metrics["latency_mean_ms"] is None
    assert metrics["app_requests"] == 113_872 and metrics["writes"] == 66_898
    assert metrics["hits"] + metrics["misses"] == 1_141_869
    assert 0 < metrics["prefetch_used_blocks"] <= metrics["prefetched_blocks"]


def test_progress_hears_records_and_the_file_bytes_read(traces: Path, tmp_path: Path) -> None:
    from prefetchlab._engine import trace_stats

    src = traces / "arc-p6" / "P6.lis"
    packed = tmp_path / "p6.gz"
    packed.write_bytes(gzip.compress(src.read_bytes(), compresslevel=1))
    for path in (src, packed):
        calls: list[tuple[int, int]] = []

        def heard(records: int, file_bytes: int, calls: list[tuple[int, int]] = calls) -> None:
            calls.append((records, file_bytes))

        s = trace_stats(str(path), None, 4096, heard)
        size = path.stat().st_size
        assert len(calls) > 10, path  # one call per batch of 16,384 records
        assert calls == sorted(calls) and all(0 < b <= size for _, b in calls)
        assert calls[-1] == (s["records"], size)  # the whole file (compressed bytes when packed)
        assert calls[0][1] < size / 4


def test_records_out_of_time_order_are_reported_with_the_first_ones_line(tmp_path: Path) -> None:
    trace = tmp_path / "back.spc"
    trace.write_text("0,0,4096,r,1\n0,8,4096,r,4\n\n0,16,4096,r,1\n0,24,4096,r,2\n")
    s = _stats(trace)
    assert (s["out_of_order_records"], s["max_step_back_s"], s["first_out_of_order_line"]) == (1, 3.0, 4)
    proc = run_cli("trace", "stats", trace)
    assert proc.returncode == 0, proc.stderr
    assert "out of time order" in proc.stdout and "issues records in file order" in proc.stdout
    assert "first out of order" in proc.stdout


def test_units_apart_give_each_asu_its_own_addresses(tmp_path: Path) -> None:
    """Two ASUs reading the same LBA read one block under ``workload.units = "shared"`` (the
    second read a hit) and two under ``"apart"`` (ASU 7's region begins after ASU 0's, 1 MiB on),
    in cache-only and timed runs alike; ``apart`` with blkparse's per-process streams is one
    error naming the key."""
    trace = tmp_path / "two.spc"
    trace.write_text("0,64,4096,r,0.0\n7,64,4096,r,1.0\n0,64,4096,r,2.0\n")
    base = {"workload": {"kind": "trace", "path": str(trace), "format": "spc"}}
    for mode, extra in (("cache-only", {}), ("timed", {"array": {"layout": "raid0", "disks": 2}})):
        cfg = {**base, **extra, "run": {"mode": mode}, "array_cache": {"size": "1MiB"}}
        shared = prefetchlab.simulate(cfg).metrics
        apart = prefetchlab.simulate(cfg, ["workload.units=apart"]).metrics
        assert (shared["misses"], apart["misses"]) == (1, 2), mode
    cfg = {**base, "workload": {**base["workload"], "units": "apart", "stream_by": "process"}}
    with pytest.raises(prefetchlab.PrefetchlabError, match="workload.units") as e:
        prefetchlab.resolve(cfg)
    assert e.value.key == "workload.units"
