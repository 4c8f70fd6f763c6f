"""Application-weighted judge scores over a CAP profile.

A practitioner weighs the eight conditions by how much each matters in the intended
deployment (CAP §5: "judge choice should then be conditional"). For one judge on one
benchmark the weighted score is

    score = sum_{c available} w_c * v_c / sum_{c available} w_c

where ``v_c`` is the judge's primary value of condition ``c`` (percent) and the sums
run only over the conditions the judge actually has. Weights are relative (``C1=2,C7=4``
is ``C1=1,C7=2``): they are divided by their largest value before they are summed, so
any finite weights, 1e308 included, give the scores of their ratios. A missing condition is never
read as zero: the weights are renormalised over what is present and the result says
so (``renormalised``).

Uncertainty comes from the bootstrap replicates of :func:`cap_core.profile.conditions.compute_profile`
(replicate ``r`` of every row of one benchmark is the same resample of base items, so
the weighted scores of different judges are comparable replicate by replicate). Published
profiles carry only a printed 95% interval; for them each condition is drawn from a normal
distribution with sd = (ci_high - ci_low) / (2 * 1.959964), clipped to 0-100, and the
method is labelled accordingly.

Higher scores are better (percent, 0-100).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping

import numpy as np
import polars as pl

from cap_core.errors import CAPInputError
from cap_core.profile.presets import PRESETS
from cap_core.schema import CONDITION_IDS

__all__ = ["PRESETS", "WEIGHTED_SCHEMA", "METHOD_BOOTSTRAP", "METHOD_NORMAL", "weighted_scores", "weighted_score_draws",
           "ScoreBasis", "check_weights", "weight_shares"]

METHOD_BOOTSTRAP = "bootstrap"
METHOD_NORMAL = "normal approximation from published CIs"
_Z975 = 1.959963984540054  # scipy.stats.norm.ppf(0.975)


WEIGHTED_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String,
    "benchmark": pl.String,
    "subset": pl.String,
    "source": pl.String,
    "score": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "p_best": pl.Float64,
    "conditions_used": pl.List(pl.String),
    "renormalised": pl.Boolean,
    "method": pl.String,
    "note": pl.String,
}

_KEY = ["judge", "benchmark", "subset", "source"]
_NEEDED = ("judge", "benchmark", "subset", "condition", "value", "ci_low", "ci_high", "primary", "source")


def check_weights(weights: Mapping[str, float]) -> dict[str, float]:
    """Validate condition weights and return them for all of C1..C8 (absent -> 0).

    Raises
    ------
    CAPInputError
        Not a mapping, unknown condition id, a weight that is not a finite
        non-negative number, or all weights zero.
    """
    if not isinstance(weights, Mapping):
        raise CAPInputError(
            "`weights` must be a mapping from condition id to weight",
            argument="weights",
            expected="a dict such as {'C1': 1.0, 'C8': 1.0}",
            got=type(weights).__name__,
        )
    out = {c: 0.0 for c in CONDITION_IDS}
    for key, w in weights.items():
        if key not in out:
            raise CAPInputError(
                "unknown condition id in `weights`",
                argument="weights",
                expected="one of " + ", ".join(CONDITION_IDS),
                got=key,
                fix="use the CAP Table 1 ids C1..C8",
            )
        if isinstance(w, bool) or not isinstance(w, (int, float, np.integer, np.floating)) or not math.isfinite(w) or w < 0:
            raise CAPInputError(
                f"weight of {key} must be a finite non-negative number",
                argument="weights",
                expected="a number >= 0",
                got=w,
                fix="set the weight to 0 to ignore a condition",
            )
        out[key] = float(w)
    if sum(out.values()) <= 0:
        raise CAPInputError(
            "all condition weights in `weights` are zero",
            argument="weights",
            expected="at least one positive weight",
            got=", ".join(f"{c} {w:g}" for c, w in out.items()),
            fix="raise the weight of the conditions that matter in your application",
        )
    return out


def _basis_iv(profile, replicates, level, n_draws):
    if not isinstance(profile, pl.DataFrame):
        raise CAPInputError("`profile` must be a polars DataFrame", expected="PROFILE_SCHEMA frame", got=type(profile).__name__)
    missing = [c for c in _NEEDED if c not in profile.columns]
    if missing:
        raise CAPInputError(
            "`profile` lacks profile columns",
            column=missing[0],
            expected=", ".join(_NEEDED),
            got=sorted(profile.columns),
            fix="pass the profile frame of compute_profile or load_published_profiles",
        )
    if replicates is not None:
        replicates = np.asarray(replicates, dtype=np.float64)
        if replicates.ndim != 2 or replicates.shape[1] != profile.height:
            raise CAPInputError(
                "`replicates` must have shape (n_resamples, profile.height)",
                argument="replicates",
                expected=f"(n, {profile.height})",
                got=replicates.shape,
            )
    if not (isinstance(level, float) and 0 < level < 1):
        raise CAPInputError("`level` must be a float strictly between 0 and 1", expected="e.g. 0.95", got=level)
    if isinstance(n_draws, bool) or not isinstance(n_draws, int) or n_draws < 1:
        raise CAPInputError("`n_draws` must be a positive integer", expected="e.g. 2000", got=n_draws)
    return replicates


def weighted_scores(
    profile: pl.DataFrame,
    replicates: np.ndarray | None,
    weights: Mapping[str, float],
    *,
    seed: int = 0,
    level: float = 0.95,
    n_draws: int = 2000,
) -> pl.DataFrame:
    """Weighted score, interval and probability of being best, per judge.

    The frame of :func:`weighted_score_draws` (same arguments, same result), without the draws.
    """
    return weighted_score_draws(profile, replicates, weights, seed=seed, level=level, n_draws=n_draws)[0]


def weighted_score_draws(
    profile: pl.DataFrame,
    replicates: np.ndarray | None,
    weights: Mapping[str, float],
    *,
    seed: int = 0,
    level: float = 0.95,
    n_draws: int = 2000,
) -> tuple[pl.DataFrame, np.ndarray]:
    """Weighted score, interval and probability of being best, per judge, and the score draws.

    Parameters
    ----------
    profile : polars.DataFrame
        Rows in :data:`cap_core.schema.PROFILE_SCHEMA` (percent). Only rows with
        ``primary`` true, a condition in C1..C8 and a non-null ``value`` are used.
        Computed and published rows may be mixed.
    replicates : numpy.ndarray of shape (n_resamples, profile.height) or None
        Bootstrap replicates in percent (NaN where a row has none). A row with a
        non-NaN replicate column uses it; any other row (published ones) is drawn
        from a normal distribution fitted to its CI.
    weights : mapping of str to float
        Non-negative weight per condition id; absent ids weigh 0 (see :data:`PRESETS`).
    seed : int, default 0
        Seed of the normal draws (the bootstrap replicates carry their own seed).
    level : float, default 0.95
        Level of the percentile interval of the score.
    n_draws : int, default 2000
        Number of normal draws when no row has bootstrap replicates; otherwise the
        number of bootstrap replicates is used so all judges share one index.

    Returns
    -------
    polars.DataFrame
        One row per (judge, benchmark, subset, source), columns of
        :data:`WEIGHTED_SCHEMA`: ``score``, ``ci_low``, ``ci_high`` in percent
        (null when the judge has none of the weighted conditions); ``p_best`` the
        share of replicates (draws) in which the judge has the highest score among
        the judges of the same benchmark in ``profile`` (ties split evenly; sums to 1
        per benchmark); ``conditions_used`` (List of String) the weighted conditions the judge
        has, e.g. ``["C1", "C8"]``; ``renormalised`` true
        when a positively weighted condition is missing for the judge; ``method``
        ``"bootstrap"`` or ``"normal approximation from published CIs"``; ``note``
        a sentence for the user. Sorted by benchmark, then score descending.
    numpy.ndarray
        Shape ``(n_draws_used, frame.height)``: column ``k`` holds the score draws of
        frame row ``k`` (percent; NaN for a row without a score). Within a benchmark,
        bootstrap draws of different judges share the resample index, so the
        replicate-wise difference of two columns is a bootstrap replicate of the score
        difference (CAP §3; for published rows the normal draws are independent).

    Raises
    ------
    CAPInputError
        Bad weights (unknown id, negative, not finite, all zero), a profile without
        the profile columns, or replicates of the wrong shape.

    References
    ----------
    CAP (arXiv:2610.09229) §5 (application-conditional judge choice), §3 (bootstrap CIs).
    """
    return ScoreBasis(profile, replicates, level=level, n_draws=n_draws).draws(weights, seed=seed)


@dataclass(frozen=True)
class _Entry:
    """One judge (``key``: judge, benchmark, subset, source) and its measured primary conditions, in
    condition order: values, bootstrap flags, printed CI bounds and the replicate columns (NaN
    replicates replaced by the value; columns of rows without replicates unused)."""

    key: tuple
    conds: tuple[str, ...]
    values: np.ndarray
    boot: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    reps: np.ndarray


class ScoreBasis:
    """Everything :func:`weighted_score_draws` reads of a profile, whatever the weights.

    Built once per profile (the selection of primary measured rows, their grouping by judge and
    their replicate columns); :meth:`draws` then only weighs them, so a weight change costs a few
    small products per judge. ``ScoreBasis(profile, replicates, level=, n_draws=).draws(weights,
    seed=)`` is :func:`weighted_score_draws` (the one weighting rule), value for value.

    Raises
    ------
    CAPInputError
        As :func:`weighted_score_draws` for the profile, replicates, ``level`` and ``n_draws``.
    """

    def __init__(self, profile: pl.DataFrame, replicates: np.ndarray | None, *, level: float = 0.95,
                 n_draws: int = 2000):
        replicates = _basis_iv(profile, replicates, level, n_draws)
        rows = (
            profile.with_row_index("_row")
            .filter(pl.col("primary") & pl.col("condition").is_in(list(CONDITION_IDS)) & pl.col("value").is_not_null())
            .with_columns(pl.col("subset").fill_null("all"), pl.col("source").fill_null("computed"))
        )
        has_boot = np.zeros(profile.height, dtype=bool)
        if replicates is not None:
            has_boot = ~np.all(np.isnan(replicates), axis=0)
        self.n_rep = replicates.shape[0] if replicates is not None and has_boot.any() else n_draws
        self.level = level
        self.entries: list[_Entry] = []
        for key, grp in rows.sort(_KEY + ["condition"]).group_by(_KEY, maintain_order=True):
            values = grp["value"].to_numpy()
            idx = grp["_row"].to_numpy()
            boot = has_boot[idx]
            reps = np.zeros((self.n_rep, values.size))
            if boot.any():
                rep = replicates[:, idx[boot]]
                reps[:, boot] = np.where(np.isnan(rep), values[boot], rep)
            self.entries.append(_Entry(tuple(key), tuple(grp["condition"].to_list()), values, boot,
                                       grp["ci_low"].to_numpy(), grp["ci_high"].to_numpy(), reps))

    def draws(self, weights: Mapping[str, float], *, seed: int = 0) -> tuple[pl.DataFrame, np.ndarray]:
        """:func:`weighted_score_draws` of the profile under ``weights`` (normal draws of published rows
        seeded by ``seed``). Raises CAPInputError for bad weights."""
        w = check_weights(weights)
        n_rep = self.n_rep
        rng = np.random.default_rng(seed)
        alpha = (1 - self.level) / 2
        weighted = [c for c in CONDITION_IDS if w[c] > 0]
        out, draws_by_bench = [], {}
        for e in self.entries:
            rec = dict(zip(_KEY, e.key))
            pick = [k for k, c in enumerate(e.conds) if w[c] > 0]
            conds = [e.conds[k] for k in pick]
            lacking = [c for c in weighted if c not in conds]
            rec.update(conditions_used=list(conds), renormalised=bool(lacking and conds))
            if not conds:
                rec.update(score=None, ci_low=None, ci_high=None, p_best=None, method=None,
                           note="has none of the weighted conditions (" + ", ".join(weighted) + "); no score")
                out.append(rec)
                continue
            shares = weight_shares(w, conds)
            wv = np.array([shares[c] for c in conds])
            values, boot = e.values[pick], e.boot[pick]
            sims = np.empty((n_rep, len(conds)))
            notes = []
            if boot.any():
                sims[:, boot] = e.reps[:, np.asarray(pick)[boot]]
            if (~boot).any():
                lo, hi = e.lo[pick][~boot], e.hi[pick][~boot]
                sd = np.where(np.isnan(lo) | np.isnan(hi), 0.0, (hi - lo) / (2 * _Z975))
                no_ci = [c for c, s in zip(np.array(conds)[~boot], np.isnan(lo) | np.isnan(hi)) if s]
                if no_ci:
                    notes.append("no CI for " + ", ".join(no_ci) + " (held fixed)")
                sims[:, ~boot] = np.clip(rng.normal(values[~boot], sd, size=(n_rep, int((~boot).sum()))), 0, 100)
            score_draws = sims @ wv
            rec.update(score=float(values @ wv), method=METHOD_BOOTSTRAP if boot.all() else METHOD_NORMAL)
            if lacking:
                notes.insert(0, "lacks " + ", ".join(lacking) + "; weights renormalised over " + ", ".join(conds))
            rec["note"] = "; ".join(notes)
            draws_by_bench.setdefault(rec["benchmark"], []).append((len(out), score_draws))
            out.append(rec)
        scored = [(pos, d) for members in draws_by_bench.values() for pos, d in members]
        if scored:  # every score's percentile interval in one call (columns are independent)
            lo_q, hi_q = np.quantile(np.column_stack([d for _, d in scored]), [alpha, 1 - alpha], axis=0)
            for (pos, _), lo, hi in zip(scored, lo_q.tolist(), hi_q.tolist()):
                out[pos].update(ci_low=float(lo), ci_high=float(hi))
        for members in draws_by_bench.values():
            mat = np.column_stack([d for _, d in members])
            best = mat == mat.max(axis=1, keepdims=True)
            share = (best / best.sum(axis=1, keepdims=True)).mean(axis=0)
            for (pos, _), p in zip(members, share):
                out[pos]["p_best"] = float(p)
        draws = np.full((n_rep, len(out)), np.nan)
        for members in draws_by_bench.values():
            for pos, d in members:
                draws[:, pos] = d
        if not out:
            return pl.DataFrame(schema=WEIGHTED_SCHEMA), draws
        # by benchmark, then score descending (NaN first, as polars sorts it; no score last), ties as listed
        order = sorted(range(len(out)), key=lambda i: _sort_key(out[i]))
        frame = pl.DataFrame([out[i] for i in order], schema=WEIGHTED_SCHEMA)
        return frame, draws[:, order]


def _sort_key(rec: dict) -> tuple:
    score, bench = rec["score"], (rec["benchmark"] is None, rec["benchmark"] or "")
    if score is None:
        return (bench, 1, 0.0)
    return (bench, 0, -math.inf if math.isnan(score) else -score)


def weight_shares(weights: Mapping[str, float], conditions) -> dict[str, float]:
    """The weights in force over ``conditions``: each one's share of their total, C1..C8 (0 elsewhere).

    The one renormalisation rule of a weighted score (module notes): the requested weights of
    the conditions a judge has (or a leaderboard measures), divided by their sum, so the shares
    sum to 1 (0 for every condition when none of them is positively weighted). Weights are
    relative: they are scaled by their largest value first, so 1e308 and 1 give the same shares.

    Parameters
    ----------
    weights : mapping of str to float
        Requested weights (finite, >= 0; :func:`check_weights`).
    conditions : iterable of str
        The conditions that count (e.g. a leaderboard row's ``conditions_used``).

    Returns
    -------
    dict of str to float
        Shares (fractions 0-1) for C1..C8.
    """
    on = {c: float(weights.get(c, 0.0)) for c in conditions if c in CONDITION_IDS and weights.get(c, 0.0) > 0}
    out = {c: 0.0 for c in CONDITION_IDS}
    if not on:
        return out
    top = max(on.values())
    scaled = {c: w / top for c, w in on.items()}
    total = sum(scaled.values())
    out.update({c: w / total for c, w in scaled.items()})
    return out
