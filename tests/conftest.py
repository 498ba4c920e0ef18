"""Fixtures of the Python tests (helpers are in ``helpers.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .helpers import CHEETAH, SMALL_TOML


@pytest.fixture
def small_config(tmp_path: Path) -> Path:
    path = tmp_path / "small.toml"
    path.write_text(SMALL_TOML)
    return path


@pytest.fixture
def cheetah() -> Path:
    """The Cheetah 15K.5 validation directory; skips when the shared data are absent."""
    if not (CHEETAH / "random.trace").is_file():
        pytest.skip(f"shared drive data not found at {CHEETAH} (set PREFETCHLAB_SHARED)")
    return CHEETAH
