"""The ``ipods`` subcommand: IPODS's plan, a planning aid (algorithms.md §8.2).

    prefetchlab ipods plan --max-bw N --x-cache N [--t-unit S] [--t-hdd-net S] [--t-ss-net S]
                           [--t-hdd-ss S] [--blocks N [--figure PATH]] [--json]

prints what IPODS derives from its parameters — ``pstart`` (the first hinted block copied from
the HDD to the SSD), ``pnext_offset`` (when pipelined block b is consumed, block b + offset is
copied next), ``depth`` (Max_BW − X_cache concurrent copies), ``horizon_hdd`` (TIP's prefetch
horizon on the HDD path, accesses) and ``max_bw_needed`` (the Max_BW at which every latency is
hidden). With ``--blocks N`` it also runs the paper's step-level model (its Fig. 2) over N hinted
blocks, with and without the pipeline, and prints the elapsed and stall times of each;
``--figure PATH`` draws that run's timeline as the paper's Fig. 2 does (PNG, SVG or PDF). The
computation is the engine's (``crates/prefetchlab/src/policy/informed/ipods.rs``). Times are seconds, or
durations with a unit ("37ms"); they default to the paper's own (200 MB blocks).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from prefetchlab import engine_version
from prefetchlab._engine import PrefetchlabError, ipods_plan, ipods_timeline

#: The paper's device times, seconds ([IPODS] §5: T_unit, HDD → client, SSD → client, HDD → SSD).
PAPER_TIMES: dict[str, str] = {"t_unit": "0.037", "t_hdd_net": "4.43", "t_ss_net": "4.158", "t_hdd_ss": "4.5"}

#: The formats ``--figure`` draws, by the file's suffix.
FIGURE_SUFFIXES = (".png", ".svg", ".pdf")

#: The most hinted blocks a timeline figure shows (one row each).
MAX_FIGURE_BLOCKS = 60

_BARE_NUMBER = re.compile(r"^\s*[0-9.]+([eE][-+]?[0-9]+)?\s*$")


def _duration(text: str) -> str:
    """A bare number is seconds; anything else goes to the engine as a duration."""
    return f"{text.strip()}s" if _BARE_NUMBER.match(text) else text


def _count(text: str) -> int:
    """A whole number 0 … 2^32 − 1 (argparse turns the ValueError into a one-line usage error)."""
    n = int(text)
    if not 0 <= n < 2**32:
        raise ValueError(text)
    return n


_count.__name__ = "whole number (0 to 2^32 - 1)"  # argparse names the type in its message

#: The engine's names of the parameters → this command's flags, for its messages.
_FLAGS = {key: "--" + key.replace("_", "-") for key in ("max_bw", "x_cache", *PAPER_TIMES, "blocks")}


def _times(args: argparse.Namespace) -> list[str]:
    return [_duration(getattr(args, key)) for key in PAPER_TIMES]


def plan(max_bw: int, x_cache: int, times: list[str], blocks: int = 0) -> dict[str, Any]:
    """The plan as a dict (``--json``'s object); with ``blocks``, the model's run both ways."""
    out: dict[str, Any] = {"max_bw": max_bw, "x_cache": x_cache}
    out.update(ipods_plan(max_bw, x_cache, times))
    if blocks:
        for name, on in (("ipods", True), ("tip_alone", False)):
            t = ipods_timeline(max_bw, x_cache, times, blocks, on)
            out[name] = {
                "blocks": blocks,
                "elapsed_s": t["elapsed_ns"] / 1e9,
                "stall_s": t["stall_ns"] / 1e9,
                "ssd_reads": sum(t["accesses"]["from_ssd"]),
                "hdd_reads": blocks - sum(t["accesses"]["from_ssd"]),
            }
        tip = out["tip_alone"]["elapsed_s"]
        out["elapsed_reduction"] = (tip - out["ipods"]["elapsed_s"]) / tip if tip else 0.0
    return out


def draw_timeline(timeline: dict[str, Any], title: str, path: Path) -> int:
    """Draws the step-level model's run as [IPODS] Fig. 2 does: one row per hinted block (block 1
    at the top), time across — the HDD → SSD copy, the fetch to the client (from the SSD or the
    HDD), the consumption, and the application's stalls on a row of their own below. Returns the
    number of bars drawn."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    a, c = timeline["accesses"], timeline["copies"]
    n = len(a["block"])
    s = 1e-9
    fig, ax = plt.subplots(figsize=(10, max(3.0, 0.28 * n + 1.5)))
    bars = 0
    copy_at = {
        b: (t0 * s, (t1 - t0) * s)
        for b, t0, t1 in zip(c["block"], c["start_ns"], c["arrival_ns"], strict=True)
    }
    for i, block in enumerate(a["block"]):
        y = n - i
        if block in copy_at:
            ax.broken_barh([copy_at[block]], (y - 0.4, 0.25), color="tab:green")
            bars += 1
        fetch, arrival = a["fetch_ns"][i] * s, a["arrival_ns"][i] * s
        colour = "tab:blue" if a["from_ssd"][i] else "tab:orange"
        ax.broken_barh([(fetch, arrival - fetch)], (y - 0.1, 0.45), color=colour)
        ax.plot([a["consumed_ns"][i] * s], [y + 0.12], marker="v", color="black", markersize=5)
        bars += 1
        stall = a["stall_ns"][i] * s
        if stall > 0:
            ax.broken_barh([(a["consumed_ns"][i] * s - stall, stall)], (-0.4, 0.8), color="tab:red")
            bars += 1
    ax.set_yticks([0, *range(1, n + 1)], ["stall", *[str(b) for b in reversed(a["block"])]])
    ax.set_xlabel("time (s)")
    ax.set_ylabel("hinted block")
    ax.set_title(title, fontsize=10)
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(color="tab:green", label="HDD → SSD copy"),
            Patch(color="tab:blue", label="SSD → client"),
            Patch(color="tab:orange", label="HDD → client"),
            Line2D([], [], marker="v", color="black", linestyle="", label="consumed"),
            Patch(color="tab:red", label="application stall"),
        ],
        loc="upper right",
        fontsize=8,
    )
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return bars


