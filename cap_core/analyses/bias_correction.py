"""Plug-in bias correction of CAP accuracies (CAP App. K, Table 18; Lee et al. 2025).

CAP App. K applies ``corrected = (raw + q0 − 1) / (q0 + q1 − 1)`` to overall accuracy
and the content conditions C1-C4 (not to C5-C8, which do not factor into q0/q1),
where q0, q1 are per-judge "position-conditional accuracy parameters estimated on the
same set". Lee et al. write the correction for a binary judge with specificity q0 and
sensitivity q1. Our reading for pairwise judging, with the label "the response shown
first is better":

* ``q1`` = P(correct | the better response is shown first): accuracy over judgments
  where the gold response is in the first position (order AB with gold A, or order
  BA with gold B);
* ``q0`` = P(correct | the better response is shown second): accuracy over the
  other judgments.

Both are proportions over all judgments (every item and order a judge has a verdict
for) of the benchmark, with correctness from :func:`cap_core.verdicts.verdict_rows`:
``tie``/``unparsed`` verdicts count as not correct; an (item, order) without a verdict
is not a judgment and is left out. Standard errors are binomial,
``sqrt(q (1 − q) / n)`` with ``n`` judgments (orders of one item are treated as
independent, as in a plug-in estimate). A judge that always answers the first
position has q1 = 1, q0 = 0, so q0 + q1 − 1 = 0: not identifiable.

Joint bootstrap (App. K): replicate ``r`` uses the item-resampling replicate ``r`` of
the raw cell (from :func:`cap_core.profile.conditions.compute_profile`) and independent
parametric draws ``q0* ~ N(q0, SE_q0)``, ``q1* ~ N(q1, SE_q1)``; the percentile
interval is taken over the corrected replicates. Units: proportions (0-1), as in
Table 18.

Saturation: an accuracy lies in [0, 1], but the plug-in formula can leave it (above 1 when
the raw accuracy exceeds q1, below 0 when it is under 1 − q0). The reported ``corrected``
value and the interval ends are clipped to [0, 1] (:func:`clip_unit`); the unclipped value
stays in ``corrected_unclipped`` and ``saturated`` / ``saturation`` ("above 1" /
"below 0") say that the clip was applied -- a saturated estimate means the correction
is not informative for that cell, not that the judge is perfect (or worthless).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core.bootstrap import percentile_interval
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import ProfileResult
from cap_core.verdicts import verdict_rows

__all__ = ["position_parameters", "correct_accuracy", "clip_unit", "bias_corrected", "CORRECTED_CONDITIONS"]

CORRECTED_CONDITIONS: tuple[str, ...] = ("overall", "C1", "C2", "C3", "C4")


def position_parameters(ds: Dataset, benchmark: str, judges: list[str] | None = None) -> pl.DataFrame:
    """q0, q1 and their standard errors per judge on one benchmark (proportions).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``q0``, ``q1``, ``se_q0``, ``se_q1`` (Float64, proportions),
        ``n0``, ``n1`` (Int64 judgments with the gold shown second / first).

    Raises
    ------
    CAPInputError
        Not a Dataset, unknown benchmark, no judgments.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("a Dataset is needed", expected="cap_core.dataset.Dataset", got=type(ds).__name__)
    if benchmark not in ds.benchmarks:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=benchmark,
                            expected="one of " + ", ".join(ds.benchmarks))
    known = set(ds.judgments.filter(pl.col("benchmark") == benchmark)["judge"].unique().to_list())
    chosen = None if judges is None else [j for j in dict.fromkeys(judges) if j in known]
    if not known or chosen == []:
        raise CAPInputError(f"no judgments on {benchmark} for these judges", argument="judges", got=judges)
    # the judgments given (missing cells are not judgments)
    jm = verdict_rows(ds, benchmarks=[benchmark], judges=chosen, gold_only=True).filter(~pl.col("missing"))
    gold_first = ((pl.col("order") == "AB") & (pl.col("gold") == "A")) | (
        (pl.col("order") == "BA") & (pl.col("gold") == "B"))
    correct = pl.col("correct").cast(pl.Float64)
    out = jm.group_by("judge").agg(
        correct.filter(~gold_first).mean().alias("q0"), correct.filter(gold_first).mean().alias("q1"),
        (~gold_first).sum().cast(pl.Int64).alias("n0"), gold_first.sum().cast(pl.Int64).alias("n1"),
    )
    se = lambda q, n: (pl.col(q) * (1 - pl.col(q)) / pl.col(n)).sqrt()  # noqa: E731
    return out.with_columns(se("q0", "n0").alias("se_q0"), se("q1", "n1").alias("se_q1")).select(
        "judge", "q0", "q1", "se_q0", "se_q1", "n0", "n1").sort("judge")


def correct_accuracy(raw, q0, q1) -> np.ndarray:
    """``(raw + q0 − 1) / (q0 + q1 − 1)`` elementwise (proportions); NaN where q0 + q1 ≤ 1.

    Raises
    ------
    CAPInputError
        Inputs not numeric or not broadcastable.
    """
    try:
        raw, q0, q1 = np.broadcast_arrays(*(np.asarray(v, dtype=np.float64) for v in (raw, q0, q1)))
    except (TypeError, ValueError):
        raise CAPInputError("raw, q0 and q1 must be numbers of matching shape", got=(raw, q0, q1)) from None
    den = q0 + q1 - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, (raw + q0 - 1.0) / den, np.nan)


