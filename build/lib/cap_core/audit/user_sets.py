"""A user's own label set from a CSV / TSV / JSONL / JSON / Parquet file.

Two layouts are accepted (column names are case-insensitive):

*Pairs* — one row per compared pair:
    ``prompt`` (text the responses answer), ``response_a`` and ``response_b`` (texts),
    ``label``: ``A`` / ``B`` for the better response or ``tie`` (``1`` / ``2`` / ``0`` are
    read as A / B / tie). Alternatively ``chosen`` and ``rejected`` columns and no
    ``label`` (the chosen response is the better one).
*Single responses* — one row per response:
    ``prompt``, ``response`` and ``label``: 1 (good, chosen) or 0 (bad, rejected);
    ``true`` / ``false`` and ``chosen`` / ``rejected`` are read as 1 / 0.

Optional in both: ``group`` (rows of one group are never split between training and
test folds; defaults to ``base_item_id``, else to the normalised prompt of
:func:`cap_core.audit.groups.normalise_prompt` -- never the raw prompt text, which can
differ between variants of one item), ``base_item_id``, ``subset`` (defaults to
``"all"``) and ``id``. When groups look like variants of each other
(:func:`cap_core.audit.groups.variant_group_pairs`) the set carries a notice.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.audit.groups import normalise_prompt, variant_group_notice
from cap_core.audit.label_set import SINGLE_SCHEMA, LabelSet, pairs_frame
from cap_core.errors import CAPInputError
from cap_core.io import read_table

__all__ = ["read_user_label_set", "FORMAT_HELP"]

FORMAT_HELP = (
    "pairs: columns prompt, response_a, response_b, label (A, B or tie) — or prompt, chosen, rejected; "
    "single responses: columns prompt, response, label (1 good / 0 bad); optional group, base_item_id, subset, id"
)
_PAIR_LABELS = {"a": "A", "b": "B", "tie": "tie", "1": "A", "2": "B", "0": "tie"}
_SINGLE_LABELS = {"1": 1, "0": 0, "true": 1, "false": 0, "chosen": 1, "rejected": 0, "1.0": 1, "0.0": 0}


def _cell(value) -> str | None:
    if value is None:
        return None
    text = str(value)
    return text if text.strip() else None


def _require(frame: pl.DataFrame, cols: tuple[str, ...], name: str) -> None:
    for col in cols:
        if col not in frame.columns:
            raise CAPInputError(
                "a required column is missing from the label set", file=name, column=col,
                expected=FORMAT_HELP, got=", ".join(frame.columns) or "(no columns)",
                fix=f"add a column named {col!r} (names are case-insensitive)",
            )


def _text(rec: dict, col: str, name: str, row: int) -> str:
    val = _cell(rec.get(col))
    if val is None:
        raise CAPInputError("empty text in the label set", file=name, row=row, column=col,
                            expected="a non-empty response or prompt text", got=rec.get(col),
                            fix=f"fill in {col!r} on row {row} or delete the row")
    return val


def _label(rec: dict, mapping: dict, name: str, row: int, expected: str) -> object:
    raw = _cell(rec.get("label"))
    key = raw.strip().lower() if raw is not None else None
    if key not in mapping:
        raise CAPInputError("label outside the allowed set", file=name, row=row, column="label",
                            expected=expected, got=rec.get("label"),
                            fix=f"write one of {expected} on row {row}")
    return mapping[key]


def _group(rec: dict, prompt: str) -> str:
    """The row's group: ``group``, else ``base_item_id``, else the normalised prompt."""
    return _cell(rec.get("group")) or _cell(rec.get("base_item_id")) or normalise_prompt(prompt) or prompt


