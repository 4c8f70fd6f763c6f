"""Import FastChat MT-Bench pairwise judgments into the CAP data model.

Formats read (lm-sys/FastChat, ``fastchat/llm_judge``):

* Judge files written by ``gen_judgment.py`` (``common.play_a_match_pair``), e.g.
  ``data/mt_bench/model_judgment/gpt-4_pair.jsonl``: one JSON object a line with
  ``question_id``, ``model_1``, ``model_2``, ``g1_winner``, ``g2_winner``, ``judge``
  (``[judge model, prompt name]``) and ``turn``. Game 1 showed model_1 as assistant A; game 2
  swapped the answers (model_2 as A). FastChat already writes both winners as model names:
  ``model_1``, ``model_2``, ``tie``, or ``error`` (no ``[[A]]``/``[[B]]``/``[[C]]`` found).
* Single-answer grading inside a pair file (judge prompt of type ``single``: ``m1_score`` /
  ``m2_score``, one winner written twice): read as one verdict, judge ``"<model> (single)"``
  (each answer graded alone is another judging method than the pairwise comparison).
* Human (and GPT-4) votes of the ``mt_bench_human_judgments`` release: ``question_id``,
  ``model_a``, ``model_b``, ``winner`` (``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``,
  ``tie (inconsistent)``), ``judge`` (e.g. ``expert_0``, ``author_2``, or a
  ``[model, prompt]`` list) and ``turn``. One vote per record, in the order model_a first. Use
  them as gold with ``--gold-judge 'expert_*'`` (their majority per item), or import them as
  judges for FastChat's agreement (:mod:`cap_core.analyses.source_rules.fastchat`).

**One judge per judge model.** FastChat names a judge by (model, prompt): ``gpt-4`` judges the
math, reasoning and coding questions with ``pair-math-v1`` (with a reference answer) and the
others with ``pair-v2`` (``common.resolve_pairwise_judgment_dict``); both are one judge, GPT-4
pair, in its show_result and agreement code. So ``judge`` is the model and the prompt name
is kept per judgment in the ``judge_prompt`` column (:data:`cap_core.schema.JUDGMENTS_SCHEMA`).

An item is one question, one turn and one pair of models, oriented by
:func:`cap_core.importers._tools.canonical_pair` (as FastChat's ``compute_agreement`` does):
id ``<question_id>:t<turn>:<model A>|<model B>``, subset ``turn<turn>``. A game that showed
model A first is order ``AB``, the other ``BA``. :func:`winner_verdict` is the one reading of
the winner fields; ``error`` is ``unparsed``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from pathlib import Path

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, counted
from cap_core.importers._common import load_json, load_jsonl
from cap_core.importers._tools import Tally, Verdict, build_tool_dataset, canonical_pair, judge_files, read_each

__all__ = ["import_mtbench", "winner_verdict", "judge_of", "read_judgments", "BENCHMARK"]

BENCHMARK = "mtbench"
_PAIR_FIELDS = ("question_id", "model_1", "model_2", "g1_winner", "judge")
_HUMAN_FIELDS = ("question_id", "model_a", "model_b", "winner", "judge")
_FIX = ("pass a model_judgment/*_pair.jsonl written by FastChat gen_judgment.py, or the mt_bench_human_judgments "
        "records")


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


def judge_of(judge: object) -> tuple[str, str | None]:
    """A record's ``judge`` -> ``(judge, judge prompt)``.

    FastChat writes ``[model, prompt name]`` (e.g. ``["gpt-4", "pair-math-v1"]``): the judge is
    the model and the prompt a setting of it. A plain name (``expert_0``) has no prompt.
    """
    if isinstance(judge, (list, tuple)) and judge:
        return str(judge[0]), (str(judge[1]) if len(judge) > 1 and judge[1] is not None else None)
    return str(judge), None


def _letter(side: str, swapped: bool) -> str:
    """``first`` / ``second`` of the record -> the canonical letter (ties and unparsed unchanged)."""
    if side == "first":
        return "B" if swapped else "A"
    if side == "second":
        return "A" if swapped else "B"
    return side


def _need(rec: dict, keys: tuple[str, ...], path: Path, i: int) -> None:
    missing = [k for k in keys if k not in rec]
    if missing:
        raise CAPInputError("MT-Bench judgment without a required field", file=str(path), row=i, column=missing[0],
                            expected="fields " + ", ".join(keys), got=sorted(rec)[:8], fix=_FIX)


def _records(path: Path) -> list[dict]:
    if path.suffix == ".json":
        data = load_json(path)
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise CAPInputError("not an MT-Bench judgment list", file=str(path), expected="a JSON list of objects "
                                "(or JSON lines)", got=type(data).__name__, fix="pass a FastChat model_judgment file")
        return data
    return load_jsonl(path)


def read_judgments(path: Path, tally: Tally, prompts: dict[str, Counter] | None = None) -> list[Verdict]:
    """The verdicts of one FastChat judgment file (``.jsonl``, or ``.json`` holding a list).

    ``prompts`` (optional) collects, per judge, how many records each judge prompt judged.

    Raises
    ------
    CAPInputError
        Malformed JSON; a single-answer grading file (``model`` and ``score`` per record: no
        pair to compare); a record of neither pairwise layout (file, line and the first
        missing field named).
    """
    recs = _records(path)
    out = []
    for i, rec in enumerate(recs, start=1):
        if "model_a" in rec or "winner" in rec:  # human-judgments layout
            _need(rec, _HUMAN_FIELDS, path, i)
            first, second, games = "model_a", "model_b", [("winner", False)]
            m1, m2 = rec["model_a"], rec["model_b"]
            judge, prompt = judge_of(rec["judge"])
        else:
            if "model" in rec and "score" in rec and "model_1" not in rec:
                raise CAPInputError("a FastChat single-answer grading file, not pairwise judgments", file=str(path),
                                    row=i, column="model", expected="records comparing model_1 and model_2",
                                    got=sorted(rec)[:8], fix="pass the *_pair.jsonl file (gen_judgment.py --mode "
                                    "pairwise-all or pairwise-baseline); each single grade rates one answer alone")
            _need(rec, _PAIR_FIELDS, path, i)
            first, second = "model_1", "model_2"
            m1, m2 = rec["model_1"], rec["model_2"]
            judge, prompt = judge_of(rec["judge"])
            # FastChat's two layouts of a pair file: two games (g1_winner, g2_winner), or a single-answer
            # judge's grades (m1_score, m2_score); a record without g2_winner and without scores is cut short
            single = "m1_score" in rec
            if not single:
                _need(rec, ("g2_winner",), path, i)
            if single:
                judge = f"{judge} (single)"
            games = [("g1_winner", False)] if single else [("g1_winner", False), ("g2_winner", True)]
        if prompts is not None and prompt is not None:
            prompts[judge][prompt] += 1
        turn = rec.get("turn", 1)
        a, b, swapped = canonical_pair(m1, m2)
        item = f"{rec['question_id']}:t{turn}:{a}|{b}"
        for field, second_game in games:
            side = winner_verdict(rec[field], first, second)
            meaning = {"first": f"{m1} wins", "second": f"{m2} wins"}.get(side, side)
            verdict = tally.add(judge, rec[field], _letter(side, swapped), meaning)
            shown_first_is_a = (not swapped) != second_game  # game 2 shows model_2 first
            out.append(Verdict(benchmark=BENCHMARK, item_id=item, judge=judge,
                               order="AB" if shown_first_is_a else "BA", verdict=verdict, file=path.name, row=i,
                               subset=f"turn{turn}", judge_prompt=prompt))
    return out


def _prompt_notices(prompts: dict[str, Counter]) -> list[str]:
    out = []
    for judge in sorted(prompts):
        c = prompts[judge]
        if len(c) > 1:
            shown = ", ".join(f"{p} on {counted(n, 'record')}" for p, n in sorted(c.items(), key=lambda kv: -kv[1]))
            out.append(f"MT-Bench: judge {judge} used {len(c)} judge prompts ({shown}): one judge, as in FastChat's "
                       "show_result and agreement; each judgment's prompt is kept in column judge_prompt.")
    return out


def import_mtbench(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None) -> Dataset:
    """Build a :class:`Dataset` from FastChat MT-Bench pairwise judgment files.

    Parameters
    ----------
    path : pathlib.Path or str
        A judgment file (``gpt-4_pair.jsonl``, a human-judgments ``.json``/``.jsonl``) or a
        folder searched for ``*.jsonl`` / ``*.json``. In a folder, a file that cannot be read
        (e.g. a ``*_single.jsonl`` grading file) is skipped with a notice naming it and the
        reason; the others are imported.
    gold_judge, gold
        The reference (see :func:`cap_core.importers._tools.resolve_gold`), e.g.
        ``gold_judge="expert_*"`` with the human judgments among the files. Without one the
        items have no gold: C7 pure consistency and FastChat's own metrics are computed.

    Returns
    -------
    Dataset
        Benchmark ``mtbench``; one judge per judge model (column ``judge_prompt`` holds each
        judgment's prompt); judge files give both orders (C7 declared), human votes one.

    Raises
    ------
    CAPInputError
        The path holds no readable judgment file (the first file's error: malformed JSON, a
        record without a required field, a single-answer grading file), a ``gold_judge``
        that matches no judge.
    """
    tally = Tally("MT-Bench")
    prompts: dict[str, Counter] = defaultdict(Counter)
    files = judge_files(path, (".jsonl", ".json"), source="MT-Bench judgment",
                        expected="FastChat model_judgment *_pair.jsonl files (or the human-judgments records)",
                        fix="point at gpt-4_pair.jsonl or its folder")
    records, notices = read_each(files, lambda f: read_judgments(f, tally, prompts), source="MT-Bench")
    return build_tool_dataset(records, tally, source="MT-Bench", gold_judge=gold_judge, gold_path=gold,
                              notices=notices + _prompt_notices(prompts), path=path)
