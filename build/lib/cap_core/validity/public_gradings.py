"""Existing graded judge outputs mapped onto the (S, R) plane.

The mapping (also stated on the Frontiers page):

**JudgeBench rubric judges** (``judgebench_fork_stellalisy``: Qwen3-8B and
Llama-3.1-8B grade each response of a pair on [0, 1], in both presentation orders).
The verdict at ``tau`` is "acceptable" when ``grade > tau``. Base item = pair.

* T_I (slot ``order_swap``): the same response's grade in order AB vs order BA. The
  text graded is identical, so the verdict should not move.
* T_C (slot ``correct_vs_incorrect``, axis ``correctness``): the objectively correct
  response vs the incorrect one, in the same order. The construct (correctness) differs,
  so the verdict should move.

**LLMBar Rating** (``evaluators/<model>/Rating``: one 0–10 rating per output, one
presentation). Only the T_C arm exists (gold-preferred vs other output of an item), so
R(tau) is measurable and S is not: these judges get no frontier point.

A grade of -1 (JudgeBench) or an empty rating (LLMBar) is a parse failure: kept as a
null grade in the gradings table, and every probe that needs it is left out and counted.

The gradings table is shipped (:data:`REAL_GRADINGS`, ``data/validity/real_gradings.parquet``);
the default-data build writes it from the raw files with
:func:`cap_core.importers.real_gradings.build_real_gradings`. Nothing here reads a raw file.
"""

from __future__ import annotations

import polars as pl

from cap_core import config

__all__ = ["GRADINGS_SCHEMA", "gradings_to_grades", "REAL_GRADINGS"]

REAL_GRADINGS = config.validity_data_dir() / "real_gradings.parquet"
GRADINGS_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.Utf8, "judge": pl.Utf8, "base_item_id": pl.Utf8, "response": pl.Utf8, "order": pl.Utf8,
    "grade": pl.Float64, "scale_min": pl.Float64, "scale_max": pl.Float64,
}


def gradings_to_grades(gradings: pl.DataFrame) -> tuple[pl.DataFrame, list[str]]:
    """Probe table (:data:`cap_core.validity.sr.GRADES_SCHEMA`) from a gradings table, with notices.

    T_I probes pair the two orders of one response (only where two orders exist); T_C
    probes pair the correct with the incorrect response within one order. Probes with a
    null grade are left out and counted in the notices.
    """
    keys = ["source", "judge", "base_item_id", "scale_min", "scale_max"]
    g = gradings.select(list(GRADINGS_SCHEMA))
    tc = (g.filter(pl.col("response") == "correct").join(
        g.filter(pl.col("response") == "incorrect"), on=[*keys, "order"], suffix="_probe")
        .select(*keys, probe_id=pl.col("base_item_id") + ":" + pl.col("order"), cls=pl.lit("T_C"),
                axis=pl.lit("correctness"), slot=pl.lit("correct_vs_incorrect"), grade_base=pl.col("grade"),
                grade_probe=pl.col("grade_probe")))
    ti = (g.filter(pl.col("order") == "AB").join(g.filter(pl.col("order") == "BA"),
                                                 on=[*keys, "response"], suffix="_probe")
          .select(*keys, probe_id=pl.col("base_item_id") + ":swap:" + pl.col("response"), cls=pl.lit("T_I"),
                  axis=pl.lit("control"), slot=pl.lit("order_swap"), grade_base=pl.col("grade"),
                  grade_probe=pl.col("grade_probe")))
    both = pl.concat([tc, ti]).rename({"cls": "class"})
    missing = both.filter(pl.col("grade_base").is_null() | pl.col("grade_probe").is_null())
    notices = [f"{j}: {n} probe(s) left out because a grade failed to parse"
               for j, n in missing.group_by("judge").len().sort("judge").iter_rows() if n]
    out = both.drop_nulls(["grade_base", "grade_probe"]).sort(["judge", "base_item_id", "probe_id"])
    return out.select("judge", "base_item_id", "probe_id", "class", "axis", "slot", "grade_base", "grade_probe",
                      "scale_min", "scale_max", "source"), notices
