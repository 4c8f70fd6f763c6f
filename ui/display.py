"""Display helpers shared by the pages: rounding (downloads keep full precision; see
cap_core.export) and download buttons."""

from __future__ import annotations

from typing import Any

import polars as pl

__all__ = ["POINT_DECIMALS", "round_points", "download"]

#: Decimals shown for values in percent or points, as on the Profiles page.
POINT_DECIMALS = 1


def round_points(df: pl.DataFrame, decimals: int = POINT_DECIMALS, *, keep: tuple[str, ...] = ()) -> pl.DataFrame:
    """Every float column rounded to ``decimals`` (for tables whose floats are percent or points).

    ``keep`` names float columns left as they are (e.g. proportions or p-values).
    """
    cols = [n for n, t in df.schema.items() if t in (pl.Float32, pl.Float64) and n not in keep]
    return df.with_columns(pl.col(c).round(decimals) for c in cols) if cols else df


def download(where: Any, label: str, data: bytes, file_name: str, mime: str = "text/csv", *, key: str) -> None:
    """A download button that does not rerun the page (``on_click="ignore"``): the browser saves
    the file and nothing on the page is recomputed or reset.

    ``where`` is ``st``, ``st.sidebar`` or a column; ``data`` the file's bytes (for CSV, from
    :func:`cap_core.export.to_csv_bytes`, which neutralises spreadsheet formulas).
    """
    where.download_button(label, data, file_name, mime, key=key, on_click="ignore")
