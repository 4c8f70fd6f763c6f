"""Quality-control sensitivity: the profile with flagged items left out (CAP App. A.6, Table 10).

CAP flags 431 judgerEva items ``low_quality`` (their best generation stayed below the
subtlety threshold) and recomputes every condition with those items **and their
presentation variants** excluded. Table 10 prints the change per judge and condition
in points; a positive change means the value rises once the flagged items are gone.

Here an item is flagged when the ``;``-separated ``items.flags`` holds the tag (exact
match, case-sensitive). A flag on any item of a base item removes the whole base item
(every variant), so the variant-pair conditions (C5, C6) never lose one side only. The two
profiles come from :func:`cap_core.profile.conditions.compute_profile` with the same seed; the
change compares point estimates (no interval: the two item sets overlap, so their
resamples are not independent, and CAP Table 10 reports none).
"""

from __future__ import annotations

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile

__all__ = ["flagged_base_items", "exclude_flagged", "qc_sensitivity", "available_flags"]


def _ds_iv(ds: object, flag: object) -> None:
    if not isinstance(ds, Dataset):
        raise CAPInputError("a Dataset is needed", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__)
    if not isinstance(flag, str) or not flag or ";" in flag:
        raise CAPInputError("the flag must be one tag such as 'low_quality'", argument="flag", got=flag,
                            expected="a non-empty tag without ';'")


def available_flags(ds: Dataset) -> list[str]:
    """Every tag used in ``items.flags`` (sorted); empty when no item is flagged."""
    _ds_iv(ds, "x")
    tags = ds.items.get_column("flags").drop_nulls().str.split(";").explode().str.strip_chars()
    return sorted(t for t in tags.unique().to_list() if t)


def flagged_base_items(ds: Dataset, flag: str = "low_quality") -> pl.DataFrame:
    """Base items with at least one item carrying ``flag``.

    Returns
    -------
    polars.DataFrame
        Columns ``benchmark``, ``base_item_id`` (String), ``n_items`` (Int64: items of
        that base item, all variants, that the exclusion removes).

    Raises
    ------
    CAPInputError
        ``ds`` not a Dataset or ``flag`` not a single tag.
    """
    _ds_iv(ds, flag)
    tagged = ds.items.filter(
        pl.col("flags").fill_null("").str.split(";").list.eval(pl.element().str.strip_chars()).list.contains(flag))
    bases = tagged.select("benchmark", "base_item_id").unique()
    return (ds.items.join(bases, on=["benchmark", "base_item_id"], how="semi")
            .group_by("benchmark", "base_item_id").agg(pl.len().cast(pl.Int64).alias("n_items"))
            .sort("benchmark", "base_item_id"))


def exclude_flagged(ds: Dataset, flag: str = "low_quality") -> Dataset:
    """The dataset without the flagged base items (all their variants and judgments).

    Raises
    ------
    CAPInputError
        Bad arguments (see :func:`flagged_base_items`).
    """
    bases = flagged_base_items(ds, flag).select("benchmark", "base_item_id")
    items = ds.items.join(bases, on=["benchmark", "base_item_id"], how="anti")
    judg = ds.judgments.join(items.select("benchmark", "item_id"), on=["benchmark", "item_id"], how="semi")
    return Dataset(items=items, judgments=judg, declarations=ds.declarations, notices=ds.notices)


def qc_sensitivity(ds: Dataset, flag: str = "low_quality", *, benchmarks: list[str] | None = None,
                   judges: list[str] | None = None, n_resamples: int = 200, seed: int = 0,
                   failures: str = "count") -> pl.DataFrame:
    """Change of every profile cell when the items flagged ``flag`` are excluded.

    Parameters
    ----------
    ds : Dataset
        Per-item data with ``items.flags`` filled for the flagged items.
    flag : str, default "low_quality"
        The tag to exclude (CAP App. A.6 uses ``low_quality``).
    benchmarks, judges : list of str, optional
        Restrict the recomputation (default: every benchmark holding a flagged item,
        every judge).
    n_resamples, seed : int
        Passed to :func:`compute_profile` for both profiles (the change uses point
        estimates only; the intervals of each side are returned).
    failures : {"count", "exclude"}
        The rule for failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`), both profiles.

    Returns
    -------
    polars.DataFrame
        One row per (judge, benchmark, subset, condition, metric) measured with all
        items: ``judge``, ``benchmark``, ``subset``, ``condition``, ``metric``,
        ``value_all``, ``value_excluded`` (Float64 percent; null when the cell has no
        unit left), ``change`` (points = excluded − all; positive = rises, CAP Table
        10 sign), ``n_all``, ``n_left`` (Int64 units), ``primary`` (Boolean).

    Raises
    ------
    CAPInputError
        Bad arguments; no item carries ``flag`` (the message lists the tags present);
        a requested benchmark without flagged items; every item flagged.
    """
    bases = flagged_base_items(ds, flag)
    if bases.height == 0:
        tags = available_flags(ds)
        raise CAPInputError(f"no item carries the flag {flag!r}", argument="flag",
                            expected=f"items whose flags contain {flag}",
                            got=", ".join(tags) if tags else "no flags at all",
                            fix="add a ';'-separated flags column to the items table, or pick a tag that is present")
    flagged_benches = sorted(bases.get_column("benchmark").unique().to_list())
    if benchmarks is None:
        benchmarks = flagged_benches
    else:
        none = [b for b in benchmarks if b not in flagged_benches]
        if none:
            raise CAPInputError(f"benchmark has no item flagged {flag!r}", argument="benchmarks", got=none[0],
                                expected="one of " + ", ".join(flagged_benches))
    kept = exclude_flagged(ds, flag)
    empty = [b for b in benchmarks if kept.items.filter(pl.col("benchmark") == b).height == 0]
    if empty:
        raise CAPInputError(f"every item of {empty[0]} is flagged {flag!r}; nothing is left to profile",
                            argument="flag", got=flag, fix="exclude a narrower flag")
    opts = dict(n_resamples=n_resamples, seed=seed, benchmarks=benchmarks, judges=judges, failures=failures)
    before = compute_profile(ds, **opts).profile
    after = compute_profile(kept, **opts).profile
    keys = ["judge", "benchmark", "subset", "condition", "metric"]
    out = before.filter(pl.col("value").is_not_null()).select(
        *keys, pl.col("value").alias("value_all"), pl.col("n_items").alias("n_all"), "primary").join(
        after.select(*keys, pl.col("value").alias("value_excluded"), pl.col("n_items").alias("n_left")),
        on=keys, how="left")
    return out.select(*keys, "value_all", "value_excluded",
                      (pl.col("value_excluded") - pl.col("value_all")).alias("change"),
                      "n_all", pl.col("n_left").fill_null(0), "primary").sort(keys)
