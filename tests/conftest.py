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
os.environ["CAP_UPLOAD_DIR"] = str(_TMP / "uploads")

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


# ---------------------------------------------------------------------------------------------
# Scheduling for pytest-xdist (pytest.ini: -n auto --dist loadgroup). Nothing here changes what a
# test checks; it only decides where and when each test runs.
# ---------------------------------------------------------------------------------------------

#: Run first (in this order), so that with several workers the long tests start at once and the many
#: short ones fill the gaps (longest-processing-time order); measured with ``--durations``.
#: The order inside a file is kept.
SLOW_FIRST = (
    "tests/test_packaging.py",  # one worker: a fresh environment, a Dask cluster of separate processes
    "tests/test_browser.py",
    "tests/pages/test_label_audit.py::test_widget_changes_change_the_output",
    "tests/cap_core/judging/test_smollm.py",
    "tests/cap_core/judging/test_resume.py",
    "tests/pages/test_label_audit.py::test_sets_permutations_mode_and_upload_survive_leaving_the_page",
    "tests/pages/test_without_shared.py",
    "tests/cap_core/importers/test_default_data.py::test_shipped_audit_figures_match_a_fresh_audit",
    "tests/cap_core/analyses/test_rank_stability.py",
    "tests/cap_core/judging/test_choice.py",
    "tests/cap_core/judging/test_cache.py",
    "tests/docs/test_notebook_doc.py",
    "tests/pages/test_stress_consistency_compare.py",
    "tests/pages/test_start.py",
    "tests/components/test_plotly_import_race.py",
)


def _module_scoped(item) -> bool:
    """Whether the test uses a module-scoped fixture (an expensive set-up its file shares)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    return any(d and d[-1].scope == "module" for d in defs)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    # a file whose tests share a module-scoped fixture (a server, a browser, a built dataset, a run of
    # every page) runs on one worker, in file order, so that the set-up happens once (test_browser.py
    # also needs its server's first visitor to be its first test)
    for item in items:
        if _module_scoped(item):
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))

    def rank(item) -> int:
        return next((i for i, prefix in enumerate(SLOW_FIRST) if item.nodeid.startswith(prefix)), len(SLOW_FIRST))

    items.sort(key=rank)  # stable: the order inside each file is kept
