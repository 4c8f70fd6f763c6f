"""Import FastChat MT-Bench pairwise judgments into the CAP data model.

Formats read (lm-sys/FastChat, ``fastchat/llm_judge``):

* Judge files, e.g. ``data/mt_bench/model_judgment/gpt-4_pair.jsonl``: one JSON object a line
  with ``question_id``, ``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``, ``judge``
  (``[judge model, prompt name]``) and ``turn``. Game 1 showed model_1 as assistant A; game 2
  swapped the answers (model_2 as A). FastChat already writes both winners as model names:
  ``model_1``, ``model_2``, ``tie``, or ``error`` (no verdict found). Single-answer grading
  files (``m1_score`` / ``m2_score``, one winner for both games) are read as one verdict.
* Human (and GPT-4) votes of the ``mt_bench_human_judgments`` release: ``question_id``,
  ``model_a``, ``model_b``, ``winner`` (``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``),
  ``judge`` (e.g. ``expert_0``, ``author_2``) and ``turn``; the presentation order is not
  recorded, so these are stored as order ``AB``. Use them as gold with
  ``--gold-judge 'expert_*'`` (their majority per item).

An item is one question, one turn and one pair of models, oriented by
:func:`cap_core.importers._tools.canonical_pair` (as FastChat's ``compute_agreement`` does):
id ``<question_id>:t<turn>:<model A>|<model B>``, subset ``turn<turn>``. A game that showed
model A first is order ``AB``, the other ``BA``. :func:`winner_verdict` is the one reading of
the winner fields.
"""

from __future__ import annotations

from pathlib import Path

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.importers._common import load_json, load_jsonl
from cap_core.importers._tools import Tally, Verdict, build_tool_dataset, canonical_pair

__all__ = ["import_mtbench", "winner_verdict", "read_judgments"]

BENCHMARK = "mtbench"


def winner_verdict(winner: object, first: str, second: str) -> str:
    """A FastChat winner -> ``"first"`` / ``"second"`` model, ``"tie"`` or ``"unparsed"``.

    ``first`` / ``second`` are the names the record uses for its two models (``model_1`` /
    ``model_2`` or ``model_a`` / ``model_b``). Any ``tie…`` text (``tie``, ``tie (bothbad)``,
    ``tie (inconsistent)``) is a tie; ``error``, null and anything else are unparsed.
    """
    if not isinstance(winner, str):
        return "unparsed"
    w = winner.strip().lower()
    if w == first:
        return "first"
    if w == second:
        return "second"
    if w.startswith("tie"):
        return "tie"
    return "unparsed"


def _letter(side: str, swapped: bool) -> str:
    """``first`` / ``second`` of the record -> the canonical letter (ties and unparsed unchanged)."""
    if side == "first":
        return "B" if swapped else "A"
    if side == "second":
        return "A" if swapped else "B"
    return side


def _judge_name(judge: object) -> str:
    if isinstance(judge, (list, tuple)) and judge:
        return f"{judge[0]} ({judge[1]})" if len(judge) > 1 else str(judge[0])
    return str(judge)


def _need(rec: dict, keys: tuple[str, ...], path: Path, i: int) -> None:
    missing = [k for k in keys if k not in rec]
    if missing:
        raise CAPInputError("MT-Bench judgment without a required field", file=str(path), row=i, column=missing[0],
                            expected="fields " + ", ".join(keys), got=sorted(rec)[:8],
                            fix="pass a model_judgment/*_pair.jsonl written by FastChat gen_judgment.py, or the "
                                "mt_bench_human_judgments records")


def read_judgments(path: Path, tally: Tally) -> list[Verdict]:
    """The verdicts of one FastChat judgment file (``.jsonl``, or ``.json`` holding a list).

    Raises
    ------
    CAPInputError
        Malformed JSON, a record of neither layout (file, line and the first missing field
        named).
    """
    if path.suffix == ".json":
        data = load_json(path)
        recs = data if isinstance(data, list) else None
        if recs is None or not all(isinstance(r, dict) for r in recs):
            raise CAPInputError("not an MT-Bench judgment list", file=str(path), expected="a JSON list of objects "
                                "(or JSON lines)", got=type(data).__name__, fix="pass a FastChat model_judgment file")
    else:
        recs = load_jsonl(path)
    out = []
    for i, rec in enumerate(recs, start=1):
        if "model_a" in rec or "winner" in rec:  # human-judgments layout
            _need(rec, ("question_id", "model_a", "model_b", "winner", "judge"), path, i)
            first, second, games = "model_a", "model_b", [("winner", False)]
            m1, m2 = rec["model_a"], rec["model_b"]
        else:
            _need(rec, ("question_id", "model_1", "model_2", "g1_winner", "judge"), path, i)
            first, second = "model_1", "model_2"
            m1, m2 = rec["model_1"], rec["model_2"]
            single = "m1_score" in rec or "g2_winner" not in rec
            games = [("g1_winner", False)] if single else [("g1_winner", False), ("g2_winner", True)]
        turn = rec.get("turn", 1)
        a, b, swapped = canonical_pair(m1, m2)
        judge = _judge_name(rec["judge"])
        item = f"{rec['question_id']}:t{turn}:{a}|{b}"
        for field, second_game in games:
            side = winner_verdict(rec[field], first, second)
            meaning = {"first": f"{m1} wins", "second": f"{m2} wins"}.get(side, side)
            verdict = tally.add(judge, rec[field], _letter(side, swapped), meaning)
            shown_first_is_a = (not swapped) != second_game  # game 2 shows model_2 first
            out.append(Verdict(benchmark=BENCHMARK, item_id=item, judge=judge,
                               order="AB" if shown_first_is_a else "BA", verdict=verdict, file=path.name, row=i,
                               subset=f"turn{turn}"))
    return out


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.rglob("*") if p.suffix in (".jsonl", ".json") and p.is_file())
        if found:
            return found
        raise CAPInputError("no judgment files in the folder", file=str(path), expected="FastChat model_judgment "
                            "*.jsonl files", fix="point at gpt-4_pair.jsonl or its folder")
    raise CAPInputError("MT-Bench judgments not found", file=str(path), fix="check the path")


def import_mtbench(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None) -> Dataset:
    """Build a :class:`Dataset` from FastChat MT-Bench pairwise judgment files.

    Parameters
    ----------
    path : pathlib.Path or str
        A judgment file (``gpt-4_pair.jsonl``, a human-judgments ``.json``/``.jsonl``) or a
        folder searched for ``*.jsonl`` / ``*.json``.
    gold_judge, gold
        The reference (see :func:`cap_core.importers._tools.resolve_gold`), e.g.
        ``gold_judge="expert_*"`` with the human judgments among the files.

    Returns
    -------
    Dataset
        Benchmark ``mtbench``; judge files give both orders (C7 declared), human votes one.

    Raises
    ------
    CAPInputError
        Malformed JSON, a record without a required field, no gold source.
    """
    tally = Tally("MT-Bench")
    records = []
    for f in _files(Path(path)):
        records += read_judgments(f, tally)
    return build_tool_dataset(records, tally, source="MT-Bench", gold_judge=gold_judge, gold_path=gold)