def clip_unit(values) -> tuple[np.ndarray, np.ndarray]:
    """Clip proportions to [0, 1] and say on which side each was clipped.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        The clipped values (float64, NaN kept) and, per value, ``"above 1"``,
        ``"below 0"`` or ``""`` (object array of str).
    """
    v = np.asarray(values, dtype=np.float64)
    side = np.where(v > 1.0, "above 1", np.where(v < 0.0, "below 0", "")).astype(object)
    return np.clip(v, 0.0, 1.0), side


def bias_corrected(result: ProfileResult, params: pl.DataFrame, *, benchmark: str, subset: str = "all",
                   seed: int = 0, level: float = 0.95) -> pl.DataFrame:
    """Corrected overall and C1-C4 accuracy with joint-bootstrap intervals.

    Parameters
    ----------
    result : ProfileResult
        Profile of the benchmark with replicates (percent).
    params : polars.DataFrame
        Output of :func:`position_parameters` for the same benchmark.
    benchmark, subset : str
        Rows to correct.
    seed : int
        Seed of the parametric q draws.
    level : float
        Interval level (fraction).

    Returns
    -------
    polars.DataFrame
        ``judge``, ``condition``, ``raw`` (proportion), ``q0``, ``q1``,
        ``corrected``, ``ci_low``, ``ci_high`` (proportions in [0, 1], clipped; null
        when not identifiable), ``corrected_unclipped`` (the formula's value),
        ``saturated`` (the formula's value lies outside [0, 1]), ``saturation``
        (``"above 1"`` / ``"below 0"`` / ``""``), ``ci_above_one`` / ``ci_below_zero``
        (the whole unclipped interval lies beyond that bound), ``status``
        (``"ok"`` / ``"not identifiable"``), ``reason``.

    Raises
    ------
    CAPInputError
        Wrong argument types, missing columns, no profile rows for the benchmark.
    """
    if not isinstance(result, ProfileResult):
        raise CAPInputError("bias correction needs a ProfileResult with replicates", got=type(result).__name__,
                            fix="compute the profile from per-item data with compute_profile")
    need = {"judge", "q0", "q1", "se_q0", "se_q1"}
    if not isinstance(params, pl.DataFrame) or not need <= set(params.columns):
        raise CAPInputError("q parameters table lacks columns", expected=", ".join(sorted(need)),
                            got=getattr(params, "columns", type(params).__name__))
    rows = result.profile.with_row_index("_k").filter(
        (pl.col("benchmark") == benchmark) & (pl.col("subset") == subset) & (pl.col("metric") == "pa")
        & pl.col("condition").is_in(list(CORRECTED_CONDITIONS)) & pl.col("value").is_not_null()
    ).join(params, on="judge", how="inner")
    if rows.height == 0:
        raise CAPInputError(f"no overall or C1-C4 accuracy for {benchmark}:{subset} with q parameters",
                            argument="benchmark", got=benchmark, fix="compute the profile and q on the same benchmark")
    rng = np.random.default_rng(seed)
    n_rep = result.replicates.shape[0]
    draws = {}
    out = []
    for r in rows.iter_rows(named=True):
        q0, q1, raw = r["q0"], r["q1"], r["value"] / 100.0
        rec = {"judge": r["judge"], "condition": r["condition"], "raw": raw, "q0": q0, "q1": q1,
               "corrected": None, "ci_low": None, "ci_high": None, "corrected_unclipped": None,
               "saturated": None, "saturation": None, "ci_above_one": None, "ci_below_zero": None,
               "status": "ok", "reason": ""}
        if q0 + q1 <= 1:
            rec.update(status="not identifiable",
                       reason=f"q0 + q1 = {q0 + q1:.3f} <= 1: the judge's verdicts carry no information "
                              "beyond position, so the correction divides by zero or flips sign")
            out.append(rec)
            continue
        if r["judge"] not in draws:  # one set of q draws per judge, shared by its conditions
            draws[r["judge"]] = (rng.normal(q0, r["se_q0"], n_rep), rng.normal(q1, r["se_q1"], n_rep))
        d0, d1 = draws[r["judge"]]
        reps = correct_accuracy(result.replicates[:, r["_k"]] / 100.0, d0, d1)
        lo, hi = (float(x) for x in percentile_interval(reps, level))
        corr = float(correct_accuracy(raw, q0, q1))
        (c_corr, c_lo, c_hi), sides = clip_unit([corr, lo, hi])
        side = str(sides[0])
        rec.update(corrected=float(c_corr), ci_low=float(c_lo), ci_high=float(c_hi), corrected_unclipped=corr,
                   saturated=bool(side), saturation=side, ci_above_one=lo > 1.0, ci_below_zero=hi < 0.0)
        if side:
            rec["reason"] = (f"saturated: the corrected value {corr:.3f} is {side} (raw {raw:.3f}, q0 {q0:.3f}, "
                             f"q1 {q1:.3f}); reported clipped to {float(c_corr):g}")
        out.append(rec)
    return pl.DataFrame(out, schema={"judge": pl.String, "condition": pl.String, "raw": pl.Float64,
                                     "q0": pl.Float64, "q1": pl.Float64, "corrected": pl.Float64,
                                     "ci_low": pl.Float64, "ci_high": pl.Float64,
                                     "corrected_unclipped": pl.Float64, "saturated": pl.Boolean,
                                     "saturation": pl.String, "ci_above_one": pl.Boolean,
                                     "ci_below_zero": pl.Boolean, "status": pl.String, "reason": pl.String})
