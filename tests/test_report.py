"""``prefetchlab reproduce``: the claims as JSON, and the report page in a real browser
(headless Chromium from Debian's ``chromium`` and ``chromium-driver``, never downloaded)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .sweep_files import cli

REPO = Path(__file__).resolve().parents[1]
DEMO = REPO / "experiments" / "foundation-demo.toml"

#: A claim that cannot hold (x > 2x for a positive x), appended to the demo.
FALSE_CLAIM = """
[[claim]]
text = "A deliberately false claim: at 4 streams, the bandwidth exceeds twice itself"
where = { "workload.streams" = 4, "readahead.max" = "512KiB" }
check = "bandwidth_mb_s > 2 * bandwidth_mb_s"
paper = "2x"
"""


@pytest.fixture(scope="module")
def reproduced(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """Runs ``reproduce --json`` on the demo experiment plus a false claim; (report dir, JSON)."""
    root = tmp_path_factory.mktemp("reproduce")
    (root / "experiments").mkdir()
    (root / "experiments" / "foundation-demo.toml").write_text(DEMO.read_text() + FALSE_CLAIM)
    (root / "experiments" / "plain.toml").write_text("[workload]\nstreams = 2\n")  # not an experiment
    r = cli("reproduce", "--json", "--workers", "2", cwd=root)
    assert r.returncode == 0, r.stderr
    return root / "report", json.loads(r.stdout)


def test_reproduce_lists_every_claim_with_its_reference_and_ours(
    reproduced: tuple[Path, dict[str, Any]],
) -> None:
    _, out = reproduced
    claims = out["claims"]
    keys = {"experiment", "claim", "paper", "expected", "source", "ours", "holds"}
    assert [set(c) for c in claims] == [keys] * 3
    assert {c["experiment"] for c in claims} == {"foundation-demo"}
    for c in claims:
        assert isinstance(c["holds"], bool) and isinstance(c["ours"], float)
    # The demo's claims are our expectations, not published figures: labelled as such, with a source.
    for c in claims[:2]:
        assert c["paper"] is None and c["expected"] == "> 1×" and "Not a published figure" in c["source"]
    false = claims[2]
    assert false["holds"] is False and false["ours"] == pytest.approx(1.0)
    assert (false["paper"], false["expected"], false["source"]) == ("2x", None, None)


def test_the_demo_claims_hold(reproduced: tuple[Path, dict[str, Any]]) -> None:
    """The foundation demo's own claims are statements about the model: this is where a change
    of the model that breaks one shows."""
    _, out = reproduced
    demo = out["claims"][:2]
    assert [c["holds"] for c in demo] == [True, True], demo
    assert all(c["ours"] > 1.0 for c in demo)  # both are "A > B" claims: ours is A / B


def test_a_claim_whose_side_divides_by_zero_is_shown_undefined() -> None:
    """A check with a side that is not a number (a division by zero) is no evidence: it does
    not hold, and the report says it is undefined instead of setting inf beside the bound."""
    from prefetchlab.claims import evaluate, parse_check
    from prefetchlab.experiment import Claim, ClaimResult
    from prefetchlab.report import _ours, _status

    check = parse_check("2 / (1 - 1) > 1")
    outcome = evaluate(check, {})
    assert outcome.left == float("inf") and not outcome.holds
    r = ClaimResult("e", Claim("x", "2 / (1 - 1) > 1", None, None, {}, check), outcome, 0)
    assert _status(r) == ("fails", "does not hold (undefined)")
    assert _ours(r).startswith("undefined") and "division by zero" in _ours(r)
    assert r.to_json()["ours"] is None and r.to_json()["holds"] is False


def test_a_claim_over_a_metric_measured_over_nothing_does_not_hold() -> None:
    """A metric that is None (a run that prefetched nothing has no prefetch accuracy) is no
    number: a claim over it, alone or in an aggregate, in any order, is undefined, not 0."""
    from prefetchlab.claims import Term, evaluate, parse_check

    for order in (["a", "b"], ["b", "a"]):
        check = parse_check("max(prefetch_accuracy) >= 0.5")
        term = check.terms()[0]
        assert isinstance(term, Term)
        term.run_ids = order
        outcome = evaluate(check, {"a": {"prefetch_accuracy": None}, "b": {"prefetch_accuracy": 0.9}})
        assert not outcome.holds and not outcome.defined, order
    check = parse_check("prefetch_accuracy < 2")
    check.terms()[0].run_ids = ["a"]
    assert not evaluate(check, {"a": {"prefetch_accuracy": None}}).holds


def _browser() -> tuple[str, str]:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not (os.access(chromium, os.X_OK) and os.access(driver, os.X_OK)):
        pytest.skip("Debian's chromium and chromium-driver are not installed (make test installs them)")
    return chromium, driver


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    chromium, driver = _browser()
    monkeypatch.setenv("SE_OFFLINE", "true")  # Selenium Manager must never download anything
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    profile = tempfile.mkdtemp(prefix="prefetchlab-chromium-")
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--window-size=1200,900",
    ):
        options.add_argument(arg)
    b = webdriver.Chrome(options=options, service=Service(executable_path=driver))
    try:
        yield b
    finally:
        b.quit()
        shutil.rmtree(profile, ignore_errors=True)


def test_report_renders_with_figures_and_claim_tables(
    reproduced: tuple[Path, dict[str, Any]], browser: Any
) -> None:
    from selenium.webdriver.common.by import By

    report, out = reproduced
    page = report / "index.html"
    html = page.read_text()
    assert 'src="data:image/png;base64,' in html and "figures/" not in html  # self-contained
    browser.get(page.as_uri())
    browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "Promise.all([...document.images].map(i => i.decode().catch(() => null))).then(() => done());"
    )
    images = browser.find_elements(By.TAG_NAME, "img")
    assert len(images) == 1
    for img in images:
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth", img) > 0
        assert img.size["width"] > 100 and img.size["height"] > 100
    tables = browser.find_elements(By.CSS_SELECTOR, "table.claims")
    assert len(tables) == 1
    headers = [th.text for th in tables[0].find_elements(By.TAG_NAME, "th")]
    assert headers == ["claim", "reference", "ours", "holds?"]
    rows = tables[0].find_elements(By.CSS_SELECTOR, "tr.claim")
    assert len(rows) == 3
    # Each reference is labelled: the demo's expectations as such, with their source; a
    # published figure as "paper".
    refs = [row.find_element(By.CSS_SELECTOR, "td.reference") for row in rows]
    assert [r.get_attribute("data-kind") for r in refs] == ["expected", "expected", "paper"]
    for r, c in zip(refs[:2], out["claims"][:2], strict=True):
        assert r.text.startswith("expected (not a published figure): > 1×"), r.text
        assert "source: " + c["source"] in r.text.replace("\n", " ")
    assert refs[2].text == "paper: 2x"
    verdicts = [row.find_elements(By.TAG_NAME, "td")[-1] for row in rows]
    expected = ["holds" if c["holds"] else "does not hold" for c in out["claims"]]
    assert [v.text for v in verdicts] == expected and expected[2] == "does not hold"
    assert "deliberately false" in rows[2].text and rows[2].get_attribute("data-holds") == "false"
    assert verdicts[2].get_attribute("class") == "fails"
    # Shown differently from a claim that holds.
    colour = {v.text: v.value_of_css_property("background-color") for v in verdicts}
    assert colour["does not hold"] != colour.get("holds", colour["does not hold"] + "x")
    # The configuration behind the figure.
    config = browser.find_element(By.CSS_SELECTOR, "section#foundation-demo details pre").text
    assert "streams = [1, 4, 16, 64]" in config and 'max = ["128KiB", "512KiB"]' in config
    summary = browser.find_element(By.CSS_SELECTOR, "table.summary").text
    held = sum(c["holds"] for c in out["claims"])
    assert f"3 {held} {3 - held}" in summary.replace("\n", " ")


SEEDED = """
[experiment]
name = "seeded"
title = "Two windows over three seeds"

