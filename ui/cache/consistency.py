"""Cached calls for the Consistency page (CAP App. F, G, H and §4.1).

Keyed by the dataset ``fingerprint``, ``include_published`` and the condition or view;
the combined profile (:func:`ui.cache.loaders.analysis_profile`, a function of the first
two) travels unhashed as ``_prof``.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from ui.cache.loaders import analysis_profile, profile_views

__all__ = ["analysis_profile", "profile_views", "spearman_benchmarks", "spearman_conditions", "strict_and_c8",
           "first_view_with_matrix"]


@st.cache_data(max_entries=32)
def spearman_benchmarks(fingerprint: str, include_published: bool, condition: str, _prof: pl.DataFrame):
    """Cross-benchmark Spearman pairs for one condition (CAP App. F)."""
    from cap_core.analyses.rank_stability import cross_benchmark_spearman

    return cross_benchmark_spearman(_prof, condition, exact=True)  # exact permutation p for n <= 9


@st.cache_data(max_entries=32)
def spearman_conditions(fingerprint: str, include_published: bool, view: str, _prof: pl.DataFrame
                        ) -> tuple[pl.DataFrame, dict]:
    """Cross-condition Spearman pairs on one view (CAP App. G) and their redundancy summary."""
    from cap_core.analyses.rank_stability import (
        cross_condition_spearman,
        redundancy_summary,
    )

    pairs = cross_condition_spearman(_prof, view, exact=True)
    return pairs, redundancy_summary(pairs)


@st.cache_data(max_entries=8)
def strict_and_c8(fingerprint: str, include_published: bool, _prof: pl.DataFrame
                  ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Strict vs pure consistency for C5–C7 (CAP App. H) and conditional vs unconditional C8 (CAP §4.1)."""
    from cap_core.analyses.consistency import (
        c8_conditional_unconditional,
        strict_vs_consistency,
    )

    return strict_vs_consistency(_prof), c8_conditional_unconditional(_prof)


def first_view_with_matrix(sel, views: list[str], prof: pl.DataFrame) -> str:
    """The view the page opens on: CAP's judgerEva full set when present, else the first view whose
    cross-condition matrix has values (three or more judges sharing conditions), else the first view."""
    from cap_core.errors import CAPInputError
    from ui.cache.loaders import analysis_key
    from ui.display import mostly_na

    order = (["judgereva:full"] if "judgereva:full" in views else []) + [v for v in views if v != "judgereva:full"]
    for view in order:
        try:
            pairs, _ = spearman_conditions(analysis_key(sel), sel.include_published, view, prof)
        except CAPInputError:
            continue
        if pairs.height and not mostly_na(pairs, "condition pairs"):
            return view
    return views[0]
