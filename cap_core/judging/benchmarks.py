"""Public benchmarks with their texts, read from the user's local copy, for live judging.

A benchmark here is a name (:data:`BENCHMARKS`) and a folder of the user's local copy
(``--source``). Reading it gives the items with their texts (question, both responses,
response authors where the source names them: :data:`cap_core.schema.ITEM_TEXT_SCHEMA`)
and, where the source publishes judge outputs, the reference dataset those items
belong to (JudgeBench's o1-mini, Claude-3-Haiku and reward models; LLMBar's GPT-4,
PaLM 2, ... evaluators; PandaLM's two judges). The texts come from the folder on every
call; nothing here is stored with the embedded data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.schema import ITEM_TEXT_SCHEMA, ITEMS_SCHEMA

__all__ = ["BENCHMARKS", "BenchmarkItems", "load_benchmark"]

#: Name -> (label set of :mod:`cap_core.importers.label_sets`, or None for a benchmark
#: with published judge outputs; what ``--source`` must point at).
BENCHMARKS: dict[str, tuple[str | None, str]] = {
    "judgebench": (None, "the JudgeBench folder (holding data/ and outputs/)"),
    "llmbar": (None, "the LLMBar repository (or its Dataset/ folder)"),
    "pandalm": (None, "the PandaLM folder (holding data/testset-v1.json and the judge files)"),
    "rewardbench": ("RewardBench", "the local copy of the public data (or its rewardbench_via_biasscope/ folder)"),
    "rm-bench": ("RM-Bench chat", "the local copy of the public data (or its rmbench/ folder)"),
    "evalbiasbench": ("EvalBiasBench", "the local copy of the public data (or its evalbiasbench/ folder)"),
    "auto-j": ("Auto-J", "the local copy of the public data (or its autoj/ folder)"),
    "testbed": (None, "a testbed folder written by `testbed build` (your own questions)"),
}


@dataclass(frozen=True)
class BenchmarkItems:
    """``items``: ITEMS_SCHEMA columns plus ITEM_TEXT_SCHEMA (String); ``reference``: the
    published judges' dataset on those items (None for a label set without judge
    outputs); ``notices``: what the reading left out."""

    name: str
    items: pl.DataFrame
    reference: Dataset | None
    notices: tuple[str, ...] = field(default_factory=tuple)


def _with_texts(ds: Dataset, texts: pl.DataFrame, source: str) -> pl.DataFrame:
    items = ds.items.join(texts, on=["benchmark", "item_id"], how="left")
    missing = items.filter(pl.col("question").is_null() | pl.col("response_a").is_null())
    if missing.height:
        raise CAPInputError("items without their texts in the local copy", file=source, column="item_id",
                            got=missing["item_id"][0], expected="the question and both responses of every item",
                            fix="use the unmodified benchmark files of one release")
    return items.select(*ITEMS_SCHEMA, *ITEM_TEXT_SCHEMA)


def _label_set_root(label_set: str, source: Path) -> Path:
    from cap_core.importers.label_sets import PUBLIC_ROWS

    top = PUBLIC_ROWS[label_set][0].split("/")[0]
    return source.parent if source.name == top else source


def load_benchmark(name: str, source: str | Path) -> BenchmarkItems:
    """Read benchmark ``name`` with its texts from the folder ``source``.

    Parameters
    ----------
    name : str
        A key of :data:`BENCHMARKS` (case-insensitive).
    source : str or Path
        The user's local copy (see :data:`BENCHMARKS` for what each name expects).

    Returns
    -------
    BenchmarkItems

    Raises
    ------
    CAPInputError
        Unknown name (argument ``benchmark``, the nearest name suggested), a missing
        folder or file, or a malformed file (file, row and column named by the importer).
    """
    from cap_core.schema import did_you_mean

    key = str(name).strip().lower()
    if key not in BENCHMARKS:
        raise CAPInputError("unknown benchmark", argument="benchmark", got=name, expected="one of " +
                            ", ".join(BENCHMARKS), fix=did_you_mean(key, BENCHMARKS, "check the spelling"))
    label_set, _what = BENCHMARKS[key]
    src = Path(source).expanduser()
    if not src.is_dir():
        raise CAPInputError("benchmark folder not found", file=str(src), argument="source",
                            expected=BENCHMARKS[key][1], fix="point --source at your local copy")
    if label_set is not None:
        from cap_core.importers.label_sets import label_set_items
        from cap_core.schema import validate_items

        items, notices = label_set_items(label_set, _label_set_root(label_set, src))
        base = validate_items(items.drop(*ITEM_TEXT_SCHEMA), file=str(src))
        items = base.join(items.select("benchmark", "item_id", *ITEM_TEXT_SCHEMA), on=["benchmark", "item_id"])
        return BenchmarkItems(key, items.select(*ITEMS_SCHEMA, *ITEM_TEXT_SCHEMA), None, tuple(notices))
    if key == "testbed":  # a controlled testbed of the user's questions: texts, no published judges
        from cap_core.testbed.layout import load_testbed_dir
        from cap_core.testbed.review import reviewed_items

        tb = load_testbed_dir(src)
        items = reviewed_items(tb)  # the review as it stands now, whoever appended to it
        texts = items.select(*[pl.col(c) if c in items.columns else pl.lit(None, pl.String).alias(c)
                               for c in ITEM_TEXT_SCHEMA])
        return BenchmarkItems(key, pl.concat([items.select(*ITEMS_SCHEMA), texts], how="horizontal"), None,
                              tuple(tb.manifest.get("notices", ())))
    if key == "judgebench":
        from cap_core.importers.judgebench import import_judgebench, read_texts

        ds = import_judgebench(src)
    elif key == "llmbar":
        from cap_core.importers.llmbar import import_llmbar, read_texts

        ds = import_llmbar(src)
    else:
        from cap_core.importers.pandalm import import_pandalm, read_texts

        ds = import_pandalm(src)
    return BenchmarkItems(key, _with_texts(ds, read_texts(src), str(src)), ds, ds.notices)
