"""Experiment files: a configuration whose lists are sweep axes, plus figures and claims.

An experiment TOML is an ordinary configuration (sections ``array``, ``disk``, …, ``output``)
with four more tables:

``[experiment]``
    ``name`` (defaults to the file's stem), ``title``, ``description``.
``[sweep]``
    ``[[sweep.only]]`` and ``[[sweep.exclude]]`` tables of dotted key → value (or a list of
    values, meaning any of them). A run is kept when it matches at least one ``only`` table
    (if there are any) and no ``exclude`` table; it matches a table when it matches each pair.
    An ``only`` table may name a ``group`` (a string): a run must then match one table of
    every group — for two pairings that cross, such as each scheme with its sizes and each
    trace with its format.
``[[figure]]``
    ``name``, ``title``, ``x`` (a configuration key or a metric), ``y`` (a metric), optional
    ``series`` and ``facets`` (configuration keys), ``logx``/``logy`` and ``units`` (the y
    axis's unit as a string, or a table ``{ x = "...", y = "..." }``).
``[[claim]]``
    ``text`` (the statement, as the paper says it), ``check`` (see :mod:`prefetchlab.claims`),
    the reference set beside ours: ``paper`` (a published figure: the paper's number or
    words) or ``expected`` (an expectation that is not a published figure, with ``source``
    saying where it comes from; ``source`` may also name where in the paper a ``paper``
    figure is), optional ``where`` (a selector table added to every term), ``ours`` (an
    expression) and ``figure`` (the figure it belongs to; the first figure by default).

In the configuration sections, a list where one value is expected makes that key an axis;
the runs are the cartesian product of the axes, in the order they appear in the file. Every
run's configuration is resolved and checked by the engine when the file is loaded, so an
unknown key or a bad value is reported before any run starts. A run's id is a hash of its
resolved configuration (canonical JSON), so it does not depend on how the file spells a value
(``"512KiB"`` or ``524288``), on the order of the axes, or on the experiment's name.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import json
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefetchlab import _engine
from prefetchlab._engine import PrefetchlabError
from prefetchlab.claims import (
    Check,
    ClaimError,
    Outcome,
    Scalar,
    Wanted,
    bind,
    evaluate,
    parse_check,
    unknown_metric,
)
from prefetchlab.schema import numeric_metrics

#: Tables of an experiment file that are not part of the engine's configuration.
RESERVED = ("experiment", "sweep", "figure", "claim")
#: Largest sweep accepted (a typo such as a 10^6-element list is caught early): runs kept.
MAX_RUNS = 100_000
#: Largest product of the axes' lengths, before [[sweep.only]] / [[sweep.exclude]] filter it.
MAX_POINTS = 2_000_000


class ExperimentError(PrefetchlabError):
    """A bad experiment file; the message names the file and the key."""


class SetError(ExperimentError):
    """An experiment refused because of its ``--set`` overrides (the file alone loads); the
    message names the set."""


@dataclass(frozen=True)
class Axis:
    key: str
    values: tuple[Scalar, ...]


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep."""

    run_id: str
    #: Axis key → the value as written in the experiment file.
    point: dict[str, Scalar]
    #: The resolved configuration as canonical JSON (sorted keys, no spaces).
    config_json: str
    #: The resolved configuration flattened to dotted keys.
    flat: dict[str, Any]


@dataclass(frozen=True)
class Figure:
    name: str
    title: str
    x: str
    y: str
    series: str | None = None
    facets: str | None = None
    logx: bool = False
    logy: bool = False
    xunits: str = ""
    yunits: str = ""
    #: The runs drawn (``where``: key = value, or a list of values): all when None.
    run_ids: frozenset[str] | None = None
    #: ``lines`` (a metric against a key), or ``timeline``: one ``[topology]`` run's first
    #: ``reads`` hinted reads as [IPODS] Fig. 2 draws them (copies, fetches, stalls).
    kind: str = "lines"
    reads: int = 0


@dataclass
class Claim:
    text: str
    check_text: str
    #: A published figure (the paper's number or words), or None.
    paper: Scalar | None
    figure: str | None
    where: dict[str, Scalar]
    check: Check
    #: An expectation that is not a published figure, or None; then ``source`` says whose.
    expected: Scalar | None = None
    #: Where the reference comes from (required with ``expected``).
    source: str | None = None

    @property
    def reference_kind(self) -> str | None:
        """``"paper"`` (a published figure), ``"expected"`` (not published), or None."""
        return "paper" if self.paper is not None else "expected" if self.expected is not None else None


@dataclass(frozen=True)
class ClaimResult:
    """A claim checked over the stored results (``outcome`` is None while runs are missing)."""

    experiment: str
    claim: Claim
    outcome: Outcome | None
    missing_runs: int

    @property
    def holds(self) -> bool:
        return self.outcome is not None and self.outcome.holds

    def to_json(self) -> dict[str, Any]:
        """``{"experiment", "claim", "paper", "expected", "source", "ours", "holds"}``: ``paper``
        is a published figure, ``expected`` an expectation that is not one (each null when the
        claim has none), ``source`` where it comes from; ``ours`` is null without data."""
        ours = self.outcome.ours if self.outcome is not None else None
        if ours is not None and not math.isfinite(ours):
            ours = None
        return {
            "experiment": self.experiment,
            "claim": self.claim.text,
            "paper": self.claim.paper,
            "expected": self.claim.expected,
            "source": self.claim.source,
            "ours": ours,
            "holds": self.holds,
        }


