"""Hard-empirical subsets and their profiles (CAP App. A.5, Table 3).

CAP's Hard-Empirical subset holds the plain items on which at least one of the
evaluated judges gave an incorrect verdict in the original A/B order (245 of 2,092).
Here the same rule runs on any benchmark and any chosen set of *selector* judges:

* candidate items: the reference presentation of each base item
  (:func:`cap_core.profile.coverage.reference_variant`: ``plain`` variant, else
  ``original``, else every item);
* an item is hard when at least one selector judge's ``AB`` verdict is not correct by
  :func:`cap_core.verdicts.verdict_rows` (``tie`` and ``unparsed`` count as not
  correct; a judge without an AB verdict on the item does not vote);
* the subset keeps every item (all variants) of a hard base item, so the variant-pair
  conditions (C5, C6) stay measurable, and is profiled with :func:`compute_profile`;
  the profile rows get subset ``"hard_empirical"``.

The subset is selected by the errors of the judges being compared, so it favours
whoever erred least during selection: :data:`HARD_WARNING` says so and must be shown
next to any result (CAP App. A.5 builds Hard-Constructed for this reason).

Hard-Constructed (CAP App. A.5, Table 4): a subset built independently of any judge's
verdicts -- in CAP, plain items hardened by a generator (a minor flaw put into the
better answer, correct supplements added to the worse one; 139 of 288 attempts). CAP
Studio cannot build it; it profiles the user's construction: a list of item ids
(:func:`hard_constructed_profile`, e.g. from a file with an ``item_id`` column). Every
item of a named item's base item comes along (all variants), as for Hard-Empirical,
and the rows get subset ``"hard_constructed"``. :data:`CONSTRUCTED_NOTE` states the
condition under which it is judge-independent.

Both results carry ``types``: the error-type distribution (``failure_type``) of the
subset's reference-presentation items, as in CAP Table 9.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile
from cap_core.profile.coverage import reference_variant
from cap_core.verdicts import verdict_rows

__all__ = ["HARD_WARNING", "CONSTRUCTED_NOTE", "HardSubsetResult", "hard_empirical_items",
           "hard_empirical_profile", "hard_constructed_items", "hard_constructed_profile"]

HARD_WARNING = (
    "Selection bias: the hard-empirical subset is chosen by the errors of the judges being compared "
    "(items at least one selector judge got wrong in the A/B order). Judges that erred less during "
    "selection look better on it by construction; read differences on it as descriptive, not as a "
    "fair ranking (CAP App. A.5)."
)
SUBSET = "hard_empirical"
CONSTRUCTED_SUBSET = "hard_constructed"
CONSTRUCTED_NOTE = (
    "Hard-constructed subset: items of your construction, profiled as given. It is judge-independent "
    "only if the construction never looked at the profiled judges' verdicts (CAP App. A.5 hardens "
    "items by generation, without judges); then, unlike the hard-empirical subset, it favours no judge "
    "by construction."
)


@dataclass(frozen=True)
class HardSubsetResult:
    """Output of :func:`hard_empirical_profile`.

    Attributes
    ----------
    profile : polars.DataFrame
        PROFILE_SCHEMA rows (percent) with subset ``"hard_empirical"``.
    replicates : numpy.ndarray
        Shape ``(n_resamples, profile.height)``, percent.
    items : polars.DataFrame
        The hard candidate items (``item_id``, ``base_item_id``, ``n_wrong`` Int64:
        selector judges wrong on it).
    n_candidates : int
        Candidate (reference-presentation) items of the benchmark.
    selectors : tuple of str
        The judges whose errors chose the subset (empty for a constructed subset).
    warning : str
        :data:`HARD_WARNING` (empirical) or :data:`CONSTRUCTED_NOTE` (constructed).
    types : polars.DataFrame
        ``failure_type`` (String, null when the items carry none), ``n`` (Int64 items),
        ``pct`` (Float64 percent of the subset's reference-presentation items); CAP Table 9.
    """

    profile: pl.DataFrame
    replicates: np.ndarray
    items: pl.DataFrame
    n_candidates: int
    selectors: tuple[str, ...]
    warning: str = HARD_WARNING
    types: pl.DataFrame | None = None


def _hard_iv(ds, benchmark, selectors):
    if not isinstance(ds, Dataset):
        raise CAPInputError("a Dataset is needed", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__)
    if benchmark not in ds.benchmarks:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=benchmark,
                            expected="one of " + ", ".join(ds.benchmarks))
    if isinstance(selectors, str) or not selectors or not all(isinstance(j, str) for j in selectors):
        raise CAPInputError("pick at least one judge whose errors select the subset", argument="selectors",
                            expected="a non-empty list of judge names", got=selectors)
    have = sorted(ds.judgments.filter(pl.col("benchmark") == benchmark).get_column("judge").unique().to_list())
    unknown = [j for j in selectors if j not in have]
    if unknown:
        raise CAPInputError(f"judge has no verdicts on {benchmark}", argument="selectors", got=unknown[0],
                            expected="one of " + ", ".join(have))
    return list(dict.fromkeys(selectors))


def hard_empirical_items(ds: Dataset, benchmark: str, selectors: list[str]) -> tuple[pl.DataFrame, int]:
    """Candidate items some selector judge got wrong in the A/B order.

    Returns
    -------
    (polars.DataFrame, int)
        Hard items (``item_id``, ``base_item_id``, ``n_wrong`` Int64) and the number
        of candidate items (items of the reference variant that have a gold label).

    Raises
    ------
    CAPInputError
        Unknown benchmark or judge; no selector judge has an AB verdict.
    """
    selectors = _hard_iv(ds, benchmark, selectors)
    items = ds.items.filter(pl.col("benchmark") == benchmark)
    ref = reference_variant(items)
    cand = items if ref is None else items.filter(pl.col("variant") == ref)
    cand = cand.filter(pl.col("gold").is_not_null())  # a verdict on an item without gold is never wrong
    ab = verdict_rows(ds, benchmarks=[benchmark], judges=selectors, gold_only=True).filter(
        (pl.col("order") == "AB") & ~pl.col("missing"))
    if ab.height == 0:
        raise CAPInputError(f"no A/B-order verdict of the chosen judges on {benchmark}", column="order",
                            expected="judgments with order AB", got=selectors,
                            fix="pick judges run in the original order")
    wrong = ab.join(cand.select("item_id"), on="item_id", how="semi").group_by("item_id", "base_item_id").agg(
        (~pl.col("correct")).sum().cast(pl.Int64).alias("n_wrong"))
    return wrong.filter(pl.col("n_wrong") > 0).sort("item_id"), cand.height


def hard_empirical_profile(ds: Dataset, benchmark: str, selectors: list[str], *, judges: list[str] | None = None,
                           n_resamples: int = 1000, seed: int = 0, failures: str = "count") -> HardSubsetResult:
    """Profile every judge (or ``judges``) on the hard-empirical subset of ``benchmark``.

    Parameters
    ----------
    ds : Dataset
    benchmark : str
    selectors : list of str
        Judges whose A/B errors choose the subset (CAP: the seven evaluated judges).
    judges : list of str, optional
        Judges to profile (default: every judge on the benchmark).
    n_resamples, seed : int
        Bootstrap settings for :func:`compute_profile`.
    failures : {"count", "exclude"}
        The rule for failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`).

    Returns
    -------
    HardSubsetResult

    Raises
    ------
    CAPInputError
        See :func:`hard_empirical_items`; no hard item (every selector judge always
        right), bad bootstrap arguments.
    """
    hard, n_cand = hard_empirical_items(ds, benchmark, selectors)
    if hard.height == 0:
        raise CAPInputError(f"no hard item on {benchmark}: every chosen judge is right on every A/B verdict",
                            column="verdict", got=f"{n_cand} candidate items",
                            fix="add weaker judges to the selectors")
    prof, reps = _profile_bases(ds, benchmark, hard, SUBSET, judges, n_resamples, seed, failures)
    return HardSubsetResult(profile=prof, replicates=reps, items=hard, n_candidates=n_cand,
                            selectors=tuple(selectors), types=_type_counts(ds, benchmark, hard))


def _profile_bases(ds, benchmark, chosen, name, judges, n_resamples, seed, failures="count"):
    """Profile every item (all variants) of the base items in ``chosen``; subset ``name``."""
    bases = chosen.get_column("base_item_id").unique().implode()
    items = ds.items.filter((pl.col("benchmark") == benchmark) & pl.col("base_item_id").is_in(bases))
    sub = Dataset(items=items,
                  judgments=ds.judgments.join(items.select("benchmark", "item_id"), on=["benchmark", "item_id"],
                                              how="semi"),
                  declarations=ds.declarations.filter(pl.col("benchmark") == benchmark), notices=ds.notices)
    res = compute_profile(sub, n_resamples=n_resamples, seed=seed, benchmarks=[benchmark], judges=judges,
                          failures=failures)
    prof = res.profile.with_columns(
        pl.when(pl.col("subset") == "all").then(pl.lit(name)).otherwise(pl.lit(name + ":") + pl.col("subset"))
        .alias("subset"))
    return prof, res.replicates


def _type_counts(ds: Dataset, benchmark: str, chosen: pl.DataFrame) -> pl.DataFrame:
    """Error-type distribution of the chosen reference-presentation items (CAP Table 9)."""
    items = ds.items.filter(pl.col("benchmark") == benchmark).join(chosen.select("item_id"), on="item_id",
                                                                     how="semi")
    n = max(items.height, 1)
    return (items.group_by("failure_type").agg(pl.len().cast(pl.Int64).alias("n"))
            .with_columns((100.0 * pl.col("n") / n).alias("pct")).sort("n", "failure_type",
                                                                      descending=[True, False]))


def hard_constructed_items(ds: Dataset, benchmark: str, construction) -> tuple[pl.DataFrame, int]:
    """The reference-presentation items of a user's hard construction.

    Parameters
    ----------
    ds : Dataset
    benchmark : str
    construction : sequence of str, polars.Series or polars.DataFrame
        Item ids of the construction (a DataFrame must hold an ``item_id`` column; with a
        ``benchmark`` column, as ``testbed build`` writes, only its rows of ``benchmark``
        count); an id of any variant selects its base item. Row numbers in errors are
        1-based positions in this list.

    Returns
    -------
    (polars.DataFrame, int)
        The chosen candidate items (``item_id``, ``base_item_id``; sorted) and the
        number of candidate items of the benchmark.

    Raises
    ------
    CAPInputError
        Unknown benchmark, no ids, an id that is not an item of the benchmark (names
        its row), a DataFrame without ``item_id``, or whose ``benchmark`` column names only
        other benchmarks (the ids would select other items of the same names).
    """
    if not isinstance(ds, Dataset):
        raise CAPInputError("a Dataset is needed", argument="ds", expected="cap_core.dataset.Dataset",
                            got=type(ds).__name__)
    if benchmark not in ds.benchmarks:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=benchmark,
                            expected="one of " + ", ".join(ds.benchmarks))
    rows = None
    if isinstance(construction, pl.DataFrame):
        if "item_id" not in construction.columns:
            raise CAPInputError("the construction lacks an item_id column", column="item_id",
                                got=construction.columns, fix="name the column of item ids item_id")
        if "benchmark" in construction.columns:  # a list that says whose items it names (testbed build's)
            named_in = [None if b is None else str(b) for b in construction["benchmark"].to_list()]
            rows = [k for k, b in enumerate(named_in, start=1) if b == benchmark]
            if construction.height and not rows:
                from cap_core.errors import capped

                others = sorted({b for b in named_in if b is not None})
                raise CAPInputError(f"the construction names items of {capped(others)}, not of {benchmark}",
                                    column="benchmark", argument="benchmark", got=benchmark,
                                    expected=f"--benchmark {others[0]}" if others else "a benchmark column",
                                    fix=f"profile the benchmark the list was made for ({others[0] if others else '?'})")
        construction = construction["item_id"]
    if isinstance(construction, str) or construction is None:
        raise CAPInputError("a construction is a list of item ids", argument="construction",
                            expected="a list of item ids", got=construction)
    ids = [None if v is None else str(v) for v in construction]
    numbered = list(enumerate(ids, start=1))
    if rows is not None:
        numbered = [(k, ids[k - 1]) for k in rows]
        ids = [i for _, i in numbered]
    if not ids:
        raise CAPInputError("a hard construction needs at least one item", argument="construction",
                            expected="item ids of the constructed hard items", got=0)
    items = ds.items.filter(pl.col("benchmark") == benchmark)
    known = set(items["item_id"].to_list())
    for row, i in numbered:
        if i not in known:
            raise CAPInputError(f"construction names {i!r}, which is not an item of {benchmark}", row=row,
                                column="item_id", expected=f"an item_id of {benchmark}", got=i,
                                fix="use the item ids of the imported dataset (one per row)")
    ref = reference_variant(items)
    cand = items if ref is None else items.filter(pl.col("variant") == ref)
    named = items.filter(pl.col("item_id").is_in(ids))
    chosen = cand.filter(pl.col("base_item_id").is_in(named["base_item_id"].unique().implode()))
    # a constructed item whose base has no reference presentation counts as itself
    extra = named.join(chosen.select("base_item_id"), on="base_item_id", how="anti")
    chosen = pl.concat([chosen, extra]).select("item_id", "base_item_id").unique().sort("item_id")
    return chosen, cand.height


def hard_constructed_profile(ds: Dataset, benchmark: str, construction, *, judges: list[str] | None = None,
                             n_resamples: int = 1000, seed: int = 0, failures: str = "count") -> HardSubsetResult:
    """Profile every judge (or ``judges``) on a user's hard-constructed subset (CAP App. A.5, Table 4).

    Parameters
    ----------
    ds, benchmark, construction
        See :func:`hard_constructed_items`.
    judges : list of str, optional
        Judges to profile (default: every judge on the benchmark).
    n_resamples, seed : int
        Bootstrap settings for :func:`compute_profile`.
    failures : {"count", "exclude"}
        The rule for failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`).

    Returns
    -------
    HardSubsetResult
        ``profile`` with subset ``"hard_constructed"``, ``selectors`` empty, ``warning``
        :data:`CONSTRUCTED_NOTE`.

    Raises
    ------
    CAPInputError
        See :func:`hard_constructed_items`; bad bootstrap arguments.
    """
    chosen, n_cand = hard_constructed_items(ds, benchmark, construction)
    prof, reps = _profile_bases(ds, benchmark, chosen, CONSTRUCTED_SUBSET, judges, n_resamples, seed, failures)
    return HardSubsetResult(profile=prof, replicates=reps, items=chosen, n_candidates=n_cand, selectors=(),
                            warning=CONSTRUCTED_NOTE, types=_type_counts(ds, benchmark, chosen))
