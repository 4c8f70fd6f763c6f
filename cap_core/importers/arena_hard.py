"""Import Arena-Hard-Auto judgment files into the CAP data model.

Format read (lmarena/arena-hard-auto, ``data/<bench>/model_judgment/<judge>/<model>.jsonl``):
one JSON object a line with ``uid`` (``question_id`` in v0.1 files), ``category`` (v2),
``judge``, ``model``, ``baseline`` (v2; v0.1 files name it only in their config) and ``games``:
two entries, each null when the call failed or an object whose ``score`` is the label the
judge's verdict regex found (null when none). Game 1 showed the baseline as assistant A and
the model as B; game 2 swapped them (``gen_judgment.py``).

Labels (``show_result.py``): ``A>>B``, ``A>B`` (A better), ``A=B`` / ``B=A`` (tie),
``B>A``, ``B>>A``, ``A<B``, ``A<<B`` (B better), ``B<A``, ``B<<A`` (A better), in the
letters of that game. :func:`score_verdict` is the one reading; anything else is unparsed.

An item is one question with one (baseline, model) pair, oriented by
:func:`cap_core.importers._tools.canonical_pair`: id ``<uid>:<model A>|<model B>``, subset
the ``category``. The game that showed model A first is order ``AB``.
"""

from __future__ import annotations

from pathlib import Path

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.importers._common import load_jsonl
from cap_core.importers._tools import (
    Tally,
    Verdict,
    build_tool_dataset,
    canonical_pair,
)
from cap_core.schema import SWAP as FLIP

__all__ = ["import_arena_hard", "score_verdict", "read_judgment_file"]

BENCHMARK = "arena_hard"
_LABELS = {
    "A>>B": "A", "A>B": "A", "B<A": "A", "B<<A": "A",
    "A=B": "tie", "B=A": "tie",
    "B>A": "B", "B>>A": "B", "A<B": "B", "A<<B": "B",
}


def score_verdict(score: object) -> str:
    """An Arena-Hard game ``score`` -> ``A`` / ``B`` / ``tie`` (the game's letters) or ``unparsed``.

    Brackets and spaces around the label are ignored (``[[A>B]]`` reads as ``A>B``).
    """
    if not isinstance(score, str):
        return "unparsed"
    s = score.strip().strip("[]").replace(" ", "").upper()
    return _LABELS.get(s, "unparsed")


def read_judgment_file(path: Path, tally: Tally, *, baseline: str | None = None) -> list[Verdict]:
    """The verdicts of one Arena-Hard judgment file.

    ``baseline`` names the baseline model of files that do not (v0.1); a record's own
    ``baseline`` wins. The judge is the record's ``judge``, else the file's folder name.

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
        base = rec.get("baseline") or baseline or "baseline"
        a, b, swapped = canonical_pair(base, rec["model"])
        judge = str(rec.get("judge") or path.parent.name)
        for g, game in enumerate(games):
            raw = game.get("score") if isinstance(game, dict) else None
            letter = score_verdict(raw)  # in the game's letters: A = baseline in game 1, model in game 2
            baseline_first = g == 0
            # canonical A is shown first when (baseline is A) == (baseline shown first)
            a_first = (not swapped) == baseline_first
            verdict = letter if a_first else FLIP[letter]
            tally.add(judge, raw if isinstance(game, dict) else "null game", verdict,
                      {"A": "game's A", "B": "game's B"}.get(letter, letter))
            out.append(Verdict(benchmark=BENCHMARK, item_id=f"{uid}:{a}|{b}", judge=judge,
                               order="AB" if a_first else "BA", verdict=verdict, file=path.name, row=i,
                               subset=str(rec.get("category") or "all")))
    return out


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        found = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        if found:
            return found
        raise CAPInputError("no judgment files in the folder", file=str(path),
                            expected="model_judgment/<judge>/<model>.jsonl files", fix="point at model_judgment/")
    raise CAPInputError("Arena-Hard judgments not found", file=str(path), fix="check the path")


def import_arena_hard(path: Path | str, *, gold_judge: str | None = None, gold: Path | str | None = None,
                      baseline: str | None = None) -> Dataset:
    """Build a :class:`Dataset` from Arena-Hard-Auto judgment files.

    Parameters
    ----------
    path : pathlib.Path or str
        A ``<model>.jsonl`` judgment file or a folder (``model_judgment/``) searched for them.
    gold_judge, gold
        The reference (:func:`cap_core.importers._tools.resolve_gold`); Arena-Hard has no
        human labels, so gold is a reference judge's verdicts or a table of your own.
    baseline : str, optional
        Baseline model of v0.1 files (their records do not name it; e.g. ``gpt-4-0314``).

    Returns
    -------
    Dataset
        Benchmark ``arena_hard``, both orders per judge (C7 declared).

    Raises
    ------
    CAPInputError
        Malformed lines, missing fields, a ``games`` entry of the wrong length, no gold source.
    """
    tally = Tally("Arena-Hard")
    records = []
    for f in _files(Path(path)):
        records += read_judgment_file(f, tally, baseline=baseline)
    return build_tool_dataset(records, tally, source="Arena-Hard", gold_judge=gold_judge, gold_path=gold)
