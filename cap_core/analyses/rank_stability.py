"""Rank stability of judges across benchmarks and across conditions.

* Cross-benchmark stability (CAP §4.2, App. F Table 13, App. M eq. 2): for one
  condition measurable on two views ``D`` and ``D'``, ρ_c(D, D') is the Spearman
  correlation of the judges' CAP values on ``D`` and on ``D'``, over the judges
  present on both.
* Cross-condition non-redundancy (CAP App. G Table 14): on one view, the Spearman
  correlation between the judge vectors of two conditions; summarised by the mean
  |ρ| and the number of negative pairs.

p-values: ``scipy.stats.spearmanr`` (two-sided; scipy uses a t distribution with
n − 2 degrees of freedom for ρ). With ``exact=True`` and n ≤ 9 shared judges the
p-value is instead an exact permutation p over all n! orderings
(``scipy.stats.permutation_test``, two-sided). A pair with fewer than 3 shared
judges, or a vector with all values equal, is reported with status ``"n/a"`` and a
reason instead of a number.
"""

from __future__ import annotations

import functools
import itertools
import numbers

import numpy as np
import polars as pl
from scipy import stats

from cap_core.errors import CAPInputError, counted
from cap_core.profile.selection import list_views, view_cells

__all__ = ["spearman_pair", "cross_benchmark_spearman", "cross_condition_spearman", "redundancy_summary"]

_MIN_JUDGES = 3
_EXACT_MAX = 9


def _level_iv(alpha: object) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < float(alpha) < 1:
        raise CAPInputError("alpha must be a significance level between 0 and 1", argument="alpha",
                            expected="a fraction such as 0.05", got=alpha)
    return float(alpha)


def spearman_pair(x, y, *, exact: bool = False) -> dict:
    """Spearman ρ of two vectors matched judge by judge, or a stated reason why there is none.

    Parameters
    ----------
    x, y : sequence of float
        Values of the same judges in the same order, any units.
    exact : bool, default False
        For n ≤ 9, also compute an exact two-sided permutation p-value.

    Returns
    -------
    dict
        ``n`` (int), ``rho`` (float or None), ``p_value`` (float or None; from
        ``scipy.stats.spearmanr``, or the exact permutation p when ``exact`` and
        n ≤ 9), ``p_method`` (``"t-approximation (scipy.stats.spearmanr)"`` or
        ``"exact permutation"``), ``status`` (``"ok"`` / ``"n/a"``), ``reason``.

    Raises
    ------
    CAPInputError
        ``x`` and ``y`` of different lengths or not numeric.
    """
    try:
        a = np.asarray(x, dtype=np.float64)
        b = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise CAPInputError("Spearman inputs must be numbers", got=(x, y)) from None
    if a.shape != b.shape or a.ndim != 1:
        raise CAPInputError("Spearman inputs must be two vectors of equal length", got=(a.shape, b.shape))
    ok = ~(np.isnan(a) | np.isnan(b))
    a, b = a[ok], b[ok]
    n = int(a.size)
    out = {"n": n, "rho": None, "p_value": None, "p_method": "", "status": "n/a", "reason": ""}
    if n < _MIN_JUDGES:
        out["reason"] = f"{counted(n, 'shared judge')}; a rank correlation needs at least {_MIN_JUDGES}"
        return out
    if np.all(a == a[0]) or np.all(b == b[0]):
        out["reason"] = "all judges have the same value on one side; ranks are undefined"
        return out
    res = stats.spearmanr(a, b)
    out.update(rho=float(res.statistic), p_value=float(res.pvalue), status="ok",
               p_method="t-approximation (scipy.stats.spearmanr)")
    if exact and n <= _EXACT_MAX:
        out.update(p_value=_exact_p(a, b), p_method="exact permutation")
    return out


@functools.lru_cache(maxsize=_EXACT_MAX + 1)
def _pairings(n: int) -> np.ndarray:
    return np.array(list(itertools.permutations(range(n))), dtype=np.int64)


