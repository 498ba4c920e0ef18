"""Claims: checkable statements over a sweep's results, in a small safe language.

A claim's ``check`` is one comparison of two arithmetic expressions::

    check   := expr CMP expr                   CMP: >=  <=  >  <  ==  (also ≥ ≤)
    expr    := prod (("+" | "-") prod)*
    prod    := unary (("*" | "/" | "×") unary)*
    unary   := "-" unary | atom
    atom    := NUMBER | term | AGG "(" term ")" | "(" expr ")"
    term    := METRIC ["[" KEY "=" VALUES ("," KEY "=" VALUES)* "]"]
    VALUES  := VALUE ("|" VALUE)*
    AGG     := mean | min | max

A ``term`` is one metric (``bandwidth_mb_s``) at the runs its selector picks: each ``KEY`` is a
dotted configuration key (``workload.streams``), each ``VALUE`` written as in an experiment
file or a ``--set`` (``1``, ``512KiB``, ``"2.6.18"``) and compared after resolution, so
``512KiB`` matches ``524288``; ``KEY=a|b`` picks runs with either value. The claim's ``where``
table is added to every term's selector.
A bare term must pick exactly one run; ``mean``/``min``/``max`` take any non-empty set. All this
is checked before any run starts. Nothing is ever passed to ``eval``: the text is tokenized and
parsed here, and only numbers, the four operators and the three aggregates exist.

Example: "at 1 stream, a 512 KiB window reads at least as fast as a 128 KiB one"::

    where = { "workload.streams" = 1 }
    check = "bandwidth_mb_s[readahead.max=512KiB] >= 1.0 * bandwidth_mb_s[readahead.max=128KiB]"

What "ours" is (the number set beside the paper's): the claim's ``ours`` expression when it
has one; otherwise, when the right side is one term times constants (``k × B``) it is the ratio
left / B (the paper's "2× faster" figures are such ratios); otherwise, when the right side is a
constant, the left side's value; otherwise the left side's value too.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from prefetchlab._engine import PrefetchlabError

Scalar = str | int | float | bool
#: A selector's value: one, or a tuple of alternatives (``KEY=a|b``).
Wanted = Scalar | tuple[Scalar, ...]


class ClaimError(PrefetchlabError):
    """A claim that cannot be parsed or bound to the experiment's runs."""


@dataclass(frozen=True)
class Num:
    value: float


@dataclass
class Term:
    metric: str
    selector: dict[str, Wanted]
    agg: str | None = None
    #: The runs the term covers, filled in by :func:`bind`.
    run_ids: list[str] = field(default_factory=list)
    #: Those runs by configuration: runs that differ only in ``run.seed`` (replicates) are one
    #: group, whose value is their mean; filled in by :func:`bind` (empty: each run alone).
    groups: list[list[str]] = field(default_factory=list)


@dataclass(frozen=True)
class BinOp:
    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class Neg:
    operand: Node


Node = Num | Term | BinOp | Neg

_CMP = {">=": ">=", "<=": "<=", ">": ">", "<": "<", "==": "==", "≥": ">=", "≤": "<="}
_AGG = ("mean", "min", "max")
_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<sel>\[[^\]]*\])"
    r"|(?P<op>>=|<=|==|≥|≤|[<>*/×+\-()]))"
)


