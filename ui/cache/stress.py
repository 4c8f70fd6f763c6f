"""Cached calls for the Stress page (CAP §4.3, App. M).

Published / profile-level δ: keyed by the dataset ``fingerprint``, ``include_published``
and the two views; the combined profile (:func:`ui.cache.loaders.analysis_profile`, a
function of the first two) travels unhashed as ``_prof``. δ on the loaded per-item data:
keyed by the fingerprint, both sides, the judges and the bootstrap settings; the dataset
(a function of the fingerprint) travels unhashed as ``_ds``.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core.config import LEVEL, N_RESAMPLES, SEED
from ui.cache.loaders import analysis_profile, profile_views

__all__ = ["analysis_profile", "profile_views", "stress", "subsets_of", "judges_on", "data_stress", "default_sides"]


@st.cache_data(max_entries=32)
def stress(fingerprint: str, include_published: bool, base: str, stressed: str, _prof: pl.DataFrame):
    """Stress deltas and their per-judge / per-condition summaries. Raises CAPInputError."""
    from cap_core.analyses.stress import stress_deltas, stress_summary

    d = stress_deltas(_prof, base, stressed)
    return (d, *stress_summary(d))


@st.cache_data(max_entries=8)
def subsets_of(fingerprint: str, _ds) -> dict[str, list[str]]:
    """Native subsets per benchmark of the loaded data (sorted; benchmarks with one subset get [])."""
    out = {}
    for bench, subs in _ds.items.group_by("benchmark").agg(pl.col("subset").drop_nulls().unique()).iter_rows():
        subs = sorted(subs)
        out[bench] = subs if len(subs) > 1 else []
    return dict(sorted(out.items()))


@st.cache_data(max_entries=32)
def judges_on(fingerprint: str, bench: str, subsets: tuple[str, ...], _ds) -> list[str]:
    """Judges with at least one verdict on the items of ``bench`` (in ``subsets`` when given), sorted."""
    items = _ds.items.filter(pl.col("benchmark") == bench)
    if subsets:
        items = items.filter(pl.col("subset").is_in(list(subsets)))
    j = _ds.judgments.filter(pl.col("benchmark") == bench).join(items.select("item_id"), on="item_id", how="semi")
    return sorted(j.get_column("judge").unique().to_list())


def default_sides(subsets: dict[str, list[str]], benchmarks: list[str]) -> tuple[tuple[str, list[str]], tuple[str, list[str]]]:
    """The stress pair offered first: LLMBar Natural against its adversarial subsets when loaded
    (CAP §3.2: the Natural set is the reference of LLMBar's style condition), else the first two
    benchmarks, whole."""
    if "Natural" in subsets.get("llmbar", []):
        return ("llmbar", ["Natural"]), ("llmbar", [s for s in subsets["llmbar"] if s != "Natural"])
    if len(benchmarks) >= 2:
        return (benchmarks[0], []), (benchmarks[1], [])
    b = benchmarks[0]
    subs = subsets.get(b, [])
    return (b, subs[:1]), (b, subs[1:])


@st.cache_data(max_entries=16, show_spinner="δ on the loaded data (bootstrap over base items)…")
def data_stress(fingerprint: str, base: tuple[str, tuple[str, ...]], stressed: tuple[str, tuple[str, ...]],
                judges: tuple[str, ...], _ds, n_resamples: int = N_RESAMPLES, seed: int = SEED,
                level: float = LEVEL, failures: str = "count") -> pl.DataFrame:
    """:func:`cap_core.analyses.stress.stress_on_data` of two sides of the loaded data. Raises CAPInputError."""
    from cap_core.analyses.stress import stress_on_data

    return stress_on_data(_ds, (base[0], base[1] or None), (stressed[0], stressed[1] or None), judges=list(judges),
                          n_resamples=n_resamples, seed=seed, level=level, failures=failures)
