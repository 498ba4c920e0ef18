"""Streaming at scale (issue 9): memory stays flat while a cache-only run reads a generated
trace far longer than its cache — the peak resident memory of a run over 1,000,000 records
exceeds that of a run over 50,000 by less than 16 MiB (the trace itself is ~30 MiB of text
compressed, and its footprint, ~1,000,000 distinct blocks, is 4,000 times the cache's)."""

from __future__ import annotations

import gzip
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

#: One cache-only run in a process of its own; prints its metrics and the process's peak
#: resident memory (VmHWM: this process image's own high-water mark).
_CHILD = """
import json, sys, prefetchlab
m = prefetchlab.simulate(sys.argv[1]).metrics
hwm = [l for l in open("/proc/self/status") if l.startswith("VmHWM:")][0].split()[1]
print(json.dumps({"metrics": m, "peak_rss_bytes": int(hwm) * 1024}))
"""


def _trace(path: Path, records: int) -> None:
    """SPC records: 4 KiB reads at random sectors of a 40 GiB region (a new block almost
    every time), 100 µs apart."""
    rng = random.Random(7)
    with gzip.open(path, "wt", compresslevel=1) as f:
        f.writelines(f"0,{rng.randrange(10_000_000) * 8},4096,r,{i / 10_000:.4f}\n" for i in range(records))


def _peak_rss(tmp_path: Path, records: int) -> tuple[int, dict[str, int]]:
    trace = tmp_path / f"t{records}.spc.gz"
    _trace(trace, records)
    config = tmp_path / f"c{records}.toml"
    config.write_text(
        f'[workload]\nkind = "trace"\npath = "{trace}"\nformat = "spc"\n'
        '[run]\nmode = "cache-only"\n[array_cache]\nsize = "1MiB"\n'
    )
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(config)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    return out["peak_rss_bytes"], out["metrics"]


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc (Linux)")
def test_memory_stays_flat_over_a_trace_far_longer_than_the_cache(tmp_path: Path) -> None:
    short_rss, short = _peak_rss(tmp_path, 50_000)
    long_rss, long = _peak_rss(tmp_path, 1_000_000)
    assert (short["app_requests"], long["app_requests"]) == (50_000, 1_000_000)
    assert long["misses"] > 990_000  # a footprint far beyond the cache's 256 blocks
    growth = long_rss - short_rss
    assert growth < 16 * 2**20, f"peak RSS grew by {growth / 2**20:.1f} MiB: {short_rss} → {long_rss} bytes"
