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
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core import config
from cap_core.errors import CAPInputError

__all__ = ["GRADINGS_SCHEMA", "read_judgebench_gradings", "read_llmbar_rating_gradings", "build_real_gradings",
           "gradings_to_grades", "REAL_GRADINGS"]

REAL_GRADINGS = config.validity_data_dir() / "real_gradings.parquet"
GRADINGS_SCHEMA: dict[str, pl.DataType] = {
    "source": pl.Utf8, "judge": pl.Utf8, "base_item_id": pl.Utf8, "response": pl.Utf8, "order": pl.Utf8,
    "grade": pl.Float64, "scale_min": pl.Float64, "scale_max": pl.Float64,
}
_LLMBAR_SUBSETS = ("Natural", "Adversarial/GPTInst", "Adversarial/GPTOut", "Adversarial/Manual", "Adversarial/Neighbor")


def _folder_iv(path: Path, what: str) -> Path:
    path = Path(path)
    if not path.is_dir():
        raise CAPInputError(f"{what} folder not found", file=str(path), expected="an existing folder",
                            fix="point --shared at the folder holding data/ (../shared)")
    return path


def read_judgebench_gradings(fork_root: Path) -> pl.DataFrame:
    """Per-response rubric grades of the JudgeBench fork, both orders, in original letters.

    Returns :data:`GRADINGS_SCHEMA` rows: response "correct"/"incorrect" (from the gold
    label A>B / B>A), order "AB"/"BA", grade in [0, 1] or null (-1 = parse failure).
    In the BA judgment ``score_A`` grades the original response B.
    """
    files = sorted(_folder_iv(fork_root, "JudgeBench fork").glob("outputs/*.jsonl"))
    rows = []
    for f in files:
        for line_no, line in enumerate(f.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise CAPInputError("malformed JSON line", file=f.name, row=line_no) from None
            label = rec.get("label")
            if label not in ("A>B", "B>A"):
                continue
            correct = label[0]
            for order, entry in zip(("AB", "BA"), rec.get("judgments", [])[:2]):
                j = entry.get("judgment") or {}
                shown = {"A": j.get("score_A"), "B": j.get("score_B")}
                if order == "BA":
                    shown = {"A": shown["B"], "B": shown["A"]}
                for letter, grade in shown.items():
                    ok = isinstance(grade, (int, float)) and grade >= 0
                    rows.append(("judgebench rubric", j.get("judge_model") or rec.get("judge_name"),
                                 str(rec["pair_id"]), "correct" if letter == correct else "incorrect", order,
                                 float(grade) if ok else None, 0.0, 1.0))
    return pl.DataFrame(rows, schema=GRADINGS_SCHEMA, orient="row")


def read_llmbar_rating_gradings(llmbar_root: Path) -> pl.DataFrame:
    """LLMBar Rating scores (0–10) of both outputs of every item, one presentation ("single").

    ``base_item_id`` = ``"<subset>:<index>"``; response "correct" is the output named by
    the item's ``label``. An empty score is a null grade.
    """
    root = _folder_iv(llmbar_root, "LLMBar") / "Dataset" / "LLMBar"
    rows = []
    for subset in _LLMBAR_SUBSETS:
        for f in sorted((root / subset / "evaluators").glob("*/Rating/result.json")):
            evaluator = f.parts[-3]
            for i, item in enumerate(json.loads(f.read_text(encoding="utf-8"))):
                res = item["results"][-1]
                for k in (1, 2):
                    raw = str(res[f"score_{k}"][0]).strip()
                    grade = float(raw) if raw.replace(".", "", 1).isdigit() else None
                    rows.append(("llmbar rating", f"{evaluator}/Rating", f"{subset.split('/')[-1]}:{i}",
                                 "correct" if int(item["label"]) == k else "incorrect", "single", grade, 0.0, 10.0))
    return pl.DataFrame(rows, schema=GRADINGS_SCHEMA, orient="row")


def build_real_gradings(shared: Path, out: Path = REAL_GRADINGS) -> pl.DataFrame:
    """Read both sources from ``shared/data`` and write the compact gradings table (no texts)."""
    data = _folder_iv(Path(shared) / "data", "shared data")
    g = pl.concat([read_judgebench_gradings(data / "judgebench_fork_stellalisy"),
                   read_llmbar_rating_gradings(data / "llmbar")])
    out.parent.mkdir(parents=True, exist_ok=True)
    g.write_parquet(out)
    return g


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
