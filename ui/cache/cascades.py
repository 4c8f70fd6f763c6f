"""Cached calls for the Cascades page (keyed by the dataset fingerprint and plain arguments)."""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core import config
from cap_core.dataset import Dataset, load_dataset

PANDALM = config.pandalm_data_dir()


@st.cache_resource(max_entries=1)
def pandalm_dataset() -> tuple[Dataset, str]:
    """The PandaLM dataset shipped in data/pandalm and its fingerprint."""
    ds = load_dataset(PANDALM)
    return ds, ds.fingerprint()


@st.cache_data(max_entries=16)
def scored_judges(fingerprint: str, _ds: Dataset, benchmark: str) -> list[str]:
    """Judges of a benchmark that carry a confidence or scores (possible cheap judges)."""
    j = _ds.judgments.filter(pl.col("benchmark") == benchmark)
    ok = j.group_by("judge").agg((pl.col("confidence").is_not_null() | pl.col("score_a").is_not_null()).any().alias("has"))
    return sorted(ok.filter(pl.col("has"))["judge"].to_list())


@st.cache_data(max_entries=16, show_spinner="Replaying the cascade…")
def cascade_bundle(fingerprint: str, _ds: Dataset, benchmark: str, cheap: str, fallbacks: tuple[str, ...],
                   method: str = "auto"):
    """Cascade data, curves per fallback, oracle and cross-fitted summary."""
    from cap_core.cascades.cascade import cascade_curve, cascade_data, cross_fit, oracle

    d = cascade_data(_ds, benchmark, cheap, list(fallbacks), method=method)
    curves = {fb: cascade_curve(d, fb) for fb in d.fallbacks}
    return d, curves, oracle(d), cross_fit(d, n_splits=20, seed=0)


@st.cache_data(max_entries=32)
def gain(fingerprint: str, _d, tau: float, fallback: str) -> dict:
    """Paired bootstrap gain over the best single judge at one τ."""
    from cap_core.cascades.cascade import decomposition, gain_ci

    return {**gain_ci(_d, tau, fallback, n_resamples=500, seed=0), **decomposition(_d, tau, fallback)}


@st.cache_data(max_entries=16)
def singles_and_juries(fingerprint: str, _ds: Dataset, benchmark: str, judges: tuple[str, ...]) -> pl.DataFrame:
    """Accuracy (percent) and $ per 1,000 verdicts of each judge and of the majority jury."""
    from cap_core.cascades.cost import cost_summary
    from cap_core.cascades.judge_confidence import item_frame
    from cap_core.cascades.jury import jury_comparison
    from cap_core.errors import CAPInputError

    cost = dict(cost_summary(_ds, benchmark, list(judges)).select("judge", "usd_per_1000").iter_rows())
    rows = [{"entry": j, "kind": "single judge", "accuracy": 100 * item_frame(_ds, benchmark, j)["correct"].mean(),
             "usd_per_1000": cost[j]} for j in judges]
    if len(judges) >= 3:
        try:
            t = jury_comparison(_ds, benchmark, list(judges), n_resamples=200)
            r = t.row(t.height - 1, named=True)
            usd = None if any(cost[j] is None for j in judges) else sum(cost[j] for j in judges)
            rows.append({"entry": r["entry"], "kind": "jury", "accuracy": r["accuracy"], "usd_per_1000": usd})
        except CAPInputError:
            pass
    return pl.DataFrame(rows, schema={"entry": pl.String, "kind": pl.String, "accuracy": pl.Float64,
                                      "usd_per_1000": pl.Float64})


@st.cache_data(max_entries=16)
def cost_notes(fingerprint: str, _ds: Dataset, benchmark: str, judges: tuple[str, ...]) -> list[str]:
    """How each judge's cost was obtained (recorded, tokens, lengths) or why it has none."""
    from cap_core.cascades.cost import cost_notices, cost_summary

    return cost_notices(cost_summary(_ds, benchmark, list(judges)))


@st.cache_data(max_entries=16)
def shared_errors(fingerprint: str, _ds: Dataset, benchmark: str, cheap: str, judges: tuple[str, ...]):
    """Repeated-error table and agreement matrix (judges sharing no verdict unit with the cheap one left out)."""
    from cap_core.cascades.agreement import agreement_matrix, repeated_errors

    return repeated_errors(_ds, benchmark, cheap, list(judges)), agreement_matrix(_ds, benchmark, [cheap, *judges])
