"""The command-line subcommands for experiments: sweep, results, plot, reproduce.

``register(subparsers)`` adds them to the ``prefetchlab`` parser (python/prefetchlab/cli.py);
each sets ``func`` to a handler taking the parsed arguments and returning an exit code. Bad
input raises :class:`prefetchlab.PrefetchlabError`, which the CLI prints as
``prefetchlab: error: ...`` with exit code 2.

An EXPERIMENT argument is a path to an experiment file, or a name ``NAME`` standing for
``experiments/NAME.toml`` under the current directory. The results database defaults to
``results.duckdb`` next to the experiment file.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prefetchlab import engine_version
from prefetchlab._engine import PrefetchlabError
from prefetchlab.inputs import disksim_file, drives_in

if TYPE_CHECKING:
    from prefetchlab.experiment import Experiment

# The modules behind the subcommands (experiment files, the sweep runner, DuckDB, matplotlib,
# Dask) are imported by the handler that needs them, so that `prefetchlab run` and `--help`
# do not pay for them.

EXPERIMENTS_DIR = Path("experiments")
#: Metrics shown by ``results show`` when the experiment's figures name none.
DEFAULT_SHOWN = ("bandwidth_mb_s", "latency_mean_ms", "hit_ratio", "disk_requests")


def find_experiment(arg: str) -> Path:
    """A path, or ``experiments/NAME.toml``."""
    from prefetchlab.experiment import ExperimentError

    path = Path(arg)
    if path.is_file():
        return path
    named = EXPERIMENTS_DIR / f"{arg}.toml"
    if named.is_file():
        return named
    raise ExperimentError(f"no experiment `{arg}`: neither a file nor {named}")


def find_experiments(arg: str) -> list[Path]:
    """A path, ``experiments/NAME.toml``, or the group ``experiments/NAME-*.toml`` (one file
    per figure of a paper: ``reproduce tc09`` runs every ``tc09-*.toml``)."""
    from prefetchlab.experiment import ExperimentError

    path = Path(arg)
    if path.is_file() or (EXPERIMENTS_DIR / f"{arg}.toml").is_file():
        return [find_experiment(arg)]
    group = sorted(EXPERIMENTS_DIR.glob(f"{arg}-*.toml")) if "/" not in arg else []
    if group:
        return group
    raise ExperimentError(
        f"no experiment `{arg}`: neither a file, nor {EXPERIMENTS_DIR / (arg + '.toml')}, "
        f"nor a group {EXPERIMENTS_DIR / (arg + '-*.toml')}"
    )


def all_experiments() -> list[Path]:
    """Every file under experiments/ that is an experiment (has an [experiment] table)."""
    import tomllib

    from prefetchlab.experiment import ExperimentError

    found = []
    for path in sorted(EXPERIMENTS_DIR.glob("*.toml")):
        try:
            if "experiment" in tomllib.loads(path.read_text()):
                found.append(path)
        except (OSError, tomllib.TOMLDecodeError):
            found.append(path)  # reported properly when loaded
    if not found:
        raise ExperimentError(f"no experiment files (with an [experiment] table) under {EXPERIMENTS_DIR}/")
    return found


def _db(args: argparse.Namespace, exp: Experiment | None) -> Path:
    """--db; else next to the experiment; else ./results.duckdb or experiments/results.duckdb
    (where sweeps of the experiments under experiments/ store theirs), whichever exists."""
    if args.db:
        return Path(args.db)
    if exp is not None:
        return exp.default_db()
    here = Path("results.duckdb")
    shared = EXPERIMENTS_DIR / "results.duckdb"
    return shared if not here.exists() and shared.exists() else here


def say_warnings(warnings: Iterable[str]) -> None:
    """One ``prefetchlab: warning:`` line on stderr each."""
    for warning in warnings:
        print(f"prefetchlab: warning: {' '.join(warning.split())}", file=sys.stderr, flush=True)


def warn_drives(disks: Iterable[dict[str, Any]]) -> None:
    """What the DiskSim reader tolerated in each drive description a user gave (a .parv or
    .diskspecs path; each file and set of overrides once), one ``prefetchlab: warning:`` line
    per flaw on stderr, as DiskSim itself reads past them: e.g. a `Block count` the zones do
    not hold. The built-in presets' departures are in the README, not repeated on every run.
    A file that cannot be read is left to the run, which reports it as an error."""
    from prefetchlab._engine import PrefetchlabError, drive_facts

    seen: set[tuple[str, tuple[tuple[str, float], ...]]] = set()
    for disk in disks:
        model = disksim_file(disk)
        if model is None:
            continue
        overrides = tuple(sorted((k, float(v)) for k, v in disk.get("overrides", {}).items()))
        if (model, overrides) in seen:
            continue
        seen.add((model, overrides))
        try:
            say_warnings(drive_facts(model, list(overrides))["warnings"])
        except PrefetchlabError:
            continue


def _run_disks(exp: Experiment) -> Iterator[dict[str, Any]]:
    """The drives of an experiment's runs."""
    for r in exp.runs:
        yield from drives_in(json.loads(r.config_json))


