"""Stress degradation between a base and a stressed benchmark.

CAP §4.3, Table 6 and App. M eq. 3 define, per judge ``j`` and condition ``c``::

    δ_c(j) = CAP_c(j; base) − CAP_c(j; stressed)        (points, percent units)

with JudgeBench as base and JudgeBench-Pro as the stressed benchmark; a positive δ
means the judge does worse under stress. Table 6 adds each judge's mean over the
conditions (the "Mean" column) and §4.3 the mean per condition across judges and
each judge's *dominant degradation channel* (the condition with the largest δ).

Any pair of views of a profile frame can be used. Published tables carry no per-item
data, so their δ has no interval. With per-item data on both sides,
:func:`stress_intervals` gives a percentile bootstrap interval: the two benchmarks are
resampled independently (each has its own seed stream, see
:func:`cap_core.bootstrap.benchmark_seed`), so replicate ``r`` of δ is replicate ``r``
of the base cell minus replicate ``r`` of the stressed cell — the bootstrap of a
difference between two independent samples.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cap_core.bootstrap import percentile_interval
from cap_core.errors import CAPInputError
from cap_core.profile.selection import view_cells

__all__ = ["default_pair", "side_name", "side_dataset", "stress_deltas", "stress_intervals", "stress_on_data",
           "stress_summary"]


def stress_deltas(profile: pl.DataFrame, base: str, stressed: str, *, conditions: list[str] | None = None,
                  sources: list[str] | None = None, include_overall: bool = False) -> pl.DataFrame:
    """δ_c(j) for every judge and condition measured on both views.

    Parameters
    ----------
    profile : polars.DataFrame
        Profile frame (PROFILE_SCHEMA, percent); primary metric per condition.
    base, stressed : str
        Views ``"benchmark:subset"`` (or a bare benchmark with one subset).
    conditions : list of str, optional
        Restrict to these conditions (default: all C1-C8 present on both).
    sources : list of str, optional
        Restrict to these ``source`` values.
    include_overall : bool, default False
        Also give δ of ``overall`` (pa over every item; CAP §3.1), beside C1-C8.

    Returns
    -------
    polars.DataFrame
        Columns ``judge``, ``condition``, ``base_value``, ``stressed_value``,
        ``delta`` (Float64, points = base − stressed), sorted by judge, condition.
        Cells present on one side only are not rows; they are listed by
        :func:`stress_summary` in ``unmatched``.

    Raises
    ------
    CAPInputError
        Same view twice, bad view, or no (judge, condition) measured on both.
    """
    if base == stressed:
        raise CAPInputError("base and stressed benchmarks are the same", argument="stressed", got=stressed,
                            fix="pick two different benchmarks")
    a = view_cells(profile, base, sources=sources, include_overall=include_overall)
    b = view_cells(profile, stressed, sources=sources, include_overall=include_overall)
    if conditions is not None:
        a = a.filter(pl.col("condition").is_in(list(conditions)))
        b = b.filter(pl.col("condition").is_in(list(conditions)))
    joined = a.select("judge", "condition", pl.col("value").alias("base_value")).join(
        b.select("judge", "condition", pl.col("value").alias("stressed_value")), on=["judge", "condition"])
    if joined.height == 0:
        shared = sorted(set(a.get_column("judge")) & set(b.get_column("judge")))
        raise CAPInputError(
            f"no judge and condition measured on both {base} and {stressed}", column="judge",
            got=f"{len(shared)} shared judge(s)", expected="at least one judge with a shared condition",
            fix="pick two benchmarks run with the same judges and a common condition")
    return joined.with_columns((pl.col("base_value") - pl.col("stressed_value")).alias("delta")).sort(
        "judge", "condition")


def stress_summary(deltas: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per-judge and per-condition means of δ, and each judge's dominant channel.

    Parameters
    ----------
    deltas : polars.DataFrame
        Output of :func:`stress_deltas`.

    Returns
    -------
    per_judge : polars.DataFrame
        ``judge``, ``mean_delta`` (points; Table 6 "Mean"), ``n_conditions``,
        ``conditions`` (";"-joined), ``dominant_condition`` (largest δ; ties
        joined with ";"), ``dominant_delta``.
    per_condition : polars.DataFrame
        ``condition``, ``mean_delta`` (points, mean across judges), ``n_judges``,
        ``largest`` (Boolean, the condition with the largest mean drop).

    Raises
    ------
    CAPInputError
        ``deltas`` lacks the columns of :func:`stress_deltas` or is empty.
    """
    if not isinstance(deltas, pl.DataFrame) or not {"judge", "condition", "delta"} <= set(deltas.columns):
        raise CAPInputError("stress_summary needs the output of stress_deltas", expected="judge, condition, delta",
                            got=getattr(deltas, "columns", type(deltas).__name__))
    if deltas.height == 0:
        raise CAPInputError("no stress deltas to summarise", expected="at least one row", got="0 rows")
    per_judge = deltas.group_by("judge").agg(
        pl.col("delta").mean().alias("mean_delta"),
        pl.len().cast(pl.Int64).alias("n_conditions"),
        pl.col("condition").sort().str.join(";").alias("conditions"),
        pl.col("condition").filter(pl.col("delta") == pl.col("delta").max()).sort().str.join(";")
        .alias("dominant_condition"),
        pl.col("delta").max().alias("dominant_delta"),
    ).sort("judge")
    per_condition = deltas.group_by("condition").agg(
        pl.col("delta").mean().alias("mean_delta"), pl.len().cast(pl.Int64).alias("n_judges")
    ).sort("condition")
    per_condition = per_condition.with_columns((pl.col("mean_delta") == pl.col("mean_delta").max()).alias("largest"))
    return per_judge, per_condition


