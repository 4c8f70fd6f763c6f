"""Graded (ordinal) verdicts against ordinal labels (Jev paper §3.5, §5.2–5.3, App. G).

Levels are integers on one scale (e.g. 1..5, or B better -1 < tie 0 < A better +1 for
three-way pairwise labels). All accuracies are **percent**; offsets are in **levels**
(prediction minus label, negative = the judge places items lower than the raters).

Median jury (Jev paper §6.4): per item, the median level of the jurors that gave one
(an unparsed juror abstains); with an even number of such jurors the lower median
(``upper=True``: the upper one), so the jury's level is always a level of the scale; no
juror parsed: the jury is unparsed on the item. Scored like any judge.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from sklearn.metrics import cohen_kappa_score

from cap_core.errors import CAPInputError

__all__ = ["graded_metrics", "best_shift", "graded_table", "median_jury"]


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


def median_jury(levels: np.ndarray, *, upper: bool = False) -> np.ndarray:
    """Median-jury levels (rule in the module docstring).

    Parameters
    ----------
    levels : array of float, shape (k, n)
        Levels of k jurors on n items; NaN = unparsed.

    Returns
    -------
    numpy.ndarray of float, shape (n,)
        The jury's level per item, NaN where no juror gave one.
    """
    x = np.sort(np.asarray(levels, dtype=float), axis=0)  # NaN sorts last
    n_ok = (~np.isnan(x)).sum(axis=0)
    out = np.full(x.shape[1], np.nan)
    has = n_ok > 0
    pos = np.where(n_ok % 2 == 1, n_ok // 2, n_ok // 2 - (0 if upper else 1))
    cols = np.flatnonzero(has)
    out[cols] = x[pos[cols], cols]
    return out


def graded_table(frame: pl.DataFrame, judges: list[str] | None = None, label: str = "gold", *,
                 file: str | None = None, jury: list[str] | None = None, upper: bool = False) -> pl.DataFrame:
    """:func:`graded_metrics` and :func:`best_shift` for several judge columns of one frame.

    Parameters
    ----------
    frame : polars.DataFrame
        One row per item: the ``label`` column and one column per judge, each holding
        integer levels on one scale (a null judge cell = unparsed; a null label = an
        unlabelled item, left out). Text cells holding numbers (a CSV) are accepted.
    judges : list of str, optional
        Judge columns (default: every column except ``item_id`` and ``label``).
    label : str, default "gold"
        The label column.
    file : str, optional
        Named in error messages.
    jury : list of str, optional
        Judge columns (at least two) whose :func:`median_jury` is added as a last row
        named ``"median of k (J1, J2, ...)"``.
    upper : bool, default False
        Upper instead of lower median for an even number of jurors.

    Returns
    -------
    polars.DataFrame
        ``judge`` (String), ``n`` (Int64 labelled items), ``exact``, ``within_one``
        (Float64 percent), ``qwk`` (Float64, NaN if undefined), ``offset`` (Float64
        levels), ``shift`` (Int64 levels), ``shifted_exact`` (Float64 percent),
        ``shift_gain`` (Float64 points); one row per judge, in ``judges`` order, then
        the jury's row.

    Raises
    ------
    CAPInputError
        A missing column, no judge column, a non-numeric or non-integer level (names
        the 1-based row and the column), no labelled item.
    """
    if not isinstance(frame, pl.DataFrame):
        raise CAPInputError("the graded table must be a polars DataFrame", file=file, got=type(frame).__name__)
    if judges is None:
        judges = [c for c in frame.columns if c not in ("item_id", label)]
    jury = list(dict.fromkeys(jury or []))
    if jury and len(jury) < 2:
        raise CAPInputError("a median jury needs at least two judges", argument="jury", got=jury,
                            expected="two or more judge columns", fix="name more jurors")
    missing = [c for c in [label, *judges, *jury] if c not in frame.columns]
    if missing:
        raise CAPInputError("column missing from the graded table", file=file, column=missing[0], got=frame.columns,
                            fix="name one column per judge plus the label column")
    if not judges:
        raise CAPInputError("the graded table has no judge column", file=file, got=frame.columns,
                            expected=f"item_id, {label} and one column of levels per judge")
    levels = {}
    for c in dict.fromkeys([label, *judges, *jury]):
        raw = frame[c]
        if raw.dtype == pl.String:
            raw = raw.str.strip_chars().replace("", None)
        val = raw.cast(pl.Float64, strict=False)
        bad = (val.is_null() & raw.is_not_null()) | (val.is_not_null() & (val.is_nan() | val.is_infinite()
                                                                          | (val != val.round(0))))
        if bad.any():
            r = int(bad.arg_true()[0])
            raise CAPInputError("a graded level is not an integer", file=file, row=r + 1, column=c,
                                expected="an integer level such as -1, 0, 1 or 1..5 (empty = unparsed)",
                                got=frame[c][r], fix="write levels as whole numbers on one scale")
        levels[c] = val
    f = pl.DataFrame(levels).filter(pl.col(label).is_not_null())
    if f.height == 0:
        raise CAPInputError("no labelled item in the graded table", file=file, column=label,
                            expected="at least one row with a label", fix="fill the label column")
    y = f[label].to_numpy().astype(float)
    rows = []
    for j in judges:
        p = f[j].fill_null(np.nan).to_numpy()
        m, s = graded_metrics(p, y), best_shift(p, y)
        rows.append({"judge": j, **m, "shift": s["shift"], "shifted_exact": s["exact"], "shift_gain": s["gain"]})
    if jury:
        p = median_jury(np.stack([f[j].fill_null(np.nan).to_numpy().astype(float) for j in jury]), upper=upper)
        m, s = graded_metrics(p, y), best_shift(p, y)
        rows.append({"judge": f"median of {len(jury)} ({', '.join(jury)})", **m, "shift": s["shift"],
                     "shifted_exact": s["exact"], "shift_gain": s["gain"]})
    return pl.DataFrame(rows, schema={"judge": pl.String, "n": pl.Int64, "exact": pl.Float64,
                                      "within_one": pl.Float64, "qwk": pl.Float64, "offset": pl.Float64,
                                      "shift": pl.Int64, "shifted_exact": pl.Float64, "shift_gain": pl.Float64})
