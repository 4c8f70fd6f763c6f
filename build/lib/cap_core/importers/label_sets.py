"""Read the public label sets of the surface audit, with their texts, from a user's local copy.

A *label set* (:class:`cap_core.audit.label_set.LabelSet`) is a collection of response
pairs with gold preference labels. The surface audit (:mod:`cap_core.audit.surface`)
needs the response *texts*, which this repository never stores: they are read here, on
request, from the user's **local copy of the public data** (the folder of downloaded
public files listed in ``PROVENANCE.json``: ``llmbar/``, ``pandalm/``, ... either that
folder or the folder holding it as ``data/``). Without one, the Label audit page and the
``audit`` verb fall back to the figures the default-data build ships in ``data/audit``
(:mod:`cap_core.audit.shipped`).

One parse of each source format: LLMBar, JudgeBench and PandaLM files are read by their
importers (:func:`cap_core.importers.llmbar.read_dataset_file`,
:func:`cap_core.importers.judgebench.read_pair_file`,
:func:`cap_core.importers.pandalm.read_testset`); RewardBench, RM-Bench, Auto-J and
EvalBiasBench are read only here.

Pairs produced (``LabelSet.pairs``, :data:`cap_core.audit.label_set.PAIR_SCHEMA`):
``pair_id`` (unique), ``group`` (the prompt / source; every pair of one group stays in
one fold), ``subset`` (native subset), ``response_a`` / ``response_b`` (texts),
``label`` (``"A"`` / ``"B"`` for the better response, ``"tie"`` for no preference).
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import polars as pl

from cap_core.audit.label_set import LabelSet, pairs_frame
from cap_core.errors import CAPInputError

# The source readers (cap_core.io, the llmbar / judgebench / pandalm importers) are imported inside the
# row readers, so that the set names (PUBLIC_SETS, e.g. for the CLI's help) cost no reader imports.

__all__ = ["PUBLIC_SETS", "PUBLIC_ROWS", "label_set_items", "benchmark_of_set", "QUICK", "QUICK_PERMUTATIONS", "FULL_PERMUTATIONS", "public_data_dir",
           "read_public_label_set", "load_label_set"]

#: A parser: (file) -> (pairs frame, notices).
Parser = Callable[[Path], tuple[pl.DataFrame, list[str]]]
#: A row reader: (file) -> (rows, notices); a row is ``(pair_id, group, subset, response_a,
#: response_b, label, question, author_a, author_b)`` -- the first six are a PAIR_SCHEMA
#: row, the last three the pair's question and the models that wrote the responses (None
#: when the source does not say).
RowReader = Callable[[Path], tuple[list[tuple], list[str]]]


def _need(rec: dict, keys: tuple[str, ...], file: Path, row: int) -> None:
    for k in keys:
        if rec.get(k) is None:
            raise CAPInputError("public label-set record without a required field", file=str(file), row=row,
                                column=k, expected=", ".join(keys),
                                fix="use the unmodified file listed in PROVENANCE.json")


def _ab(label, mapping: dict, file: Path, row: int) -> str:
    if label not in mapping:
        raise CAPInputError("unknown label in a public label set", file=str(file), row=row, column="label",
                            expected=" or ".join(map(repr, mapping)), got=label,
                            fix="use the unmodified file listed in PROVENANCE.json")
    return mapping[label]


def _rewardbench(path: Path) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.io import read_table

    frame, _ = read_table(path, kind="label set")
    rows = []
    for i, r in enumerate(frame.to_dicts()):
        _need(r, ("question", "subset", "response_A", "response_B"), path, i + 1)
        # response_A is the chosen response in every row of this file.
        rows.append((f"rb-{i}", r["question"], r["subset"], r["response_A"], r["response_B"], "A", r["question"],
                     r.get("chosen_model"), r.get("rejected_model")))
    return rows, []


def _rmbench(path: Path) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.io import read_table

    styles = ("concise", "detailed_plain", "detailed_markdown")
    frame, _ = read_table(path, kind="label set")
    rows = []
    for i, r in enumerate(frame.to_dicts(), start=1):
        _need(r, ("id", "chosen", "rejected"), path, i)
        if len(r["chosen"]) != 3 or len(r["rejected"]) != 3:
            raise CAPInputError("RM-Bench record without three chosen and three rejected styles", file=str(path),
                                row=i, column="chosen", expected="lists of 3 (concise, detailed plain, markdown)",
                                got=f"{len(r['chosen'])} and {len(r['rejected'])}",
                                fix="use the unmodified chat_filtered.json")
        # Chosen and rejected of the same style form one pair: 3 pairs per prompt.
        for k, style in enumerate(styles):
            rows.append((f"rm-{r['id']}-{k}", str(r["id"]), style, r["chosen"][k], r["rejected"][k], "A",
                         r.get("prompt"), None, None))
    return rows, []


def _judgebench(path: Path) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.importers.judgebench import read_pair_file

    rows, notes = [], []
    for r in read_pair_file(path):
        if r["gold"] is None:
            notes.append(f"{path.name} line {r['line']}: label {r['label']!r} is not A>B or B>A; pair left out")
            continue
        _need(r, ("question", "response_A", "response_B"), path, r["line"])
        # group: the source item (original_id) when given; the LiveBench pairs carry none and are
        # grouped by their question (one question per pair there)
        group = str(r["original_id"]) if r.get("original_id") is not None else r["question"]
        model = r.get("response_model")
        rows.append((str(r["pair_id"]), group, r["source"], r["response_A"], r["response_B"], r["gold"], r["question"],
                     model, model))
    return rows, notes


def _llmbar(folder: str) -> RowReader:
    def parse(path: Path) -> tuple[list[tuple], list[str]]:
        from cap_core.importers.llmbar import read_dataset_file

        rows = []
        for i, r in enumerate(read_dataset_file(path), start=1):
            _need(r, ("input", "output_1", "output_2"), path, i)
            rows.append((f"{folder}-{i}", r["input"], folder.rsplit("/", 1)[-1], r["output_1"], r["output_2"],
                         r["gold"], r["input"], None, None))
        return rows, []
    return parse


def _pandalm(path: Path) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.importers.pandalm import authors_of, question_of, read_testset

    rows = []
    for i, r in enumerate(read_testset(path.parent), start=1):
        _need(r, ("instruction", "response1", "response2"), path, i)
        # no majority counts as a tie here (the pair has no preferred response)
        lab = r["majority"] if r["majority"] in ("A", "B") else "tie"
        group = f"{r['instruction']}\n{r.get('input') or ''}"
        rows.append((f"pandalm-{r['idx']}", group, r.get("motivation_app") or "all", r["response1"], r["response2"],
                     lab, question_of(r), *authors_of(r)))
    return rows, []


def _autoj(path: Path) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.importers._common import load_jsonl

    rows = []
    for i, r in enumerate(load_jsonl(path), start=1):
        _need(r, ("prompt", "scenario", "response 1", "response 2", "label"), path, i)
        # Auto-J: 0 = response 1 preferred, 1 = response 2 preferred, 2 = tie.
        lab = _ab(str(r["label"]).strip(), {"0": "A", "1": "B", "2": "tie"}, path, i)
        rows.append((f"autoj-{i}", r["prompt"], r["scenario"], r["response 1"], r["response 2"], lab, r["prompt"],
                     None, None))
    return rows, []


def _evalbiasbench(path: Path) -> tuple[pl.DataFrame, list[str]]:
    from cap_core.importers._common import load_json

    obj = load_json(path)  # an object: bias type -> list of probes
    if not isinstance(obj, dict):
        raise CAPInputError("EvalBiasBench file is not an object of bias type -> probes", file=str(path),
                            got=type(obj).__name__, fix="use the unmodified biasbench.json")
    rows = []
    for bias, probes in obj.items():
        for i, r in enumerate(probes, start=1):
            _need(r, ("instruction", "response1", "response2", "label"), path, i)
            lab = _ab(str(r["label"]), {"1": "A", "2": "B"}, path, i)
            rows.append((f"ebb-{bias}-{i}", r["instruction"], bias, r["response1"], r["response2"], lab,
                         r["instruction"], None, None))
    return rows, []


def _jb(model: str) -> tuple[str, RowReader]:
    return f"judgebench/data/dataset=judgebench,response_model={model}.jsonl", _judgebench


def _lb(folder: str) -> tuple[str, RowReader]:
    return f"llmbar/Dataset/{folder}/dataset.json", _llmbar(folder)


#: Public label sets: display name -> (file under the local copy, row reader).
PUBLIC_ROWS: dict[str, tuple[str, RowReader]] = {
    "RewardBench": ("rewardbench_via_biasscope/data/rewardbench/rewardbench_filtered.parquet", _rewardbench),
    "RM-Bench chat": ("rmbench/data/chat_filtered.json", _rmbench),
    "JudgeBench GPT-4o": _jb("gpt-4o-2024-05-13"),
    "JudgeBench Claude": _jb("claude-3-5-sonnet-20240620"),
    "LLMBar Natural": _lb("LLMBar/Natural"),
    **{f"LLMBar {s}": _lb(f"LLMBar/Adversarial/{s}") for s in ("GPTInst", "GPTOut", "Manual", "Neighbor")},
    "LLMBar MT-Bench": _lb("Processed/MT-Bench"),
    "LLMBar FairEval": _lb("Processed/FairEval"),
    "LLMBar LLMEval²": _lb("Processed/LLMEval^2"),
    "PandaLM": ("pandalm/data/testset-v1.json", _pandalm),
    "Auto-J": ("autoj/data/test/testdata_pairwise.jsonl", _autoj),
    "EvalBiasBench": ("evalbiasbench/data/evalbiasbench/biasbench.json", _evalbiasbench),
}


def _as_pairs(reader: RowReader) -> Parser:
    def parse(path: Path) -> tuple[pl.DataFrame, list[str]]:
        rows, notes = reader(path)
        return pairs_frame([r[:6] for r in rows]), notes
    return parse


#: Public label sets: display name -> (file under the local copy, parser of its pairs).
PUBLIC_SETS: dict[str, tuple[str, Parser]] = {name: (rel, _as_pairs(reader)) for name, (rel, reader) in PUBLIC_ROWS.items()}

#: Small sets the dashboard audits by default (answers in a few seconds), and the
#: permutation counts of its quick default and of its full audit.
QUICK: tuple[str, ...] = ("LLMBar Natural", "LLMBar Neighbor", "EvalBiasBench")
QUICK_PERMUTATIONS = 20
FULL_PERMUTATIONS = 100


def public_data_dir(path: str | Path) -> Path:
    """The user's local copy of the public data, resolved.

    Parameters
    ----------
    path : str or Path
        The folder holding the public sets' folders (``llmbar/``, ``pandalm/``, ...) or
        the folder holding that one as ``data/``.

    Returns
    -------
    pathlib.Path
        The folder the relative paths of :data:`PUBLIC_SETS` start from.

    Raises
    ------
    CAPInputError
        Not a folder path, or the folder does not exist.
    """
    if not isinstance(path, (str, Path)) or not str(path).strip():
        raise CAPInputError("no local copy of the public data given", argument="public_data",
                            expected="the folder of your downloaded public label-set files", got=path,
                            fix="pass the folder that holds llmbar/, pandalm/, ... (or its parent holding data/)")
    base = Path(path).expanduser().resolve()
    if not base.is_dir():
        raise CAPInputError("the local copy of the public data was not found", file=str(base),
                            expected="an existing folder holding llmbar/, pandalm/, rewardbench_via_biasscope/, ...",
                            fix="check the path of your local copy")
    known = {rel.split("/")[0] for rel, _ in PUBLIC_SETS.values()}
    if not any((base / k).is_dir() for k in known) and (base / "data").is_dir():
        return base / "data"
    return base


def _tie_notice(name: str, pairs: pl.DataFrame) -> list[str]:
    n = int((pairs["label"] == "tie").sum())
    return [f"{name}: {n} of {pairs.height} pairs are ties (excluded from scoring, counted in n_ties)"] if n else []


def read_public_label_set(name: str, public_data: str | Path) -> LabelSet:
    """One public label set, texts included, from the user's local copy.

    Parameters
    ----------
    name : str
        A key of :data:`PUBLIC_SETS`.
    public_data : str or Path
        The local copy (see :func:`public_data_dir`).

    Returns
    -------
    LabelSet
        ``source`` is the file's path relative to the local copy; ``notices`` count ties
        and pairs left out.

    Raises
    ------
    CAPInputError
        Unknown name, missing folder or file, or a malformed file (file, row and column named).
    """
    if name not in PUBLIC_SETS:
        raise CAPInputError("unknown public label set", argument="name", got=name,
                            expected="one of: " + ", ".join(PUBLIC_SETS), fix="check the spelling")
    rel, parse = PUBLIC_SETS[name]
    path = public_data_dir(public_data) / rel
    if not path.is_file():
        raise CAPInputError(f"the local copy of the public data lacks the file of {name}", file=str(path),
                            expected=rel, fix="download that file into your local copy (see PROVENANCE.json)")
    pairs, notes = parse(path)
    return LabelSet(name, pairs, source=rel, notices=_tie_notice(name, pairs) + [f"{name}: {n}" for n in notes])


def load_label_set(name_or_path: str | Path, *, public_data: str | Path | None = None) -> LabelSet:
    """Load a public label set by name (from the local copy), or a user's own file by path.

    Parameters
    ----------
    name_or_path : str or Path
        A key of :data:`PUBLIC_SETS` (e.g. ``"RewardBench"``), or the path of a CSV / TSV /
        JSONL / JSON / Parquet file in the format of
        :func:`cap_core.audit.user_sets.read_user_label_set`.
    public_data : str or Path, optional
        The user's local copy of the public data; needed for a public set.

    Returns
    -------
    LabelSet

    Raises
    ------
    CAPInputError
        Nothing given, unknown name (and no such file), a public set without a local copy,
        or a malformed file.
    """
    if not isinstance(name_or_path, (str, Path)) or not str(name_or_path).strip():
        raise CAPInputError("no label set given", expected="a public label-set name or a file path",
                            got=name_or_path, fix="use one of: " + ", ".join(PUBLIC_SETS))
    key = str(name_or_path)
    if key in PUBLIC_SETS:
        if public_data is None:
            raise CAPInputError(f"the public label set {key!r} needs its texts from your local copy of the public "
                                "data", argument="public_data", expected="the folder of your local copy",
                                fix="pass the folder that holds llmbar/, pandalm/, ... (CLI: --public-data DIR)")
        return read_public_label_set(key, public_data)
    if Path(key).is_file():
        from cap_core.audit.user_sets import read_user_label_set

        return read_user_label_set(Path(key))
    raise CAPInputError("unknown label set", got=key, expected="a file path or one of: " + ", ".join(PUBLIC_SETS),
                        fix="check the spelling, or pass the path of your own CSV/JSONL label set")


def benchmark_of_set(name: str) -> str:
    """The benchmark id of a public label set judged live: ``"RM-Bench chat"`` -> ``rm_bench_chat``."""
    import re

    return re.sub(r"[^a-z0-9]+", "_", name.lower().replace("²", "2")).strip("_")


def label_set_items(name: str, public_data: str | Path) -> tuple[pl.DataFrame, list[str]]:
    """A public label set as items with texts, ready for a judging run.

    Parameters
    ----------
    name : str
        A key of :data:`PUBLIC_SETS`.
    public_data : str or Path
        The user's local copy of the public data (see :func:`public_data_dir`).

    Returns
    -------
    (items, notices)
        ``items``: ``benchmark`` (:func:`benchmark_of_set`), ``item_id`` (the pair id),
        ``base_item_id`` (the pair's ``group``: pairs sharing a prompt are resampled
        together), ``subset``, ``variant`` (``original``), ``gold`` (A/B) and the columns
        of :data:`cap_core.schema.ITEM_TEXT_SCHEMA` (``author_a`` / ``author_b`` where the
        source names the models: RewardBench ``chosen_model`` / ``rejected_model``,
        JudgeBench ``response_model``, PandaLM ``cmp_key``). Pairs labelled a tie have
        no A/B gold and are left out (counted in the notices).

    Raises
    ------
    CAPInputError
        As :func:`read_public_label_set`.
    """
    import hashlib

    from cap_core.schema import ITEM_TEXT_SCHEMA

    if name not in PUBLIC_ROWS:
        raise CAPInputError("unknown public label set", argument="name", got=name,
                            expected="one of: " + ", ".join(PUBLIC_ROWS), fix="check the spelling")
    rel, reader = PUBLIC_ROWS[name]
    path = public_data_dir(public_data) / rel
    if not path.is_file():
        raise CAPInputError(f"the local copy of the public data lacks the file of {name}", file=str(path),
                            expected=rel, fix="download that file into your local copy (see PROVENANCE.json)")
    rows, notes = reader(path)
    bench = benchmark_of_set(name)
    out, ties = [], 0
    for pid, group, subset, a, b, label, question, author_a, author_b in rows:
        if label not in ("A", "B"):
            ties += 1
            continue
        a, b = ("" if x is None else str(x) for x in (a, b))  # a few PandaLM responses are JSON numbers or booleans
        base = "g-" + hashlib.blake2b(str(group).encode("utf-8"), digest_size=6).hexdigest()
        out.append({"benchmark": bench, "item_id": pid, "base_item_id": base, "subset": str(subset),
                    "variant": "original", "gold": label, "len_a": len(a), "len_b": len(b),
                    "question": question if question is not None else str(group), "response_a": a, "response_b": b,
                    "author_a": author_a, "author_b": author_b})
    schema = {"benchmark": pl.String, "item_id": pl.String, "base_item_id": pl.String, "subset": pl.String,
              "variant": pl.String, "gold": pl.String, "len_a": pl.Int64, "len_b": pl.Int64, **ITEM_TEXT_SCHEMA}
    notices = [f"{name}: {n}" for n in notes]
    if ties:
        notices.append(f"{name}: {ties} of {len(rows)} pairs labelled a tie left out (no A/B gold to score)")
    return pl.DataFrame(out, schema=schema), notices