def cmd_plan(args: argparse.Namespace) -> int:
    from prefetchlab._table import render

    if args.figure and not args.blocks:
        raise PrefetchlabError("--figure draws the run of --blocks N: give --blocks")
    if args.figure and Path(args.figure).suffix.lower() not in FIGURE_SUFFIXES:
        raise PrefetchlabError(
            f"--figure {args.figure}: the file's name must end in .png, .svg or .pdf (the format drawn)"
        )
    times = _times(args)
    try:
        p = plan(args.max_bw, args.x_cache, times, args.blocks)
    except PrefetchlabError as e:
        flag = _FLAGS.get(e.key) if e.key else None
        raise PrefetchlabError(f"{flag}: {e.detail}" if flag else str(e)) from None
    if args.json:
        print(json.dumps({"version": engine_version, **p}, indent=2))
        _draw_figure(args, times)
        return 0
    rows = [
        ["pstart", f"{p['pstart']:,}", "block", "the first hinted block copied HDD → SSD"],
        ["pnext_offset", f"{p['pnext_offset']:,}", "blocks", "block b consumed → block b + offset copied"],
        ["depth", f"{p['depth']:,}", "copies", "concurrent HDD → SSD copies (Max_BW − X_cache)"],
        ["horizon_hdd", f"{p['horizon_hdd']:,}", "accesses", "TIP's prefetch horizon on the HDD path"],
        ["max_bw_needed", f"{p['max_bw_needed']:,}", "requests", "the Max_BW that hides every latency"],
        ["stall_ss", f"{p['stall_ss_ns'] / 1e9:.6g}", "s", "stall per X_cache accesses served from the SSD"],
    ]
    print(
        f"IPODS plan: Max_BW = {p['max_bw']}, X_cache = {p['x_cache']}; T_unit {times[0]}, "
        f"HDD → client {times[1]}, SSD → client {times[2]}, HDD → SSD {times[3]}"
    )
    print(render(["figure", "value", "unit", "meaning"], rows, align="lrll"))
    if args.blocks:
        print(f"\nthe paper's step-level model (its Fig. 2) over {args.blocks:,} hinted blocks:")
        rows = [
            [
                label,
                f"{p[key]['elapsed_s']:,.3f}",
                f"{p[key]['stall_s']:,.3f}",
                f"{p[key]['ssd_reads']:,}",
                f"{p[key]['hdd_reads']:,}",
            ]
            for label, key in (("IPODS", "ipods"), ("TIP alone", "tip_alone"))
        ]
        print(render(["", "elapsed s", "stall s", "SSD reads", "HDD reads"], rows, align="lrrrr"))
        reduction = 100 * p["elapsed_reduction"]
        more_or_less = "less" if reduction >= 0 else "more"
        print(f"IPODS takes {abs(reduction):.2f} % {more_or_less} time than TIP alone")
    _draw_figure(args, times)
    return 0


