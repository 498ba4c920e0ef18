"""The reproduction report: one self-contained HTML page (``index.html``).

For each experiment: its title and description, each figure (the PNG inlined as a data URI,
so the page needs no other file), under it the table of the claims that figure reproduces
(the claim; the reference, labelled "paper" for a published figure or "expected" for an
expectation that is not one, with its source; ours; and whether it holds: a claim that does
not hold is shown in its own colour with the words "does not hold", and a claim whose runs
are missing says so), and the configuration behind it (the experiment file as written, and
the axes).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prefetchlab.experiment import Claim, ClaimResult, Experiment
from prefetchlab.plot import DrawnFigure


@dataclass(frozen=True)
class ExperimentReport:
    experiment: Experiment
    figures: list[DrawnFigure]
    claims: list[ClaimResult]
    stored_runs: int


_CSS = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; }
h1 { border-bottom: 2px solid #444; padding-bottom: .2em; }
section.experiment { margin-top: 2.5em; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #ddd; }
table { border-collapse: collapse; margin: .5em 0 1em; }
th, td { border: 1px solid #ccc; padding: .3em .6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; }
td.holds { background: #e3f6e3; color: #145214; font-weight: bold; }
td.fails { background: #fbe3e3; color: #8a1212; font-weight: bold; }
td.nodata { background: #f6f0dc; color: #6b5300; font-weight: bold; }
td.reference .kind { font-weight: bold; }
td.reference.expected .kind { font-style: italic; color: #5a4a00; }
code, pre { font-family: ui-monospace, monospace; font-size: 90%; }
pre { background: #f7f7f7; padding: .8em; overflow-x: auto; }
.summary td.num { text-align: right; }
"""


def _esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def _fmt(v: float) -> str:
    return f"{v:.4g}"


def _ours(r: ClaimResult) -> str:
    o = r.outcome
    if o is None:
        return f"({r.missing_runs} run(s) not stored)"
    if not o.defined:
        why = "a side is no number — a division by zero, or a metric over nothing"
        return f"undefined <small>({why}: {_fmt(o.left)} vs {_fmt(o.right)})</small>"
    if o.ours_kind == "ratio":
        return f"{o.ours:.3g}× <small>({_fmt(o.left)} vs {_fmt(o.right)})</small>"
    return f"{_fmt(o.ours)} <small>(vs {_fmt(o.right)})</small>"


def _status(r: ClaimResult) -> tuple[str, str]:
    if r.outcome is None:
        return "nodata", "not run"
    if not r.outcome.defined:
        return "fails", "does not hold (undefined)"
    return ("holds", "holds") if r.outcome.holds else ("fails", "does not hold")


def _reference(c: Claim) -> str:
    """The reference cell: its kind as a label ("paper" or "expected"), the value, the source."""
    kind = c.reference_kind
    if kind is None:
        return '<td class="reference none">—</td>'
    value = c.paper if kind == "paper" else c.expected
    label = "paper" if kind == "paper" else "expected <small>(not a published figure)</small>"
    source = f'<br><small class="source">source: {_esc(c.source)}</small>' if c.source else ""
    return (
        f'<td class="reference {kind}" data-kind="{kind}"><span class="kind">{label}</span>: '
        f"{_esc(value)}{source}</td>"
    )


def _claim_table(results: Sequence[ClaimResult]) -> str:
    if not results:
        return ""
    rows = []
    for r in results:
        cls, word = _status(r)
        rows.append(
            f'<tr class="claim" data-holds="{str(r.holds).lower()}">'
            f"<td>{_esc(r.claim.text)}<br><code>{_esc(r.claim.check_text)}</code></td>"
            f"{_reference(r.claim)}<td>{_ours(r)}</td>"
            f'<td class="{cls}">{word}</td></tr>'
        )
    head = "<tr><th>claim</th><th>reference</th><th>ours</th><th>holds?</th></tr>"
    return f'<table class="claims">{head}{"".join(rows)}</table>'


def _figure(d: DrawnFigure, exp: Experiment) -> str:
    data = base64.b64encode(d.png.read_bytes()).decode()
    caption = f"{_esc(d.figure.title)} — {_esc(d.figure.y)} against {_esc(d.figure.x)}"
    if d.figure.kind == "timeline":
        caption = (
            f"{_esc(d.figure.title)} — the first {d.points} hinted reads of one run: HDD → SSD copies, "
            "fetches to the client from the SSD or the HDD, consumption and stalls"
        )
    elif d.points == 0:
        caption += " (no stored runs yet)"
    alt = f"{exp.name}: {d.figure.title}"
    return (
        f'<figure id="{_esc(exp.name)}-{_esc(d.figure.name)}">'
        f'<img src="data:image/png;base64,{data}" alt="{_esc(alt)}">'
        f"<figcaption>{caption}</figcaption></figure>"
    )


def _config(exp: Experiment) -> str:
    axes = "".join(
        f"<li><code>{_esc(a.key)}</code> = {_esc(', '.join(map(str, a.values)))}</li>" for a in exp.axes
    )
    sets = "".join(f" <code>--set {_esc(x)}</code>" for x in exp.sets)
    changed = f", every run changed by{sets}" if sets else ""
    return (
        f"<details open><summary>Configuration behind it: <code>{_esc(exp.path.name)}</code>{changed}, "
        f"{len(exp.runs)} runs</summary><ul>{axes}</ul><pre>{_esc(exp.source)}</pre></details>"
    )


def _section(rep: ExperimentReport) -> str:
    exp = rep.experiment
    parts = [f'<section class="experiment" id="{_esc(exp.name)}"><h2>{_esc(exp.title)}</h2>']
    if exp.description:
        parts.append(f"<p>{_esc(exp.description)}</p>")
    parts.append(f"<p>{rep.stored_runs} of {len(exp.runs)} runs stored.</p>")
    for d in rep.figures:
        parts.append(_figure(d, exp))
        parts.append(_claim_table([r for r in rep.claims if r.claim.figure == d.figure.name]))
    drawn = {d.figure.name for d in rep.figures}
    loose = [r for r in rep.claims if r.claim.figure not in drawn]
    if loose:
        parts.append("<h3>Claims</h3>" + _claim_table(loose))
    parts.append(_config(exp))
    parts.append("</section>")
    return "".join(parts)


def _summary(reports: Sequence[ExperimentReport]) -> str:
    rows = []
    for rep in reports:
        held = sum(r.holds for r in rep.claims)
        failed = sum(r.outcome is not None and not r.outcome.holds for r in rep.claims)
        rows.append(
            f'<tr><td><a href="#{_esc(rep.experiment.name)}">{_esc(rep.experiment.title)}</a></td>'
            f'<td class="num">{len(rep.claims)}</td><td class="num">{held}</td>'
            f'<td class="num">{failed}</td></tr>'
        )
    head = "<tr><th>experiment</th><th>claims</th><th>hold</th><th>do not hold</th></tr>"
    return f'<table class="summary">{head}{"".join(rows)}</table>'


def write_report(reports: Sequence[ExperimentReport], out_dir: Path, version: str) -> Path:
    """Writes ``out_dir/index.html``; returns its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    body = "".join(_section(r) for r in reports)
    page = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>prefetchlab reproduction</title><style>{_CSS}</style></head><body>"
        f"<h1>prefetchlab reproduction</h1><p>prefetchlab {_esc(version)}.</p>"
        f"{_summary(reports)}{body}</body></html>\n"
    )
    path = out_dir / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
