"""Published CAP reference values (arXiv:2610.09229) as profile and coverage frames.

The CSV files under ``data/published/`` were transcribed from the paper's tables (see
``data/README.md``). This module turns them into the frames the rest of the project
uses, so published cells can be shown beside computed ones.

Metric names: the paper prints one number per cell. For C1-C4 and ``overall`` that
number is position-averaged accuracy (``pa``); for C5-C7 it is strict both-correct
(``strict``); for C8 it is the share of correct-verdict rationales judged supported
(``supported``) (CAP §3.4 and Table 12). Table 15's ``strict`` and ``consistency``
columns keep their names.

Left out of the profile frame:

- Table 18 (chance-corrected accuracy): printed as proportions, and the corrected
  values exceed 1.0 in 30 of 35 cells, so they are not percentages of anything and
  would break the 0-100 contract of profiles.
- Table 20: sample sizes only, no accuracy.
- Cells printed empty (``unavailable`` or "n.r."): coverage is given by
  :func:`load_published_coverage` instead.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core import config
from cap_core.errors import CAPInputError
from cap_core.io import read_table
from cap_core.schema import PROFILE_SCHEMA, validate_profile

__all__ = ["load_published_profiles", "load_published_coverage", "PUBLISHED_DIR", "EXCLUDED_TABLES"]

#: Default folder of the published CSVs inside the repository.
PUBLISHED_DIR = config.published_dir()
#: Tables of cap_profiles.csv that are not turned into profile rows (see module notes).
EXCLUDED_TABLES: tuple[str, ...] = ("18", "20")

_PROFILE_COLUMNS = (
    "paper", "table", "benchmark", "subset", "judge", "condition", "metric",
    "value", "ci_low", "ci_high", "n", "status",
)
_COVERAGE_COLUMNS = ("benchmark", "condition", "status", "operator", "reported_in_main")
_PRIMARY = {"pa", "strict", "supported"}


def _path_iv(path, default: str) -> Path:
    p = PUBLISHED_DIR / default if path is None else path
    if not isinstance(p, (str, Path)):
        raise CAPInputError("published table path must be a file path", got=type(p).__name__)
    p = Path(p)
    if not p.is_file():
        raise CAPInputError(
            "published table not found", file=str(p), fix="run `make data` to copy the published CSVs into data/"
        )
    return p


def _check_columns(frame: pl.DataFrame, cols, name: str) -> None:
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise CAPInputError(
            "published table lacks a column", file=name, column=missing[0], expected=", ".join(cols), got=frame.columns
        )


def _metric_expr() -> pl.Expr:
    cond, metric = pl.col("condition"), pl.col("metric")
    return (
        pl.when(metric != "raw").then(metric)
        .when(cond.is_in(["C5", "C6", "C7"])).then(pl.lit("strict"))
        .when(cond == "C8").then(pl.lit("supported"))
        .otherwise(pl.lit("pa"))
    )


def _source_expr() -> pl.Expr:
    table = pl.col("table")
    return (
        pl.when(table.str.starts_with("sec"))
        .then(pl.lit("published: CAP §") + table.str.strip_prefix("sec"))
        .otherwise(pl.lit("published: CAP Table ") + table)
    )


def load_published_coverage(path: Path | str | None = None) -> pl.DataFrame:
    """CAP Table 2 coverage statuses with the Table 12 operators.

    Parameters
    ----------
    path : pathlib.Path or str, optional
        ``cap_coverage.csv``; defaults to ``data/published/cap_coverage.csv``.

    Returns
    -------
    polars.DataFrame
        48 rows (6 benchmarks x C1-C8) with String columns ``benchmark``,
        ``condition``, ``status`` (direct / approximate / augmented / unavailable),
        ``operator`` ("" when unavailable), Boolean ``reported_in_main`` (False for
        the † cells and for unavailable cells, which report nothing) and ``source``
        (``"published: CAP Table 2"``).

    Raises
    ------
    CAPInputError
        Missing file or column.
    """
    p = _path_iv(path, "cap_coverage.csv")
    frame, _ = read_table(p, kind="published coverage")
    _check_columns(frame, _COVERAGE_COLUMNS, p.name)
    return frame.select(
        pl.col("benchmark"),
        pl.col("condition"),
        pl.col("status"),
        pl.col("operator").fill_null(""),
        (pl.col("reported_in_main").str.to_lowercase() == "true").fill_null(False).alias("reported_in_main"),
        pl.lit("published: CAP Table 2").alias("source"),
    )


def load_published_profiles(path: Path | str | None = None, coverage_path: Path | str | None = None) -> pl.DataFrame:
    """Published CAP accuracy cells as a profile frame.

    Parameters
    ----------
    path : pathlib.Path or str, optional
        ``cap_profiles.csv``; defaults to ``data/published/cap_profiles.csv``.
    coverage_path : pathlib.Path or str, optional
        ``cap_coverage.csv`` used for ``operator`` (and ``status`` when the profile row
        has none); defaults to the file next to ``path``, else ``data/published``.

    Returns
    -------
    polars.DataFrame
        :data:`cap_core.schema.PROFILE_SCHEMA`; ``value``/``ci_low``/``ci_high`` in
        percent as printed (CIs are whole numbers in the paper); ``n_items`` from the
        ``n`` column (often empty); ``n_excluded`` null; ``metric`` mapped as in the
        module notes; ``primary`` True for ``pa``/``strict``/``supported``;
        ``status`` as printed ("" for overall); ``source`` ``"published: CAP Table N"``
        (or ``"published: CAP §4.1"``). Subsets: ``hard_empirical``,
        ``hard_constructed``, ``all`` (JudgeBench) and ``full``. Judge
        ``peer_mean_non_gpt`` (Table 19) is the mean of the five non-GPT judges.
        Tables 18 and 20 and empty cells are left out.

    Raises
    ------
    CAPInputError
        Missing file or column, or a value outside 0-100.
    """
    p = _path_iv(path, "cap_profiles.csv")
    if coverage_path is None and (p.parent / "cap_coverage.csv").is_file():
        coverage_path = p.parent / "cap_coverage.csv"
    coverage = load_published_coverage(coverage_path)
    frame, _ = read_table(p, kind="published profiles")
    _check_columns(frame, _PROFILE_COLUMNS, p.name)
    frame = frame.filter(~pl.col("table").is_in(list(EXCLUDED_TABLES)) & pl.col("value").is_not_null())
    frame = frame.join(
        coverage.select("benchmark", "condition", pl.col("status").alias("_cov_status"), "operator"),
        on=["benchmark", "condition"],
        how="left",
    )
    is_overall = pl.col("condition") == "overall"
    out = frame.select(
        pl.col("judge"),
        pl.col("benchmark"),
        pl.col("subset"),
        pl.col("condition"),
        _metric_expr().alias("metric"),
        pl.col("value").cast(pl.Float64),
        pl.col("ci_low").cast(pl.Float64),
        pl.col("ci_high").cast(pl.Float64),
        pl.col("n").cast(pl.Int64).alias("n_items"),
        pl.lit(None, dtype=pl.Int64).alias("n_excluded"),
        pl.lit(None, dtype=pl.Int64).alias("n_not_received"),
        pl.when(is_overall).then(pl.lit("")).otherwise(pl.coalesce("status", "_cov_status")).alias("status"),
        pl.when(is_overall)
        .then(pl.lit("Overall accuracy over all items of the subset, position-averaged"))
        .otherwise(pl.col("operator").fill_null(""))
        .alias("operator"),
        pl.lit(False).alias("primary"),
        _source_expr().alias("source"),
    )
    out = out.with_columns(pl.col("metric").is_in(list(_PRIMARY)).alias("primary"))
    return validate_profile(out.select(list(PROFILE_SCHEMA)), file=p.name)
