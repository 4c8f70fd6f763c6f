"""Per-item correctness and confidence of one judge, and how well confidence ranks errors.

Unit of accuracy: the **item**. A judge seen in one order is scored on that verdict; a
judge with both orders (AB and BA) is scored by its position-averaged correctness
(0, 0.5 or 1 per item; CAP's ``pa``). Correctness comes from
:func:`cap_core.verdicts.verdict_rows` (ties, unparsed and missing verdicts are never
correct), with the judge held to its own orders on the benchmark.

Confidence is put on one scale in [0, 1] so that one threshold τ means the same thing
for every judge (Jev paper §6.1, App. I use probabilities; reward models give scores):

``recorded``  the ``confidence`` column as written (a probability in [0, 1]).
``margin``    the score margin ``|score_a - score_b|`` (mean over orders), mapped to its
              mid-rank within the judge: ``(#smaller + #equal / 2) / n``. Strictly
              between 0 and 1, equal margins (real ties) share a value, and τ is close
              to the share of items deferred. Items without a score rank lowest.
``decisive``  1 for an A/B verdict, 0 for tie / unparsed (opt-in; for judges without
              scores or probabilities).
``auto``      ``recorded`` when present for every row, else ``margin`` when scores are.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from sklearn.metrics import roc_auc_score

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.verdicts import verdict_rows

__all__ = ["item_frame", "item_confidence", "confidence_auroc", "error_by_band", "confidence_summary",
           "METHODS", "BANDS"]

METHODS = ("auto", "recorded", "margin", "decisive")
#: Fixed confidence band edges on the [0, 1] scale; the last band is the "top band".
BANDS: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)


def _judge_rows(ds: Dataset, benchmark: str, judge: str, carry: tuple[str, ...] = ()) -> pl.DataFrame:
    """The judge's verdict rows on the benchmark (:func:`cap_core.verdicts.verdict_rows`, own orders)."""
    if not isinstance(ds, Dataset):
        raise CAPInputError("expected a Dataset", got=type(ds).__name__, fix="load one with cap_core.load_dataset")
    has = ds.judgments.filter((pl.col("benchmark") == benchmark) & (pl.col("judge") == judge)).height
    if has == 0:
        known = sorted(ds.judgments.filter(pl.col("benchmark") == benchmark)["judge"].unique().to_list())
        raise CAPInputError(f"judge {judge!r} has no verdicts on benchmark {benchmark!r}", argument="judge",
                            expected="one of " + ", ".join(known) if known else "a benchmark with judgments",
                            got=judge, fix="pick a judge listed for this benchmark")
    rows = verdict_rows(ds, benchmarks=[benchmark], judges=[judge], carry=carry, gold_only=True)
    if rows.height == 0:
        raise CAPInputError(f"no item {judge!r} judged on {benchmark!r} has a gold label: accuracy needs gold",
                            argument="benchmark", got=benchmark,
                            fix="import a gold source (--gold-judge or --gold), or use a benchmark with gold")
    return rows


def item_frame(ds: Dataset, benchmark: str, judge: str) -> pl.DataFrame:
    """Item-level correctness of one judge.

    Returns
    -------
    polars.DataFrame
        One row per item the judge saw: ``item_id``, ``base_item_id``, ``gold`` (A/B),
        ``verdict`` (String, the AB-order verdict, else the BA one), ``correct``
        (Float64 fraction in [0, 1]: the mean of :func:`cap_core.verdicts.verdict_rows`'
        ``correct`` flag over the orders the judge has on this benchmark, so a missing
        order counts as not correct), ``n_orders`` (Int64 orders with a verdict).

    Raises
    ------
    CAPInputError
        The judge has no verdicts on the benchmark.
    """
    rows = _judge_rows(ds, benchmark, judge)
    return (rows.group_by("item_id", "base_item_id", "gold")
            .agg((pl.col("correct").cast(pl.Float64).sum() / pl.len()).alias("correct"),
                 pl.col("verdict").sort_by("order").drop_nulls().first().alias("verdict"),
                 (~pl.col("missing")).sum().cast(pl.Int64).alias("n_orders"))
            .filter(pl.col("n_orders") > 0)
            .select("item_id", "base_item_id", "gold", "verdict", "correct", "n_orders").sort("item_id"))


