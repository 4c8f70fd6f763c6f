"""Write a judging run's directory (see :mod:`cap_core.judging.run`)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset, save_dataset
from cap_core.schema import DECLARATION_SCHEMA, ITEMS_SCHEMA, JUDGMENTS_SCHEMA

__all__ = ["write_run", "failure_table", "judgments_from_calls"]

_FAILED = ("failed", "budget", "cancelled", "stopped")


def judgments_from_calls(calls: pl.DataFrame) -> pl.DataFrame:
    """JUDGMENTS_SCHEMA rows for the calls that returned a completion (parsed or ``unparsed``)."""
    if calls.height == 0 or "verdict" not in calls.columns:
        return pl.DataFrame(schema=JUDGMENTS_SCHEMA)
    rs = pl.col("rationale_supported") if "rationale_supported" in calls.columns else pl.lit(None)
    return (calls.filter(pl.col("verdict").is_not_null())
            .select("judge", "benchmark", "item_id", "order", "verdict",
                    pl.lit(None, pl.Float64).alias("confidence"), pl.lit(None, pl.Float64).alias("score_a"),
                    pl.lit(None, pl.Float64).alias("score_b"), rs.cast(pl.Int8).alias("rationale_supported"),
                    pl.col("cost_usd").cast(pl.Float64), pl.col("latency_s").cast(pl.Float64),
                    (pl.col("tokens_in").fill_null(0) + pl.col("tokens_out").fill_null(0)).cast(pl.Int64)
                    .alias("tokens"))
            .cast(JUDGMENTS_SCHEMA).sort("judge", "item_id", "order"))


def failure_table(items: pl.DataFrame, calls: pl.DataFrame) -> pl.DataFrame:
    """Per judge x condition: ``calls``, ``ok``, ``unparsed``, ``failed`` (failed, budget, cancelled or
    stopped), ``conflicts`` (CAP Table 20 style) and a one-line ``example_reason``."""
    from cap_core.judging.client import one_line
    from cap_core.profile.coverage import condition_membership

    schema = {"judge": pl.String, "condition": pl.String, "calls": pl.Int64, "ok": pl.Int64,
              "unparsed": pl.Int64, "failed": pl.Int64, "conflicts": pl.Int64, "example_reason": pl.String}
    if calls.height == 0:
        return pl.DataFrame(schema=schema)
    by_id = {r["item_id"]: r for r in items.iter_rows(named=True)}
    rows = []
    for c in calls.select("judge", "item_id", "order", "status", "conflict", "reason").iter_rows(named=True):
        for cond in condition_membership(by_id[c["item_id"]], c["order"]):
            rows.append({"judge": c["judge"], "condition": cond, "status": c["status"],
                         "conflict": bool(c["conflict"]), "reason": one_line(c["reason"]) if c["reason"] else None})
    df = pl.DataFrame(rows)
    return df.group_by("judge", "condition").agg(
        pl.len().cast(pl.Int64).alias("calls"), (pl.col("status") == "ok").sum().cast(pl.Int64).alias("ok"),
        (pl.col("status") == "unparsed").sum().cast(pl.Int64).alias("unparsed"),
        pl.col("status").is_in(list(_FAILED)).sum().cast(pl.Int64).alias("failed"),
        pl.col("conflict").sum().cast(pl.Int64).alias("conflicts"),
        pl.col("reason").filter(pl.col("status") != "ok").drop_nulls().first().alias("example_reason"),
    ).cast(schema).sort("judge", "condition")


def _declarations(items: pl.DataFrame) -> pl.DataFrame:
    from cap_core.judging.testbed import BENCHMARK

    rows = []
    for bench in items["benchmark"].unique().sort().to_list():
        if bench == BENCHMARK:
            continue  # controlled construction: variants are part of the benchmark (direct)
        sub = items.filter(pl.col("benchmark") == bench)
        ids = sub["item_id"]
        ref = "plain" if (sub["variant"] == "plain").any() else "original"
        for cond, kind in (("C5", "polished"), ("C6", "length_padded")):
            if ids.str.ends_with(f"::{kind}").any():
                rows.append({"benchmark": bench, "condition": cond, "status": "augmented",
                             "operator": f"strict both-correct, plain vs generated {kind} variant",
                             "selector": "variant", "values": [kind], "reference": [ref]})
    return pl.DataFrame(rows, schema=DECLARATION_SCHEMA)


def write_run(out: Path, items: pl.DataFrame, calls: pl.DataFrame, settings: dict, stats: dict) -> pl.DataFrame:
    """Write the run directory; returns the judgments table."""
    judgments = judgments_from_calls(calls)
    ds_items = items.select([c for c in ITEMS_SCHEMA if c in items.columns])
    if judgments.height:
        ds = Dataset.build(ds_items, judgments, _declarations(items))
        save_dataset(ds, out)
    items.write_parquet(out / "run_items.parquet")
    if calls.height:
        calls.write_parquet(out / "calls.parquet")
    failure_table(items, calls).write_csv(out / "failures.csv")
    (out / "run.json").write_text(json.dumps({"settings": settings, "stats": stats}, indent=2, default=str),
                                  encoding="utf-8")
    return judgments
