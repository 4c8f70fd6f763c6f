"""Files of the Export page: the full profile (any weights) and the scores of the current choice.

The profile file is :func:`cap_core.choice.exports.profile_export` of the selected entries'
rows (every metric, full precision, level / resamples / seed / fingerprint); the scores file
is the Choose page's leaderboard with the weights and minimums (:mod:`ui.cache.choose`),
so the two files downloaded here and there are the same bytes.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from ui.cache.choose import Chosen

__all__ = ["profile_frame"]


@st.cache_data(max_entries=16)
def _profile_frame(key: tuple, _inputs) -> pl.DataFrame:
    from cap_core.choice.exports import profile_export

    s = _inputs.settings
    return profile_export(_inputs.rows, level=s.level, resamples=s.n_resamples, seed=s.seed,
                          fingerprint=s.fingerprint, failures=s.failures, items=s.items)


def profile_frame(sel: Chosen) -> pl.DataFrame:
    """The full profile export of the selection (PROFILE_SCHEMA + the provenance columns of
    :data:`cap_core.choice.exports.PROVENANCE_COLUMNS`), as the pipeline computed it."""
    from ui.cache.profiles import choice_inputs, selection_key

    inputs, _ = choice_inputs(sel)
    return _profile_frame(selection_key(sel), inputs)