def cmd_sweep(args: argparse.Namespace) -> int:
    from prefetchlab.experiment import load_experiment
    from prefetchlab.runner import sweep

    exp = load_experiment(args.experiment, args.sets, args.variant)
    warn_drives(_run_disks(exp))
    _warn_unchanged([exp])
    s = sweep(exp, _db(args, exp), args.scheduler, args.workers, args.force, args.quiet)
    if not args.quiet:
        print(s.line())
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from prefetchlab.results import ResultsDB, ResultsError

    out = _out_dir(args.parquet, "--parquet")  # a bad output path is said first, whatever the database
    db = ResultsDB(_db(args, None))
    if not db.exists():
        raise ResultsError(f"{db.path}: no such results database")
    version = None if args.all_builds else engine_version
    written = db.export_parquet(out, version)
    for path, n in written:
        print(f"{path} ({n} runs)")
    if version is not None:
        _say_other_builds(db.count_other_versions(None, version))
        if not written:
            raise ResultsError(f"{db.path}: no runs of this engine build ({version}) to export: --all-builds")
    return 0


def _say_other_builds(n: int) -> None:
    """The line saying how many rows of other engine builds were left out, if any."""
    if n:
        print(
            f"({n} runs stored by other engine builds left out: they would be run again; "
            "--all-builds keeps them)"
        )


def _show_rows(exp: Experiment | None, rows: list[dict[str, Any]]) -> tuple[list[str], list[list[str]]]:
    if exp is not None:
        keys = [a.key for a in exp.axes]
        metrics = list(dict.fromkeys(f.y for f in exp.figures)) or list(DEFAULT_SHOWN)
        by_id = {r.run_id: r for r in exp.runs}
        order = {r.run_id: i for i, r in enumerate(exp.runs)}
        rows = sorted((r for r in rows if r["run_id"] in by_id), key=lambda r: order[r["run_id"]])
        labels = [[str(by_id[r["run_id"]].point[k]) for k in keys] for r in rows]
    else:
        from prefetchlab._engine import key_units
        from prefetchlab.experiment import flatten

        flats = [flatten(json.loads(r["config"])) for r in rows]
        seen: dict[str, set[str]] = {}
        for f in flats:
            for k, v in f.items():
                seen.setdefault(k, set()).add(json.dumps(v))
        keys = sorted(k for k, values in seen.items() if len(values) > 1 or any(k not in f for f in flats))
        metrics = list(DEFAULT_SHOWN)
        units = key_units()
        # in the order of the values that vary, the first key first (numbers as numbers)
        by_values = sorted(range(len(rows)), key=lambda i: [_sort_key(flats[i].get(k)) for k in keys])
        rows, flats = [rows[i] for i in by_values], [flats[i] for i in by_values]
        labels = [[_stored_value(f.get(k), units.get(k)) for k in keys] for f in flats]
    headers = ["run_id", *keys, *metrics, "wall_s"]
    body = [
        [r["run_id"], *lab, *(_num(r.get(m)) for m in metrics), _num(r.get("wall_s"))]
        for r, lab in zip(rows, labels, strict=True)
    ]
    return headers, body


def _sort_key(v: Any) -> tuple[int, float | int, str]:
    """Numbers before words, numbers by value (exactly: ints are not made floats); a key the
    run does not have last."""
    if v is None:
        return (2, 0, "")
    if isinstance(v, int | float) and not isinstance(v, bool):
        return (0, v, "")
    return (1, 0, json.dumps(v))


def _stored_value(v: Any, unit: str | None) -> str:
    """A value of a stored (resolved) configuration with its unit, as a file would give it:
    ``256 KiB``, ``78125000 KiB``, ``250 MB/s``, ``60 s``; a whole float as a whole number; nothing for a key
    the run does not have."""
    from prefetchlab._table import fmt_bytes, fmt_duration_ns

    if v is None:
        return ""
    if isinstance(v, int) and not isinstance(v, bool) and unit is not None:
        if unit == "ns":
            return fmt_duration_ns(v)
        if unit == "B/s":
            return f"{v / 1e6:g} MB/s"
        # binary units only: a configuration reads 80GB as 80 GiB
        return fmt_bytes(v)
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return v if isinstance(v, str) else json.dumps(v)


