"""Write a judging run's directory (see :mod:`cap_core.judging.run`).

Every CSV here is written by :func:`cap_core.export.write_csv` (spreadsheet formulas
neutralised); the failure table has a fixed schema (:data:`FAILURE_SCHEMA`).
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset, save_dataset
from cap_core.export import write_csv
from cap_core.outputs import write_file
from cap_core.schema import DECLARATION_SCHEMA, ITEMS_SCHEMA, JUDGMENTS_SCHEMA

__all__ = ["write_run", "controlled", "failure_table", "judgments_from_calls", "repeats_table", "FAILURE_SCHEMA",
           "REPEATS_SCHEMA"]

_FAILED = ("failed", "budget", "cancelled", "stopped")


def judgments_from_calls(calls: pl.DataFrame) -> pl.DataFrame:
    """JUDGMENTS_SCHEMA rows for the calls of the first repeat that returned a completion (parsed or
    ``unparsed``); ``confidence`` is a choice judge's probability of its verdict."""
    if calls.height == 0 or "verdict" not in calls.columns:
        return pl.DataFrame(schema=JUDGMENTS_SCHEMA)
    rs = pl.col("rationale_supported") if "rationale_supported" in calls.columns else pl.lit(None)
    conf = pl.col("confidence") if "confidence" in calls.columns else pl.lit(None)
    first = pl.col("repeat") == 0 if "repeat" in calls.columns else pl.lit(True)  # test-retest repeats: repeats.parquet
    return (calls.lazy().filter(pl.col("verdict").is_not_null() & first)
            .select("judge", "benchmark", "item_id", "order", "verdict",
                    conf.cast(pl.Float64).alias("confidence"), pl.lit(None, pl.Float64).alias("score_a"),
                    pl.lit(None, pl.Float64).alias("score_b"), rs.cast(pl.Int8).alias("rationale_supported"),
                    pl.col("cost_usd").cast(pl.Float64), pl.col("latency_s").cast(pl.Float64),
                    (pl.col("tokens_in").fill_null(0) + pl.col("tokens_out").fill_null(0)).cast(pl.Int64)
                    .alias("tokens"),
                    pl.lit(None, pl.String).alias("verdict_recorded"), pl.lit("written").alias("verdict_rule"),
                    pl.lit(None, pl.Int8).alias("verdict_strength"), pl.lit(None, pl.String).alias("judge_prompt"))
            .cast(JUDGMENTS_SCHEMA).sort("judge", "item_id", "order").collect())


#: One row per (judge, item, order, repeat) of a test-retest run; verdict in the original letters.
REPEATS_SCHEMA: dict[str, pl.DataType] = {"judge": pl.String, "benchmark": pl.String, "item_id": pl.String,
                                          "order": pl.String, "repeat": pl.Int64, "verdict": pl.String}


def repeats_table(calls: pl.DataFrame) -> pl.DataFrame:
    """:data:`REPEATS_SCHEMA` rows of every call that returned a verdict (``repeats.parquet``)."""
    return (calls.filter(pl.col("verdict").is_not_null()).select(list(REPEATS_SCHEMA)).cast(REPEATS_SCHEMA)
            .sort("judge", "benchmark", "item_id", "order", "repeat"))


FAILURE_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String, "condition": pl.String, "calls": pl.Int64, "ok": pl.Int64, "unparsed": pl.Int64,
    "failed": pl.Int64, "conflicts": pl.Int64, "example_reason": pl.String,
}
_CALL_COLUMNS = {"judge": pl.String, "benchmark": pl.String, "item_id": pl.String, "order": pl.String,
                 "status": pl.String, "conflict": pl.Boolean, "reason": pl.String}


def _design(items: pl.DataFrame, calls: pl.DataFrame, declarations: pl.DataFrame | None = None) -> Dataset:
    """The run as the profile would see it if every call had answered.

    One judgment row per call (any status), with ``rationale_supported`` set on the
    calls of the first order when the run evaluated rationales: the plan of each
    benchmark (:func:`cap_core.profile.coverage.plan_benchmark`) is then the plan of the
    run's design, whatever failed.
    """
    evaluated = "rationale_supported" in calls.columns
    design = calls.select(
        "judge", "benchmark", "item_id", "order",
        pl.when(pl.lit(evaluated) & (pl.col("order") == pl.col("order").min().over("benchmark")))
        .then(pl.lit(1, pl.Int8)).otherwise(pl.lit(None, pl.Int8)).alias("rationale_supported"))
    ds_items = items.select([c for c in ITEMS_SCHEMA if c in items.columns])
    return Dataset(items=ds_items, judgments=design,
                   declarations=_declarations(items) if declarations is None else declarations)


