"""The judge choice of one benchmark, end to end: the one pipeline the CLI, the notebook API and the dashboard call.

Two steps, so that a caller can keep the expensive one:

* :func:`prepare_choice` (weights play no part): the profile of the chosen judges on the
  items they are compared on, the published rows beside it, the judges' costs, and the
  settings actually used (resamples, seed, level, failure rule, item set, fingerprint).
* :func:`rank_judges`: the leaderboard under weights and minimums
  (:func:`cap_core.choice.leaderboard.choose`) and the two export tables that reproduce it
  (:mod:`cap_core.choice.exports`), carrying the settings of the first step.

:func:`run_choice` is both in one call.

Which items judges are compared on (``items``): judges that covered different items cannot
be ranked fairly on their own items (one may have had the easy half), so by default
(``"shared"``) every score, interval, paired difference, P(best) and Holm test is computed
on the items **all** of the chosen judges received (:func:`cap_core.verdicts.shared_items`);
``"own"`` scores each judge on its own items (:mod:`cap_core.verdicts`, the denominator
rule) and says that their comparisons then mix item sets. When every judge received the
same items the two coincide. :class:`ItemCoverage` says how many items each judge has.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Mapping

import numpy as np
import polars as pl

from cap_core.choice.filters import Filter
from cap_core.choice.leaderboard import Choice, Ranking
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import ProfileResult, compute_profile
from cap_core.profile.weights import check_weights
from cap_core.schema import PROFILE_SCHEMA
from cap_core.verdicts import check_failures, shared_items

__all__ = ["ITEM_SETS", "ItemCoverage", "ChoiceSettings", "ChoiceInputs", "ChoiceResult", "item_coverage",
           "comparison_profile", "prepare_choice", "rank_judges", "run_choice", "check_items"]

#: Which items judges are compared on: ``shared`` (those all of them received; the default) or ``own``.
ITEM_SETS: tuple[str, ...] = ("shared", "own")


def check_items(items: object) -> str:
    """``items`` if it names one of :data:`ITEM_SETS`, else :class:`CAPInputError` (argument ``items``)."""
    if items not in ITEM_SETS:
        raise CAPInputError("unknown item set for comparing judges", argument="items", expected=" or ".join(ITEM_SETS),
                            got=items, fix="shared (the items every judge received; the default) or own (each "
                                           "judge on its own items)")
    return str(items)


@dataclass(frozen=True)
class ItemCoverage:
    """How many items of one benchmark each judge received, and how many all of them share.

    Attributes
    ----------
    benchmark : str
    n_items : int
        Items of the benchmark.
    n_shared : int
        Items every listed judge received.
    received : dict of str to int
        Items each judge received (has a judgment row on), judges sorted.
    failures : str
        The failure rule ``n_shared`` was counted under.
    """

    benchmark: str
    n_items: int
    n_shared: int
    received: dict = field(default_factory=dict)
    failures: str = "count"

    @property
    def differ(self) -> bool:
        """True when the judges' item sets are not all the same (under ``failures="exclude"``: the items
        each judged without a failure)."""
        return any(n != self.n_shared for n in self.received.values())

    def sentence(self, items: str) -> str:
        """One plain sentence for the page or the CLI ('' when every judge has the same items)."""
        if not self.differ:
            return ""
        fewest = sorted(self.received.items(), key=lambda kv: (kv[1], kv[0]))
        listed = ", ".join(f"{j} {n}" for j, n in fewest[:4]) + (f" and {len(fewest) - 4} more" if len(fewest) > 4
                                                                 else "")
        head = (f"{self.benchmark}: the judges' item sets differ (items received of {self.n_items}: {listed}); ")
        if items == "shared":
            what = ("received and judged without a failed verdict" if self.failures == "exclude"
                    else "received")
            return head + (f"they are compared on the {self.n_shared} items all of them {what} "
                           "(choose own items to score each on everything it judged).")
        return head + ("each is scored on its own items, so differences between judges mix item sets "
                       f"(choose shared items to compare them on the {self.n_shared} they share).")


def item_coverage(ds: Dataset, benchmark: str, judges: list[str] | None = None,
                  failures: str = "count") -> ItemCoverage:
    """:class:`ItemCoverage` of ``judges`` (default: every judge with judgments there) on ``benchmark``;
    ``n_shared`` follows :func:`cap_core.verdicts.shared_items` under ``failures`` (with ``exclude``,
    an item some judge failed on is not shared).

    Raises
    ------
    CAPInputError
        Unknown benchmark or judge.
    """
    if benchmark not in ds.benchmarks:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=benchmark,
                            expected="one of " + ", ".join(ds.benchmarks), fix="name a benchmark of the dataset")
    jm = ds.judgments.filter(pl.col("benchmark") == benchmark)
    if judges is not None:
        jm = jm.filter(pl.col("judge").is_in(list(judges)))
    per = jm.select("judge", "item_id").unique().group_by("judge").len().sort("judge")
    received = dict(zip(per["judge"].to_list(), per["len"].to_list()))
    n_items = int(ds.items.filter(pl.col("benchmark") == benchmark).height)
    n_shared = (shared_items(ds, judges=sorted(received), benchmarks=[benchmark], failures=failures).height
                if received else 0)
    return ItemCoverage(benchmark, n_items, n_shared, received, failures)


def comparison_profile(ds: Dataset, benchmark: str, *, judges: list[str] | None = None, items: str = "shared",
                       failures: str = "count", n_resamples: int = 1000, seed: int = 0,
                       level: float = 0.95) -> tuple[ProfileResult, ItemCoverage]:
    """The profile of ``judges`` on ``benchmark`` on the items they are compared on (module notes).

    Returns
    -------
    (ProfileResult, ItemCoverage)
        :func:`cap_core.profile.conditions.compute_profile` of the judges (default: all
        with judgments there), on the items all of them received when ``items="shared"``
        and their sets differ, else on the benchmark as it is.

    Raises
    ------
    CAPInputError
        Unknown benchmark or judges; bad ``items``, ``failures`` or bootstrap settings;
        no item shared by all the judges.
    """
    items = check_items(items)
    failures = check_failures(failures)
    cov = item_coverage(ds, benchmark, judges, failures)
    chosen = sorted(cov.received)
    if not chosen:
        raise CAPInputError("no judgment of the chosen judges on this benchmark", argument="judges",
                            got=judges, expected=f"judges with judgments on {benchmark}",
                            fix="pick judges that judged this benchmark")
    data = ds
    if items == "shared" and cov.differ:
        if cov.n_shared == 0:
            raise CAPInputError("the chosen judges share no item", argument="items", got="shared",
                                expected=f"at least one item of {benchmark} judged by every chosen judge",
                                fix="compare fewer judges, or score each on its own items (items='own')")
        data = ds.select(benchmarks=[benchmark], judges=chosen).keep_items(
            shared_items(ds, judges=chosen, benchmarks=[benchmark], failures=failures))
    res = compute_profile(data, n_resamples=n_resamples, seed=seed, level=level, benchmarks=[benchmark],
                          judges=chosen, failures=failures)
    return res, cov


@dataclass(frozen=True)
class ChoiceSettings:
    """What a choice was computed with (carried into its exports).

    ``n_resamples``, ``seed``, ``level`` (fraction), ``failures``
    (:data:`cap_core.verdicts.FAILURE_RULES`), ``items`` (:data:`ITEM_SETS`) and the data
    ``fingerprint`` ('' without data).
    """

    n_resamples: int = 1000
    seed: int = 0
    level: float = 0.95
    failures: str = "count"
    items: str = "shared"
    fingerprint: str = ""


@dataclass(frozen=True)
class ChoiceInputs:
    """The weight-independent part of a choice (:func:`prepare_choice`).

    Attributes
    ----------
    benchmark : str
    rows : polars.DataFrame
        PROFILE_SCHEMA rows (percent): the computed judges, then the published ones.
    replicates : numpy.ndarray
        ``(n_resamples, rows.height)`` percent; NaN columns for published rows.
    coverage : ItemCoverage or None
        The computed judges' items (None without data).
    costs : polars.DataFrame or None
        :data:`cap_core.choice.costs.COST_SCHEMA` of the computed judges.
    settings : ChoiceSettings
    notices : tuple of str
        The profile's notices and the item-set sentence.
    """

    benchmark: str
    rows: pl.DataFrame
    replicates: np.ndarray
    coverage: ItemCoverage | None
    costs: pl.DataFrame | None
    settings: ChoiceSettings
    notices: tuple[str, ...] = ()
    _kept: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def ranking(self, filters: tuple[Filter, ...] = ()) -> Ranking:
        """The weight-independent part of the leaderboard under ``filters``
        (:class:`cap_core.choice.leaderboard.Ranking`), built on first use and kept (a few filter
        sets): a weight change then only weighs."""
        key = ("ranking", tuple(filters))
        with self._lock:  # shared by the dashboard's sessions
            if key not in self._kept:
                if len(self._kept) > 8:
                    self._kept.pop(next(k for k in self._kept if k[0] == "ranking"))
                s = self.settings
                self._kept[key] = Ranking(self.rows, self.replicates, filters=tuple(filters), costs=self.costs,
                                          level=s.level, seed=s.seed, paired=self.paired)
            return self._kept[key]

    @property
    def paired(self) -> bool:
        """The computed judges are scored on the same items: not when each is scored on its own items
        and their item sets differ (:attr:`ItemCoverage.differ`)."""
        return not (self.settings.items == "own" and self.coverage is not None and self.coverage.differ)

    @property
    def profile_table(self) -> pl.DataFrame:
        """:func:`cap_core.choice.exports.profile_export` of the rows with the settings (built once)."""
        with self._lock:
            if "profile_table" not in self._kept:
                from cap_core.choice.exports import profile_export

                s = self.settings
                self._kept["profile_table"] = profile_export(self.rows, level=s.level, resamples=s.n_resamples,
                                                             seed=s.seed, fingerprint=s.fingerprint,
                                                             failures=s.failures, items=s.items)
            return self._kept["profile_table"]


@dataclass(frozen=True)
class ChoiceResult:
    """A ranked choice and its exports (:func:`rank_judges`).

    ``choice`` (:class:`cap_core.choice.leaderboard.Choice`), ``scores`` (the scores CSV
    frame of :func:`cap_core.choice.exports.scores_export`), ``profile_table`` (the profile
    CSV frame of :func:`cap_core.choice.exports.profile_export`), ``inputs``.
    """

    inputs: ChoiceInputs
    choice: Choice
    scores: pl.DataFrame
    profile_table: pl.DataFrame


def prepare_choice(ds: Dataset | None, benchmark: str, *, judges: list[str] | None = None,
                   published: pl.DataFrame | None = None, items: str = "shared", failures: str = "count",
                   n_resamples: int = 1000, seed: int = 0, level: float = 0.95,
                   with_costs: bool = True) -> ChoiceInputs:
    """The weight-independent part of the choice on ``benchmark``.

    Parameters
    ----------
    ds : Dataset or None
        The judgments (None: published judges only).
    judges : list of str, optional
        Computed judges to rank (default: every judge with judgments on the benchmark);
        an empty list ranks none of them.
    published : polars.DataFrame, optional
        Published profile rows (PROFILE_SCHEMA, percent) to rank beside them; rows of
        other benchmarks are ignored.
    items, failures, n_resamples, seed, level
        As :func:`comparison_profile`.
    with_costs : bool
        Also compute the judges' costs (:func:`cap_core.choice.costs.judge_costs`).

    Raises
    ------
    CAPInputError
        As :func:`comparison_profile`.
    """
    from cap_core.bootstrap import check_bootstrap_args

    check_bootstrap_args(n_resamples, seed, level)
    items, failures = check_items(items), check_failures(failures)
    parts, reps, notices, cov, costs = [], [], [], None, None
    fp = ds.fingerprint() if ds is not None else ""
    if ds is not None and benchmark in ds.benchmarks and (judges is None or len(judges)):
        res, cov = comparison_profile(ds, benchmark, judges=judges, items=items, failures=failures,
                                      n_resamples=n_resamples, seed=seed, level=level)
        parts.append(res.profile)
        reps.append(res.replicates)
        notices += list(res.notices)
        said = cov.sentence(items)
        if said:
            notices.append(said)
        if with_costs:
            from cap_core.choice.costs import judge_costs

            costs = judge_costs(ds, benchmark, sorted(cov.received))
    if published is not None and published.height:
        pub = published.filter(pl.col("benchmark") == benchmark).select(list(PROFILE_SCHEMA))
        parts.append(pub)
        reps.append(np.full((int(n_resamples), pub.height), np.nan))
    if parts:
        rows = pl.concat(parts, how="vertical")
        replicates = np.concatenate(reps, axis=1)
    else:
        rows, replicates = pl.DataFrame(schema=PROFILE_SCHEMA), np.empty((int(n_resamples), 0))
    settings = ChoiceSettings(int(n_resamples), int(seed), float(level), failures, items, fp)
    return ChoiceInputs(benchmark, rows, replicates, cov, costs, settings, tuple(notices))


def rank_judges(inputs: ChoiceInputs, weights: Mapping[str, float], *, filters: tuple[Filter, ...] = (),
                names: Mapping[tuple[str, str, str], str] | None = None) -> ChoiceResult:
    """The leaderboard of ``inputs`` under ``weights`` and ``filters``, with its exports.

    Raises
    ------
    CAPInputError
        Bad weights (:func:`cap_core.profile.weights.check_weights`).
    """
    from cap_core.choice.exports import scores_export

    s = inputs.settings
    check_weights(weights)
    ch = inputs.ranking(tuple(filters)).rank(weights, names=names)  # choose(), its fixed part kept on inputs
    scores = scores_export(ch.leaderboard, ch.weights, filters=tuple(filters), correction=ch.correction,
                           level=s.level, resamples=s.n_resamples, seed=s.seed, fingerprint=s.fingerprint,
                           failures=s.failures, items=s.items)
    return ChoiceResult(inputs, ch, scores, inputs.profile_table)


def run_choice(ds: Dataset | None, benchmark: str, weights: Mapping[str, float], *,
               filters: tuple[Filter, ...] = (), judges: list[str] | None = None,
               published: pl.DataFrame | None = None, items: str = "shared", failures: str = "count",
               n_resamples: int = 1000, seed: int = 0, level: float = 0.95,
               names: Mapping[tuple[str, str, str], str] | None = None) -> ChoiceResult:
    """:func:`prepare_choice` then :func:`rank_judges` (the CLI's and the notebook API's call)."""
    inputs = prepare_choice(ds, benchmark, judges=judges, published=published, items=items, failures=failures,
                            n_resamples=n_resamples, seed=seed, level=level)
    return rank_judges(inputs, weights, filters=filters, names=names)
