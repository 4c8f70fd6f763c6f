"""Build the public gradings table (``data/validity/real_gradings.parquet``) from the raw files.

Part of the default-data build: the Frontiers page reads only the shipped table
(:data:`cap_core.validity.public_gradings.REAL_GRADINGS`), never the raw files. The
mapping onto the (S, R) plane is stated in :mod:`cap_core.validity.public_gradings`
(Validity §3, the T_I / T_C probe classes); this module only turns the importers' one
parse of each source into :data:`cap_core.validity.public_gradings.GRADINGS_SCHEMA` rows
(per response: ``correct`` / ``incorrect``, order, grade; no texts).

Sources:

* JudgeBench rubric fork (``judgebench_fork_stellalisy/outputs``), read by
  :func:`cap_core.importers.judgebench.read_outputs` (both orders, scores already in the
  original letters, -1 -> null); gold from the JudgeBench pair files
  (:func:`cap_core.importers.judgebench.read_pairs`). Judges are named as the source
  writes them (``Qwen/Qwen3-8B``).
* LLMBar Rating (0–10 per output, one presentation), read by
  :func:`cap_core.importers.llmbar.import_llmbar` with the ``Rating`` strategy; an empty
  rating is a null grade. ``base_item_id`` = ``"<subset>:<0-based index>"``.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.importers._common import check_dir
from cap_core.importers.judgebench import read_outputs, read_pairs
from cap_core.importers.llmbar import import_llmbar
from cap_core.validity.public_gradings import GRADINGS_SCHEMA, REAL_GRADINGS

__all__ = ["read_judgebench_gradings", "read_llmbar_rating_gradings", "build_real_gradings"]


def read_judgebench_gradings(judgebench_root: Path | str, fork_root: Path | str) -> pl.DataFrame:
    """Per-response rubric grades of the JudgeBench fork, both orders, original letters.

    Parameters
    ----------
    judgebench_root : path
        The JudgeBench folder (its ``data/`` pair files give the gold label).
    fork_root : path
        The rubric fork's folder (``outputs/*judge_name=rubric*.jsonl``).

    Returns
    -------
    polars.DataFrame
        :data:`GRADINGS_SCHEMA` rows, source ``"judgebench rubric"``: per (judge, pair,
        order) one row for the correct and one for the incorrect response, grade in
        [0, 1] or null (the source's -1 parse failure), scale 0–1.

    Raises
    ------
    CAPInputError
        Missing folders, no rubric judge, or from the JudgeBench importer.
    """
    items, _ = read_pairs(check_dir(judgebench_root, "JudgeBench"))
    gold = {(i["benchmark"], i["item_id"]): i["gold"] for i in items}
    rows, _ = read_outputs(check_dir(fork_root, "JudgeBench rubric fork") / "outputs", gold)
    out = []
    for r in rows:
        if not r["judge"].endswith("(rubric)"):
            continue
        right = gold[(r["benchmark"], r["item_id"])]
        for letter, grade in (("A", r["score_a"]), ("B", r["score_b"])):
            out.append(("judgebench rubric", r["judge_model"], r["item_id"],
                        "correct" if letter == right else "incorrect", r["order"], grade, 0.0, 1.0))
    if not out:
        raise CAPInputError("no rubric judge outputs found", file=str(Path(fork_root) / "outputs"),
                            expected="files named *judge_name=rubric*.jsonl", fix="point at the rubric fork's folder")
    return pl.DataFrame(out, schema=GRADINGS_SCHEMA, orient="row")


def read_llmbar_rating_gradings(llmbar_root: Path | str) -> pl.DataFrame:
    """LLMBar Rating scores (0–10) of both outputs of every ``llmbar`` item, one presentation.

    Returns
    -------
    polars.DataFrame
        :data:`GRADINGS_SCHEMA` rows, source ``"llmbar rating"``, judge
        ``"<evaluator>/Rating"``, order ``"single"``, response ``correct`` = the output named
        by the item's label; an unreadable score is a null grade.

    Raises
    ------
    CAPInputError
        From the LLMBar importer.
    """
    ds = import_llmbar(llmbar_root, strategies=("Rating",))
    gold = dict(ds.items.filter(pl.col("benchmark") == "llmbar").select("item_id", "gold").iter_rows())
    # Rating scores each output alone: the AB and BA rows carry the same two scores
    j = ds.judgments.filter((pl.col("benchmark") == "llmbar") & (pl.col("order") == "AB"))
    out = []
    for judge, item, sa, sb in j.select("judge", "item_id", "score_a", "score_b").iter_rows():
        subset, _, index = item.rpartition("-")
        for letter, grade in (("A", sa), ("B", sb)):
            out.append(("llmbar rating", judge, f"{subset}:{index}", "correct" if letter == gold[item] else "incorrect",
                        "single", grade, 0.0, 10.0))
    return pl.DataFrame(out, schema=GRADINGS_SCHEMA, orient="row")


def build_real_gradings(public_data: Path | str, out: Path | str = REAL_GRADINGS) -> pl.DataFrame:
    """Read both sources from ``<public_data>/data`` and write the compact gradings table (no texts).

    Parameters
    ----------
    public_data : path
        The public data folder holding ``data/judgebench``, ``data/judgebench_fork_stellalisy``
        and ``data/llmbar``.
    out : path
        The Parquet file to write (default: the shipped one).

    Returns
    -------
    polars.DataFrame
        The table written.
    """
    data = check_dir(Path(public_data) / "data", "public data")
    g = pl.concat([read_judgebench_gradings(data / "judgebench", data / "judgebench_fork_stellalisy"),
                   read_llmbar_rating_gradings(data / "llmbar")])
    from cap_core.outputs import write_file

    write_file(out, g.write_parquet)
    return g
