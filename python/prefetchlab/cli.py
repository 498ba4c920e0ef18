"""The ``prefetchlab`` command line.

    prefetchlab run CONFIG.toml [--set key=value]... [--json]
    prefetchlab validate-disk SPEC TRACE [--override "NAME=VALUE"]... [--json]

Every error is one line ``prefetchlab: error: <message>`` on stderr with exit
code 2 (never a traceback); Ctrl-C exits with 130 quietly.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from prefetchlab import __version__
from prefetchlab._engine import PrefetchlabError
from prefetchlab._table import full_summary, render
from prefetchlab.api import simulate, validate_disk
from prefetchlab.experiments_cli import register as register_experiments

PROG = "prefetchlab"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A mistake on the command line or in an input file, reported as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but its errors are one line and go through :class:`UsageError`."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Deterministic simulator of prefetching on striped disk arrays.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)

    run = sub.add_parser(
        "run",
        help="run one configuration and print what it measured",
        description="Runs one configuration (a TOML file) and prints its metrics.",
    )
    run.add_argument("config", metavar="CONFIG.toml", help="the configuration file")
    run.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=(
            "override a key, e.g. --set array.disks=4 --set readahead.max=512KiB (repeatable); "
            "quote a key part that holds dots, as in TOML: "
            "--set 'disk.overrides.\"Read hit over. after read\"=0.2'"
        ),
    )
    run.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object {"version","config","metrics","streams","disks"} instead of tables',
    )

    val = sub.add_parser(
        "validate-disk",
        help="replay a DiskSim validation trace on a drive model and print the rms demerit",
        description="Replays a DiskSim validation trace on the drive described by SPEC "
        "(.parv or .diskspecs) and compares simulated with measured response times.",
    )
    val.add_argument("spec", metavar="SPEC", help="the drive: a DiskSim .parv or .diskspecs file")
    val.add_argument("trace", metavar="TRACE", help="the DiskSim validation trace")
    val.add_argument(
        "--override",
        dest="overrides",
        action="append",
        default=[],
        metavar='"NAME=VALUE"',
        help='set a DiskSim parameter by name, e.g. --override "Enable caching in buffer=0" (repeatable)',
    )
    val.add_argument(
        "--json",
        action="store_true",
        help='print {"rms_ms","mean_sim_ms","mean_real_ms","requests","rms_exact_ms"}',
    )
    register_experiments(sub)  # sweep, results, plot, reproduce
    return parser


def parse_override(text: str) -> tuple[str, float]:
    """``"NAME=VALUE"`` → ``(NAME, VALUE)``; NAME may hold spaces, VALUE must be a number."""
    name, sep, raw = text.rpartition("=")
    name = name.strip()
    if not sep or not name:
        raise UsageError(f'--override {text!r}: expected "NAME=VALUE", e.g. "Enable caching in buffer=0"')
    try:
        value = float(raw.strip())
    except ValueError:
        raise UsageError(f"--override {text!r}: the value {raw.strip()!r} is not a number") from None
    if not math.isfinite(value):
        raise UsageError(f"--override {text!r}: the value must be a finite number")
    return name, value


class _ProgressLine:
    """Shows a run's progress on one rewritten stderr line (only on a terminal)."""

    def __init__(self) -> None:
        self._last = 0.0

    def __call__(self, sim_s: float, duration_s: float, done: int, total: int) -> None:
        now = time.monotonic()
        if now - self._last < 0.2:
            return
        self._last = now
        simulated = f"{sim_s:.2f} / {duration_s:.2f} s" if duration_s > 0 else f"{sim_s:.2f} s"
        pct = f"{100.0 * done / total:5.1f}%, " if total else ""
        sys.stderr.write(f"\r  {pct}{done}/{total} requests, {simulated} simulated ")
        sys.stderr.flush()

    def clear(self) -> None:
        if self._last:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def cmd_run(args: argparse.Namespace) -> int:
    path = Path(args.config)
    if not path.exists():
        raise UsageError(f"{path}: no such configuration file")
    # Malformed --set values are reported by the engine, naming the key.
    progress = _ProgressLine() if not args.json and sys.stderr.isatty() else None
    try:
        report = simulate(path, args.sets, progress=progress)
    finally:
        if progress is not None:
            progress.clear()
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        title = str(path) + "".join(f" --set {s}" for s in args.sets)
        print(full_summary(report, title))
    return 0


def cmd_validate_disk(args: argparse.Namespace) -> int:
    overrides = [parse_override(o) for o in args.overrides]
    for what, p in (("drive spec", args.spec), ("trace", args.trace)):
        if not Path(p).exists():
            raise UsageError(f"{p}: no such {what} file")
    v = validate_disk(args.spec, args.trace, overrides)
    if args.json:
        keys = ("rms_ms", "mean_sim_ms", "mean_real_ms", "requests", "rms_exact_ms")
        print(json.dumps({k: v[k] for k in keys}))
        return 0
    rows = [
        ["rms demerit", f"{v['rms_ms']:.4f}", "ms"],
        ["rms demerit, exact distribution", f"{v['rms_exact_ms']:.4f}", "ms"],
        ["mean response, simulated", f"{v['mean_sim_ms']:.4f}", "ms"],
        ["mean response, measured", f"{v['mean_real_ms']:.4f}", "ms"],
        ["requests", str(int(v["requests"])), ""],
    ]
    print(f"{PROG} {__version__} — validate {args.spec} against {args.trace}")
    for name, value in overrides:
        print(f"  override {name} = {value:g}")
    print(render(["figure", "value", "unit"], rows, align="lrl"))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``prefetchlab`` console script; returns the exit code."""
    try:
        args = _build_parser().parse_args(argv)
        if hasattr(args, "func"):  # the subcommands of experiments_cli
            return int(args.func(args))
        if args.command == "run":
            return cmd_run(args)
        return cmd_validate_disk(args)
    except (UsageError, PrefetchlabError) as e:
        _error(str(e))
    except OSError as e:
        _error(f"{e.filename}: {e.strerror}" if e.filename else str(e))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as e:  # a bug: still one line, but say so
        _error(f"internal error (please report): {type(e).__name__}: {e}")
    return EXIT_USAGE


def _error(message: str) -> None:
    first = " ".join(message.split()) or "unknown error"
    try:
        sys.stderr.write(f"{PROG}: error: {first}\n")
        sys.stderr.flush()
    except OSError:
        pass


def console_main() -> NoReturn:
    """``prefetchlab`` as a process: exits with :func:`main`'s code, quietly on a closed pipe."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    sys.exit(code)


if __name__ == "__main__":
    console_main()