def parse_value(raw: str) -> Scalar:
    """A selector value as ``--set`` reads it: a TOML scalar when it is one, else a string."""
    raw = raw.strip()
    try:
        v = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
    if isinstance(v, str | int | float | bool):
        return v
    return raw


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise ClaimError(f"unexpected text at `{text[pos:].strip()[:20]}`")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str] | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ClaimError("unexpected end of the expression")
        self.i += 1
        return tok

    def expect(self, value: str) -> None:
        tok = self.peek()
        if tok is None or tok[1] != value:
            raise ClaimError(f"expected `{value}`, got {'the end' if tok is None else f'`{tok[1]}`'}")
        self.i += 1

    def expr(self) -> Node:
        node = self.prod()
        while (tok := self.peek()) is not None and tok[1] in ("+", "-"):
            self.i += 1
            node = BinOp(tok[1], node, self.prod())
        return node

    def prod(self) -> Node:
        node = self.unary()
        while (tok := self.peek()) is not None and tok[1] in ("*", "/", "×"):
            self.i += 1
            node = BinOp("/" if tok[1] == "/" else "*", node, self.unary())
        return node

    def unary(self) -> Node:
        tok = self.peek()
        if tok is not None and tok[1] == "-":
            self.i += 1
            return Neg(self.unary())
        return self.atom()

    def atom(self) -> Node:
        kind, value = self.take()
        if kind == "num":
            return Num(float(value))
        if value == "(":
            node = self.expr()
            self.expect(")")
            return node
        if kind == "name" and value in _AGG and self.peek() == ("op", "("):
            self.i += 1
            term = self.term()
            self.expect(")")
            term.agg = value
            return term
        if kind == "name":
            self.i -= 1
            return self.term()
        raise ClaimError(f"expected a number, a metric or `(`, got `{value}`")

    def term(self) -> Term:
        kind, metric = self.take()
        if kind != "name":
            raise ClaimError(f"expected a metric name, got `{metric}`")
        selector: dict[str, Wanted] = {}
        tok = self.peek()
        if tok is not None and tok[0] == "sel":
            self.i += 1
            for part in tok[1][1:-1].split(","):
                if not part.strip():
                    continue
                key, eq, raw = part.partition("=")
                if not eq or not key.strip():
                    raise ClaimError(f"a selector is KEY=VALUE, got `{part.strip()}`")
                options = tuple(parse_value(v) for v in raw.split("|"))
                selector[key.strip().strip("\"'")] = options[0] if len(options) == 1 else options
        return Term(metric, selector)


@dataclass
class Check:
    """A parsed ``check``: ``left CMP right``."""

    left: Node
    cmp: str
    right: Node
    ours: Node | None = None

    def terms(self) -> list[Term]:
        out: list[Term] = []
        for node in (self.left, self.right, self.ours):
            _collect(node, out)
        return out


def _collect(node: Node | None, out: list[Term]) -> None:
    if isinstance(node, Term):
        out.append(node)
    elif isinstance(node, BinOp):
        _collect(node.left, out)
        _collect(node.right, out)
    elif isinstance(node, Neg):
        _collect(node.operand, out)


def parse_expr(text: str) -> Node:
    """Parses an expression (the ``ours`` field)."""
    p = _Parser(text)
    node = p.expr()
    if p.peek() is not None:
        raise ClaimError(f"unexpected `{p.peek()[1]}` after the expression")  # type: ignore[index]
    return node


def parse_check(text: str, ours: str | None = None) -> Check:
    """Parses a ``check`` (and an optional ``ours`` expression)."""
    p = _Parser(text)
    left = p.expr()
    tok = p.peek()
    if tok is None or tok[1] not in _CMP:
        got = "the end" if tok is None else f"`{tok[1]}`"
        raise ClaimError(f"expected a comparison (>=, <=, >, <, ==), got {got}")
    p.i += 1
    right = p.expr()
    if p.peek() is not None:
        raise ClaimError(f"unexpected `{p.peek()[1]}` after the comparison")  # type: ignore[index]
    return Check(left, _CMP[tok[1]], right, parse_expr(ours) if ours else None)


def unknown_metric(name: str, metrics: list[str]) -> str:
    """``unknown metric `x` (did you mean `y`?)``, or listing the metrics when nothing is close;
    for a metric that is text (a policy's counters as JSON), that it is not a number."""
    from prefetchlab.schema import text_metrics

    if name in text_metrics():
        return f"`{name}` is text (a policy's own counters as JSON), not a number to compare or draw"
    close = difflib.get_close_matches(name, metrics, n=3)
    hint = (
        f"did you mean {' or '.join(f'`{m}`' for m in close)}?" if close else "metrics: " + ", ".join(metrics)
    )
    return f"unknown metric `{name}` ({hint})"


Selector = Callable[[dict[str, Wanted]], list[str]]
#: Run ids into groups of replicates (the same configuration but for ``run.seed``), in order.
Grouper = Callable[[list[str]], list[list[str]]]