@dataclass
class Experiment:
    path: Path
    name: str
    title: str
    description: str
    source: str
    axes: list[Axis]
    runs: list[RunSpec]
    figures: list[Figure] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    #: The ``--set KEY=VALUE`` overrides every run was given (its name then ends ``+VARIANT``).
    sets: tuple[str, ...] = ()
    #: The sets leave every run's resolved configuration as the file has it (the file already
    #: gives those values): the variant's runs are the file's own.
    sets_change_nothing: bool = False

    def default_db(self) -> Path:
        """``results.duckdb`` next to the experiment file."""
        return self.path.parent / "results.duckdb"

    def select(self, selector: Mapping[str, Wanted]) -> list[str]:
        """Ids of the runs whose resolved configuration matches every key=value (a tuple of
        values: any of them)."""
        canon = {
            k: [self._canon(k, x) for x in (v if isinstance(v, tuple) else (v,))] for k, v in selector.items()
        }
        return [r.run_id for r in self.runs if all(r.flat.get(k) in v for k, v in canon.items())]

    def replicates(self, ids: list[str]) -> list[list[str]]:
        """``ids`` grouped by configuration but for ``run.seed``, in order: the seeds of one
        configuration are replicates, whose mean a claim takes."""
        by_id = {r.run_id: r for r in self.runs}
        groups: dict[str, list[str]] = {}
        for i in ids:
            flat = {k: v for k, v in by_id[i].flat.items() if k != "run.seed"}
            groups.setdefault(json.dumps(flat, sort_keys=True, default=str), []).append(i)
        return list(groups.values())

    def label(self, key: str, resolved: Any) -> str:
        """How a resolved value of ``key`` is shown: as the file wrote it when it is an axis."""
        for r in self.runs:
            if key in r.point and r.flat.get(key) == resolved:
                return Path(str(r.point[key])).name if key in _PATH_KEYS else str(r.point[key])
        return str(resolved)

    def check_claims(self, rows: Sequence[Mapping[str, Any]]) -> list[ClaimResult]:
        """Checks every claim over stored rows; a claim missing runs is reported, not checked."""
        values = {r["run_id"]: r for r in rows}
        out = []
        for c in self.claims:
            needed = {rid for t in c.check.terms() for rid in t.run_ids}
            missing = sorted(needed - values.keys())
            outcome = None if missing else evaluate(c.check, values)
            out.append(ClaimResult(self.name, c, outcome, len(missing)))
        return out

    def _canon(self, key: str, value: Scalar) -> Any:
        try:
            return _canonical(self.runs[0].config_json, key, value, self.path)
        except ExperimentError:
            # a value that only makes a run with other axes' values (256 streams need the
            # smaller file): take it as resolved in a run whose point has it as written
            for r in self.runs:
                if r.point.get(key) == value:
                    return r.flat.get(key)
            raise


