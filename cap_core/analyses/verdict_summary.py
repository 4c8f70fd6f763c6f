"""What each judge gave, whatever the gold: items received, verdicts, and tie and unparsed rates.

These need no gold label, so they are the numbers a preference-only source (AlpacaEval,
MT-Bench or Arena-Hard files without human labels) still gives beside its own metrics and
C7 pure consistency. Ties and unparsed verdicts are read by the one rule of
:func:`cap_core.verdicts.verdict_flags`; an item a judge has a judgment on is *received*
(:mod:`cap_core.verdicts`).
"""

from __future__ import annotations

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.verdicts import verdict_flags

__all__ = ["verdict_summary", "VERDICT_SUMMARY_SCHEMA"]

#: Columns of :func:`verdict_summary`; rates in percent of the judge's verdicts.
VERDICT_SUMMARY_SCHEMA: dict[str, pl.DataType] = {
    "benchmark": pl.String,
    "judge": pl.String,
    "items": pl.Int64,
    "items_received": pl.Int64,
    "items_with_gold": pl.Int64,
    "verdicts": pl.Int64,
    "tie_pct": pl.Float64,
    "unparsed_pct": pl.Float64,
}


def verdict_summary(ds: Dataset) -> pl.DataFrame:
    """One row per (benchmark, judge): what the judge received and how often it gave no A/B verdict.

    Returns
    -------
    polars.DataFrame
        :data:`VERDICT_SUMMARY_SCHEMA`: ``items`` of the benchmark, ``items_received`` (the
        judge has a judgment on them), ``items_with_gold`` (of those received), ``verdicts``
        (judgment rows), ``tie_pct`` and ``unparsed_pct`` (percent of the verdicts). Sorted by
        benchmark, judge.

    Raises
    ------
    CAPInputError
        ``ds`` is not a Dataset.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("verdict_summary needs a Dataset", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__, fix="load one with cap_core.load_dataset")
    n_items = ds.items.group_by("benchmark").agg(pl.len().cast(pl.Int64).alias("items"))
    gold = ds.items.select("benchmark", "item_id", pl.col("gold").is_not_null().alias("_gold"))
    flags = ds.judgments.select("benchmark", "judge", "item_id",
                                *verdict_flags("verdict", pl.lit(None, pl.String)))
    per_item = (flags.select("benchmark", "judge", "item_id").unique()
                .join(gold, on=["benchmark", "item_id"], how="left")
                .group_by("benchmark", "judge").agg(pl.len().cast(pl.Int64).alias("items_received"),
                                                    pl.col("_gold").sum().cast(pl.Int64).alias("items_with_gold")))
    rates = flags.group_by("benchmark", "judge").agg(
        pl.len().cast(pl.Int64).alias("verdicts"),
        (100.0 * pl.col("tie").mean()).alias("tie_pct"),
        (100.0 * pl.col("unparsed").mean()).alias("unparsed_pct"))
    out = (rates.join(per_item, on=["benchmark", "judge"]).join(n_items, on="benchmark", how="left")
           .select(list(VERDICT_SUMMARY_SCHEMA)).cast(VERDICT_SUMMARY_SCHEMA))
    return out.sort("benchmark", "judge")