def bind(
    check: Check,
    where: Mapping[str, Scalar],
    metrics: list[str],
    select: Selector,
    replicates: Grouper | None = None,
) -> None:
    """Checks every term's metric and selector, and records the runs each term covers.

    ``select(selector)`` returns the ids of the runs matching a selector (raising a
    :class:`PrefetchlabError` naming a bad key or value); ``replicates(ids)`` groups them into
    replicates, runs that differ only in their seed: a term's value at a configuration is the
    mean over its seeds, and ``min()``, ``max()`` and ``mean()`` range over configurations.
    """
    for term in check.terms():
        if term.metric not in metrics:
            raise ClaimError(unknown_metric(term.metric, metrics))
        sel = {**where, **term.selector}
        ids = select(sel)
        shown = ", ".join(f"{k}={_shown(v)}" for k, v in sel.items()) or "no selector"
        if not ids:
            raise ClaimError(f"`{term.metric}` at {shown} matches no run of the sweep")
        groups = replicates(ids) if replicates is not None else [[i] for i in ids]
        if term.agg is None and len(groups) > 1:
            raise ClaimError(
                f"`{term.metric}` at {shown} matches {len(groups)} "
                f"{'configurations' if len(groups) < len(ids) else 'runs'}: "
                "name the other axes, or use mean(), min() or max()"
            )
        term.run_ids = ids
        term.groups = groups


def _shown(v: Wanted) -> str:
    return "|".join(str(x) for x in v) if isinstance(v, tuple) else str(v)


def _eval(node: Node, values: Mapping[str, Mapping[str, float | None]]) -> float:
    if isinstance(node, Num):
        return node.value
    if isinstance(node, Neg):
        return -_eval(node.operand, values)
    if isinstance(node, Term):
        # a metric over nothing (None: nothing prefetched, no request timed) is no number
        xs = [
            math.fsum(_number(values[r][node.metric]) for r in group) / len(group)  # over its seeds
            for group in (node.groups or [[r] for r in node.run_ids])
        ]
        if any(math.isnan(x) for x in xs):
            return float("nan")  # min() and max() would depend on the order
        if node.agg == "min":
            return min(xs)
        if node.agg == "max":
            return max(xs)
        return sum(xs) / len(xs)
    a, b = _eval(node.left, values), _eval(node.right, values)
    if node.op == "+":
        return a + b
    if node.op == "-":
        return a - b
    if node.op == "*":
        return a * b
    return a / b if b != 0 else float("inf") if a > 0 else float("-inf") if a < 0 else float("nan")


def _number(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def _scaled_term(node: Node) -> Term | None:
    """``B`` when ``node`` is a term times constants (``k * B``, ``B * k``, ``B``)."""
    if isinstance(node, Term):
        return node
    if isinstance(node, BinOp) and node.op == "*":
        if isinstance(node.left, Num):
            return _scaled_term(node.right)
        if isinstance(node.right, Num):
            return _scaled_term(node.left)
    return None


def _constant(node: Node) -> bool:
    if isinstance(node, Num):
        return True
    if isinstance(node, Neg):
        return _constant(node.operand)
    if isinstance(node, BinOp):
        return _constant(node.left) and _constant(node.right)
    return False


def _both_finite(left: float, right: float) -> bool:
    return math.isfinite(left) and math.isfinite(right)


@dataclass(frozen=True)
class Outcome:
    """A checked claim: both sides, "ours", and whether it holds."""

    left: float
    right: float
    ours: float
    ours_kind: str  # "ratio" or "value"
    holds: bool

    @property
    def defined(self) -> bool:
        """Whether both sides are numbers (not a division by zero)."""
        return _both_finite(self.left, self.right)


def evaluate(check: Check, values: Mapping[str, Mapping[str, float | None]]) -> Outcome:
    """Evaluates a bound check over ``values[run_id][metric]``; every run must be present.

    A side that is not a finite number (a division by zero, or a metric that is None because
    the run had nothing to measure it over) is no evidence: the claim does not hold."""
    left, right = _eval(check.left, values), _eval(check.right, values)
    holds = (
        _both_finite(left, right)
        and {
            ">=": left >= right,
            "<=": left <= right,
            ">": left > right,
            "<": left < right,
            "==": left == right,
        }[check.cmp]
    )
    if check.ours is not None:
        return Outcome(left, right, _eval(check.ours, values), "value", holds)
    base = _scaled_term(check.right)
    if base is not None and not _constant(check.left):
        denom = _eval(base, values)
        ratio = left / denom if denom != 0 else float("nan")
        return Outcome(left, right, ratio, "ratio", holds)
    return Outcome(left, right, left, "value", holds)
