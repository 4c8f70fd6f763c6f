"""Import AlpacaEval annotation files (``annotations.json``, or gzip-compressed ``annotations.json.gz``).

Format read (tatsu-lab/alpaca_eval, ``results/<model>/<annotator>/annotations.json``): one
JSON list; each record has ``instruction``, ``output_1`` written by ``generator_1`` (the
baseline), ``output_2`` written by ``generator_2`` (the model), ``annotator``, ``preference``
and optionally ``dataset``, ``time_per_example`` (seconds) and ``price_per_example`` (dollars).

Each record is read in its own orientation: the item is the instruction with that pair, A =
output_1 (the baseline), B = output_2 (the model), id
:func:`cap_core.analyses.source_rules.alpacaeval.item_id`, so the same instruction answered by
several models gives one item per model and no verdict is ever flipped. The preference becomes
the verdict and its confidence by
:func:`cap_core.analyses.source_rules.alpacaeval.preference_verdict` (1 -> A, 2 -> B, 1.5 or 0
-> tie, a weighted number the side it leans to with that probability, anything else
unparsed). A results folder of the baseline against itself (generator_1 == generator_2) is a
pair like any other: its identical outputs are draws, as AlpacaEval scores them.

AlpacaEval shuffles the two outputs before asking its annotator and does not store the order
shown, so every verdict is stored as order ``AB`` and C7 (position) is not measurable.

Gold is optional: reference annotators (``--gold-judge``) or a gold table (``--gold``); without
either, the items keep a null gold and only gold-free figures are computed (AlpacaEval's own
win rates among them, :mod:`cap_core.analyses.source_rules.alpacaeval`). The outputs go to
the dataset's ``texts`` table (question, response_a/b, author_a/b = generator_1/2) and their
lengths in characters to the items' ``len_a`` / ``len_b``.
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from cap_core.analyses.source_rules.alpacaeval import BENCHMARK, item_id, preference_verdict
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped
from cap_core.importers._common import load_json
from cap_core.importers._tools import Tally, Verdict, build_tool_dataset

__all__ = ["import_alpacaeval", "preference_verdict", "read_annotations"]

_REQUIRED = ("instruction", "generator_1", "generator_2", "annotator", "preference")
_MEANING = {"A": "output_1 preferred", "B": "output_2 preferred", "tie": "draw",
            "unparsed": "not a preference: counted as unparsed"}
_NAMES = ("annotations.json", "annotations.json.gz")


def _encoding(pref: object, verdict: str) -> str:
    """How a raw preference is named in the counts notice: weighted numbers by their range."""
    if verdict in ("A", "B") and isinstance(pref, float) and pref not in (1.0, 2.0):
        return "a number in (1, 1.5)" if verdict == "A" else "a number in (1.5, 2)"
    return pref if isinstance(pref, str) else repr(pref)


def _number(rec: dict, key: str) -> float | None:
    v = rec.get(key)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v >= 0 else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def read_annotations(path: Path, tally: Tally) -> tuple[list[Verdict], list[dict]]:
    """The verdicts and the text rows of one annotations file (see the module docstring).

    Returns
    -------
    (list of Verdict, list of dict)
        One verdict per record (order ``AB``, subset the record's ``dataset``); one text row
        per record: ``benchmark, item_id, question, response_a, response_b, author_a,
        author_b`` and the lengths ``len_a, len_b`` (characters, None without a text).

    Raises
    ------
    CAPInputError
        Not a JSON list of objects (or unreadable gzip), or a record without ``instruction``,
        ``generator_1``, ``generator_2``, ``annotator`` or ``preference`` (file, 1-based record
        and field named).
    """
    data = load_json(path)
    if isinstance(data, dict) and isinstance(data.get("annotations"), list):
        data = data["annotations"]
    if not isinstance(data, list):
        raise CAPInputError("not an AlpacaEval annotations file", file=str(path), expected="a JSON list of annotation "
                            "records", got=type(data).__name__,
                            fix="pass an annotations.json written by alpaca_eval (results/<model>/<annotator>/)")
    verdicts, texts, seen = [], [], []
    for i, rec in enumerate(data, start=1):
        if not isinstance(rec, dict):
            raise CAPInputError("annotation record is not an object", file=str(path), row=i, got=type(rec).__name__,
                                expected="an object with instruction, output_1, output_2, annotator, preference",
                                fix="pass an annotations.json written by alpaca_eval")
        missing = [k for k in _REQUIRED if k not in rec or (rec[k] is None and k != "preference")]
        if missing:
            raise CAPInputError("AlpacaEval annotation without a required field", file=str(path), row=i,
                                column=missing[0], expected="fields " + ", ".join(_REQUIRED), got=sorted(rec)[:8],
                                fix="pass the annotations.json of an alpaca_eval run (model_outputs.json holds no "
                                    "preferences; generator_1 names the baseline, generator_2 the model)")
        g1, g2 = str(rec["generator_1"]), str(rec["generator_2"])
        judge = str(rec["annotator"])
        verdict, conf = preference_verdict(rec["preference"])
        seen.append((judge, _encoding(rec["preference"], verdict), verdict, _MEANING[verdict]))
        item = item_id(rec["instruction"], g1, g2)
        verdicts.append(Verdict(
            benchmark=BENCHMARK, item_id=item, judge=judge, order="AB", verdict=verdict, file=str(path), row=i,
            subset=str(rec.get("dataset") or "all"), confidence=conf,
            cost_usd=_number(rec, "price_per_example"), latency_s=_number(rec, "time_per_example"),
        ))
        out_1, out_2 = _text(rec.get("output_1")), _text(rec.get("output_2"))
        texts.append({"benchmark": BENCHMARK, "item_id": item, "question": _text(rec["instruction"]),
                      "response_a": out_1, "response_b": out_2, "author_a": g1, "author_b": g2,
                      "len_a": None if out_1 is None else len(out_1), "len_b": None if out_2 is None else len(out_2)})
    for judge, raw, verdict, meaning in seen:  # counted once the whole file has been read
        tally.add(judge, raw, verdict, meaning)
    return verdicts, texts


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.rglob("annotations.json*") if p.name in _NAMES and p.is_file())
        if found:
            return found
        raise CAPInputError("no annotations.json in the folder", file=str(path), expected="alpaca_eval results "
                            "(results/<model>/<annotator>/annotations.json or .json.gz)", fix="point at an "
                            "annotations.json or a folder holding some")
    raise CAPInputError("AlpacaEval annotations not found", file=str(path), fix="check the path")


def _named_otherwise(f: Path, models: set[str], annotators: set[str]) -> str | None:
    """How ``f``'s records name another model (``generator_2``) or annotator than its folders, or None.

    alpaca_eval keeps a model's annotations under ``results/<model>/<annotator>/``. A file is read
    against that layout when its folders name its records' model or annotator (a file elsewhere is
    not checked); a name of its records that none of its folders holds is reported (upstream, e.g.
    ``results/falcon-7b-instruct/alpaca_eval_gpt4/`` holds falcon-40b-instruct's records).
    """
    folders = set(f.parent.parts)
    if not (models & folders or annotators & folders):
        return None
    wrong = [f"the {what} {capped(sorted(names - folders))}" for what, names in (("model", models),
                                                                                  ("annotator", annotators))
             if names - folders]
    return " and ".join(wrong) or None


def import_alpacaeval(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None) -> Dataset:
    """Build a :class:`Dataset` from AlpacaEval ``annotations.json`` files.

    Parameters
    ----------
    path : pathlib.Path or str
        One ``annotations.json`` (or ``.json.gz``) or a folder searched for them (e.g.
        alpaca_eval's ``results/``, the baseline's own folder included).
    gold_judge : str, optional
        ``fnmatch`` pattern of the reference annotators (their majority is gold).
    gold : pathlib.Path or str, optional
        A table with ``item_id`` and ``gold`` (A = output_1, B = output_2).

    Returns
    -------
    Dataset
        Benchmark ``alpacaeval``; items one per (instruction, generator_1, generator_2) with
        ``subset`` the record's ``dataset``, ``gold`` null without a gold source, ``len_a`` /
        ``len_b`` the outputs' lengths (Int64, characters); judgments one per (annotator,
        item), order ``AB``, confidence the probability of the preferred output (weighted
        annotators); ``texts`` the instruction, outputs and generators. ``notices`` give each
        annotator's A / B / tie / unparsed counts, the identical-output draws, the files left
        out and that C7 is not measurable.

    Raises
    ------
    CAPInputError
        The path holds no annotations file; the only file (or every file) is not an
        annotations list or has a record without a required field; a bad ``--gold-judge`` or
        gold table (:func:`cap_core.importers._tools.resolve_gold`). In a folder, a bad file is
        left out and named in a notice while the others are imported.
    """
    path = Path(path)
    tally = Tally("AlpacaEval")
    records: list[Verdict] = []
    texts: list[dict] = []
    errors: list[CAPInputError] = []
    files = _files(path)
    otherwise = []
    for f in files:
        try:
            got, rows = read_annotations(f, tally)
        except CAPInputError as err:
            errors.append(err)
            continue
        records += got
        texts += rows
        wrong = _named_otherwise(f, {r["author_b"] for r in rows}, {v.judge for v in got})
        if wrong:
            otherwise.append(f"{f.relative_to(path) if path.is_dir() else f.name} names {wrong}")
    if not records:
        if errors:
            raise errors[0]
        raise CAPInputError("no annotation in the AlpacaEval files", file=str(path), expected="a non-empty list of "
                            "annotation records", got="an empty list", fix="pass the annotations.json of a finished "
                            "alpaca_eval run")
    notes = [("AlpacaEval: the order shown to the annotator is not recorded (alpaca_eval shuffles the outputs and "
              "puts them back); verdicts are stored as order AB (A = output_1, the baseline) and position robustness "
              "(C7) is not measurable.")]
    notes += [f"AlpacaEval: file left out: {err}" for err in errors]
    if otherwise:
        notes.append("AlpacaEval: files whose records name another model or annotator than their folders "
                     f"(results/<model>/<annotator>/): {capped(otherwise, sep='; ')}. They are read as their "
                     "records name them, so they may repeat another file's records (see the repeats left out).")
    same = [r for r in texts if r["response_a"] is not None and r["response_a"] == r["response_b"]]
    if same:
        selves = sorted({r["author_a"] for r in same if r["author_a"] == r["author_b"]})
        k = sum(r["author_a"] == r["author_b"] for r in same)
        notes.append(f"AlpacaEval: {len(same)} annotations compare two identical outputs ({k} of them a generator "
                     "against itself" + (": " + ", ".join(selves[:6]) if selves else "") + "): AlpacaEval scores "
                     "them a draw (1.5) without asking the annotator; they are kept as ties.")
    ds = build_tool_dataset(records, tally, source="AlpacaEval", gold_judge=gold_judge, gold_path=gold, notices=notes,
                            path=path)
    text = pl.DataFrame(texts, schema={"benchmark": pl.String, "item_id": pl.String, "question": pl.String,
                                       "response_a": pl.String, "response_b": pl.String, "author_a": pl.String,
                                       "author_b": pl.String, "len_a": pl.Int64, "len_b": pl.Int64})
    text = text.unique(["benchmark", "item_id"], keep="first", maintain_order=True).join(
        ds.items.select("benchmark", "item_id"), on=["benchmark", "item_id"], how="semi")
    items = ds.items.drop("len_a", "len_b", strict=False).join(
        text.select("benchmark", "item_id", "len_a", "len_b"), on=["benchmark", "item_id"], how="left")
    return Dataset.build(items, ds.judgments, ds.declarations, notices=ds.notices,
                         texts=text.drop("len_a", "len_b"))
