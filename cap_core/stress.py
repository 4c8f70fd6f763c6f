"""Stress degradation between a base and a stressed benchmark.

CAP §4.3, Table 6 and App. M eq. 3 define, per judge ``j`` and condition ``c``::

    δ_c(j) = CAP_c(j; base) − CAP_c(j; stressed)        (points, percent units)

with JudgeBench as base and JudgeBench-Pro as the stressed benchmark; a positive δ
means the judge does worse under stress. Table 6 adds each judge's mean over the
conditions (the "Mean" column) and §4.3 the mean per condition across judges and
each judge's *dominant degradation channel* (the condition with the largest δ).

Any pair of views of a profile frame can be used. No bootstrap interval is given:
the two benchmarks rarely share base items, so their resamples cannot be paired, and
the published tables carry no per-item data.
"""

from __future__ import annotations

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.profile_views import view_cells

__all__ = ["stress_deltas", "stress_summary"]


def stress_deltas(profile: pl.DataFrame, base: str, stressed: str, *, conditions: list[str] | None = None,
                  sources: list[str] | None = None) -> pl.DataFrame:
    """δ_c(j) for every judge and condition measured on both views.

    Parameters
    ----------
    profile : polars.DataFrame
        Profile frame (PROFILE_SCHEMA, percent); primary metric per condition.
    base, stressed : str
        Views ``"benchmark:subset"`` (or a bare benchmark with one subset).
    conditions : list of str, optional
        Restrict to these conditions (default: all C1-C8 present on both).
    sources : list of str, optional
        Restrict to these ``source`` values.

    Returns
    -------
    polars.DataFrame
        Columns ``judge``, ``condition``, ``base_value``, ``stressed_value``,
        ``delta`` (Float64, points = base − stressed), sorted by judge, condition.
        Cells present on one side only are not rows; they are listed by
        :func:`stress_summary` in ``unmatched``.

    Raises
    ------
    CAPInputError
        Same view twice, bad view, or no (judge, condition) measured on both.
    """
    if base == stressed:
        raise CAPInputError("base and stressed benchmarks are the same", column="stressed", got=stressed,
                            fix="pick two different benchmarks")
    a = view_cells(profile, base, sources=sources)
    b = view_cells(profile, stressed, sources=sources)
    if conditions is not None:
        a = a.filter(pl.col("condition").is_in(list(conditions)))
        b = b.filter(pl.col("condition").is_in(list(conditions)))
    joined = a.select("judge", "condition", pl.col("value").alias("base_value")).join(
        b.select("judge", "condition", pl.col("value").alias("stressed_value")), on=["judge", "condition"])
    if joined.height == 0:
        shared = sorted(set(a.get_column("judge")) & set(b.get_column("judge")))
        raise CAPInputError(
            f"no judge and condition measured on both {base} and {stressed}", column="judge",
            got=f"{len(shared)} shared judge(s)", expected="at least one judge with a shared condition",
            fix="pick two benchmarks run with the same judges and a common condition")
    return joined.with_columns((pl.col("base_value") - pl.col("stressed_value")).alias("delta")).sort(
        "judge", "condition")


def stress_summary(deltas: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-judge and per-condition means of δ, and each judge's dominant channel.

    Parameters
    ----------
    deltas : polars.DataFrame
        Output of :func:`stress_deltas`.

    Returns
    -------
    per_judge : polars.DataFrame
        ``judge``, ``mean_delta`` (points; Table 6 "Mean"), ``n_conditions``,
        ``conditions`` (";"-joined), ``dominant_condition`` (largest δ; ties
        joined with ";"), ``dominant_delta``.
    per_condition : polars.DataFrame
        ``condition``, ``mean_delta`` (points, mean across judges), ``n_judges``,
        ``largest`` (Boolean, the condition with the largest mean drop).

    Raises
    ------
    CAPInputError
        ``deltas`` lacks the columns of :func:`stress_deltas` or is empty.
    """
    if not isinstance(deltas, pl.DataFrame) or not {"judge", "condition", "delta"} <= set(deltas.columns):
        raise CAPInputError("stress_summary needs the output of stress_deltas", expected="judge, condition, delta",
                            got=getattr(deltas, "columns", type(deltas).__name__))
    if deltas.height == 0:
        raise CAPInputError("no stress deltas to summarise", expected="at least one row", got="0 rows")
    per_judge = deltas.group_by("judge").agg(
        pl.col("delta").mean().alias("mean_delta"),
        pl.len().cast(pl.Int64).alias("n_conditions"),
        pl.col("condition").sort().str.join(";").alias("conditions"),
        pl.col("condition").filter(pl.col("delta") == pl.col("delta").max()).sort().str.join(";")
        .alias("dominant_condition"),
        pl.col("delta").max().alias("dominant_delta"),
    ).sort("judge")
    per_condition = deltas.group_by("condition").agg(
        pl.col("delta").mean().alias("mean_delta"), pl.len().cast(pl.Int64).alias("n_judges")
    ).sort("condition")
    per_condition = per_condition.with_columns((pl.col("mean_delta") == pl.col("mean_delta").max()).alias("largest"))
    return per_judge, per_condition
