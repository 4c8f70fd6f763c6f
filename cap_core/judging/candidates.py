"""Candidate judges beside the reference judges of a public benchmark (bring your own judge).

:func:`evaluate_candidates` reads a benchmark with its texts from the user's local copy
(:func:`cap_core.judging.benchmarks.load_benchmark`), keeps the chosen items
(:func:`select_items`), judges them with the candidate models through the ordinary
judging run (:func:`cap_core.judging.run.run_judging`: both orders, cache, claims,
budget, resume) and writes ONE dataset in which the candidates' judgments join the
benchmark's published judgments on the same items and base-item ids. Every analysis
and page therefore compares them on the same items with the same bootstrap resamples
(paired intervals: :mod:`cap_core.analyses.judge_comparison`).

Restriction: the reference judges are kept on the judged items only (``--limit`` /
``--subset`` / ``only``), so no judge is scored on items another was never shown.

Augmentation (CAP §3.3 C5/C6): the chosen items are copied into a benchmark
``<benchmark>_augmented`` with their polished and length-padded variants
(:func:`cap_core.judging.augment.augment_items`). It is a benchmark of its own because
the reference judges never saw the variants: inside the original benchmark they would
be scored as missing (never correct). The originals are the same prompts as in the main
benchmark, so judging them again is served by the cache. The label-preservation check
is reported per item and variant (:func:`augmentation_report`).

Output folder (``out_dir``): ``items/judgments/declarations.parquet`` (the joined
dataset, text-free), ``run/`` (the judging run: ``run_items.parquet`` with texts,
``calls.parquet``, ``run_log.jsonl``, ``failures.csv``, ``run.json``, and
``repeats.parquet`` with ``repeats`` > 1), ``usage.csv`` (cost, latency and tokens per
judge: :mod:`cap_core.judging.usage`), ``augmentation.csv`` (with augmentation),
``reliability.csv`` (with repeats > 1: :mod:`cap_core.analyses.reliability`),
``self_preference.csv`` (where response authors are known) and ``evaluate.json``
(settings, notices; no keys).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import polars as pl

from cap_core.dataset import Dataset, save_dataset
from cap_core.errors import CAPInputError
from cap_core.judging.run import RunResult, RunSpec
from cap_core.schema import DECLARATION_SCHEMA, ITEM_TEXT_SCHEMA, ITEMS_SCHEMA

__all__ = ["EvaluateResult", "select_items", "evaluate_candidates", "augmentation_report", "check_augmentable",
           "AUGMENTED_SUFFIX"]

AUGMENTED_SUFFIX = "_augmented"


@dataclass
class EvaluateResult:
    """``dataset``: references + candidates; ``run``: the judging run; tables written to ``out_dir``."""

    out_dir: Path
    dataset: Dataset
    run: RunResult
    usage: pl.DataFrame
    augmentation: pl.DataFrame | None = None
    reliability: pl.DataFrame | None = None
    self_preference: pl.DataFrame | None = None
    notices: list[str] = field(default_factory=list)


def select_items(items: pl.DataFrame, *, only: list[str] | None = None, subsets: list[str] | None = None,
                 limit: int | None = None) -> pl.DataFrame:
    """The items to judge: benchmarks ``only`` (ids), native ``subsets``, then the first ``limit``
    base items of each benchmark (in the source's order).

    Raises
    ------
    CAPInputError
        An unknown benchmark id or subset (arguments ``only`` / ``subsets``, the ones
        present listed), ``limit`` below 1, or nothing left.
    """
    for arg, col, values in (("only", "benchmark", only), ("subsets", "subset", subsets)):
        if values:
            present = items[col].unique().sort().to_list()
            bad = [v for v in values if v not in present]
            if bad:
                raise CAPInputError(f"no items with {col} {bad[0]!r}", argument=arg, got=bad[0],
                                    expected="one of " + ", ".join(present), fix="choose a value present in the source")
            items = items.filter(pl.col(col).is_in(values))
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise CAPInputError("limit must be at least 1", argument="limit", expected="a number of base items >= 1",
                                got=limit, fix="e.g. --limit 20")
        firsts = (items.with_row_index("_r").group_by("benchmark", "base_item_id").agg(pl.col("_r").min())
                  .sort("_r").group_by("benchmark", maintain_order=True).head(limit))
        items = items.join(firsts.select("benchmark", "base_item_id"), on=["benchmark", "base_item_id"], how="semi")
    if items.height == 0:
        raise CAPInputError("no items left to judge", argument="subsets", expected="at least one item",
                            got="0 items", fix="widen --subset / --only")
    return items


def augmentation_report(originals: pl.DataFrame, dropped: pl.DataFrame, verified: bool = False) -> pl.DataFrame:
    """Per original item and variant: ``kept`` (Boolean), the ``checks`` it passed or failed and the
    ``reason`` a variant was dropped
    (length band missed, a number / negation / hedge lost, or the verifier no longer
    preferring the gold response: the label-preservation checks of
    :func:`cap_core.judging.augment.augment_items`)."""
    rows = []
    why = {r["item_id"]: r["reason"] for r in dropped.iter_rows(named=True)}
    checks = "length band; numbers, negations and hedges of the original kept" + ("; verifier" if verified else "")
    for r in originals.iter_rows(named=True):
        for kind in ("polished", "length_padded"):
            vid = f"{r['item_id']}::{kind}"
            rows.append({"benchmark": r["benchmark"], "item_id": r["item_id"], "variant": kind,
                         "kept": vid not in why, "checks": checks, "reason": why.get(vid, "")})
    return pl.DataFrame(rows, schema={"benchmark": pl.String, "item_id": pl.String, "variant": pl.String,
                                      "kept": pl.Boolean, "checks": pl.String, "reason": pl.String})


def check_augmentable(items: pl.DataFrame, benchmark: str) -> None:
    """Refuse to augment items that already carry presentation variants (a testbed folder): augmentation
    would make every variant a second time under the same item id.

    Raises
    ------
    CAPInputError
        Argument ``augment``, naming the variants found.
    """
    if "variant" not in items.columns:
        return
    have = sorted(set(items["variant"].drop_nulls().to_list()) - {"plain", "original"})
    if have:
        raise CAPInputError("the items already have presentation variants", argument="augment",
                            got=f"{benchmark}: " + ", ".join(have), expected="items without variants",
                            fix="judge them without --augment: their polished and length-padded variants are "
                                "judged already")


def _augment(items: pl.DataFrame, generator: str | None, spec: RunSpec, cache_dir) -> tuple[pl.DataFrame,
                                                                                           pl.DataFrame]:
    from cap_core.judging.augment import augment_items

    copy = items.with_columns((pl.col("benchmark") + AUGMENTED_SUFFIX).alias("benchmark"))
    if generator is None:
        out, dropped = augment_items(copy)
    else:
        from cap_core.judging.cache import JudgeCache
        from cap_core.judging.client import Budget, JudgeClient

        cache = JudgeCache(cache_dir)
        try:
            client = JudgeClient(cache, Budget(spec.budget_calls, spec.budget_usd), spec.retry, spec.concurrency)
            out, dropped = augment_items(copy, generator=generator, client=client, api_base=spec.api_base)
        finally:
            cache.close()
    return out, augmentation_report(copy, dropped)


def _declarations(reference: Dataset | None, run_dir: Path, benches: list[str]) -> pl.DataFrame:
    parts = []
    if reference is not None:
        parts.append(reference.declarations.filter(pl.col("benchmark").is_in(benches)))
    f = run_dir / "declarations.parquet"
    if f.is_file():
        parts.append(pl.read_parquet(f))
    if not parts:
        return pl.DataFrame(schema=DECLARATION_SCHEMA)
    # a published declaration wins over the run's for the same (benchmark, condition)
    return pl.concat([p.cast(DECLARATION_SCHEMA) for p in parts], how="vertical").unique(
        ["benchmark", "condition"], keep="first", maintain_order=True)


def evaluate_candidates(benchmark: str, source: str | Path, spec: RunSpec, out_dir: str | Path, *,
                        cache_dir: str | Path, only: list[str] | None = None, subsets: list[str] | None = None,
                        limit: int | None = None, augment: bool = False, generator: str | None = None,
                        families: str | Path | None = None, n_resamples: int = 1000, seed: int = 0,
                        on_progress: Callable[[dict], None] | None = None,
                        cancel: threading.Event | None = None) -> EvaluateResult:
    """Judge a public benchmark's items with candidate judges and join them to its reference judges.

    Parameters
    ----------
    benchmark : str
        A key of :data:`cap_core.judging.benchmarks.BENCHMARKS` (``judgebench``, ...).
    source : str or Path
        The user's local copy of that benchmark.
    spec : RunSpec
        Candidate models (``judges``; ``choice:<model>`` for choice-probability mode),
        orders, temperature, ``repeats``, budgets, ``api_base``.
    out_dir, cache_dir : path
        Output folder (module doc) and the judging cache.
    only, subsets, limit
        Item selection (:func:`select_items`).
    augment : bool
        Also judge style and length variants (module doc); ``generator`` rewrites them
        with a model instead of the offline rules.
    families : path, optional
        Model-family table for self-preference (default: the shipped one).
    n_resamples, seed
        Bootstrap of the reliability and self-preference intervals (base items).

    Returns
    -------
    EvaluateResult

    Raises
    ------
    CAPInputError
        Unknown benchmark or bad folder, bad selection, ``augment`` on items that already have
        variants (argument ``augment``), a candidate named like a reference judge (argument
        ``judges``), a bad spec or family table (before any call), or a run that produced no
        judgment at all (argument ``judges``, with each judge's first reason).
    """
    from cap_core.analyses import reliability as rel
    from cap_core.judging.benchmarks import load_benchmark
    from cap_core.judging.run import run_judging
    from cap_core.judging.usage import usage_summary

    spec.validate()
    family_table = rel.load_families(families)  # read before any call: a bad table costs nothing
    bench = load_benchmark(benchmark, source)
    items = select_items(bench.items, only=only, subsets=subsets, limit=limit)
    ref = bench.reference
    if ref is not None:
        clash = [j for j in spec.judges if j in set(ref.judges)]
        if clash:
            raise CAPInputError("a candidate has the name of a reference judge", argument="judges", got=clash[0],
                                expected="names not among " + ", ".join(ref.judges),
                                fix="name the candidate by its litellm model string (e.g. openai/gpt-4o-mini)")
    notices = list(bench.notices)
    report = None
    run_items = items
    if augment:
        check_augmentable(items, benchmark)
        aug, report = _augment(items, generator, spec, cache_dir)
        run_items = pl.concat([items, aug.select(items.columns)], how="vertical")
        kept = int(report["kept"].sum())
        notices.append(f"augmentation: {kept} of {report.height} variants kept; the others failed the length band "
                       "or label preservation (augmentation.csv names the reason per item)")
    out = Path(out_dir)
    res = run_judging(run_items, spec, cache_dir=cache_dir, out_dir=out / "run", on_progress=on_progress,
                      cancel=cancel)
    if res.judgments.height == 0:
        from cap_core.judging.client import one_line

        reasons = {}
        for r in res.calls.iter_rows(named=True) if res.calls.height else []:
            reasons.setdefault(r["judge"], one_line(r["reason"] or "no verdict", 200))
        raise CAPInputError("the run produced no judgments (" + ("; ".join(f"{k}: {v}" for k, v in reasons.items())
                                                                 or "no call finished") + ")",
                            argument="judges", got=", ".join(spec.judges),
                            fix=f"check the model names, keys and --api-base; per-call reasons in {out / 'run'}")
    benches = run_items["benchmark"].unique().sort().to_list()
    ds_items = run_items.select(*ITEMS_SCHEMA)
    parts = [res.judgments]
    if ref is not None:
        parts.insert(0, ref.judgments.join(items.select("benchmark", "item_id"), on=["benchmark", "item_id"],
                                           how="semi"))
    texts = run_items.select("benchmark", "item_id", *ITEM_TEXT_SCHEMA)
    ds = Dataset.build(ds_items, pl.concat(parts, how="vertical"), _declarations(ref, out / "run", benches),
                       notices=tuple(notices), texts=texts)
    save_dataset(ds, out)
    from cap_core.export import write_csv

    usage = usage_summary(ds.judgments, spec.judges)
    write_csv(usage, out / "usage.csv")
    if report is not None:
        write_csv(report, out / "augmentation.csv")
    reliability = selfpref = None
    if spec.repeats > 1 and (out / "run" / "repeats.parquet").is_file():
        reliability = rel.test_retest(ds, pl.read_parquet(out / "run" / "repeats.parquet"),
                                      n_resamples=n_resamples, seed=seed)
        write_csv(reliability, out / "reliability.csv")
    authors = run_items.select("benchmark", "item_id", "author_a", "author_b")
    if authors.select(pl.col("author_a").is_not_null().any()).item():
        selfpref = rel.self_preference(ds, authors, families=family_table,
                                       n_resamples=n_resamples, seed=seed)
        if selfpref.height:
            write_csv(selfpref, out / "self_preference.csv")
        else:
            notices.append("self-preference: no item has its two responses written by different model families "
                           "(JudgeBench names one response model per pair), so it is not measured here")
    settings = {"benchmark": bench.name, "judges": spec.judges, "orders": list(spec.orders), "repeats": spec.repeats,
                "temperature": spec.temperature, "only": only, "subsets": subsets, "limit": limit,
                "augment": augment, "generator": generator, "api_base_set": bool(spec.api_base),
                "items": items.height, "benchmarks": benches}
    from cap_core.outputs import write_file

    write_file(out / "evaluate.json", json.dumps({"settings": settings, "stats": res.stats, "notices": notices},
                                                 indent=2, default=str))
    return EvaluateResult(out, ds, res, usage, report, reliability, selfpref, notices)


#: Text columns a run needs (for the documentation of the run items).
RUN_TEXT_COLUMNS = tuple(ITEM_TEXT_SCHEMA)
