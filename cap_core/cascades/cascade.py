"""Confidence cascades replayed on recorded verdicts (Jev paper §6, §6.3, App. K).

A cascade keeps the cheap judge's verdict on an item whose confidence is at least τ and
uses a fallback judge's verdict elsewhere. Everything here works on the items that the
cheap judge and every candidate fallback share (unit: the item, see
:mod:`cap_core.cascades.judge_confidence`); accuracies are **percent**, deferrals **percent**
(``deferral_pct``, 0-100),
costs **US dollars per 1,000 items** (the cheap judge is paid on every item, the
fallback on the deferred ones, each at its own estimated per-item cost).

Identity used in :func:`decomposition`: cascade minus fallback accuracy equals
``(1/n) Σ_kept (cheap - fallback)``, so the gain over the fallback can never exceed the
share of items that are kept and that only the cheap judge gets right (App. K).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core.bootstrap import base_index, base_ratios, percentile_interval
from cap_core.cascades.cost import item_costs, load_prices
from cap_core.cascades.judge_confidence import item_confidence, item_frame
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

__all__ = ["CascadeData", "cascade_data", "cascade_curve", "cascade_point", "decomposition", "oracle",
           "cross_fit", "split_halves", "gain_ci"]


@dataclass(frozen=True)
class CascadeData:
    """Aligned per-item arrays on the shared items (length ``n``).

    ``conf`` cheap judge's confidence in [0, 1]; ``correct`` judge -> correctness
    fraction in [0, 1] (cheap judge first); ``cost`` judge -> dollars per item verdict
    (NaN without a price); ``base`` int codes of ``base_item_id`` from
    :func:`cap_core.bootstrap.base_index` (bootstrap/split unit; ids in sorted order).
    """

    cheap: str
    fallbacks: tuple[str, ...]
    item_id: np.ndarray
    base: np.ndarray
    conf: np.ndarray
    correct: dict[str, np.ndarray]
    cost: dict[str, np.ndarray]

    @property
    def n(self) -> int:
        return int(self.conf.size)


def cascade_data(ds: Dataset, benchmark: str, cheap: str, fallbacks: list[str] | str, *, method: str = "auto",
                 prices: pl.DataFrame | None = None) -> CascadeData:
    """Collect confidence, correctness and cost of the cheap judge and its fallbacks.

    Raises
    ------
    CAPInputError
        A judge without verdicts, a cheap judge without confidence, a fallback equal to
        nothing, or no item shared by all the judges.
    """
    fbs = [fallbacks] if isinstance(fallbacks, str) else list(fallbacks)
    if not fbs:
        raise CAPInputError("a cascade needs a fallback judge", argument="fallback", expected="one or more judges",
                            fix="choose an LLM judge as the fallback")
    conf = item_confidence(ds, benchmark, cheap, method=method).select("item_id", "confidence")
    frame = conf.join(item_frame(ds, benchmark, cheap).select("item_id", "base_item_id", pl.col("correct")
                                                                 .alias(cheap)), on="item_id")
    prices = load_prices() if prices is None else prices
    costs = {}
    for j in dict.fromkeys([cheap, *fbs]):
        if j != cheap:
            frame = frame.join(item_frame(ds, benchmark, j).select("item_id", pl.col("correct").alias(j)), on="item_id")
        try:
            costs[j] = item_costs(ds, benchmark, j, prices).select("item_id", pl.col("cost_usd").alias(j))
        except CAPInputError:
            costs[j] = None
    if frame.height == 0:
        raise CAPInputError(f"the cheap judge and the fallback(s) share no item on {benchmark!r}",
                            column="item_id", expected="at least one item judged by all of them",
                            got=f"{cheap} vs {', '.join(fbs)}", fix="choose judges that rated the same items")
    frame = frame.sort("item_id")
    base, _ = base_index(frame["base_item_id"])
    cost = {}
    for j, c in costs.items():
        cost[j] = (np.full(frame.height, np.nan) if c is None
                   else frame.select("item_id").join(c, on="item_id", how="left")[j].fill_null(np.nan).to_numpy())
    return CascadeData(cheap, tuple(fbs), frame["item_id"].to_numpy(), base,
                       frame["confidence"].to_numpy(), {j: frame[j].to_numpy() for j in dict.fromkeys([cheap, *fbs])},
                       cost)


def _taus(conf: np.ndarray) -> np.ndarray:
    top = max(1.0, float(np.nextafter(conf.max(), np.inf))) if conf.size else 1.0
    return np.unique(np.concatenate([[0.0], conf, [top]]))


def _scores(d: CascadeData, fb: str, taus: np.ndarray, idx: np.ndarray | None = None) -> dict[str, np.ndarray]:
    sl = slice(None) if idx is None else idx
    conf, c1, c2 = d.conf[sl], d.correct[d.cheap][sl], d.correct[fb][sl]
    keep = conf[None, :] >= taus[:, None]
    acc = np.where(keep, c1, c2).mean(axis=1)
    cost = d.cost[d.cheap][sl].mean() + np.where(keep, 0.0, d.cost[fb][sl]).mean(axis=1)
    return {"accuracy": 100 * acc, "deferral_pct": 100 * (1 - keep.mean(axis=1)), "usd_per_1000": 1000 * cost}


def cascade_curve(d: CascadeData, fallback: str | None = None, taus: np.ndarray | None = None) -> pl.DataFrame:
    """Accuracy, deferral and cost as τ varies.

    Returns
    -------
    polars.DataFrame
        ``tau``, ``accuracy`` (percent), ``deferral_pct`` (percent, 0-100, of items sent
        to the fallback), ``usd_per_1000`` (null without prices). τ = 0 keeps every cheap
        verdict; the last τ lies above every confidence and defers everything. Each row
        equals :func:`cascade_point` at its τ (same computation).
    """
    fb = fallback or d.fallbacks[0]
    t = _taus(d.conf) if taus is None else np.asarray(taus, float)
    s = _scores(d, fb, t)
    return pl.DataFrame({"tau": t, "accuracy": s["accuracy"], "deferral_pct": s["deferral_pct"],
                         "usd_per_1000": s["usd_per_1000"]}).with_columns(pl.col("usd_per_1000").fill_nan(None))


def cascade_point(d: CascadeData, tau: float, fallback: str | None = None) -> dict:
    """The cascade at one τ: the operating point drawn on the curve.

    Parameters
    ----------
    d : CascadeData
    tau : float
        Keep the cheap verdict where its confidence is ≥ ``tau`` (confidence in [0, 1]).
    fallback : str, optional
        Default the first fallback.

    Returns
    -------
    dict
        ``tau``, ``accuracy`` (percent), ``deferral_pct`` (percent, 0-100), ``n_kept``
        and ``usd_per_1000`` (cheap judge on every item plus the fallback on the deferred
        ones; None without prices) — the same computation as :func:`cascade_curve`.

    Raises
    ------
    CAPInputError
        ``tau`` not a number, or an unknown fallback.
    """
    if isinstance(tau, bool) or not isinstance(tau, (int, float, np.floating)) or not np.isfinite(tau):
        raise CAPInputError("τ must be a number", argument="tau", expected="a number in [0, 1]", got=tau)
    fb = fallback or d.fallbacks[0]
    if fb not in d.fallbacks:
        raise CAPInputError("unknown fallback judge", argument="fallback", expected=", ".join(d.fallbacks), got=fb)
    s = _scores(d, fb, np.array([float(tau)]))
    usd = float(s["usd_per_1000"][0])
    return {"tau": float(tau), "accuracy": float(s["accuracy"][0]), "deferral_pct": float(s["deferral_pct"][0]),
            "n_kept": int((d.conf >= tau).sum()), "usd_per_1000": None if np.isnan(usd) else usd}


def decomposition(d: CascadeData, tau: float, fallback: str | None = None) -> dict:
    """Where a cascade's gain comes from (Jev paper App. K, Table K2).

    Returns
    -------
    dict
        ``n``, ``n_kept``; accuracies in percent: ``cascade``, ``cheap``, ``fallback``,
        ``kept_cheap``, ``kept_fallback`` (on the kept items); ``cheap_only_kept`` and
        ``fallback_only_kept`` (item counts, position-averaged, where only that judge
        is right among kept items); ``gain_over_fallback`` and its upper ``bound``
        ``100 * cheap_only_kept / n`` (percentage points).
    """
    fb = fallback or d.fallbacks[0]
    c1, c2 = d.correct[d.cheap], d.correct[fb]
    keep = d.conf >= tau
    diff = c1 - c2
    casc = np.where(keep, c1, c2)
    out = {"n": d.n, "n_kept": int(keep.sum()), "cascade": 100 * casc.mean(), "cheap": 100 * c1.mean(),
            "fallback": 100 * c2.mean(),
            "kept_cheap": 100 * c1[keep].mean() if keep.any() else float("nan"),
            "kept_fallback": 100 * c2[keep].mean() if keep.any() else float("nan"),
            "cheap_only_kept": float(np.clip(diff[keep], 0, None).sum()),
            "fallback_only_kept": float(np.clip(-diff[keep], 0, None).sum()),
            "gain_over_fallback": 100 * diff[keep].sum() / d.n, "bound": 100 * np.clip(diff[keep], 0, None).sum() / d.n}
    return {k: (v if isinstance(v, (int, str)) else float(v)) for k, v in out.items()}


def _choose_on(d: CascadeData, idx: np.ndarray) -> tuple[str, float]:
    """Best (fallback, τ) by accuracy on the items ``idx``; ties go to the larger τ (fewer
    deferrals), then to the fallback listed first."""
    best = None
    for fb in d.fallbacks:
        t = _taus(d.conf)
        acc = _scores(d, fb, t, idx)["accuracy"]
        k = int(np.flatnonzero(acc >= acc.max() - 1e-12)[-1])
        if best is None or acc[k] > best[0] + 1e-12:
            best = (acc[k], fb, float(t[k]))
    return best[1], best[2]


def _evaluate_on(d: CascadeData, idx: np.ndarray, fb: str, tau: float) -> dict[str, float]:
    s = _scores(d, fb, np.array([tau]), idx)
    return {k: float(v[0]) for k, v in s.items()}


def oracle(d: CascadeData) -> dict:
    """τ and fallback chosen and scored on the same items: **optimistic** (App. K)."""
    idx = np.arange(d.n)
    fb, tau = _choose_on(d, idx)
    return {"fallback": fb, "tau": tau, **_evaluate_on(d, idx, fb, tau), "optimistic": True}


def split_halves(n_units: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Random halves of ``n_units`` base units (unit codes); the first half gets ``n_units // 2``."""
    perm = rng.permutation(n_units)
    return np.sort(perm[: n_units // 2]), np.sort(perm[n_units // 2:])


def cross_fit(d: CascadeData, *, n_splits: int = 50, seed: int = 0) -> pl.DataFrame:
    """Cross-fitted cascades: choose (fallback, τ) on one half of the base items, score on the other.

    Each seeded split is used in both directions. The best single judge (among the
    cheap judge and the fallbacks) is also picked on the choosing half, and the gain is
    the held-out difference.

    Returns
    -------
    polars.DataFrame
        One row per split and direction: ``split``, ``direction`` (1 or 2), ``fallback``,
        ``tau``, ``accuracy``, ``deferral_pct``, ``usd_per_1000`` (held-out half),
        ``best_single``, ``best_single_accuracy`` and ``gain`` (points; held-out).
        Summarise with mean and standard deviation.
    """
    if isinstance(n_splits, bool) or not isinstance(n_splits, int) or n_splits < 1:
        raise CAPInputError("n_splits must be a positive integer", argument="n_splits", got=n_splits)
    n_units = int(d.base.max()) + 1 if d.n else 0
    if n_units < 2:
        raise CAPInputError("cross-fitting needs at least two base items", got=n_units,
                            fix="use a benchmark with more items")
    rng, rows = np.random.default_rng(seed), []
    judges = [d.cheap, *d.fallbacks]
    for s in range(n_splits):
        h1, h2 = split_halves(n_units, rng)
        for direction, (a, b) in enumerate(((h1, h2), (h2, h1)), start=1):
            ia, ib = np.flatnonzero(np.isin(d.base, a)), np.flatnonzero(np.isin(d.base, b))
            fb, tau = _choose_on(d, ia)
            res = _evaluate_on(d, ib, fb, tau)
            single = max(judges, key=lambda j: d.correct[j][ia].mean())
            single_acc = 100 * d.correct[single][ib].mean()
            rows.append({"split": s, "direction": direction, "fallback": fb, "tau": tau, **res,
                         "best_single": single, "best_single_accuracy": single_acc,
                         "gain": res["accuracy"] - single_acc})
    return pl.DataFrame(rows).with_columns(pl.col("usd_per_1000").fill_nan(None))


def gain_ci(d: CascadeData, tau: float, fallback: str | None = None, *, n_resamples: int = 1000, seed: int = 0,
            level: float = 0.95) -> dict:
    """Cascade minus best single judge (on all shared items), bootstrapped over base items.

    Both are scored on the same resample, so replicate ``r`` of the gain is the
    difference on resample ``r``.

    Returns
    -------
    dict
        ``best_single``, ``gain`` (points), ``ci_low``, ``ci_high`` (percentile interval
        of :func:`cap_core.bootstrap.base_ratios` over base items).
    """
    fb = fallback or d.fallbacks[0]
    judges = [d.cheap, *d.fallbacks]
    best = max(judges, key=lambda j: d.correct[j].mean())
    casc = np.where(d.conf >= tau, d.correct[d.cheap], d.correct[fb])
    diff = casc - d.correct[best]
    reps = 100 * base_ratios(d.base, diff, n_resamples=n_resamples, seed=seed).replicates[:, 0]
    lo, hi = percentile_interval(reps, level)
    return {"best_single": best, "gain": float(100 * diff.mean()), "ci_low": float(lo), "ci_high": float(hi)}
