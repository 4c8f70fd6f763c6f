"""The two CSV files that reproduce a choice: the full profile and the weighted scores.

* **Profile CSV** (:func:`profile_export`): every column of
  :data:`cap_core.schema.PROFILE_SCHEMA` (value, ci_low, ci_high, n_items, n_excluded,
  n_not_received, status, operator, primary, source …) at the export precision (12 significant digits,
  :mod:`cap_core.export`), plus ``level``, ``resamples``, ``seed`` and ``fingerprint``
  (the data fingerprint; empty for published-only rows) on every row.
* **Scores CSV** (:func:`scores_export`): the leaderboard
  (:data:`cap_core.choice.leaderboard.LEADERBOARD_SCHEMA`, which carries ``benchmark``;
  ``conditions_used`` written as ``"C1; C7"``) plus the weights the user asked for
  (``w_requested_C1`` … ``w_requested_C8``, as given) and, per row, the weights in force
  (``w_in_force_C1`` … ``w_in_force_C8``: each condition's share of the score, summing to
  1 over the conditions the judge has, 0 elsewhere; :func:`cap_core.profile.weights.weight_shares`),
  the condition minimums (``filters``, as :func:`cap_core.choice.filters.format_filters`
  writes them), ``correction`` and the same provenance columns.

With only the two files, :func:`recompute_scores` gives every weighted score again:
``sum_c w_in_force_c v_c`` with ``v_c`` the primary value of the matching profile row
(CAP §5; :mod:`cap_core.profile.weights`).
"""

from __future__ import annotations

import polars as pl

from cap_core.choice.filters import Filter, format_filters
from cap_core.errors import CAPInputError
from cap_core.schema import CONDITION_IDS, PROFILE_SCHEMA

__all__ = ["profile_export", "scores_export", "recompute_scores", "PROVENANCE_COLUMNS"]

PROVENANCE_COLUMNS: tuple[str, ...] = ("level", "resamples", "seed", "fingerprint", "failures", "items")
_KEY = ["judge", "benchmark", "subset", "source"]


def _provenance(level: float, resamples: int, seed: int, fingerprint: str, failures: str,
                items: str) -> list[pl.Expr]:
    return [pl.lit(float(level)).alias("level"), pl.lit(int(resamples), dtype=pl.Int64).alias("resamples"),
            pl.lit(int(seed), dtype=pl.Int64).alias("seed"), pl.lit(fingerprint or "").alias("fingerprint"),
            pl.lit(failures).alias("failures"), pl.lit(items).alias("items")]


def profile_export(rows: pl.DataFrame, *, level: float, resamples: int, seed: int, fingerprint: str,
                   failures: str = "count", items: str = "shared") -> pl.DataFrame:
    """The profile rows in PROFILE_SCHEMA order (all rows, all metrics) plus the provenance columns
    (:data:`PROVENANCE_COLUMNS`: interval level, resamples, seed, data fingerprint, the failure rule and
    the item set the judges were compared on).

    Raises
    ------
    CAPInputError
        ``rows`` lacks a PROFILE_SCHEMA column.
    """
    missing = [c for c in PROFILE_SCHEMA if c not in rows.columns]
    if missing:
        raise CAPInputError("the profile lacks a column", column=missing[0], expected=", ".join(PROFILE_SCHEMA),
                            got=rows.columns, fix="export the frame of compute_profile")
    return rows.select(list(PROFILE_SCHEMA)).with_columns(_provenance(level, resamples, seed, fingerprint, failures,
                                                                      items))


def scores_export(leaderboard: pl.DataFrame, weights: dict[str, float], *, filters: tuple[Filter, ...] = (),
                  correction: str = "Holm", level: float, resamples: int, seed: int,
                  fingerprint: str, failures: str = "count", items: str = "shared") -> pl.DataFrame:
    """The leaderboard plus ``w_requested_C*`` and ``w_in_force_C*`` (Float64, module notes), ``filters``,
    ``correction`` and provenance."""
    from cap_core.profile.weights import weight_shares

    shares = [weight_shares(weights, used or []) for used in leaderboard["conditions_used"].to_list()]
    return leaderboard.with_columns(
        *[pl.lit(float(weights.get(c, 0.0))).alias(f"w_requested_{c}") for c in CONDITION_IDS],
        *[pl.Series(f"w_in_force_{c}", [s[c] for s in shares], dtype=pl.Float64) for c in CONDITION_IDS],
        pl.lit(format_filters(tuple(filters))).alias("filters"), pl.lit(correction).alias("correction"),
        *_provenance(level, resamples, seed, fingerprint, failures, items))


def recompute_scores(profile: pl.DataFrame, scores: pl.DataFrame) -> pl.DataFrame:
    """Every weighted score from the two exported files (read back as frames).

    Returns
    -------
    polars.DataFrame
        ``scores`` with a ``recomputed`` Float64 column (null where the row has no score).

    Raises
    ------
    CAPInputError
        A scores row names a condition with no primary profile row.
    """
    prim = profile.filter(pl.col("primary")).with_columns(pl.col("subset").fill_null("all"),
                                                          pl.col("source").fill_null("computed"))
    values = {(r["judge"], r["benchmark"], r["subset"], r["source"], r["condition"]): r["value"]
              for r in prim.iter_rows(named=True)}
    out = []
    for r in scores.iter_rows(named=True):
        conds = [c for c in CONDITION_IDS if (r.get(f"w_in_force_{c}") or 0.0) > 0]
        if r["score"] is None or not conds:
            out.append(None)
            continue
        key = (r["judge"], r["benchmark"], r["subset"] or "all", r["source"] or "computed")
        total = 0.0
        for c in conds:
            v = values.get((*key, c))
            if v is None:
                raise CAPInputError("a score's condition has no profile row", column=f"w_in_force_{c}",
                                    got=f"{key[0]} {c}", expected="the primary row in the profile CSV",
                                    fix="export the profile and the scores of the same choice")
            total += r[f"w_in_force_{c}"] * v
        out.append(total)
    return scores.with_columns(pl.Series("recomputed", out, dtype=pl.Float64))
