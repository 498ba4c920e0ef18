"""Start-up: the command line loads only what it uses.

``prefetchlab --help``, ``run`` and ``validate-disk`` must start in a small fraction of a
second, so the libraries they do not use (pyarrow, DuckDB, matplotlib, Dask, tqdm, numpy) are
imported only by the functions that need them. These tests check *what* a fresh interpreter has
imported (``sys.modules``), never how long it took.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

#: Top-level packages the command line must not import unless a command needs them.
HEAVY = ("pyarrow", "duckdb", "matplotlib", "dask", "distributed", "tqdm", "numpy", "pandas")


def _heavy_modules_after(code: str) -> list[str]:
    """Runs ``code`` in a fresh interpreter; returns the heavy top-level packages it imported."""
    probe = textwrap.dedent(code) + textwrap.dedent(
        f"""
        import json as _json, sys as _sys
        _heavy = sorted({{m.split(".")[0] for m in _sys.modules}} & set({list(HEAVY)!r}))
        _sys.__stdout__.write("\\nHEAVY=" + _json.dumps(_heavy) + "\\n")
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    assert proc.returncode == 0, proc.stderr
    line = [x for x in proc.stdout.splitlines() if x.startswith("HEAVY=")][-1]
    heavy: list[str] = json.loads(line.removeprefix("HEAVY="))
    return heavy


def _main(*args: str) -> str:
    """Code that runs ``prefetchlab ARGS`` through ``cli.main`` (``--help`` exits through SystemExit)."""
    return f"""
        from prefetchlab import cli
        try:
            code = cli.main({list(args)!r})
        except SystemExit as e:
            code = e.code
        assert code == 0, code
        """


def test_importing_the_cli_loads_no_heavy_library() -> None:
    assert _heavy_modules_after("import prefetchlab.cli") == []


def test_the_package_and_its_api_load_no_heavy_library() -> None:
    code = """
        import prefetchlab
        assert callable(prefetchlab.simulate) and prefetchlab.Report and prefetchlab.resolve
        assert prefetchlab.__version__ and issubclass(prefetchlab.PrefetchlabError, ValueError)
        """
    assert _heavy_modules_after(code) == []


def test_help_and_version_load_no_heavy_library() -> None:
    assert _heavy_modules_after(_main("--help")) == []
    assert _heavy_modules_after(_main("run", "--help")) == []
    assert _heavy_modules_after(_main("--version")) == []


def test_run_loads_no_heavy_library(small_config: Path) -> None:
    # Not on a terminal and quick: no progress bar, so not even tqdm.
    assert _heavy_modules_after(_main("run", str(small_config))) == []
    assert _heavy_modules_after(_main("run", str(small_config), "--json")) == []


def test_validate_disk_loads_no_heavy_library(cheetah: Path) -> None:
    spec, trace = cheetah / "Seagate-Cheetah15k5.parv", cheetah / "random.trace"
    assert _heavy_modules_after(_main("validate-disk", str(spec), str(trace))) == []


def test_the_check_sees_a_heavy_import() -> None:
    """The probe itself: the io_log is an Arrow table, so asking for it does load pyarrow."""
    code = """
        import prefetchlab
        prefetchlab.simulate({"workload": {"file_size": "8KiB"}, "output": {"io_log": True}})
        """
    assert "pyarrow" in _heavy_modules_after(code)


@pytest.mark.parametrize("name", ["IO_LOG_COLUMNS", "Report", "resolve", "simulate", "validate_disk"])
def test_lazy_public_names_are_the_api_s(name: str) -> None:
    import prefetchlab
    import prefetchlab.api

    assert getattr(prefetchlab, name) is getattr(prefetchlab.api, name)
    assert name in dir(prefetchlab) and name in prefetchlab.__all__


def test_an_unknown_name_is_an_attribute_error() -> None:
    import prefetchlab

    with pytest.raises(AttributeError, match="no_such_name"):
        prefetchlab.no_such_name  # noqa: B018
