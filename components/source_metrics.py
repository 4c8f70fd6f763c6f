"""The sources' own metrics beside CAP's, as a display table (pure frame in, frame out).

Input: the frame of :func:`cap_core.analyses.source_metrics.source_metrics`
(:data:`~cap_core.analyses.source_metrics.SOURCE_METRICS_SCHEMA`, values in percent).
Used by the Overview page and callable from any page that shows one judge's numbers
next to a leaderboard (e.g. a Choose page).
"""

from __future__ import annotations

import polars as pl

__all__ = ["source_metrics_view", "source_metrics_summary", "SOURCE_DECIMALS"]

#: Decimals shown: JudgeBench prints two, so two are shown for every source figure.
SOURCE_DECIMALS = 2


def source_metrics_view(frame: pl.DataFrame, *, judges: list[str] | None = None,
                        differing_only: bool = False) -> pl.DataFrame:
    """The rows to show, named for a reader.

    Parameters
    ----------
    frame : polars.DataFrame
        Output of :func:`cap_core.analyses.source_metrics.source_metrics`.
    judges : list of str, optional
        Keep these judges only.
    differing_only : bool
        Keep only rows where CAP's value differs from the source's (non-empty reason).

    Returns
    -------
    polars.DataFrame
        Columns judge, benchmark, subset, metric (String), ``source %`` and ``CAP %``
        (Float64, percent, :data:`SOURCE_DECIMALS` decimals), ``CAP metric`` (String),
        n (Int64), ``why they differ`` (String, empty where they agree), ``source rule``
        (String).
    """
    out = frame
    if judges is not None:
        out = out.filter(pl.col("judge").is_in(list(judges)))
    if differing_only:
        out = out.filter(pl.col("reason") != "")
    return out.select(
        "judge", "benchmark", "subset", "metric",
        pl.col("value").round(SOURCE_DECIMALS).alias("source %"),
        pl.col("cap_metric").alias("CAP metric"),
        pl.col("cap_value").round(SOURCE_DECIMALS).alias("CAP %"),
        "n",
        pl.col("reason").alias("why they differ"),
        pl.col("rule").alias("source rule"),
    )


def source_metrics_summary(frame: pl.DataFrame) -> str:
    """One sentence: how many source figures there are and how many differ from CAP's."""
    if frame.height == 0:
        from cap_core.analyses.source_metrics import SOURCES

        return (f"No judge of {', '.join(SOURCES)} in the loaded data: no source metric to show "
                "(RewardBench's accuracy needs judges that give scores).")
    differ = frame.filter(pl.col("reason") != "").height
    judges = frame.get_column("judge").n_unique()
    return (f"{frame.height} source figures for {judges} judges; {differ} differ from CAP's value, "
            "each with the rule that makes the difference.")
