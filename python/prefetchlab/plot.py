"""Draws an experiment's figures from its stored results (matplotlib; PNG and SVG).

One line per value of ``series``, one panel per value of ``facets``. Where several runs fall on
one point (an axis the figure does not name, such as ``run.seed``), the point is their mean
and a bar spans their minimum to maximum. An axis that is a configuration key is placed at its
resolved value (bytes for sizes) and labelled as the experiment file writes it ("128KiB").
Runs not yet stored are left out, so a figure of a half-finished sweep is drawn as far as it
goes.
"""

from __future__ import annotations

import json
import textwrap
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from prefetchlab.experiment import Experiment, Figure, flatten


@dataclass(frozen=True)
class DrawnFigure:
    figure: Figure
    png: Path
    svg: Path
    points: int


def _value(row: Mapping[str, Any], flat: Mapping[str, Any], key: str) -> Any:
    return row[key] if key in row and key != "config" else flat.get(key)


def _sort_key(v: Any) -> tuple[int, Any]:
    return (0, v) if isinstance(v, int | float) and not isinstance(v, bool) else (1, str(v))


def _numeric(values: Sequence[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _draw_timeline(exp: Experiment, fig_spec: Figure, out_dir: Path) -> DrawnFigure:
    """A timeline figure: its one run simulated again (deterministic) with its timeline kept."""
    from prefetchlab.api import topology_timeline
    from prefetchlab.ipods_cli import draw_timeline

    assert fig_spec.run_ids is not None and len(fig_spec.run_ids) == 1
    (run_id,) = fig_spec.run_ids
    run = next(r for r in exp.runs if r.run_id == run_id)
    t = topology_timeline(json.loads(run.config_json), reads=fig_spec.reads)
    stem = out_dir / f"{_safe(exp.name)}-{_safe(fig_spec.name)}"
    png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
    draw_timeline(t, fig_spec.title, png)
    draw_timeline(t, fig_spec.title, svg)
    return DrawnFigure(fig_spec, png, svg, len(t["accesses"]["block"]))


def draw(exp: Experiment, rows: Sequence[Mapping[str, Any]], out_dir: Path) -> list[DrawnFigure]:
    """Draws every figure of ``exp`` from ``rows`` (stored runs) into ``out_dir``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    wanted = {r.run_id for r in exp.runs}
    rows = [r for r in rows if r["run_id"] in wanted]
    out_dir.mkdir(parents=True, exist_ok=True)
    drawn = []
    for fig_spec in exp.figures:
        if fig_spec.kind == "timeline":
            drawn.append(_draw_timeline(exp, fig_spec, out_dir))
            continue
        data: dict[Any, dict[Any, dict[Any, list[float]]]] = defaultdict(
            lambda: defaultdict(lambda: defaultdict(list))
        )
        for row in rows:
            if fig_spec.run_ids is not None and row["run_id"] not in fig_spec.run_ids:
                continue
            flat = flatten(json.loads(row["config"]))
            facet = _value(row, flat, fig_spec.facets) if fig_spec.facets else None
            series = _value(row, flat, fig_spec.series) if fig_spec.series else None
            y = row[fig_spec.y]
            if y is not None:
                data[facet][series][_value(row, flat, fig_spec.x)].append(float(y))
        facets = sorted(data, key=_sort_key) or [None]
        fig, axes = plt.subplots(1, len(facets), figsize=(5.5 * len(facets), 4.2), squeeze=False, sharey=True)
        points = 0
        for ax, facet in zip(axes[0], facets, strict=True):
            points += _panel(ax, exp, fig_spec, data.get(facet, {}))
            if fig_spec.facets:
                ax.set_title(f"{fig_spec.facets} = {exp.label(fig_spec.facets, facet)}", fontsize=10)
        fig.suptitle(textwrap.fill(fig_spec.title, width=int(60 * len(facets))), fontsize=11)
        fig.tight_layout()
        stem = out_dir / f"{_safe(exp.name)}-{_safe(fig_spec.name)}"
        png, svg = stem.with_suffix(".png"), stem.with_suffix(".svg")
        fig.savefig(png, dpi=110)
        fig.savefig(svg)
        plt.close(fig)
        drawn.append(DrawnFigure(fig_spec, png, svg, points))
    return drawn


_MARKERS = "os^vDP*Xhp<>"
_LINES = ("-", "--", ":", "-.")


def _panel(ax: Any, exp: Experiment, f: Figure, series_data: Mapping[Any, Mapping[Any, list[float]]]) -> int:
    xs_all = sorted({x for by_x in series_data.values() for x in by_x}, key=_sort_key)
    numeric = _numeric(xs_all)
    position = {x: (x if numeric else i) for i, x in enumerate(xs_all)}
    points = 0
    for n, series in enumerate(sorted(series_data, key=_sort_key)):
        # ten colours, then the same again with another line and marker: every series its own
        style = {"marker": _MARKERS[n % len(_MARKERS)], "linestyle": _LINES[(n // 10) % len(_LINES)]}
        by_x = series_data[series]
        xs = sorted(by_x, key=_sort_key)
        pos = [position[x] for x in xs]
        means = [sum(by_x[x]) / len(by_x[x]) for x in xs]
        # clamped: the mean of equal values may round a hair past them
        lo = [max(0.0, m - min(by_x[x])) for m, x in zip(means, xs, strict=True)]
        hi = [max(0.0, max(by_x[x]) - m) for m, x in zip(means, xs, strict=True)]
        label = f"{f.series} = {exp.label(f.series, series)}" if f.series else None
        if any(lo) or any(hi):
            ax.errorbar(pos, means, yerr=[lo, hi], capsize=3, label=label, **style)
        else:
            ax.plot(pos, means, label=label, **style)
        points += len(xs)
    if f.logx and numeric:
        ax.set_xscale("log", base=2)
    if f.logy:
        ax.set_yscale("log")
    if xs_all:
        labels = [exp.label(f.x, x) for x in xs_all]
        ax.set_xticks([position[x] for x in xs_all], labels)
        if sum(len(t) for t in labels) > 40:  # long names (trace files): slanted, so they do not overlap
            ax.tick_params(axis="x", labelrotation=25)
            for t in ax.get_xticklabels():
                t.set_horizontalalignment("right")
        if f.logx:
            ax.minorticks_off()
    ax.set_xlabel(f.x + (f" ({f.xunits})" if f.xunits else ""))
    ax.set_ylabel(f.y + (f" ({f.yunits})" if f.yunits else ""))
    ax.grid(True, alpha=0.3)
    if f.series and series_data:
        ax.legend(fontsize=8)
    return points


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