def _num(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)


def cmd_show(args: argparse.Namespace) -> int:
    from prefetchlab.experiment import ExperimentError, check_variant, load_experiment
    from prefetchlab.results import ResultsDB, ResultsError, format_table

    exp: Experiment | None
    check_variant(args.sets, args.variant)  # also when no file stands behind the name
    try:
        exp = load_experiment(find_experiment(args.experiment), args.sets, args.variant)
        name = exp.name
    except ExperimentError:
        if Path(args.experiment).suffix == ".toml" or args.sets:
            raise
        exp, name = None, args.experiment  # a name with no file: show what the database holds
    db = ResultsDB(_db(args, exp))
    version = None if args.all_builds else engine_version
    rows = db.rows(name, version)
    if not rows:
        other = db.count_other_versions(name, engine_version) if version is not None else 0
        more = f" by this engine build ({other} by others: --all-builds)" if other else ""
        raise ResultsError(f"{db.path}: no stored runs of experiment `{name}`{more}")
    headers, body = _show_rows(exp, rows)
    print(format_table(headers, body))
    total = f" of {len(exp.runs)}" if exp is not None else ""
    print(f"{len(body)}{total} runs of {name} in {db.path}")
    if version is not None:
        _say_other_builds(db.count_other_versions(name, version))
    return 0


def _out_dir(name: str, flag: str) -> Path:
    """The directory ``flag`` names for a command's output (made when absent); an existing file
    there is an error naming the flag, before any work is done."""
    path = Path(name)
    if path.exists() and not path.is_dir():
        raise PrefetchlabError(f"{flag} {name}: a file, not a directory (the output goes in a directory)")
    return path


def cmd_plot(args: argparse.Namespace) -> int:
    from prefetchlab.experiment import ExperimentError, load_experiment
    from prefetchlab.plot import draw
    from prefetchlab.results import ResultsDB

    # every file checked before any is drawn, as reproduce does
    paths = [p for n in args.experiments for p in find_experiments(n)]
    experiments = [load_experiment(p, args.sets, args.variant) for p in paths]
    for exp in experiments:
        if not exp.figures and len(paths) == 1:
            raise ExperimentError(f"{exp.path}: no [[figure]] to draw")
    out = _out_dir(args.out, "--out")
    for exp in experiments:
        rows = ResultsDB(_db(args, exp)).rows(exp.name)
        for d in draw(exp, rows, out):
            print(d.png)
            print(d.svg)
    return 0


def _warn_unchanged(experiments: Iterable[Experiment]) -> None:
    """A warning for each experiment whose --sets give what its file already gives."""
    say_warnings(
        f"{' '.join('--set ' + s for s in exp.sets)}: the file already gives these values, so "
        f"{exp.name}'s runs are those of {exp.name.rsplit('+', 1)[0]} (copied where stored)"
        for exp in experiments
        if exp.sets_change_nothing
    )


def cmd_reproduce(args: argparse.Namespace) -> int:
    from prefetchlab.experiment import SetError, load_experiment
    from prefetchlab.plot import draw
    from prefetchlab.report import ExperimentReport, write_report
    from prefetchlab.results import ResultsDB
    from prefetchlab.runner import sweep

    paths = [p for n in args.names for p in find_experiments(n)] if args.names else all_experiments()
    # every file checked before any run; with --set, every file's refusal said at once
    experiments, refused = [], []
    for p in paths:
        try:
            experiments.append(load_experiment(p, args.sets, args.variant))
        except SetError as e:  # a file's own error is raised as it comes
            refused.append((p, e))
    if refused:
        more = ", ".join(p.stem for p, _ in refused[1:])
        also = f" ({len(refused) - 1} more refuse the --set too: {more}; name the experiments to run)"
        raise SetError(f"{refused[0][1]}{also if more else ''}")
    _warn_unchanged(experiments)
    warn_drives(d for exp in experiments for d in _run_disks(exp))
    out = _out_dir(args.out, "--out")
    reports = []
    quiet = args.quiet or args.json
    for exp in experiments:
        db = _db(args, exp)
        s = sweep(exp, db, args.scheduler, args.workers, args.force, quiet)
        if not quiet:
            print(s.line())
        rows = ResultsDB(db).rows(exp.name)
        figures = draw(exp, rows, out / "figures")
        stored = len({r["run_id"] for r in rows} & {r.run_id for r in exp.runs})
        reports.append(ExperimentReport(exp, figures, exp.check_claims(rows), stored))
    page = write_report(reports, out, engine_version)
    claims = [c for rep in reports for c in rep.claims]
    if args.json:
        print(json.dumps({"claims": [c.to_json() for c in claims]}, indent=2, ensure_ascii=False))
    else:
        for c in claims:
            word = "holds" if c.holds else ("not run" if c.outcome is None else "DOES NOT HOLD")
            print(f"  [{word}] {c.experiment}: {c.claim.text}")
        print(f"report: {page.resolve()}")
    return 0


