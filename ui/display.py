"""Display rounding shared by the pages (downloads keep full precision; see cap_core.export)."""

from __future__ import annotations

import polars as pl

__all__ = ["POINT_DECIMALS", "round_points"]

#: Decimals shown for values in percent or points, as on the Profiles page.
POINT_DECIMALS = 1


def round_points(df: pl.DataFrame, decimals: int = POINT_DECIMALS, *, keep: tuple[str, ...] = ()) -> pl.DataFrame:
    """Every float column rounded to ``decimals`` (for tables whose floats are percent or points).

    ``keep`` names float columns left as they are (e.g. proportions or p-values).
    """
    cols = [n for n, t in df.schema.items() if t in (pl.Float32, pl.Float64) and n not in keep]
    return df.with_columns(pl.col(c).round(decimals) for c in cols) if cols else df
