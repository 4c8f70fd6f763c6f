"""Import RewardBench results (Lambert et al., 2024; allenai/reward-bench) into the CAP data model.

Two kinds of file, both written by RewardBench's ``scripts/run_rm.py`` through
``rewardbench.utils.save_to_hub`` (``./results/<path><org>/<model>.json``):

per-item scores (``eval-set-scores/<org>/<model>.json``)
    The evaluated dataset as columns (``datasets.Dataset.to_dict``): ``id``, ``subset``,
    ``scores_chosen``, ``scores_rejected``, ``results`` (the tool's own ``1 if chosen >
    rejected else 0``), plus ``model``, ``model_type``, ``chat_template``. A "Custom
    Classifier" records null scores and only ``results``. ``save_to_hub`` writes a dict as
    one JSON object and a list as indented records one after another; both are read, and
    JSON lines too.
per-subset results (``eval-set/<org>/<model>.json``)
    One object: each subset's accuracy (``"alpacaeval-easy": 0.75``, ...) plus ``model``,
    ``model_type``, ``chat_template``. Only accuracies: no judgment can be rebuilt from it.
    :func:`read_results` reads it and :func:`section_scores` computes RewardBench's
    leaderboard sections from it.

Reading (CAP's one rule per source): each pair is one item of benchmark ``rewardbench``
(``item_id`` the ``id``, ``subset`` the subset); the chosen response is placed A or B by
:func:`cap_core.importers.hub.chosen_second` (the placement of the fetched RewardBench items,
so gold is balanced and the two meet on one item id). A reward model scores each response
alone, so there is one order (``AB``). The verdict compares the two scores (``verdict_rule``
``scores``; equal scores are a tie, ``scores_equal_tie``, where RewardBench counts 0); without
scores it is the tool's ``results`` (1: the chosen response, 0: the rejected one; rule
``written``). ``verdict_recorded`` is what RewardBench recorded (``results``), ``score_a`` /
``score_b`` the scores in the placed letters, so ``source-metrics`` gives RewardBench's own
accuracy (``rewardbench_accuracy``, :mod:`cap_core.analyses.source_metrics`).
"""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped
from cap_core.importers._common import verdict_notices, rule_notices
from cap_core.importers.hub import chosen_second
from cap_core.io import decode_text, parse_json

__all__ = ["import_rewardbench", "read_scores_file", "read_results", "section_scores", "subset_accuracy",
           "EXAMPLE_COUNTS", "SECTIONS", "BENCHMARK"]

BENCHMARK = "rewardbench"
#: Prompts per subset that weight the section scores (``rewardbench/constants.py``
#: ``EXAMPLE_COUNTS``; ``math-prm`` has 447 prompts but is weighted as 984, equal to the code subsets).
EXAMPLE_COUNTS: dict[str, int] = {
    "alpacaeval-easy": 100, "alpacaeval-length": 95, "alpacaeval-hard": 95, "mt-bench-easy": 28,
    "mt-bench-med": 40, "mt-bench-hard": 37, "math-prm": 984, "refusals-dangerous": 100,
    "refusals-offensive": 100, "llmbar-natural": 100, "llmbar-adver-neighbor": 134, "llmbar-adver-GPTInst": 92,
    "llmbar-adver-GPTOut": 47, "llmbar-adver-manual": 46, "xstest-should-refuse": 154,
    "xstest-should-respond": 250, "donotanswer": 136, "hep-cpp": 164, "hep-go": 164, "hep-java": 164,
    "hep-js": 164, "hep-python": 164, "hep-rust": 164,
}
#: RewardBench's leaderboard sections (``rewardbench/constants.py`` ``SUBSET_MAPPING``).
SECTIONS: dict[str, tuple[str, ...]] = {
    "Chat": ("alpacaeval-easy", "alpacaeval-length", "alpacaeval-hard", "mt-bench-easy", "mt-bench-med"),
    "Chat Hard": ("mt-bench-hard", "llmbar-natural", "llmbar-adver-neighbor", "llmbar-adver-GPTInst",
                  "llmbar-adver-GPTOut", "llmbar-adver-manual"),
    "Safety": ("refusals-dangerous", "refusals-offensive", "xstest-should-refuse", "xstest-should-respond",
               "donotanswer"),
    "Reasoning": ("math-prm", "hep-cpp", "hep-go", "hep-java", "hep-js", "hep-python", "hep-rust"),
}
_META = ("model", "model_type", "chat_template", "ref_model")


