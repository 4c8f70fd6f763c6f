"""Import user tables written in the documented CAP schema (see :mod:`cap_core.schema`)."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.io import JOINED, parse_json, read_table
from cap_core.schema import (
    DECLARATION_SCHEMA,
    ITEMS_SCHEMA,
    JUDGMENTS_REQUIRED,
    JUDGMENTS_SCHEMA,
    declared_variants,
    suggest_name,
    validate_declarations,
    validate_items,
    validate_judgments,
    validate_texts,
)

__all__ = ["import_table"]

_LIST_COLUMNS = ("values", "reference")


def _split_list(cell) -> list[str]:
    """Declarations list cells arrive from CSV as text: JSON list or ``;``-separated."""
    if cell is None:
        return []
    if isinstance(cell, (list, tuple)):
        return [str(x) for x in cell]
    if isinstance(cell, pl.Series):
        return [str(x) for x in cell.to_list()]
    text = str(cell).strip()
    if text.startswith("["):
        try:
            parsed = parse_json(text)
        except CAPInputError:  # not a JSON list (or too deep to read): read as ;-separated text
            parsed = None
        if isinstance(parsed, list):
            return [str(x) for x in parsed]
    return [p.strip() for p in text.split(";") if p.strip()]


def _text_cell(cell):
    """A declarations text cell as text (a number read from JSON becomes its digits)."""
    return cell if cell is None or isinstance(cell, str) else str(cell)


def _declarations(path: Path | str) -> tuple[pl.DataFrame, list[str]]:
    frame, notes = read_table(path, kind="declarations")
    name = Path(path).name
    rows = frame.to_dicts()
    for r in rows:
        for col in DECLARATION_SCHEMA:
            r[col] = _split_list(r.get(col)) if col in _LIST_COLUMNS else _text_cell(r.get(col))
    cols = {c: [r.get(c) for r in rows] for c in DECLARATION_SCHEMA}
    df = pl.DataFrame(cols, schema=DECLARATION_SCHEMA)
    return validate_declarations(df, file=name), notes


def _import_table_iv(items_path, judgments_path, declarations_path) -> None:
    for label, p, optional in (
        ("items_path", items_path, False),
        ("judgments_path", judgments_path, True),
        ("declarations_path", declarations_path, True),
    ):
        if p is None and optional:
            continue
        if not isinstance(p, (str, Path)):
            raise CAPInputError(
                f"{label} must be a file path", argument=label, expected="a str or pathlib.Path",
                got=type(p).__name__, fix="pass the path of a CSV, TSV, JSONL, JSON or Parquet file",
            )


def _split_joined(frame: pl.DataFrame, name: str) -> tuple[pl.DataFrame, list[int], pl.DataFrame]:
    """One table with judgment rows that also carry the item columns -> (items, their file rows, judgments).

    Each item is the first judgment row that carries it; its file row is returned so that
    the items check names the row of the file, not the item's position among the items.
    """
    lacking = [c for c in JUDGMENTS_REQUIRED if c not in frame.columns]
    known = set(ITEMS_SCHEMA) | set(JUDGMENTS_SCHEMA)
    for want in lacking:  # a misspelled column says so before the two-layout explanation
        near = suggest_name(want, [c for c in frame.columns if c not in known])
        if near is not None:
            raise CAPInputError(
                f"{name} lacks the column {want!r}; its column {near!r} looks like a misspelling of it",
                file=name, row=0, column=near, expected=f"a column named {want!r}", got=near,
                fix=f"rename the column {near!r} to {want!r}",
            )
    if lacking:
        raise CAPInputError(
            "a single file must hold judgments with their item columns joined, or upload a judgments "
            f"table as well: {name} lacks {', '.join(lacking)}; its columns are {', '.join(frame.columns)}",
            file=name,
            expected="columns " + ", ".join(dict.fromkeys(("benchmark", "item_id", "gold") + JUDGMENTS_REQUIRED)),
            fix="add the judgments file (judge, benchmark, item_id, order, verdict), "
            "or join the item columns onto each judgment row",
        )
    item_cols = [c for c in ITEMS_SCHEMA if c in frame.columns]
    numbered = frame.select(item_cols).with_row_index("_file_row", offset=1)
    items = numbered.unique(subset=item_cols, keep="first", maintain_order=True)
    if "benchmark" in items.columns and "item_id" in items.columns:
        dup = items.filter(pl.struct(["benchmark", "item_id"]).is_duplicated())
        if dup.height:
            first = dup.row(0, named=True)
            again = dup.filter((pl.col("benchmark").eq_missing(first["benchmark"]))
                               & (pl.col("item_id").eq_missing(first["item_id"]))).row(1, named=True)
            column = next((c for c in item_cols if c not in ("benchmark", "item_id") and first[c] != again[c]),
                          "item_id")
            raise CAPInputError(
                f"item {first['item_id']!r} has a different {column} here than on row {first['_file_row']} "
                "of the same file",
                file=name,
                row=int(again["_file_row"]),
                column=column,
                expected=f"the {column} of row {first['_file_row']}",
                got=again[column],
                fix="give every row of an item the same gold, subset, variant and lengths",
            )
    rows = items.get_column("_file_row").to_list()
    judg_cols = [c for c in JUDGMENTS_SCHEMA if c in frame.columns]
    return items.drop("_file_row"), rows, frame.select(judg_cols)


def import_table(
    items_path: Path | str,
    judgments_path: Path | str | None = None,
    declarations_path: Path | str | None = None,
) -> Dataset:
    """Build a :class:`Dataset` from user files in the documented schema.

    Parameters
    ----------
    items_path : pathlib.Path or str
        Items table (CSV, TSV, JSONL, JSON or Parquet) with at least ``benchmark``,
        ``item_id``, ``gold``; see :data:`cap_core.schema.ITEMS_SCHEMA`. When
        ``judgments_path`` is None this one file must hold judgment rows that also
        carry the item columns (one row per judge x item x order).
    judgments_path : pathlib.Path or str, optional
        Judgments table with ``judge``, ``benchmark``, ``item_id``, ``order`` (AB/BA),
        ``verdict`` (A/B/tie/unparsed in the original letters) and optional scores.
    declarations_path : pathlib.Path or str, optional
        Coverage declarations (:data:`cap_core.schema.DECLARATION_SCHEMA`); list
        columns ``values``/``reference`` may be JSON lists or ``;``-separated text.
        Without it no condition is declared and coverage marks every cell unavailable.

    Returns
    -------
    Dataset
        Validated tables; ``notices`` hold encoding fallbacks of any file.

    Raises
    ------
    CAPInputError
        From :func:`cap_core.io.read_table` or the schema validators; the message names
        the file the bad value came from, its row (for a joined file, the row of the
        file, not the item's position) and column. A joined file whose rows give one
        item different item columns names both rows.
    """
    _import_table_iv(items_path, judgments_path, declarations_path)
    items_raw, notices = read_table(items_path, kind="items" if judgments_path is not None else JOINED)
    items_name = Path(items_path).name
    item_rows = None
    texts = _texts_of(items_raw)
    if judgments_path is None:
        items_raw, item_rows, judg_raw = _split_joined(items_raw, items_name)
        judg_name = items_name
    else:
        judg_raw, more = read_table(judgments_path, kind="judgments")
        notices += more
        judg_name = Path(judgments_path).name
    decl = None
    if declarations_path is not None:
        decl, more = _declarations(declarations_path)
        notices += more
    items = validate_items(items_raw, file=items_name, rows=item_rows, variants=declared_variants(decl))
    judgments = validate_judgments(judg_raw, items, file=judg_name)
    if texts is not None:
        texts = validate_texts(texts, items, file=items_name)
    return Dataset.build(items, judgments, decl, notices=tuple(notices), texts=texts)


def _texts_of(frame: pl.DataFrame) -> pl.DataFrame | None:
    """The text columns of an items (or joined) table, one row per item; None when it has none."""
    from cap_core.schema import ITEM_TEXT_SCHEMA

    cols = [c for c in ITEM_TEXT_SCHEMA if c in frame.columns]
    if not cols or "benchmark" not in frame.columns or "item_id" not in frame.columns:
        return None
    return frame.select("benchmark", "item_id", *cols).unique(subset=["benchmark", "item_id"], keep="first",
                                                             maintain_order=True)
