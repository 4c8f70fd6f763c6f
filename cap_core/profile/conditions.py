"""The eight CAP conditions with shared-resample bootstrap intervals.

Definitions follow CAP (arXiv:2610.09229) §3.1 Table 1 and eq. 1 (each condition is an
accuracy ``E[I_c(x; j)]`` over its item subset), Appendix D / Table 12 (operators),
Appendix H / Table 15 (strict vs. pure consistency), Appendix L / Table 20 (sample
sizes) and §4.1 (conditional and unconditional C8). Rules used throughout:

* Verdicts are in the original response letters (a B/A verdict ``"A"`` means the judge
  picked the original A). ``tie``, ``unparsed`` and a missing verdict are never
  correct; the unit stays in the denominator (``failures="count"``, the default) or,
  for ``unparsed`` and missing, leaves it (``failures="exclude"``, CAP App. L).
  ``n_excluded`` counts the units concerned; ``n_items`` counts units in the
  denominator. A judge is scored only on the items it received (a judgment row in some
  order): an item it has no row on is outside its denominator and counted in
  ``n_not_received``. The denominator rule is :func:`cap_core.verdicts.counted`; the
  flags (``correct``, ``tie``, ``unparsed``, ``missing``, ``excluded``) are those of
  :func:`cap_core.verdicts.verdict_rows`, called with the profiled judges. Items without
  gold count only in pure consistency; a gold-needing row with nothing to score is
  null with status :data:`NEEDS_GOLD`.
* Orders: when a benchmark's judgments hold both AB and BA, position-averaged
  accuracy (pa) averages ``1[v == gold]`` over both; with one order only, that order.
* overall: pa over all items (all variants) of the benchmark; status ``""``.
* C1-C4: pa over the items selected by the coverage plan (planted ``failure_type``,
  else the declared native subset). When a benchmark has several variants only the
  ``plain`` (else ``original``) items are used (CAP: 523 plain items each).
* C5/C6 variant pairs: unit = base item with a reference (plain/original) and a polished /
  length_padded item. Per order, strict = both presentations correct; pure
  consistency = same verdict in both (``unparsed`` or missing never consistent,
  ``tie``/``tie`` consistent); unit value = mean over orders; a missing verdict makes
  the unit not robust. ``stable_but_wrong`` = consistency - strict.
* C5 LLMBar style (declared ``subset`` selector with a reference subset): ``pa`` on
  the adversarial subsets (primary), ``natural_pa`` on the reference subset and
  ``surface_gap`` = natural_pa - pa.
* C7: unit = item (every variant; CAP n_C7 = 6276). strict = both orders correct;
  consistency = same verdict in both orders (``unparsed``/missing never consistent,
  ``tie``/``tie`` consistent); a missing order is not robust and counted excluded.
* C8: ``supported`` (primary) = share with ``rationale_supported == 1`` among items
  whose AB verdict is correct AND whose rationale was evaluated; correct items with a
  null ``rationale_supported`` were not judged and are left out of both numerator and
  denominator (counted in ``n_excluded``). ``supported_correct`` (unconditional,
  §4.1) = AB accuracy over all items x ``supported``; when every item was evaluated
  this equals the share of items both correct and supported.
* Bootstrap: see :mod:`cap_core.bootstrap`; one resample of base items per benchmark,
  shared by every judge and condition. Derived metrics (differences, products) are
  computed replicate by replicate. n=0 gives null value/CI and status
  ``unavailable``; n=1 gives a CI equal to the value.
* Subsets (``by_subset=True``): overall and C7 rows per native ``subset``. Items without
  a subset (null, or ``"all"``, which the items schema fills in for a null) form the
  subset :data:`MISSING_SUBSET` when other items have one, and a notice says how many;
  they are never silently folded into ``"all"`` only. Where subsets exist, the
  ``"all"`` overall ``pa`` is labelled micro (item-weighted) and a ``macro_pa`` row
  beside it is the unweighted mean of the named subsets' overall pa (the
  :data:`MISSING_SUBSET` row is shown beside it, not averaged in: it is not a category of the
  benchmark), replicate by replicate (not primary).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cap_core import verdicts
from cap_core.bootstrap import check_bootstrap_args
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.coverage import (
    CellPlan,
    describe_plan,
    facts_of,
    judgment_facts,
    judgment_facts_queries,
    plan_benchmark,
)
from cap_core.profile.engine import (
    CELL,
    DIFF,
    MACRO,
    NONE,
    PROD,
    BenchStats,
    BootstrapAhead,
    cached_stats,
    replicate_benchmarks,
)
from cap_core.profile.item_codes import code_items
from cap_core.profile.units import (
    MISSING_SUBSET,
    BenchContext,
    bench_context,
    code_judgments,
    item_key,
    merge_cells,
    partition_cells,
)
from cap_core.schema import CONDITION_IDS, PROFILE_SCHEMA

__all__ = ["ProfileResult", "compute_profile", "PRIMARY_METRIC", "MISSING_SUBSET", "NEEDS_GOLD"]


#: Profile status of a row that compares verdicts with gold on items that have none
#: (preference-only sources such as AlpacaEval or MT-Bench without human labels).
NEEDS_GOLD = "needs gold"

#: Headline metric of each condition (LLMBar-style C5 uses ``pa``).
PRIMARY_METRIC = {"overall": "pa", "C1": "pa", "C2": "pa", "C3": "pa", "C4": "pa",
                  "C5": "strict", "C6": "strict", "C7": "strict", "C8": "supported"}


@dataclass(frozen=True)
class ProfileResult:
    """Output of :func:`compute_profile`.

    Attributes
    ----------
    profile : polars.DataFrame
        :data:`cap_core.schema.PROFILE_SCHEMA`; value/ci in percent.
    replicates : numpy.ndarray
        Shape ``(n_resamples, profile.height)``, float64 percent; column ``k`` holds
        the bootstrap replicates of profile row ``k`` (NaN where the row has none).
    n_resamples, seed, level
        The bootstrap settings used.    notices : tuple of str
        Things the reader must know about the rows (e.g. items without a subset).
    """

    profile: pl.DataFrame
    replicates: np.ndarray
    n_resamples: int
    seed: int
    level: float
    notices: tuple[str, ...] = ()


def _names_iv(given, allowed: list[str], what: str) -> list[str]:
    if given is None:
        return list(allowed)
    if isinstance(given, str) or not all(isinstance(g, str) for g in given):
        raise CAPInputError(f"{what} must be a list of names", argument=what, expected="list of str", got=given)
    unknown = [g for g in given if g not in allowed]
    if unknown:
        from cap_core.schema import did_you_mean

        raise CAPInputError(
            f"unknown {what[:-1]} name", argument=what, expected="one of " + ", ".join(allowed), got=unknown[0],
            fix=did_you_mean(unknown[0], allowed, f"pick {what} present in the dataset"),
        )
    return [a for a in allowed if a in set(given)]


def _compute_profile_iv(ds, n_resamples, seed, level, benchmarks, judges):
    if not isinstance(ds, Dataset):
        raise CAPInputError("compute_profile needs a Dataset", expected="cap_core.dataset.Dataset", got=type(ds).__name__)
    check_bootstrap_args(n_resamples, seed, level)
    return _names_iv(benchmarks, ds.benchmarks, "benchmarks"), _names_iv(judges, ds.judges, "judges")


_OPS = {
    "pa": "position-averaged accuracy", "natural_pa": "position-averaged accuracy on the reference subset",
    "strict": "strict both-correct", "consistency": "pure consistency (same verdict, correctness ignored)",
    "stable_but_wrong": "stable-but-wrong share (pure consistency - strict)",
    "surface_gap": "reference-subset pa minus adversarial-subset pa",
    "supported": "supported rationales among correct, evaluated A/B verdicts",
    "supported_correct": "unconditional supported-correct rate (A/B accuracy x supported)",
    "macro_pa": "macro mean of the subsets' position-averaged accuracy (each subset weighted equally)",
}


def _row_specs(plans, subsets, partial_gold: bool = False):
    """(subset, condition, metric, kind, keys) per profile row, in output order."""
    specs = []
    for s in subsets:
        specs.append((s, "overall", "pa", "cell", [("overall", "pa", s)]))
        if s == "all" and len(subsets) > 1:
            named = [t for t in subsets[1:] if t != MISSING_SUBSET]  # macro: the named subsets only
            if named:
                specs.append((s, "overall", "macro_pa", "macro", [("overall", "pa", t) for t in named]))
        if s != "all":
            specs += (_pair_specs(s, "C7", partial_gold) if plans["C7"].kind == "position"
                      else [(s, "C7", "strict", "none", [])])
            continue
        for cond in CONDITION_IDS:
            p = plans[cond]
            if p.kind == "content":
                specs.append((s, cond, "pa", "cell", [(cond, "pa", s)]))
            elif p.kind == "subset_gap":
                specs += [(s, cond, "pa", "cell", [(cond, "pa", s)]),
                          (s, cond, "natural_pa", "cell", [(cond, "natural_pa", s)]),
                          (s, cond, "surface_gap", "diff", [(cond, "natural_pa", s), (cond, "pa", s)])]
            elif p.kind in ("paired", "position"):
                specs += _pair_specs(s, cond, partial_gold)
            elif p.kind == "rationale":
                specs += [(s, cond, "supported", "cell", [(cond, "supported", s)]),
                          (s, cond, "supported_correct", "prod", [(cond, "acc", s), (cond, "supported", s)])]
            else:
                specs.append((s, cond, PRIMARY_METRIC[cond], "none", []))
    return specs


def _pair_specs(s, cond, partial_gold: bool = False):
    # stable-but-wrong compares consistency and strict on the same items: those with gold when some lack it
    cons = (cond, "consistency_g" if partial_gold else "consistency", s)
    return [(s, cond, "strict", "cell", [(cond, "strict", s)]),
            (s, cond, "consistency", "cell", [(cond, "consistency", s)]),
            (s, cond, "stable_but_wrong", "diff", [cons, (cond, "strict", s)])]


def _operator(plan: CellPlan | None, cond: str, metric: str, s: str, orders: tuple[str, ...], n: int) -> str:
    stem = _operator_stem(plan, cond, metric, s, orders)
    return stem if plan is not None and plan.kind == "none" else f"{stem} (n={n})"


def _operator_stem(plan: CellPlan | None, cond: str, metric: str, s: str, orders: tuple[str, ...]) -> str:
    """:func:`_operator` without its ``(n=...)`` (the same for every judge of a benchmark)."""
    if plan is None:
        over = "over A/B and B/A" if len(orders) == 2 else f"on the {orders[0]} order only"
        base = f"position-averaged accuracy {over} on all items"
    else:
        base = describe_plan(plan, orders)
    if plan is not None and plan.kind == "none":
        return base
    if s != "all":
        base += f", {s} subset"
    if metric != PRIMARY_METRIC[cond] or (plan is not None and plan.kind == "subset_gap" and metric != "pa"):
        base = f"{_OPS[metric]}; {base}"
    return base


def _bench_rows(ctx: BenchContext, merged) -> BenchStats:
    """Profile rows and sufficient statistics of one benchmark from its merged per-base sums.

    Each row spec is evaluated for every judge at once (cell ``k`` of judge ``j`` is column
    ``type * n_judges + j``); the rows are then listed judge by judge, specs in order."""
    types, num, den, den_col, (tot_num, tot_den, tot_excl, tot_unrecv, tot_nogold) = merged
    plans, judges, orders, subsets, bench = ctx.plans, ctx.judges, ctx.orders, ctx.subsets, ctx.bench
    with np.errstate(invalid="ignore", divide="ignore"):
        val = np.where(tot_den > 0, 100.0 * tot_num / np.where(tot_den > 0, tot_den, 1.0), np.nan)
    nj = len(judges)
    at = {k: t * nj + np.arange(nj) for t, k in enumerate(types)}  # cell columns of every judge
    n_named = len([t for t in subsets[1:] if t != MISSING_SUBSET])
    missing = f"; the {MISSING_SUBSET} subset is shown beside it, not averaged in" if MISSING_SUBSET in subsets else ""
    zero = np.zeros(nj)
    cols = []  # per spec: columns over judges, read below judge by judge
    for s, cond, metric, kind, keys in _row_specs(plans, subsets, ctx.partial_gold):
        ks = [at[k] for k in keys]
        if kind == "none":
            v, code, use = np.full(nj, np.nan), NONE, []
        elif kind == "cell":
            v, code, use = val[ks[0]], CELL, ks[:1]
        elif kind == "macro":
            v, code, use = np.array([float(np.mean(val[[k[j] for k in ks]])) for j in range(nj)]), MACRO, ks
        elif kind == "diff":
            v, code = val[ks[0]] - val[ks[1]], DIFF
            use = ks if metric == "surface_gap" else ks[:1]
        else:  # prod: accuracy x conditional supported, both in percent
            v, code, use = val[ks[0]] * val[ks[1]] / 100.0, PROD, ks[:1]
        sums = []
        for t in (tot_den, tot_excl, tot_unrecv, tot_nogold):  # added in the order of use (the same sums)
            acc = zero
            for k in use:
                acc = acc + t[k]
            sums.append(acc)
        n, ex, unrecv, nogold = sums
        plan = None if cond == "overall" else plans[cond]
        empty = np.isnan(v)
        # nothing to score: the items lack gold (a preference-only source), else not measurable here
        given = "" if cond == "overall" else plan.status
        status = [(NEEDS_GOLD if no_gold else "unavailable") if e else given
                  for e, no_gold in zip(empty.tolist(), ((nogold > 0) & (n == 0)).tolist())]
        n_int = np.rint(n).astype(np.int64).tolist()
        stem = _operator_stem(plan, cond, metric, s, orders)
        if plan is not None and plan.kind == "none":
            operator = [stem] * nj
        elif cond == "overall" and s == "all" and len(subsets) > 1:
            operator = ([f"{_OPS['macro_pa']} over {n_named} named subsets (n={m}){missing}" for m in n_int]
                        if metric == "macro_pa" else
                        [f"{stem} (n={m})".replace(" on all items", " on all items (micro: item-weighted)")
                         for m in n_int])
        else:
            operator = [f"{stem} (n={m})" for m in n_int]
        cols.append({
            "subset": s, "condition": cond, "metric": metric,
            "value": [None if e else x for e, x in zip(empty.tolist(), v.tolist())],
            "n_items": n_int, "n_excluded": np.rint(ex).astype(np.int64).tolist(),
            "n_not_received": np.rint(unrecv).astype(np.int64).tolist(), "status": status, "operator": operator,
            "primary": metric == PRIMARY_METRIC[cond] or (metric == "pa" and plan is not None
                                                          and plan.kind == "subset_gap"),
            "kind": np.where(empty, NONE, code).tolist(), "k0": (ks[0] if ks else zero.astype(np.int64)).tolist(),
            "k1": (ks[1] if len(ks) > 1 else zero.astype(np.int64)).tolist(), "ks": ks if code == MACRO else None})
    rows, kinds, k0, k1, macro = [], [], [], [], []
    for j, judge in enumerate(judges):
        for c in cols:
            if c["ks"] is not None and c["kind"][j] == MACRO:
                macro.append((len(rows), tuple(int(k[j]) for k in c["ks"])))
            kinds.append(c["kind"][j])
            k0.append(c["k0"][j])
            k1.append(c["k1"][j])
            rows.append({
                "judge": judge, "benchmark": bench, "subset": c["subset"], "condition": c["condition"],
                "metric": c["metric"], "value": c["value"][j], "n_items": c["n_items"][j],
                "n_excluded": c["n_excluded"][j], "n_not_received": c["n_not_received"][j],
                "status": c["status"][j], "operator": c["operator"][j], "primary": c["primary"],
            })
    strata = np.empty(ctx.n_base, dtype=np.asarray(ctx.strata).dtype)
    strata[ctx.position] = ctx.strata  # the rows' strata: sorted (the sums are in stratum order)
    return BenchStats(bench, ctx.n_base, strata, num, den, np.asarray(den_col, dtype=np.int64),
                      tuple(rows), np.asarray(kinds, dtype=np.int8), np.asarray(k0, dtype=np.int64),
                      np.asarray(k1, dtype=np.int64), macro=tuple(macro), notices=tuple(ctx.notices))


def stats_from_parts(ds_small: Dataset, benches: list[str], judge_list: list[str], by_subset: bool,
                     facts: pl.DataFrame, bench_names: list[str], run_parts,
                     failures: str = "count", *, one_at_a_time: bool = False,
                     on_stats=None, judged: dict | None = None, coded_items: dict | None = None
                     ) -> tuple[BenchStats, ...]:
    """Sufficient statistics of every benchmark, with the per-base sums computed by ``run_parts``.

    Parameters
    ----------
    ds_small : Dataset
        Items and declarations of the data, and judgments enough for
        :func:`cap_core.profile.coverage.plan_benchmark` (orders, evaluated rationales).
    facts : polars.DataFrame
        Distinct ``b``, ``g``, ``o`` of the coded judgments (:func:`cap_core.profile.units.code_judgments`).
    bench_names : list of str
        Names the ``b`` codes index.
    run_parts : callable
        ``run_parts(contexts)`` with ``{benchmark: BenchContext}`` returns ``{benchmark:
        [PartCells, ...]}`` (the engine's work: every base item in exactly one part).
    failures : {"count", "exclude"}
        The rule for failed judgments (:data:`cap_core.verdicts.FAILURE_RULES`).
    one_at_a_time : bool
        Call ``run_parts`` with one benchmark at a time and finish each before the next,
        the benchmark with the most items first (the memory engine: a benchmark's statistics
        are ready before the next is built). The result is in ``benches`` order either way.
    on_stats : callable, optional
        ``on_stats(BenchStats)`` as each benchmark's statistics are ready (e.g. to start its
        bootstrap at once).
    judged : dict, optional
        :func:`cap_core.profile.coverage.judgment_facts` of ``ds_small.judgments`` when the caller
        has them.
    coded_items : dict, optional
        :func:`cap_core.profile.item_codes.code_items` of ``ds_small.items`` when the caller has them.
    """
    coded_items = code_items(ds_small.items) if coded_items is None else coded_items  # one query, every benchmark
    idx = np.zeros(ds_small.items.height, dtype=np.int64)  # each item's row within its benchmark
    for rows, _ in coded_items.values():
        idx[rows] = np.arange(rows.size)
    items = ds_small.items.hstack([pl.Series("idx", idx)])
    # orders and evaluated rationales, every benchmark at once
    per_bench = judgment_facts(ds_small.judgments) if judged is None else judged
    fb, fg, fo = (facts.get_column(c).to_numpy() for c in ("b", "g", "o"))

    def context(bench: str) -> BenchContext | None:
        at = fb == bench_names.index(bench) if bench in bench_names else np.zeros(0, dtype=bool)
        if not at.any():
            return None
        orders = tuple(("AB", "BA")[k] for k in np.unique(fo[at]))
        codes = coded_items[bench][1]
        plans = plan_benchmark(ds_small, bench, per_bench.get(bench, {"orders": [], "n8": 0}), codes=codes)
        return bench_context(bench, _rows(items, coded_items[bench][0]), np.unique(fg[at]), orders, judge_list,
                             plans, by_subset, failures, codes=codes)

    def finish(ctx: BenchContext, parts: list) -> BenchStats:
        st = _bench_rows(ctx, merge_cells(ctx, parts))
        if on_stats is not None:
            on_stats(st)
        return st

    if one_at_a_time:
        # largest first (most items): its bootstrap (on_stats) then runs while the smaller ones are built
        done = {}
        for bench in sorted(benches, key=lambda b: -coded_items[b][0].size if b in coded_items else 0):
            ctx = context(bench)
            if ctx is not None:
                done[bench] = finish(ctx, run_parts({bench: ctx})[bench])
        return tuple(done[b] for b in benches if b in done)
    contexts = {bench: ctx for bench in benches if (ctx := context(bench)) is not None}
    parts = run_parts(contexts)
    return tuple(finish(ctx, parts[bench]) for bench, ctx in contexts.items())


def _rows(frame: pl.DataFrame, rows: np.ndarray) -> pl.DataFrame:
    """``frame``'s rows ``rows`` (ascending int64): a slice (no copy) when they are consecutive."""
    if rows.size and rows[-1] - rows[0] + 1 == rows.size:
        return frame.slice(int(rows[0]), int(rows.size))
    return frame[rows]