def _exact_p(a: np.ndarray, b: np.ndarray) -> float:
    """Exact two-sided permutation p of Spearman ρ over all n! pairings, vectorised.

    The same null and p as ``scipy.stats.permutation_test(..., permutation_type="pairings",
    n_resamples=np.inf, alternative="two-sided")`` (p = 2 min(P(null ≤ obs), P(null ≥ obs)),
    capped at 1, with scipy's relative tolerance), in a fraction of its time: ρ of a
    pairing is the Pearson correlation of mid-ranks, whose mean and spread every pairing shares.
    """
    ra, rb = stats.rankdata(a), stats.rankdata(b)
    ra, rb = ra - ra.mean(), rb - rb.mean()
    den = np.sqrt((ra @ ra) * (rb @ rb))
    null = ra[_pairings(a.size)] @ rb / den
    obs = float(ra @ rb / den)
    gamma = abs(np.finfo(np.float64).eps * 100 * obs)
    less, greater = np.mean(null <= obs + gamma), np.mean(null >= obs - gamma)
    return float(min(1.0, 2 * min(less, greater)))


def _vectors(profile, view, condition, sources):
    cells = view_cells(profile, view, condition=condition, sources=sources, include_overall=condition == "overall")
    return dict(zip(cells.get_column("judge").to_list(), cells.get_column("value").to_list()))


def cross_benchmark_spearman(profile: pl.DataFrame, condition: str, views: list[str] | None = None, *,
                             sources: list[str] | None = None, alpha: float = 0.05,
                             exact: bool = False) -> pl.DataFrame:
    """Pairwise Spearman ρ of judge orderings for one condition across views.

    Parameters
    ----------
    profile : polars.DataFrame
        Profile frame (PROFILE_SCHEMA, percent); computed or published.
    condition : str
        ``"C1"`` ... ``"C8"`` or ``"overall"``; the primary metric is used.
    views : list of str, optional
        ``"benchmark:subset"`` names; default every view where ``condition`` has a value.
    sources : list of str, optional
        Restrict to these ``source`` values (needed when two published tables give
        the same cell).
    alpha : float, default 0.05
        Significance level for the ``significant`` flag (p < alpha).
    exact : bool, default False
        Exact permutation p-values for n ≤ 9 (see :func:`spearman_pair`).

    Returns
    -------
    polars.DataFrame
        One row per unordered pair of views, in the given order: ``view_a``,
        ``view_b``, ``condition``, ``n_judges`` (Int64), ``judges`` (";"-joined),
        ``rho``, ``p_value`` (Float64, null when n/a), ``p_method``,
        ``significant`` (Boolean, null when n/a), ``status``, ``reason``.

    Raises
    ------
    CAPInputError
        Fewer than two views, an unknown view, or duplicate cells.
    """
    alpha = _level_iv(alpha)
    from cap_core.schema import CONDITION_IDS

    if condition not in CONDITION_IDS:
        raise CAPInputError("unknown condition", argument="condition", expected="one of " + ", ".join(CONDITION_IDS),
                            got=condition, fix="use the CAP Table 1 ids C1..C8")
    if views is None:
        views = [v for v in list_views(profile) if _vectors(profile, v, condition, sources)]
    if len(views) < 2:
        raise CAPInputError(f"rank stability of {condition} needs at least two benchmarks", argument="view",
                            got=views, expected="two or more benchmark:subset views with the condition",
                            fix=("--source keeps only the listed sources; add the sources of other benchmarks "
                                 "(e.g. 'published: CAP Table 5') or drop --source" if sources else
                                 "add a second benchmark, or pick a condition measured on several benchmarks"))
    vecs = {v: _vectors(profile, v, condition, sources) for v in views}
    rows = []
    for va, vb in itertools.combinations(views, 2):
        shared = sorted(set(vecs[va]) & set(vecs[vb]))
        res = spearman_pair([vecs[va][j] for j in shared], [vecs[vb][j] for j in shared], exact=exact)
        rows.append({"view_a": va, "view_b": vb, "condition": condition, "n_judges": res["n"],
                     "judges": ";".join(shared), "rho": res["rho"], "p_value": res["p_value"],
                     "p_method": res["p_method"],
                     "significant": None if res["p_value"] is None else res["p_value"] < alpha,
                     "status": res["status"], "reason": res["reason"]})
    return pl.DataFrame(rows, schema={"view_a": pl.String, "view_b": pl.String, "condition": pl.String,
                                      "n_judges": pl.Int64, "judges": pl.String, "rho": pl.Float64,
                                      "p_value": pl.Float64, "p_method": pl.String, "significant": pl.Boolean,
                                      "status": pl.String, "reason": pl.String})


