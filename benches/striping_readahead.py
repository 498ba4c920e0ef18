"""Speed of the striping-aware readahead schemes (``make bench``, issue 8): the 64-stream
[TC09] Fig. 8 configuration of ``experiments/tc09-fig8.toml`` (5 Cheetah 15K.4 in RAID-0 with
128 KiB strips, the anticipatory scheduler, 1 GiB of memory, a 512 MiB array cache; 64
IOzone-style streams of 4 KiB records over 128 MiB files, 8 GiB in all) with each page-cache
scheme, alone and with MSP in the array cache.

For each: simulated application requests per wall second as the engine measures them
(``requests_per_wall_s``, the median of ``--repeat`` runs), its ratio to plain Linux 2.6.18
readahead's rate, the simulated bandwidth and the readahead windows per request. Prints numbers
with their units; asserts nothing.
"""

from __future__ import annotations

import argparse
import statistics
from typing import Any

import prefetchlab
from prefetchlab._table import render

#: (label, readahead settings, array-cache prefetch)
SCHEMES: list[tuple[str, dict[str, Any], str]] = [
    ("Linux 2.6.18 (SEQP)", {"policy": "linux", "variant": "2.6.18"}, "none"),
    ("SASEQP", {"policy": "saseqp"}, "none"),
    ("Linux 3.10 (on-demand)", {"policy": "linux", "variant": "3.10"}, "none"),
    ("SARA basic", {"policy": "sara-basic"}, "none"),
    ("SARA extended", {"policy": "sara-extended"}, "none"),
    ("MSP+SEQP", {"policy": "linux", "variant": "2.6.18"}, "msp"),
    ("MSP+SASEQP", {"policy": "saseqp"}, "msp"),
]


def _tc09(readahead: dict[str, Any], prefetch: str, streams: int) -> dict[str, Any]:
    return {
        "array": {"layout": "raid0", "disks": 5, "strip": "128KiB"},
        "disk": {"model": "cheetah-15k4", "scheduler": "anticipatory"},
        "host": {"memory": "1GiB"},
        "array_cache": {"size": "512MiB", "prefetch": prefetch},
        "readahead": {"max": "128KiB", **readahead},
        "workload": {
            "kind": "iozone",
            "streams": streams,
            "record": "4KiB",
            "file_size": f"{8192 // streams}MiB",
        },
        "run": {"seed": 1},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--streams", type=int, default=64, help="concurrent streams (8 GiB in all)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per scheme (the median is printed)")
    args = ap.parse_args()
    results = []
    for label, readahead, prefetch in SCHEMES:
        runs = [
            prefetchlab.simulate(_tc09(readahead, prefetch, args.streams)).metrics for _ in range(args.repeat)
        ]
        rate = statistics.median(m["requests_per_wall_s"] for m in runs)
        m = runs[0]
        results.append((label, rate, m["bandwidth_mb_s"], m["readahead_windows"] / max(1, m["app_requests"])))
    base = results[0][1]
    rows = [
        [label, f"{rate / 1e6:.2f} M", f"{rate / base:.2f}×", f"{bw:.1f}", f"{win:.3f}"]
        for label, rate, bw, win in results
    ]
    print(
        f"[TC09] Fig. 8 configuration at {args.streams} streams, 8 GiB read (medians of {args.repeat} runs)"
    )
    print(
        render(
            ["scheme", "requests / wall s", "× 2.6.18's rate", "MB/s simulated", "windows / request"], rows
        )
    )
    worst = min(results[1:], key=lambda r: r[1])
    print(f"    slowest against Linux 2.6.18: {worst[0]}, {worst[1] / base:.2f}× its rate\n")


if __name__ == "__main__":
    main()
