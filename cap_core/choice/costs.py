"""Cost per 1,000 items and median latency of the computed judges of one benchmark.

Cost comes from :func:`cap_core.cascades.cost.cost_summary` (recorded dollars, else token
counts or response lengths × the editable price table; Jev §4.2) and keeps its ``basis``
so the leaderboard can say what the figure rests on. Latency is the median of the
judgments' ``latency_s`` (seconds per call) where the data records it; otherwise null.
"""

from __future__ import annotations

import polars as pl

from cap_core.dataset import Dataset

__all__ = ["COST_SCHEMA", "judge_costs"]

COST_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String, "usd_per_1000": pl.Float64, "cost_basis": pl.String, "median_latency_s": pl.Float64,
}


def judge_costs(ds: Dataset, benchmark: str, judges: list[str], prices: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per judge: ``usd_per_1000`` (dollars per 1,000 item verdicts, null without an estimate),
    ``cost_basis`` (recorded / tokens / lengths / no figures / no price / no verdicts) and
    ``median_latency_s`` (seconds per call, null when no latency is recorded); :data:`COST_SCHEMA`."""
    from cap_core.cascades.cost import cost_summary

    judges = [j for j in judges if j in set(ds.judges)]
    if not judges:
        return pl.DataFrame(schema=COST_SCHEMA)
    cost = cost_summary(ds, benchmark, judges, prices).select("judge", "usd_per_1000", pl.col("basis").alias("cost_basis"))
    lat = (ds.judgments.filter((pl.col("benchmark") == benchmark) & pl.col("judge").is_in(judges))
           .group_by("judge").agg(pl.col("latency_s").median().alias("median_latency_s")))
    return cost.join(lat, on="judge", how="left").select(list(COST_SCHEMA)).cast(COST_SCHEMA)
