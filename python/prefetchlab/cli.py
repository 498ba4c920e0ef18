"""The ``prefetchlab`` command line.

    prefetchlab run CONFIG.toml [--set key=value]... [--json] [--quiet]
    prefetchlab validate-disk SPEC TRACE [--override "NAME=VALUE"]... [--json]
    prefetchlab ipods plan --max-bw N --x-cache N [--t-unit S]... [--blocks N [--figure PATH]] [--json]

Every error is one line ``prefetchlab: error: <message>`` on stderr with exit
code 2 (never a traceback); Ctrl-C stops any command with exit code 130 and the
one line ``prefetchlab: interrupted``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from prefetchlab import engine_version
from prefetchlab._engine import PrefetchlabError
from prefetchlab.api import simulate, validate_disk
from prefetchlab.experiments_cli import add_set_option, say_warnings, warn_drives
from prefetchlab.experiments_cli import register as register_experiments
from prefetchlab.inputs import drives_in, is_disksim_file
from prefetchlab.ipods_cli import register as register_ipods
from prefetchlab.trace_cli import register as register_trace

# Start-up matters (`prefetchlab --help` and a short `run` finish in well under 0.1 s): this
# module and those it imports at the top load neither pyarrow, DuckDB, matplotlib, Dask nor
# tqdm; each is imported inside the function that uses it (tests/test_startup.py checks).

PROG = "prefetchlab"
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: Exit code after SIGTERM (128 + 15), as a shell reports a process it ended.
EXIT_TERMINATED = 143


class Terminated(BaseException):
    """SIGTERM reached the command: it stops as on Ctrl-C (a sweep ends its workers, the runs
    stored stay) and exits with :data:`EXIT_TERMINATED`."""


#: SIGTERM arrived: a library between (DuckDB in a query, the engine in a run) may turn the
#: exception it raises into its own interruption, which reaches us as KeyboardInterrupt.
_sigterm_seen = False


def _on_sigterm(signum: int, frame: object) -> None:
    global _sigterm_seen
    _sigterm_seen = True
    raise Terminated


def _stopped() -> int:
    """Says why the command stopped (Ctrl-C or SIGTERM) and gives its exit code."""
    if _sigterm_seen:
        _say(f"{PROG}: terminated")
        return EXIT_TERMINATED
    _interrupted()
    return EXIT_INTERRUPTED


class UsageError(Exception):
    """A mistake on the command line or in an input file, reported as one line."""


class _Parser(argparse.ArgumentParser):
    """argparse, but its errors are one line and go through :class:`UsageError`."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _presets_epilog() -> str:
    """The built-in drives (`disk.model`), each saying where its figures come from."""
    from prefetchlab._engine import preset_info, preset_names

    lines = ["built-in drives (disk.model; or a path to a DiskSim .diskspecs/.parv):"]
    for name in preset_names():
        info = preset_info(name)
        if info is None:
            continue
        lines.append(f"  {name:<20} {_source(info)}: {info['description']}")
    return "\n".join(lines)