def _draw_figure(args: argparse.Namespace, times: list[str]) -> None:
    """Draws ``--figure`` (when given): the timeline of the run's first hinted blocks."""
    if not args.figure:
        return
    shown = min(args.blocks, MAX_FIGURE_BLOCKS)
    t = ipods_timeline(args.max_bw, args.x_cache, times, shown, True)
    title = (
        f"IPODS, Max_BW = {args.max_bw}, X_cache = {args.x_cache}: the first {shown} hinted blocks"
        f" (elapsed {t['elapsed_ns'] / 1e9:.6g} s, stall {t['stall_ns'] / 1e9:.6g} s)"
    )
    draw_timeline(t, title, Path(args.figure))
    print(f"figure: {args.figure}", file=sys.stderr)


def register(subparsers: Any) -> None:
    """Adds ``ipods plan`` to the CLI's subparsers."""
    t = subparsers.add_parser("ipods", help="IPODS (pipelined informed prefetching): its planning figures")
    ts = t.add_subparsers(dest="ipods_command", metavar="{plan}", required=True, parser_class=type(t))
    p = ts.add_parser(
        "plan",
        help="Pstart, the Pnext offset, the pipeline depth, TIP's HDD horizon and Max_BW needed",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--max-bw", type=_count, required=True, help="concurrent requests the storage sustains")
    p.add_argument(
        "--x-cache", type=_count, required=True, help="TIP's prefetch buffers (concurrent fetches)"
    )
    helps = {
        "t_unit": "time per access between reads (T_cpu + T_hit + T_driver)",
        "t_hdd_net": "HDD → network → client cache",
        "t_ss_net": "SSD → network → client cache",
        "t_hdd_ss": "HDD → SSD copy inside a storage node",
    }
    for key, default in PAPER_TIMES.items():
        p.add_argument(
            "--" + key.replace("_", "-"),
            dest=key,
            default=default,
            metavar="S",
            help=f"{helps[key]}: seconds or a duration with a unit (default: the paper's {default} s)",
        )
    p.add_argument(
        "--blocks",
        type=_count,
        default=0,
        metavar="N",
        help="also run the paper's step-level model over N hinted blocks, with and without IPODS",
    )
    p.add_argument(
        "--figure",
        metavar="PATH",
        help=f"draw the model's run (its first {MAX_FIGURE_BLOCKS} blocks at most) as the paper's Fig. 2 "
        "does, to PATH (.png, .svg or .pdf)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help='print {"pstart","pnext_offset","depth","horizon_hdd","max_bw_needed","stall_ss_ns",…}',
    )
    p.set_defaults(func=cmd_plan)
