"""Source metrics reproduce the figures the sources published, to their printed precision.

``llmbar_statistics_published.csv`` is a transcription of every ``statistics.json`` of
princeton-nlp/LLMBar (commit 900616b, ``Dataset/<set>/evaluators/<model>/<strategy>/``)
for the 94 result files held under ../shared/data/llmbar: ``correct_average``,
``correct_both`` and ``equal`` as printed (the number after ``=``, percent sign dropped).

``judgebench_published.csv`` is a transcription of JudgeBench (Tan et al., ICLR 2025) for the
GPT-4o response pairs: Table 2 (Arena-Hard Judge, o1-mini row) and Table 3 (the five reward
models), Knowledge, Reasoning, Math, Coding and Overall as printed (two decimals). Its header
comment names the text of the paper it was read from (repository, commit, file and line of each
row); ScalerLab/JudgeBench itself prints no results table.
"""

from __future__ import annotations

import csv
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.source_metrics import SOURCE_METRICS_SCHEMA, source_metrics
from cap_core.dataset import Dataset, concat_datasets
from cap_core.importers import import_judgebench, import_llmbar

PUBLISHED_LLMBAR = Path(__file__).with_name("llmbar_statistics_published.csv")

PUBLISHED_JUDGEBENCH = Path(__file__).with_name("judgebench_published.csv")


def _read_published(path: Path) -> list[dict[str, str]]:
    """The rows of a transcription CSV, its ``#`` provenance comment lines skipped."""
    with path.open() as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


@pytest.fixture(scope="module")
def metrics(shared_dir: Path) -> pl.DataFrame:
    data = shared_dir / "data"
    ds = concat_datasets([
        import_llmbar(data / "llmbar", strategies=("Vanilla_NoRules", "CoT", "Rating", "Metrics_Reference")),
        import_judgebench(data / "judgebench"),
    ])
    return source_metrics(ds)


def _half_unit(printed: str) -> float:
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return 0.5 * 10 ** -decimals


def test_every_llmbar_statistics_json_is_reproduced(metrics):
    published = _read_published(PUBLISHED_LLMBAR)
    assert len(published) == 282
    got = {(r["judge"], r["benchmark"], r["subset"], r["metric"]): r["value"] for r in metrics.iter_rows(named=True)}
    for row in published:
        key = (row["judge"], row["benchmark"], row["subset"], row["metric"])
        assert got[key] == pytest.approx(float(row["printed"]), abs=max(_half_unit(row["printed"]), 1e-9)), (key, row)


def test_judgebench_tables_2_and_3_are_reproduced(metrics):
    published = _read_published(PUBLISHED_JUDGEBENCH)
    assert len(published) == 30  # 6 judges x (4 categories + overall)
    jb = metrics.filter(pl.col("benchmark") == "judgebench", pl.col("metric") == "judgebench_score")
    got = {(r["judge"], r["subset"]): r["value"] for r in jb.iter_rows(named=True)}
    for row in published:
        key = (row["judge"], row["subset"])
        assert got[key] == pytest.approx(float(row["printed"]), abs=_half_unit(row["printed"])), (key, row)


def test_rating_ties_explain_the_llmbar_difference(metrics):
    # GPT-4/Rating on Natural: statistics.json says 92.0 %; CAP's pa is 87.0 % because the
    # 10 items with equal ratings (hand count: 100 - 90 "equal" items) are a tie in CAP
    row = metrics.filter(pl.col("judge") == "GPT-4/Rating", pl.col("subset") == "Natural",
                         pl.col("metric") == "llmbar_correct_average").row(0, named=True)
    assert row["value"] == pytest.approx(92.0) and row["cap_value"] == pytest.approx(87.0)
    assert "by position" in row["reason"] and "tie" in row["reason"]
    same = metrics.filter(pl.col("judge") == "GPT-4/Rating", pl.col("subset") == "Natural",
                          pl.col("metric") == "llmbar_correct_both").row(0, named=True)
    assert same["value"] == pytest.approx(same["cap_value"]) and same["reason"] == ""


def test_judgebench_difference_names_the_pair_rule(metrics):
    row = metrics.filter(pl.col("judge") == "o1-mini (arena_hard)", pl.col("subset") == "all").row(0, named=True)
    assert row["cap_metric"] == "pa" and row["cap_value"] != pytest.approx(row["value"])
    assert "net positive" in row["reason"]


def _tiny(verdicts_ab, verdicts_ba, recorded_ab=None, recorded_ba=None, bench="judgebench") -> Dataset:
    n = len(verdicts_ab)
    items = pl.DataFrame({"benchmark": [bench] * n, "item_id": [f"i{k}" for k in range(n)], "gold": ["A"] * n,
                          "subset": ["knowledge"] * n})
    jm = pl.DataFrame({"judge": ["j"] * 2 * n, "benchmark": [bench] * 2 * n,
                       "item_id": [f"i{k}" for k in range(n) for _ in (0, 1)], "order": ["AB", "BA"] * n,
                       "verdict": [v for pair in zip(verdicts_ab, verdicts_ba) for v in pair]})
    if recorded_ab is not None:
        jm = jm.with_columns(pl.Series("verdict_recorded",
                                       [v for pair in zip(recorded_ab, recorded_ba) for v in pair]))
    return Dataset.build(items, jm)


