"""The ``trace`` subcommands: ``trace stats FILE [--format F] [--json]`` and
``trace convert FILE --to lcs-csv OUT [--block SIZE]``.

``register(subparsers)`` adds them to the ``prefetchlab`` parser (python/prefetchlab/cli.py);
each sets ``func`` to a handler returning an exit code. The reading is the engine's
(``crates/prefetchlab/src/trace``); a malformed record is a
:class:`prefetchlab.PrefetchlabError` naming the file, line and field, which the CLI prints
as one line with exit code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prefetchlab import engine_version
from prefetchlab._engine import PrefetchlabError, trace_convert, trace_formats, trace_stats

#: The formats ``--format`` names (``auto``: told from the content), as the engine knows them.
FORMATS = ("auto", *trace_formats())
#: What ``trace convert --to`` writes.
OUTPUTS = ("lcs-csv",)
#: A progress line appears once reading has taken this long (a terminal only).
PROGRESS_DELAY_S = 1.0


class _FileProgress:
    """How far into the trace file the reading has got, as a tqdm bar on stderr over the file's
    bytes (compressed bytes for a compressed trace), the records read beside it; shown once the
    reading has taken :data:`PROGRESS_DELAY_S` (tqdm imported only then)."""

    def __init__(self, path: Path) -> None:
        self._start = time.time()
        self._total = path.stat().st_size
        self._bar: Any = None

    def __call__(self, records: int, file_bytes: int) -> None:
        if self._bar is None:
            if time.time() - self._start < PROGRESS_DELAY_S:
                return
            from tqdm import tqdm

            self._bar = tqdm(
                total=self._total,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                file=sys.stderr,
                leave=False,
                mininterval=0.2,
            )
            self._bar.start_t = self._start
        self._bar.postfix = f"{records:,} records"
        self._bar.update(min(file_bytes, self._total) - self._bar.n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def _with_progress(
    args: argparse.Namespace, path: Path, read: Callable[[_FileProgress | None], dict[str, Any]]
) -> dict[str, Any]:
    """``read(bar)``, with a progress bar on a terminal (not with ``--quiet``), closed after."""
    bar = _FileProgress(path) if not args.quiet and sys.stderr.isatty() else None
    try:
        return read(bar)
    finally:
        if bar is not None:
            bar.close()


def _count(text: str) -> int:
    """``--skip-bad``'s N: a whole number ≥ 0."""
    try:
        n = int(text)
    except ValueError:
        n = -1
    if n < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number ≥ 0, got {text!r}")
    return n


def _trace_file(name: str) -> Path:
    path = Path(name)
    if path.is_dir():
        raise PrefetchlabError(f"{path}: a directory, not a trace file")
    if not path.is_file():
        raise PrefetchlabError(f"{path}: no such trace file")
    return path


def _block(text: str) -> int:
    """``--block``: a size such as ``4KiB`` or a number of bytes, a multiple of 512 bytes from
    512B to 1GiB (what ``array_cache.block`` may be)."""
    from prefetchlab._engine import parse_size

    # argparse names the option itself ("argument --block: ...")
    try:
        n = parse_size(text, "--block")
    except PrefetchlabError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--block: ")) from None
    if not 512 <= n <= 1 << 30 or n % 512:
        raise argparse.ArgumentTypeError(f"expected a multiple of 512 bytes from 512B to 1GiB, got {text!r}")
    return n


