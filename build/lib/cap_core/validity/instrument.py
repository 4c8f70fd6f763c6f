"""Instrument quality of graded judges (Validity Fig. 10, Table 5 ``pts`` and ``regrade``).

* **distinct grades**: how many different grade values a judge emits;
* **usable grades**: how many of them are used on at least ``min_share`` (1% by default)
  of the graded items: resolution the judge actually delivers;
* **regrade consistency**: on items graded twice (the same text, e.g. both presentation
  orders of a pointwise grader or a repeated call at temperature 0), the share whose
  two grades are equal.

Input is a table of gradings: one row per graded text and attempt, columns ``judge``,
``key`` (what was graded), ``attempt`` (e.g. the order or the call number) and ``grade``.
"""

from __future__ import annotations

import numbers

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["DEFAULT_MIN_SHARE", "instrument_quality"]

DEFAULT_MIN_SHARE = 0.01


def _iv(gradings: object, min_share: object) -> pl.DataFrame:
    need = ("judge", "key", "attempt", "grade")
    if not isinstance(gradings, pl.DataFrame):
        raise CAPInputError("gradings must be a polars DataFrame", expected=", ".join(need),
                            got=type(gradings).__name__)
    missing = [c for c in need if c not in gradings.columns]
    if missing:
        raise CAPInputError("the gradings table lacks a column", column=missing[0], expected=", ".join(need),
                            got=gradings.columns)
    if isinstance(min_share, bool) or not isinstance(min_share, numbers.Real) or not 0 < min_share < 1:
        raise CAPInputError("min_share must be a proportion", argument="min_share", got=min_share,
                            expected="a number in (0, 1), e.g. 0.01 for 1%")
    out = gradings.select(pl.col("judge").cast(pl.Utf8), pl.col("key").cast(pl.Utf8),
                          pl.col("attempt").cast(pl.Utf8), pl.col("grade").cast(pl.Float64))
    dup = out.select("judge", "key", "attempt").is_duplicated()
    if dup.any():
        raise CAPInputError("a text is graded twice under the same attempt", row=int(dup.arg_true()[0]) + 1,
                            column="attempt", expected="one grade per judge, key and attempt")
    return out.drop_nulls("grade")


def instrument_quality(gradings: pl.DataFrame, *, min_share: float = DEFAULT_MIN_SHARE,
                       tolerance: float = 1e-9) -> pl.DataFrame:
    """Distinct vs usable grades and regrade consistency per judge.

    Parameters
    ----------
    gradings : polars.DataFrame
        Columns judge, key, attempt, grade (null grades = parse failures, skipped).
    min_share : float
        Usability cut as a proportion of the judge's graded rows (default 0.01).
    tolerance : float
        Two grades closer than this count as equal.

    Returns
    -------
    polars.DataFrame
        One row per judge: judge (Utf8), n_graded (Int64 rows with a grade), distinct
        (Int64), usable (Int64), grades (Utf8 "value:count" list), n_regraded (Int64
        keys with at least two attempts), regrade (Float64 proportion with the first two
        attempts equal; NaN without repeats).
    """
    g = _iv(gradings, min_share)
    rows = []
    for judge in sorted(g["judge"].unique().to_list()):
        j = g.filter(pl.col("judge") == judge)
        counts = j.group_by("grade").len().sort("grade")
        usable = int((counts["len"] >= min_share * j.height).sum())
        two = j.sort(["key", "attempt"]).group_by("key", maintain_order=True).agg(pl.col("grade").head(2))
        two = two.filter(pl.col("grade").list.len() == 2)
        diffs = (two["grade"].list.get(0) - two["grade"].list.get(1)).abs()
        regrade = float((diffs <= tolerance).mean()) if two.height else float("nan")
        rows.append((judge, j.height, counts.height, usable,
                     ", ".join(f"{v:g}:{n}" for v, n in counts.iter_rows()), two.height, regrade))
    return pl.DataFrame(rows, orient="row", schema={
        "judge": pl.Utf8, "n_graded": pl.Int64, "distinct": pl.Int64, "usable": pl.Int64, "grades": pl.Utf8,
        "n_regraded": pl.Int64, "regrade": pl.Float64})
