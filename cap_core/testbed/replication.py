"""Generator replication: do judge rankings survive a change of generator? (CAP App. I, Table 16)

A testbed built with two generators holds two slices on the same questions, correct answers,
error types and subtlety gate: ``<name>`` (first generator) and ``<name>-replication``
(second). Once judges have judged both, :func:`replication` compares them per condition:

Both slices are compared on the same items: the plain pair of every question present on both
(the replication slice has no presentation variants, and a question one generator could not
flaw, or a review rejected, is left out of both), so C5 and C6 are not compared, and C7 and
C8 rest on the same pairs on both sides.

* the per-judge change, second slice minus first, in points (the primary metric of each
  condition: position-averaged accuracy for C1-C4, strict both-correct for C5-C7, the
  supported share for C8), because condition values are relative to their generator;
* the Spearman correlation of the judges' values across the two slices
  (:func:`scipy.stats.spearmanr`, ties averaged), i.e. whether the judges keep their ranking;
  computed when at least three judges have a value on both slices, else null.

:func:`table16` lays the changes out as CAP Table 16: one row per judge, one column per
condition, and a last row ``rank rho (slices)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.schema import CONDITION_IDS
from cap_core.testbed.wording import count

__all__ = ["Replication", "replication", "table16", "RHO_ROW", "MIN_JUDGES"]

#: The judge column's label of the Spearman row of :func:`table16`.
RHO_ROW = "rank rho (slices)"
#: Fewest judges with a value on both slices for a Spearman correlation.
MIN_JUDGES = 3


@dataclass(frozen=True)
class Replication:
    """``changes``: judge, condition, first, second, change (Float64, percent and points);
    ``ranks``: condition, rho (Float64, null below :data:`MIN_JUDGES` judges), n_judges (Int64);
    ``base_items``: the questions compared (plain on both slices); ``notices``: what was left out."""

    first: str
    second: str
    changes: pl.DataFrame
    ranks: pl.DataFrame
    base_items: int = 0
    notices: tuple[str, ...] = ()


def replication(ds: Dataset, first: str, second: str, *, judges: list[str] | None = None, n_resamples: int = 200,
                seed: int = 0, failures: str = "count") -> Replication:
    """Per-judge change and cross-slice Spearman of every condition measured on both slices.

    Parameters
    ----------
    ds : Dataset
        Judgments of both slices (e.g. a ``judge --items TESTBED`` run).
    first, second : str
        The slice benchmarks (the testbed manifest's ``slices``).
    judges : list of str, optional
        Judges to compare (default: every judge with judgments on both slices).
    n_resamples, seed, failures
        Passed to :func:`cap_core.profile.conditions.compute_profile` (the values do not
        depend on the resamples; the intervals are not used here).

    Returns
    -------
    Replication

    Raises
    ------
    CAPInputError
        A slice not in ``ds`` (argument ``first`` / ``second``), the same slice twice, no
        judge on both slices, or no question on both slices.
    """
    from scipy.stats import spearmanr

    from cap_core.profile.conditions import compute_profile

    for arg, b in (("first", first), ("second", second)):
        if b not in ds.benchmarks:
            raise CAPInputError("the slice has no judgments in the data", argument=arg, got=b,
                                expected="one of " + ", ".join(ds.benchmarks),
                                fix="judge the whole testbed folder (judge --items TESTBED), then compare")
    if first == second:
        raise CAPInputError("two different slices are needed", argument="second", got=second)
    jm = ds.judgments
    on = [set(jm.filter(pl.col("benchmark") == b)["judge"].unique().to_list()) for b in (first, second)]
    both = sorted(on[0] & on[1])
    chosen = [j for j in (judges or both) if j in both]
    if not chosen:
        raise CAPInputError("no judge has judgments on both slices", argument="judges", got=judges or both,
                            expected="judges run on the whole testbed folder", fix="judge both slices")
    ds, base_items, notices = _same_items(ds, first, second)
    prof = compute_profile(ds, n_resamples=n_resamples, seed=seed, benchmarks=[first, second], judges=chosen,
                           failures=failures).profile
    vals = prof.filter(pl.col("primary") & (pl.col("subset") == "all") & pl.col("condition").is_in(CONDITION_IDS))
    wide = (vals.select("judge", "condition", "benchmark", "value")
            .pivot(on="benchmark", index=["judge", "condition"], values="value"))
    for b in (first, second):
        if b not in wide.columns:
            wide = wide.with_columns(pl.lit(None, pl.Float64).alias(b))
    changes = (wide.select("judge", "condition", pl.col(first).alias("first"), pl.col(second).alias("second"))
               .filter(pl.col("first").is_not_null() & pl.col("second").is_not_null())
               .with_columns((pl.col("second") - pl.col("first")).alias("change"))
               .sort("condition", "judge"))
    rows = []
    for cond in [c for c in CONDITION_IDS if c in set(changes["condition"].to_list())]:
        sub = changes.filter(pl.col("condition") == cond)
        rho = None
        if sub.height >= MIN_JUDGES and sub["first"].n_unique() > 1 and sub["second"].n_unique() > 1:
            rho = float(spearmanr(sub["first"].to_numpy(), sub["second"].to_numpy()).statistic)
        rows.append({"condition": cond, "rho": rho, "n_judges": sub.height})
    ranks = pl.DataFrame(rows, schema={"condition": pl.String, "rho": pl.Float64, "n_judges": pl.Int64})
    return Replication(first, second, changes, ranks, base_items, notices)


def _same_items(ds: Dataset, first: str, second: str) -> tuple[Dataset, int, tuple[str, ...]]:
    """``ds`` cut to the plain item of every base item present on both slices (module doc)."""
    from cap_core.errors import capped

    items = ds.items.filter(pl.col("benchmark").is_in([first, second]))
    plain = items.filter(pl.col("variant").is_in(["plain", "original"]))
    bases = [set(plain.filter(pl.col("benchmark") == b)["base_item_id"].to_list()) for b in (first, second)]
    shared = bases[0] & bases[1]
    if not shared:
        raise CAPInputError("the two slices share no question", argument="second", got=second,
                            expected=f"plain items of the same base items as {first}",
                            fix="compare the two slices of one testbed (testbed replication --testbed DIR)")
    notices = []
    for b, own, other in ((first, bases[0], second), (second, bases[1], first)):
        alone = sorted(own - shared)
        if alone:
            notices.append(f"{count(len(alone), 'question')} of {b} {'is' if len(alone) == 1 else 'are'} not on {other} and are left out of both: "
                           + capped(alone))
    n_variants = items.filter(~pl.col("variant").is_in(["plain", "original"])).height
    if n_variants:
        notices.append(f"{count(n_variants, 'presentation variant')} left out: the slices are compared on their plain pairs "
                       "(C5 and C6 are not compared)")
    keep = plain.filter(pl.col("base_item_id").is_in(sorted(shared)))
    golds = keep.group_by("base_item_id").agg(pl.col("gold").n_unique().alias("k")).filter(pl.col("k") > 1)
    if golds.height:
        notices.append(f"the gold position differs between the slices on {count(golds.height, 'question')} (a testbed "
                       "built before the slices shared it): the comparison still holds per judge")
    return ds.keep_items(keep.select("benchmark", "item_id")), len(shared), tuple(notices)


def table16(rep: Replication) -> pl.DataFrame:
    """CAP Table 16 form: ``judge`` then one Float64 column per condition (change in points), and a
    last row :data:`RHO_ROW` holding the cross-slice Spearman rho of each condition."""
    conds = rep.ranks["condition"].to_list()
    if not conds:
        return pl.DataFrame(schema={"judge": pl.String})
    wide = rep.changes.pivot(on="condition", index="judge", values="change").select("judge", *conds).sort("judge")
    rho = pl.DataFrame([{"judge": RHO_ROW, **dict(zip(conds, rep.ranks["rho"].to_list()))}],
                       schema=wide.schema)
    return pl.concat([wide, rho], how="vertical")
