"""Validity profiles (S, R): invariance and construct sensitivity of a judge.

A *probe* pairs a base item (a claim with its evidence) with one edit of it:

* ``T_I`` controls (register, restatement, clause order, length, formatting) should
  leave the verdict unchanged; **invariance S** is the probability that they do.
* ``T_C`` construct changes on the ``scope`` axis (domain extension, population
  widening, quantifier strengthening, tense/modality shift) or the ``strength`` axis
  (condition removal, hedging removal, intensifier addition) should move it;
  **sensitivity R** is the probability that they do, also per axis.

Source: Validity paper §3–§5 (Definition 2, eq. 6, Fig. 8). Every base item weighs the
same and, inside one item, each of its probes weighs the same; intervals resample whole
base items, never single probes.

Graded judges give a grade in a declared scale; the verdict at threshold ``tau`` is
``grade > tau`` (a boolean). A probe *flips* at ``tau`` when the base grade and the probe
grade fall on different sides of ``tau``, i.e. ``min <= tau < max`` of the two grades.

All S and R values here are **proportions in [0, 1]** (as in Validity Table 5), not percent.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core.bootstrap import (
    base_index,
    base_ratios,
    check_bootstrap_args,
    percentile_interval,
)
from cap_core.errors import CAPInputError

__all__ = ["GRADES_SCHEMA", "CLASSES", "AXES", "validate_grades", "flip_matrix", "validity_at", "validity_intervals"]

#: Columns of a graded probe table (one row per judge x probe).
GRADES_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.Utf8, "base_item_id": pl.Utf8, "probe_id": pl.Utf8, "class": pl.Utf8, "axis": pl.Utf8,
    "slot": pl.Utf8, "grade_base": pl.Float64, "grade_probe": pl.Float64,
    "scale_min": pl.Float64, "scale_max": pl.Float64,
}
#: Probe classes: construct-changing and construct-preserving.
CLASSES: tuple[str, ...] = ("T_C", "T_I")
#: Named construct axes reported separately (other T_C axis labels count in R only).
AXES: tuple[str, ...] = ("scope", "strength")
_TEXT = ("judge", "base_item_id", "probe_id", "class", "axis", "slot")


def _first_bad(df: pl.DataFrame, mask: pl.Series) -> int:
    return int(np.flatnonzero(mask.fill_null(True).to_numpy())[0]) + 1


def validate_grades(df: object, *, file: str | None = None) -> pl.DataFrame:
    """Check and cast a graded probe table.

    Parameters
    ----------
    df : polars.DataFrame
        Columns of :data:`GRADES_SCHEMA`; optional boolean ``verdict_only`` (a judge
        that gives only verdicts 0/1 is one point, not a frontier).
    file : str, optional
        Named in error messages.

    Returns
    -------
    polars.DataFrame
        Same rows, cast to :data:`GRADES_SCHEMA` plus ``verdict_only`` (Boolean).

    Raises
    ------
    CAPInputError
        Missing column; a probe without a base item (empty ``base_item_id`` or
        ``grade_base``); a missing probe grade; ``class`` not T_C/T_I; a grade outside the
        declared ``[scale_min, scale_max]``; a duplicated (judge, probe_id).
    """
    if not isinstance(df, pl.DataFrame):
        raise CAPInputError("the grades table must be a polars DataFrame", file=file,
                            expected="polars.DataFrame", got=type(df).__name__)
    missing = [c for c in GRADES_SCHEMA if c not in df.columns]
    if missing:
        raise CAPInputError("the grades table lacks required columns", file=file, column=missing[0],
                            expected=", ".join(GRADES_SCHEMA), got=df.columns,
                            fix="add the missing columns (one row per judge and probe)")
    if df.height == 0:
        raise CAPInputError("the grades table has no rows", file=file, expected="at least one graded probe")
    try:
        out = df.select([pl.col(c).cast(t) for c, t in GRADES_SCHEMA.items()])
    except Exception:  # polars raises several types on a failed cast
        raise CAPInputError("the grades table holds a non-numeric grade or scale", file=file,
                            expected="numbers in grade_base, grade_probe, scale_min, scale_max",
                            fix="write grades as plain numbers") from None
    vo = df["verdict_only"].cast(pl.Boolean) if "verdict_only" in df.columns else pl.Series([False] * df.height)
    out = out.with_columns(vo.fill_null(False).alias("verdict_only"))
    for col in _TEXT:
        bad = out[col].is_null() | (out[col].str.strip_chars() == "")
        if bad.any():
            what = "a probe without a base item" if col == "base_item_id" else f"an empty {col}"
            raise CAPInputError(what, file=file, row=_first_bad(out, bad), column=col, expected="a non-empty text",
                                fix="give every probe the id of the base item it was made from")
    bad = out["grade_base"].is_null()
    if bad.any():
        raise CAPInputError("a probe without a base grade (probe without base)", file=file,
                            row=_first_bad(out, bad), column="grade_base", expected="the judge's grade of the base item",
                            fix="grade the base item too, or drop its probes and report them")
    bad = out["grade_probe"].is_null()
    if bad.any():
        raise CAPInputError("a probe without a grade", file=file, row=_first_bad(out, bad), column="grade_probe",
                            expected="a number", fix="drop unparsed grades before building the table and report them")
    bad = ~out["class"].is_in(list(CLASSES))
    if bad.any():
        r = _first_bad(out, bad)
        raise CAPInputError("unknown probe class", file=file, row=r, column="class", expected="T_C or T_I",
                            got=out["class"][r - 1], fix="T_C = construct-changing edit, T_I = control")
    bad = out["scale_min"].is_null() | out["scale_max"].is_null() | (out["scale_min"] >= out["scale_max"])
    if bad.any():
        raise CAPInputError("invalid declared grade scale", file=file, row=_first_bad(out, bad), column="scale_min",
                            expected="scale_min < scale_max", fix="declare the grade range, e.g. 1 and 5")
    for col in ("grade_base", "grade_probe"):
        bad = (out[col] < out["scale_min"]) | (out[col] > out["scale_max"])
        if bad.any():
            r = _first_bad(out, bad)
            row = out.row(r - 1, named=True)
            raise CAPInputError("grade outside the declared scale", file=file, row=r, column=col,
                                expected=f"a value in [{row['scale_min']:g}, {row['scale_max']:g}]", got=row[col],
                                fix="fix the grade or declare the judge's real scale in scale_min/scale_max")
    dup = out.select("judge", "probe_id").is_duplicated()
    if dup.any():
        raise CAPInputError("a probe is graded twice by the same judge", file=file, row=_first_bad(out, dup),
                            column="probe_id", expected="one row per (judge, probe_id)",
                            fix="keep one grade per judge and probe (record regrades in the instrument table)")
    return out


def flip_matrix(g: pl.DataFrame, taus: np.ndarray) -> np.ndarray:
    """Whether each probe's verdict differs from its base's verdict at each threshold.

    Parameters
    ----------
    g : polars.DataFrame
        Validated grades of one judge, ``n`` rows.
    taus : numpy.ndarray
        Shape ``(K,)`` thresholds in the grade's units.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, K)`` bool: ``(grade_base > tau) != (grade_probe > tau)``.
    """
    a, b = g["grade_base"].to_numpy(), g["grade_probe"].to_numpy()
    lo, hi = np.minimum(a, b)[:, None], np.maximum(a, b)[:, None]
    t = np.asarray(taus, dtype=np.float64)[None, :]
    return (lo <= t) & (t < hi)


def _weights(mask: np.ndarray, items: np.ndarray) -> np.ndarray:
    """Per-probe weights (items equal, probes equal within an item) for the probes in ``mask``.

    Returns shape (n,) summing to 1 over the masked probes (all zero if none). The same
    weighting as :func:`cap_core.bootstrap.base_ratios` with ``within="mean"``.
    """
    n_items = items.max() + 1 if items.size else 0
    counts = np.bincount(items[mask], minlength=n_items).astype(np.float64)
    per_probe = np.where(mask, 1.0 / np.maximum(counts[items], 1.0), 0.0)
    n_with = float((counts > 0).sum())
    return per_probe / n_with if n_with else per_probe * 0.0


def _arms(g: pl.DataFrame) -> dict[str, np.ndarray]:
    cls, axis = g["class"].to_numpy(), g["axis"].to_numpy()
    arms = {"S": cls == "T_I", "R": cls == "T_C"}
    for ax in AXES:
        arms[f"R_{ax}"] = (cls == "T_C") & (axis == ax)
    return arms


def validity_at(g: pl.DataFrame, taus: np.ndarray) -> dict[str, np.ndarray]:
    """S, R, R_scope and R_strength of one judge at each threshold.

    Parameters
    ----------
    g : polars.DataFrame
        Validated grades (:func:`validate_grades`) of ONE judge.
    taus : numpy.ndarray
        Shape ``(K,)`` thresholds.

    Returns
    -------
    dict of str -> numpy.ndarray
        Keys ``S``, ``R``, ``R_scope``, ``R_strength``, each shape ``(K,)`` proportions;
        NaN where the judge has no probe of that arm. ``S = 1 - weighted flip rate`` of
        ``T_I`` probes; the others are weighted flip rates of ``T_C`` probes (eq. 6).
    """
    items, _ = base_index(g["base_item_id"])
    flips = flip_matrix(g, taus).astype(np.float64)
    out = {}
    for name, mask in _arms(g).items():
        w = _weights(mask, items)
        val = w @ flips if mask.any() else np.full(len(taus), np.nan)
        out[name] = 1.0 - val if name == "S" else val
    return out


def validity_intervals(g: pl.DataFrame, tau: float, *, n_resamples: int = 1000, seed: int = 0,
                       level: float = 0.95) -> pl.DataFrame:
    """Point values and percentile bootstrap intervals of S, R, R_scope, R_strength at one ``tau``.

    Whole base items are resampled with replacement (never single probes); within a
    replicate each drawn item contributes its own probe-averaged flip rate per arm
    (:func:`cap_core.bootstrap.base_ratios` with ``within="mean"``; counts
    ``resample_counts(n_base, n_resamples, seed)`` over base ids in sorted order).

    Returns
    -------
    polars.DataFrame
        Columns ``measure`` (S, R, R_scope, R_strength), ``value``, ``ci_low``,
        ``ci_high`` (Float64 proportions), ``n_items`` (Int64 base items in that arm),
        ``n_probes`` (Int64).

    Raises
    ------
    CAPInputError
        Bad bootstrap arguments; ``g`` holding more than one judge.
    """
    check_bootstrap_args(n_resamples, seed, level)
    if g["judge"].n_unique() != 1:
        raise CAPInputError("intervals are computed for one judge at a time", column="judge",
                            expected="one judge", got=g["judge"].unique().to_list()[:5])
    flips = flip_matrix(g, np.array([tau]))[:, 0].astype(np.float64)
    arms = _arms(g)
    mask = np.column_stack([m.astype(np.float64) for m in arms.values()])
    # every base item with probes in an arm weighs 1 with its own flip rate there (eq. 6)
    r = base_ratios(g["base_item_id"], flips[:, None] * mask, mask, n_resamples=n_resamples, seed=seed,
                    within="mean")
    point = r.point.copy()
    low, high = percentile_interval(r.replicates, level)
    names = list(arms)
    s = names.index("S")
    point[s], low[s], high[s] = 1 - point[s], 1 - high[s], 1 - low[s]
    return pl.DataFrame({
        "measure": names, "value": point, "ci_low": low, "ci_high": high,
        "n_items": r.den.sum(axis=0).astype(np.int64), "n_probes": [int(m.sum()) for m in arms.values()],
    }, schema_overrides={"n_items": pl.Int64, "n_probes": pl.Int64})
