"""Display helpers shared by the pages: one table format, rounding, download buttons.

Every table on a page goes through :func:`show_table`, so the product has one way to show
a number: percent and points with one decimal, coefficients (ρ, κ, P(best), AUROC) with
two, p-values with three, a missing value as "—" (never "None" or "nan"), and a tooltip
on every column that names a metric (:mod:`cap_core.glossary`). Proportions a module
computes on a 0–1 scale (Validity S and R) are shown in percent like every other rate:
name them in ``fractions=``. Downloads keep full precision (see :mod:`cap_core.export`).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable, Mapping

import polars as pl

from cap_core.glossary import column_help

__all__ = ["POINT_DECIMALS", "MISSING", "COLUMN_DECIMALS", "round_points", "cell_text", "display_frame",
           "show_table", "mostly_na", "download", "LEADERBOARD_DECIMALS"]

#: Decimals shown for values in percent or points, as on the Profiles page.
POINT_DECIMALS = 1
#: How a missing value (null, NaN) is shown in a table.
MISSING = "—"
#: Float columns that are not percent or points, and their decimals (coefficients, p-values).
COLUMN_DECIMALS: dict[str, int] = {
    "p_value": 3, "p": 3, "p_null": 3, "rho": 2, "mean_rho": 2, "mean_abs_rho": 2, "kappa": 2, "agreement_kappa": 2,
    "p_best": 2, "auroc": 2, "a_imp": 3, "published: Validity Table 7": 3, "computed (best predictor)": 3,
    "confidence": 2, "P(best)": 2, "p (Holm)": 3, "p_holm": 3, "$ / 1,000 items": 3, "usd_per_1000": 3,
    "median latency (s)": 2, "median_latency_s": 2,
}
#: Decimals of the leaderboard table's own columns (:func:`components.leaderboard.leaderboard_table`);
#: its scores, intervals and differences are points (one decimal).
LEADERBOARD_DECIMALS: dict[str, int] = {"P(best)": 2, "p (Holm)": 3, "$ / 1,000 items": 3,
                                        "median latency (s)": 2}
#: Float columns shown with as many digits as they need (thresholds on a grade scale).
GENERAL_FORMAT = ("tau", "τ", "threshold")


def round_points(df: pl.DataFrame, decimals: int = POINT_DECIMALS, *, keep: tuple[str, ...] = ()) -> pl.DataFrame:
    """Every float column rounded to ``decimals`` (for tables whose floats are percent or points).

    ``keep`` names float columns left as they are (e.g. proportions or p-values).
    """
    cols = [n for n, t in df.schema.items() if t in (pl.Float32, pl.Float64) and n not in keep]
    return df.with_columns(pl.col(c).round(decimals) for c in cols) if cols else df


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def cell_text(value: Any, decimals: int | None = POINT_DECIMALS) -> str:
    """How one table cell reads: "—" when missing; a float with ``decimals`` decimals
    (``None``: as many as it needs, ``:g``); anything else as ``str``.

    >>> cell_text(None), cell_text(float("nan")), cell_text(64.06), cell_text(0.5, None)
    ('—', '—', '64.1', '0.5')
    """
    try:
        import pandas as pd

        if value is pd.NA or value is pd.NaT:
            return MISSING
    except ImportError:  # pragma: no cover - pandas ships with streamlit
        pass
    if _missing(value):
        return MISSING
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return f"{value:g}" if decimals is None else f"{value:.{decimals}f}"
    return str(value)


def _decimals_of(col: str, decimals: Mapping[str, int | None]) -> int | None:
    if col in decimals:
        return decimals[col]
    if col in GENERAL_FORMAT:
        return None
    return COLUMN_DECIMALS.get(col, POINT_DECIMALS)


def display_frame(df: pl.DataFrame, *, fractions: Iterable[str] = (), decimals: Mapping[str, int | None] | None = None):
    """The table as a page shows it: a pandas ``Styler`` over ``df`` (values unchanged but for
    ``fractions``, multiplied by 100 into percent) whose display text is :func:`cell_text`
    of each cell, with the column's decimals (``decimals`` overrides :data:`COLUMN_DECIMALS`;
    percent and points: one).

    Returns
    -------
    pandas.io.formats.style.Styler
        ``.data`` is the frame (pandas) handed to ``st.dataframe``.
    """
    decimals = dict(decimals or {})
    frac = [c for c in fractions if c in df.columns]
    if frac:
        df = df.with_columns((pl.col(c) * 100).alias(c) for c in frac)
    pdf = df.to_pandas()
    fmt = {c: (lambda v, d=_decimals_of(c, decimals): cell_text(v, d)) for c in pdf.columns}
    return pdf.style.format(fmt, na_rep=MISSING)


def show_table(where: Any, df: pl.DataFrame, *, key: str, fractions: Iterable[str] = (),
               decimals: Mapping[str, int | None] | None = None, help: Mapping[str, str] | None = None,
               labels: Mapping[str, str] | None = None, **kwargs: Any) -> None:
    """Draw ``df`` with :func:`display_frame` and a glossary tooltip on each metric column.

    ``where`` is ``st``, ``st.sidebar`` or a column; ``fractions`` names 0–1 columns shown in
    percent (their header gains " (%)"); ``help`` adds or overrides tooltips; ``labels``
    renames headers for display only. Other keyword arguments go to ``st.dataframe``
    (``hide_index`` defaults to True).
    """
    import streamlit as st

    fractions = tuple(fractions)
    tips = {**column_help(df.columns), **dict(help or {})}
    names = dict(labels or {})
    for c in fractions:
        if c in df.columns:
            names.setdefault(c, f"{c} (%)")
    frac = [c for c in fractions if c in df.columns]
    if frac:
        df = df.with_columns((pl.col(c) * 100).alias(c) for c in frac)
    # the grid formats the numbers itself (a printf format per float column, cell_text's rule) and draws
    # missing cells as "—": no per-cell formatting in Python, which costs tens of ms per table on every rerun
    decimals = dict(decimals or {})
    config = {}
    for c, dtype in df.schema.items():
        label, tip = names.get(c, c), tips.get(c)
        if dtype.is_float():
            d = _decimals_of(c, decimals)
            config[c] = st.column_config.NumberColumn(label, help=tip, format="%g" if d is None else f"%.{d}f")
        elif c in tips or c in names:
            config[c] = st.column_config.Column(label, help=tip)
    kwargs.setdefault("hide_index", True)
    kwargs.setdefault("placeholder", MISSING)  # the grid draws a missing cell itself: "—", not "None"
    if config:
        kwargs["column_config"] = {**config, **kwargs.get("column_config", {})}
    where.dataframe(arrow_table(df.with_columns(pl.col(pl.Float64, pl.Float32).fill_nan(None))), key=key, **kwargs)


def arrow_table(df: pl.DataFrame):
    """``df`` as the Arrow table ``st.dataframe`` sends as it is (a polars frame would be turned into a
    pandas one first, on every run; pandas is then not needed to draw a table). Arrow types every
    browser reads: strings as ``large_string``, lists as ``large_list`` (``CompatLevel.oldest``)."""
    return df.to_arrow(compat_level=pl.CompatLevel.oldest())


def mostly_na(frame: pl.DataFrame, what: str = "pairs", *, status: str = "status", reason: str = "reason",
              share: float = 0.5) -> str | None:
    """One line saying why a grid is mostly "n/a", or None when at most ``share`` of its rows are.

    ``frame`` has one row per grid cell pair with a ``status`` column (``"ok"`` or not) and,
    optionally, a ``reason`` column; the line counts the n/a rows and names their reasons,
    most frequent first, e.g. ``"25 of 28 pairs are n/a: 1 shared judge; a rank correlation
    needs at least 3 (25)."``.
    """
    if frame.height == 0 or status not in frame.columns:
        return None
    na = frame.filter(pl.col(status) != "ok")
    if na.height <= share * frame.height:
        return None
    reasons = ""
    if reason in frame.columns:
        counts = (na.with_columns(pl.col(reason).fill_null("").replace("", "no reason given"))
                  .group_by(reason).len().sort(["len", reason], descending=[True, False]))
        reasons = ": " + "; ".join(f"{r} ({n})" for r, n in counts.iter_rows())
    return f"{na.height} of {frame.height} {what} are n/a{reasons}."


def download(where: Any, label: str, data: bytes | Callable[[], bytes], file_name: str, mime: str = "text/csv", *,
             key: str) -> None:
    """A download button that does not rerun the page (``on_click="ignore"``): the browser saves
    the file and nothing on the page is recomputed or reset.

    ``where`` is ``st``, ``st.sidebar`` or a column; ``data`` the file's bytes (for CSV, from
    :func:`cap_core.export.to_csv_bytes`, which neutralises spreadsheet formulas), or a function
    returning them that streamlit calls only when the button is clicked (for a costly file).
    """
    where.download_button(label, data, file_name, mime, key=key, on_click="ignore")
