"""Import AlpacaEval annotation files (``annotations.json``) into the CAP data model.

Format read (tatsu-lab/alpaca_eval, ``results/<model>/<annotator>/annotations.json``): one
JSON list; each record has ``instruction``, ``output_1``, ``generator_1``, ``output_2``,
``generator_2``, ``annotator``, ``preference`` and optionally ``dataset``,
``time_per_example`` (seconds) and ``price_per_example`` (dollars).

``preference`` (AlpacaEval's ``pairwise_evaluator``): ``1`` output_1 preferred, ``2``
output_2 preferred, ``1.5`` a draw, ``0`` a draw in older files; weighted annotators write a
number between 1 and 2 (the probability that output_2 wins is ``preference - 1``).
:func:`preference_verdict` is the one reading of it here.

AlpacaEval shuffles the two outputs before asking its judge and stores the preference in the
``output_1`` / ``output_2`` letters, so the order shown to the judge is not in the file: every
verdict is stored as order ``AB`` and C7 (position) is not measurable from these files.

An item is one instruction with one pair of generators, oriented by
:func:`cap_core.importers._tools.canonical_pair` (A = the generator whose name sorts first),
id ``<sha1(instruction)[:12]>:<generator A>|<generator B>``. Gold comes from reference
annotators (e.g. the human cross-annotations, ``--gold-judge``) or a gold table (``--gold``).
"""

from __future__ import annotations

import math
from pathlib import Path

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.importers._common import load_json
from cap_core.importers._tools import (
    Tally,
    Verdict,
    build_tool_dataset,
    canonical_pair,
    short_hash,
)
from cap_core.schema import SWAP as FLIP

__all__ = ["import_alpacaeval", "preference_verdict", "read_annotations"]

BENCHMARK = "alpacaeval"
_REQUIRED = ("instruction", "annotator", "preference")


def preference_verdict(pref: object) -> tuple[str, float | None]:
    """AlpacaEval ``preference`` -> (verdict in output_1=A / output_2=B letters, confidence).

    ``1`` -> A, ``2`` -> B, ``1.5`` or ``0`` -> tie (confidence None); a weighted value
    ``p`` strictly between 1 and 2 -> A when ``p < 1.5`` (confidence ``2 - p``), B when
    ``p > 1.5`` (confidence ``p - 1``); a number written as text is read as that number;
    anything else (null, NaN, out of range, other text) -> unparsed.
    """
    if isinstance(pref, bool):
        return "unparsed", None
    if isinstance(pref, str):
        try:
            pref = float(pref.strip())
        except ValueError:
            return "unparsed", None
    if not isinstance(pref, (int, float)) or not math.isfinite(pref):
        return "unparsed", None
    p = float(pref)
    if p in (0.0, 1.5):
        return "tie", None
    if p == 1.0:
        return "A", 1.0
    if p == 2.0:
        return "B", 1.0
    if 1.0 < p < 1.5:
        return "A", 2.0 - p
    if 1.5 < p < 2.0:
        return "B", p - 1.0
    return "unparsed", None


def _number(rec: dict, key: str) -> float | None:
    v = rec.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 else None


def read_annotations(path: Path, tally: Tally) -> list[Verdict]:
    """The verdicts of one ``annotations.json`` (see the module docstring).

    Raises
    ------
    CAPInputError
        Not a JSON list of objects, or a record without ``instruction`` / ``annotator`` /
        ``preference`` (file, 1-based record and field named).
    """
    data = load_json(path)
    if isinstance(data, dict) and isinstance(data.get("annotations"), list):
        data = data["annotations"]
    if not isinstance(data, list):
        raise CAPInputError("not an AlpacaEval annotations file", file=str(path), expected="a JSON list of annotation "
                            "records", got=type(data).__name__,
                            fix="pass an annotations.json written by alpaca_eval (results/<model>/<annotator>/)")
    out = []
    for i, rec in enumerate(data, start=1):
        if not isinstance(rec, dict):
            raise CAPInputError("annotation record is not an object", file=str(path), row=i, got=type(rec).__name__,
                                expected="an object with instruction, output_1, output_2, annotator, preference",
                                fix="pass an annotations.json written by alpaca_eval")
        missing = [k for k in _REQUIRED if k not in rec]
        if missing:
            raise CAPInputError("AlpacaEval annotation without a required field", file=str(path), row=i,
                                column=missing[0], expected="fields " + ", ".join(_REQUIRED), got=sorted(rec)[:8],
                                fix="pass the annotations.json of an alpaca_eval run (model_outputs.json holds no "
                                    "preferences)")
        g1 = rec.get("generator_1") or "output_1"
        g2 = rec.get("generator_2") or "output_2"
        if g1 == g2:  # no generator names: the texts tell the pair apart
            g1, g2 = "o1-" + short_hash(rec.get("output_1", "")), "o2-" + short_hash(rec.get("output_2", ""))
        a, b, swapped = canonical_pair(g1, g2)
        judge = str(rec["annotator"])
        verdict, conf = preference_verdict(rec["preference"])
        meaning = {"A": "output_1", "B": "output_2"}.get(verdict, verdict)
        final = tally.add(judge, rec["preference"], FLIP[verdict] if swapped else verdict, meaning)
        out.append(Verdict(
            benchmark=BENCHMARK, item_id=f"{short_hash(rec['instruction'])}:{a}|{b}", judge=judge, order="AB",
            verdict=final, file=path.name, row=i,
            subset=str(rec.get("dataset") or "all"), confidence=conf,
            cost_usd=_number(rec, "price_per_example"), latency_s=_number(rec, "time_per_example"),
        ))
    return out


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(path.rglob("annotations.json"))
        if found:
            return found
        raise CAPInputError("no annotations.json in the folder", file=str(path), expected="alpaca_eval results "
                            "(results/<model>/<annotator>/annotations.json)", fix="point at an annotations.json or "
                            "a folder holding some")
    raise CAPInputError("AlpacaEval annotations not found", file=str(path), fix="check the path")


def import_alpacaeval(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None) -> Dataset:
    """Build a :class:`Dataset` from AlpacaEval ``annotations.json`` files.

    Parameters
    ----------
    path : pathlib.Path or str
        One ``annotations.json`` or a folder searched for them (e.g. alpaca_eval's ``results/``).
    gold_judge : str, optional
        ``fnmatch`` pattern of the reference annotators (their majority is gold).
    gold : pathlib.Path or str, optional
        A table with ``item_id`` and ``gold`` (A/B, in the item's orientation).

    Returns
    -------
    Dataset
        Benchmark ``alpacaeval``; one judgment per (annotator, item), order ``AB``;
        ``notices`` list each annotator's A / B / tie / unparsed counts by encoding.

    Raises
    ------
    CAPInputError
        A file that is not an annotations list, a record without a required field, no gold
        source (see :func:`cap_core.importers._tools.resolve_gold`).
    """
    path = Path(path)
    tally = Tally("AlpacaEval")
    records = []
    for f in _files(path):
        records += read_annotations(f, tally)
    notes = ["AlpacaEval: the order shown to the judge is not recorded (alpaca_eval shuffles it); verdicts are "
             "stored as order AB and position robustness (C7) is not measurable."]
    return build_tool_dataset(records, tally, source="AlpacaEval", gold_judge=gold_judge, gold_path=gold,
                              notices=notes)