def cross_condition_spearman(profile: pl.DataFrame, view: str, conditions: list[str] | None = None, *,
                             sources: list[str] | None = None, alpha: float = 0.05,
                             exact: bool = False) -> pl.DataFrame:
    """Spearman ρ between per-condition judge rankings on one view (CAP App. G).

    Parameters
    ----------
    profile : polars.DataFrame
        Profile frame (PROFILE_SCHEMA, percent).
    view : str
        ``"benchmark:subset"``.
    conditions : list of str, optional
        Default: every condition with a value on the view (C1-C8 order).
    sources, alpha, exact
        As in :func:`cross_benchmark_spearman`.

    Returns
    -------
    polars.DataFrame
        Same columns as :func:`cross_benchmark_spearman` with ``view_a`` /
        ``view_b`` replaced by ``view``, ``condition_a``, ``condition_b``.

    Raises
    ------
    CAPInputError
        Fewer than two conditions with values, bad view, duplicate cells.
    """
    alpha = _level_iv(alpha)
    cells = view_cells(profile, view, sources=sources)
    have = sorted(cells.get_column("condition").unique().to_list())
    conditions = have if conditions is None else list(conditions)
    missing = [c for c in conditions if c not in have]
    if missing or len(conditions) < 2:
        raise CAPInputError(f"cross-condition ranks on {view} need two or more measured conditions",
                            argument="condition", got=missing or conditions, expected="some of " + ", ".join(have),
                            fix="pick conditions that have values on this benchmark")
    vec = {c: dict(cells.filter(pl.col("condition") == c).select("judge", "value").iter_rows()) for c in conditions}
    rows = []
    for ca, cb in itertools.combinations(conditions, 2):
        shared = sorted(set(vec[ca]) & set(vec[cb]))
        res = spearman_pair([vec[ca][j] for j in shared], [vec[cb][j] for j in shared], exact=exact)
        rows.append({"view": view, "condition_a": ca, "condition_b": cb, "n_judges": res["n"],
                     "judges": ";".join(shared), "rho": res["rho"], "p_value": res["p_value"],
                     "p_method": res["p_method"],
                     "significant": None if res["p_value"] is None else res["p_value"] < alpha,
                     "status": res["status"], "reason": res["reason"]})
    return pl.DataFrame(rows, schema={"view": pl.String, "condition_a": pl.String, "condition_b": pl.String,
                                      "n_judges": pl.Int64, "judges": pl.String, "rho": pl.Float64,
                                      "p_value": pl.Float64, "p_method": pl.String, "significant": pl.Boolean,
                                      "status": pl.String, "reason": pl.String})


def redundancy_summary(pairs: pl.DataFrame) -> dict:
    """Summary of a cross-condition ρ table (CAP App. G).

    Parameters
    ----------
    pairs : polars.DataFrame
        Output of :func:`cross_condition_spearman` (or any frame with ``rho`` and
        ``status``).

    Returns
    -------
    dict
        ``n_pairs`` (pairs with a ρ), ``n_na`` (pairs reported n/a),
        ``mean_abs_rho`` (float or None), ``n_negative`` (pairs with ρ < 0).

    Raises
    ------
    CAPInputError
        ``pairs`` lacks ``rho``/``status``.
    """
    if not isinstance(pairs, pl.DataFrame) or not {"rho", "status"} <= set(pairs.columns):
        raise CAPInputError("redundancy_summary needs the output of cross_condition_spearman",
                            expected="columns rho, status", got=getattr(pairs, "columns", type(pairs).__name__))
    ok = pairs.filter(pl.col("status") == "ok").get_column("rho")
    return {"n_pairs": ok.len(), "n_na": pairs.height - ok.len(),
            "mean_abs_rho": float(ok.abs().mean()) if ok.len() else None,
            "n_negative": int((ok < 0).sum())}
