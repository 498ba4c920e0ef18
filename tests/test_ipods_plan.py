"""``prefetchlab ipods plan`` (issue 11): IPODS's planning figures through the command line —
the golden numbers of algorithms.md §8.2 (the paper's Fig. 2 and its own parameters), the
step-level model with and without the pipeline, and one-line errors naming the flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prefetchlab import ipods_cli
from prefetchlab._engine import ipods_timeline

from .helpers import assert_one_line_error, run_cli

FIG2 = [
    "--max-bw",
    "5",
    "--x-cache",
    "2",
    "--t-unit",
    "1",
    "--t-hdd-net",
    "5",
    "--t-hdd-ss",
    "8",
    "--t-ss-net",
    "4",
]


def test_fig2_plan_through_the_cli() -> None:
    proc = run_cli("ipods", "plan", *FIG2, "--json")
    assert proc.returncode == 0, proc.stderr
    p = json.loads(proc.stdout)
    got = {k: p[k] for k in ("pstart", "pnext_offset", "depth", "horizon_hdd", "max_bw_needed")}
    assert got == {"pstart": 5, "pnext_offset": 6, "depth": 3, "horizon_hdd": 5, "max_bw_needed": 17}
    assert p["stall_ss_ns"] == 2_000_000_000


def test_fig2_table_has_units() -> None:
    proc = run_cli("ipods", "plan", *FIG2, "--blocks", "13")
    assert proc.returncode == 0, proc.stderr
    for words in (
        "pstart",
        "5  block",
        "max_bw_needed",
        "17  requests",
        "elapsed s",
        "stall s",
        "IPODS takes",
    ):
        assert words in proc.stdout, (words, proc.stdout)


@pytest.mark.parametrize(
    "x_cache, pstart, offset", [(1, 3, 3), (2, 5, 6), (3, 7, 9), (4, 9, 12), (5, 11, 15)]
)
def test_the_papers_parameters_are_the_defaults(x_cache: int, pstart: int, offset: int) -> None:
    p = ipods_cli.plan(15, x_cache, [ipods_cli._duration(t) for t in ipods_cli.PAPER_TIMES.values()])
    assert (p["pstart"], p["pnext_offset"], p["depth"]) == (pstart, offset, 15 - x_cache)
    assert (p["horizon_hdd"], p["max_bw_needed"]) == (120, 354)


def test_the_step_model_gains_about_6_percent_at_small_x_cache_and_nothing_past_9() -> None:
    """[IPODS] §5: ≈ 6 % less elapsed time at X_cache 1–3, no gain for X_cache ≥ 9 at Max_BW 15
    (11,686 blocks, the length of the LASR machine01 trace)."""
    times = [ipods_cli._duration(t) for t in ipods_cli.PAPER_TIMES.values()]
    gain = {x: ipods_cli.plan(15, x, times, blocks=11_686)["elapsed_reduction"] for x in (1, 3, 5, 9, 12)}
    assert all(0.05 < gain[x] < 0.07 for x in (1, 3)), gain
    assert gain[1] >= gain[5] >= gain[9], gain
    assert gain[9] < 0.005 and gain[12] < 0.005, gain  # under half a per cent: "no gain"
    run = ipods_cli.plan(15, 1, times, blocks=11_686)
    assert run["tip_alone"]["ssd_reads"] == 0 and run["ipods"]["ssd_reads"] > 11_000


@pytest.mark.parametrize(
    "args, words",
    [
        (["--max-bw", "5", "--x-cache", "6"], ("--x-cache", "exceed max_bw = 5")),
        (["--max-bw", "0", "--x-cache", "0"], ("--max-bw", "at least 1")),
        (["--max-bw", "-1", "--x-cache", "1"], ("--max-bw", "whole number")),
        (["--max-bw", "5", "--x-cache", "2", "--t-unit", "3furlongs"], ("--t-unit", "3furlongs")),
        # a negative duration after a space reaches the option's own check (not argparse's
        # "expected one argument")
        (["--max-bw", "5", "--x-cache", "2", "--t-unit", "-1s"], ("--t-unit", "-1s", ">= 0")),
        (["--max-bw", "5", "--x-cache", "2", "--t-hdd-net", "-.5"], ("--t-hdd-net", "-.5")),
        (["--max-bw", "5", "--x-cache", "2", "--t-ss-net", "0"], ("--t-ss-net", "more than 0 s")),
        (["--max-bw", "5", "--x-cache", "2", "--blocks", "4000000000"], ("--blocks", "at most 10000000")),
    ],
)
def test_bad_parameters_are_one_line_naming_the_flag(args: list[str], words: tuple[str, ...]) -> None:
    assert_one_line_error(run_cli("ipods", "plan", *args), *words)


def test_the_timeline_figure_draws_every_copy_fetch_and_stall(tmp_path: Path) -> None:
    """``--figure``: [IPODS] Fig. 2 redrawn from the model's run — one bar per HDD → SSD copy, per
    fetch to the client and per stall."""
    times = ["1s", "5s", "4s", "8s"]
    t = ipods_timeline(5, 2, times, 13, True)
    stalls = sum(1 for s in t["accesses"]["stall_ns"] if s > 0)
    assert len(t["copies"]["block"]) == 6 and stalls == 10
    bars = ipods_cli.draw_timeline(t, "Fig. 2", tmp_path / "t.png")
    assert bars == 6 + 13 + 10
    out = tmp_path / "fig2.svg"
    proc = run_cli("ipods", "plan", *FIG2, "--blocks", "13", "--figure", out)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size > 10_000 and "HDD → SSD copy" in out.read_text()
    assert_one_line_error(run_cli("ipods", "plan", *FIG2, "--figure", out), "--figure", "--blocks")
    bad = run_cli("ipods", "plan", *FIG2, "--blocks", "13", "--figure", tmp_path / "f.xyz")
    assert_one_line_error(bad, "f.xyz", ".png, .svg or .pdf")
    assert not bad.stdout and not (tmp_path / "f.xyz").exists()
    # with --json too
    js = tmp_path / "fig2-json.png"
    proc = run_cli("ipods", "plan", *FIG2, "--blocks", "13", "--figure", js, "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["pstart"] >= 0, proc.stderr
    assert js.stat().st_size > 10_000


def test_a_slower_plan_says_more_time_not_negative_less(tmp_path: Path) -> None:
    # copies HDD → SSD slower than reading the HDD: IPODS takes longer than TIP alone
    args = ["--max-bw", "15", "--x-cache", "1", "--t-ss-net", "2s", "--t-hdd-net", "1s", "--blocks", "100"]
    proc = run_cli("ipods", "plan", *args)
    assert proc.returncode == 0, proc.stderr
    assert "% more time than TIP alone" in proc.stdout and "-" not in proc.stdout.split("IPODS takes")[1]