def _mid_rank(x: np.ndarray) -> np.ndarray:
    srt = np.sort(x)
    less = np.searchsorted(srt, x, side="left")
    equal = np.searchsorted(srt, x, side="right") - less
    return (less + equal / 2.0) / x.size


def item_confidence(ds: Dataset, benchmark: str, judge: str, *, method: str = "auto") -> pl.DataFrame:
    """Confidence of one judge per item on the [0, 1] scale (see the module notes).

    Returns
    -------
    polars.DataFrame
        ``item_id`` (String), ``raw`` (Float64: probability, score margin in the judge's
        score units, or 0/1), ``confidence`` (Float64 in [0, 1]), ``method`` (String).

    Raises
    ------
    CAPInputError
        Unknown method; the judge has neither a ``confidence`` column nor scores (with
        ``auto``); recorded confidence outside [0, 1].
    """
    if method not in METHODS:
        raise CAPInputError("unknown confidence method", argument="method", expected=", ".join(METHODS),
                            got=method, fix="use auto, recorded, margin or decisive")
    rows = _judge_rows(ds, benchmark, judge, ("confidence", "score_a", "score_b")).filter(~pl.col("missing"))
    has_conf = rows["confidence"].null_count() == 0
    has_score = (rows["score_a"].is_not_null() & rows["score_b"].is_not_null()).any()
    if method == "auto":
        method = "recorded" if has_conf else ("margin" if has_score else "none")
    if method == "none" or (method == "recorded" and not has_conf) or (method == "margin" and not has_score):
        raise CAPInputError(
            f"judge {judge!r} has no confidence on {benchmark!r}", column="confidence / score_a, score_b",
            expected="a confidence (probability) for every verdict, or per-response scores",
            got="no confidence column values and no scores" if not has_score else "no confidence values",
            fix="choose a judge with probabilities or reward / rubric scores as the cheap judge, "
                "or ask for method='decisive' (tie = least confident)")
    if method == "recorded":
        bad = rows.filter((pl.col("confidence") < 0) | (pl.col("confidence") > 1))
        if bad.height:
            raise CAPInputError("recorded confidence outside [0, 1]", column="confidence", expected="a probability",
                                got=bad["confidence"][0], fix="rescale confidences to [0, 1] or use method='margin'")
        raw = pl.col("confidence")
    elif method == "margin":
        raw = (pl.col("score_a") - pl.col("score_b")).abs()
    else:
        raw = (~pl.col("excluded")).cast(pl.Float64)  # an A/B verdict; tie and unparsed are 0
    per = rows.group_by("item_id").agg(raw.mean().alias("raw")).sort("item_id")
    vals = per["raw"].to_numpy().astype(np.float64)
    if method == "margin":
        conf = _mid_rank(np.where(np.isnan(vals), -np.inf, vals))
    else:
        conf = np.nan_to_num(vals, nan=0.0)
    return per.with_columns(pl.Series("confidence", conf), pl.lit(method).alias("method"))


def confidence_auroc(confidence: np.ndarray, correct: np.ndarray) -> float:
    """AUROC of confidence for telling correct items from errors (Jev paper §6.1).

    Parameters
    ----------
    confidence : array of float, shape (n,)
    correct : array of float in [0, 1], shape (n,)
        Item correctness; a position-averaged 0.5 counts as half a correct item and half
        an error (each item enters as a correct case with weight ``correct`` and as an
        error with weight ``1 - correct``).

    Returns
    -------
    float
        Probability that a random correct case has higher confidence than a random
        error (ties count one half); 0.5 = no ranking, NaN when all cases are of one
        kind. Computed with ``sklearn.metrics.roc_auc_score``.
    """
    c, y = np.asarray(confidence, float), np.asarray(correct, float)
    if c.shape != y.shape or c.ndim != 1:
        raise CAPInputError("confidence and correct must be 1-D of one length", expected="equal shapes",
                            got=f"{c.shape} vs {y.shape}")
    if y.sum() <= 0 or (1 - y).sum() <= 0:
        return float("nan")
    scores = np.concatenate([c, c])
    labels = np.concatenate([np.ones_like(y), np.zeros_like(y)])
    weights = np.concatenate([y, 1 - y])
    keep = weights > 0
    return float(roc_auc_score(labels[keep], scores[keep], sample_weight=weights[keep]))