def stress_intervals(result, base: str, stressed: str, *, level: float | None = None,
                     include_overall: bool = False) -> pl.DataFrame:
    """δ_c(j) with a bootstrap interval, from a computed profile with replicates.

    Parameters
    ----------
    result : cap_core.profile.conditions.ProfileResult
        Profile of both benchmarks computed from per-item data (its ``replicates``
        hold one column per profile row).
    base, stressed : str
        Benchmark ids (subset ``all``), e.g. ``"judgebench"`` and a stressed copy.
    level : float, optional
        Confidence level as a fraction; default the profile's own level.
    include_overall : bool, default False
        Also the ``overall`` row (see :func:`stress_deltas`).

    Returns
    -------
    polars.DataFrame
        The columns of :func:`stress_deltas` plus ``ci_low``, ``ci_high`` (points) and
        ``separated`` (Boolean, the interval excludes 0), one row per judge and
        condition measured on both benchmarks (primary metric).

    Raises
    ------
    CAPInputError
        ``result`` is not a computed profile, the benchmarks are equal or unknown,
        or no judge and condition is measured on both.
    """
    profile = getattr(result, "profile", None)
    reps = getattr(result, "replicates", None)
    if not isinstance(profile, pl.DataFrame) or not isinstance(reps, np.ndarray):
        raise CAPInputError("stress_intervals needs a computed profile with bootstrap replicates",
                            argument="result", expected="the ProfileResult of compute_profile",
                            got=type(result).__name__, fix="compute the profile from per-item data first")
    deltas = stress_deltas(profile, f"{base}:all" if ":" not in base else base,
                           f"{stressed}:all" if ":" not in stressed else stressed, include_overall=include_overall)
    keyed = profile.with_row_index("_k").filter(pl.col("primary") & (pl.col("subset") == "all"))
    idx = {(r["benchmark"], r["judge"], r["condition"]): r["_k"] for r in keyed.iter_rows(named=True)}
    b_name, s_name = base.split(":")[0], stressed.split(":")[0]
    cols = [reps[:, idx[(b_name, j, c)]] - reps[:, idx[(s_name, j, c)]]
            for j, c in deltas.select("judge", "condition").iter_rows()]
    low, high = percentile_interval(np.column_stack(cols), level if level is not None else result.level)
    low = [None if np.isnan(x) else float(x) for x in low]
    high = [None if np.isnan(x) else float(x) for x in high]
    out = deltas.with_columns(pl.Series("ci_low", low, dtype=pl.Float64), pl.Series("ci_high", high, dtype=pl.Float64))
    return out.with_columns(((pl.col("ci_low") > 0) | (pl.col("ci_high") < 0)).fill_null(False).alias("separated"))