def failure_table(items: pl.DataFrame, calls: pl.DataFrame, declarations: pl.DataFrame | None = None) -> pl.DataFrame:
    """Per judge x condition: ``calls``, ``ok``, ``unparsed``, ``failed`` (failed, budget, cancelled or
    stopped), ``conflicts`` (CAP Table 20 style) and a one-line ``example_reason``.

    A call counts towards a condition when the profile of the run would use it: the
    conditions and their items come from the coverage plan of the run's design
    (:func:`cap_core.profile.coverage.plan_benchmark` and
    :func:`~cap_core.profile.coverage.plan_members`), so a condition the profile cannot
    measure (e.g. C7 with one order, C8 without a rationale evaluator) has no row.

    Parameters
    ----------
    items : polars.DataFrame
        The run items (ITEMS_SCHEMA columns at least).
    calls : polars.DataFrame
        Call rows of :func:`cap_core.judging.run.run_judging` (``judge``, ``benchmark``,
        ``item_id``, ``order``, ``status``, ``conflict``, ``reason``).
    declarations : polars.DataFrame, optional
        The run's declarations when already built (default: built from ``items``).

    Returns
    -------
    polars.DataFrame
        :data:`FAILURE_SCHEMA`, sorted by judge and condition.
    """
    from cap_core.judging.client import one_line
    from cap_core.profile.coverage import plan_benchmark, plan_members

    if calls.height == 0:
        return pl.DataFrame(schema=FAILURE_SCHEMA)
    ds = _design(items, calls, declarations)
    cx = calls.select(pl.col(c).cast(t) for c, t in _CALL_COLUMNS.items())
    parts = []
    for bench in ds.benchmarks:
        items_b = ds.items.filter(pl.col("benchmark") == bench)
        calls_b = cx.filter(pl.col("benchmark") == bench)
        orders = tuple(o for o in ("AB", "BA") if o in set(calls_b["order"].to_list()))
        for cond, plan in plan_benchmark(ds, bench).items():
            if plan.kind == "none":
                continue
            member, use_orders = plan_members(plan, items_b, orders)
            ids = items_b.filter(member)["item_id"]
            parts.append(calls_b.filter(pl.col("item_id").is_in(ids.implode()) & pl.col("order").is_in(use_orders))
                         .with_columns(pl.lit(cond).alias("condition")))
    df = pl.concat(parts) if parts else pl.DataFrame(schema=dict(_CALL_COLUMNS, condition=pl.String))
    reasons = {r: one_line(r) for r in df["reason"].drop_nulls().unique().to_list() if r}
    return df.lazy().with_columns(pl.col("reason").replace_strict(reasons, default=None, return_dtype=pl.String)
                                  ).group_by("judge", "condition").agg(
        pl.len().cast(pl.Int64).alias("calls"), (pl.col("status") == "ok").sum().cast(pl.Int64).alias("ok"),
        (pl.col("status") == "unparsed").sum().cast(pl.Int64).alias("unparsed"),
        pl.col("status").is_in(list(_FAILED)).sum().cast(pl.Int64).alias("failed"),
        pl.col("conflict").fill_null(False).sum().cast(pl.Int64).alias("conflicts"),
        pl.col("reason").filter(pl.col("status") != "ok").drop_nulls().first().alias("example_reason"),
    ).cast(FAILURE_SCHEMA).select(list(FAILURE_SCHEMA)).sort("judge", "condition").collect()


def controlled(items_b: pl.DataFrame) -> bool:
    """Whether one benchmark's items are a controlled construction: every item carries a planted
    ``failure_type`` (CAP's judgerEva-Standard, the mini testbed, a testbed built by ``testbed build``).
    Its presentation variants were made as part of the construction, so C5/C6 are ``direct`` (CAP
    Table 2); variants generated for any other benchmark are ``augmented``."""
    return "failure_type" in items_b.columns and items_b.height > 0 and items_b["failure_type"].is_not_null().all()


def _declarations(items: pl.DataFrame) -> pl.DataFrame:
    rows = []
    for bench in items["benchmark"].unique().sort().to_list():
        sub = items.filter(pl.col("benchmark") == bench)
        if controlled(sub):
            continue  # variants are part of the construction (direct)
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
    declarations = _declarations(items)
    if judgments.height:
        ds = Dataset.build(ds_items, judgments, declarations)
        save_dataset(ds, out)
    write_file(out / "run_items.parquet", items.write_parquet)
    if calls.height:
        write_file(out / "calls.parquet", calls.write_parquet)
        if "repeat" in calls.columns and calls["repeat"].max() > 0:
            write_file(out / "repeats.parquet", repeats_table(calls).write_parquet)
    write_csv(failure_table(items, calls, declarations), out / "failures.csv")
    write_file(out / "run.json", json.dumps({"settings": settings, "stats": stats}, indent=2, default=str))
    return judgments
