"""Cached calls for the Stress page (CAP §4.3, App. M).

Keyed by the dataset ``fingerprint``, ``include_published`` and the two views; the
combined profile (:func:`ui.cache.loaders.analysis_profile`, a function of the first two)
travels unhashed as ``_prof``.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from ui.cache.loaders import analysis_profile, profile_views

__all__ = ["analysis_profile", "profile_views", "stress"]


@st.cache_data(max_entries=32)
def stress(fingerprint: str, include_published: bool, base: str, stressed: str, _prof: pl.DataFrame):
    """Stress deltas and their per-judge / per-condition summaries. Raises CAPInputError."""
    from cap_core.analyses.stress import stress_deltas, stress_summary

    d = stress_deltas(_prof, base, stressed)
    return (d, *stress_summary(d))