def side_name(benchmark: str, subsets: tuple[str, ...] | list[str] | None = None) -> str:
    """Name of one side of a stress comparison: the benchmark, or ``benchmark[s1+s2]`` for some of
    its native subsets (sorted)."""
    return benchmark if not subsets else f"{benchmark}[{'+'.join(sorted(subsets))}]"


def side_dataset(ds, sides: list[tuple[str, tuple[str, ...] | None]]):
    """A dataset holding one benchmark per side, named by :func:`side_name`.

    Side ``(benchmark, subsets)`` keeps the items of ``benchmark`` whose native ``subset``
    is listed (``None`` or empty: every item) and the judgments on them; the side's
    declarations are those of ``benchmark``, except ``subset``-selector ones when only
    some subsets are kept (a subset comparison such as LLMBar's Natural vs adversarial C5
    cannot be measured inside one part). Every other rule is the profile's own.

    Raises
    ------
    CAPInputError
        Unknown benchmark or subset, a side with no item, or two sides that share items
        (δ's interval resamples the two sides independently, so they must be disjoint).
    """
    from cap_core.dataset import Dataset

    items, judgments, decl = [], [], []
    seen: dict[str, set] = {}
    for bench, subsets in sides:
        it = ds.items.filter(pl.col("benchmark") == bench)
        if it.height == 0:
            raise CAPInputError(f"benchmark {bench!r} is not in the loaded data", argument="benchmark", got=bench,
                                expected=", ".join(sorted(ds.benchmarks)), fix="pick a loaded benchmark")
        if subsets:
            known = set(it.get_column("subset").drop_nulls().to_list())
            bad = sorted(set(subsets) - known)
            if bad:
                raise CAPInputError(f"{bench} has no subset {bad[0]!r}", argument="subsets", got=bad[0],
                                    expected=", ".join(sorted(known)), fix="pick subsets of that benchmark")
            it = it.filter(pl.col("subset").is_in(list(subsets)))
        ids = set(it.get_column("item_id").to_list())
        if ids & seen.get(bench, set()):
            raise CAPInputError(f"the two sides share items of {bench}", argument="subsets",
                                got=side_name(bench, subsets), expected="disjoint subsets (or two benchmarks)",
                                fix="give the base and the stressed side different subsets")
        seen.setdefault(bench, set()).update(ids)
        name = side_name(bench, subsets)
        items.append(it.with_columns(pl.lit(name).alias("benchmark")))
        judgments.append(ds.judgments.filter(pl.col("benchmark") == bench)
                         .join(it.select("item_id"), on="item_id", how="semi")
                         .with_columns(pl.lit(name).alias("benchmark")))
        d = ds.declarations.filter(pl.col("benchmark") == bench)
        if subsets:
            d = d.filter(pl.col("selector") != "subset")
        decl.append(d.with_columns(pl.lit(name).alias("benchmark")))
    return Dataset(items=pl.concat(items), judgments=pl.concat(judgments), declarations=pl.concat(decl),
                   notices=ds.notices)


