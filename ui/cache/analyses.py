"""Cached calls for the Stress, Consistency and Compare judges pages.

Keys are plain arguments plus the dataset ``fingerprint``; the Dataset itself is
passed as ``_ds`` (not hashed). Computed profiles reuse :func:`ui.cache.loaders.profile`, so
the analyses never recompute what the Profiles page already has.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core.dataset import Dataset
from ui.cache import loaders as cache
from ui.sidebar import Selection

QC_RESAMPLES = 200


@st.cache_data(max_entries=8, show_spinner="Assembling profiles…")
def _combined(fingerprint: str, _ds: Dataset | None, include_published: bool) -> pl.DataFrame:
    from cap_core.profile.combine import combine_profiles

    computed = [cache.profile(fingerprint, _ds, b)[0] for b in (_ds.benchmarks if _ds is not None else [])]
    return combine_profiles(computed, cache.published_profiles() if include_published else None)


def analysis_profile(sel: Selection) -> pl.DataFrame:
    """Computed profiles of every loaded benchmark plus (if chosen) the published tables."""
    return _combined(sel.fingerprint, sel.ds, sel.include_published)


@st.cache_data(max_entries=32)
def stress(fingerprint: str, include_published: bool, base: str, stressed: str, _prof: pl.DataFrame):
    """Stress deltas and their per-judge / per-condition summaries."""
    from cap_core.analyses.stress import stress_deltas, stress_summary

    d = stress_deltas(_prof, base, stressed)
    return (d, *stress_summary(d))


@st.cache_data(max_entries=32)
def spearman_benchmarks(fingerprint: str, include_published: bool, condition: str, _prof: pl.DataFrame):
    """Cross-benchmark Spearman pairs for one condition (CAP App. F)."""
    from cap_core.analyses.rank_stability import cross_benchmark_spearman

    return cross_benchmark_spearman(_prof, condition, exact=True)  # exact permutation p for n <= 9


@st.cache_data(max_entries=32)
def spearman_conditions(fingerprint: str, include_published: bool, view: str, _prof: pl.DataFrame):
    """Cross-condition Spearman pairs on one view (CAP App. G)."""
    from cap_core.analyses.rank_stability import cross_condition_spearman

    return cross_condition_spearman(_prof, view, exact=True)


@st.cache_data(max_entries=32, show_spinner="Paired bootstrap…")
def paired(fingerprint: str, _ds: Dataset, judge_a: str, judge_b: str, benchmark: str) -> pl.DataFrame:
    """Paired comparison of two judges on their jointly scored items (Jev §3.5)."""
    from cap_core.analyses.judge_comparison import compare_judges

    return compare_judges(_ds, judge_a, judge_b, benchmark, n_resamples=cache.N_RESAMPLES, seed=cache.SEED)


@st.cache_data(max_entries=16, show_spinner="Recomputing without flagged items…")
def qc(fingerprint: str, _ds: Dataset, benchmark: str, flag: str, judges: tuple[str, ...]) -> pl.DataFrame:
    """QC sensitivity of the chosen judges on one benchmark (CAP App. A.6)."""
    from cap_core.analyses.qc_sensitivity import qc_sensitivity

    return qc_sensitivity(_ds, flag, benchmarks=[benchmark], judges=list(judges), n_resamples=QC_RESAMPLES,
                          seed=cache.SEED)


@st.cache_data(max_entries=16, show_spinner="Profiling the hard subset…")
def hard(fingerprint: str, _ds: Dataset, benchmark: str, selectors: tuple[str, ...]):
    """Hard-empirical profile (CAP App. A.5); returns (profile, n hard items, n candidates)."""
    from cap_core.analyses.hard_subsets import hard_empirical_profile

    res = hard_empirical_profile(_ds, benchmark, list(selectors), n_resamples=cache.N_RESAMPLES, seed=cache.SEED)
    return res.profile, res.items.height, res.n_candidates
