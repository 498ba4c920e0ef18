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


def _shared_or_skip(path: Path, what: str) -> Path:
    """``path`` of the shared data when it exists; else the test skips (fails under
    CI=true, where ../shared must be present)."""
    if not path.exists():
        reason = f"shared {what} not found at {path} (set PREFETCHLAB_SHARED)"
        if os.environ.get("CI") == "true":
            pytest.fail(reason + "; CI=true requires them")
        pytest.skip(reason)
    return path


@pytest.fixture
def cheetah() -> Path:
    """The Cheetah 15K.5 validation directory."""
    _shared_or_skip(CHEETAH / "random.trace", "drive data")
    return CHEETAH


@pytest.fixture
def traces() -> Path:
    """The shared real traces (``../shared/traces``)."""
    _shared_or_skip(SHARED / "traces" / "msr-sample", "traces")
    return SHARED / "traces"
