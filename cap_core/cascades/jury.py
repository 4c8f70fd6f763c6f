"""Juries of k judges against the most accurate single judge (Jev paper §6.4, App. J).

Binary (pairwise) verdicts: the jury's verdict in one order is the letter most judges
chose; equal counts give a tie (never correct). Graded (ordinal) verdicts: the median
level, with the lower or upper median when k is even. Units: the items every juror saw,
in the orders every juror has (position-averaged when that is both orders). Each
juror's correctness is the ``correct`` flag of :func:`cap_core.verdicts.verdict_rows`
and the jury's verdict is scored by the same rule (:func:`cap_core.verdicts.verdict_flags`);
intervals come from :func:`cap_core.bootstrap.base_ratios` (base items resampled, every
entry and the difference to the best juror on the same resamples).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core import verdicts
from cap_core.bootstrap import base_ratios, percentile_interval
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
    """Verdict rows of the jurors on their shared units, one row per (item, order) sorted by item_id, order:
    ``item_id``, ``order``, ``base_item_id``, ``gold``, then per juror ``<judge>`` (verdict) and
    ``<judge>\x1fcorrect`` (Boolean)."""
    if len(set(judges)) < 3:
        raise CAPInputError("a majority jury needs at least three different judges", argument="judges",
                            expected=">= 3 judges", got=len(set(judges)), fix="add judges to the jury")
    have = set(ds.judgments.filter(pl.col("benchmark") == benchmark)["judge"].unique().to_list())
    missing = sorted(set(judges) - have)
    if missing:
        raise CAPInputError(f"judge {missing[0]!r} has no verdicts on {benchmark!r}", argument="judge",
                            got=missing[0], fix="pick judges listed for this benchmark")
    rows = verdicts.verdict_rows(ds, benchmarks=[benchmark], judges=list(dict.fromkeys(judges)), gold_only=True)
    # orders every juror used, and the items every juror judged in each of them (verdicts.joint_units)
    given = rows.filter(~pl.col("missing"))
    orders = given.group_by("order").agg(pl.col("judge").n_unique().alias("k")).filter(
        pl.col("k") == len(set(judges)))["order"].to_list()
    units = verdicts.joint_units(rows.filter(pl.col("order").is_in(orders)), list(set(judges)))
    full = (units.select("item_id", "order").unique().group_by("item_id").len()
            .filter(pl.col("len") == len(orders)).select("item_id"))
    kept = units.join(full, on="item_id", how="semi")
    if kept.height == 0:
        raise CAPInputError(f"the jurors share no item on {benchmark!r}", column="item_id",
                            expected="items judged by every juror", fix="choose judges that rated the same items")
    wide = kept.pivot(on="judge", index=["item_id", "order", "base_item_id", "gold"], values=["verdict", "correct"],
                      separator="\x1f")
    return wide.rename({f"verdict\x1f{j}": j for j in set(judges)}
                       | {f"correct\x1f{j}": f"{j}\x1fcorrect" for j in set(judges)}).sort("item_id", "order")


def jury_comparison(ds: Dataset, benchmark: str, judges: list[str], *, n_resamples: int = 1000, seed: int = 0,
                    level: float = 0.95) -> pl.DataFrame:
    """Majority jury vs every juror alone, and its difference to the best juror on shared resamples.

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
    name = f"majority of {len(judges)}"
    ok = {j: w[f"{j}\x1fcorrect"].cast(pl.Float64).to_numpy() for j in judges}
    # the jury's own verdict is scored by the one rule (looked up at call time: one place to change it)
    jury = w.select(pl.Series("verdict", majority_verdicts(votes)), "gold").select(verdicts.verdict_flags())
    ok[name] = jury["correct"].cast(pl.Float64).to_numpy()
    names = [*judges, name]
    best = max(judges, key=lambda j: ok[j].mean())
    r = base_ratios(w["base_item_id"], np.column_stack([ok[e] for e in names] + [ok[name] - ok[best]]),
                    n_resamples=n_resamples, seed=seed)
    reps = 100 * r.replicates
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
