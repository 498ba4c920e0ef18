"""The array-cache scheme experiments (issue 10): experiments/fast07.toml and jcp12.toml expand
to their runs over the shared drive and traces, every claim binds to runs, and a few of their
runs agree with what the schemes must show (no prefetching never prefetches; SP reads more
blocks than LSP; AMP with every block's second chance wastes nothing on sequential streams)."""

from __future__ import annotations

import json
from pathlib import Path

import prefetchlab
from prefetchlab.experiment import load_experiment

from .helpers import REPO


def test_fast07_sweeps_eleven_schemes_and_amp_any_over_the_stream_counts(traces: Path) -> None:
    exp = load_experiment(REPO / "experiments" / "fast07.toml")
    labels = {r.flat["run.label"] for r in exp.runs}
    assert len(labels) == 12 and {"AMP", "AMP_any", "FA_256/127", "none", "OBL"} <= labels
    assert len(exp.runs) == 12 * 7 * 5  # five seeds
    model = Path(exp.runs[0].flat["disk.model"])
    assert model.is_absolute() and model.name == "atlas10k.parv" and model.is_file()
    # the paper's Ultra160 interface in place of the measuring rig's 0.099 ms per sector
    disk = json.loads(exp.runs[0].config_json)["disk"]
    assert disk["overrides"] == {"Bulk sector transfer time": 0.0032}
    assert all(c.check.terms() and all(t.run_ids for t in c.check.terms()) for c in exp.claims)
    # FS_64 is FS with p = 64; AMP_any is AMP with every block's second chance
    by_label = {(r.flat["run.label"], r.flat["workload.streams"]): r for r in exp.runs}
    assert (
        by_label[("FS_64", 1)].flat["array_cache.prefetch"],
        by_label[("FS_64", 1)].flat["array_cache.p"],
    ) == (
        "fs",
        64,
    )
    assert by_label[("AMP_any", 1)].flat["array_cache.amp.second_chance"] == "any"
    # one short run of each AMP at 50 streams: AMP_any wastes nothing, no prefetching prefetches nothing
    for label, wasted in (("AMP_any", 0), ("none", 0)):
        cfg = json.loads(by_label[(label, 50)].config_json)
        cfg["run"]["duration"] = 5 * 10**9
        m = prefetchlab.simulate(cfg).metrics
        assert m["wasted_blocks"] == wasted
        assert (m["prefetched_blocks"] == 0) == (label == "none")


def test_jcp12_pairs_schemes_and_traces_and_draws_each_figure_from_its_runs(traces: Path) -> None:
    exp = load_experiment(REPO / "experiments" / "jcp12.toml")
    assert len(exp.runs) == 139
    seqp = {
        (r.flat["run.label"], r.flat["readahead.max"])
        for r in exp.runs
        if r.flat["array_cache.prefetch"] == "linux"
    }
    assert seqp == {("SEQP32", 32 << 10), ("SEQP64", 64 << 10), ("SEQP512", 512 << 10)}
    formats = {(Path(r.flat["workload.path"]).name, r.flat["workload.format"]) for r in exp.runs}
    assert ("ssd-postmark-aligned2.trace", "disksim") in formats and len(formats) == 5
    for f in exp.figures:
        assert f.run_ids, f.name
    assert all(all(t.run_ids for t in c.check.terms()) for c in exp.claims)
    # the smallest cache on WebSearch: SP reads far more blocks than LSP
    web = [r for r in exp.runs if "wsrch" in r.flat["workload.path"] and r.flat["workload.fragments"] == 1]
    pick = {
        r.flat["run.label"]: r
        for r in web
        if r.flat["array_cache.size"] == 4 << 20
        and r.flat["array_cache.lsp.window"] == 50
        and r.flat["array_cache.lsp.gap"] == 128 << 10
    }
    sp, lsp = (prefetchlab.simulate(json.loads(pick[k].config_json)).metrics for k in ("SP", "LSP"))
    assert sp["prefetched_blocks"] > 3 * lsp["prefetched_blocks"] > 0

    def accuracy(m: dict[str, float]) -> float:
        return m["prefetch_used_blocks"] / m["prefetched_blocks"]

    assert accuracy(lsp) > accuracy(sp)
