"""Sensitivity per probe slot: R of each construct edit type and the flip rate of each control.

The Validity paper breaks R down by intervention at each judge's matched-invariance
threshold and averages over judges (Validity Table 6; per judge and axis in Fig. 6, with
the control-arm flip rate on the same scale as the reference a construct edit must beat).
This module computes the same breakdown for any graded probe table:

* for a T_C slot, ``value`` is the share of its probes whose verdict moves (R of that
  edit type); for a T_I slot it is the share of controls whose verdict moves (the flip
  rate, i.e. 1 - S restricted to that control);
* inside one slot, base items weigh equally and an item's probes weigh equally (the
  unit of analysis of Validity Fig. 8, eq. 6);
* intervals resample whole base items with replacement; one resample of the union of
  base items serves every judge and slot, so the "mean over judges" row (the Table 6
  analogue) gets its interval from the same replicates.

All values are proportions in [0, 1].
"""

from __future__ import annotations

import numbers
import warnings
from pathlib import Path

import numpy as np
import polars as pl

from cap_core import config
from cap_core.bootstrap import base_ratios, check_bootstrap_args, percentile_interval
from cap_core.errors import CAPInputError
from cap_core.validity.probes.rules import SLOTS
from cap_core.validity.sr import flip_matrix

__all__ = ["SLOT_TABLE_SCHEMA", "MEAN_JUDGE", "slot_sensitivity", "published_slot_table"]

MEAN_JUDGE = "mean over judges"
SLOT_TABLE_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.Utf8, "slot": pl.Utf8, "class": pl.Utf8, "axis": pl.Utf8, "measure": pl.Utf8, "tau": pl.Float64,
    "value": pl.Float64, "ci_low": pl.Float64, "ci_high": pl.Float64, "n_items": pl.Int64, "n_probes": pl.Int64,
    "n_judges": pl.Int64,
}
_PUBLISHED = config.published_dir()


def _slot_order(slots: list[str]) -> list[str]:
    known = [s for s in SLOTS if s in slots]
    return known + sorted(s for s in slots if s not in SLOTS)


def _iv(grades: object, taus: object) -> None:
    if not isinstance(grades, pl.DataFrame) or "verdict_only" not in grades.columns:
        raise CAPInputError("slot sensitivity needs validated grades", argument="grades",
                            expected="output of cap_core.validity.sr.validate_grades", got=type(grades).__name__)
    if not isinstance(taus, dict) or not taus:
        raise CAPInputError("no threshold per judge", argument="taus", expected="{judge: tau}", got=taus,
                            fix="pass the matched-invariance operating points")
    for judge, tau in taus.items():
        if judge not in set(grades["judge"].to_list()):
            raise CAPInputError("a threshold for a judge without grades", argument="judge", got=judge,
                                expected="a judge of the grades table")
        if isinstance(tau, bool) or not isinstance(tau, numbers.Real) or not np.isfinite(tau):
            raise CAPInputError("a threshold must be a finite number", argument="tau", got=tau)