def _load(path: Path) -> object:
    """A JSON object, a list, or JSON values written one after another (save_to_hub's list form)."""
    text, _ = decode_text(path.read_bytes(), path.name)
    values = parse_json(text, file=path.name, what="the RewardBench file", many=True)  # the project's one JSON reader
    if not values:
        raise CAPInputError("empty RewardBench file", file=path.name, expected="a results JSON written by run_rm.py",
                            fix="pass the file RewardBench wrote under results/")
    return values[0] if len(values) == 1 else values


def _is_scores(obj: object) -> bool:
    rows = obj if isinstance(obj, list) else [obj]
    return bool(rows) and isinstance(rows[0], dict) and "subset" in rows[0] and (
        "scores_chosen" in rows[0] or "results" in rows[0])


def _is_results(obj: object) -> bool:
    return isinstance(obj, dict) and not _is_scores(obj) and any(k in EXAMPLE_COUNTS for k in obj)


def _columns(obj: object, path: Path) -> tuple[dict[str, list], dict]:
    """Per-item columns and the file's metadata (model, model_type, ...)."""
    if isinstance(obj, dict):
        meta = {k: obj[k] for k in _META if k in obj and not isinstance(obj[k], list)}
        cols = {k: v for k, v in obj.items() if isinstance(v, list)}
    else:
        rows = [r for r in obj if isinstance(r, dict)]
        meta = {k: rows[0][k] for k in _META if rows and k in rows[0]}
        keys = dict.fromkeys(k for r in rows for k in r if k not in _META)
        cols = {k: [r.get(k) for r in rows] for k in keys}
    lengths = {len(v) for v in cols.values()}
    if len(lengths) > 1:
        raise CAPInputError("RewardBench columns of different lengths", file=path.name,
                            expected="one value per pair in every column", got=sorted(lengths),
                            fix="use the unmodified file run_rm.py wrote")
    for need in ("subset",):
        if need not in cols:
            raise CAPInputError("RewardBench scores file without a required column", file=path.name, column=need,
                                expected="id, subset and scores_chosen / scores_rejected or results",
                                got=capped(sorted(cols)), fix="use the eval-set-scores file run_rm.py wrote")
    if "scores_chosen" not in cols and "results" not in cols:
        raise CAPInputError("RewardBench scores file without scores or results", file=path.name,
                            column="scores_chosen", expected="scores_chosen and scores_rejected, or results",
                            got=capped(sorted(cols)), fix="use the eval-set-scores file run_rm.py wrote")
    return cols, meta


def _number(value: object) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, list) and len(value) == 1:  # some pipelines write one-element lists
        value = value[0]
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) else out


def read_scores_file(path: Path | str) -> tuple[list[dict], dict]:
    """One RewardBench per-item scores file -> rows and metadata.

    Returns
    -------
    tuple
        ``(rows, meta)``: one dict per pair with ``row`` (1-based position), ``id`` (str;
        the position when the file has no ``id``), ``subset``, ``chosen`` / ``rejected``
        (float scores or None) and ``result`` (the file's 0 / 1, or None); ``meta`` the
        file's ``model``, ``model_type``, ``chat_template`` where given.

    Raises
    ------
    CAPInputError
        Malformed JSON, a file of another kind, columns of different lengths, no
        ``subset``, neither scores nor results, a repeated ``id``, a ``results`` value
        other than 0 / 1.
    """
    path = Path(path)
    return _score_rows(_load(path), path)


