"""Juries of k judges against the most accurate single judge (Jev paper §6.4, App. J).

Binary (pairwise) verdicts: the jury's verdict in one order is the letter most judges
chose; equal counts give a tie (never correct). Graded (ordinal) verdicts: the median
level, with the lower or upper median when k is even. Units: the items every juror saw,
in the orders every juror has (position-averaged when that is both orders).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core.bootstrap import percentile_interval, ratio_replicates, resample_counts
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

__all__ = ["majority_verdicts", "median_levels", "jury_comparison"]


def majority_verdicts(votes: np.ndarray) -> np.ndarray:
    """Majority of pairwise verdicts.

    Parameters
    ----------
    votes : array of str, shape (k, n)
        Verdicts ``A`` / ``B`` / ``tie`` / ``unparsed`` of k judges on n units.

    Returns
    -------
    numpy.ndarray of str, shape (n,)
        ``A`` when more judges chose A than B, ``B`` for the reverse, else ``tie``
        (ties and unparsed verdicts are abstentions).
    """
    v = np.asarray(votes)
    na, nb = (v == "A").sum(axis=0), (v == "B").sum(axis=0)
    return np.where(na > nb, "A", np.where(nb > na, "B", "tie"))


def median_levels(levels: np.ndarray, *, upper: bool = False) -> np.ndarray:
    """Median of ordinal levels over judges (axis 0); for even k the lower (default) or upper median."""
    x = np.sort(np.asarray(levels, dtype=float), axis=0)
    k = x.shape[0]
    if k == 0:
        raise CAPInputError("a jury needs at least one judge", argument="judges", expected=">= 1")
    return x[k // 2] if (k % 2 == 1 or upper) else x[k // 2 - 1]


def _votes(ds: Dataset, benchmark: str, judges: list[str]) -> pl.DataFrame:
    if len(set(judges)) < 3:
        raise CAPInputError("a majority jury needs at least three different judges", argument="judges",
                            expected=">= 3 judges", got=len(set(judges)), fix="add judges to the jury")
    j = ds.judgments.filter((pl.col("benchmark") == benchmark) & pl.col("judge").is_in(judges))
    missing = sorted(set(judges) - set(j["judge"].unique().to_list()))
    if missing:
        raise CAPInputError(f"judge {missing[0]!r} has no verdicts on {benchmark!r}", argument="judge",
                            got=missing[0], fix="pick judges listed for this benchmark")
    orders = set.intersection(*(set(j.filter(pl.col("judge") == x)["order"].to_list()) for x in judges))
    wide = (j.filter(pl.col("order").is_in(sorted(orders))).pivot(on="judge", index=["item_id", "order"],
                                                                 values="verdict").drop_nulls())
    # keep items that have every common order for every judge
    full = wide.group_by("item_id").len().filter(pl.col("len") == len(orders))["item_id"]
    wide = wide.filter(pl.col("item_id").is_in(full.implode()))
    if wide.height == 0:
        raise CAPInputError(f"the jurors share no item on {benchmark!r}", column="item_id",
                            expected="items judged by every juror", fix="choose judges that rated the same items")
    items = ds.items.filter(pl.col("benchmark") == benchmark).select("item_id", "base_item_id", "gold")
    return wide.join(items, on="item_id").sort("item_id", "order")


def jury_comparison(ds: Dataset, benchmark: str, judges: list[str], *, n_resamples: int = 1000, seed: int = 0,
                    level: float = 0.95) -> pl.DataFrame:
    """Majority jury vs every juror alone, and the paired difference to the best juror.

    Returns
    -------
    polars.DataFrame
        ``entry`` (judge id or ``"majority of k"``), ``accuracy``, ``ci_low``, ``ci_high``
        (percent), ``diff_vs_best``, ``diff_low``, ``diff_high`` (points, jury row only),
        ``n_items`` (Int64), ``best`` (Boolean: the most accurate single juror).

    Raises
    ------
    CAPInputError
        Fewer than three judges, a judge without verdicts, no shared item.
    """
    w = _votes(ds, benchmark, judges)
    votes = np.stack([w[j].to_numpy() for j in judges])
    gold = w["gold"].to_numpy()
    name = f"majority of {len(judges)}"
    ok = {j: (votes[i] == gold).astype(float) for i, j in enumerate(judges)}
    ok[name] = (majority_verdicts(votes) == gold).astype(float)
    base = w["base_item_id"].cast(pl.Categorical).to_physical().to_numpy()
    base = np.unique(base, return_inverse=True)[1]
    nb = int(base.max()) + 1
    den = np.bincount(base, minlength=nb).astype(float)[:, None]
    names = [*judges, name]
    best = max(judges, key=lambda j: ok[j].mean())
    num = np.stack([np.bincount(base, weights=ok[e], minlength=nb) for e in names]
                   + [np.bincount(base, weights=ok[name] - ok[best], minlength=nb)], axis=1)
    reps = 100 * ratio_replicates(resample_counts(nb, n_resamples, seed), num, np.repeat(den, len(names) + 1, 1))
    lo, hi = percentile_interval(reps, level)
    rows = []
    for k, e in enumerate(names):
        jury = e == name
        rows.append({"entry": e, "accuracy": 100 * ok[e].mean(), "ci_low": lo[k], "ci_high": hi[k],
                     "diff_vs_best": 100 * (ok[name] - ok[best]).mean() if jury else None,
                     "diff_low": lo[-1] if jury else None, "diff_high": hi[-1] if jury else None,
                     "n_items": w["item_id"].n_unique(), "best": e == best})
    return pl.DataFrame(rows, schema={"entry": pl.String, "accuracy": pl.Float64, "ci_low": pl.Float64,
                                      "ci_high": pl.Float64, "diff_vs_best": pl.Float64, "diff_low": pl.Float64,
                                      "diff_high": pl.Float64, "n_items": pl.Int64, "best": pl.Boolean})