def test_judgebench_pair_rule_by_hand():
    # pairs: (A,A) +2 ok; (A,tie) +1 ok; (A,B) 0 not; (tie,unparsed) 0 not; (B,B) -2 not -> 2 of 5 = 40 %
    ds = _tiny(["A", "A", "A", "tie", "B"], ["A", "tie", "B", "unparsed", "B"])
    m = source_metrics(ds).filter(pl.col("subset") == "all").row(0, named=True)
    assert m["value"] == pytest.approx(40.0) and m["n"] == 5
    # CAP pa by hand: correct orders 2 + 1 + 1 + 0 + 0 = 4 of 10
    assert m["cap_value"] == pytest.approx(40.0)


def test_llmbar_equal_counts_two_unparsed_by_hand():
    # recorded winners: (A,A) equal; (unparsed,unparsed) equal in LLMBar; (B,A) unequal -> equal 2 of 3
    ds = _tiny(["A", "unparsed", "tie"], ["A", "unparsed", "tie"], ["A", "unparsed", "B"], ["A", "unparsed", "A"],
               bench="llmbar_mtbench")
    m = {r["metric"]: r for r in source_metrics(ds).iter_rows(named=True)}
    assert m["llmbar_equal"]["value"] == pytest.approx(200 / 3)
    # CAP consistency: (A,A) yes, unparsed never, tie/tie yes -> 2 of 3 as well, for other reasons
    assert m["llmbar_equal"]["cap_value"] == pytest.approx(200 / 3)
    # correct_average: AB correct 1 + BA correct 2 (the A of the tie resolved by position) -> 3 / 6
    assert m["llmbar_correct_average"]["value"] == pytest.approx(50.0)
    assert m["llmbar_correct_average"]["cap_value"] == pytest.approx(100 / 3)
    assert m["llmbar_correct_both"]["value"] == pytest.approx(100 / 3)


def test_other_benchmarks_give_no_rows():
    ds = _tiny(["A"], ["A"], bench="mine")
    out = source_metrics(ds)
    assert out.height == 0 and out.schema == pl.Schema(SOURCE_METRICS_SCHEMA)


# ------------------------------------------------------------------ RewardBench (hand-made)
# (AlpacaEval's figures: tests/cap_core/importers/test_alpacaeval.py)

def _scored(scores, gold, subsets, verdicts=None) -> Dataset:
    """One judge; ``scores`` per item: ((a, b) in AB, (a, b) in BA), scores of the ORIGINAL A and B."""
    n = len(scores)
    items = pl.DataFrame({"benchmark": ["rb"] * n, "item_id": [f"i{k}" for k in range(n)], "gold": gold,
                          "subset": subsets})
    rows = []
    for k, pair in enumerate(scores):
        for order, (a, b) in zip(("AB", "BA"), pair):
            v = "unparsed" if a is None or b is None else ("tie" if a == b else ("A" if a > b else "B"))
            if verdicts is not None:
                v = verdicts[k]
            rows.append({"judge": "rm", "benchmark": "rb", "item_id": f"i{k}", "order": order, "verdict": v,
                         "score_a": a, "score_b": b})
    return Dataset.build(items, pl.DataFrame(rows, schema_overrides={"score_a": pl.Float64, "score_b": pl.Float64}))


def test_rewardbench_accuracy_chosen_strictly_above_rejected():
    # gold A (2 > 1) right; gold B (3 > 1) right; equal scores 0; a missing score 0; position-dependent
    # grader: right in AB, wrong in BA -> 0.5. Subsets x: items 0, 1 -> 100 %; y: items 2, 3, 4 -> 0.5 / 3
    same = [((2, 1), (2, 1)), ((1, 3), (1, 3)), ((1, 1), (1, 1)), ((None, 2), (None, 2)), ((2, 1), (1, 2))]
    ds = _scored(same, ["A", "B", "A", "A", "A"], ["x", "x", "y", "y", "y"])
    out = source_metrics(ds).filter(pl.col("metric") == "rewardbench_accuracy")
    got = {r["subset"]: r for r in out.iter_rows(named=True)}
    assert got["all"]["value"] == pytest.approx(100 * 2.5 / 5) and got["all"]["n"] == 5
    assert got["x"]["value"] == pytest.approx(100.0) and got["y"]["value"] == pytest.approx(100 * 0.5 / 3)
    # CAP derives the verdict from the scores (equal -> tie, missing -> unparsed): pa agrees, no reason
    assert got["all"]["cap_metric"] == "pa" and got["all"]["cap_value"] == pytest.approx(50.0)
    assert got["all"]["reason"] == ""


def test_rewardbench_reason_when_the_verdict_is_not_the_score_comparison():
    # a judge that writes A although it scored B higher (gold A): RewardBench 0, CAP correct in both orders
    ds = _scored([((1, 2), (1, 2)), ((2, 1), (2, 1))], ["A", "A"], ["x", "x"], verdicts=["A", "A"])
    row = source_metrics(ds).filter(pl.col("metric") == "rewardbench_accuracy", pl.col("subset") == "all").row(
        0, named=True)
    assert row["value"] == pytest.approx(50.0) and row["cap_value"] == pytest.approx(100.0)
    assert "not the score comparison on 2 judgments" in row["reason"]