def _score_rows(obj: object, path: Path) -> tuple[list[dict], dict]:
    if not _is_scores(obj):
        raise CAPInputError("not a RewardBench per-item scores file", file=path.name,
                            expected="columns subset, id, scores_chosen, scores_rejected, results (eval-set-scores/)",
                            got=capped(sorted(obj)) if isinstance(obj, dict) else type(obj).__name__,
                            fix="pass the eval-set-scores file; an eval-set file holds only per-subset accuracies")
    cols, meta = _columns(obj, path)
    n = len(cols["subset"])
    ids = [str(v) for v in cols["id"]] if "id" in cols else [str(i) for i in range(1, n + 1)]
    seen: set[str] = set()
    rows = []
    for i in range(n):
        if ids[i] in seen:
            raise CAPInputError("repeated RewardBench id", file=path.name, row=i + 1, column="id", got=ids[i],
                                expected="one row per pair", fix="use the unmodified file run_rm.py wrote")
        seen.add(ids[i])
        result = cols["results"][i] if "results" in cols else None
        if result is not None and result not in (0, 1):
            raise CAPInputError("RewardBench result outside 0 / 1", file=path.name, row=i + 1, column="results",
                                expected="1 (chosen scored above rejected) or 0", got=result,
                                fix="use the unmodified file run_rm.py wrote")
        rows.append({"row": i + 1, "id": ids[i], "subset": str(cols["subset"][i]),
                     "chosen": _number(cols["scores_chosen"][i]) if "scores_chosen" in cols else None,
                     "rejected": _number(cols["scores_rejected"][i]) if "scores_rejected" in cols else None,
                     "result": None if result is None else int(result)})
    return rows, meta


def read_results(path: Path | str) -> tuple[dict[str, float], dict]:
    """A RewardBench per-subset results file -> ``({subset: accuracy in [0, 1]}, meta)``.

    Raises
    ------
    CAPInputError
        Malformed JSON, not an object of subset accuracies, an accuracy outside [0, 1].
    """
    path = Path(path)
    obj = _load(path)
    if not _is_results(obj):
        raise CAPInputError("not a RewardBench results file", file=path.name,
                            expected="an object of subset accuracies (eval-set/<org>/<model>.json)",
                            got=type(obj).__name__, fix="pass the eval-set file run_rm.py wrote")
    meta = {k: obj[k] for k in _META if k in obj}
    acc = {}
    for k, v in obj.items():
        if k in _META or isinstance(v, (str, list, dict)) or v is None:
            continue
        x = _number(v)
        if x is None or not 0 <= x <= 1:
            raise CAPInputError("RewardBench accuracy outside [0, 1]", file=path.name, column=k,
                                expected="a share between 0 and 1", got=v, fix="use the unmodified results file")
        acc[k] = x
    return acc, meta


def section_scores(accuracy: dict[str, float]) -> dict[str, float]:
    """RewardBench's leaderboard sections from subset accuracies (``calculate_scores_per_section``).

    Each section is the mean of its subsets' accuracies weighted by :data:`EXAMPLE_COUNTS`
    (subsets missing from ``accuracy`` are left out; a section with none is 0, as RewardBench
    writes it). Shares in [0, 1], as RewardBench computes them (its leaderboard shows percent).
    """
    out = {}
    for section, subsets in SECTIONS.items():
        present = [s for s in subsets if s in accuracy]
        total = sum(EXAMPLE_COUNTS[s] for s in present)
        out[section] = sum(accuracy[s] * EXAMPLE_COUNTS[s] for s in present) / total if total else 0.0
    return out


def subset_accuracy(rows: list[dict]) -> dict[str, float]:
    """RewardBench's per-subset accuracy of per-item rows (:func:`read_scores_file`): the share of
    pairs with ``1 if chosen > rejected else 0`` (the file's ``results`` where it has no scores)."""
    per: dict[str, list[int]] = {}
    for r in rows:
        win = (r["chosen"] > r["rejected"]) if r["chosen"] is not None and r["rejected"] is not None else r["result"]
        per.setdefault(r["subset"], []).append(int(bool(win)))
    return {s: sum(v) / len(v) for s, v in sorted(per.items())}


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise CAPInputError("RewardBench path not found", file=str(path),
                            expected="an eval-set-scores JSON file or a results/ folder",
                            fix="point at the file or folder RewardBench wrote")
    return sorted(p for p in path.rglob("*.json*") if p.is_file() and p.suffix in (".json", ".jsonl"))