def _parse_pairs(recs: list[dict], name: str, chosen_rejected: bool) -> pl.DataFrame:
    rows = []
    a_col, b_col = ("chosen", "rejected") if chosen_rejected else ("response_a", "response_b")
    for i, rec in enumerate(recs, start=1):
        prompt = _text(rec, "prompt", name, i)
        a, b = _text(rec, a_col, name, i), _text(rec, b_col, name, i)
        lab = "A" if chosen_rejected else _label(rec, _PAIR_LABELS, name, i, "A, B or tie")
        group = _group(rec, prompt)
        rows.append((_cell(rec.get("id")) or f"row-{i}", group, _cell(rec.get("subset")) or "all", a, b, lab))
    return pairs_frame(rows)


def _parse_singles(recs: list[dict], name: str) -> pl.DataFrame:
    rows = []
    for i, rec in enumerate(recs, start=1):
        prompt = _text(rec, "prompt", name, i)
        resp = _text(rec, "response", name, i)
        lab = _label(rec, _SINGLE_LABELS, name, i, "1 or 0")
        rows.append((_cell(rec.get("id")) or f"row-{i}", _group(rec, prompt),
                     _cell(rec.get("subset")) or "all", resp, lab))
    return pl.DataFrame(rows, schema=SINGLE_SCHEMA, orient="row")


def _unique_ids(frame: pl.DataFrame, col: str, name: str) -> None:
    dup = frame.with_row_index("_row", offset=1).filter(pl.col(col).is_duplicated())
    if dup.height:
        raise CAPInputError("duplicate id in the label set", file=name, row=int(dup["_row"][1]), column="id",
                            expected="a different id on every row", got=dup[col][0],
                            fix="make the ids unique or drop the id column")


def read_user_label_set(path: str | Path, *, data: bytes | None = None, name: str | None = None) -> LabelSet:
    """Read and validate a user's label set (layouts in the module docstring).

    Parameters
    ----------
    path : str or Path
        File path, or just the file name when ``data`` holds an upload's bytes.
    data : bytes, optional
        File content already in memory.
    name : str, optional
        Display name of the set (default: the file name).

    Returns
    -------
    LabelSet
        ``pairs`` filled for the pair layout, ``singles`` for the single-response layout.

    Raises
    ------
    CAPInputError
        Unsupported or malformed file, missing column, empty text, a label outside the
        allowed set, duplicate ids, or no rows; each names the file, row and column.
    """
    frame, notices = read_table(path, kind="label set", data=data)
    fname = Path(str(path)).name
    lower = {c: c.strip().lower() for c in frame.columns}
    if len(set(lower.values())) < len(lower):
        raise CAPInputError("two columns differ only in case", file=fname, got=list(frame.columns),
                            fix="rename one of them")
    frame = frame.rename(lower)
    if frame.height == 0:
        raise CAPInputError("the label set has no rows", file=fname, expected=FORMAT_HELP,
                            fix="add at least a few labelled rows from two or more prompts")
    cols = set(frame.columns)
    recs = frame.to_dicts()
    if {"response_a", "response_b"} <= cols:
        _require(frame, ("prompt", "label"), fname)
        pairs, singles = _parse_pairs(recs, fname, False), pl.DataFrame(schema=SINGLE_SCHEMA)
        _unique_ids(pairs, "pair_id", fname)
    elif {"chosen", "rejected"} <= cols:
        _require(frame, ("prompt",), fname)
        pairs, singles = _parse_pairs(recs, fname, True), pl.DataFrame(schema=SINGLE_SCHEMA)
        _unique_ids(pairs, "pair_id", fname)
    else:
        _require(frame, ("prompt", "response", "label"), fname)
        pairs, singles = pairs_frame([]), _parse_singles(recs, fname)
        _unique_ids(singles, "unit_id", fname)
    n_tie = int((pairs["label"] == "tie").sum())
    if n_tie:
        notices.append(f"{fname}: {n_tie} of {pairs.height} pairs are ties (excluded from scoring, counted)")
    note = variant_group_notice(fname, pairs["group"].to_list() + singles["group"].to_list())
    if note:
        notices.append(note)
    return LabelSet(name or fname, pairs, singles, source=fname, notices=notices)
