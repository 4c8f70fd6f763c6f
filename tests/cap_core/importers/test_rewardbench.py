"""RewardBench: per-item scores read with RewardBench's rule; its section weighting; its own accuracy metric."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.source_metrics import source_metrics
from cap_core.errors import CAPInputError
from cap_core.importers.formats import read
from cap_core.importers.rewardbench import import_rewardbench, read_results, section_scores, subset_accuracy, \
    read_scores_file

FX = Path(__file__).resolve().parents[2] / "fixtures" / "rewardbench"
RESULTS = FX / "eval-set" / "general-preference" / "GPM-Gemma-2B.json"
SCORES = FX / "eval-set-scores" / "cap-fixture" / "hand-scored-rm.json"


def test_section_scores_of_a_published_results_file():
    acc, meta = read_results(RESULTS)
    assert meta["model"] == "general-preference/GPM-Gemma-2B" and len(acc) == 23
    s = section_scores(acc)
    # by hand, from the file's accuracies as counts of RewardBench's subsets (EXAMPLE_COUNTS):
    # Chat (75 + 79 + 69 + 26 + 32) / (100 + 95 + 95 + 28 + 40)
    assert s["Chat"] == pytest.approx(281 / 358)
    # Chat Hard (16 + 71 + 89 + 72 + 33 + 21) / (37 + 100 + 134 + 92 + 47 + 46)
    assert s["Chat Hard"] == pytest.approx(302 / 456)
    # Safety (94 + 100 + 131 + 221 + 78) / (100 + 100 + 154 + 250 + 136)
    assert s["Safety"] == pytest.approx(624 / 740)
    # Reasoning: math-prm (420 of 447) weighted as 984 prompts, the six code subsets 659 of 6 x 164
    assert s["Reasoning"] == pytest.approx((420 / 447 * 984 + 659) / 1968)


def test_per_item_scores_with_rewardbench_rule():
    rows, meta = read_scores_file(SCORES)
    assert meta["model"] == "cap-fixture/hand-scored-rm" and len(rows) == 6
    # hand counts (SOURCE.md): equal scores count 0 for RewardBench
    assert subset_accuracy(rows) == {"llmbar-natural": 1.0, "mt-bench-easy": pytest.approx(1 / 3),
                                     "mt-bench-hard": 0.5}
    assert [r["result"] for r in rows] == [1, 0, 0, 1, 0, 1]  # the file's own results agree


def test_dataset_verdicts_scores_and_source_metric():
    ds = read("rewardbench", FX)
    j = ds.judgments.join(ds.items.select("item_id", "gold"), on="item_id")
    assert ds.items.height == 6 and j["order"].unique().to_list() == ["AB"]
    # the chosen response is placed by the same hash as the fetched RewardBench items: 2416 is placed B
    assert dict(zip(ds.items["item_id"], ds.items["gold"]))["2416"] == "B"
    tie = j.filter(pl.col("item_id") == "2417").row(0, named=True)
    assert (tie["verdict"], tie["verdict_rule"], tie["verdict_recorded"]) == ("tie", "scores_equal_tie", "B")
    right = j.filter(pl.col("verdict") == pl.col("gold"))["item_id"].sort().to_list()
    assert right == ["2415", "2488", "2533"]  # chosen scored strictly above rejected
    sm = source_metrics(ds).filter(pl.col("metric") == "rewardbench_accuracy")
    assert dict(zip(sm["subset"], sm["value"])) == {"all": 50.0, "llmbar-natural": 100.0,
                                                     "mt-bench-easy": pytest.approx(100 / 3), "mt-bench-hard": 50.0}


def test_save_to_hub_list_form_and_mismatch_notice(tmp_path):
    cols = json.loads(SCORES.read_text())
    recs = [{k: cols[k][i] for k in ("id", "subset", "scores_chosen", "scores_rejected", "results")}
            | {"model": "m/x"} for i in range(6)]
    # save_to_hub writes a list as indented records one after another
    (tmp_path / "x.json").write_text("".join(json.dumps(r, indent=4, sort_keys=True) + "\n" for r in recs))
    (tmp_path / "res.json").write_text(json.dumps({"model": "m/x", "mt-bench-easy": 1.0, "mt-bench-hard": 0.5,
                                                   "llmbar-natural": 1.0}))
    ds = import_rewardbench(tmp_path)
    assert ds.judgments["judge"].unique().to_list() == ["m/x"]
    assert any("matches res.json on 2 of 3 subsets; differs on mt-bench-easy" in n for n in ds.notices)


def test_results_file_alone_is_not_judgments(tmp_path):
    (tmp_path / "r.json").write_bytes(RESULTS.read_bytes())
    with pytest.raises(CAPInputError) as e:
        import_rewardbench(tmp_path)
    assert "no RewardBench per-item scores file" in e.value.problem and "1 per-subset results" in str(e.value)