def run_id(config_json: str) -> str:
    """The stable id of a run: 16 hex digits of the SHA-256 of its canonical resolved JSON."""
    canonical = json.dumps(json.loads(config_json), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def flatten(tree: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` → ``{"a.b": 1}``."""
    out: dict[str, Any] = {}
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def _set(tree: dict[str, Any], key: str, value: Any) -> None:
    parts = key.split(".")
    node = tree
    for p in parts[:-1]:
        nxt = node.setdefault(p, {})
        if not isinstance(nxt, dict):
            raise ExperimentError(f"`{key}`: `{p}` is not a table")
        node = nxt
    node[parts[-1]] = value


def _drop(tree: dict[str, Any], key: str) -> None:
    """``tree`` without the dotted ``key`` (nothing when it has none)."""
    *parents, last = key.split(".")
    node: Any = tree
    for p in parents:
        node = node.get(p) if isinstance(node, dict) else None
    if isinstance(node, dict):
        node.pop(last, None)


#: Keys naming files, read relative to the experiment file's folder when relative (so an
#: experiment runs the same from any working directory). ``disk.model`` names a file only
#: when it is a path (has a ``/``); otherwise it is a preset's name.
_PATH_KEYS = ("workload.path", "disk.model")


def _with_paths_resolved(tree: dict[str, Any], path: Path) -> dict[str, Any]:
    """``tree`` with every relative file path of :data:`_PATH_KEYS` made absolute from the
    experiment file's folder."""
    flat = flatten(tree)
    for key in _PATH_KEYS:
        value = flat.get(key)
        if isinstance(value, str) and value and not Path(value).is_absolute():
            if key == "disk.model" and "/" not in value:
                continue  # a preset
            _set(tree, key, str((path.parent / value).resolve()))
    return tree


_CANON_CACHE: dict[tuple[str, str, str], Any] = {}

#: The keys whose default the engine computes from other keys (``readahead.max``, FA's
#: ``array_cache.g``, …): a resolved configuration holds the value computed.
_COMPUTED_KEYS = frozenset(_engine.computed_keys())


def _canonical(config_json: str, key: str, value: Scalar, path: Path, at: str | None = None) -> Any:
    """``value`` for ``key`` as the engine resolves it (``"512KiB"`` → 524288); ``at`` names
    where the key was given (``FILE:LINE: [[sweep.exclude]] 2``) for an error, else the file."""
    cache_key = (config_json, key, json.dumps(value))
    if cache_key not in _CANON_CACHE:
        tree = json.loads(config_json)
        if key not in flatten(tree) and not key.startswith("disk.overrides."):
            raise ExperimentError(f"{at or path}: `{key}` is not a configuration key")
        # the resolved run holds the defaults computed from its other keys (FA's g from its p):
        # dropped, they are computed again for the new value instead of refusing it
        for computed in _COMPUTED_KEYS:
            if computed != key:
                _drop(tree, computed)
        _set(tree, key, value)
        _with_paths_resolved(tree, path)
        try:
            # values only: the stack is built for each run (a selector's value combined with the
            # base's other values, e.g. a trace and another trace's format, need not make a run)
            resolved = flatten(json.loads(_engine.resolve(json.dumps(tree), "json", [], False)))
        except PrefetchlabError as e:
            raise ExperimentError(f"{at or path}: value `{value}` for `{key}`: {e}") from None
        _CANON_CACHE[cache_key] = resolved.get(key)
    return _CANON_CACHE[cache_key]


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_ASSIGN = re.compile(r"^\s*([A-Za-z0-9_\-.\"' ]+?)\s*=")


def _key_lines(source: str) -> dict[str, int]:
    """Dotted key → the line (1-based) that sets it, for keys set by ``key = value`` lines, and
    table name → the line of its first ``[table]`` / ``[[table]]`` header."""
    out: dict[str, int] = {}
    table = ""
    for n, line in enumerate(source.splitlines(), 1):
        if m := _HEADER.match(line):
            table = m.group(1).replace('"', "").replace("'", "").replace(" ", "")
            out.setdefault(table, n)
            continue
        if m := _ASSIGN.match(line):
            key = ".".join(p.strip().strip("\"'") for p in m.group(1).split("."))
            out.setdefault(f"{table}.{key}" if table else key, n)
    return out


def _names(names: Iterable[str]) -> str:
    """Names for a message: "`a`, `b`, `c`" (sorted), not a Python list."""
    return ", ".join(f"`{n}`" for n in sorted(names))


def key_line(source: str, key: str | None) -> int | None:
    """The line (1-based) of the TOML ``source`` that sets the dotted ``key``, or else the
    line of the nearest table holding it; None when neither is there."""
    lines = _key_lines(source)
    key = key.replace('"', "").replace("'", "") if key else key
    while key:
        if key in lines:
            return lines[key]
        key = key.rpartition(".")[0]
    return None


def _at(path: Path, source: str, key: str | None) -> str:
    """``FILE:LINE`` of the line setting ``key`` (or its table), else ``FILE``."""
    line = key_line(source, key)
    return f"{path}:{line}" if line else str(path)


def _table_at(path: Path, source: str, name: str, index: int) -> str:
    """``FILE:LINE`` of the ``index``-th (1-based) ``[[name]]`` header."""
    seen = 0
    for n, line in enumerate(source.splitlines(), 1):
        m = _HEADER.match(line)
        if m and line.strip().startswith("[[") and m.group(1) == name:
            seen += 1
            if seen == index:
                return f"{path}:{n}"
    return str(path)


def _is_scalar(v: Any) -> bool:
    return isinstance(v, str | int | float | bool)


def _kind(v: Any) -> str:
    """What a TOML value is, for messages: ``an integer (3)``, ``a table``, ``an array``."""
    if isinstance(v, bool):
        return f"a boolean ({str(v).lower()})"
    if isinstance(v, int):
        return f"an integer ({v})"
    if isinstance(v, float):
        return f"a float ({v})"
    if isinstance(v, str):
        return f"a string ({json.dumps(v, ensure_ascii=False)[:40]})"
    if isinstance(v, Mapping):
        return "a table"
    if isinstance(v, list):
        return "an array"
    return f"a {type(v).__name__}"  # TOML dates and times


def _tables(raw: Any, name: str, at: str) -> list[Mapping[str, Any]]:
    """``raw`` as an array of tables (``[[name]]``), or an error naming what it is instead."""
    expected = f"`{name}` must be an array of tables ([[{name}]])"
    if not isinstance(raw, list):
        raise ExperimentError(f"{at}: {expected}, not {_kind(raw)}")
    for i, t in enumerate(raw, 1):
        if not isinstance(t, Mapping):
            raise ExperimentError(f"{at}: {expected}; its item {i} is {_kind(t)}")
    return raw


#: Configuration keys whose value is an array of tables (``[[topology.nodes]]``): one value.
_TABLE_ARRAYS = frozenset({"topology.nodes", "topology.clients"})


def _axes(tree: Mapping[str, Any], path: Path, source: str, prefix: str = "") -> Iterator[Axis]:
    for k, v in tree.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            yield from _axes(v, path, source, key + ".")
        elif key in _TABLE_ARRAYS and isinstance(v, list) and all(isinstance(x, Mapping) for x in v):
            continue  # an array of tables ([[topology.nodes]]) is one value, not an axis
        elif isinstance(v, list):
            at = _at(path, source, key)
            if not v:
                raise ExperimentError(f"{at}: axis `{key}` has no values")
            for x in v:
                if not _is_scalar(x):
                    raise ExperimentError(
                        f"{at}: axis `{key}`: every value must be a number, string or boolean, not {_kind(x)}"
                    )
            if len({json.dumps(x) for x in v}) != len(v):
                raise ExperimentError(f"{at}: axis `{key}` repeats a value")
            yield Axis(key, tuple(v))


def _selectors(raw: Any, what: str, path: Path, source: str) -> list[dict[str, Any]]:
    if raw is None:
        return []
    out = []
    for i, t in enumerate(_tables(raw, what, _at(path, source, what)), 1):
        flat = flatten(t)
        if not flat:
            raise ExperimentError(f"{_table_at(path, source, what, i)}: an empty [[{what}]] table")
        out.append(flat)
    return out


def _canon_table(table: Mapping[str, Any], base: str, path: Path, at: str) -> dict[str, list[Any]]:
    """A selector table with each value (or list of values) resolved as the engine reads it
    (``at``: where the table is, for errors)."""
    out: dict[str, list[Any]] = {}
    for key, want in table.items():
        options = want if isinstance(want, list) else [want]
        out[key] = [_canonical(base, key, v, path, at) for v in options]
    return out


def _matches(flat: Mapping[str, Any], table: Mapping[str, list[Any]]) -> bool:
    return all(flat.get(key) in options for key, options in table.items())


def _str(table: Mapping[str, Any], key: str, where: str, path: Path | str, default: str | None = None) -> str:
    v = table.get(key, default)
    if v is None:
        raise ExperimentError(f"{path}: {where}: `{key}` is missing (a string is expected)")
    if not isinstance(v, str):
        raise ExperimentError(f"{path}: {where}: `{key}` must be a string, not {_kind(v)}")
    return v


#: The most hinted reads a timeline figure draws (one row each).
MAX_TIMELINE_READS = 60


def _timeline_figure(
    t: Mapping[str, Any], i: int, at: str, select: Callable[[dict[str, Wanted]], list[str]]
) -> Figure:
    """A ``kind = "timeline"`` figure: ``where`` picks one ``[topology]`` run, ``reads`` (default
    20) how many of its first hinted reads are drawn."""
    where = f"figure {i}"
    known = {"name", "title", "kind", "where", "reads"}
    unknown = set(t) - known
    if unknown:
        raise ExperimentError(
            f"{at}: {where}: unknown key `{sorted(unknown)[0]}` for a timeline "
            f"(expected one of {_names(known)})"
        )
    name = _str(t, "name", where, at, f"figure{i}")
    reads = t.get("reads", 20)
    if not isinstance(reads, int) or isinstance(reads, bool) or not 1 <= reads <= MAX_TIMELINE_READS:
        raise ExperimentError(f"{at}: {where}: `reads` must be an integer from 1 to {MAX_TIMELINE_READS}")
    if not isinstance(t.get("where"), Mapping) or not t["where"]:
        raise ExperimentError(f"{at}: {where}: a timeline needs `where`, picking one run")
    sel = {k: tuple(v) if isinstance(v, list) else v for k, v in flatten(t["where"]).items()}
    try:
        run_ids = frozenset(select(sel))
    except PrefetchlabError as e:
        raise ExperimentError(f"{at}: {where}: where: {e}") from None
    if len(run_ids) != 1:
        raise ExperimentError(
            f"{at}: {where}: a timeline's `where` must pick one run, it picks {len(run_ids)}"
        )
    return Figure(
        name=name,
        title=_str(t, "title", where, at, name),
        x="time",
        y="hinted read",
        xunits="s",
        run_ids=run_ids,
        kind="timeline",
        reads=reads,
    )


def _figures(
    raw: Any,
    runs: list[RunSpec],
    metrics: list[str],
    path: Path,
    source: str,
    select: Callable[[dict[str, Wanted]], list[str]],
) -> list[Figure]:
    if raw is None:
        return []
    keys = set(runs[0].flat)
    out = []
    known = {"name", "title", "x", "y", "series", "facets", "logx", "logy", "units", "where", "kind"}
    for i, t in enumerate(_tables(raw, "figure", _at(path, source, "figure")), 1):
        where = f"figure {i}"
        at = _table_at(path, source, "figure", i)
        if t.get("kind") == "timeline":
            out.append(_timeline_figure(t, i, at, select))
            continue
        unknown = set(t) - known
        if unknown:
            raise ExperimentError(
                f"{at}: {where}: unknown key `{sorted(unknown)[0]}` (expected one of {_names(known)})"
            )
        if t.get("kind", "lines") != "lines":
            raise ExperimentError(f'{at}: {where}: `kind` must be "lines" or "timeline", not {t["kind"]!r}')
        name = _str(t, "name", where, at, f"figure{i}")
        y = _str(t, "y", where, at)
        if y not in metrics:
            raise ExperimentError(f"{at}: {where}: y: {unknown_metric(y, metrics)}")
        x = _str(t, "x", where, at)
        if x not in keys and x not in metrics:
            raise ExperimentError(f"{at}: {where}: x `{x}` is neither a configuration key nor a metric")
        for opt in ("series", "facets"):
            v = t.get(opt)
            if v is not None and not isinstance(v, str):
                raise ExperimentError(f"{at}: {where}: `{opt}` must be a configuration key, not {_kind(v)}")
            if v is not None and v not in keys:
                raise ExperimentError(f"{at}: {where}: {opt} `{v}` is not a configuration key")
        units = t.get("units", "")
        expected_units = '`units` must be a string or a table { x = "...", y = "..." } of strings'
        if isinstance(units, str):
            xunits, yunits = "", units
        elif isinstance(units, Mapping) and set(units) <= {"x", "y"}:
            for axis, unit in units.items():
                if not isinstance(unit, str):
                    raise ExperimentError(f"{at}: {where}: {expected_units}; `units.{axis}` is {_kind(unit)}")
            xunits, yunits = units.get("x", ""), units.get("y", "")
        else:
            what = (
                f"a table with `{sorted(set(units) - {'x', 'y'})[0]}`"
                if isinstance(units, Mapping)
                else _kind(units)
            )
            raise ExperimentError(f"{at}: {where}: {expected_units}, not {what}")
        for flag in ("logx", "logy"):
            if not isinstance(t.get(flag, False), bool):
                raise ExperimentError(f"{at}: {where}: `{flag}` must be true or false, not {_kind(t[flag])}")
        run_ids = None
        if "where" in t:
            if not isinstance(t["where"], Mapping) or not t["where"]:
                raise ExperimentError(
                    f"{at}: {where}: `where` must be a table of key = value (or a list of values)"
                )
            sel = {k: tuple(v) if isinstance(v, list) else v for k, v in flatten(t["where"]).items()}
            try:
                run_ids = frozenset(select(sel))
            except PrefetchlabError as e:
                raise ExperimentError(f"{at}: {where}: where: {e}") from None
            if not run_ids:
                raise ExperimentError(f"{at}: {where}: `where` matches no run of the sweep")
        out.append(
            Figure(
                name=name,
                title=_str(t, "title", where, at, name),
                x=x,
                y=y,
                series=t.get("series"),
                facets=t.get("facets"),
                logx=t.get("logx", False),
                logy=t.get("logy", False),
                xunits=xunits,
                yunits=yunits,
                run_ids=run_ids,
            )
        )
    if len({f.name for f in out}) != len(out):
        raise ExperimentError(f"{path}: two figures share a name")
    return out


def _claims(raw: Any, exp: Experiment, metrics: list[str]) -> list[Claim]:
    path = exp.path
    if raw is None:
        return []
    names = [f.name for f in exp.figures]
    known = {"text", "check", "paper", "expected", "source", "figure", "where", "ours"}
    out = []
    for i, t in enumerate(_tables(raw, "claim", _at(path, exp.source, "claim")), 1):
        label = f"claim {i}"
        at = _table_at(path, exp.source, "claim", i)
        unknown = set(t) - known
        if unknown:
            raise ExperimentError(
                f"{at}: {label}: unknown key `{sorted(unknown)[0]}` (expected one of {_names(known)})"
            )
        text = _str(t, "text", label, at)
        label = f"claim {i} ({text})"
        check_text = _str(t, "check", label, at)
        paper, expected, source = _reference(t, f"{at}: {label}")
        figure = t.get("figure", names[0] if names else None)
        if figure is not None and not isinstance(figure, str):
            raise ExperimentError(f"{at}: {label}: `figure` must be a figure's name, not {_kind(figure)}")
        if figure is not None and figure not in names:
            raise ExperimentError(f"{at}: {label}: no figure named `{figure}` (figures: {_names(names)})")
        raw_where = t.get("where", {})
        if not isinstance(raw_where, Mapping):
            raise ExperimentError(
                f"{at}: {label}: `where` must be a table of key = value, e.g. "
                f'where = {{ "workload.streams" = 16 }}, not {_kind(raw_where)}'
            )
        where = flatten(raw_where)
        for key, value in where.items():
            if not _is_scalar(value):
                raise ExperimentError(
                    f"{at}: {label}: `where` value of `{key}` must be one number, string or boolean, "
                    f"not {_kind(value)} (over several runs, use mean(), min() or max() in `check`)"
                )
        ours = t.get("ours")
        if ours is not None and not isinstance(ours, str):
            raise ExperimentError(f"{at}: {label}: `ours` must be an expression string, not {_kind(ours)}")
        try:
            check = parse_check(check_text, ours)
            bind(check, where, metrics, exp.select, exp.replicates)
        except ClaimError as e:
            raise ExperimentError(f"{at}: {label}: {e}") from None
        except ExperimentError as e:  # a selector's key or value, from Experiment.select
            raise ExperimentError(f"{at}: {label}: {str(e).removeprefix(f'{path}: ')}") from None
        out.append(Claim(text, check_text, paper, figure, where, check, expected, source))
    return out


def _reference(t: Mapping[str, Any], at: str) -> tuple[Scalar | None, Scalar | None, str | None]:
    """A claim's ``paper`` (published), or ``expected`` with its ``source`` (not published)."""
    paper, expected, source = t.get("paper"), t.get("expected"), t.get("source")
    for key, value in (("paper", paper), ("expected", expected)):
        if value is not None and not _is_scalar(value):
            raise ExperimentError(f"{at}: `{key}` must be a number or a string, not {_kind(value)}")
    if source is not None and not (isinstance(source, str) and source.strip()):
        raise ExperimentError(f"{at}: `source` must be a non-empty string, not {_kind(source)}")
    if paper is not None and expected is not None:
        raise ExperimentError(
            f"{at}: give `paper` (a published figure) or `expected` (an expectation, with its "
            "`source`), not both"
        )
    if expected is not None and source is None:
        raise ExperimentError(
            f"{at}: `expected` needs a `source` saying where the expectation comes from "
            "(it is not a published figure)"
        )
    if source is not None and paper is None and expected is None:
        raise ExperimentError(
            f"{at}: `source` names where `paper` or `expected` comes from; neither is given"
        )
    return paper, expected, source


def _ordered_like(new: Any, old: Any) -> Any:
    """``new`` with its tables' keys in ``old``'s order (the engine's tree sorts them; an
    experiment's axes keep the file's order), keys ``old`` lacks after."""
    if not (isinstance(new, dict) and isinstance(old, Mapping)):
        return new
    keys = [k for k in old if k in new] + [k for k in new if k not in old]
    return {k: _ordered_like(new[k], old.get(k)) for k in keys}


@dataclass(frozen=True)
class _Given:
    """Where a key came from, for errors: the ``--set`` behind each key the sets changed, and
    the keys the file itself writes."""

    by_key: Mapping[str, str]
    file_keys: frozenset[str]

    def set_behind(self, key: str | None) -> tuple[str, bool] | None:
        """The set behind an error about ``key``, and whether the error is the set's: it gave
        the key (or the table holding it), or a key inside the table ``key`` names where the file
        writes nothing; else (the file writes that table too) the error may be the file's."""
        if not key:
            return None
        for k, s in self.by_key.items():
            if key == k or key.startswith(k + "."):
                return s, True
        for k, s in self.by_key.items():
            if k.startswith(key + "."):
                return s, not any(f == key or f.startswith(key + ".") for f in self.file_keys)
        return None


def _with_sets(
    base: dict[str, Any], sets: Sequence[str], path: Path, source: str
) -> tuple[dict[str, Any], str, _Given]:
    """``base`` with ``--set KEY=VALUE`` overrides applied as ``prefetchlab run`` applies them,
    a label for them and the set that gave each key it changed (for errors).

    A relative file path a set gives is read from the working directory, as ``run`` reads it
    (the file's own paths are read from the file's folder). The label is ``set-`` and a digest of
    what the sets change in the file (keys they drop included; the same for the same changes, in
    any order or spelling of the keys). A set
    may not touch an axis (one value for every run cannot stand for the file's list, whose runs
    its figures and claims compare), give a list (an axis the file does not have), or name the
    file's own tables (``experiment``, ``sweep``, ``figure``, ``claim``)."""
    tree: dict[str, Any] = base
    by_key: dict[str, str] = {}
    for s in sets:
        try:
            alone = json.loads(_engine.apply_sets("{}", [s]))  # what this set names
            step = _ordered_like(json.loads(_engine.apply_sets(json.dumps(tree), [s])), tree)
        except PrefetchlabError as e:
            # a set with no key to name is named by the engine's own message ("bad --set `=1`")
            said = str(e).removeprefix("config: ") if str(e).startswith("config: bad --set") else None
            raise SetError(said or f"--set {s}: {e}") from None
        reserved = [k for k in alone if k in RESERVED]
        if reserved:
            raise SetError(
                f"--set {s}: `{reserved[0]}` is the experiment file's own table; --set changes the "
                "configuration of every run"
            )
        named, now = flatten(alone), flatten(step)
        for key in _PATH_KEYS:
            value = now.get(key)
            if key in named and isinstance(value, str) and value and not Path(value).is_absolute():
                if key != "disk.model" or "/" in value:
                    _set(step, key, str(Path(value).resolve()))
        was, now = flatten(tree), flatten(step)
        by_key.update({k: s for k in now.keys() | was.keys() if was.get(k) != now.get(k)})
        tree = step
    before, after = flatten(base), flatten(tree)
    for key, value in before.items():
        if key not in _TABLE_ARRAYS and isinstance(value, list) and after.get(key) != value:
            raise SetError(
                f"--set {by_key.get(key, key)}: `{key}` is an axis of this experiment "
                f"({_at(path, source, key)}, {len(value)} values); --set gives every run one value "
                "and cannot replace it (edit the file's list instead)"
            )
    for key, value in after.items():
        if key not in _TABLE_ARRAYS and isinstance(value, list) and before.get(key) != value:
            raise SetError(
                f"--set {by_key.get(key, key)}: a list would make a new axis; --set gives every run one value"
            )
    # what the sets change in this file (a key they drop as null, paths as read)
    changed = {k: after.get(k) for k in sorted(before.keys() | after.keys()) if before.get(k) != after.get(k)}
    digest = hashlib.sha256(json.dumps(changed, sort_keys=True).encode()).hexdigest()[:8]
    return tree, f"set-{digest}", _Given(by_key, frozenset(before))


def load_experiment(path: str | Path, sets: Sequence[str] = (), variant: str | None = None) -> Experiment:
    """Reads, expands and checks an experiment file (every run's configuration included).

    ``sets`` (``KEY=VALUE``, as ``prefetchlab run --set`` takes them) change every run; the
    experiment is then named ``NAME+VARIANT`` (``variant``, or ``set-`` and a digest of what the
    sets change in the file), so that its runs are stored and reported apart from the file's own."""
    path = Path(path)
    try:
        source = path.read_text()
    except OSError as e:
        raise ExperimentError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        doc = tomllib.loads(source)
    except tomllib.TOMLDecodeError as e:
        raise ExperimentError(f"{path}: TOML syntax error: {e}") from None
    meta = doc.get("experiment", {})
    if not isinstance(meta, Mapping):
        raise ExperimentError(
            f"{_at(path, source, 'experiment')}: `experiment` must be a table, not {_kind(meta)}"
        )
    unknown_meta = set(meta) - {"name", "title", "description"}
    if unknown_meta:
        key = sorted(unknown_meta)[0]
        raise ExperimentError(
            f"{_at(path, source, 'experiment.' + key)}: experiment: unknown key `{key}` "
            "(expected name, title, description)"
        )
    sweep = doc.get("sweep", {})
    if not isinstance(sweep, Mapping) or set(sweep) - {"only", "exclude"}:
        got = (
            f"a table with `{sorted(set(sweep) - {'only', 'exclude'})[0]}`"
            if isinstance(sweep, Mapping)
            else _kind(sweep)
        )
        raise ExperimentError(
            f"{_at(path, source, 'sweep')}: `sweep` may hold only [[sweep.only]] and [[sweep.exclude]] "
            f"tables, not {got}"
        )
    base = {k: v for k, v in doc.items() if k not in RESERVED}
    check_variant(sets, variant)
    if not sets:
        return _expanded(path, source, doc, meta, base, sweep)
    plain = base
    base, label, given = _with_sets(base, sets, path, source)
    try:
        exp = _expanded(path, source, doc, meta, base, sweep, given, sets, variant or label)
    except SetError:
        raise
    except ExperimentError as e:
        # the file's own error, if it has one without the sets; else the sets made it (a filter
        # or claim they leave without runs)
        _expanded(path, source, doc, meta, plain, sweep)
        raise SetError(f"{e} (with {' '.join('--set ' + x for x in sets)})") from None
    exp.sets_change_nothing = all(
        _resolve(_at_point(plain, r.point), path, source, {}, stack=False) == r.config_json for r in exp.runs
    )
    return exp


def check_variant(sets: Sequence[str], variant: str | None) -> None:
    """A ``--variant`` names the runs of ``--set``s: letters, digits, ``.``, ``_`` or ``-``."""
    if variant is not None and not re.fullmatch(r"[A-Za-z0-9._-]+", variant):
        raise ExperimentError(f"--variant {variant!r}: expected letters, digits, '.', '_' or '-'")
    if variant is not None and not sets:
        raise ExperimentError(
            f"--variant {variant}: names the runs of a --set; no --set given "
            f"(their stored name is EXPERIMENT+{variant})"
        )


def _expanded(
    path: Path,
    source: str,
    doc: Mapping[str, Any],
    meta: Mapping[str, Any],
    base: dict[str, Any],
    sweep: Mapping[str, Any],
    given: _Given | None = None,
    sets: Sequence[str] = (),
    label: str | None = None,
) -> Experiment:
    """The experiment of ``load_experiment`` from its file's parsed parts (``base`` with any
    ``--set``s applied; ``label``: the variant's)."""
    axes = list(_axes(base, path, source))
    runs = _expand(base, axes, sweep, path, source, given)
    name = _str(meta, "name", "experiment", _at(path, source, "experiment.name"), path.stem)
    if label is not None:
        name = f"{name}+{label}"
    exp = Experiment(
        path=path,
        name=name,
        title=_str(meta, "title", "experiment", _at(path, source, "experiment.title"), name)
        + "".join(f" --set {x}" for x in sets),
        description=_str(meta, "description", "experiment", _at(path, source, "experiment.description"), ""),
        source=source,
        axes=axes,
        runs=runs,
        sets=tuple(sets),
    )
    metrics = numeric_metrics()  # figures draw and claims compare numbers
    exp.figures = _figures(doc.get("figure"), runs, metrics, path, source, exp.select)
    exp.claims = _claims(doc.get("claim"), exp, metrics)
    return exp


def _resolve(
    tree: Mapping[str, Any],
    path: Path,
    source: str,
    point: Mapping[str, Scalar],
    stack: bool = True,
    given: _Given | None = None,
) -> str:
    """The resolved configuration of ``tree`` as canonical JSON; with ``stack``, also checked to
    make a run (drive model, geometry, trace file). ``given``: the ``--set`` behind each key it
    changed, named by an error about that key instead of the file's line."""
    tree = _with_paths_resolved(copy.deepcopy(dict(tree)), path)
    try:
        resolved = _engine.resolve(json.dumps(tree), "json", [], stack)
    except PrefetchlabError as e:
        key = e.key
        by = given.set_behind(key) if given else None
        where = f"--set {by[0]}" if by and by[1] else _at(path, source, key)
        at = ", ".join(f"{k}={v}" for k, v in point.items())
        also = f" (with --set {by[0]})" if by and not by[1] else ""
        error = SetError if by else ExperimentError
        raise error(f"{where}: {e}" + (f" (in the run {at})" if at else "") + also) from None
    return json.dumps(json.loads(resolved), sort_keys=True, separators=(",", ":"))


#: An axis value the engine refuses (see ``_expand``).
_BAD = object()


def _canonical_or_bad(config_json: str, key: str, value: Scalar, path: Path) -> Any:
    try:
        return _canonical(config_json, key, value, path)
    except ExperimentError:
        return _BAD


def _at_point(tree: Mapping[str, Any], point: Mapping[str, Scalar]) -> dict[str, Any]:
    """A copy of ``tree`` with each axis at its value in ``point``."""
    out = copy.deepcopy(dict(tree))
    for key, value in point.items():
        _set(out, key, value)
    return out


def _expand(
    base: dict[str, Any],
    axes: list[Axis],
    sweep: Mapping[str, Any],
    path: Path,
    source: str,
    given: _Given | None = None,
) -> list[RunSpec]:
    total = 1
    for a in axes:
        total *= len(a.values)
    if total > MAX_POINTS or (total > MAX_RUNS and not (sweep.get("only") or sweep.get("exclude"))):
        limit = MAX_POINTS if total > MAX_POINTS else MAX_RUNS
        raise ExperimentError(f"{path}: the axes make {total} runs, more than {limit}")
    # Each axis at its first value: an unknown key or a bad value of the base is named here.
    first = _at_point(base, {a.key: a.values[0] for a in axes})
    base_json = _resolve(first, path, source, {}, stack=False, given=given)
    only: dict[str, list[dict[str, list[Any]]]] = {}
    for i, t in enumerate(_selectors(sweep.get("only"), "sweep.only", path, source), 1):
        at = f"{_table_at(path, source, 'sweep.only', i)}: [[sweep.only]] {i}"
        group = t.pop("group", "")
        if not isinstance(group, str):
            raise ExperimentError(f"{at}: `group` must be a string, not {_kind(group)}")
        if not t:
            raise ExperimentError(f"{at}: a table with only a `group`")
        only.setdefault(group, []).append(_canon_table(t, base_json, path, at))
    exclude = [
        _canon_table(
            t, base_json, path, f"{_table_at(path, source, 'sweep.exclude', i)}: [[sweep.exclude]] {i}"
        )
        for i, t in enumerate(_selectors(sweep.get("exclude"), "sweep.exclude", path, source), 1)
    ]
    runs: list[RunSpec] = []
    seen: dict[str, dict[str, Scalar]] = {}
    # Filter on each axis value as the engine resolves it before resolving whole runs: a large
    # product cut down by [[sweep.only]] costs one resolution per axis value, not per point.
    base_flat = flatten(json.loads(base_json))
    # an axis value the engine refuses is kept for the whole run's resolution, which names the run
    canon = [[_canonical_or_bad(base_json, a.key, v, path) for v in a.values] for a in axes]
    axis_of = {a.key: n for n, a in enumerate(axes)}

    def matches_at(idx: tuple[int, ...], table: Mapping[str, list[Any]], bad: bool) -> bool:
        for key, options in table.items():
            n = axis_of.get(key)
            if n is not None:
                value = canon[n][idx[n]]
            elif key in _COMPUTED_KEYS:
                # computed from other keys, maybe from an axis (md's readahead.max from the
                # disks): not known before the whole run's resolution, which `kept` matches
                value = _BAD
            else:
                value = base_flat.get(key)
            if value is _BAD:
                if not bad:
                    return False
            elif value not in options:
                return False
        return True

    excluded_some = [False] * len(exclude)

    def not_excluded(matches: Callable[[Mapping[str, list[Any]]], bool]) -> bool:
        hits = [j for j, t in enumerate(exclude) if matches(t)]
        for j in hits:
            excluded_some[j] = True
        return not hits

    def kept_at(idx: tuple[int, ...]) -> bool:
        # a refused value is let through to the whole run's resolution, which reports it
        if not all(any(matches_at(idx, t, True) for t in tables) for tables in only.values()):
            return False
        return not_excluded(lambda t: matches_at(idx, t, False))

    def kept(flat: Mapping[str, Any]) -> bool:
        if not all(any(_matches(flat, t) for t in tables) for tables in only.values()):
            return False
        return not_excluded(lambda t: _matches(flat, t))

    for idx in itertools.product(*(range(len(a.values)) for a in axes)):
        if not kept_at(idx):
            continue
        point = {a.key: a.values[i] for a, i in zip(axes, idx, strict=True)}
        tree = _at_point(base, point)
        config_json = _resolve(tree, path, source, point, stack=False, given=given)
        flat = flatten(json.loads(config_json))
        if not kept(flat):
            continue
        _resolve(tree, path, source, point, given=given)  # a run kept: its stack must build
        rid = run_id(config_json)
        if rid in seen:
            raise ExperimentError(f"{path}: the runs {seen[rid]} and {point} have the same configuration")
        seen[rid] = point
        runs.append(RunSpec(rid, point, config_json, flat))
    for j, hit in enumerate(excluded_some, 1):
        if not hit:
            # most likely a value not on its axis (or a mistyped one): say so rather than run all
            raise ExperimentError(
                f"{_table_at(path, source, 'sweep.exclude', j)}: [[sweep.exclude]] {j} excludes no run "
                "(is each value on its axis, as the configuration resolves it?)"
            )
    if not runs:
        raise ExperimentError(f"{path}: [[sweep.only]] / [[sweep.exclude]] leave no run")
    if len(runs) > MAX_RUNS:
        raise ExperimentError(f"{path}: the sweep keeps {len(runs)} runs, more than {MAX_RUNS}")
    return runs