def stress_on_data(ds, base: tuple[str, tuple[str, ...] | None], stressed: tuple[str, tuple[str, ...] | None], *,
                   judges: list[str] | None = None, n_resamples: int = 1000, seed: int = 0,
                   level: float = 0.95, failures: str = "count") -> pl.DataFrame:
    """δ with bootstrap intervals between two parts of the loaded per-item data.

    Parameters
    ----------
    ds : cap_core.dataset.Dataset
    base, stressed : (benchmark, subsets)
        Each side is a benchmark, or some of its native subsets (e.g. LLMBar's
        ``("llmbar", ("Natural",))`` against ``("llmbar", ("Neighbor", "GPTInst"))``).
    judges : list of str, optional
        Judges to compare (default: all that judged both sides).
    n_resamples, seed, level
        Bootstrap settings (CAP §3.3: 1,000 resamples, 95%); each side resamples its own
        base items (:func:`stress_intervals`).
    failures : {"count", "exclude"}
        The rule for failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`).

    Returns
    -------
    polars.DataFrame
        The columns of :func:`stress_intervals` (judge, condition, base_value,
        stressed_value, delta, ci_low, ci_high in points/percent, separated) plus
        ``n_base``, ``n_stressed`` (Int64, units of each value), one row per judge and
        condition (C1-C8 and ``overall``) measured on both sides.

    Raises
    ------
    CAPInputError
        See :func:`side_dataset` and :func:`stress_deltas`.
    """
    from cap_core.profile.conditions import compute_profile

    names = [side_name(*base), side_name(*stressed)]
    if names[0] == names[1]:
        raise CAPInputError("base and stressed sides are the same", argument="stressed", got=names[1],
                            fix="pick two benchmarks, or two different subsets of one")
    sub = side_dataset(ds, [base, stressed])
    res = compute_profile(sub, n_resamples=n_resamples, seed=seed, level=level, benchmarks=names, judges=judges,
                          failures=failures)
    out = stress_intervals(res, names[0], names[1], include_overall=True)
    n = res.profile.filter(pl.col("primary") & (pl.col("subset") == "all")).select("judge", "benchmark", "condition",
                                                                                  "n_items")
    for side, col in zip(names, ("n_base", "n_stressed")):
        out = out.join(n.filter(pl.col("benchmark") == side).select("judge", "condition", pl.col("n_items").alias(col)),
                       on=["judge", "condition"], how="left")
    return out


def default_pair(profile: pl.DataFrame, views: list[str] | None = None) -> tuple[str, str]:
    """The (base, stressed) pair of views offered when the user names none.

    JudgeBench → JudgeBench-Pro when both are present (the pair of CAP §4.3, Table 6);
    else the first pair of views that share a judge, JudgeBench tried first as the base
    (so the default has deltas); else the first two views.

    Parameters
    ----------
    profile : polars.DataFrame
        A profile frame (at least ``judge``, ``benchmark``, ``subset``).
    views : list of str, optional
        Candidate ``"benchmark:subset"`` views (default: every view of ``profile``).

    Raises
    ------
    CAPInputError
        Fewer than two views.
    """
    if views is None:
        pairs = profile.select("benchmark", "subset").unique().sort("benchmark", "subset").iter_rows()
        views = [f"{b}:{s}" for b, s in pairs]
    views = list(views)
    if len(views) < 2:
        raise CAPInputError("stress needs two benchmarks", argument="profile", expected="at least two views",
                            got=", ".join(views) or "none", fix="load more benchmarks or include the published ones")
    if {"judgebench:all", "judgebench_pro:all"} <= set(views):
        return "judgebench:all", "judgebench_pro:all"
    judges = {f"{b}:{s}": set(j) for b, s, j in
              profile.group_by("benchmark", "subset").agg(pl.col("judge").unique()).iter_rows()}
    for base in sorted(views, key=lambda v: v != "judgebench:all"):
        partner = next((v for v in views if v != base and judges.get(v, set()) & judges.get(base, set())), None)
        if partner is not None:
            return base, partner
    return views[0], views[1]