def error_by_band(confidence: np.ndarray, correct: np.ndarray, edges: tuple[float, ...] = BANDS) -> pl.DataFrame:
    """Error rate per confidence band (Jev paper App. I).

    Returns
    -------
    polars.DataFrame
        ``band`` (String ``"[lo, hi)"``, last band closed), ``lo``, ``hi`` (Float64),
        ``n_items`` (Int64), ``error_rate`` (Float64, **percent**, null for an empty band).
    """
    c, y = np.asarray(confidence, float), np.asarray(correct, float)
    rows = []
    for k, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
        last = k == len(edges) - 2
        m = (c >= lo) & ((c <= hi) if last else (c < hi))
        rows.append({"band": f"[{lo:g}, {hi:g}{']' if last else ')'}", "lo": lo, "hi": hi, "n_items": int(m.sum()),
                     "error_rate": float(100 * (1 - y[m].mean())) if m.any() else None})
    return pl.DataFrame(rows, schema={"band": pl.String, "lo": pl.Float64, "hi": pl.Float64,
                                      "n_items": pl.Int64, "error_rate": pl.Float64})


def confidence_summary(ds: Dataset, benchmark: str, judges: list[str], *, method: str = "auto"
                       ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """How well each judge's confidence separates its right and wrong items (Jev paper §6.1, App. I).

    Parameters
    ----------
    ds : Dataset
    benchmark : str
    judges : list of str
        Judges with a confidence or scores (or any judge with ``method="decisive"``).
    method : str
        See :data:`METHODS`.

    Returns
    -------
    (polars.DataFrame, polars.DataFrame)
        Summary: ``judge``, ``method`` (String, the method used), ``n_items`` (Int64),
        ``accuracy`` (Float64 percent, :func:`item_frame`), ``auroc``
        (:func:`confidence_auroc`, NaN when all items are right or all wrong),
        ``top_band_n`` (Int64), ``top_band_error`` (Float64 percent, null for an empty
        band). Bands: ``judge`` plus :func:`error_by_band`'s columns.

    Raises
    ------
    CAPInputError
        No judge given; see :func:`item_frame` and :func:`item_confidence`.
    """
    if isinstance(judges, str) or not judges:
        raise CAPInputError("name at least one judge", argument="judges", expected="a list of judge names",
                            got=judges)
    rows, bands = [], []
    for j in dict.fromkeys(judges):
        conf = item_confidence(ds, benchmark, j, method=method)
        per = item_frame(ds, benchmark, j).join(conf.select("item_id", "confidence", "method"), on="item_id",
                                                how="inner")
        c, y = per["confidence"].to_numpy(), per["correct"].to_numpy()
        b = error_by_band(c, y)
        top = b.row(b.height - 1, named=True)
        rows.append({"judge": j, "method": conf["method"][0] if conf.height else method, "n_items": per.height,
                     "accuracy": 100 * float(y.mean()) if y.size else None, "auroc": confidence_auroc(c, y),
                     "top_band_n": top["n_items"], "top_band_error": top["error_rate"]})
        bands.append(b.select(pl.lit(j).alias("judge"), pl.all()))
    summary = pl.DataFrame(rows, schema={"judge": pl.String, "method": pl.String, "n_items": pl.Int64,
                                         "accuracy": pl.Float64, "auroc": pl.Float64, "top_band_n": pl.Int64,
                                         "top_band_error": pl.Float64})
    return summary, pl.concat(bands)