[readahead]
max = ["128KiB", "512KiB"]

[workload]
streams = 2
file_size = "1MiB"

[run]
seed = [1, 2, 3]

[[claim]]
text = "The larger window reads more (a bare term: the mean over the seeds)"
check = "bandwidth_mb_s[readahead.max=512KiB] > bandwidth_mb_s[readahead.max=128KiB]"

[[claim]]
text = "The best window is the larger one (max over configurations, each the mean of its seeds)"
check = "bandwidth_mb_s[readahead.max=512KiB] >= max(bandwidth_mb_s)"
"""


def test_a_claim_takes_the_mean_over_seeds_of_each_configuration(tmp_path: Path) -> None:
    """Runs that differ only in ``run.seed`` are replicates: a bare term over them is their mean
    (not an error), and min()/max() range over configurations, each the mean of its seeds —
    so a claim does not rest on one lucky seed."""
    from prefetchlab.claims import evaluate
    from prefetchlab.experiment import load_experiment

    path = tmp_path / "seeded.toml"
    path.write_text(SEEDED)
    exp = load_experiment(path)
    assert len(exp.runs) == 6
    bare, best = (c.check for c in exp.claims)
    assert [len(t.groups) for t in bare.terms()] == [1, 1] and len(bare.terms()[0].run_ids) == 3
    assert len(best.terms()[1].groups) == 2
    big = [r.run_id for r in exp.runs if r.flat["readahead.max"] == 512 << 10]
    small = [r.run_id for r in exp.runs if r.flat["readahead.max"] == 128 << 10]
    # the larger window wins on two seeds of three, loses badly on one: the means decide
    values: dict[str, dict[str, float | None]] = {}
    for rid, bw in zip(big, (110.0, 110.0, 10.0), strict=True):
        values[rid] = {"bandwidth_mb_s": bw}
    for rid, bw in zip(small, (100.0, 100.0, 100.0), strict=True):
        values[rid] = {"bandwidth_mb_s": bw}
    one = evaluate(bare, values)
    assert one.left == pytest.approx(230 / 3) and one.right == pytest.approx(100.0) and not one.holds
    assert not evaluate(best, values).holds  # max over the two means is 100, not one run's 110
    values[big[2]] = {"bandwidth_mb_s": 120.0}
    assert evaluate(bare, values).holds and evaluate(best, values).holds
