"""Back-to-back sequential reads, prefetchlab beside DiskSim 4.0: the figures of
``crates/prefetchlab/tests/disk_sequential.rs``, produced again.

For each drive (the five of ``../shared/disksim-valid``; the Cheetah 15K.5 in the
five cache variants of the test) and each size n of 16, 64, 128, 256 and 512
sectors, a DiskSim validation trace of 2,000 reads ``R Miss <i·n> <n> 1000.0 0.0``
is replayed by ``prefetchlab.validate_disk`` and, when ``$DISKSIM`` names a DiskSim
binary, by ``$DISKSIM DRIVE.parv out.outv validate TRACE 0 [disk0 NAME VALUE]...``
in a copy of the drive's folder (its ``IOdriver Response time average``). Prints
both mean access times (ms) and their ratio; asserts nothing.

    DISKSIM=/path/to/disksim .venv/bin/python benches/disksim_sequential.py
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import prefetchlab

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("PREFETCHLAB_SHARED", REPO.parent / "shared"))
VALID = SHARED / "disksim-valid"
SIZES = (16, 64, 128, 256, 512)
REQUESTS = 2000

C15K5_VARIANTS: list[tuple[str, list[tuple[str, float]]]] = [
    (
        "readme-overrides",
        [("Enable caching in buffer", 0.0), ("Fast write level", 0.0), ("Buffer continuous read", 0.0)],
    ),
    ("as-is", []),
    ("no-read-ahead", [("Buffer continuous read", 0.0)]),
    ("almost-read-hits", [("Allow almost read hits", 1.0)]),
    ("stop-prefetch-in-sector", [("Stop prefetch in sector", 1.0)]),
]

CASES: list[tuple[str, Path, list[tuple[str, float]]]] = [
    (f"cheetah15k5 {name}", VALID / "cheetah15k5" / "Seagate-Cheetah15k5.parv", ov)
    for name, ov in C15K5_VARIANTS
] + [(f"{d} as-is", VALID / f"{d}.parv", []) for d in ("cheetah9LP", "atlas10k", "barracuda", "hp_c2247a")]

AVERAGE = re.compile(r"^IOdriver Response time average:\s*([0-9.eE+-]+)", re.M)


def write_trace(n: int, path: Path) -> Path:
    path.write_text("".join(f"R Miss {i * n} {n} 1000.0 0.0\n" for i in range(REQUESTS)))
    return path


def disksim_mean_ms(
    disksim: str, spec: Path, overrides: list[tuple[str, float]], trace: Path, tmp: Path
) -> float:
    folder = tmp / f"drive-{spec.stem}"
    if not folder.exists():
        folder.mkdir()
        for f in spec.parent.iterdir():
            if f.is_file() and f.suffix != ".trace":
                shutil.copy(f, folder / f.name)
    argv = [disksim, spec.name, str(folder / "out.outv"), "validate", str(trace), "0"]
    for name, value in overrides:
        argv += ["disk0", name, f"{value:g}"]
    subprocess.run(argv, cwd=folder, capture_output=True, check=True)
    m = AVERAGE.search((folder / "out.outv").read_text(errors="replace"))
    if m is None:
        raise RuntimeError(f"DiskSim's output for {spec.name} has no 'IOdriver Response time average'")
    return float(m.group(1))


def main() -> int:
    if not VALID.is_dir():
        print(f"skipped: the DiskSim validation data are not at {VALID} (set PREFETCHLAB_SHARED)")
        return 0
    disksim = os.environ.get("DISKSIM")
    if disksim and not (os.path.isfile(disksim) and os.access(disksim, os.X_OK)):
        print(f"DISKSIM={disksim} is not an executable file: DiskSim is not run")
        disksim = None
    print(f"{REQUESTS} back-to-back reads of n sectors from block 0; mean access time, ms")
    print(f"{'drive, variant':<38} {'n':>4} {'prefetchlab':>12} {'DiskSim':>10} {'ratio':>7}")
    with tempfile.TemporaryDirectory(prefix="prefetchlab-seq-") as tmp_name:
        tmp = Path(tmp_name)
        for n in SIZES:
            write_trace(n, tmp / f"seq{n}.trace")
        for label, spec, ov in CASES:
            for n in SIZES:
                trace = tmp / f"seq{n}.trace"
                ours = prefetchlab.validate_disk(spec, trace, ov)["mean_sim_ms"]
                if disksim:
                    ds = disksim_mean_ms(disksim, spec, ov, trace, tmp)
                    print(f"{label:<38} {n:>4} {ours:>12.6f} {ds:>10.6f} {ours / ds:>7.4f}")
                else:
                    print(f"{label:<38} {n:>4} {ours:>12.6f} {'-':>10} {'-':>7}")
    if not disksim:
        print("DiskSim not run: set DISKSIM to a DiskSim binary to print its figures beside these")
    return 0


if __name__ == "__main__":
    sys.exit(main())
