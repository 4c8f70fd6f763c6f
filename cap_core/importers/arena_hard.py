"""Import Arena-Hard-Auto judgment files into the CAP data model.

Format read (lmarena/arena-hard-auto, ``gen_judgment.py``; files
``data/<bench>/model_judgment/<judge>/<model>.jsonl``), one JSON object a line:

* v2 layout (the repository since 2025, also its re-exported v0.1 files): ``uid``,
  ``category``, ``judge``, ``model``, ``baseline`` and ``games``;
* v0.1 layout (2024): ``question_id``, ``model``, ``judge`` and ``games``; the baseline is
  named only in the run's config (``gpt-4-0314`` for arena-hard-v0.1): pass it as
  ``baseline``.

``games`` holds two entries, each null when the call failed or an object whose ``score`` is
the label the judge's verdict regex found (null when none). Game 1 showed the baseline as
assistant A and the model as B; game 2 swapped them.

Labels are read by :func:`cap_core.schema.arena_label` (the one Arena label table,
:data:`cap_core.schema.ARENA_LABELS`): ``A>>B``, ``A>B``, ``A=B``, ``B>A``, ``B>>A`` and the
reversed spellings, in the letters of the game. The verdict keeps its letter in the item's
letters (``verdict``) and its strength in ``verdict_strength`` (2 for ``>>``, which Arena's
``show_result.py`` counts as three battles; 1 for ``>``; 0 for a tie). Anything else, and a
null game, is ``unparsed`` (counted in the notices).

An item is one question with one (baseline, model) pair, the baseline as A: id
``<uid>:<baseline>|<model>``, subset the ``category``. Game 1 is order ``AB``, game 2 ``BA``
(its letters swapped back). Gold ``B`` means the model's answer is the better one.
"""

from __future__ import annotations

from pathlib import Path

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.importers._common import load_jsonl
from cap_core.importers._tools import Tally, Verdict, build_tool_dataset, judge_files, read_each
from cap_core.schema import arena_label, unswap

__all__ = ["import_arena_hard", "read_judgment_file", "BENCHMARK", "UNNAMED_BASELINE"]

BENCHMARK = "arena_hard"
#: The baseline's name in items of v0.1 files read without ``baseline``.
UNNAMED_BASELINE = "baseline"


def read_judgment_file(path: Path, tally: Tally, *, baseline: str | None = None) -> list[Verdict]:
    """The verdicts of one Arena-Hard judgment file (module notes).

    ``baseline`` names the baseline model of v0.1 files (a record's own ``baseline`` wins;
    without either the baseline is called :data:`UNNAMED_BASELINE`). The judge is the
    record's ``judge``, else the file's folder name.

    Raises
    ------
    CAPInputError
        Malformed JSON line, a record without a question id, ``model`` or ``games``, or
        ``games`` not a list of two entries (file, line and field named).
    """
    out = []
    for i, rec in enumerate(load_jsonl(path), start=1):
        uid = rec.get("uid", rec.get("question_id"))
        for key, value in (("uid", uid), ("model", rec.get("model")), ("games", rec.get("games"))):
            if value is None:
                raise CAPInputError("Arena-Hard judgment without a required field", file=str(path), row=i, column=key,
                                    expected="uid (or question_id), model and games", got=sorted(rec)[:8],
                                    fix="pass a model_judgment/<judge>/<model>.jsonl written by gen_judgment.py")
        games = rec["games"]
        if not isinstance(games, list) or len(games) != 2:
            raise CAPInputError("Arena-Hard judgment with the wrong number of games", file=str(path), row=i,
                                column="games", expected="a list of 2 games (baseline first, then swapped)",
                                got=len(games) if isinstance(games, list) else type(games).__name__,
                                fix="re-run gen_judgment.py for this question, or remove the line")
        base = str(rec.get("baseline") or baseline or UNNAMED_BASELINE)
        model = str(rec["model"])
        judge = str(rec.get("judge") or path.parent.name)
        for g, game in enumerate(games):
            raw = game.get("score") if isinstance(game, dict) else None
            letter, strength = arena_label(raw)  # the game's letters: game 1 A = baseline, game 2 A = model
            verdict = unswap(letter, "AB" if g == 0 else "BA")
            meaning = {"A": "baseline better", "B": "model better"}.get(verdict, verdict)
            # a label reads in its game's letters: say which game, or A>B and B>A both read "baseline better"
            game_of = "game 1" if g == 0 else "game 2 (swapped)"
            tally.add(judge, f"{game_of}: {raw if isinstance(game, dict) else 'null game'}", verdict,
                      meaning + (" (strongly)" if strength == 2 else ""))
            out.append(Verdict(benchmark=BENCHMARK, item_id=f"{uid}:{base}|{model}", judge=judge,
                               order="AB" if g == 0 else "BA", verdict=verdict, file=path.name, row=i,
                               subset=str(rec.get("category") or "all"), verdict_strength=strength))
    return out


def import_arena_hard(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None,
                      baseline: str | None = None) -> Dataset:
    """Build a :class:`Dataset` from Arena-Hard-Auto judgment files.

    Parameters
    ----------
    path : pathlib.Path or str
        A ``<model>.jsonl`` judgment file or a folder (``model_judgment/``) searched for them.
        In a folder, a file that cannot be read is skipped with a notice naming it and the
        reason; the others are imported.
    gold_judge, gold
        The reference (:func:`cap_core.importers._tools.resolve_gold`); Arena-Hard has no
        human labels, so gold is a reference judge's verdicts or a table of your own. Without
        one the items have no gold: C7 pure consistency and Arena's own score are computed.
    baseline : str, optional
        Baseline model of v0.1 files (their records do not name it; e.g. ``gpt-4-0314``).

    Returns
    -------
    Dataset
        Benchmark ``arena_hard``, both orders per judge (C7 declared); ``verdict_strength``
        holds each label's strength.

    Raises
    ------
    CAPInputError
        No readable judgment file (the first file's error: malformed lines, missing fields,
        a ``games`` entry of the wrong length), a ``gold_judge`` that matches no judge.
    """
    tally = Tally("Arena-Hard")
    files = judge_files(path, (".jsonl",), source="Arena-Hard judgment",
                        expected="model_judgment/<judge>/<model>.jsonl files", fix="point at model_judgment/")
    records, notices = read_each(files, lambda f: read_judgment_file(f, tally, baseline=baseline),
                                 source="Arena-Hard")
    if any(r.item_id.split(":", 1)[1].startswith(UNNAMED_BASELINE + "|") for r in records):
        notices.append(f"Arena-Hard: some records do not name their baseline (the v0.1 layout): it is called "
                       f"{UNNAMED_BASELINE!r}; pass --baseline (gpt-4-0314 for arena-hard-v0.1) to name it.")
    return build_tool_dataset(records, tally, source="Arena-Hard", gold_judge=gold_judge, gold_path=gold,
                              notices=notices, path=path)
