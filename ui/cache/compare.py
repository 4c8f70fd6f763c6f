"""Cached calls for the Compare judges page.

Keys are the dataset ``fingerprint`` (the Dataset travels unhashed as ``_ds``), the
benchmark, the judges and every other choice; the combined profile
(:func:`ui.cache.loaders.analysis_profile`, a function of ``fingerprint`` and
``include_published``) travels unhashed as ``_prof``. Profiles reuse
:func:`ui.cache.loaders.profile`, so nothing the Profiles page has is recomputed.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core.dataset import Dataset
from ui.cache import loaders as cache
from ui.cache.loaders import analysis_profile, profile_views

__all__ = ["analysis_profile", "profile_views", "judges", "paired", "view_judges", "default_families", "families",
           "pair_sentence", "flags", "qc", "hard"]

QC_RESAMPLES = 200


@st.cache_data(max_entries=16)
def judges(fingerprint: str, _ds: Dataset | None, benchmark: str) -> list[str]:
    """Judges with verdicts on ``benchmark`` (empty for a published-only benchmark)."""
    if _ds is None or benchmark not in _ds.benchmarks:
        return []
    return sorted(_ds.judgments.filter(pl.col("benchmark") == benchmark)["judge"].unique().to_list())


@st.cache_data(max_entries=32, show_spinner="Paired bootstrap…")
def paired(fingerprint: str, _ds: Dataset, judge_a: str, judge_b: str, benchmark: str,
           failures: str = "count") -> pl.DataFrame:
    """Paired comparison of two judges on the items both received (Jev §3.5), under the failure rule."""
    from cap_core.analyses.judge_comparison import compare_judges

    return compare_judges(_ds, judge_a, judge_b, benchmark, n_resamples=cache.N_RESAMPLES, seed=cache.SEED,
                          failures=failures)


@st.cache_data(max_entries=16)
def view_judges(fingerprint: str, include_published: bool, view: str, _prof: pl.DataFrame) -> list[str]:
    """Judges with a value on ``view``."""
    from cap_core.profile.selection import view_cells

    return sorted(view_cells(_prof, view)["judge"].unique().to_list())


def default_families(judges: list[str]) -> dict[str, str]:
    """Judge -> family from the judge's name (CAP App. J; ``unknown`` when nothing matches)."""
    from cap_core.analyses.family_distance import family_of

    return {j: family_of(j) for j in judges}


@st.cache_data(max_entries=32)
def families(fingerprint: str, include_published: bool, view: str, overrides: tuple[tuple[str, str], ...],
             _prof: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Pairwise L1 distances on ``view`` with the given judge -> family map, and their family
    summary (CAP App. J, Table 17). Raises CAPInputError."""
    from cap_core.analyses.family_distance import family_l1_summary, pairwise_l1

    pairs = pairwise_l1(_prof, view, overrides=dict(overrides))
    return pairs, family_l1_summary(pairs)


def pair_sentence(pairs: pl.DataFrame, a: str | None, b: str | None) -> str | None:
    """``"**A vs B**: L1 … points over n condition(s)…"`` for the chosen pair (Markdown; the judge names
    as plain text, :func:`ui.text.plain`), or None."""
    from ui.text import plain

    mine = pairs.filter(pl.col("judge_a").is_in([a, b]) & pl.col("judge_b").is_in([a, b]))
    if not mine.height:
        return None
    r = mine.row(0, named=True)
    missing = f"; missing {r['missing_conditions']}" if r["missing_conditions"] else ""
    return (f"**{plain(a)} vs {plain(b)}**: L1 {r['l1']:.1f} points over {r['n_conditions']} "
            f"condition(s){plain(missing)}.")


@st.cache_data(max_entries=16)
def flags(fingerprint: str, _ds: Dataset, benchmark: str) -> list[str]:
    """QC flags carried by the benchmark's items (items.flags)."""
    from cap_core.analyses.qc_sensitivity import available_flags

    return available_flags(_ds.select(benchmarks=[benchmark]))


@st.cache_data(max_entries=16, show_spinner="Recomputing without flagged items…")
def qc(fingerprint: str, _ds: Dataset, benchmark: str, flag: str, judges: tuple[str, ...],
       failures: str = "count") -> pl.DataFrame:
    """QC sensitivity of the chosen judges on one benchmark, primary metrics only (CAP App. A.6)."""
    from cap_core.analyses.qc_sensitivity import qc_sensitivity

    out = qc_sensitivity(_ds, flag, benchmarks=[benchmark], judges=list(judges), n_resamples=QC_RESAMPLES,
                         seed=cache.SEED, failures=failures)
    return out.filter(pl.col("primary")).drop("primary")


@st.cache_data(max_entries=16, show_spinner="Profiling the hard subset…")
def hard(fingerprint: str, _ds: Dataset, benchmark: str, selectors: tuple[str, ...], failures: str = "count"
         ) -> tuple[pl.DataFrame, int, int]:
    """Hard-empirical profile of the selectors (CAP App. A.5) beside their values on all items.

    Returns ``(table, n hard items, n candidates)``; ``table`` has judge, condition, metric,
    ``hard`` and ``all items`` (percent) and n_items, sorted by condition and judge.
    """
    from cap_core.analyses.hard_subsets import hard_empirical_profile
    from cap_core.profile.selection import view_cells

    res = hard_empirical_profile(_ds, benchmark, list(selectors), n_resamples=cache.N_RESAMPLES, seed=cache.SEED,
                                 failures=failures)
    full = view_cells(cache.profile(fingerprint, _ds, benchmark, failures)[0], f"{benchmark}:all",
                      include_overall=True)
    hv = res.profile.filter(pl.col("primary") & pl.col("judge").is_in(list(selectors)) & pl.col("value").is_not_null())
    table = hv.select("judge", "condition", "metric", pl.col("value").alias("hard"), "n_items").join(
        full.select("judge", "condition", pl.col("value").alias("all items")), on=["judge", "condition"], how="left")
    return table.sort("condition", "judge"), res.items.height, res.n_candidates
