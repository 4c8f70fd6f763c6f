"""Threshold sweep, monotone hull and matched-invariance operating point of graded judges.

Source: Validity paper §5 and Fig. 3 / Fig. 5 / Table 5. A graded judge becomes a
verdict-giving judge through a threshold ``tau`` (verdict = ``grade > tau``). Sweeping
``tau`` traces points (S, R); the **monotone hull** keeps, at each invariance, the best
sensitivity reached at that invariance or stricter (the upper-left staircase). Its
vertices are attained thresholds (``on_hull``); straight lines between vertices are
interpolation, not measured thresholds. The **matched-invariance operating point** is
the ``tau`` of highest R among those with ``S >= min_s`` (0.90 by default).

A judge that only gives verdicts (``verdict_only``) is one point, at ``tau = 0.5``.
Degenerate instruments: a judge that never moves sits at (1, 0); one that flips on
every edit sits at (0, 1). All S and R are proportions in [0, 1].
"""

from __future__ import annotations

import numbers

import numpy as np
import polars as pl

from cap_core.errors import CAPInputError
from cap_core.validity.sr import validity_at

__all__ = ["SWEEP_SCHEMA", "candidate_taus", "sweep", "hull", "operating_point", "point_at", "quadrant",
           "QUADRANTS", "DEFAULT_MIN_S", "DEFAULT_S_HIGH", "DEFAULT_R_HIGH"]

DEFAULT_MIN_S = 0.90
#: Quadrant cut-offs (Validity Table 1); configurable everywhere they are used.
DEFAULT_S_HIGH = 0.90
DEFAULT_R_HIGH = 0.50
QUADRANTS = ("valid", "insensitive", "unstable", "invalid")

SWEEP_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.Utf8, "tau": pl.Float64, "S": pl.Float64, "R": pl.Float64, "R_scope": pl.Float64,
    "R_strength": pl.Float64, "on_hull": pl.Boolean, "verdict_only": pl.Boolean,
}


def _fraction_iv(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0.0 <= float(value) <= 1.0:
        raise CAPInputError(f"{name} must be a proportion", argument=name, expected="a number in [0, 1]",
                            got=value, fix="write 90% as 0.90")
    return float(value)


def candidate_taus(grades: np.ndarray) -> np.ndarray:
    """Thresholds that reach every distinct verdict pattern of a set of grades.

    Midpoints between consecutive distinct grades, plus one threshold below the lowest
    and one above the highest grade (half the smallest gap away; 0.5 for a single value).
    Shape ``(m + 1,)`` for ``m`` distinct grades, ascending, in the grade's units.
    """
    u = np.unique(np.asarray(grades, dtype=np.float64))
    half = float(np.diff(u).min()) / 2 if u.size > 1 else 0.5
    return np.concatenate([[u[0] - half], (u[:-1] + u[1:]) / 2, [u[-1] + half]])


def sweep(grades: pl.DataFrame) -> pl.DataFrame:
    """(S, R) of every judge at every candidate threshold, with the hull vertices marked.

    Parameters
    ----------
    grades : polars.DataFrame
        Output of :func:`cap_core.validity.sr.validate_grades`.

    Returns
    -------
    polars.DataFrame
        :data:`SWEEP_SCHEMA`; one row per judge x tau (one row, tau 0.5, for a
        verdict-only judge), sorted by judge then tau.
    """
    frames = []
    for judge in sorted(grades["judge"].unique().to_list()):
        g = grades.filter(pl.col("judge") == judge)
        vo = bool(g["verdict_only"].any())
        taus = np.array([0.5]) if vo else candidate_taus(np.concatenate(
            [g["grade_base"].to_numpy(), g["grade_probe"].to_numpy()]))
        vals = validity_at(g, taus)
        f = pl.DataFrame({"judge": [judge] * len(taus), "tau": taus, **vals, "verdict_only": [vo] * len(taus)})
        frames.append(f.with_columns(on_hull=pl.Series(_hull_mask(vals["S"], vals["R"]))))
    return pl.concat(frames).select(list(SWEEP_SCHEMA)).cast(SWEEP_SCHEMA)


def _hull_mask(s: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Vertices of the monotone hull: no other point has S >= and R >= with one strictly larger.

    Among exactly equal (S, R) points the one listed first (smallest tau) is kept.
    """
    ok = ~(np.isnan(s) | np.isnan(r))
    mask = np.zeros(s.size, dtype=bool)
    best = -np.inf
    order = sorted(np.flatnonzero(ok), key=lambda i: (-s[i], -r[i], i))
    for i in order:
        if r[i] > best:
            mask[i], best = True, r[i]
    return mask


def hull(sw: pl.DataFrame) -> pl.DataFrame:
    """Hull vertices of every judge, ordered by decreasing S (the drawing order of a frontier)."""
    return sw.filter(pl.col("on_hull")).sort(["judge", "S", "R"], descending=[False, True, False])


def operating_point(sw: pl.DataFrame, min_s: float = DEFAULT_MIN_S) -> pl.DataFrame:
    """Matched-invariance operating point per judge: highest R subject to ``S >= min_s``.

    Ties in R go to the higher S, then the smaller tau. A sweep always contains a
    threshold beyond every grade (S = 1), so every judge with control probes has a point.

    Returns
    -------
    polars.DataFrame
        One row per judge, columns of :data:`SWEEP_SCHEMA` plus ``min_s`` (Float64);
        a judge with no threshold reaching ``min_s``, or without a control or a
        construct arm (S or R not measurable), is left out.

    Raises
    ------
    CAPInputError
        ``min_s`` not a proportion.
    """
    min_s = _fraction_iv(min_s, "min_s")
    ok = sw.filter(pl.col("S").is_not_nan() & pl.col("R").is_not_nan() & (pl.col("S") >= min_s - 1e-12))
    best = ok.sort(["judge", "R", "S", "tau"], descending=[False, True, True, False])
    return best.group_by("judge", maintain_order=True).first().with_columns(min_s=pl.lit(min_s)).sort("judge")


def point_at(sw: pl.DataFrame, judge: str, tau: float) -> dict:
    """The sweep row of ``judge`` whose threshold gives the same verdicts as ``tau``.

    Verdicts are constant between consecutive candidate thresholds, so the row used is
    the nearest candidate (a slider value between two grades maps to their midpoint).

    Raises
    ------
    CAPInputError
        Unknown judge or a non-numeric tau.
    """
    rows = sw.filter(pl.col("judge") == judge)
    if rows.height == 0:
        raise CAPInputError("unknown judge", argument="judge", expected=", ".join(sw["judge"].unique().sort()),
                            got=judge)
    if isinstance(tau, bool) or not isinstance(tau, numbers.Real):
        raise CAPInputError("tau must be a number", argument="tau", got=tau)
    i = int(np.argmin(np.abs(rows["tau"].to_numpy() - float(tau))))
    return rows.row(i, named=True)


def quadrant(s: float, r: float, s_high: float = DEFAULT_S_HIGH, r_high: float = DEFAULT_R_HIGH) -> str:
    """Validity Table 1 corner of a point: valid, insensitive, unstable or invalid.

    ``S >= s_high`` and ``R >= r_high`` -> valid; high S, low R -> insensitive; low S,
    high R -> unstable; both low -> invalid. NaN in either coordinate -> "not measured".
    """
    s_high, r_high = _fraction_iv(s_high, "s_high"), _fraction_iv(r_high, "r_high")
    if s is None or r is None or np.isnan(s) or np.isnan(r):
        return "not measured"
    if s >= s_high:
        return "valid" if r >= r_high else "insensitive"
    return "unstable" if r >= r_high else "invalid"
