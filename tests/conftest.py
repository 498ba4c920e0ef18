"""Fixtures of the Python tests (helpers are in ``helpers.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from .helpers import CHEETAH, SHARED, SMALL_TOML


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML)
    return path


@pytest.fixture
def cheetah() -> Path:
    """The Cheetah 15K.5 validation directory; skips when the shared data are absent (fails
    under CI=true, where they must be)."""
    if not (CHEETAH / "random.trace").is_file():
        reason = f"shared drive data not found at {CHEETAH} (set PREFETCHLAB_SHARED)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + "; CI=true requires them")
        pytest.skip(reason)
    return CHEETAH


@pytest.fixture
def traces() -> Path:
    """The shared real traces (``../shared/traces``); skips when absent (fails under CI=true)."""
    path = SHARED / "traces"
    if not (path / "msr-sample").is_dir():
        reason = f"shared traces not found at {path} (set PREFETCHLAB_SHARED)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + "; CI=true requires them")
        pytest.skip(reason)
    return path