def add_set_option(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--set KEY=VALUE`` (repeatable, into ``args.sets``): of `run` and of the experiment
    commands."""
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help=help_text)


def _variant_args(p: argparse.ArgumentParser) -> None:
    """--set and --variant: every run of the experiment changed, stored as NAME+VARIANT."""
    add_set_option(
        p,
        "change every run, as `prefetchlab run --set` does (repeatable; not an axis of the "
        "experiment); the runs are stored and reported as NAME+VARIANT",
    )
    p.add_argument(
        "--variant",
        metavar="LABEL",
        help="the VARIANT of NAME+VARIANT (default: set- and a digest of what the --sets change in the file)",
    )


def register(subparsers: Any) -> None:
    """Adds sweep, results (export, show), plot and reproduce to the CLI's subparsers."""
    p = subparsers.add_parser("sweep", help="run every configuration of an experiment file")
    p.add_argument("experiment", metavar="EXPERIMENT.toml")
    p.add_argument(
        "--db", metavar="FILE", help="results database (default: results.duckdb next to the experiment)"
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDR|local-cluster",
        help="run on a Dask cluster: tcp://HOST:PORT, or local-cluster to start one here",
    )
    p.add_argument("--workers", type=int, metavar="N", help="worker processes (default: one per core)")
    p.add_argument("--force", action="store_true", help="rerun runs already stored")
    p.add_argument("--quiet", action="store_true", help="no progress bar, no summary")
    _variant_args(p)
    p.set_defaults(func=cmd_sweep)

    r = subparsers.add_parser("results", help="stored results: export or show")
    rs = r.add_subparsers(
        dest="results_command", metavar="{export,show}", required=True, parser_class=type(r)
    )
    e = rs.add_parser("export", help="write the results as Parquet, one file per experiment")
    e.add_argument("--parquet", metavar="DIR", required=True)
    e.add_argument(
        "--db",
        metavar="FILE",
        help="results database (default: ./results.duckdb, else experiments/results.duckdb)",
    )
    builds = "also runs stored by other engine builds (by default only this build's, the ones a sweep reuses)"
    e.add_argument("--all-builds", action="store_true", help=builds)
    e.set_defaults(func=cmd_export)
    s = rs.add_parser("show", help="print an experiment's stored runs as a table")
    s.add_argument("experiment", metavar="EXPERIMENT")
    s.add_argument("--db", metavar="FILE")
    s.add_argument("--all-builds", action="store_true", help=builds)
    _variant_args(s)
    s.set_defaults(func=cmd_show)

    pl = subparsers.add_parser("plot", help="draw an experiment's figures (PNG and SVG)")
    pl.add_argument(
        "experiments",
        nargs="+",
        metavar="NAME",
        help="experiments (a file, or experiments/NAME.toml), or groups NAME-*.toml such as tc09",
    )
    pl.add_argument("--db", metavar="FILE")
    pl.add_argument("--out", metavar="DIR", default="plots", help="output directory (default: plots)")
    _variant_args(pl)
    pl.set_defaults(func=cmd_plot)

    rp = subparsers.add_parser(
        "reproduce", help="run experiments, check their claims, write report/index.html"
    )
    rp.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="experiments, or groups NAME-*.toml such as tc09 (default: every one under experiments/)",
    )
    rp.add_argument("--out", metavar="DIR", default="report", help="report directory (default: report)")
    rp.add_argument("--json", action="store_true", help='print {"claims": [...]} as JSON')
    rp.add_argument(
        "--db", metavar="FILE", help="one results database for all (default: next to each experiment)"
    )
    rp.add_argument("--scheduler", metavar="ADDR|local-cluster")
    rp.add_argument("--workers", type=int, metavar="N")
    rp.add_argument("--force", action="store_true")
    rp.add_argument("--quiet", action="store_true")
    _variant_args(rp)
    rp.set_defaults(func=cmd_reproduce)
