"""A distributed topology from Python (issue 11): a run reports elapsed_s, stall_s, ssd_hits and
hdd_reads with the plan, ``topology_timeline`` gives the run as [IPODS] Fig. 2 draws it, the
``ipods`` experiments bind their claims and draw their timeline figure, and bad input is one
error naming the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import prefetchlab
from prefetchlab.experiment import ExperimentError, load_experiment
from prefetchlab.experiments_cli import find_experiments

from .helpers import REPO

FIG2 = """
[topology]
block = 300000000
[[topology.clients]]
cache = "8GiB"
[topology.network]
latency = 0
bandwidth = "1EiB"
[[topology.nodes]]
count = 20
[topology.nodes.upper]
kind = "ssd"
read_latency = 0
read_bandwidth = 75000000
write_latency = 0
write_bandwidth = 100000000
[topology.nodes.lower]
kind = "ssd"
read_latency = 0
read_bandwidth = 60000000
write_latency = 0
write_bandwidth = 60000000
[informed]
policy = "ipods"
max_bw = 5
x_cache = 2
t_cpu = "1s"
[workload]
kind = "iozone"
streams = 1
file_size = 2700000000
"""


def test_a_topology_run_reports_its_metrics_and_plan() -> None:
    m = prefetchlab.simulate(FIG2).metrics
    assert m["elapsed_s"] == 23.0 and m["stall_s"] == 14.0
    assert (m["ssd_hits"], m["hdd_reads"]) == (3, 6)
    state = json.loads(m["block_policy_state"])
    assert (state["pstart"], state["pnext_offset"], state["depth"]) == (5, 6, 3)
    assert state["t_ss_net_s"] == 4.0


def test_the_timeline_is_the_papers_fig2() -> None:
    t = prefetchlab.topology_timeline(FIG2, reads=7)
    a = t["accesses"]
    assert [ns // 10**9 for ns in a["consumed_ns"]] == [5, 6, 10, 11, 14, 15, 18]
    assert a["from_ssd"] == [False] * 4 + [True] * 3
    assert t["copies"]["block"][:3] == [5, 6, 7]
    assert t["metrics"]["ssd_hits"] == 3
    with pytest.raises(prefetchlab.PrefetchlabError, match="topology.nodes"):
        prefetchlab.topology_timeline("[workload]\nstreams = 1\nfile_size = '1MiB'\n")


def test_the_ipods_group_binds_its_claims_and_draws_timelines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    paths = find_experiments("ipods")
    assert [p.name for p in paths] == ["ipods-fig2.toml", "ipods-fig3-9.toml", "ipods-traces.toml"]
    exp = load_experiment(Path("experiments/ipods-fig2.toml"))
    assert {f.kind for f in exp.figures} == {"timeline", "lines"}
    from prefetchlab.plot import draw

    drawn = [d for d in draw(exp, [], tmp_path) if d.figure.kind == "timeline"]
    assert [d.points for d in drawn] == [9, 9] and all(d.png.stat().st_size > 0 for d in drawn)
    big = load_experiment(Path("experiments/ipods-fig3-9.toml"))
    assert len(big.runs) == 2 * (7 * 6 + 6)  # per sequence length: IPODS at 7 Max_BW, TIP once, 6 X_cache
    assert all(all(t.run_ids for t in c.check.terms()) for c in big.claims)


def test_a_timeline_figure_must_pick_one_run(tmp_path: Path) -> None:
    text = (REPO / "experiments" / "ipods-fig2.toml").read_text()
    bad = text.replace(
        'where = { "informed.policy" = "ipods" }\nreads = 9', 'reads = 9\nwhere = { "informed.x_cache" = 2 }'
    )
    path = tmp_path / "bad.toml"
    path.write_text(bad.replace("../../shared", str(REPO.parent / "shared")))
    with pytest.raises(ExperimentError, match="must pick one run"):
        load_experiment(path)


@pytest.mark.parametrize(
    ("change", "key"),
    [
        (("x_cache = 2", "x_cache = 9"), "informed.x_cache"),
        (("count = 20", "count = 0"), "topology.nodes"),
        (('bandwidth = "1EiB"', "bandwidth = 0"), "topology.network.bandwidth"),
    ],
)
def test_bad_topologies_name_the_key(change: tuple[str, str], key: str) -> None:
    with pytest.raises(prefetchlab.PrefetchlabError, match=key.replace(".", r"\.")):
        prefetchlab.simulate(FIG2.replace(*change))


def test_the_run_header_describes_the_topology() -> None:
    from prefetchlab._table import describe_config

    line = describe_config(prefetchlab.resolve(FIG2))
    assert line.startswith("topology: 1 client(s) with 8 GiB of cache each; 20 node(s) of 75 MB/s device")
    assert "informed ipods X_cache 2 Max_BW 5" in line
    # no [[topology.clients]]: the engine's default client, as the engine resolves it
    default = prefetchlab.resolve(FIG2.replace('[[topology.clients]]\ncache = "8GiB"\n', ""))
    assert default["topology"]["clients"] == [{"count": 1, "cache": 1 << 30}]
    assert describe_config(default).startswith("topology: 1 client(s) with 1 GiB of cache each;")


def test_real_traces_as_hinted_sequences_with_writes_and_several_clients(
    traces: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ipods-traces.toml: each real trace binds its runs; its FIU mail point, shortened to two
    clients, reads through IPODS with the trace's writes as hinted writes (one copy discarded
    as its block was written), and two clients read twice the bytes of one."""
    monkeypatch.chdir(REPO)
    exp = load_experiment(Path("experiments/ipods-traces.toml"))
    assert len(exp.runs) == 3 * 2 * 4
    assert all(all(t.run_ids for t in c.check.terms()) for c in exp.claims)
    want = {"run.label": "FIU mail", "informed.policy": "ipods", "informed.x_cache": 1}
    run = next(r for r in exp.runs if all(r.flat[k] == v for k, v in want.items()))
    cfg = json.loads(run.config_json)
    one = prefetchlab.simulate(cfg).metrics
    assert one["writes"] > 1000 and one["ssd_hits"] > 0
    assert json.loads(one["block_policy_state"])["copies_discarded"] >= 1
    cfg["topology"]["clients"][0]["count"] = 2
    two = prefetchlab.simulate(cfg).metrics
    assert two["bytes_read"] == 2 * one["bytes_read"] and two["app_requests"] == 2 * one["app_requests"]
    assert json.loads(two["block_policy_state"])["clients"] == 2
