"""Import JudgeBench pairs and judge outputs (Tan et al., 2024) into the CAP data model.

Layout read (the public JudgeBench repository)::

    data/dataset=judgebench,response_model=<M>.jsonl         pairs
    outputs/dataset=judgebench,response_model=<M>,judge_name=<J>,judge_model=<X>.jsonl

Every output row carries ``judgments``: two entries, the first made with the original
order, the second with the two responses swapped. The second ``decision`` is written in
the swapped presentation's letters and is mapped back here (swapped ``A`` = original B).
The optional rubric fork adds ``judge_name=rubric`` files whose judgments carry
``score_A``/``score_B`` in [0, 1], with -1 marking a parse failure.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped
from cap_core.importers._common import (
    ORDER_OPERATOR,
    check_dir,
    declaration,
    declarations_frame,
    load_jsonl,
    rule_notices,
    verdict_notices,
)
from cap_core.schema import arena_label, unswap

__all__ = ["import_judgebench", "fork_files", "read_pair_file", "read_pairs", "read_outputs", "subset_of_source",
           "benchmark_of_response_model", "read_texts"]

_GOLD = {"A>B": "A", "B>A": "B"}
_DATE = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8})$")

C1_OPERATOR = (
    "Proxy: the Knowledge subset (MMLU-Pro sources), used as it is; "
    "position-averaged accuracy over A/B and B/A"
)
C2_OPERATOR = (
    "Proxy: the Reasoning subset (LiveBench reasoning sources), used as it is; "
    "position-averaged accuracy over A/B and B/A"
)


def subset_of_source(source: str) -> str:
    """Map a JudgeBench ``source`` to its category.

    ``mmlu-pro-*`` -> ``knowledge``, ``livebench-reasoning`` -> ``reasoning``,
    ``livebench-math`` -> ``math``, ``livecodebench`` -> ``coding``; anything else is
    kept as written.
    """
    s = str(source)
    if s.startswith("mmlu-pro"):
        return "knowledge"
    return {"livebench-reasoning": "reasoning", "livebench-math": "math", "livecodebench": "coding"}.get(s, s)


def benchmark_of_response_model(model: str) -> str:
    """``gpt-4o-*`` pairs -> ``judgebench``; ``claude-*`` -> ``judgebench_claude``; else a slug."""
    m = str(model).lower()
    if m.startswith("gpt-4o"):
        return "judgebench"
    if m.startswith("claude"):
        return "judgebench_claude"
    return "judgebench_" + re.sub(r"[^a-z0-9]+", "_", m).strip("_")


def _name_fields(path: Path) -> dict[str, str]:
    out = {}
    for part in path.stem.split(","):
        key, _, value = part.partition("=")
        out[key] = value
    return out


def _judge_id(kind: str, file_model: str, judgment) -> str:
    model = judgment.get("judge_model") if isinstance(judgment, dict) else None
    name = str(model).split("/")[-1] if model else file_model
    name = _DATE.sub("", name)
    label = {"arena_hard": "arena_hard", "reward_model": "RM", "rubric": "rubric"}.get(kind, kind)
    return f"{name} ({label})"


def read_pair_file(path: Path) -> list[dict]:
    """One parse of a JudgeBench pair file (``data/dataset=judgebench,response_model=<M>.jsonl``).

    Parameters
    ----------
    path : pathlib.Path
        One pair file.

    Returns
    -------
    list of dict
        The file's records as written (``pair_id``, ``original_id``, ``source``, ``label``,
        ``question``, ``response_A``, ``response_B``, ...), each with two added keys:
        ``gold`` (``"A"`` for ``A>B``, ``"B"`` for ``B>A``, None for any other label) and
        ``line`` (1-based line number in the file).

    Raises
    ------
    CAPInputError
        Malformed JSON line, or a record without ``pair_id`` / ``source`` / ``label``
        (file, line and column named).
    """
    out = []
    for i, rec in enumerate(load_jsonl(path), start=1):
        missing = [k for k in ("pair_id", "source", "label") if rec.get(k) is None]
        if missing:
            raise CAPInputError(
                "JudgeBench pair without a required field",
                file=str(path),
                row=i,
                column=missing[0],
                expected="pair_id, source, label",
                fix="use the unmodified JudgeBench data file",
            )
        out.append({**rec, "gold": _GOLD.get(str(rec["label"])), "line": i})
    return out


def read_pairs(root: Path) -> tuple[list[dict], list[str]]:
    """Items (ITEMS_SCHEMA dicts, lengths in characters, no texts) of every pair file under ``root/data``.

    Pairs whose label is neither ``A>B`` nor ``B>A`` are skipped and named in the notices.

    Raises
    ------
    CAPInputError
        No pair file, or from :func:`read_pair_file`.
    """
    files = sorted((Path(root) / "data").glob("*.jsonl"))
    if not files:
        raise CAPInputError(
            "no JudgeBench pair files found",
            file=str(Path(root) / "data"),
            expected="data/dataset=judgebench,response_model=*.jsonl",
            fix="point at the root of the JudgeBench repository",
        )
    items: list[dict] = []
    notices: list[str] = []
    for f in files:
        for rec in read_pair_file(f):
            if rec["gold"] is None:
                notices.append(f"JudgeBench: {f.name} line {rec['line']} has label {rec['label']!r}; pair skipped.")
                continue
            model = rec.get("response_model") or _name_fields(f).get("response_model", "")
            items.append(
                {
                    "benchmark": benchmark_of_response_model(model),
                    "item_id": str(rec["pair_id"]),
                    "base_item_id": str(rec["pair_id"]),
                    "subset": subset_of_source(rec["source"]),
                    "variant": "original",
                    "gold": rec["gold"],
                    "len_a": len(rec.get("response_A") or ""),
                    "len_b": len(rec.get("response_B") or ""),
                }
            )
    return items, notices


def read_texts(root: Path | str) -> pl.DataFrame:
    """The texts of every JudgeBench pair under ``root/data`` (the user's local copy).

    Returns
    -------
    polars.DataFrame
        ``benchmark``, ``item_id`` (as :func:`read_pairs` names them) and the columns of
        :data:`cap_core.schema.ITEM_TEXT_SCHEMA`: ``question``, ``response_a`` /
        ``response_b`` (``response_A`` / ``response_B`` as written) and ``author_a`` =
        ``author_b`` = the pair's ``response_model`` (JudgeBench has one model write both
        responses of a pair). Pairs :func:`read_pairs` skips are left out.

    Raises
    ------
    CAPInputError
        As :func:`read_pairs`; a kept pair without ``question`` / ``response_A`` /
        ``response_B`` (file, line and column named).
    """
    from cap_core.schema import ITEM_TEXT_SCHEMA

    files = sorted((check_dir(root, "JudgeBench") / "data").glob("*.jsonl"))
    if not files:
        read_pairs(Path(root))  # raises the one "no pair files" message
    rows = []
    for f in files:
        for rec in read_pair_file(f):
            if rec["gold"] is None:
                continue
            for key in ("question", "response_A", "response_B"):
                if not isinstance(rec.get(key), str):
                    raise CAPInputError("JudgeBench pair without its text", file=str(f), row=rec["line"], column=key,
                                        expected="text", got=rec.get(key), fix="use the unmodified JudgeBench data file")
            model = rec.get("response_model") or _name_fields(f).get("response_model", "")
            rows.append({"benchmark": benchmark_of_response_model(model), "item_id": str(rec["pair_id"]),
                         "question": rec["question"], "response_a": rec["response_A"], "response_b": rec["response_B"],
                         "author_a": model or None, "author_b": model or None})
    return pl.DataFrame(rows, schema={"benchmark": pl.String, "item_id": pl.String, **ITEM_TEXT_SCHEMA})


def _scores(kind: str, judgment) -> tuple[float | None, float | None] | None:
    """Scores of the first and second presented response, or None if the judge gives none."""
    if not isinstance(judgment, dict):
        return None
    if kind == "rubric":
        sa, sb = judgment.get("score_A"), judgment.get("score_B")
        if sa is None and sb is None:
            return None
        clean = [float(s) if isinstance(s, (int, float)) and s >= 0 else None for s in (sa, sb)]
        return clean[0], clean[1]
    sc = judgment.get("scores")
    if isinstance(sc, list) and len(sc) == 2 and all(isinstance(s, (int, float)) for s in sc):
        return float(sc[0]), float(sc[1])
    return None


def _one(kind: str, entry, order: str) -> dict:
    """Verdict (original letters) and scores from one element of ``judgments``."""
    entry = entry if isinstance(entry, dict) else {}
    judgment = entry.get("judgment")
    sc = _scores(kind, judgment)
    # the source's own record: its ``decision`` (a reward model writes B>A on equal scores)
    recorded = arena_label(entry.get("decision"))[0] if entry else None
    if sc is not None:
        first, second = sc
        if first is None or second is None:
            verdict, rule = "unparsed", "score_missing_unparsed"
        elif first == second:
            verdict, rule = "tie", "scores_equal_tie"
        else:
            verdict, rule = ("A" if first > second else "B"), "scores"
    else:
        verdict, rule = arena_label(entry.get("decision"))[0], "written"
        first = second = None
    verdict = unswap(verdict, order)
    recorded = unswap(recorded, order) if recorded is not None else None
    if order == "BA":
        first, second = second, first
    return {"order": order, "verdict": verdict, "score_a": first, "score_b": second,
            "verdict_recorded": recorded, "verdict_rule": rule}


def read_outputs(folder: Path, gold: dict[tuple[str, str], str],
                 files: list[Path] | None = None) -> tuple[list[dict], list[str]]:
    """One parse of the judge output files ``folder/*.jsonl``, verdicts and scores in original letters.

    Parameters
    ----------
    folder : pathlib.Path
        An ``outputs`` folder of JudgeBench or of its rubric fork.
    gold : dict
        ``(benchmark, pair_id) -> "A" | "B"`` of the known pairs (from :func:`read_pairs`);
        rows of other pairs are skipped and counted in a notice.
    files : list of pathlib.Path, optional
        Read these files instead of ``folder/*.jsonl``.

    Returns
    -------
    (rows, notices)
        ``rows``: one dict per (judge, pair, order) with the JUDGMENTS_SCHEMA keys ``judge``,
        ``benchmark``, ``item_id``, ``order``, ``verdict``, ``score_a``, ``score_b``, ``verdict_recorded``,
        ``verdict_rule`` plus
        ``judge_model``: the model name as the source writes it (e.g. ``"Qwen/Qwen3-8B"``).

    Raises
    ------
    CAPInputError
        Malformed JSON line (file and line named).
    """
    rows: list[dict] = []
    notices: list[str] = []
    for f in (files if files is not None else sorted(Path(folder).glob("*.jsonl"))):
        fields = _name_fields(f)
        kind = fields.get("judge_name", "judge")
        bench = benchmark_of_response_model(fields.get("response_model", ""))
        skipped = 0
        for i, rec in enumerate(load_jsonl(f), start=1):
            pair = str(rec.get("pair_id"))
            entries = rec.get("judgments")
            if (bench, pair) not in gold or not isinstance(entries, list):
                skipped += 1
                continue
            first = entries[0].get("judgment") if entries and isinstance(entries[0], dict) else None
            judge = _judge_id(kind, fields.get("judge_model", f.stem), first)
            source_model = first.get("judge_model") if isinstance(first, dict) else None
            for order, entry in zip(("AB", "BA"), entries[:2]):
                rows.append({"judge": judge, "benchmark": bench, "item_id": pair, **_one(kind, entry, order),
                             "judge_model": str(source_model or fields.get("judge_model", f.stem))})
            if len(entries) < 2:
                notices.append(f"JudgeBench: {f.name} line {i} has {len(entries)} judgment(s); missing order left out.")
        if skipped:
            notices.append(
                f"JudgeBench: {skipped} rows of {f.name} skipped (pair not in the pair files, or no judgments list)."
            )
    return rows, notices


def fork_files(fork_root: Path | str) -> list[Path]:
    """The judge output files of a JudgeBench fork: ``*.jsonl`` named with a ``judge_name=`` field.

    Looked for in the folder itself and in its ``outputs/`` folder (JudgeBench's layout).

    Raises
    ------
    CAPInputError
        The folder is missing, or holds no such file (the ``.jsonl`` files found are counted).
    """
    fork = check_dir(fork_root, "JudgeBench fork")
    found = sorted(fork.glob("*.jsonl")) + (sorted((fork / "outputs").glob("*.jsonl"))
                                            if (fork / "outputs").is_dir() else [])
    judged = [f for f in found if "judge_name" in _name_fields(f)]
    if not judged:
        raise CAPInputError(
            "no judge output files in the JudgeBench fork folder",
            file=str(fork),
            expected="files named dataset=judgebench,response_model=<M>,judge_name=<J>,judge_model=<X>.jsonl "
                     "in the folder or in its outputs/ folder",
            got=f"{len(found)} .jsonl files, none named with judge_name=",
            fix="point --fork at the fork's root (the folder holding outputs/), or leave --fork out",
        )
    return judged


def _fork_kind(path: Path) -> str:
    kind = _name_fields(path).get("judge_name", "judge")
    if kind == "rubric":
        return "rubric (score_A/score_B)"
    if kind == "reward_model":
        return "reward_model (scores)"
    return f"{kind}-style (decisions)"


def import_judgebench(judgebench_root: Path | str, fork_root: Path | str | None = None) -> Dataset:
    """Read JudgeBench pairs and judge outputs (plus optional rubric-judge fork outputs).

    Parameters
    ----------
    judgebench_root : pathlib.Path or str
        Folder holding ``data/*.jsonl`` (pairs) and ``outputs/*.jsonl`` (judges).
    fork_root : pathlib.Path or str, optional
        A fork's folder (:func:`fork_files`): judge files named like JudgeBench's in it or
        in its ``outputs/``; rubric files (``score_A``/``score_B``, -1 = parse failure)
        and arena_hard-style files (a ``decision`` per judgment) alike, for the pairs of
        ``judgebench_root``. A notice says how many files of each kind were read; a fork
        judge whose name is already taken by a JudgeBench judge gets `` [fork]``.

    Returns
    -------
    Dataset
        Benchmarks ``judgebench`` (350 GPT-4o pairs) and ``judgebench_claude`` (270
        Claude-3.5-Sonnet pairs). ``item_id`` = ``pair_id``; ``subset`` from
        :func:`subset_of_source`; gold from ``label``; ``len_a``/``len_b`` in characters.
        Judges: ``"<model> (arena_hard)"`` (decision read by :func:`cap_core.schema.arena_label`:
        ``A>>B``/``A>B`` -> A, ``A=B`` -> tie, null -> unparsed), ``"<model> (RM)"`` (reward scores -> ``score_a``/
        ``score_b``, verdict by comparison, equal -> tie) and ``"<model> (rubric)"``
        (scores in [0, 1]; -1 -> unparsed). Order ``AB`` is the first judgment, ``BA``
        the second, mapped back to the original letters. ``verdict_recorded`` keeps
        every judgment's own ``decision`` (same mapping; JudgeBench's reward-model code
        writes ``B>A`` when the two scores are equal) and ``verdict_rule`` names the
        rule of :data:`cap_core.schema.VERDICT_RULES` behind ``verdict``. Declarations per benchmark:
        C1 approximate (knowledge), C2 approximate (reasoning), C7 direct (order).

    Raises
    ------
    CAPInputError
        Missing folders or pair files, malformed JSON lines (file and line named), or
        a pair without ``pair_id``/``source``/``label``. Output rows for unknown pairs
        are skipped with a notice.
    """
    root = check_dir(judgebench_root, "JudgeBench")
    forked = fork_files(fork_root) if fork_root is not None else []
    items, notices = read_pairs(root)
    judgments: list[dict] = []
    gold = {(i["benchmark"], i["item_id"]): i["gold"] for i in items}
    if (root / "outputs").is_dir():
        rows, more = read_outputs(root / "outputs", gold)
        judgments += rows
        notices += more
    if forked:
        rows, more = read_outputs(Path(fork_root), gold, files=forked)
        if not rows:
            raise CAPInputError("the JudgeBench fork's judge files hold no judgment of a known pair",
                                file=str(fork_root), expected="pair_id values of the pairs under data/",
                                got=f"{len(forked)} files", fix="use the fork made for these JudgeBench pairs")
        taken = {j["judge"] for j in judgments}
        clash = sorted({r["judge"] for r in rows if r["judge"] in taken})
        for r in rows:
            if r["judge"] in clash:
                r["judge"] += " [fork]"
        kinds: dict[str, int] = {}
        for f in forked:
            kinds[_fork_kind(f)] = kinds.get(_fork_kind(f), 0) + 1
        notices.append(f"JudgeBench fork {Path(fork_root).name}: read {len(forked)} judge files: "
                       + ", ".join(f"{n} {k}" for k, n in sorted(kinds.items())) + "."
                       + (f" Renamed to avoid a clash: {capped(c + ' [fork]' for c in clash)}." if clash else ""))
        judgments += rows
        notices += more
    if not judgments:
        raise CAPInputError("no JudgeBench judge outputs found", file=str(root / "outputs"), fix="check the folder")
    decl = []
    for bench in sorted({i["benchmark"] for i in items}):
        decl += [
            declaration(bench, "C1", "approximate", C1_OPERATOR, "subset", ["knowledge"]),
            declaration(bench, "C2", "approximate", C2_OPERATOR, "subset", ["reasoning"]),
            declaration(bench, "C7", "direct", ORDER_OPERATOR, "order", ["AB", "BA"]),
        ]
    notices += verdict_notices(judgments, "JudgeBench") + rule_notices(judgments, "JudgeBench")
    return Dataset.build(
        pl.DataFrame(items, schema_overrides={"len_a": pl.Int64, "len_b": pl.Int64}),
        pl.DataFrame(judgments, schema_overrides={"score_a": pl.Float64, "score_b": pl.Float64}).drop("judge_model"),
        declarations_frame(decl),
        notices=tuple(notices),
        file=str(judgebench_root),
    )