def _source(info: Any) -> str:
    """Where a preset's figures come from, in words."""
    return "datasheet figures only" if info["kind"] == "datasheet" else "DiskSim description"


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Deterministic simulator of prefetching on striped disk arrays.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {engine_version}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)

    run = sub.add_parser(
        "run",
        help="run one configuration and print what it measured",
        description="Runs one configuration (a TOML file) and prints its metrics.",
        epilog=_presets_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument("config", metavar="CONFIG.toml", help="the configuration file")
    add_set_option(
        run,
        "override a key, e.g. --set array.disks=4 --set readahead.max=512KiB (repeatable); "
        "quote a key part that holds dots, as in TOML: "
        "--set 'disk.overrides.\"Read hit over. after read\"=0.2'",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help='print one JSON object {"version","config","metrics","streams","disks"} instead of tables',
    )
    run.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar (shown on a terminal when a run takes more than a second)",
    )

    val = sub.add_parser(
        "validate-disk",
        help="replay a DiskSim validation trace on a drive model and print the rms demerit",
        description="Replays a DiskSim validation trace on the drive described by SPEC "
        "(.parv or .diskspecs) and compares simulated with measured response times.",
    )
    val.add_argument("spec", metavar="SPEC", help="the drive: a DiskSim .parv or .diskspecs file")
    val.add_argument("trace", metavar="TRACE", help="the DiskSim validation trace")
    _add_override(val, "Enable caching in buffer=0")
    val.add_argument(
        "--json",
        action="store_true",
        help='print {"rms_ms","mean_sim_ms","mean_real_ms","requests","rms_exact_ms","classes"}',
    )
    drive = sub.add_parser(
        "drive",
        help="what a drive model is: capacity, rpm, zones, media and interface rates, seeks, cache",
        description="Prints a drive model's figures as the simulator reads them: a built-in "
        "preset or a DiskSim .parv/.diskspecs file, with DiskSim parameters overridden by name.",
        epilog=_presets_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    drive.add_argument("model", metavar="MODEL", help="a preset name or a DiskSim .parv/.diskspecs file")
    _add_override(drive, "Bulk sector transfer time=0.0032")
    drive.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    register_experiments(sub)  # sweep, results, plot, reproduce
    register_trace(sub)  # trace stats
    register_ipods(sub)  # ipods plan
    return parser


def _add_override(parser: argparse.ArgumentParser, example: str) -> None:
    """``--override "NAME=VALUE"`` (repeatable): a DiskSim drive parameter set by name."""
    parser.add_argument(
        "--override",
        dest="overrides",
        action="append",
        default=[],
        metavar='"NAME=VALUE"',
        help=f'set a DiskSim parameter by name, e.g. --override "{example}" (repeatable)',
    )


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


#: A run shows a progress bar once it has taken this long (wall seconds).
PROGRESS_DELAY_S = 1.0

#: The bar over application requests, and over simulated time (a run bounded by run.duration).
_BAR, _TIMES = "  {percentage:3.0f}%|{bar}| ", "{postfix} [{elapsed}<{remaining}, {rate_fmt}]"
_BY_REQUESTS = _BAR + "{n_fmt}/{total_fmt} requests" + _TIMES
_BY_TIME = _BAR + "{n:.1f}/{total:.1f} s simulated" + _TIMES


class ProgressBar:
    """The progress of ``run`` as a tqdm bar on stderr, fed by the engine's progress callback.

    Nothing is shown (and tqdm is not even imported) until the run has taken
    :data:`PROGRESS_DELAY_S`, so a short run prints nothing. The bar counts application
    requests (done / total, requests per wall second, elapsed and remaining wall time) with the
    simulated time beside them; a run bounded by ``run.duration`` counts simulated seconds
    instead (simulated seconds per wall second), with the requests beside them. Elapsed time
    and rates are counted from the start of the run, not from when the bar appears.
    :meth:`close` clears the line.
    """

    def __init__(self, delay_s: float = PROGRESS_DELAY_S) -> None:
        self._start = time.time()  # tqdm's clock
        self._delay_s = delay_s
        self._bar: Any = None
        self._by_time = False

    def __call__(self, sim_s: float, duration_s: float, done: int, total: int) -> None:
        opening = self._bar is None
        if opening:
            if time.time() - self._start < self._delay_s:
                return
            self._open(duration_s, total)
        bar = self._bar
        if self._by_time:
            bar.postfix = f"{done} requests"
            bar.update(min(round(sim_s * 1e3), bar.total) - bar.n)
        else:
            if bar.total is not None:  # a cache-only run has no clock
                bar.postfix = f"{sim_s:.1f} s simulated"
            bar.update(done - bar.n)
        if opening:
            bar.refresh()  # at once, whatever tqdm's own pacing says

    def _open(self, duration_s: float, total: int) -> None:
        from tqdm import tqdm

        self._by_time = duration_s > 0
        style: dict[str, Any] = {
            "file": sys.stderr,
            "leave": False,  # cleared at the end: the summary follows on a clean screen
            "mininterval": 0.2,
            "delay": self._delay_s,  # counted from start_t: not drawn before its first numbers
            **_stderr_size(),
        }
        if total == 0 and not self._by_time:  # a cache-only run: records read, no total known
            bar = tqdm(unit=" records", unit_scale=True, **style)
        elif self._by_time:  # counted in simulated milliseconds, shown in seconds
            total_ms = max(1, round(duration_s * 1e3))
            bar = tqdm(total=total_ms, unit=" sim s", unit_scale=1e-3, bar_format=_BY_TIME, **style)
        else:
            bar = tqdm(total=total, unit=" req", unit_scale=True, bar_format=_BY_REQUESTS, **style)
        bar.start_t = bar.last_print_t = self._start
        self._bar = bar

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _stderr_size() -> dict[str, int]:
    """tqdm's ``ncols`` and ``nrows`` from the terminal; 80 × 24 where it says 0 (a
    pseudo-terminal nobody sized), on which tqdm would otherwise print nothing at all."""
    try:
        columns, lines = os.get_terminal_size(sys.stderr.fileno())
    except (OSError, ValueError):
        columns, lines = 0, 0
    return {"ncols": (columns if columns > 0 else 80) - 1, "nrows": lines if lines > 0 else 24}


def cmd_run(args: argparse.Namespace) -> int:
    path = Path(args.config)
    if not path.exists():
        raise UsageError(f"{path}: no such configuration file")
    if path.is_dir():
        raise UsageError(f"{path}: a directory, not a configuration file")
    text = _text_of(path)
    if text is not None and (tables := _experiment_tables(text)):
        from prefetchlab.experiments_cli import EXPERIMENTS_DIR

        # reproduce finds experiments/NAME.toml by its name, any other file by its path
        named = (EXPERIMENTS_DIR / f"{path.stem}.toml").resolve() == path.resolve()
        raise UsageError(
            f"{path}: an experiment file ({', '.join(tables)}), not one run's configuration: run it "
            f"with `prefetchlab sweep {path}` or `prefetchlab reproduce {path.stem if named else path}`"
        )
    # Malformed --set values are reported by the engine, naming the key.
    progress = ProgressBar() if not args.quiet and sys.stderr.isatty() else None
    try:
        report = simulate(path, args.sets, progress=progress)
    except PrefetchlabError as e:
        raise PrefetchlabError(_where_in_file(e, path, text, args.sets)) from None
    finally:
        if progress is not None:
            progress.close()
    warn_drives(drives_in(report.config))
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        from prefetchlab._table import full_summary

        title = str(path) + "".join(f" --set {s}" for s in args.sets)
        print(full_summary(report, title))
    return 0


def _text_of(path: Path) -> str | None:
    """The file's text, or None when it is not UTF-8 text (the engine says what is wrong)."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _experiment_tables(text: str) -> list[str]:
    """The experiment-file tables ``text`` has at its top level, as written (``[experiment]``,
    ``[[claim]]``); none when it is not TOML."""
    import tomllib

    from prefetchlab.experiment import RESERVED

    try:
        top = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    return [f"[[{t}]]" if isinstance(top[t], list) else f"[{t}]" for t in RESERVED if t in top]


def _where_in_file(error: PrefetchlabError, path: Path, text: str | None, sets: Sequence[str]) -> str:
    """An engine error about a configuration key, with where that key was given: the file and
    its line, or the ``--set`` that gave it."""
    message, key = str(error), error.key
    if key is None:
        return message
    plain = key.replace('"', "")
    for given in sets:
        set_key = given.split("=", 1)[0].strip().replace('"', "").replace("'", "")
        if set_key == plain or set_key.startswith(plain + ".") or plain.startswith(set_key + "."):
            return f"--set {given}: {message}"
    from prefetchlab.experiment import key_line

    line = key_line(text, key) if text is not None else None
    where = f"{path}:{line}" if line else str(path)
    if sets:
        # the key is the file's, but a --set may be what made it wrong (a record larger than the file)
        where += " (with " + " ".join(f"--set {s}" for s in sets) + ")"
    return f"{where}: {message}"


def _drive_command_error(error: PrefetchlabError) -> str:
    """An engine error of `drive` or `validate-disk`, which take no configuration: the model
    is the command's argument and the overrides its ``--override`` options."""
    if error.key == "disk.model":
        return f"drive model: {error.detail}"
    if error.kind == "override":
        return f"--override {error.detail}"
    return str(error)


def cmd_validate_disk(args: argparse.Namespace) -> int:
    overrides = [parse_override(o) for o in args.overrides]
    for what, p in (("drive spec", args.spec), ("trace", args.trace)):
        if not Path(p).exists():
            raise UsageError(f"{p}: no such {what} file")
    try:
        v = validate_disk(args.spec, args.trace, overrides)
    except PrefetchlabError as e:
        raise PrefetchlabError(_drive_command_error(e)) from None
    warn_drives([{"kind": "hdd", "model": args.spec, "overrides": dict(overrides)}])
    if args.json:
        keys = ("rms_ms", "mean_sim_ms", "mean_real_ms", "requests", "rms_exact_ms", "classes")
        print(json.dumps({k: v[k] for k in keys}))
        return 0
    from prefetchlab._table import render  # the tables only (not imported for --json)

    rows = [
        ["rms demerit", f"{v['rms_ms']:.4f}", "ms"],
        ["rms demerit, exact distribution", f"{v['rms_exact_ms']:.4f}", "ms"],
        ["mean response, simulated", f"{v['mean_sim_ms']:.4f}", "ms"],
        ["mean response, measured", f"{v['mean_real_ms']:.4f}", "ms"],
        ["requests", str(int(v["requests"])), ""],
    ]
    print(f"{PROG} {engine_version} — validate {args.spec} against {args.trace}")
    for name, value in overrides:
        print(f"  override {name} = {value:g}")
    print(render(["figure", "value", "unit"], rows, align="lrl"))
    print()
    print("by class of request (simulated class; ms)")
    class_rows = [
        [
            c["class"],
            str(int(c["requests"])),
            # a class with no requests has no means: a dash, not 0.000
            *(
                f"{c[k]:.3f}" if c["requests"] else "—"
                for k in ("mean_sim_ms", "mean_real_ms", "rms_exact_ms")
            ),
        ]
        for c in v["classes"]
    ]
    print(
        render(
            ["class", "requests", "mean sim ms", "mean real ms", "rms exact ms"], class_rows, align="lrrrr"
        )
    )
    return 0


def cmd_drive(args: argparse.Namespace) -> int:
    from prefetchlab._engine import drive_facts, preset_info

    overrides = [parse_override(o) for o in args.overrides]
    is_file = is_disksim_file(args.model)
    if is_file and not Path(args.model).exists():
        raise UsageError(f"{args.model}: no such drive file")
    if not is_file and Path(args.model).exists():
        raise UsageError(
            f"{args.model}: not a drive: give a preset name or a DiskSim .parv or .diskspecs file "
            "(a .model, .seek or .layout file is read through the .diskspecs that sources it)"
        )
    try:
        f = drive_facts(args.model, overrides)
    except PrefetchlabError as e:
        raise PrefetchlabError(_drive_command_error(e)) from None
    info = None if is_file else preset_info(args.model)
    say_warnings(f["warnings"])  # a preset's too, when asked about it (runs leave those to the README)
    if args.json:
        out: dict[str, Any] = {"model": args.model, "overrides": dict(overrides), **f}
        out["preset"] = info
        print(json.dumps(out))
        return 0
    from prefetchlab._table import render

    source = (
        f"DiskSim description `{f['name']}`" if info is None else f"{_source(info)}: {info['description']}"
    )
    seek = (
        f"{f['seek_single_ms']:.3f} / {f['seek_mean_random_ms']:.3f} / {f['seek_full_ms']:.3f}",
        "ms (one cylinder / random / full stroke)",
    )
    cache = (
        (
            f"{f['cache_segments']} × {f['cache_segment_sectors']}",
            f"segments × sectors, read-ahead up to {f['max_readahead_sectors']} sectors",
        )
        if f["cache_enabled"]
        else ("off", "")
    )
    rows = [
        ["capacity", f"{f['capacity_sectors'] * 512 / 1e9:.2f}", f"GB ({f['capacity_sectors']:,} sectors)"],
        ["rotation", f"{f['rpm']:g}", f"rpm ({60e3 / f['rpm']:.3f} ms per revolution)"],
        ["surfaces × cylinders", f"{f['surfaces']} × {f['cylinders']:,}", ""],
        ["sectors per track", f"{f['spt_outer']} / {f['spt_inner']}", "outermost / innermost"],
        [
            "media rate",
            f"{f['media_outer_mb_s']:.1f} / {f['media_inner_mb_s']:.1f}",
            "MB/s outermost / innermost, per revolution (switches left out)",
        ],
        ["host interface", *_interface_row(f)],
        ["seek", *seek],
        ["head switch", f"{f['head_switch_ms']:g}", "ms"],
        ["drive cache", *cache],
        ["queue", str(f["queue_length"]), "requests (Max queue length)"],
    ]
    print(f"{PROG} {engine_version} — drive {args.model}")
    print(f"  {source}")
    for name, value in overrides:
        print(f"  override {name} = {value:g}")
    print(render(["figure", "value", "unit"], rows, align="lll"))
    for d in info["departures"] if info is not None else []:
        print(f"  departs from the description: {d['param']} = {d['value']:g} ({d['reason']})")
    return 0


def _interface_row(f: Any) -> list[str]:
    """The `drive` table's host-interface value and unit: its rate and time per sector, and
    what it bounds (``_table.interface_bound``)."""
    from prefetchlab._table import interface_bound

    rate = f["interface_mb_s"]
    if rate is None:
        return [
            "none",
            f"the description charges no host transfer ({f['interface_ms_per_sector']:g} ms per sector)",
        ]
    bound = interface_bound(rate, f["media_inner_mb_s"], f["media_outer_mb_s"])
    return [
        f"{rate:.1f}",
        f"MB/s ({f['interface_ms_per_sector']:g} ms per sector)" + (f", {bound}" if bound else ""),
    ]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``prefetchlab`` console script; returns the exit code."""
    try:
        args = _build_parser().parse_args(_negative_values_joined(sys.argv[1:] if argv is None else argv))
        if hasattr(args, "func"):  # the subcommands of experiments_cli
            return int(args.func(args))
        if args.command == "run":
            return cmd_run(args)
        if args.command == "drive":
            return cmd_drive(args)
        return cmd_validate_disk(args)
    except (UsageError, PrefetchlabError) as e:
        _error(str(e))
    except BrokenPipeError:
        raise  # the reader of our output went away (`| head`): console_main stops quietly
    except OSError as e:
        _error(f"{e.filename}: {e.strerror}" if e.filename else str(e))
    except (KeyboardInterrupt, Terminated):
        return _stopped()
    except Exception as e:  # a bug: still one line, but say so
        if _sigterm_seen and "interrupted" in str(e).lower():
            # DuckDB in a query turns the signal's exception into its own "Query interrupted"
            return _stopped()
        _error(f"internal error (please report): {type(e).__name__}: {e}")
    return EXIT_USAGE


def _negative_values_joined(argv: Sequence[str]) -> list[str]:
    """``--opt -1s`` as ``--opt=-1s``: argparse takes a token starting with ``-`` for an option
    unless it is a plain number, so a negative duration would be refused as "expected one
    argument" instead of by the option's own check, which says what it wants."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and re.match(r"-\.?\d", arg):
            out[-1] += "=" + arg
        else:
            out.append(arg)
    return out


def _error(message: str) -> None:
    first = " ".join(message.split()) or "unknown error"
    _say(f"{PROG}: error: {first}")


def _interrupted() -> None:
    _say(f"{PROG}: interrupted")


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except OSError:
        pass


def console_main() -> NoReturn:
    """``prefetchlab`` as a process: exits with :func:`main`'s code, quietly on a closed pipe."""
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader (e.g. `| head`) went away: stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 0
    except (KeyboardInterrupt, Terminated):  # a second signal, or one outside main()
        code = _stopped()
    sys.exit(code)


if __name__ == "__main__":
    console_main()
