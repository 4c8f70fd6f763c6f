"""The notebook API: the main steps of CAP Studio as plain functions, frames in and out.

``import cap_core`` exposes these names lazily (the profile function is
``compute_profile``: ``cap_core.profile`` is the profile package) (nothing below is imported until first
use). Every function that takes tables accepts **pandas or polars** data frames; every
function that returns a table returns polars by default and pandas with
``output="pandas"``. A *data* argument is a :class:`cap_core.dataset.Dataset`, the path
of a dataset folder, or ``None`` for the embedded default data (LLMBar and JudgeBench
judges, text-free).

==================  ===========================================================================
``load``            a dataset folder (or the embedded default data) -> Dataset
``from_frames``     items / judgments (/ declarations) frames -> validated Dataset
``import_source``   any kind of the import registry (tables, LLMBar, JudgeBench, tools' files) -> Dataset
``tables``          a Dataset's items / judgments / declarations as frames
``compute_profile`` CAP profile: one row per judge x benchmark x condition x metric (percent, 95% CI)
``weighted_scores`` a weighted CAP score per judge with its interval and P(best)
``compare``         paired difference of two judges per condition (shared resamples)
``benchmark_items`` a public benchmark's items WITH their texts, from your local copy
``evaluate``        judge a benchmark with your candidate models beside its published judges
==================  ===========================================================================

Definitions: CAP §3 (conditions, bootstrap), Jev §3.5 (paired comparison).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from cap_core.errors import CAPInputError

__all__ = ["load", "from_frames", "import_source", "tables", "compute_profile", "weighted_scores", "compare",
           "choose", "benchmark_items", "evaluate"]

_OUTPUTS = ("polars", "pandas")


def _polars(frame: Any, argument: str):
    """A polars DataFrame from a polars or pandas frame (CAPInputError for anything else)."""
    import polars as pl

    if isinstance(frame, pl.DataFrame):
        return frame
    if type(frame).__module__.startswith("pandas") and hasattr(frame, "columns"):
        return pl.from_pandas(frame)
    raise CAPInputError("a data frame is needed", argument=argument, expected="a pandas or polars DataFrame",
                        got=type(frame).__name__, fix="pass e.g. pandas.read_csv(...) or polars.read_csv(...)")


def _out(frame, output: str):
    if output not in _OUTPUTS:
        raise CAPInputError("unknown output kind", argument="output", expected="polars or pandas", got=output)
    return frame.to_pandas() if output == "pandas" else frame


def _data(data):
    from cap_core.dataset import Dataset

    if isinstance(data, Dataset):
        return data
    if data is None:
        from cap_core.config import default_data_dir

        return load(default_data_dir())
    if isinstance(data, (str, Path)):
        return load(data)
    raise CAPInputError("data must be a Dataset, a dataset folder or None (the embedded data)", argument="data",
                        got=type(data).__name__, fix="pass cap_core.load(...) or a folder path")


def load(path: str | Path | None = None):
    """Read a dataset folder (``items/judgments/declarations.parquet``); ``None`` = the embedded default data.

    Raises
    ------
    CAPInputError
        ``path`` not a str, Path or None; missing or invalid folder (file, row and column named).
    """
    from cap_core.dataset import load_dataset

    if path is None:
        from cap_core.config import default_data_dir

        path = default_data_dir()
    if not isinstance(path, (str, Path)):
        raise CAPInputError("path must be a dataset folder (str or pathlib.Path) or None (the embedded data)",
                            argument="path", got=type(path).__name__, fix="pass e.g. cap_core.load('my_dataset')")
    return load_dataset(path)


def from_frames(items, judgments, declarations=None):
    """A validated Dataset from pandas or polars frames in the documented schema
    (:mod:`cap_core.schema`: ``items`` needs ``benchmark``, ``item_id``, ``gold``;
    ``judgments`` needs ``judge``, ``benchmark``, ``item_id``, ``order``, ``verdict``).

    Raises
    ------
    CAPInputError
        Not a data frame (argument named), or any schema violation (row and column named).
    """
    from cap_core.dataset import Dataset

    return Dataset.build(_polars(items, "items"), _polars(judgments, "judgments"),
                         None if declarations is None else _polars(declarations, "declarations"))


def import_source(kind: str, path: str | Path, **options):
    """Import judge outputs of any kind of the import registry (:mod:`cap_core.importers.formats`).

    Parameters
    ----------
    kind : str
        One of :data:`cap_core.importers.formats.KINDS`: ``"table"`` (your own tables),
        ``"llmbar"``, ``"judgebench"``, ``"pandalm"``, ``"alpacaeval"``, ``"mtbench"``,
        ``"arena-hard"``, ``"inspect"``, ``"autoj"``, ``"rewardbench"``.
    path : str or Path
        What the kind reads (``FORMATS[kind].path``): e.g. the LLMBar Dataset folder, an
        MT-Bench judgment file, or, for ``table``, the items table.
    **options
        The options the kind takes (``FORMATS[kind].options``): ``gold_judge=`` / ``gold=``
        for the tools, ``baseline=`` (Arena-Hard v0.1), ``strategies=`` (LLMBar; default
        every strategy present), ``fork=`` (JudgeBench), ``judgments=`` / ``declarations=``
        (table).

    Raises
    ------
    CAPInputError
        Unknown kind (argument ``kind``), an option the kind does not take (the option
        named), or the importer's errors.
    """
    from cap_core.importers.formats import read

    return read(kind, path, **options)


def tables(data=None, *, output: str = "polars") -> dict:
    """``{"items": ..., "judgments": ..., "declarations": ...}`` frames of a dataset."""
    ds = _data(data)
    return {name: _out(getattr(ds, name), output) for name in ("items", "judgments", "declarations")}


def compute_profile(data=None, *, benchmarks: list[str] | None = None, judges: list[str] | None = None,
            n_resamples: int = 1000, seed: int = 0, by_subset: bool = False, failures: str = "count",
            output: str = "polars"):
    """CAP profile (:data:`cap_core.schema.PROFILE_SCHEMA`; ``value``, ``ci_low``, ``ci_high`` in
    percent) from :func:`cap_core.profile.conditions.compute_profile`, as a frame. Each judge is
    scored on the items it received; ``failures`` is ``count`` or ``exclude`` (CAP App. L).

    Raises
    ------
    CAPInputError
        Unknown benchmark or judge, bad bootstrap arguments, unknown failure rule.
    """
    from cap_core.profile.conditions import compute_profile as _compute

    res = _compute(_data(data), n_resamples=n_resamples, seed=seed, benchmarks=benchmarks, judges=judges,
                   by_subset=by_subset, failures=failures)
    return _out(res.profile, output)


def weighted_scores(data=None, weights: str | Mapping[str, float] = "balanced", *,
                    benchmarks: list[str] | None = None, judges: list[str] | None = None, n_resamples: int = 1000,
                    seed: int = 0, failures: str = "count", output: str = "polars"):
    """Weighted CAP score per judge and benchmark, its interval and P(best)
    (:func:`cap_core.profile.weights.weighted_scores`; percent).

    Parameters
    ----------
    weights : str or mapping
        A preset name of :data:`cap_core.profile.weights.PRESETS` (``"balanced"``,
        ``"long-form"``, ...) or ``{condition id: weight}``.

    Raises
    ------
    CAPInputError
        Unknown preset (argument ``weights``) or bad weights; as :func:`profile`.
    """
    from cap_core.profile.conditions import compute_profile
    from cap_core.profile.weights import PRESETS
    from cap_core.profile.weights import weighted_scores as _weighted

    if isinstance(weights, str):
        if weights not in PRESETS:
            raise CAPInputError("unknown weight preset", argument="weights", got=weights,
                                expected="one of " + ", ".join(PRESETS) + " or a {condition: weight} mapping")
        weights = PRESETS[weights]
    res = compute_profile(_data(data), n_resamples=n_resamples, seed=seed, benchmarks=benchmarks, judges=judges,
                          failures=failures)
    return _out(_weighted(res.profile, res.replicates, weights, seed=seed), output)


def choose(data, benchmark: str, weights: str | Mapping[str, float] = "balanced", *, minimums: str = "",
           judges: list[str] | None = None, items: str = "shared", failures: str = "count",
           n_resamples: int = 1000, seed: int = 0, level: float = 0.95, output: str = "polars"):
    """The leaderboard of one benchmark under condition weights (CAP §5), as the CLI's ``choose`` and the
    dashboard's Choose page compute it (:func:`cap_core.choice.pipeline.run_choice`).

    Parameters
    ----------
    weights : str or mapping
        A preset name or ``{condition id: weight}``.
    minimums : str
        Condition minimums, e.g. ``"C7=60,C1.low=50"`` (percent).
    items : {"shared", "own"}
        Judges compared on the items all of them received (default) or each on its own.
    failures : {"count", "exclude"}
        The rule for failed judgments (CAP App. L).

    Returns
    -------
    Frame of :data:`cap_core.choice.leaderboard.LEADERBOARD_SCHEMA` plus the weights and provenance
    columns of :func:`cap_core.choice.exports.scores_export` (scores in percent).

    Raises
    ------
    CAPInputError
        Unknown benchmark, preset or judge; bad weights, minimums or settings.
    """
    from cap_core.choice.filters import parse_filters
    from cap_core.choice.pipeline import run_choice
    from cap_core.profile.weights import PRESETS

    if isinstance(weights, str):
        if weights not in PRESETS:
            raise CAPInputError("unknown weight preset", argument="weights", got=weights,
                                expected="one of " + ", ".join(PRESETS) + " or a {condition: weight} mapping")
        weights = PRESETS[weights]
    ds = _data(data)
    if benchmark not in ds.benchmarks:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=benchmark,
                            expected="one of " + ", ".join(ds.benchmarks))
    got = run_choice(ds, benchmark, weights, filters=parse_filters(minimums, argument="minimums"), judges=judges,
                     items=items, failures=failures, n_resamples=n_resamples, seed=seed, level=level)
    return _out(got.scores, output)


def compare(data, judge_a: str, judge_b: str, benchmark: str, *, n_resamples: int = 1000, seed: int = 0,
            margin: float = 5.0, failures: str = "count", output: str = "polars"):
    """Paired difference A - B per condition on the jointly scored items, with 95% and 90% intervals
    and a verdict (separated / parity within ``margin`` points / inconclusive):
    :func:`cap_core.analyses.judge_comparison.compare_judges`.

    Raises
    ------
    CAPInputError
        A judge without verdicts on the benchmark; bad bootstrap arguments.
    """
    from cap_core.analyses.judge_comparison import compare_judges

    return _out(compare_judges(_data(data), judge_a, judge_b, benchmark, n_resamples=n_resamples, seed=seed,
                               margin=margin, failures=failures), output)


def benchmark_items(benchmark: str, source: str | Path, *, output: str = "polars"):
    """A public benchmark's items with their texts and response authors, read from your local copy
    (:func:`cap_core.judging.benchmarks.load_benchmark`; names in
    :data:`cap_core.judging.benchmarks.BENCHMARKS`)."""
    from cap_core.judging.benchmarks import load_benchmark

    return _out(load_benchmark(benchmark, source).items, output)


def evaluate(benchmark: str, source: str | Path, models: list[str], out: str | Path, *,
             api_base: str | None = None, limit: int | None = None, only: list[str] | None = None,
             subsets: list[str] | None = None, orders: tuple[str, ...] = ("AB", "BA"), repeats: int = 1,
             temperature: float | None = None, augment: bool = False, budget_calls: int | None = None,
             budget_usd: float | None = None, concurrency: int = 4, cache_dir: str | Path | None = None,
             n_resamples: int = 1000, seed: int = 0, output: str = "polars") -> dict:
    """Judge a benchmark with candidate models beside its published judges (the ``evaluate`` verb).

    Parameters
    ----------
    benchmark, source
        As :func:`benchmark_items`.
    models : list of str
        litellm model strings; ``choice:<model>`` for a choice-probability judge.
    out : path
        Output dataset folder (see :mod:`cap_core.judging.candidates`).
    repeats, temperature
        Test-retest repeats; the temperature defaults to 0, or 0.7 with ``repeats`` > 1.

    Returns
    -------
    dict
        ``dataset`` (Dataset: references + candidates), ``usage`` (cost, latency, tokens
        per judge), ``reliability`` / ``self_preference`` / ``augmentation`` (frames or
        None), ``estimate`` (the cost estimate made before any call), ``stats``.

    Raises
    ------
    CAPInputError
        As :func:`cap_core.judging.candidates.evaluate_candidates`.
    """
    from cap_core.config import cache_dir as default_cache
    from cap_core.judging.benchmarks import load_benchmark
    from cap_core.judging.candidates import evaluate_candidates, select_items
    from cap_core.judging.estimate import estimate_run
    from cap_core.judging.run import RunSpec

    if isinstance(models, str):
        models = [models]
    temp = temperature if temperature is not None else (0.7 if repeats > 1 else 0.0)
    spec = RunSpec(judges=list(models), orders=tuple(orders), repeats=repeats, temperature=temp, api_base=api_base,
                   budget_calls=budget_calls, budget_usd=budget_usd, concurrency=concurrency)
    spec.validate()
    cache = cache_dir or default_cache()
    est = estimate_run(select_items(load_benchmark(benchmark, source).items, only=only, subsets=subsets,
                                    limit=limit), spec, cache)
    res = evaluate_candidates(benchmark, source, spec, out, cache_dir=cache, only=only, subsets=subsets, limit=limit,
                              augment=augment, n_resamples=n_resamples, seed=seed)
    frame = lambda f: None if f is None else _out(f, output)  # noqa: E731
    return {"dataset": res.dataset, "usage": frame(res.usage), "reliability": frame(res.reliability),
            "self_preference": frame(res.self_preference), "augmentation": frame(res.augmentation),
            "estimate": est, "stats": res.run.stats}
