"""Import the PandaLM human-annotated test set (Wang et al., 2023) into the CAP data model.

Layout read (``data/`` of the public PandaLM repository)::

    testset-v1.json                 999 items; annotator1..3 in {0 = tie, 1, 2}
    gpt-3.5-turbo-testset-v1.json   gpt_result "1" / "2" / "Tie" / other (unparsed)
    pandalm-7b-testset-v1.json      pandalm_result 1 / 2 / 0 (tie)

Gold is the majority of the three annotators, a tie vote counting as a vote like the
others. Items whose majority is a tie (or with no majority) cannot carry an A/B gold in
the items schema; they are left out of the pairwise dataset and counted in a notice,
and :func:`import_pandalm_graded` keeps them on the three-level scale
B-better < tie < A-better. Both judges saw one order only (``AB``: response 1 = A).
Token counts are estimated as characters / 4 of the prompt (instruction, input, both
responses) plus the judge's written output; no text is stored.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, counted
from cap_core.importers._common import check_dir, load_json, verdict_notices

__all__ = ["import_pandalm", "import_pandalm_graded", "read_testset", "read_texts", "question_of", "authors_of",
           "JUDGES", "BENCHMARK"]

BENCHMARK = "pandalm"
#: judge id -> (file name, result field, reason/reference fields)
JUDGES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "gpt-3.5-turbo (PandaLM)": ("gpt-3.5-turbo-testset-v1.json", "gpt_result", ("gpt_reason", "gpt_reference")),
    "PandaLM-7B": ("pandalm-7b-testset-v1.json", "pandalm_result", ("pandalm_reason", "pandalm_reference")),
}
_VOTE = {"0": "tie", "1": "A", "2": "B", "tie": "tie"}
_LEVEL = {"A": 1, "tie": 0, "B": -1}


def _verdict(raw: object) -> str:
    return _VOTE.get(str(raw).strip().lower(), "unparsed")


def _majority(votes: list[str]) -> str | None:
    top, n = Counter(votes).most_common(1)[0]
    return top if n >= 2 else None


def _data_dir(root: Path) -> Path:
    return check_dir(Path(root) / "data" if (Path(root) / "data").is_dir() else root, "PandaLM data")


def read_testset(root: Path | str) -> list[dict]:
    """One parse of PandaLM's ``testset-v1.json``: its records, each with an added ``majority``.

    Parameters
    ----------
    root : path
        The PandaLM folder (holding ``data/``) or its ``data/`` folder.

    Returns
    -------
    list of dict
        The records as written (``idx``, ``instruction``, ``input``, ``response1``,
        ``response2``, ``motivation_app``, ``annotator1..3``) plus ``majority``: ``"A"``
        (response 1), ``"B"`` or ``"tie"`` when at least two of the three annotators agree
        (a 0 vote is a tie vote), None without a majority.

    Raises
    ------
    CAPInputError
        Missing folder or file, malformed JSON, not a non-empty list, a record without
        ``idx`` / ``annotator1..3``, or a vote other than 0 / 1 / 2 (row and column named).
    """
    path = _data_dir(Path(root)) / "testset-v1.json"
    test = load_json(path)
    if not isinstance(test, list) or not test:
        raise CAPInputError("PandaLM test set is not a non-empty JSON list", file=str(path),
                            fix="use the unmodified testset-v1.json")
    out = []
    for i, t in enumerate(test, start=1):
        missing = [k for k in ("idx", "annotator1", "annotator2", "annotator3") if not isinstance(t, dict) or k not in t]
        if missing:
            raise CAPInputError("PandaLM item without a required field", file=str(path),
                                row=i, column=missing[0], expected="idx, annotator1..3",
                                fix="use the unmodified testset-v1.json")
        votes = []
        for k in (1, 2, 3):
            vote = _VOTE.get(str(t[f"annotator{k}"]).strip().lower())
            if vote is None:
                raise CAPInputError("PandaLM annotator vote outside 0 / 1 / 2", file=str(path), row=i,
                                    column=f"annotator{k}", expected="0 (tie), 1 or 2", got=t[f"annotator{k}"],
                                    fix="use the unmodified testset-v1.json")
            votes.append(vote)
        out.append({**t, "majority": _majority(votes)})
    return out


def _read(root: Path) -> tuple[list[dict], dict[str, dict[int, dict]]]:
    test = read_testset(root)
    data = _data_dir(Path(root))
    outputs = {}
    for judge, (fname, field, _) in JUDGES.items():
        recs = load_json(data / fname)
        if not isinstance(recs, list):
            raise CAPInputError("judge file is not a JSON list", file=str(data / fname), fix="use the unmodified file")
        for i, r in enumerate(recs, start=1):
            if not isinstance(r, dict) or "idx" not in r or field not in r:
                raise CAPInputError("judge record without idx or result", file=str(data / fname), row=i,
                                    column=field, expected=f"idx and {field}", fix="use the unmodified file")
        outputs[judge] = {int(r["idx"]): r for r in recs}
    return test, outputs


def _chars(rec: dict, keys: tuple[str, ...]) -> int:
    return sum(len(str(rec.get(k) or "")) for k in keys)


def import_pandalm(root: Path | str) -> Dataset:
    """Read the PandaLM test set and its two judges' verdicts.

    Parameters
    ----------
    root : path
        The PandaLM folder (holding ``data/``) or its ``data/`` folder.

    Returns
    -------
    Dataset
        Benchmark ``pandalm``; items with an A/B human majority (``subset`` = the
        motivating application, ``len_a``/``len_b`` response characters); judgments of
        ``gpt-3.5-turbo (PandaLM)`` and ``PandaLM-7B`` in order ``AB``, verdict A/B/tie/
        unparsed, ``tokens`` = (prompt + written output characters) / 4, rounded.

    Raises
    ------
    CAPInputError
        Missing folder or file, malformed JSON, records without ids or results.
    """
    test, outputs = _read(Path(root))
    items, judgments, skipped = [], [], Counter()
    for t in test:
        gold = t["majority"]
        if gold not in ("A", "B"):
            skipped["tie" if gold == "tie" else "no majority"] += 1
            continue
        idx = int(t["idx"])
        items.append({"benchmark": BENCHMARK, "item_id": str(idx), "base_item_id": str(idx),
                      "subset": str(t.get("motivation_app") or "all"), "variant": "original", "gold": gold,
                      "len_a": len(str(t.get("response1") or "")), "len_b": len(str(t.get("response2") or ""))})
        prompt = _chars(t, ("instruction", "input", "response1", "response2"))
        for judge, (_, field, text_fields) in JUDGES.items():
            rec = outputs[judge].get(idx)
            verdict = _verdict(rec[field]) if rec else "unparsed"
            tokens = round((prompt + (_chars(rec, text_fields) if rec else 0)) / 4)
            judgments.append({"judge": judge, "benchmark": BENCHMARK, "item_id": str(idx), "order": "AB",
                              "verdict": verdict, "tokens": tokens})
    notices = [f"PandaLM: {counted(skipped['tie'], 'item')} with a tie human majority and "
               f"{skipped['no majority']} without "
               f"a majority left out of the A/B dataset (see the three-level graded table)."]
    notices += verdict_notices(judgments, "PandaLM")
    return Dataset.build(pl.DataFrame(items), pl.DataFrame(judgments), notices=tuple(notices))


def import_pandalm_graded(root: Path | str) -> pl.DataFrame:
    """Every PandaLM item on the three-level scale B better (-1) < tie (0) < A better (+1).

    Returns
    -------
    polars.DataFrame
        Columns ``item_id`` (String), ``gold`` (Int64 level of the annotators' majority,
        null without a majority), one Int64 column per judge (null when unparsed).
    """
    test, outputs = _read(Path(root))
    rows = []
    for t in test:
        idx = int(t["idx"])
        gold = t["majority"]
        row = {"item_id": str(idx), "gold": _LEVEL.get(gold) if gold else None}
        for judge, (_, field, _) in JUDGES.items():
            rec = outputs[judge].get(idx)
            row[judge] = _LEVEL.get(_verdict(rec[field])) if rec else None
        rows.append(row)
    return pl.DataFrame(rows, schema={"item_id": pl.String, "gold": pl.Int64, **{j: pl.Int64 for j in JUDGES}})


def question_of(rec: dict) -> str:
    """The question a PandaLM judge sees: ``instruction``, then ``input`` on a new line when given."""
    extra = str(rec.get("input") or "").strip()
    return str(rec.get("instruction") or "") + (f"\n{extra}" if extra else "")


def authors_of(rec: dict) -> tuple[str | None, str | None]:
    """The models that wrote ``response1`` and ``response2``: the two names of ``cmp_key``
    (``"bloom-7b_llama-7b"`` -> ``("bloom-7b", "llama-7b")``); ``(None, None)`` when the
    key does not split into exactly two names."""
    parts = str(rec.get("cmp_key") or "").split("_")
    return (parts[0], parts[1]) if len(parts) == 2 and all(parts) else (None, None)


def read_texts(root: Path | str) -> pl.DataFrame:
    """The texts of the PandaLM items :func:`import_pandalm` keeps (an A/B human majority).

    Returns
    -------
    polars.DataFrame
        ``benchmark`` (``pandalm``), ``item_id`` (``idx``) and the columns of
        :data:`cap_core.schema.ITEM_TEXT_SCHEMA`: ``question`` (:func:`question_of`),
        ``response_a`` / ``response_b`` = ``response1`` / ``response2``, ``author_a`` /
        ``author_b`` from ``cmp_key`` (:func:`authors_of`).

    Raises
    ------
    CAPInputError
        As :func:`read_testset`.
    """
    from cap_core.schema import ITEM_TEXT_SCHEMA

    rows = []
    for t in read_testset(root):
        if t["majority"] not in ("A", "B"):
            continue
        a, b = authors_of(t)
        rows.append({"benchmark": BENCHMARK, "item_id": str(int(t["idx"])), "question": question_of(t),
                     "response_a": str(t.get("response1") or ""), "response_b": str(t.get("response2") or ""),
                     "author_a": a, "author_b": b})
    return pl.DataFrame(rows, schema={"benchmark": pl.String, "item_id": pl.String, **ITEM_TEXT_SCHEMA})
