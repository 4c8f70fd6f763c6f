"""Graded (ordinal) verdicts against ordinal labels (Jev paper §3.5, §5.2–5.3, App. G).

Levels are integers on one scale (e.g. 1..5, or B better -1 < tie 0 < A better +1 for
three-way pairwise labels). All accuracies are **percent**; offsets are in **levels**
(prediction minus label, negative = the judge places items lower than the raters).
"""

from __future__ import annotations

import numpy as np
import polars as pl
from sklearn.metrics import cohen_kappa_score

from cap_core.errors import CAPInputError

__all__ = ["graded_metrics", "best_shift", "graded_table"]


def _iv(pred, label) -> tuple[np.ndarray, np.ndarray]:
    p, y = np.asarray(pred, dtype=float), np.asarray(label, dtype=float)
    if p.shape != y.shape or p.ndim != 1 or p.size == 0:
        raise CAPInputError("predictions and labels must be 1-D arrays of one non-zero length",
                            expected="equal shapes", got=f"{p.shape} vs {y.shape}")
    if np.isnan(y).any():
        raise CAPInputError("labels contain missing values", argument="gold", fix="drop unlabelled items first")
    return p, y


def graded_metrics(pred, label) -> dict:
    """Exact and within-one accuracy, quadratic weighted κ and mean signed offset.

    Parameters
    ----------
    pred, label : array-like of int, shape (n,)
        Predicted and labelled levels; a NaN prediction (unparsed) is never correct and
        is left out of κ and the offset.

    Returns
    -------
    dict
        ``n``, ``exact`` and ``within_one`` (percent), ``qwk``
        (``sklearn.metrics.cohen_kappa_score(weights="quadratic")``; NaN if undefined),
        ``offset`` (mean of pred - label, levels).
    """
    p, y = _iv(pred, label)
    ok = ~np.isnan(p)
    d = p - y
    qwk = float("nan")
    if ok.sum() > 1 and len(set(p[ok]) | set(y[ok])) > 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            qwk = float(cohen_kappa_score(y[ok].astype(int), p[ok].astype(int), weights="quadratic"))
    return {"n": int(p.size), "exact": 100 * float(np.mean(ok & (d == 0))),
            "within_one": 100 * float(np.mean(ok & (np.abs(np.nan_to_num(d, nan=9e9)) <= 1))),
            "qwk": qwk, "offset": float(np.mean(d[ok])) if ok.any() else float("nan")}


def best_shift(pred, label, *, lo: int | None = None, hi: int | None = None) -> dict:
    """Constant shift of every prediction that maximises exact accuracy (Jev paper §5.3, post hoc).

    Shifted predictions are clipped to the scale ``[lo, hi]`` (default: the range of
    labels and predictions together). Ties go to the smallest absolute shift.

    Returns
    -------
    dict
        ``shift`` (levels), ``exact`` (percent after the shift), ``gain`` (points over
        the unshifted exact accuracy).
    """
    p, y = _iv(pred, label)
    vals = np.concatenate([p[~np.isnan(p)], y])
    lo = int(vals.min()) if lo is None else lo
    hi = int(vals.max()) if hi is None else hi
    base = graded_metrics(p, y)["exact"]
    best = (base, 0)
    for s in sorted(range(lo - hi, hi - lo + 1), key=abs):
        acc = 100 * float(np.mean(np.clip(p + s, lo, hi) == y))
        if acc > best[0] + 1e-12:
            best = (acc, s)
    return {"shift": best[1], "exact": best[0], "gain": best[0] - base}


def graded_table(frame: pl.DataFrame, judges: list[str], label: str = "gold") -> pl.DataFrame:
    """:func:`graded_metrics` and :func:`best_shift` for several judge columns of one frame.

    Returns
    -------
    polars.DataFrame
        ``judge``, ``n``, ``exact``, ``within_one``, ``qwk``, ``offset``, ``shift``,
        ``shifted_exact``, ``shift_gain``; rows with a null label are left out.
    """
    missing = [c for c in [label, *judges] if c not in frame.columns]
    if missing:
        raise CAPInputError("column missing from the graded table", column=missing[0], got=frame.columns,
                            fix="name one column per judge plus the label column")
    f = frame.filter(pl.col(label).is_not_null())
    y = f[label].to_numpy().astype(float)
    rows = []
    for j in judges:
        p = f[j].cast(pl.Float64).fill_null(np.nan).to_numpy()
        m, s = graded_metrics(p, y), best_shift(p, y)
        rows.append({"judge": j, **m, "shift": s["shift"], "shifted_exact": s["exact"], "shift_gain": s["gain"]})
    return pl.DataFrame(rows)
