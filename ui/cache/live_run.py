"""Streamlit glue of the Live run page: where runs go, cached item loading, the run dataset.

Session keys (documented for the sidebar and other pages):

``live_run_dir``  str path of the latest finished live run (a dataset directory). The
                  sidebar's data source "live run results" loads it.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset, load_dataset

#: Runs live here (override with CAP_RUNS_DIR); the judging cache is config.cache_dir().
RUNS_DIR = config.runs_dir()
LIVE_RUN_KEY = "live_run_dir"


def cache_dir() -> Path:
    """The persistent judging cache shared by every live run (the project's one cache)."""
    return config.cache_dir()


@st.cache_data(max_entries=2, show_spinner="Building the mini testbed…")
def testbed_items() -> pl.DataFrame:
    """The built-in mini testbed (144 items with texts)."""
    from cap_core.judging.testbed import load_testbed

    return load_testbed()


@st.cache_data(max_entries=4, show_spinner="Reading the items…")
def items_from(source: str, data: bytes | None = None) -> pl.DataFrame:
    """Items with texts from a directory/table path or an upload (name + bytes)."""
    from cap_core.judging.items_io import load_run_items

    return load_run_items(source, data)


@st.cache_resource(max_entries=4, show_spinner="Loading the live run results…")
def _run_dataset(path: str, stamp: float) -> tuple[Dataset, str]:
    ds = load_dataset(path)
    return ds, ds.fingerprint()


def live_run_dataset() -> tuple[Dataset | None, str]:
    """The dataset of the latest live run in this session, or ``(None, "")``."""
    path = st.session_state.get(LIVE_RUN_KEY)
    if not path or not (Path(path) / "judgments.parquet").exists():
        return None, ""
    return _run_dataset(path, (Path(path) / "judgments.parquet").stat().st_mtime)