def slot_sensitivity(grades: pl.DataFrame, taus: dict[str, float], *, n_resamples: int = 1000, seed: int = 0,
                     level: float = 0.95) -> pl.DataFrame:
    """Per-slot R (T_C) and flip rate (T_I) of each judge at its threshold, plus the mean over judges.

    Parameters
    ----------
    grades : polars.DataFrame
        Validated grades (:func:`cap_core.validity.sr.validate_grades`).
    taus : dict of str -> float
        One threshold per judge to report (usually the matched-invariance operating
        point, as in Validity Table 6); judges not in it are left out.
    n_resamples, seed, level
        Percentile bootstrap over base items (see module doc).

    Returns
    -------
    polars.DataFrame
        :data:`SLOT_TABLE_SCHEMA`: one row per judge x slot it has probes in, then one
        row per slot with ``judge`` = :data:`MEAN_JUDGE` (unweighted mean over the judges
        with that slot; ``tau`` null). ``measure`` is "R" (T_C) or "flip rate" (T_I);
        ``value``, ``ci_low``, ``ci_high`` are proportions; ``n_items`` base items,
        ``n_probes`` probes (summed over judges in the mean row), ``n_judges``.
        Slots in taxonomy order (Validity Table 8), other slot names after.

    Raises
    ------
    CAPInputError
        Grades not validated, an empty ``taus``, a judge without grades, a non-finite
        threshold, bad bootstrap arguments.
    """
    check_bootstrap_args(n_resamples, seed, level)
    _iv(grades, taus)
    g = grades.filter(pl.col("judge").is_in(list(taus)))
    slots = _slot_order(g["slot"].unique().to_list())
    judges = sorted(taus)
    # one column per judge and slot: the probe rows of that judge in that slot, each base item weighing 1
    # with its own flip rate (mean over its probes); one resample of the union of base items serves all
    judge_of, slot_of = g["judge"].to_numpy(), g["slot"].to_numpy()
    flips = np.zeros(g.height)
    mask = np.zeros((g.height, len(judges) * len(slots)))
    meta = []
    for j, judge in enumerate(judges):
        mine = judge_of == judge
        gj = g.filter(pl.col("judge") == judge)  # same rows, same order as g[mine]
        flips[mine] = flip_matrix(gj, np.array([float(taus[judge])]))[:, 0]
        for s, slot in enumerate(slots):
            m = mine & (slot_of == slot)
            mask[:, j * len(slots) + s] = m
            cls = gj.filter(pl.col("slot") == slot)
            meta.append((judge, slot, cls["class"][0] if cls.height else None,
                         cls["axis"][0] if cls.height else None, float(taus[judge]), int(m.sum())))
    r = base_ratios(g["base_item_id"], flips[:, None] * mask, mask, n_resamples=n_resamples, seed=seed,
                    within="mean")
    point, den, reps = r.point, r.den, r.replicates
    low, high = percentile_interval(reps, level)
    rows = []
    for k, (judge, slot, cls, axis, tau, n_probes) in enumerate(meta):
        if n_probes:
            rows.append((judge, slot, cls, axis, "R" if cls == "T_C" else "flip rate", tau, point[k], low[k],
                         high[k], int(den[:, k].sum()), n_probes, 1))
    for s, slot in enumerate(slots):
        ks = [j * len(slots) + s for j in range(len(judges)) if meta[j * len(slots) + s][5]]
        cls, axis = next((meta[k][2], meta[k][3]) for k in ks)
        with warnings.catch_warnings():  # a replicate where no judge's items were drawn stays NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            mean_reps = np.nanmean(reps[:, ks], axis=1)
        lo, hi = percentile_interval(mean_reps, level)
        rows.append((MEAN_JUDGE, slot, cls, axis, "R" if cls == "T_C" else "flip rate", None,
                     float(np.mean(point[ks])), float(lo), float(hi), int((den[:, ks].sum(axis=1) > 0).sum()),
                     sum(meta[k][5] for k in ks), len(ks)))
    return pl.DataFrame(rows, schema=SLOT_TABLE_SCHEMA, orient="row")


def published_slot_table(directory: Path | str | None = None) -> pl.DataFrame:
    """Published per-intervention sensitivity, Validity Tables 6 and 4 side by side.

    Returns
    -------
    polars.DataFrame
        Columns slot, axis (Utf8), n (Int64 items entering the arm), R (Float64,
        Table 6: mean over the 7 judges at matched invariance), human_dir_pct (Float64
        percent, Table 4; null where the table has no row), agreement (Float64 mean
        pairwise agreement, Table 4), flip_rate (Float64, Table 4), source (Utf8,
        "published: Validity Tables 6 and 4").

    Raises
    ------
    CAPInputError
        A file is missing or lacks a column.
    """
    d = Path(directory) if directory is not None else _PUBLISHED
    frames = {}
    for name, cols in (("validity_interventions.csv", ("intervention", "axis", "n", "R")),
                       ("validity_interventions_human.csv", ("intervention", "human_dir_pct", "agreement",
                                                             "flip_rate"))):
        p = d / name
        if not p.is_file():
            raise CAPInputError("published validity table not found", file=str(p), expected=name,
                                fix="rebuild data/ with `make data` (the default-data build writes data/published)")
        df = pl.read_csv(p)
        missing = [c for c in cols if c not in df.columns]
        if missing:
            raise CAPInputError("published validity table lacks a column", file=name, column=missing[0],
                                expected=", ".join(cols), got=df.columns)
        frames[name] = df.select(cols)
    out = frames["validity_interventions.csv"].join(frames["validity_interventions_human.csv"], on="intervention",
                                                    how="left")
    return out.rename({"intervention": "slot"}).with_columns(
        pl.col("n").cast(pl.Int64), pl.col("human_dir_pct").cast(pl.Float64), source=pl.lit("published: Validity Tables 6 and 4"))
