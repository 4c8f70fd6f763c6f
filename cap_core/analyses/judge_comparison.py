"""Paired comparison of two judges on the items both scored.

Follows the decision rule of the Jev paper (Rao & Callison-Burch, arXiv:2609.29769,
§3.5): the accuracy difference between two judges on jointly scored items gets a
bootstrap interval over units (here: base items); the pair is

* ``separated`` when the 95% interval excludes 0,
* ``parity`` when the 90% interval lies within ±``margin`` points (default 5),
* ``inconclusive`` otherwise.

Several comparisons at once (all conditions of a pair, several judge pairs or
conditions): every difference also carries a two-sided percentile-bootstrap p-value
(:func:`bootstrap_p`), and :func:`adjust_separated` applies a Holm (1979) step-down
correction across the family (``statsmodels.stats.multitest.multipletests``): a
difference stays ``separated`` only when its 95% interval excludes 0 and its
Holm-adjusted p is below 0.05; the ``correction`` column says which is in force
(``none``: the per-comparison rule above, unchanged).

Per CAP condition the difference uses the primary metric (position-averaged
accuracy for overall and C1-C4, strict both-correct for C5-C7, supported for C8).
Because :func:`cap_core.profile.conditions.compute_profile` evaluates every judge on the same
resample of base items, replicate ``r`` of the difference is replicate ``r`` of
judge A minus replicate ``r`` of judge B: a paired bootstrap. All values in points.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from cap_core.bootstrap import check_bootstrap_args, percentile_interval
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import ProfileResult, compute_profile
from cap_core.verdicts import check_failures, verdict_rows

__all__ = ["holm", "jointly_scored", "paired_from_result", "compare_judges", "compare_many", "verdict", "bootstrap_p",
           "bootstrap_p_columns",
           "adjust_separated", "CORRECTIONS"]

#: Multiple-comparison corrections of the ``separated`` verdict: ``none`` or ``holm``.
CORRECTIONS: tuple[str, ...] = ("none", "holm")


def bootstrap_p(d: np.ndarray) -> float:
    """Two-sided bootstrap p-value of ``H0: difference = 0`` from replicate differences.

    ``p = min(1, 2 * min(#(d <= 0) + 1, #(d >= 0) + 1) / (R + 1))`` over the ``R`` finite
    replicates (the +1 keeps p above 0, Davison & Hinkley 1997 §4.4); NaN when there are
    none. A 95% percentile interval that excludes 0 goes with p below about 0.05.

    **Past the resample floor.** When no replicate lies on the far side of 0, the counts
    say only that p is at most ``2 / (R + 1)`` (0.00995 at R = 200), and a multiple-
    comparison correction could then never separate a clear difference (Holm over 7
    comparisons lifts that floor to 0.07). There the p-value is the normal tail of the
    replicates themselves, ``2 Φ(−|mean(d)| / sd(d))`` (the bootstrap-z test, Efron &
    Tibshirani 1993 §16.4), kept below the floor: a clear difference gets the small p it
    has, whatever the number of resamples. With every replicate equal and non-zero, p = 0.
    """
    return float(bootstrap_p_columns(np.asarray(d, dtype=float).reshape(-1, 1))[0])


def bootstrap_p_columns(d: np.ndarray) -> np.ndarray:
    """:func:`bootstrap_p` of every column of ``d`` (shape ``(R, m)``): shape ``(m,)``.

    The one rule, computed for all columns at once (a leaderboard tests every pair of judges
    on each weight change): columns holding no NaN or infinity are counted together, the
    others one by one on their finite replicates. The means and standard deviations are those
    of each column on its own (same sums in the same order), so the values equal the
    one-column ones bit for bit.
    """
    d = np.asarray(d, dtype=float)
    out = np.full(d.shape[1], np.nan)
    finite = np.isfinite(d)
    whole = finite.all(axis=0)
    for k in np.flatnonzero(~whole):  # columns with dropped replicates: on their own
        out[k] = _bootstrap_p_whole(np.ascontiguousarray(d[finite[:, k], k])[None, :])[0]
    if whole.any():
        out[whole] = _bootstrap_p_whole(np.ascontiguousarray(d[:, whole].T))
    return out


def _bootstrap_p_whole(x: np.ndarray) -> np.ndarray:
    """:func:`bootstrap_p` of every row of ``x`` (shape ``(m, R)``, finite values, rows contiguous)."""
    m, n = x.shape
    if n == 0:
        return np.full(m, np.nan)
    low, high = (x <= 0).sum(axis=1), (x >= 0).sum(axis=1)
    least = np.minimum(low, high)
    p = np.minimum(1.0, 2 * (least + 1) / (n + 1))
    tail = np.flatnonzero(least == 0)  # beyond what the counts resolve: the replicates' normal tail
    if tail.size:
        rows = x[tail]  # row by row, the sums of each row alone
        sds = rows.std(axis=1, ddof=1) if n > 1 else np.zeros(tail.size)
        means = rows.mean(axis=1)
        for k, sd, mean in zip(tail, sds.tolist(), means.tolist()):
            z = abs(mean) / sd if sd > 0 else math.inf
            p[k] = min(float(p[k]), math.erfc(z / math.sqrt(2.0)))
    return p


def holm(p: list[float], alpha: float) -> tuple[list[float], list[bool]]:
    """Holm's step-down correction: (adjusted p-values, rejected at ``alpha``), in the order of ``p``.

    The same operations as ``statsmodels.stats.multitest.multipletests(method="holm")``
    (statsmodels 0.14: sort ascending, reject up to the first ``p_(i) > alpha / (m - i)``,
    adjusted ``p_(i)`` = running maximum of ``(m - i) p_(i)``, capped at 1), which
    ``tests/cap_core/choice/test_leaderboard.py`` checks value for value; the one Holm
    rule of the project (the Compare page, ``compare``, the Choose leaderboard). Not called through
    statsmodels because that function runs a full ``gc.collect()`` on every call: 0.3-1 s in a
    dashboard process, paid on every weight change of the Choose page.
    """
    if not p:
        return [], []
    pvals = np.asarray(p, dtype=float)
    order = np.argsort(pvals)
    ps = np.take(pvals, order)
    m = len(ps)
    steps = np.arange(m, 0, -1)
    notreject = ps > alpha / steps
    first = np.nonzero(notreject)[0]
    notreject[(first.min() if first.size else m):] = True
    adj = np.maximum.accumulate(ps * steps)
    adj[adj > 1] = 1
    adj_out, reject_out = np.empty_like(adj), np.empty_like(notreject)
    adj_out[order], reject_out[order] = adj, ~notreject
    return [float(x) for x in adj_out], [bool(x) for x in reject_out]


def adjust_separated(rows: pl.DataFrame, correction: str = "holm", *, alpha: float = 0.05,
                     margin: float = 5.0) -> pl.DataFrame:
    """Apply a multiple-comparison correction to the ``separated`` verdicts of several differences.

    Parameters
    ----------
    rows : polars.DataFrame
        Differences with ``ci95_low``, ``ci95_high``, ``ci90_low``, ``ci90_high`` (points)
        and ``p_value`` (from :func:`paired_from_result`); one family: every row is one
        of the comparisons made at once (conditions, judge pairs).
    correction : {"none", "holm"}
        ``holm``: Holm's step-down adjustment of ``p_value`` across the rows with a p
        (:func:`holm`, as statsmodels computes it); a row is
        separated only when its 95% interval excludes 0 and its adjusted p < ``alpha``;
        other rows get parity / inconclusive by the per-comparison rule. ``none``: the
        verdicts as they are.
    alpha : float
        Family-wise error rate (default 0.05, the level of the 95% interval).
    margin : float
        Parity margin in points.

    Returns
    -------
    polars.DataFrame
        ``rows`` with ``p_adjusted`` (Float64; equal to ``p_value`` under ``none``),
        ``verdict`` recomputed and ``correction`` (String: ``none`` or ``holm (k tests)``).

    Raises
    ------
    CAPInputError
        Unknown correction, alpha outside (0, 1), missing columns.
    """
    if correction not in CORRECTIONS:
        raise CAPInputError("unknown multiple-comparison correction", argument="correction", got=correction,
                            expected=" or ".join(CORRECTIONS), fix="pass holm (several comparisons) or none")
    if not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise CAPInputError("alpha must lie between 0 and 1", argument="alpha", got=alpha, expected="e.g. 0.05")
    need = ["ci95_low", "ci95_high", "ci90_low", "ci90_high", "p_value"]
    missing = [c for c in need if c not in rows.columns]
    if missing:
        raise CAPInputError("comparison rows lack a column", argument="rows", got=missing[0],
                            expected=", ".join(need), fix="use the output of compare_judges or paired_from_result")
    p = rows.get_column("p_value").to_numpy().astype(float)
    adj = p.copy()
    ok = np.isfinite(p)
    label = "none"
    if correction == "holm":

        if ok.any():
            adj[ok] = holm(p[ok].tolist(), alpha)[0]
        label = f"holm ({int(ok.sum())} tests)"
    verdicts = []
    for r, pa in zip(rows.iter_rows(named=True), adj):
        v = verdict((r["ci95_low"], r["ci95_high"]), (r["ci90_low"], r["ci90_high"]), margin)
        if correction == "holm" and v == "separated" and not (np.isfinite(pa) and pa < alpha):
            v = verdict((-np.inf, np.inf), (r["ci90_low"], r["ci90_high"]), margin)  # parity or inconclusive
        verdicts.append(v)
    return rows.with_columns(pl.Series("p_adjusted", adj, dtype=pl.Float64),
                             pl.Series("verdict", verdicts, dtype=pl.String),
                             pl.lit(label, dtype=pl.String).alias("correction"))


def verdict(ci95: tuple[float, float], ci90: tuple[float, float], margin: float = 5.0) -> str:
    """Jev §3.5 decision for one difference (points): separated / parity / inconclusive."""
    lo95, hi95 = ci95
    lo90, hi90 = ci90
    if any(v is None or np.isnan(v) for v in (lo95, hi95, lo90, hi90)):
        return "not testable"
    if lo95 > 0 or hi95 < 0:
        return "separated"
    if -margin <= lo90 and hi90 <= margin:
        return "parity"
    return "inconclusive"


def jointly_scored(ds: Dataset, judge_a: str, judge_b: str, benchmark: str, failures: str = "count") -> Dataset:
    """Restrict a benchmark to the items both judges scored in every order present.

    Returns
    -------
    Dataset
        Items of ``benchmark`` that both judges received and on which neither is
        ``missing`` a verdict (:func:`cap_core.verdicts.verdict_rows`; any verdict,
        including ``tie``/``unparsed``, counts) in any order either judge used; only the
        two judges' judgments.

    Raises
    ------
    CAPInputError
        Unknown benchmark or judge, the same judge twice, or no jointly scored item.
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("a Dataset is needed", expected="cap_core.dataset.Dataset", got=type(ds).__name__)
    if benchmark not in ds.benchmarks:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=benchmark,
                            expected="one of " + ", ".join(ds.benchmarks))
    if judge_a == judge_b:
        raise CAPInputError("a paired comparison needs two different judges", argument="judge_b", got=judge_b)
    jm = ds.judgments.filter(pl.col("benchmark") == benchmark)
    for j in (judge_a, judge_b):
        if jm.filter(pl.col("judge") == j).height == 0:
            raise CAPInputError(f"judge has no verdicts on {benchmark}", argument="judge", got=j,
                                expected="one of " + ", ".join(sorted(jm.get_column("judge").unique())))
    jm = jm.filter(pl.col("judge").is_in([judge_a, judge_b]))
    # items both judges received (verdict_rows holds a judge's rows on its received items only) where
    # neither is missing a verdict in any order either used (verdict_rows' missing flag)
    # (under failures="exclude" also no unparsed verdict: the item is outside that judge's n)
    rows = verdict_rows(ds, benchmarks=[benchmark], judges=[judge_a, judge_b])
    bad = pl.col("missing") | (pl.col("unparsed") if check_failures(failures) == "exclude" else pl.lit(False))
    keep = rows.group_by("item_id").agg(bad.any().alias("gap"), pl.col("judge").n_unique().alias("k")
                                        ).filter(~pl.col("gap") & (pl.col("k") == 2)).get_column("item_id")
    if keep.len() == 0:
        raise CAPInputError(f"{judge_a} and {judge_b} share no scored item on {benchmark}", column="item_id",
                            fix="pick two judges run on the same items")
    items = ds.items.filter((pl.col("benchmark") == benchmark) & pl.col("item_id").is_in(keep.implode()))
    # keep variant groups whole: a base item is compared only when all of its items were scored
    bases = ds.items.filter(pl.col("benchmark") == benchmark).group_by("base_item_id").len().join(
        items.group_by("base_item_id").len(), on="base_item_id").filter(pl.col("len") == pl.col("len_right"))
    items = items.filter(pl.col("base_item_id").is_in(bases.get_column("base_item_id").implode()))
    return Dataset(items=items, judgments=jm.filter(pl.col("item_id").is_in(items.get_column("item_id").implode())),
                   declarations=ds.declarations.filter(pl.col("benchmark") == benchmark), notices=ds.notices)


def paired_from_result(result: ProfileResult, judge_a: str, judge_b: str, *, benchmark: str, subset: str = "all",
                       margin: float = 5.0) -> pl.DataFrame:
    """Paired differences A − B per condition from one shared-resample profile.

    Parameters
    ----------
    result : ProfileResult
        Output of :func:`compute_profile` holding both judges on ``benchmark``.
    judge_a, judge_b : str
        The two judges.
    benchmark, subset : str
        Which rows of the profile to compare.
    margin : float, default 5.0
        Parity margin in points.

    Returns
    -------
    polars.DataFrame
        ``condition``, ``metric``, ``value_a``, ``value_b``, ``diff`` (points,
        A − B), ``ci95_low``, ``ci95_high``, ``ci90_low``, ``ci90_high`` (points),
        ``n_items`` (Int64, units of judge A), ``verdict`` (separated / parity /
        inconclusive / not testable), ``p_value`` (Float64, :func:`bootstrap_p` of the
        replicate differences). Conditions either judge lacks are left out.

    Raises
    ------
    CAPInputError
        Not a ProfileResult; a judge without rows on the benchmark; a margin that is negative, nan or infinite.
    """
    if not isinstance(result, ProfileResult):
        raise CAPInputError("paired comparison needs a ProfileResult with replicates",
                            expected="output of compute_profile", got=type(result).__name__,
                            fix="compute the profile from per-item data (published tables have no replicates)")
    if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < float("inf"):
        raise CAPInputError("parity margin must be a finite non-negative number of points", argument="margin",
                            got=margin)
    here = result.profile.with_row_index("_k").filter(
        (pl.col("benchmark") == benchmark) & (pl.col("subset") == subset) & pl.col("primary"))
    prof = here.filter(pl.col("value").is_not_null())
    sides = {}
    for j in (judge_a, judge_b):
        sides[j] = prof.filter(pl.col("judge") == j).select("condition", "metric", "value", "n_items", "_k")
        if sides[j].height == 0:
            if (here.filter(pl.col("judge") == j)["status"] == "needs gold").any():
                raise CAPInputError(f"the compared metrics need gold: no item {j} judged on {benchmark} has a "
                                    "gold label", argument="judge", got=j, expected="items with a gold label A or B",
                                    fix="import the data with a gold label (a gold table, or reference judges whose "
                                        "majority is gold); without "
                                        "gold, `profile` gives C7 pure consistency and `summary` the tie and "
                                        "unparsed rates")
            raise CAPInputError(f"judge has no profile rows on {benchmark}:{subset}", argument="judge", got=j)
    both = sides[judge_a].join(sides[judge_b], on=["condition", "metric"], suffix="_b")
    rows = []
    for r in both.iter_rows(named=True):
        d = result.replicates[:, r["_k"]] - result.replicates[:, r["_k_b"]]
        lo95, hi95 = (float(x) for x in percentile_interval(d, 0.95))
        lo90, hi90 = (float(x) for x in percentile_interval(d, 0.90))
        rows.append({"condition": r["condition"], "metric": r["metric"], "value_a": r["value"],
                     "value_b": r["value_b"], "diff": r["value"] - r["value_b"], "ci95_low": lo95,
                     "ci95_high": hi95, "ci90_low": lo90, "ci90_high": hi90, "n_items": r["n_items"],
                     "verdict": verdict((lo95, hi95), (lo90, hi90), float(margin)), "p_value": bootstrap_p(d)})
    order = {c: i for i, c in enumerate(["overall", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8"])}
    rows.sort(key=lambda x: order.get(x["condition"], 99))
    return pl.DataFrame(rows, schema={"condition": pl.String, "metric": pl.String, "value_a": pl.Float64,
                                      "value_b": pl.Float64, "diff": pl.Float64, "ci95_low": pl.Float64,
                                      "ci95_high": pl.Float64, "ci90_low": pl.Float64, "ci90_high": pl.Float64,
                                      "n_items": pl.Int64, "verdict": pl.String, "p_value": pl.Float64})


def compare_judges(ds: Dataset, judge_a: str, judge_b: str, benchmark: str, *, n_resamples: int = 1000,
                   seed: int = 0, margin: float = 5.0, failures: str = "count") -> pl.DataFrame:
    """Jointly scored items, shared-resample profile, paired differences (Jev §3.5).

    Parameters and returns as in :func:`jointly_scored` and
    :func:`paired_from_result`; ``n_resamples``/``seed``/``failures`` go to
    :func:`compute_profile`. The frame gains ``judge_a``, ``judge_b``,
    ``benchmark`` columns in front.

    Raises
    ------
    CAPInputError
        See :func:`jointly_scored`; bad bootstrap arguments.
    """
    check_bootstrap_args(n_resamples, seed, 0.95)
    sub = jointly_scored(ds, judge_a, judge_b, benchmark, failures)
    res = compute_profile(sub, n_resamples=n_resamples, seed=seed, benchmarks=[benchmark], failures=failures)
    out = paired_from_result(res, judge_a, judge_b, benchmark=benchmark, margin=margin)
    return out.select(pl.lit(judge_a).alias("judge_a"), pl.lit(judge_b).alias("judge_b"),
                      pl.lit(benchmark).alias("benchmark"), pl.all())


def compare_many(ds: Dataset, judges: list[str], benchmark: str, *, correction: str = "holm",
                 n_resamples: int = 1000, seed: int = 0, margin: float = 5.0,
                 failures: str = "count") -> pl.DataFrame:
    """Every pair of several judges compared at once, with one correction across all the differences.

    Each pair is compared by :func:`compare_judges` on its own jointly scored items; the
    family for the correction is every (pair, condition) row together.

    Returns
    -------
    polars.DataFrame
        The rows of :func:`compare_judges` for each pair (``judges`` order: A before B),
        stacked, with ``p_adjusted`` and ``correction`` (:func:`adjust_separated`).

    Raises
    ------
    CAPInputError
        Fewer than two distinct judges; see :func:`compare_judges` and :func:`adjust_separated`.
    """
    names = list(dict.fromkeys(judges or []))
    if len(names) < 2:
        raise CAPInputError("comparing judges at once needs two or more judges", argument="judges", got=judges,
                            expected="a list of at least two judge names")
    if correction not in CORRECTIONS:
        adjust_separated(pl.DataFrame(), correction)  # raises the one message
    parts = [compare_judges(ds, a, b, benchmark, n_resamples=n_resamples, seed=seed, margin=margin,
                            failures=failures)
             for i, a in enumerate(names) for b in names[i + 1:]]
    return adjust_separated(pl.concat(parts), correction, margin=margin)