def import_rewardbench(path: Path | str) -> Dataset:
    """Build a :class:`Dataset` from RewardBench per-item scores files (module notes).

    Parameters
    ----------
    path : path
        An ``eval-set-scores`` file, or a folder (e.g. RewardBench's ``results/``) searched
        for them. Per-subset results files found beside them are used as a check: a
        model whose per-item accuracy differs from its results file gets a notice.

    Returns
    -------
    Dataset
        Benchmark ``rewardbench``; one judge per file (its ``model``, else the file name),
        order ``AB``, ``score_a`` / ``score_b``, ``verdict_recorded``, ``verdict_rule``.

    Raises
    ------
    CAPInputError
        As :func:`read_scores_file`; no per-item scores file (a folder of results files
        only: they hold accuracies, not judgments); a pair id given two subsets.
    """
    path = Path(path)
    items: dict[str, dict] = {}
    judgments: list[dict] = []
    notes: list[str] = []
    results: dict[str, tuple[str, dict[str, float]]] = {}
    bad: list[str] = []
    judges = 0
    loaded = []
    for f in _files(path):
        try:
            loaded.append((f, _load(f)))
        except CAPInputError as err:
            if path.is_file():
                raise
            bad.append(f"{f.name} ({err.problem})")
    for f, obj in loaded:
        if _is_results(obj):
            acc, meta = read_results(f)
            results[str(meta.get("model") or f.stem)] = (f.name, acc)
    for f, obj in loaded:
        if not _is_scores(obj):
            if path.is_file() and not _is_results(obj):
                _score_rows(obj, f)  # raises, naming what is missing
            continue
        rows, meta = _score_rows(obj, f)
        judge = str(meta.get("model") or f.stem)
        judges += 1
        for r in rows:
            item = items.get(r["id"])
            b = chosen_second(BENCHMARK, r["id"])
            if item is None:
                items[r["id"]] = {"benchmark": BENCHMARK, "item_id": r["id"], "subset": r["subset"],
                                  "gold": "B" if b else "A"}
            elif item["subset"] != r["subset"]:
                raise CAPInputError("RewardBench pair in two subsets", file=f.name, row=r["row"], column="subset",
                                    expected=item["subset"], got=r["subset"],
                                    fix="import result files of one RewardBench release together")
            chosen, rejected = ("B", "A") if b else ("A", "B")
            recorded = None if r["result"] is None else (chosen if r["result"] == 1 else rejected)
            if r["chosen"] is not None and r["rejected"] is not None:
                if r["chosen"] == r["rejected"]:
                    verdict, rule = "tie", "scores_equal_tie"
                else:
                    verdict, rule = (chosen if r["chosen"] > r["rejected"] else rejected), "scores"
            elif recorded is not None:
                verdict, rule = recorded, "written"
            else:
                verdict, rule = "unparsed", "score_missing_unparsed"
            sa, sb = (r["rejected"], r["chosen"]) if b else (r["chosen"], r["rejected"])
            judgments.append({"judge": judge, "benchmark": BENCHMARK, "item_id": r["id"], "order": "AB",
                              "verdict": verdict, "score_a": sa, "score_b": sb, "verdict_recorded": recorded,
                              "verdict_rule": rule})
        mine = subset_accuracy(rows)
        if judge in results or meta.get("model") in results:
            rfile, acc = results.get(judge) or results[meta["model"]]
            off = [s for s in mine if s in acc and abs(mine[s] - acc[s]) > 1e-9]
            notes.append(f"RewardBench: {judge}: per-item accuracy matches {rfile} on "
                         f"{len(mine) - len(off)} of {len(mine)} subsets"
                         + (f"; differs on {capped(off)}." if off else "."))
    if bad:
        notes.append("RewardBench: files not read: " + capped(bad) + ".")
    if not judges:
        raise CAPInputError("no RewardBench per-item scores file", file=str(path),
                            expected="eval-set-scores/<org>/<model>.json (per pair: subset, id, scores_chosen, "
                                     "scores_rejected, results)",
                            got="; ".join(([f"{len(results)} per-subset results file(s)"] if results else [])
                                          + ([f"files not read: {capped(bad)}"] if bad else [])) or None,
                            fix="pass the per-item scores files; per-subset results hold accuracies only "
                                "(read them with cap_core.importers.rewardbench.read_results)")
    notes = verdict_notices(judgments, "RewardBench") + rule_notices(judgments, "RewardBench") + notes
    iframe = pl.DataFrame(list(items.values()), schema={"benchmark": pl.String, "item_id": pl.String,
                                                        "subset": pl.String, "gold": pl.String})
    jframe = pl.DataFrame(judgments, schema={"judge": pl.String, "benchmark": pl.String, "item_id": pl.String,
                                             "order": pl.String, "verdict": pl.String, "score_a": pl.Float64,
                                             "score_b": pl.Float64, "verdict_recorded": pl.String,
                                             "verdict_rule": pl.String})
    return Dataset.build(iframe, jframe, notices=tuple(notes), file=str(path))
