"""Label sets for the surface audit, read with their response texts at run time.

A *label set* is a collection of responses with gold preference labels that judges are
validated against (RewardBench, LLMBar, PandaLM, ...). The surface audit
(:mod:`cap_core.audit.surface`) needs the response *texts*, so these loaders read the public
files in the shared data folder on every call; nothing here is copied into the
repository.

Frames held by a :class:`LabelSet`
----------------------------------
``pairs`` (:data:`PAIR_SCHEMA`), one row per compared pair:
    ``pair_id`` (String, unique), ``group`` (String: the prompt / source the pair came
    from; every pair of one group stays in one fold), ``subset`` (String, native subset
    or ``"all"``), ``response_a`` / ``response_b`` (String texts), ``label`` (String:
    ``"A"`` or ``"B"`` for the better response, ``"tie"`` for no preference).
``singles`` (:data:`SINGLE_SCHEMA`), one row per separately labelled response
(user files without pairs): ``unit_id``, ``group``, ``subset``, ``response`` and
``label`` (Int8: 1 good / chosen, 0 bad / rejected). Empty for the public sets.

The shared folder is ``$CAP_SHARED_DIR`` when set, else ``../shared`` next to the
repository (see :func:`shared_dir`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Callable

import polars as pl

from cap_core import config
from cap_core.audit.label_set import LabelSet, pairs_frame
from cap_core.errors import CAPInputError
from cap_core.io import read_table

__all__ = ["BUILTIN", "QUICK", "shared_dir", "load_label_set"]

_REPO = config.REPO_ROOT


def shared_dir(path: str | Path | None = None) -> Path:
    """Locate the shared data folder.

    Parameters
    ----------
    path : str or Path, optional
        Explicit folder; else ``$CAP_SHARED_DIR``; else ``<repo>/../shared``.

    Returns
    -------
    pathlib.Path
        A folder that holds ``data/``.

    Raises
    ------
    CAPInputError
        If the folder (or its ``data/`` subfolder) does not exist; the message names the
        folder looked at and how to set ``CAP_SHARED_DIR``.
    """
    chosen = path or os.environ.get("CAP_SHARED_DIR") or (_REPO / ".." / "shared")
    base = Path(chosen).expanduser().resolve()
    if not (base / "data").is_dir():
        raise CAPInputError(
            "the shared data folder with the label-set texts was not found",
            file=str(base),
            expected="a folder holding data/ (rewardbench_via_biasscope, llmbar, pandalm, ...)",
            fix="place the shared folder next to the repository (../shared) or set the environment "
            "variable CAP_SHARED_DIR to its path",
        )
    return base


def _records(path: Path) -> list[dict]:
    frame, _ = read_table(path, kind="label set")
    return frame.to_dicts()


def _ab(label, mapping: dict, file: str, row: int) -> str:
    if label not in mapping:
        raise CAPInputError("unknown label in a public label set", file=file, row=row, column="label",
                            expected=" or ".join(map(repr, mapping)), got=label,
                            fix="check that the shared data folder holds the files listed in PROVENANCE.json")
    return mapping[label]


def _tie_notice(name: str, pairs: pl.DataFrame) -> list[str]:
    n = int((pairs["label"] == "tie").sum())
    return [f"{name}: {n} of {pairs.height} pairs are ties (excluded from scoring, counted in n_ties)"] if n else []


def _rewardbench(root: Path) -> tuple[pl.DataFrame, str]:
    rel = "rewardbench_via_biasscope/data/rewardbench/rewardbench_filtered.parquet"
    recs = _records(root / rel)
    # response_A is the chosen response in every row of this file.
    return pairs_frame([(f"rb-{i}", r["question"], r["subset"], r["response_A"], r["response_B"], "A")
                        for i, r in enumerate(recs)]), rel


def _rmbench(root: Path) -> tuple[pl.DataFrame, str]:
    rel = "rmbench/data/chat_filtered.json"
    styles = ("concise", "detailed_plain", "detailed_markdown")
    rows = []
    for r in _records(root / rel):
        # Chosen and rejected of the same style form one pair: 3 pairs per prompt.
        for k, style in enumerate(styles):
            rows.append((f"rm-{r['id']}-{k}", str(r["id"]), style, r["chosen"][k], r["rejected"][k], "A"))
    return pairs_frame(rows), rel


def _judgebench(model: str) -> Callable[[Path], tuple[pl.DataFrame, str]]:
    def load(root: Path) -> tuple[pl.DataFrame, str]:
        rel = f"judgebench/data/dataset=judgebench,response_model={model}.jsonl"
        rows = []
        for i, r in enumerate(_records(root / rel), start=1):
            lab = _ab(r["label"], {"A>B": "A", "B>A": "B"}, rel, i)
            rows.append((r["pair_id"], str(r["original_id"]), r["source"], r["response_A"], r["response_B"], lab))
        return pairs_frame(rows), rel
    return load


def _llmbar(folder: str) -> Callable[[Path], tuple[pl.DataFrame, str]]:
    def load(root: Path) -> tuple[pl.DataFrame, str]:
        rel = f"llmbar/Dataset/{folder}/dataset.json"
        rows = []
        for i, r in enumerate(_records(root / rel), start=1):
            lab = _ab(str(r["label"]), {"1": "A", "2": "B"}, rel, i)
            rows.append((f"{folder}-{i}", r["input"], folder.rsplit("/", 1)[-1], r["output_1"], r["output_2"], lab))
        return pairs_frame(rows), rel
    return load


def _pandalm(root: Path) -> tuple[pl.DataFrame, str]:
    rel = "pandalm/data/testset-v1.json"
    rows = []
    for r in _records(root / rel):
        votes = Counter(int(r[f"annotator{k}"]) for k in (1, 2, 3))
        top, n = votes.most_common(1)[0]
        # 1 / 2 name the better response, 0 is a tie; no majority counts as a tie.
        lab = {1: "A", 2: "B"}.get(top, "tie") if n >= 2 else "tie"
        group = f"{r['instruction']}\n{r['input']}"
        rows.append((f"pandalm-{r['idx']}", group, r["motivation_app"], r["response1"], r["response2"], lab))
    return pairs_frame(rows), rel


def _autoj(root: Path) -> tuple[pl.DataFrame, str]:
    rel = "autoj/data/test/testdata_pairwise.jsonl"
    rows = []
    for i, r in enumerate(_records(root / rel), start=1):
        # Auto-J: 0 = response 1 preferred, 1 = response 2 preferred, 2 = tie.
        lab = _ab(int(r["label"]), {0: "A", 1: "B", 2: "tie"}, rel, i)
        rows.append((f"autoj-{i}", r["prompt"], r["scenario"], r["response 1"], r["response 2"], lab))
    return pairs_frame(rows), rel


def _evalbiasbench(root: Path) -> tuple[pl.DataFrame, str]:
    rel = "evalbiasbench/data/evalbiasbench/biasbench.json"
    # A JSON object of bias type -> list of probes (read_table expects a list, so parse it here).
    obj = json.loads((root / rel).read_text(encoding="utf-8"))
    rows = []
    for bias, probes in obj.items():
        for i, r in enumerate(probes, start=1):
            lab = _ab(str(r["label"]), {"1": "A", "2": "B"}, rel, i)
            rows.append((f"ebb-{bias}-{i}", r["instruction"], bias, r["response1"], r["response2"], lab))
    return pairs_frame(rows), rel


#: Public label sets by display name -> loader(shared data folder) -> (pairs, relative path).
BUILTIN: dict[str, Callable[[Path], tuple[pl.DataFrame, str]]] = {
    "RewardBench": _rewardbench,
    "RM-Bench chat": _rmbench,
    "JudgeBench GPT-4o": _judgebench("gpt-4o-2024-05-13"),
    "JudgeBench Claude": _judgebench("claude-3-5-sonnet-20240620"),
    "LLMBar Natural": _llmbar("LLMBar/Natural"),
    **{f"LLMBar {s}": _llmbar(f"LLMBar/Adversarial/{s}") for s in ("GPTInst", "GPTOut", "Manual", "Neighbor")},
    "LLMBar MT-Bench": _llmbar("Processed/MT-Bench"),
    "LLMBar FairEval": _llmbar("Processed/FairEval"),
    "LLMBar LLMEval²": _llmbar("Processed/LLMEval^2"),
    "PandaLM": _pandalm,
    "Auto-J": _autoj,
    "EvalBiasBench": _evalbiasbench,
}

#: Small sets the dashboard audits by default (answers in a few seconds).
QUICK: tuple[str, ...] = ("LLMBar Natural", "LLMBar Neighbor", "EvalBiasBench")


def load_label_set(name_or_path: str | Path, *, shared: str | Path | None = None) -> LabelSet:
    """Load a public label set by name, or a user's own file by path.

    Parameters
    ----------
    name_or_path : str or Path
        A key of :data:`BUILTIN` (e.g. ``"RewardBench"``, ``"PandaLM"``), or the path of a
        CSV / TSV / JSONL / JSON / Parquet file in the format of
        :func:`cap_core.audit.user_sets.read_user_label_set`.
    shared : str or Path, optional
        Shared folder (default: :func:`shared_dir`); only used for public sets.

    Returns
    -------
    LabelSet

    Raises
    ------
    CAPInputError
        Unknown name (and no such file), missing shared folder, or a malformed file.
    """
    if not isinstance(name_or_path, (str, Path)) or not str(name_or_path).strip():
        raise CAPInputError("no label set given", expected="a public label-set name or a file path",
                            got=name_or_path, fix="use one of: " + ", ".join(BUILTIN))
    key = str(name_or_path)
    if key in BUILTIN:
        root = shared_dir(shared) / "data"
        pairs, rel = BUILTIN[key](root)
        return LabelSet(key, pairs, source=rel, notices=_tie_notice(key, pairs))
    if Path(key).is_file():
        from cap_core.audit.user_sets import read_user_label_set

        return read_user_label_set(Path(key))
    raise CAPInputError("unknown label set", got=key, expected="a file path or one of: " + ", ".join(BUILTIN),
                        fix="check the spelling, or pass the path of your own CSV/JSONL label set")
