"""Shared pytest fixtures: where the public data and the embedded default data live."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

# The suite never writes into a user's judging cache or run folder (.cache/ of the checkout):
# every test process, and every subprocess it starts, gets folders of its own.
_TMP = Path(tempfile.mkdtemp(prefix="cap-tests-"))
os.environ["CAP_CACHE_DIR"] = str(_TMP / "judging")
os.environ["CAP_RUNS_DIR"] = str(_TMP / "live_runs")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository root."""
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The shared folder next to the repository (``../shared``): data/, published/, seeds/."""
    path = (REPO_ROOT / ".." / "shared").resolve()
    assert (path / "data").is_dir(), f"shared data folder missing at {path}"
    return path


@pytest.fixture(scope="session")
def default_data_dir() -> Path:
    """The embedded default dataset (``data/default``) written by ``make data``."""
    path = REPO_ROOT / "data" / "default"
    assert (path / "items.parquet").is_file(), f"default data missing at {path}; run `make data`"
    return path