def distinct_bgo(coded: pl.DataFrame, n_judges: int) -> pl.DataFrame:
    """Distinct (``b`` Int32, ``g`` Int64, ``o`` Int8) of coded judgments, through one integer key
    (hashing one Int64 column is several times cheaper than hashing rows of three)."""
    j = max(1, int(n_judges))
    k = ((pl.col("b").cast(pl.Int64) * j + pl.col("g").cast(pl.Int64)) * 2 + pl.col("o").cast(pl.Int64)).unique()
    key = coded.select(k.alias("k")).get_column("k")
    return pl.DataFrame({"b": (key // (2 * j)).cast(pl.Int32), "g": ((key // 2) % j).cast(pl.Int64),
                         "o": (key % 2).cast(pl.Int8)})


def profile_stats(ds: Dataset, benches: list[str], judge_list: list[str], by_subset: bool,
                  failures: str = "count", on_stats=None) -> tuple[BenchStats, ...]:
    """Sufficient statistics of the profile of ``ds`` (validated names), kept per dataset fingerprint.

    ``on_stats(BenchStats)`` is called as each benchmark's statistics are built (not when they
    come from the cache)."""
    def build():
        coded_items = code_items(ds.items)
        key, names = item_key(ds.items, coded=coded_items)
        # the verdict codes and the judgment facts of the plans, collected together
        coded, *facts_got = pl.collect_all([code_judgments(ds.judgments, key, judge_list),
                                            *judgment_facts_queries(ds.judgments)])
        facts = distinct_bgo(coded, len(judge_list))
        # one benchmark: the codes as they are; several: one copy split by benchmark, the whole freed
        b = coded.get_column("b").to_numpy()
        codes_b, first = np.unique(b, return_index=True)
        single = codes_b.size == 1
        # partitions in the order of first appearance, which is that of their codes' first rows
        parts = [coded] if single else coded.partition_by("b", maintain_order=True)
        coded_by = {(int(k),): part for k, part in zip(codes_b[np.argsort(first)], parts)}
        del coded, parts, b

        def run_parts(contexts):  # in memory: each benchmark is one part
            return {bench: [partition_cells(ctx, ctx.items, coded_by[(names.index(bench),)])]
                    for bench, ctx in contexts.items()}
        return stats_from_parts(ds, benches, judge_list, bool(by_subset), facts, names, run_parts, failures,
                                one_at_a_time=True, on_stats=on_stats, judged=facts_of(*facts_got),
                                coded_items=coded_items)

    # keyed by the data, the selection and the verdict rules in force (a patched rule is a different key)
    key = ("profile", ds.fingerprint(), tuple(benches), tuple(judge_list), bool(by_subset), failures,
           verdicts.verdict_flags, verdicts.counted)
    return cached_stats(key, build)


def profile_from_stats(stats, n_resamples: int, seed: int, level: float, blocks: list | None = None) -> ProfileResult:
    """The :class:`ProfileResult` of sufficient statistics (bootstrap of :func:`compute_profile`).

    ``blocks``: the benchmarks' replicates and bounds when already computed
    (:func:`cap_core.profile.engine.replicate_benchmarks`' output for ``stats``)."""
    if blocks is None:
        blocks = replicate_benchmarks(stats, int(n_resamples), int(seed), float(level))
    rows = [r for st in stats for r in st.rows]
    reps = np.column_stack([b[0] for b in blocks]) if blocks else np.zeros((n_resamples, 0))
    low = np.concatenate([b[1] for b in blocks]) if blocks else np.zeros(0)
    high = np.concatenate([b[2] for b in blocks]) if blocks else np.zeros(0)
    if not rows:
        return ProfileResult(profile=pl.DataFrame(schema=PROFILE_SCHEMA), replicates=reps,
                             n_resamples=int(n_resamples), seed=int(seed), level=float(level), notices=())
    # built column by column: a value without replicates (or a one-unit cell) is its own interval
    value = np.array([np.nan if r["value"] is None else r["value"] for r in rows], dtype=np.float64)
    single = np.array([r["n_items"] == 1 for r in rows], dtype=bool)
    if not reps.shape[1]:
        low = high = np.full(len(rows), np.nan)
    own = np.isnan(low) | single | np.isnan(value)
    ci_low = np.where(own, value, low)  # NaN (null) where there is no value
    ci_high = np.where(own, value, high)
    cols = {c: [r[c] for r in rows] for c in PROFILE_SCHEMA if c not in ("ci_low", "ci_high", "source")}
    profile = pl.DataFrame({
        **{c: pl.Series(c, v, dtype=PROFILE_SCHEMA[c]) for c, v in cols.items()},
        "ci_low": pl.Series("ci_low", ci_low, dtype=pl.Float64, nan_to_null=True),
        "ci_high": pl.Series("ci_high", ci_high, dtype=pl.Float64, nan_to_null=True),
        "source": pl.Series("source", ["computed"] * len(rows), dtype=PROFILE_SCHEMA["source"]),
    }).select(list(PROFILE_SCHEMA))
    return ProfileResult(profile=profile, replicates=reps, n_resamples=int(n_resamples), seed=int(seed),
                         level=float(level), notices=tuple(n for st in stats for n in st.notices))


def compute_profile(
    ds: Dataset,
    *,
    n_resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    benchmarks: list[str] | None = None,
    judges: list[str] | None = None,
    by_subset: bool = False,
    failures: str = "count",
) -> ProfileResult:
    """CAP profile of every judge on every benchmark, with shared bootstrap CIs.

    Parameters
    ----------
    ds : Dataset
        Validated items, judgments and declarations.
    n_resamples : int, default 1000
        Bootstrap resamples (CAP §3.3 uses 1,000).
    seed : int, default 0
        Seed; benchmark ``b`` uses ``resample_counts(n_base_b, n_resamples,
        benchmark_seed(seed, b), strata)`` with its base items sorted by
        ``base_item_id``, so different benchmarks resample independently.
    level : float, default 0.95
        Confidence level, a fraction in (0, 1).
    benchmarks, judges : list of str, optional
        Restrict to these names (default: all in ``ds``).
    by_subset : bool, default False
        Also emit overall and C7 rows per native ``subset``.
    failures : {"count", "exclude"}, default "count"
        What a failed judgment (``unparsed`` or a missing order) does: ``count`` keeps
        the unit in ``n_items``, never correct; ``exclude`` drops it from ``n_items``
        (CAP App. L: API and parse failures lower n). Both count it in ``n_excluded``.
        Items a judge has no judgment on are outside its ``n_items`` under either rule
        (``n_not_received``; :mod:`cap_core.verdicts`).

    Returns
    -------
    ProfileResult
        ``profile`` in :data:`PROFILE_SCHEMA` (value/ci_low/ci_high in percent, null
        when not measurable; ``n_items``/``n_excluded`` Int64) with one row per
        (judge, benchmark, subset, condition, metric) and exactly one ``primary``
        row per (judge, benchmark, subset, condition); ``replicates`` of shape
        ``(n_resamples, profile.height)`` in percent. Conditions the benchmark
        cannot measure appear as one null row with status ``unavailable``; a metric
        that needs gold on items that have none, with status :data:`NEEDS_GOLD`. Judges
        get rows only on benchmarks where they have judgments. Rules: module doc.
        The per-base-item statistics are computed once per (dataset fingerprint,
        benchmarks, judges, ``by_subset``) and kept (:mod:`cap_core.profile.engine`):
        another seed, level or number of resamples only resamples them.

    Raises
    ------
    CAPInputError
        ``ds`` not a Dataset; ``n_resamples`` not a positive integer; ``seed`` not a
        non-negative integer; ``level`` outside (0, 1); unknown benchmark or judge
        names (the message lists the allowed ones); several items of one variant
        under one base item; ``failures`` not a rule of
        :data:`cap_core.verdicts.FAILURE_RULES`.
    """
    benches, judge_list = _compute_profile_iv(ds, n_resamples, seed, level, benchmarks, judges)
    failures = verdicts.check_failures(failures)
    # statistics to build (new data): each benchmark's bootstrap starts on a worker thread as soon as its
    # statistics exist, while the next benchmark is built (the same replicates as one after the other)
    with BootstrapAhead(int(n_resamples), int(seed), float(level)) as ahead:
        stats = profile_stats(ds, benches, judge_list, bool(by_subset), failures, on_stats=ahead.submit)
        return profile_from_stats(stats, n_resamples, seed, level, ahead.blocks(stats))
