"""Tables the dashboard shows (and exports): pure frame-to-frame builders."""

from __future__ import annotations

import polars as pl

from cap_core.schema import CONDITION_IDS, CONDITIONS
from cap_core.verdicts import verdict_flags

__all__ = ["dataset_summary", "profile_table", "scores_table"]

_NAMES = pl.DataFrame(
    {"condition": list(CONDITION_IDS), "condition_name": [CONDITIONS[c][0] for c in CONDITION_IDS]}
)


def dataset_summary(items: pl.DataFrame, judgments: pl.DataFrame) -> pl.DataFrame:
    """Counts per benchmark.

    Returns
    -------
    polars.DataFrame
        Columns benchmark (String), items, base_items, judges, verdicts, ties,
        unparsed (all Int64): ``verdicts`` counts judgment rows (one per judge,
        item and order), ``ties`` / ``unparsed`` those with that verdict.
    """
    it = items.group_by("benchmark").agg(
        pl.len().cast(pl.Int64).alias("items"),
        pl.col("base_item_id").n_unique().cast(pl.Int64).alias("base_items"),
    )
    flags = judgments.select("benchmark", "judge", *verdict_flags("verdict", pl.lit(None, pl.String)))
    ju = flags.group_by("benchmark").agg(  # tie / unparsed by the one rule of cap_core.verdicts
        pl.col("judge").n_unique().cast(pl.Int64).alias("judges"),
        pl.len().cast(pl.Int64).alias("verdicts"),
        pl.col("tie").sum().cast(pl.Int64).alias("ties"),
        pl.col("unparsed").sum().cast(pl.Int64).alias("unparsed"),
    )
    out = it.join(ju, on="benchmark", how="left").with_columns(
        pl.col("judges", "verdicts", "ties", "unparsed").fill_null(0)
    )
    return out.sort("benchmark")


def profile_table(rows: pl.DataFrame, *, decimals: int = 1) -> pl.DataFrame:
    """The Profiles table: one row per entry and condition (primary rows only).

    Parameters
    ----------
    rows : polars.DataFrame
        Profile rows (PROFILE_SCHEMA) with a ``label`` column.
    decimals : int, default 1
        Rounding of value and CI (percent) for display; the export uses the same.

    Returns
    -------
    polars.DataFrame
        Columns judge (the entry label), source, benchmark, subset, condition,
        condition_name, metric, value, ci_low, ci_high (Float64, percent),
        n_items (Int64), ``n_not_received`` (Int64: items of the condition the judge has no
        judgment on; only when some row has one), status; sorted by judge then C1..C8.
    """
    order = {c: i for i, c in enumerate(CONDITION_IDS)}
    t = (
        rows.filter(pl.col("primary") & pl.col("condition").is_in(list(CONDITION_IDS)))
        .join(_NAMES, on="condition", how="left")
        .with_columns(
            pl.col("value", "ci_low", "ci_high").round(decimals),
            pl.col("condition").replace_strict(order, return_dtype=pl.Int64).alias("_o"),
        )
        .sort(["label", "_o"])
    )
    partial = "n_not_received" in t.columns and bool(t["n_not_received"].fill_null(0).gt(0).any())
    return t.select(
        pl.col("label").alias("judge"),
        "source", "benchmark", "subset", "condition", "condition_name", "metric",
        "value", "ci_low", "ci_high", "n_items", *(["n_not_received"] if partial else []), "status",
    )


def scores_table(scores: pl.DataFrame, *, decimals: int = 1) -> pl.DataFrame:
    """Weighted scores for display: entry label, score and CI (percent), ``P(best)`` (named as on the Choose
    page), conditions used, method, note."""
    return scores.select(
        pl.col("label").alias("judge"),
        "source",
        pl.col("score", "ci_low", "ci_high").round(decimals),
        pl.col("p_best").round(3).alias("P(best)"),
        pl.col("conditions_used").list.join(", "),
        "renormalised",
        "method",
        "note",
    )
