"""Files of the Export page: the full profile (any weights) and the scores of the current choice.

The profile file is :func:`cap_core.choice.exports.profile_export` of the selected entries'
rows (every metric, full precision, level / resamples / seed / fingerprint); the scores file
is the Choose page's leaderboard with the weights and minimums (:mod:`ui.cache.choose`),
so the two files downloaded here and there are the same bytes.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset
from ui.cache import loaders as cache
from ui.cache.choose import Chosen, _rows

__all__ = ["profile_frame"]


@st.cache_data(max_entries=16)
def _profile_frame(fingerprint: str, benchmark: str, labels: tuple[str, ...], include_published: bool,
                   _rows_: pl.DataFrame, _ds: Dataset | None) -> pl.DataFrame:
    from cap_core.choice.exports import profile_export

    return profile_export(_rows_.drop("label"), level=config.LEVEL, resamples=cache.N_RESAMPLES, seed=cache.SEED,
                          fingerprint=fingerprint)


def profile_frame(sel: Chosen) -> pl.DataFrame:
    """The full profile export of the selection (PROFILE_SCHEMA + level, resamples, seed, fingerprint)."""
    rows, _ = _rows(sel)
    return _profile_frame(sel.fingerprint, sel.benchmark or "", tuple(sorted(sel.labels)), sel.include_published,
                          rows, sel.ds)
