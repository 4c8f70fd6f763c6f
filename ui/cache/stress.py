"""Cached calls for the Stress page (CAP §4.3, App. M).

Keyed by the dataset ``fingerprint``, ``include_published`` and the two views; the
combined profile (:func:`ui.cache.loaders.analysis_profile`, a function of the first two)
travels unhashed as ``_prof``.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from ui.cache.loaders import analysis_profile, profile_views

__all__ = ["analysis_profile", "profile_views", "stress", "default_pair"]


@st.cache_data(max_entries=32)
def stress(fingerprint: str, include_published: bool, base: str, stressed: str, _prof: pl.DataFrame):
    """Stress deltas and their per-judge / per-condition summaries. Raises CAPInputError."""
    from cap_core.analyses.stress import stress_deltas, stress_summary

    d = stress_deltas(_prof, base, stressed)
    return (d, *stress_summary(d))


def default_pair(prof: pl.DataFrame, views: list[str]) -> tuple[str, str]:
    """The (base, stressed) views offered first: JudgeBench → JudgeBench-Pro when both are present
    (CAP Table 6), else the first pair of views that share a judge (so the first view has deltas;
    JudgeBench is tried first as the base), else the first two views."""
    if {"judgebench:all", "judgebench_pro:all"} <= set(views):
        return "judgebench:all", "judgebench_pro:all"
    judges = {f"{b}:{s}": set(j) for b, s, j in
              prof.group_by("benchmark", "subset").agg(pl.col("judge").unique()).iter_rows()}
    bases = sorted(views, key=lambda v: v != "judgebench:all")
    for base in bases:
        partner = next((v for v in views if v != base and judges.get(v, set()) & judges.get(base, set())), None)
        if partner is not None:
            return base, partner
    return views[0], views[1]
