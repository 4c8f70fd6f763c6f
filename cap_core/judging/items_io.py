"""Load items with texts for a judging run (the testbed, a run directory or a table)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import ITEMS_SCHEMA, validate_items

__all__ = ["load_run_items", "TEXT_COLUMNS"]

TEXT_COLUMNS = ("question", "response_a", "response_b")
_TABLE_NAMES = ("run_items.parquet", "items.parquet", "items.jsonl", "items.json", "items.csv", "items.tsv")


def _from_frame(df: pl.DataFrame, file: str) -> pl.DataFrame:
    missing = [c for c in TEXT_COLUMNS if c not in df.columns]
    if missing:
        raise CAPInputError("items table has no texts to judge", file=file, column=missing[0],
                            expected="columns " + ", ".join(TEXT_COLUMNS) + " beside the items columns",
                            got=sorted(df.columns), fix="add the question and both responses to every item")
    if "benchmark" not in df.columns:
        df = df.with_columns(pl.lit(Path(file).stem).alias("benchmark"))
    base = validate_items(df, file=file)
    extra = [c for c in (*TEXT_COLUMNS, "error_note") if c in df.columns]
    texts = df.select("benchmark", pl.col("item_id").cast(pl.String), *[pl.col(c).cast(pl.String) for c in extra])
    bad = texts.with_row_index("_r").filter(pl.any_horizontal(pl.col(c).is_null() for c in TEXT_COLUMNS))
    if bad.height:
        raise CAPInputError("empty text in the items table", file=file, row=int(bad["_r"][0]) + 1,
                            column=next(c for c in TEXT_COLUMNS if bad[c][0] is None), expected="non-empty text",
                            fix="fill the question and both responses of every item")
    out = base.join(texts, on=["benchmark", "item_id"], how="left")
    if "error_note" not in out.columns:
        out = out.with_columns(pl.lit(None, pl.String).alias("error_note"))
    return out


def load_run_items(source: str | Path, data: bytes | None = None) -> pl.DataFrame:
    """Items with texts for :func:`cap_core.judging.run.run_judging`.

    Parameters
    ----------
    source : str or Path
        ``"testbed"`` (the built-in mini testbed), a directory holding
        ``run_items.parquet`` or ``items.{parquet,jsonl,json,csv,tsv}``, or a table file
        (with ``data`` given, the upload's name). A folder written by ``testbed build``
        (or its ``run_items.parquet``) gives its items with the review applied as it stands
        when read (:func:`cap_core.testbed.review.reviewed_items`), never a stale copy.

    Returns
    -------
    polars.DataFrame
        ITEMS_SCHEMA columns plus ``question``, ``response_a``, ``response_b``,
        ``error_note`` (String).

    Raises
    ------
    CAPInputError
        Missing path or table (argument ``items``), missing text columns, empty texts, bad
        item columns (file, row and column named).
    """
    from cap_core.io import read_table

    if str(source) == "testbed":
        from cap_core.judging.testbed import load_testbed

        return load_testbed()
    path = Path(source)
    if data is None:
        folder = path if path.is_dir() else path.parent if path.name == "run_items.parquet" else None
        if folder is not None:
            from cap_core.testbed.layout import is_testbed

            if is_testbed(folder):  # a built testbed: its items with the review applied as it stands now
                from cap_core.testbed.review import reviewed_items

                return _from_frame(reviewed_items(folder), str(folder)).select(*ITEMS_SCHEMA, *TEXT_COLUMNS,
                                                                               "error_note")
    if data is None and path.is_dir():
        found = next((path / n for n in _TABLE_NAMES if (path / n).is_file()), None)
        if found is None:
            raise CAPInputError("no items table in the directory", file=str(path), argument="items",
                                expected=" or ".join(_TABLE_NAMES),
                                fix="point --items at a table file, a run directory or 'testbed'")
        path = found
    elif data is None and not path.is_file():
        raise CAPInputError("items not found", file=str(path), argument="items",
                            expected="'testbed', a directory or a table file", fix="check the path")
    df, _notices = read_table(path, kind="items", data=data)
    out = _from_frame(df, str(path))
    return out.select(*ITEMS_SCHEMA, *TEXT_COLUMNS, "error_note")
