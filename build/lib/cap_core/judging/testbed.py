"""The built-in mini testbed: a small controlled pairwise benchmark (benchmark ``cap-mini``).

48 base items written for this project (``testbed_items.jsonl``), 12 in each of four
domains (health, law, science, money) and 12 for each planted error type of CAP Table 1
(factual fabrication, logical reversal, scope-overclaim, scope-omission; three per
domain and type). Each base item pairs a correct answer with a flawed one that differs
by the planted error only, plus a note saying what the error is (used by the Form A
rationale evaluator).

Each base item comes in three presentation variants built deterministically:
``plain``; ``polished`` (both answers through :func:`~cap_core.judging.augment.polish_rule`);
``length_padded`` (the flawed answer only, through
:func:`~cap_core.judging.augment.pad_rule` at 1.5x). The gold is always the correct
answer; it sits in position A for half the items of every error type and in B for the
other half, so a position-biased judge cannot score well. With both orders and a
rationale evaluator every condition C1-C8 is measurable.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import ITEMS_SCHEMA

__all__ = ["load_testbed", "TESTBED_FILE", "BENCHMARK", "RUN_TEXT_COLUMNS"]

TESTBED_FILE = Path(__file__).resolve().parent / "testbed_items.jsonl"
BENCHMARK = "cap-mini"
#: Columns a run needs beyond the items schema (``error_note`` optional).
RUN_TEXT_COLUMNS = ("question", "response_a", "response_b", "error_note")


def load_testbed(pad_factor: float = 1.5) -> pl.DataFrame:
    """The mini testbed as run items (all three variants).

    Returns
    -------
    polars.DataFrame
        144 rows: :data:`cap_core.schema.ITEMS_SCHEMA` columns (``subset`` = domain,
        ``len_a``/``len_b`` in characters) plus ``question``, ``response_a``,
        ``response_b``, ``error_note`` (String).

    Raises
    ------
    CAPInputError
        An (edited) item of :data:`TESTBED_FILE` fails a variant's checks: names the
        file, the row (line) and the answer (``correct`` / ``flawed``).
    """
    from cap_core.judging.augment import augment_items

    rows, seen, line_of = [], {}, {}
    for n, line in enumerate(TESTBED_FILE.read_text(encoding="utf-8").splitlines(), start=1):
        rec = json.loads(line)
        line_of[rec["id"]] = (n, rec)
        k = seen[rec["failure_type"]] = seen.get(rec["failure_type"], -1) + 1
        gold = "A" if k % 2 == 0 else "B"
        a, b = (rec["correct"], rec["flawed"]) if gold == "A" else (rec["flawed"], rec["correct"])
        rows.append({"benchmark": BENCHMARK, "item_id": rec["id"], "base_item_id": rec["id"],
                     "subset": rec["domain"], "failure_type": rec["failure_type"], "variant": "plain",
                     "gold": gold, "flags": None, "len_a": len(a), "len_b": len(b), "question": rec["question"],
                     "response_a": a, "response_b": b, "error_note": rec["error_note"]})
    schema = dict(ITEMS_SCHEMA, **{c: pl.String for c in RUN_TEXT_COLUMNS})
    plain = pl.DataFrame(rows, schema=schema)
    items, dropped = augment_items(plain, pad_factor=pad_factor)
    if dropped.height:  # the rules are deterministic; a drop means the data file was edited badly
        raise _bad_item(dropped.row(0, named=True), line_of, pad_factor)
    return items.sort("base_item_id", "variant")


def _bad_item(drop: dict, line_of: dict, pad_factor: float) -> CAPInputError:
    """The error for the first dropped variant: file, line, and which answer fails (by the same rules)."""
    from cap_core.judging.augment import _rewrite

    base = drop["item_id"].split("::")[0]
    n, rec = line_of[base]
    kind = drop["variant"]
    if kind == "length_padded":  # only the flawed answer is padded
        column = "flawed"
    else:  # augment_items's default polish band, +-20%
        column = next((c for c in ("correct", "flawed")
                       if _rewrite(kind, rec[c], None, None, pad_factor, (0.8, 1.2), 1)[0] is None), "correct")
    return CAPInputError(f"testbed item fails its {kind} variant's checks", file=str(TESTBED_FILE), row=n,
                         column=column, expected="an answer whose rule-based rewrite keeps every number, negation "
                         "and hedge and stays within the length band", got=f"{base}: {drop['reason']}",
                         fix="reword that answer (or restore the shipped testbed_items.jsonl)")
