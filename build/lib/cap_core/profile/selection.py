"""Pick one value per (judge, condition) out of a profile frame.

The cross-benchmark analyses (rank stability, stress, family distance) compare the
headline number of a condition across judges and benchmarks. A profile frame
(:data:`cap_core.schema.PROFILE_SCHEMA`, percent) can hold several subsets of one
benchmark and, for published values, the same cell from two tables (CAP prints
GPT-4o C7 on the judgerEva full set as 72.9 in Table 15 and 72.5 in Table 19). A
*view* names one ``benchmark`` and ``subset`` as ``"benchmark:subset"``; a bare
``"benchmark"`` is accepted when the benchmark has a single subset.

Also here: :func:`published_stress_profile`, the JudgeBench-Pro cells the paper
implies (CAP Table 5 minus Table 6's δ), for use next to the published profiles.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.io import read_table
from cap_core.schema import CONDITION_IDS, PROFILE_SCHEMA, validate_profile

__all__ = ["list_views", "resolve_view", "view_cells", "published_stress_profile", "STRESS_SOURCE"]

STRESS_SOURCE = "published: CAP Table 5 minus Table 6 delta"


def _profile_iv(profile: object) -> pl.DataFrame:
    if not isinstance(profile, pl.DataFrame):
        raise CAPInputError("a profile table is needed", expected="polars.DataFrame in PROFILE_SCHEMA",
                            got=type(profile).__name__)
    missing = [c for c in ("judge", "benchmark", "subset", "condition", "metric", "value", "primary", "source")
               if c not in profile.columns]
    if missing:
        raise CAPInputError("the profile table lacks a column", column=missing[0],
                            expected="the columns written by `python -m cap_core profile`", got=profile.columns,
                            fix="compute the profile with `python -m cap_core profile` or use --published")
    return profile


def list_views(profile: pl.DataFrame) -> list[str]:
    """All ``"benchmark:subset"`` views present in ``profile`` (sorted)."""
    profile = _profile_iv(profile)
    pairs = profile.select("benchmark", "subset").unique().sort("benchmark", "subset").iter_rows()
    return [f"{b}:{s}" for b, s in pairs]


def resolve_view(profile: pl.DataFrame, view: str) -> tuple[str, str]:
    """Split a view name into ``(benchmark, subset)``.

    Raises
    ------
    CAPInputError
        Unknown benchmark or subset, or a bare benchmark with several subsets.
    """
    profile = _profile_iv(profile)
    if not isinstance(view, str) or not view:
        raise CAPInputError("a view must be a string 'benchmark' or 'benchmark:subset'", got=view)
    bench, _, subset = view.partition(":")
    subsets = sorted(profile.filter(pl.col("benchmark") == bench).get_column("subset").unique().to_list())
    if not subsets:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=bench,
                            expected="one of " + ", ".join(list_views(profile)),
                            fix="name a benchmark present in the profile table")
    if not subset:
        if len(subsets) > 1:
            raise CAPInputError(f"benchmark {bench!r} has several subsets", argument="subset", got=bench,
                                expected="one of " + ", ".join(f"{bench}:{s}" for s in subsets),
                                fix="write the view as benchmark:subset")
        subset = subsets[0]
    elif subset not in subsets:
        raise CAPInputError(f"unknown subset of {bench!r}", argument="subset", got=subset,
                            expected="one of " + ", ".join(subsets), fix="pick a subset present in the profile")
    return bench, subset


def view_cells(profile: pl.DataFrame, view: str, *, condition: str | None = None, metric: str | None = None,
               sources: list[str] | None = None, include_overall: bool = False) -> pl.DataFrame:
    """One value per (judge, condition) of a view.

    Parameters
    ----------
    profile : polars.DataFrame
        Profile frame (PROFILE_SCHEMA, value in percent).
    view : str
        ``"benchmark:subset"`` or ``"benchmark"``.
    condition : str, optional
        Keep only this condition (``"C1"`` ... ``"C8"`` or ``"overall"``).
    metric : str, optional
        Metric to use (default: the row flagged ``primary``; CAP §3.1: pa for
        C1-C4, strict for C5-C7, supported for C8).
    sources : list of str, optional
        Keep only rows whose ``source`` is listed (e.g. ``"published: CAP Table 15"``).
    include_overall : bool, default False
        Keep the ``overall`` rows (otherwise only C1-C8).

    Returns
    -------
    polars.DataFrame
        Columns ``judge``, ``condition``, ``metric``, ``value`` (Float64, percent),
        ``source``; null values dropped; sorted by judge, condition.

    Raises
    ------
    CAPInputError
        Bad view; two rows for one (judge, condition) (e.g. two published tables);
        the message names the sources to choose from.
    """
    bench, subset = resolve_view(profile, view)
    rows = profile.filter((pl.col("benchmark") == bench) & (pl.col("subset") == subset)
                          & pl.col("value").is_not_null())
    rows = rows.filter(pl.col("primary")) if metric is None else rows.filter(pl.col("metric") == metric)
    keep = list(CONDITION_IDS) + (["overall"] if include_overall else [])
    rows = rows.filter(pl.col("condition").is_in(keep))
    if condition is not None:
        rows = rows.filter(pl.col("condition") == condition)
    if sources:
        rows = rows.filter(pl.col("source").is_in(list(sources)))
    dup = rows.group_by("judge", "condition").agg(pl.col("source").unique().sort(), pl.len()).filter(pl.col("len") > 1)
    if dup.height:
        first = dup.row(0, named=True)
        # a fix that works as written: keep every source of the profile except the later duplicates
        pool = list(sources) if sources else sorted(set(profile.get_column("source").drop_nulls().to_list()))
        keep = [s for s in pool if s not in first["source"][1:]]
        raise CAPInputError(
            f"two values for {first['judge']} {first['condition']} in view {bench}:{subset}",
            column="source", got=first["source"], expected="one row per judge and condition",
            fix="keep one source per cell, e.g. (CLI) " + " ".join(f"--source '{s}'" for s in keep),
        )
    return rows.select("judge", "condition", "metric", "value", "source").sort("judge", "condition")


def published_stress_profile(profile: pl.DataFrame, stress_path: Path | str | None = None) -> pl.DataFrame:
    """JudgeBench-Pro profile cells implied by CAP Tables 5 and 6.

    CAP prints JudgeBench (Table 5, percent) and the stress drop δ = JB − JB-Pro
    (Table 6, points; C1, C2, C7) but not the JB-Pro values themselves. Here
    ``JB-Pro = JB − δ`` per judge and condition (App. M eq. 3 solved for JB-Pro).

    Parameters
    ----------
    profile : polars.DataFrame
        Published profiles (:func:`cap_core.profile.published.load_published_profiles`)
        holding the ``judgebench``/``all`` rows of Table 5.
    stress_path : path, optional
        ``cap_stress.csv`` (columns judge, condition, delta); default
        ``data/published/cap_stress.csv``.

    Returns
    -------
    polars.DataFrame
        PROFILE_SCHEMA rows with benchmark ``judgebench_pro``, subset ``all``,
        value in percent, no CI, source :data:`STRESS_SOURCE`.

    Raises
    ------
    CAPInputError
        Missing file or column, or no judge in common with Table 5.
    """
    from cap_core.profile.published import PUBLISHED_DIR

    profile = _profile_iv(profile)
    path = Path(stress_path) if stress_path is not None else PUBLISHED_DIR / "cap_stress.csv"
    if not path.is_file():
        raise CAPInputError("stress table not found", file=str(path), fix="copy cap_stress.csv into data/published/")
    delta, _ = read_table(path, kind="published stress")
    for col in ("judge", "condition", "delta"):
        if col not in delta.columns:
            raise CAPInputError("stress table lacks a column", file=path.name, column=col,
                                expected="judge, condition, delta", got=delta.columns)
    delta = delta.filter(pl.col("condition").is_in(list(CONDITION_IDS))).select(
        "judge", "condition", pl.col("delta").cast(pl.Float64))
    jb = profile.filter((pl.col("benchmark") == "judgebench") & pl.col("primary") & pl.col("value").is_not_null())
    out = jb.join(delta, on=["judge", "condition"], how="inner")
    if out.height == 0:
        raise CAPInputError("no JudgeBench cell matches the stress table", file=path.name, column="judge",
                            fix="use the published profiles (Table 5) with cap_stress.csv (Table 6)")
    out = out.with_columns(
        pl.lit("judgebench_pro").alias("benchmark"),
        (pl.col("value") - pl.col("delta")).round(6).alias("value"),
        pl.lit(None, dtype=pl.Float64).alias("ci_low"),
        pl.lit(None, dtype=pl.Float64).alias("ci_high"),
        pl.lit(None, dtype=pl.Int64).alias("n_items"),
        pl.lit("augmented").alias("status"),
        (pl.lit("JudgeBench value minus the published stress drop; ") + pl.col("operator")).alias("operator"),
        pl.lit(STRESS_SOURCE).alias("source"),
    )
    return validate_profile(out.select(list(PROFILE_SCHEMA)), file=path.name)