def cmd_convert(args: argparse.Namespace) -> int:
    path = _trace_file(args.file)
    fmt = None if args.format == "auto" else args.format
    done = _with_progress(
        args,
        path,
        lambda bar: trace_convert(
            str(path), args.out, args.to, fmt, args.block, bar, args.blk_event, args.skip_bad
        ),
    )
    print(
        f"{path} ({done['format']}): {done['records']:,} records → {args.out}: "
        f"{done['blocks']:,} lines of {args.block}-byte blocks ({args.to})"
    )
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from prefetchlab._table import fmt_bytes, render

    path = _trace_file(args.file)
    fmt = None if args.format == "auto" else args.format
    s = _with_progress(
        args, path, lambda bar: trace_stats(str(path), fmt, args.block, bar, args.blk_event, args.skip_bad)
    )
    if args.json:
        print(json.dumps({**s, "sizes": [{"up_to_bytes": b, "requests": n} for b, n in s["sizes"]]}))
        return 0
    records = max(1, s["records"])
    rows = [
        ["format", s["format"], ""],
        ["records", f"{s['records']:,}", ""],
        ["reads", f"{s['reads']:,}", f"{100 * s['reads'] / records:.2f} %"],
        ["writes", f"{s['writes']:,}", f"{100 * s['writes'] / records:.2f} %"],
        ["bytes read", f"{s['read_bytes']:,}", "B"],
        ["bytes written", f"{s['write_bytes']:,}", "B"],
        [
            "footprint",
            f"{s['footprint_blocks']:,}",
            f"{fmt_bytes(args.block)} blocks ({s['footprint_blocks'] * args.block / 2**20:,.1f} MiB)",
        ],
        ["streams", f"{s['streams']:,}", "ASU / device / volume"],
        ["time span", f"{s['span_s']:.3f}", "s"],
        ["sequential (strict)", f"{s['sequential_fraction']:.4f}", "of requests"],
        ["sequential (any of last 8)", f"{s['interleaved_sequential_fraction']:.4f}", "of requests"],
    ]
    if args.skip_bad:
        first = s["first_skipped_line"]
        at = f"; the first at line {first:,}" if first else ""
        rows.append(["bad records skipped", f"{s['skipped_records']:,}", f"of at most {args.skip_bad:,}{at}"])
    back = s["out_of_order_records"]
    rows.append(["out of time order", f"{back:,}", "records before the previous record's time"])
    if back:
        first = s["first_out_of_order_line"]
        rows.append(["longest step back", f"{s['max_step_back_s']:.6f}", "s"])
        if first:
            rows.append(["first out of order", f"{first:,}", "line of the file"])
    print(f"prefetchlab {engine_version} — trace stats {path}")
    print(render(["figure", "value", "unit"], rows, align="lrl"))
    if back:
        print("(a replay issues records in file order: one timed before the record ahead arrives with it)")
    print()
    print("request sizes")
    print(
        render(
            ["up to", "requests", "share"],
            [[fmt_bytes(b), f"{n:,}", f"{100 * n / records:.2f} %"] for b, n in s["sizes"]],
            align="rrr",
        )
    )
    return 0


def register(subparsers: Any) -> None:
    """Adds ``trace stats`` and ``trace convert`` to the CLI's subparsers."""
    t = subparsers.add_parser(
        "trace", help="block traces: what a trace file holds; conversion for other tools"
    )
    ts = t.add_subparsers(
        dest="trace_command", metavar="{stats,convert}", required=True, parser_class=type(t)
    )
    s = ts.add_parser(
        "stats",
        help="records, reads / writes, footprint, request sizes and sequentiality of a trace",
        description="Reads a block trace once (compressed or not) and prints what it holds.",
    )
    _reading_options(s)
    s.add_argument(
        "--json",
        action="store_true",
        help='print {"records","reads","writes","footprint_blocks","span_s","sequential_fraction",…}',
    )
    s.set_defaults(func=cmd_stats)
    c = ts.add_parser(
        "convert",
        help="write a trace as libCacheSim's csv (one line per cache block), for other tools",
        description="Reads a block trace once and writes it as --to OUT: lcs-csv is libCacheSim's csv "
        "with the header time,obj_id,obj_size,op — time in µs from the first record, obj_id the "
        "block number (offset / --block), obj_size the bytes asked of that block — the block "
        'sequence run.mode = "cache-only" simulates.',
    )
    _reading_options(c)
    c.add_argument("--to", choices=OUTPUTS, required=True, help="the output format")
    c.add_argument("out", metavar="OUT", help="the file to write (replaced when complete)")
    c.set_defaults(func=cmd_convert)


def _reading_options(p: argparse.ArgumentParser) -> None:
    """What ``trace stats`` and ``trace convert`` share: the file and how to read it."""
    p.add_argument("file", metavar="FILE", help="the trace file")
    p.add_argument(
        "--format", choices=FORMATS, default="auto", help="the trace format (default: told from the content)"
    )
    p.add_argument(
        "--blk-event",
        choices=("D", "Q"),
        default="D",
        help="blkparse: the event taken as requests, D (issued to the device) or Q (queued)",
    )
    p.add_argument(
        "--skip-bad",
        type=_count,
        default=0,
        metavar="N",
        help="skip (and count) malformed records of a text format, at most N, the bad lines --format auto "
        "passes over among the first lines included (default 0: stop at the first)",
    )
    p.add_argument(
        "--block",
        type=_block,
        default=4096,
        metavar="SIZE",
        help="the block footprints and lcs-csv lines count in, and an lcs-csv or oracle input's "
        "obj_id unit, e.g. 4KiB (default 4KiB)",
    )
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no progress line (shown on a terminal when reading takes over a second)",
    )
