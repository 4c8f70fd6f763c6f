"""Cost, latency and tokens per judge, from the recorded figures of the judgments.

One row per (judge, benchmark) over the judgments that carry the figure: totals and
means of ``cost_usd`` (dollars), ``latency_s`` (seconds per call; median and 95th
percentile too) and ``tokens`` (prompt + completion per call). A judge whose source
records none of them (most published outputs) gets nulls, never zeros. Cache hits keep
the figures of the call that produced them, so a resumed run reports what its
judgments cost, not what the resumption cost (that is in ``run/run.json``).
"""

from __future__ import annotations

import polars as pl

__all__ = ["usage_summary", "USAGE_SCHEMA"]

USAGE_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String, "benchmark": pl.String, "mode": pl.String, "judgments": pl.Int64,
    "cost_usd": pl.Float64, "usd_per_1k": pl.Float64, "latency_mean_s": pl.Float64,
    "latency_p50_s": pl.Float64, "latency_p95_s": pl.Float64, "tokens": pl.Int64, "tokens_mean": pl.Float64,
}


def usage_summary(judgments: pl.DataFrame, candidates: list[str] | None = None) -> pl.DataFrame:
    """Per judge and benchmark: recorded cost, latency and tokens (:data:`USAGE_SCHEMA`).

    Parameters
    ----------
    judgments : polars.DataFrame
        JUDGMENTS_SCHEMA rows (``cost_usd`` dollars, ``latency_s`` seconds, ``tokens``).
    candidates : list of str, optional
        Judges run live; ``mode`` is ``choice`` for a choice-probability judge,
        ``generate`` for another candidate and ``reference`` for every other judge.

    Returns
    -------
    polars.DataFrame
        ``usd_per_1k`` = mean cost per judgment x 1000; figures null when no judgment
        of the judge records them. Sorted by benchmark, then judge.
    """
    from cap_core.judging.choice import is_choice

    cands = set(candidates or [])
    if judgments.height == 0:
        return pl.DataFrame(schema=USAGE_SCHEMA)
    out = judgments.group_by("judge", "benchmark").agg(
        pl.len().cast(pl.Int64).alias("judgments"),
        pl.when(pl.col("cost_usd").is_not_null().any()).then(pl.col("cost_usd").sum()).alias("cost_usd"),
        (pl.col("cost_usd").mean() * 1000).alias("usd_per_1k"),
        pl.col("latency_s").mean().alias("latency_mean_s"),
        pl.col("latency_s").median().alias("latency_p50_s"),
        pl.col("latency_s").quantile(0.95, "linear").alias("latency_p95_s"),
        pl.when(pl.col("tokens").is_not_null().any()).then(pl.col("tokens").sum()).alias("tokens"),
        pl.col("tokens").cast(pl.Float64).mean().alias("tokens_mean"),
    )
    mode = {j: ("choice" if is_choice(j) else "generate") if j in cands else "reference"
            for j in out["judge"].unique().to_list()}
    out = out.with_columns(pl.col("judge").replace_strict(mode, return_dtype=pl.String).alias("mode"))
    return out.select(list(USAGE_SCHEMA)).cast(USAGE_SCHEMA).sort("benchmark", "judge")
