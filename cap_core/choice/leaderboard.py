"""The leaderboard of one benchmark under application weights, and how sure it is.

Rules (CAP §5 application-conditional choice; §3 shared-resample bootstrap):

* Filters (:mod:`cap_core.choice.filters`) remove judges first; everything below is
  computed over the judges that remain (P(best) is among them).
* Weighted score, its interval and P(best): :func:`cap_core.profile.weights.weighted_score_draws`
  (the one weighting rule).
* Leader: the highest weighted score (ties: the higher P(best), then the first listed).
* Paired difference of every other judge from the leader, replicate by replicate on the
  shared bootstrap resamples (so the difference has its own percentile interval).
  Two-sided bootstrap p-value of :func:`cap_core.analyses.judge_comparison.bootstrap_p`
  (``min(1, 2 min((#{d<=0}+1)/(B+1), (#{d>=0}+1)/(B+1)))`` with ``d`` the
  leader-minus-judge replicates, resolved past the ``2/(B+1)`` floor by the replicates'
  normal tail, so separation is never limited by the resample count). The difference
  intervals are the unadjusted percentile intervals at ``level``. Every pair of scored
  judges is tested this way, and Holm's step-down correction (as
  ``statsmodels.stats.multitest.multipletests(method="holm")`` computes it; see
  :func:`cap_core.analyses.judge_comparison.holm`) runs across all ``k(k-1)/2`` pairs at
  ``alpha = 1 - level``: one family, so the leader's comparisons and the rank ranges never
  disagree. A judge whose Holm-adjusted p against the leader is not below alpha is **not
  separable** from the leader. Published judges are drawn from normal approximations of
  their printed intervals (independent draws, so their difference is unpaired) and stay
  marked (``published``).
* Rank range (as arena leaderboards show it): ``rank_best`` = 1 + the number of judges
  separably above the judge, ``rank_worst`` = k − the number separably below it, from the
  same Holm family. Judges that cannot be told apart share their ranges; ``rank`` is the
  order by score.
* ``n_items``: the units of the judge's ``overall`` row when present, else the largest
  ``n_items`` among the conditions that entered the score.
* The sentence never claims more than the intervals allow: the leader "has the highest
  weighted score"; judges not separable are named; only a leader separable from all is
  said to be ahead. On fewer than :data:`cap_core.profile.small_cells.SMALL_CELL_BASE_ITEMS`
  items the percentile intervals are optimistic (CAP App. I: small cells), so the sentence
  says the separation is provisional.
* ``paired=False`` (judges scored each on its own, different, items): the replicate-by-replicate
  differences still share the resampled base items but not the items judged, so the sentence,
  the sample-size estimate and the report say "bootstrap over each judge's own items", never
  "paired", and name no common item count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import polars as pl

from cap_core.analyses.judge_comparison import bootstrap_p_columns, holm
from cap_core.bootstrap import percentile_interval
from cap_core.choice.filters import Filter, apply_filters
from cap_core.choice.sample_size import (
    items_for_parity,
    items_to_separate,
    more_items,
    per_item_variance,
)
from cap_core.errors import CAPInputError
from cap_core.profile.small_cells import SMALL_CELL_BASE_ITEMS
from cap_core.profile.weights import ScoreBasis, check_weights
from cap_core.schema import CONDITION_IDS

__all__ = ["LEADERBOARD_SCHEMA", "Choice", "choose", "Ranking", "condition_ranges", "HOLM", "PARITY_MARGIN"]

#: Name of the multiple-comparison correction, as shown to the user.
HOLM = "Holm"
#: Parity margin of the sample-size estimate (points).
PARITY_MARGIN = 5.0
POWER = 0.8

LEADERBOARD_SCHEMA: dict[str, pl.DataType] = {
    "rank": pl.Int64,
    "rank_best": pl.Int64,
    "rank_worst": pl.Int64,
    "judge": pl.String,
    "benchmark": pl.String,
    "subset": pl.String,
    "source": pl.String,
    "published": pl.Boolean,
    "score": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "p_best": pl.Float64,
    "n_items": pl.Int64,
    "conditions_used": pl.List(pl.String),
    "renormalised": pl.Boolean,
    "method": pl.String,
    "diff_vs_leader": pl.Float64,
    "diff_ci_low": pl.Float64,
    "diff_ci_high": pl.Float64,
    "p_value": pl.Float64,
    "p_holm": pl.Float64,
    "separable": pl.Boolean,
    "usd_per_1000": pl.Float64,
    "cost_basis": pl.String,
    "median_latency_s": pl.Float64,
    "note": pl.String,
}


@dataclass(frozen=True)
class Choice:
    """Output of :func:`choose`.

    Attributes
    ----------
    leaderboard : polars.DataFrame
        :data:`LEADERBOARD_SCHEMA`, ranked (rank 1 = leader; judges without a score last,
        rank null). Scores, intervals and differences in percent / points; ``separable``
        null for the leader and for judges without a score.
    filtered : polars.DataFrame
        Judges removed by the filters (:data:`cap_core.choice.filters.FILTERED_SCHEMA`).
    weights : dict
        The weights in force, C1..C8.
    unmeasured : list of str
        Positively weighted conditions that no remaining judge has.
    not_separable : list of tuple
        ``(judge, subset, source)`` of the judges not separable from the leader.
    sentence : str
        The answer in one plain sentence.
    sample_size : dict
        For the top two: ``n_items``, ``diff``, ``sigma2`` (points² per item),
        ``items_to_separate``, ``more_to_separate``, ``items_for_parity``, ``more_for_parity``
        (items; inf when unreachable), ``level``, ``power``, ``margin``, ``paired`` (bool: the
        two were scored on the same items), ``small`` (bool: fewer than
        :data:`SMALL_CELL_BASE_ITEMS` items, so the variance is rough); empty with fewer than
        two scored judges.
    correction : str
        ``"Holm"``.
    level : float
    paired : bool
        The judges were scored on the same items (False: each on its own items).
    """

    leaderboard: pl.DataFrame
    filtered: pl.DataFrame
    weights: dict[str, float]
    unmeasured: list[str]
    not_separable: list[tuple[str, str, str]]
    sentence: str
    sample_size: dict = field(default_factory=dict)
    correction: str = HOLM
    level: float = 0.95
    paired: bool = True


def condition_ranges(conds: list[str]) -> str:
    """``["C3", "C4", "C5", "C6", "C8"]`` -> ``"C3–C6, C8"`` (CAP ids in order)."""
    idx = sorted(CONDITION_IDS.index(c) for c in conds if c in CONDITION_IDS)
    runs, out = [], []
    for i in idx:
        if runs and i == runs[-1][-1] + 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    for r in runs:
        a, b = CONDITION_IDS[r[0]], CONDITION_IDS[r[-1]]
        out.append(a if len(r) == 1 else (f"{a}, {b}" if len(r) == 2 else f"{a}–{b}"))
    return ", ".join(out)


def _display(judge: str, subset: str | None, source: str | None) -> str:
    if (source or "computed") == "computed":
        return judge if subset in (None, "", "all") else f"{judge} [{subset}]"
    return f"{judge} (published, {source.split(':', 1)[-1].strip()}, {subset or 'all'})"


def _item_counts(kept: pl.DataFrame) -> dict[tuple, tuple[int | None, list[tuple[str, int]]]]:
    """Per ``(judge, subset, source)``: the ``n_items`` of its primary ``overall`` row (None without
    one) and ``(condition, n_items)`` of its other primary rows: what ``n_items`` of a leaderboard
    row is read from (module notes), gathered once per profile."""
    out: dict[tuple, tuple[int | None, list[tuple[str, int]]]] = {}
    prim = kept.filter(pl.col("primary")).select(
        "judge", pl.col("subset").fill_null("all"), pl.col("source").fill_null("computed"), "condition", "n_items")
    for j, s, src, cond, n in prim.iter_rows():
        ov, per = out.setdefault((j, s, src), (None, []))
        if n is None:
            continue
        if cond == "overall":
            if ov is None:
                out[(j, s, src)] = (int(n), per)
        else:
            per.append((cond, int(n)))
    return out


def _n_items(counts: dict, key: tuple, used: list[str] | None) -> int | None:
    ov, per = counts.get(key, (None, []))
    if ov is not None:
        return ov
    n = [m for c, m in per if c in set(used or [])]
    return max(n) if n else None


def choose(
    profile: pl.DataFrame,
    replicates: np.ndarray | None,
    weights: Mapping[str, float],
    *,
    filters: tuple[Filter, ...] | list[Filter] = (),
    costs: pl.DataFrame | None = None,
    level: float = 0.95,
    seed: int = 0,
    names: Mapping[tuple[str, str, str], str] | None = None,
    paired: bool = True,
) -> Choice:
    """Rank the judges of one benchmark under ``weights`` (module rules).

    Parameters
    ----------
    profile : polars.DataFrame
        PROFILE_SCHEMA rows (percent) of **one** benchmark; computed and published rows may mix.
    replicates : numpy.ndarray or None
        Shape ``(n_resamples, profile.height)``, percent, as from ``compute_profile`` (NaN
        columns for published rows).
    weights : mapping
        Condition weights (:func:`cap_core.profile.weights.check_weights`).
    filters : sequence of Filter
        Per-condition minimums (:func:`cap_core.choice.filters.parse_filters`).
    costs : polars.DataFrame, optional
        :data:`cap_core.choice.costs.COST_SCHEMA` (joined on ``judge`` for computed entries).
    level : float
        Interval level and ``1 - alpha`` of the Holm correction.
    seed : int
        Seed of the normal draws of published rows.
    names : mapping, optional
        Display name of each ``(judge, subset, source)`` for the sentence (default: the judge
        id, published ones marked).
    paired : bool
        The computed judges were scored on the same items (False when each was scored on its
        own, different, items: module notes).

    Returns
    -------
    Choice

    Raises
    ------
    CAPInputError
        Several benchmarks in ``profile``; bad weights; replicates of the wrong shape.
    """
    check_weights(weights)
    return Ranking(profile, replicates, filters=filters, costs=costs, level=level, seed=seed,
                   paired=paired).rank(weights, names=names)


class Ranking:
    """The part of :func:`choose` that does not depend on the weights, kept for a weight change.

    ``Ranking(profile, replicates, filters=, costs=, level=, seed=, paired=)`` applies the filters,
    checks the replicates and gathers what every ranking reads (the judges' measured
    conditions and replicate columns: :class:`cap_core.profile.weights.ScoreBasis`; their item
    counts and costs). :meth:`rank` is then :func:`choose` under some weights, value for value.

    Raises
    ------
    CAPInputError
        Several benchmarks in ``profile``; replicates of the wrong shape.
    """

    def __init__(self, profile: pl.DataFrame, replicates: np.ndarray | None, *,
                 filters: tuple[Filter, ...] | list[Filter] = (), costs: pl.DataFrame | None = None,
                 level: float = 0.95, seed: int = 0, paired: bool = True):
        benches = profile["benchmark"].unique().to_list() if profile.height else []
        if len(benches) > 1:
            raise CAPInputError("a leaderboard ranks the judges of one benchmark", argument="profile",
                                expected="rows of one benchmark", got=sorted(benches),
                                fix="filter the profile to one benchmark first")
        kept, self.filtered = apply_filters(profile, tuple(filters))
        reps = None
        if replicates is not None:
            replicates = np.asarray(replicates, dtype=np.float64)
            if replicates.ndim != 2 or replicates.shape[1] != profile.height:
                raise CAPInputError("`replicates` must have shape (n_resamples, profile.height)",
                                    argument="replicates", expected=f"(n, {profile.height})", got=replicates.shape)
            reps = replicates[:, kept["_row"].to_numpy()]
        self.kept = kept.drop("_row")
        self.level, self.seed, self.paired = level, seed, bool(paired)
        self.basis = ScoreBasis(self.kept, reps, level=level) if self.kept.height else None
        self.counts = _item_counts(self.kept)
        self.cost_of = {r["judge"]: r for r in costs.iter_rows(named=True)} if costs is not None and costs.height \
            else {}

    def rank(self, weights: Mapping[str, float], *,
             names: Mapping[tuple[str, str, str], str] | None = None) -> Choice:
        """:func:`choose` of the profile under ``weights`` (CAPInputError for bad weights)."""
        w = check_weights(weights)
        level, filtered = self.level, self.filtered
        if self.basis is None:
            board = pl.DataFrame(schema=LEADERBOARD_SCHEMA)
            weighted = [c for c in CONDITION_IDS if w[c] > 0]
            sentence = ("Every judge was filtered out by the condition minimums; no leaderboard."
                        if filtered.height else "No judge to rank on this benchmark.")
            return Choice(board, filtered, w, weighted, [], sentence, level=level, paired=self.paired)
        frame, draws = self.basis.draws(w, seed=self.seed)
        frame = frame.with_columns(pl.col("subset").fill_null("all"), pl.col("source").fill_null("computed"))
        keys = list(zip(frame["judge"], frame["subset"], frame["source"]))
        score, p_best = frame["score"].to_list(), frame["p_best"].to_list()
        scored = [i for i in range(frame.height) if score[i] is not None]
        scored.sort(key=lambda i: (-score[i], -(p_best[i] or 0.0), i))
        in_scored = set(scored)
        order = scored + [i for i in range(frame.height) if i not in in_scored]
        alpha = 1 - level
        diffs: dict[int, tuple] = {}
        leader = scored[0] if scored else None
        # every pair of scored judges (higher score first), one Holm family: leader comparisons and rank ranges
        pairs = [(a, b) for x, a in enumerate(scored) for b in scored[x + 1:]]
        d_pairs = draws[:, [a for a, _ in pairs]] - draws[:, [b for _, b in pairs]]
        p_pair = bootstrap_p_columns(d_pairs).tolist()
        adj, rej = holm(p_pair, alpha)
        above = {i: 0 for i in scored}
        below = {i: 0 for i in scored}
        for (a, b), r in zip(pairs, rej):
            if r:
                above[b] += 1
                below[a] += 1
        if leader is not None:
            at = [k for k, (a, _) in enumerate(pairs) if a == leader]
            lows, highs = _diff_intervals(d_pairs[:, at], level)
            for k, lo, hi in zip(at, lows, highs):
                b = pairs[k][1]
                diffs[b] = [score[leader] - score[b], lo, hi, p_pair[k], adj[k], rej[k]]
        rows = []
        for rank, i in enumerate(order, start=1):
            r = frame.row(i, named=True)
            has = r["score"] is not None
            d = diffs.get(i)
            c = self.cost_of.get(r["judge"]) if r["source"] == "computed" else None
            rows.append({
                "rank": rank if has else None, "rank_best": 1 + above[i] if has else None,
                "rank_worst": len(scored) - below[i] if has else None, "judge": r["judge"],
                "benchmark": r["benchmark"], "subset": r["subset"],
                "source": r["source"], "published": r["source"] != "computed", "score": r["score"],
                "ci_low": r["ci_low"], "ci_high": r["ci_high"], "p_best": r["p_best"],
                "n_items": _n_items(self.counts, keys[i], r["conditions_used"]),
                "conditions_used": r["conditions_used"],
                "renormalised": r["renormalised"], "method": r["method"],
                "diff_vs_leader": (0.0 if i == leader else (d[0] if d else None)),
                "diff_ci_low": d[1] if d else None, "diff_ci_high": d[2] if d else None,
                "p_value": d[3] if d else None, "p_holm": d[4] if d else None,
                "separable": d[5] if d else None,
                "usd_per_1000": c["usd_per_1000"] if c else None, "cost_basis": c["cost_basis"] if c else None,
                "median_latency_s": c["median_latency_s"] if c else None, "note": r["note"] or "",
            })
        board = pl.DataFrame(rows, schema=LEADERBOARD_SCHEMA)
        weighted = [c for c in CONDITION_IDS if w[c] > 0]
        used = {c for s in frame["conditions_used"].to_list() for c in (s or [])}
        unmeasured = [c for c in weighted if c not in used]
        not_sep = [keys[i] for i in scored[1:] if not diffs[i][5]]
        sizes = _sample_size(draws, frame, scored, level) if len(scored) >= 2 else {}
        if sizes:
            sizes["n_items"] = board["n_items"][0] or 0
            sizes["paired"] = self.paired
            sizes["small"] = sizes["n_items"] < SMALL_CELL_BASE_ITEMS
            _finish_sizes(sizes)
        name = (lambda k: names.get(k, _display(*k))) if names else (lambda k: _display(*k))
        pub = any(board["published"].to_list()[: len(scored)])
        sentence = _sentence(board, keys, scored, not_sep, unmeasured, filtered, name, level, pub, self.paired)
        return Choice(board, filtered, w, unmeasured, not_sep, sentence, sizes, HOLM, level, self.paired)


def _diff_intervals(d: np.ndarray, level: float) -> tuple[list[float], list[float]]:
    """Percentile interval of each column of ``d`` on its finite replicates (NaN for a column without
    one); columns are independent, so the bounds are those of each column alone."""
    m = d.shape[1]
    lows, highs = [math.nan] * m, [math.nan] * m
    finite = np.isfinite(d)
    whole = np.flatnonzero(finite.all(axis=0))
    if whole.size:
        lo, hi = percentile_interval(d[:, whole], level=level)
        for k, a, b in zip(whole.tolist(), lo.tolist(), hi.tolist()):
            lows[k], highs[k] = float(a), float(b)
    for k in np.flatnonzero(~finite.all(axis=0)).tolist():
        if finite[:, k].any():
            lo, hi = percentile_interval(d[finite[:, k], k][:, None], level=level)
            lows[k], highs[k] = float(np.ravel(lo)[0]), float(np.ravel(hi)[0])
    return lows, highs


def _sample_size(draws, frame, scored, level) -> dict:
    a, b = scored[0], scored[1]
    d = draws[:, a] - draws[:, b]
    return {"diff": float(frame["score"][a] - frame["score"][b]), "_d": d, "level": level, "power": POWER,
            "margin": PARITY_MARGIN}


def _finish_sizes(s: dict) -> None:
    n = int(s["n_items"])
    s["sigma2"] = per_item_variance(s.pop("_d"), n) if n else math.nan
    if not math.isfinite(s["sigma2"]):
        s.update(items_to_separate=math.inf, more_to_separate=math.inf, items_for_parity=math.inf,
                 more_for_parity=math.inf)
        return
    sep = items_to_separate(s["sigma2"], s["diff"], s["level"], s["power"])
    par = items_for_parity(s["sigma2"], s["margin"], s["level"], s["power"], true_diff=s["diff"])
    s.update(items_to_separate=sep, more_to_separate=more_items(sep, n), items_for_parity=par,
             more_for_parity=more_items(par, n))


def _sentence(board, keys, scored, not_sep, unmeasured, filtered, name, level, published=False,
              paired=True) -> str:
    pct = f"{round(level * 100):d}%"
    how = "paired bootstrap" if paired else "bootstrap over each judge's own items"
    if published:
        how = ("bootstrap differences, normal approximation for published judges" if paired
               else f"{how}, normal approximation for published judges")
    if not scored:
        text = "No judge has a score under these weights: none has a weighted condition measured"
    else:
        lead = board.row(0, named=True)
        top = name(keys[scored[0]])
        n = lead["n_items"]
        on = (f" on these {n} items" if n else "") if paired else " (each scored on its own items)"
        if len(scored) == 1:
            text = f"For these weights {top} is the only judge with a score ({lead['score']:.1f})"
        elif not not_sep:
            text = (f"For these weights {top} leads (P(best) {lead['p_best']:.2f}) and is ahead of every other judge"
                    f"{on} ({how}, {HOLM}-corrected, {pct})")
        else:
            tied = [name(k) for k in not_sep]
            listed = tied[0] if len(tied) == 1 else ", ".join(tied[:-1]) + " and " + tied[-1]
            verb = "is" if len(tied) == 1 else "are"
            text = (f"For these weights {top} has the highest score (P(best) {lead['p_best']:.2f}); {listed} {verb} "
                    f"not separable from it{on} ({how}, {HOLM}-corrected, {pct})")
        if len(scored) > 1 and n and n < SMALL_CELL_BASE_ITEMS:
            text += (f"; with only {n} items (fewer than {SMALL_CELL_BASE_ITEMS}) the intervals are optimistic, "
                     "so read this ranking as provisional")
    if unmeasured:
        verb = "is" if len(unmeasured) == 1 else "are"
        text += f"; {condition_ranges(unmeasured)} {verb} not measured on this benchmark"
    if filtered.height:
        k = filtered.select("judge", "subset", "source").unique().height
        text += f"; {k} judge{'s' if k != 1 else ''} filtered out by the condition minimums"
    return text + "."
