"""Import LLMBar evaluator outputs (Zeng et al., 2024) into the CAP data model.

Layout read (the public LLMBar repository, ``Dataset/`` folder)::

    LLMBar/Natural/dataset.json
    LLMBar/Adversarial/{GPTInst,GPTOut,Manual,Neighbor}/dataset.json
    Processed/{MT-Bench,FairEval,LLMEval^2}/dataset.json
    <set>/evaluators/<model>/<strategy>/result.json

``dataset.json`` is a list of ``{input, output_1, output_2, label}``; ``result.json``
repeats those records in the same order with a ``results`` list of rounds. Each round
holds ``"swap = False"`` and ``"swap = True"``, whose ``winner`` ("1"/"2") already
refers to the original outputs. A strategy's verdict is its last round.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError, capped
from cap_core.importers._common import (
    ORDER_OPERATOR,
    check_dir,
    declaration,
    declarations_frame,
    load_json,
    rule_notices,
    verdict_notices,
)

__all__ = ["import_llmbar", "read_dataset_file", "read_texts", "llmbar_strategies", "LLMBAR_SETS",
           "ADVERSARIAL_SUBSETS", "DEFAULT_STRATEGIES"]

#: The strategies :func:`import_llmbar` keeps unless told otherwise (those of the embedded default data).
#: ``strategies=None`` (the CLI's default) keeps every strategy present with both orders.
DEFAULT_STRATEGIES: tuple[str, ...] = ("Vanilla_NoRules", "CoT", "Rating")

ADVERSARIAL_SUBSETS: tuple[str, ...] = ("GPTInst", "GPTOut", "Manual", "Neighbor")

#: (benchmark id, subset, folder under Dataset/)
LLMBAR_SETS: tuple[tuple[str, str, str], ...] = (
    ("llmbar", "Natural", "LLMBar/Natural"),
    *(("llmbar", s, f"LLMBar/Adversarial/{s}") for s in ADVERSARIAL_SUBSETS),
    ("llmbar_mtbench", "all", "Processed/MT-Bench"),
    ("llmbar_faireval", "all", "Processed/FairEval"),
    ("llmbar_llmeval2", "all", "Processed/LLMEval^2"),
)

C5_OPERATOR = (
    "CAP names LLMBar's Natural vs. adversarial-surface subsets but leaves the exact operator "
    "implicit. Here: position-averaged accuracy over A/B and B/A on the four adversarial subsets "
    "(GPTInst, GPTOut, Manual, Neighbor), reported beside the same judge's Natural-subset value "
    "and the difference between the two"
)

_WINNER = {"1": "A", "2": "B"}


def _import_llmbar_iv(root, strategies) -> tuple[Path, tuple[str, ...] | None]:
    base = check_dir(root, "LLMBar")
    if (base / "Dataset").is_dir():
        base = base / "Dataset"
    if not (base / "LLMBar").is_dir():
        raise CAPInputError(
            "not an LLMBar folder",
            file=str(root),
            expected="a folder holding Dataset/LLMBar/Natural/dataset.json",
            fix="point at the root of the LLMBar repository (or its Dataset folder)",
        )
    if strategies is None:
        return base, None
    if isinstance(strategies, str) or not strategies or not all(isinstance(s, str) for s in strategies):
        raise CAPInputError(
            "strategies must be a non-empty list of names",
            argument="strategies",
            got=strategies,
            expected='e.g. ("Vanilla_NoRules", "CoT", "Rating"), or None for every strategy present',
        )
    return base, tuple(dict.fromkeys(strategies))


def llmbar_strategies(root: Path | str) -> dict[str, list[str]]:
    """Every strategy with a ``result.json`` under the LLMBar folder, and the models that have it.

    Parameters
    ----------
    root : pathlib.Path or str
        The LLMBar repository root or its ``Dataset`` folder.

    Returns
    -------
    dict
        strategy name -> sorted model names (``evaluators/<model>/<strategy>/result.json``
        in any set of :data:`LLMBAR_SETS`), strategies sorted.
    """
    base = Path(root)
    if (base / "Dataset").is_dir():
        base = base / "Dataset"
    found: dict[str, set[str]] = {}
    for _, _, folder in LLMBAR_SETS:
        ev = base / folder / "evaluators"
        if not ev.is_dir():
            continue
        for res in ev.glob("*/*/result.json"):
            found.setdefault(res.parent.name, set()).add(res.parent.parent.name)
    return {k: sorted(found[k]) for k in sorted(found)}


def _both_orders(res: list) -> bool:
    """True when the last round of the first record holds both games (``swap = False`` and ``swap = True``)."""
    rnd = _last_round(res[0].get("results")) if res and isinstance(res[0], dict) else None
    return rnd is not None and isinstance(rnd.get("swap = False"), dict) and isinstance(rnd.get("swap = True"), dict)


def _label(value, file: str, row: int) -> str:
    gold = _WINNER.get(str(value).strip())
    if gold is None:
        raise CAPInputError(
            "LLMBar label is not 1 or 2", file=file, row=row, column="label", expected="1 or 2", got=value
        )
    return gold


def read_dataset_file(path: Path) -> list[dict]:
    """One parse of an LLMBar ``dataset.json``: its records, each with an added ``gold``.

    Parameters
    ----------
    path : pathlib.Path
        A ``dataset.json`` (a list of ``{input, output_1, output_2, label}``).

    Returns
    -------
    list of dict
        The records as written plus ``gold`` (``"A"`` for label 1, ``"B"`` for label 2).

    Raises
    ------
    CAPInputError
        Missing file, malformed JSON, not a list of objects, or a label other than 1 / 2 (row named).
    """
    data = load_json(path)
    if not isinstance(data, list):
        raise CAPInputError("dataset.json is not a list of records", file=str(path), got=type(data).__name__)
    out = []
    for i, rec in enumerate(data, start=1):
        if not isinstance(rec, dict):
            raise CAPInputError("dataset.json record is not an object", file=str(path), row=i,
                                got=type(rec).__name__, fix="use the unmodified dataset.json")
        out.append({**rec, "gold": _label(rec.get("label"), str(path), i)})
    return out


def _score(cell) -> float | None:
    """A Rating score cell looks like ``["7", "stop"]``; return 7.0 or None if unreadable."""
    raw = cell[0] if isinstance(cell, list) and cell else cell
    try:
        return float(str(raw).strip())
    except (TypeError, ValueError):
        return None


def _last_round(results) -> dict | None:
    if not isinstance(results, list):
        return None
    rounds = [r for r in results if isinstance(r, dict) and "swap = False" in r]
    return rounds[-1] if rounds else None


def _item_judgments(rec: dict, judge: str, benchmark: str, item_id: str) -> list[dict]:
    rnd = _last_round(rec.get("results"))
    rows = []
    for order, key in (("AB", "swap = False"), ("BA", "swap = True")):
        row = {"judge": judge, "benchmark": benchmark, "item_id": item_id, "order": order}
        side = rnd.get(key) if rnd else None
        winner = side.get("winner") if isinstance(side, dict) else None
        row["verdict"] = _WINNER.get(str(winner) if winner is not None else "", "unparsed")
        # the source's own record; LLMBar resolves equal or unreadable ratings by position
        row["verdict_recorded"] = row["verdict"] if rnd is not None else None
        row["verdict_rule"] = "written"
        if rnd is not None and "score_1" in rnd:
            sa, sb = _score(rnd.get("score_1")), _score(rnd.get("score_2"))
            row["score_a"], row["score_b"] = sa, sb
            if sa is None or sb is None:
                row["verdict"], row["verdict_rule"] = "unparsed", "score_missing_unparsed"
            elif sa == sb:
                row["verdict"], row["verdict_rule"] = "tie", "scores_equal_tie"
            else:
                row["verdict"], row["verdict_rule"] = ("A" if sa > sb else "B"), "scores"
        rows.append(row)
    return rows


def _item_id(benchmark: str, subset: str, folder: str, index: int) -> str:
    """``"<subset or set>-<0-based index in dataset.json>"`` (the one naming of LLMBar items)."""
    prefix = subset if benchmark == "llmbar" else Path(folder).name
    return f"{prefix}-{index}"


def read_texts(root: Path | str) -> pl.DataFrame:
    """The texts of every LLMBar item in the user's local copy.

    Returns
    -------
    polars.DataFrame
        ``benchmark``, ``item_id`` (as :func:`import_llmbar` names them) and the columns
        of :data:`cap_core.schema.ITEM_TEXT_SCHEMA`: ``question`` = ``input``,
        ``response_a`` / ``response_b`` = ``output_1`` / ``output_2``; ``author_a`` /
        ``author_b`` null (LLMBar does not say which model wrote a response).

    Raises
    ------
    CAPInputError
        Not an LLMBar folder, a malformed ``dataset.json``, or a record without
        ``input`` / ``output_1`` / ``output_2`` text (row and column named).
    """
    from cap_core.schema import ITEM_TEXT_SCHEMA

    base, _ = _import_llmbar_iv(root, ("CoT",))
    rows = []
    for benchmark, subset, folder in LLMBAR_SETS:
        path = base / folder / "dataset.json"
        if not path.is_file():
            continue
        for i, rec in enumerate(read_dataset_file(path)):
            for key in ("input", "output_1", "output_2"):
                if not isinstance(rec.get(key), str):
                    raise CAPInputError("LLMBar record without its text", file=str(path), row=i + 1, column=key,
                                        expected="text", got=rec.get(key), fix="use the unmodified dataset.json")
            rows.append({"benchmark": benchmark, "item_id": _item_id(benchmark, subset, folder, i),
                         "question": rec["input"], "response_a": rec["output_1"], "response_b": rec["output_2"],
                         "author_a": None, "author_b": None})
    return pl.DataFrame(rows, schema={"benchmark": pl.String, "item_id": pl.String, **ITEM_TEXT_SCHEMA})


def _import_set(base: Path, benchmark: str, subset: str, folder: str, strategies, items, judgments,
                skipped: list[str] | None = None) -> None:
    set_dir = base / folder
    ds_file = set_dir / "dataset.json"
    data = read_dataset_file(ds_file)
    ids = []
    for i, rec in enumerate(data):
        item_id = _item_id(benchmark, subset, folder, i)
        ids.append(item_id)
        items.append(
            {
                "benchmark": benchmark,
                "item_id": item_id,
                "base_item_id": item_id,
                "subset": subset,
                "variant": "original",
                "gold": rec["gold"],
                "len_a": len(rec.get("output_1") or ""),
                "len_b": len(rec.get("output_2") or ""),
            }
        )
    ev_dir = set_dir / "evaluators"
    if not ev_dir.is_dir():
        return
    for model_dir in sorted(p for p in ev_dir.iterdir() if p.is_dir()):
        names = strategies if strategies is not None else sorted(p.parent.name for p in model_dir.glob("*/result.json"))
        for strategy in names:
            res_file = model_dir / strategy / "result.json"
            if not res_file.is_file():
                continue
            res = load_json(res_file)
            if strategies is None and isinstance(res, list) and not _both_orders(res):
                if skipped is not None:
                    skipped.append(f"{folder}/{model_dir.name}/{strategy}")
                continue
            if not isinstance(res, list) or len(res) != len(data):
                raise CAPInputError(
                    "result.json does not match dataset.json record for record",
                    file=str(res_file),
                    expected=f"a list of {len(data)} records",
                    got=len(res) if isinstance(res, list) else type(res).__name__,
                    fix="use result.json and dataset.json from the same LLMBar folder",
                )
            judge = f"{model_dir.name}/{strategy}"
            for i, rec in enumerate(res):
                if str(rec.get("label")) != str(data[i].get("label")) or rec.get("output_1") != data[i].get("output_1"):
                    raise CAPInputError(
                        "result.json record differs from dataset.json",
                        file=str(res_file),
                        row=i + 1,
                        fix="use result.json and dataset.json from the same LLMBar folder",
                    )
                judgments.extend(_item_judgments(rec, judge, benchmark, ids[i]))


def import_llmbar(root: Path | str, *, strategies: tuple[str, ...] | None = DEFAULT_STRATEGIES) -> Dataset:
    """Read LLMBar items and evaluator verdicts.

    Parameters
    ----------
    root : pathlib.Path or str
        LLMBar repository root (holding ``Dataset/``) or its ``Dataset`` folder.
    strategies : tuple of str or None
        Prompting strategies to keep (default :data:`DEFAULT_STRATEGIES`); each
        evaluator x strategy becomes one judge named ``"<evaluator>/<strategy>"`` (e.g.
        ``"GPT-4/CoT"``). Strategies missing for an evaluator are skipped. ``None``: every
        strategy present (:func:`llmbar_strategies`) whose rounds hold both games; one
        without both is skipped with a notice. The processed sets (MT-Bench, FairEval,
        LLMEval²) are read like the LLMBar sets.

    Returns
    -------
    Dataset
        Benchmarks ``llmbar`` (419 items; ``subset`` Natural, GPTInst, GPTOut, Manual,
        Neighbor), ``llmbar_mtbench`` (200), ``llmbar_faireval`` (66) and
        ``llmbar_llmeval2`` (200), each with ``subset="all"`` for the last three.
        ``item_id`` is ``"<subset or set>-<0-based index in dataset.json>"``; gold from
        ``label`` ("1" -> A, "2" -> B); ``len_a``/``len_b`` are character counts of
        ``output_1``/``output_2`` (texts are not kept). Two judgments per judge and item:
        ``AB`` from ``swap = False`` and ``BA`` from ``swap = True`` of the last round;
        winner "1" -> A, "2" -> B, anything else -> ``unparsed``. For ``Rating`` the
        0-10 scores fill ``score_a``/``score_b`` (the same in both orders, since each
        output is rated alone) and the verdict is the comparison (equal -> ``tie``).
        ``verdict_recorded`` keeps the source's ``winner`` of the same round (LLMBar's
        evaluate.py writes equal or unreadable ratings as output 2 in ``swap = False`` and
        output 1 in ``swap = True``); ``verdict_rule`` names the rule of
        :data:`cap_core.schema.VERDICT_RULES` behind ``verdict``.
        Declarations: ``llmbar`` C5 direct (adversarial subsets vs. Natural) and C7
        direct; the processed sets C7 direct. C1-C4, C6 and C8 are not declared.
        ``notices`` count ties and unparsed verdicts per judge.

    Raises
    ------
    CAPInputError
        Missing folder or dataset.json, malformed JSON, label not 1/2, or a result.json
        whose records do not line up with its dataset.json. (The CLI refuses a named
        strategy that no evaluator has; see :func:`llmbar_strategies`.)
    """
    base, strategies = _import_llmbar_iv(root, strategies)
    items: list[dict] = []
    judgments: list[dict] = []
    skipped: list[str] = []
    for benchmark, subset, folder in LLMBAR_SETS:
        if not (base / folder / "dataset.json").is_file():
            if benchmark == "llmbar":
                raise CAPInputError("LLMBar subset missing", file=str(base / folder / "dataset.json"))
            continue
        _import_set(base, benchmark, subset, folder, strategies, items, judgments, skipped)
    decl = [
        declaration("llmbar", "C5", "direct", C5_OPERATOR, "subset", list(ADVERSARIAL_SUBSETS), ["Natural"]),
    ]
    for bench in sorted({i["benchmark"] for i in items}):
        decl.append(declaration(bench, "C7", "direct", ORDER_OPERATOR, "order", ["AB", "BA"]))
    item_frame = pl.DataFrame(items, schema_overrides={"len_a": pl.Int64, "len_b": pl.Int64})
    judg_frame = pl.DataFrame(
        judgments, schema_overrides={"score_a": pl.Float64, "score_b": pl.Float64}, infer_schema_length=None
    )
    notices = verdict_notices(judgments, "LLMBar") + rule_notices(judgments, "LLMBar")
    kept = sorted({j["judge"].split("/", 1)[1] for j in judgments})
    notices.append(f"LLMBar: strategies imported: {', '.join(kept) if kept else 'none'}.")
    if skipped:
        notices.append(f"LLMBar: {len(skipped)} result files without both games skipped: {capped(skipped)}.")
    return Dataset.build(item_frame, judg_frame, declarations_frame(decl), notices=tuple(notices), file=str(root))
