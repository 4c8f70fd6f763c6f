"""Where the leader fails: items the leader gets wrong and the runner-up right (and the reverse).

Per condition the items are those the profile counts for it
(:func:`cap_core.profile.coverage.plan_members`, the one membership rule) and correctness
is :func:`cap_core.verdicts.verdict_rows` (the one correctness rule: tie, unparsed and
missing never correct). A judge is **right** on a unit when every counted call of the unit
is correct, i.e. both orders where both are judged (the C7 strict rule), both
presentations of a C5/C6 pair (strict), the one order otherwise; it is wrong otherwise.
Units: the base item for C5/C6 pairs, the item for every other condition; the LLMBar-style
C5 uses its adversarial subsets (its primary ``pa``). C8 rests on rationale evaluations,
not on verdicts, and has no drill-down. Only computed judges have items (published ones
have none).
"""

from __future__ import annotations

import polars as pl

from cap_core.dataset import Dataset
from cap_core.profile.coverage import plan_benchmark, plan_members
from cap_core.verdicts import verdict_rows

__all__ = ["DRILL_SCHEMA", "TEXT_COLUMNS", "disagreements", "LEADER_WRONG", "RUNNER_WRONG"]

LEADER_WRONG = "leader wrong, runner-up right"
RUNNER_WRONG = "runner-up wrong, leader right"
#: Item text columns shown when the items table has them.
TEXT_COLUMNS: tuple[str, ...] = ("question", "response_a", "response_b")

DRILL_SCHEMA: dict[str, pl.DataType] = {
    "condition": pl.String, "direction": pl.String, "unit": pl.String, "item_ids": pl.String, "subset": pl.String,
    "gold": pl.String, "leader_verdicts": pl.String, "runner_up_verdicts": pl.String,
}


def disagreements(ds: Dataset, benchmark: str, leader: str, runner_up: str,
                  conditions: list[str] | None = None) -> pl.DataFrame:
    """Units of ``benchmark`` on which exactly one of two computed judges is right, per condition.

    Parameters
    ----------
    ds : Dataset
    benchmark : str
    leader, runner_up : str
        Judge ids with verdicts on ``benchmark``.
    conditions : list of str, optional
        Conditions to look at (default: every measured one but C8).

    Returns
    -------
    polars.DataFrame
        :data:`DRILL_SCHEMA` (``unit`` the item or base item id, ``item_ids`` the items of the
        unit joined by ``"; "``, verdicts as ``"AB:A BA:B"`` in the original letters), plus the
        :data:`TEXT_COLUMNS` the dataset has (its ``texts`` table, else item columns; text of the unit's first item); sorted by
        condition, direction, unit.

    Raises
    ------
    CAPInputError
        Unknown benchmark or judge (from :func:`cap_core.verdicts.verdict_rows`).
    """
    text_table = ds.texts if ds.texts is not None else ds.items
    texts = [c for c in TEXT_COLUMNS if c in text_table.columns]
    schema = {**DRILL_SCHEMA, **{c: pl.String for c in texts}}
    rows = verdict_rows(ds, benchmarks=[benchmark], judges=[leader, runner_up], gold_only=True)
    if rows.height == 0 or leader == runner_up:
        return pl.DataFrame(schema=schema)
    items_b = ds.items.filter(pl.col("benchmark") == benchmark)
    orders = tuple(o for o in ("AB", "BA") if o in set(rows["order"].to_list()))
    parts = []
    for cond, plan in plan_benchmark(ds, benchmark).items():
        if plan.kind in ("none", "rationale") or (conditions is not None and cond not in conditions):
            continue
        member, use = plan_members(plan, items_b, orders)
        if plan.kind == "subset_gap":
            member = member & pl.col("subset").is_in(list(plan.values))
        ids = items_b.filter(member).select("item_id", "subset")
        unit = "base_item_id" if plan.kind == "paired" else "item_id"
        calls = rows.filter(pl.col("order").is_in(list(use))).join(ids, on="item_id", how="inner")
        if calls.height == 0:
            continue
        calls = calls.with_columns((pl.col("order") + ":" + pl.col("verdict").fill_null("missing")).alias("_v"))
        per = calls.sort("item_id", "order").group_by("judge", unit).agg(
            pl.col("correct").all().alias("right"), pl.col("_v").str.join(" ").alias("verdicts"),
            pl.col("item_id").unique(maintain_order=True).str.join("; ").alias("item_ids"),
            pl.col("item_id").first().alias("_first"), pl.col("subset").first(), pl.col("gold").first())
        a = per.filter(pl.col("judge") == leader).drop("judge")
        b = per.filter(pl.col("judge") == runner_up).select(unit, pl.col("right").alias("right_b"),
                                                             pl.col("verdicts").alias("runner_up_verdicts"))
        both = a.join(b, on=unit, how="inner").filter(pl.col("right") != pl.col("right_b"))
        parts.append(both.select(
            pl.lit(cond).alias("condition"),
            pl.when(pl.col("right_b")).then(pl.lit(LEADER_WRONG)).otherwise(pl.lit(RUNNER_WRONG)).alias("direction"),
            pl.col(unit).cast(pl.String).alias("unit"), "item_ids", "subset", "gold",
            pl.col("verdicts").alias("leader_verdicts"), "runner_up_verdicts", "_first"))
    if not parts:
        return pl.DataFrame(schema=schema)
    out = pl.concat(parts)
    if texts:
        own = text_table.filter(pl.col("benchmark") == benchmark)
        out = out.join(own.select(pl.col("item_id").alias("_first"), *texts), on="_first", how="left")
    return out.drop("_first").select(list(schema)).cast(schema).sort("condition", "direction", "unit")
