"""LLMBar importer against the raw LLMBar files (counts recomputed with plain json loops)."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.importers import import_llmbar

SETS = {
    ("llmbar", "Natural"): "LLMBar/Natural",
    ("llmbar", "GPTInst"): "LLMBar/Adversarial/GPTInst",
    ("llmbar", "GPTOut"): "LLMBar/Adversarial/GPTOut",
    ("llmbar", "Manual"): "LLMBar/Adversarial/Manual",
    ("llmbar", "Neighbor"): "LLMBar/Adversarial/Neighbor",
    ("llmbar_mtbench", "all"): "Processed/MT-Bench",
    ("llmbar_faireval", "all"): "Processed/FairEval",
    ("llmbar_llmeval2", "all"): "Processed/LLMEval^2",
}
STRATEGIES = ("Vanilla_NoRules", "CoT", "Rating")


@pytest.fixture(scope="module")
def root(shared_dir: Path) -> Path:
    return shared_dir / "data" / "llmbar" / "Dataset"


@pytest.fixture(scope="module")
def ds(root: Path):
    return import_llmbar(root.parent)


def _verdict(ds, judge, item_id, order):
    row = ds.judgments.filter(
        (pl.col("judge") == judge) & (pl.col("item_id") == item_id) & (pl.col("order") == order)
    )
    assert row.height == 1
    return row.row(0, named=True)


def test_items_per_subset_match_dataset_json(ds, root):
    got = {(b, s): n for b, s, n in ds.items.group_by("benchmark", "subset").len().iter_rows()}
    expected = {key: len(json.loads((root / rel / "dataset.json").read_text())) for key, rel in SETS.items()}
    assert got == expected
    # the LLMBar paper sizes: 100 Natural + 319 adversarial = 419
    assert sum(n for (b, _), n in expected.items() if b == "llmbar") == 419


def test_judgment_count_is_judges_times_items_times_two(ds, root):
    expected = 0
    for rel in SETS.values():
        n_items = len(json.loads((root / rel / "dataset.json").read_text()))
        n_judges = sum((root / rel / "evaluators" / m / s / "result.json").is_file()
                       for m in [p.name for p in (root / rel / "evaluators").iterdir()] for s in STRATEGIES)
        expected += n_judges * n_items * 2
    assert ds.judgments.height == expected
    # 14 judges on llmbar (6 evaluators x 2 strategies + 2 Rating), 4 on each processed set
    per_bench = dict(ds.judgments.group_by("benchmark").agg(pl.col("judge").n_unique()).iter_rows())
    assert per_bench == {"llmbar": 14, "llmbar_mtbench": 4, "llmbar_faireval": 4, "llmbar_llmeval2": 4}


def test_gold_and_lengths_from_raw(ds, root):
    raw = json.loads((root / "LLMBar/Natural/dataset.json").read_text())
    item = ds.items.filter(pl.col("item_id") == "Natural-0").row(0, named=True)
    assert item["gold"] == ("A" if str(raw[0]["label"]) == "1" else "B")
    assert (item["len_a"], item["len_b"]) == (len(raw[0]["output_1"]), len(raw[0]["output_2"]))
    gold_counts = Counter(ds.items.filter(pl.col("subset") == "Neighbor")["gold"].to_list())
    raw_n = json.loads((root / "LLMBar/Adversarial/Neighbor/dataset.json").read_text())
    assert gold_counts == Counter("A" if str(r["label"]) == "1" else "B" for r in raw_n)


def test_hand_checked_verdicts(ds):
    # Natural #0, GPT-4 Vanilla: label 1; swap=False winner "1", swap=True winner "1" -> A, A
    assert _verdict(ds, "GPT-4/Vanilla_NoRules", "Natural-0", "AB")["verdict"] == "A"
    assert _verdict(ds, "GPT-4/Vanilla_NoRules", "Natural-0", "BA")["verdict"] == "A"
    # Natural #4: winner "2" in both rounds -> B
    assert _verdict(ds, "GPT-4/Vanilla_NoRules", "Natural-4", "BA")["verdict"] == "B"
    # GPTInst #58, PaLM2 Vanilla: swap=False winner "1", swap=True winner null
    assert _verdict(ds, "PaLM2/Vanilla_NoRules", "GPTInst-58", "AB")["verdict"] == "A"
    assert _verdict(ds, "PaLM2/Vanilla_NoRules", "GPTInst-58", "BA")["verdict"] == "unparsed"
    # GPTInst #64: swap=False null, swap=True "1"
    assert _verdict(ds, "PaLM2/Vanilla_NoRules", "GPTInst-64", "AB")["verdict"] == "unparsed"
    assert _verdict(ds, "PaLM2/Vanilla_NoRules", "GPTInst-64", "BA")["verdict"] == "A"


def test_rating_scores_and_ties(ds):
    # GPTInst #2, GPT-4 Rating: score_1 "9", score_2 "7" -> A in both orders
    for order in ("AB", "BA"):
        row = _verdict(ds, "GPT-4/Rating", "GPTInst-2", order)
        assert (row["score_a"], row["score_b"], row["verdict"]) == (9.0, 7.0, "A")
    # GPTInst #61: score_1 is "" (unreadable) -> unparsed although LLMBar's winner was "1"/"2"
    row = _verdict(ds, "GPT-4/Rating", "GPTInst-61", "AB")
    assert row["verdict"] == "unparsed" and row["score_a"] is None and row["score_b"] == 0.0


def test_tie_and_unparsed_counts_match_raw(ds, root):
    for judge in ("GPT-4/Rating", "ChatGPT/Rating", "PaLM2/Vanilla_NoRules"):
        model, strategy = judge.split("/")
        ties = unparsed = 0
        for (bench, _), rel in SETS.items():
            if bench != "llmbar":
                continue
            for rec in json.loads((root / rel / "evaluators" / model / strategy / "result.json").read_text()):
                last = rec["results"][-1]
                if strategy == "Rating":
                    a, b = (str(last[k][0]).strip() for k in ("score_1", "score_2"))
                    if not (a.isdigit() and b.isdigit()):
                        unparsed += 2
                    elif int(a) == int(b):
                        ties += 2
                else:
                    unparsed += sum(last[k]["winner"] not in ("1", "2") for k in ("swap = False", "swap = True"))
        got = Counter(ds.judgments.filter((pl.col("judge") == judge) & (pl.col("benchmark") == "llmbar"))["verdict"])
        assert (got["tie"], got["unparsed"]) == (ties, unparsed), judge
        assert any(f"judge {judge} on llmbar gave {ties} tie and {unparsed} unparsed" in n for n in ds.notices)


def test_declarations(ds):
    d = {(r["benchmark"], r["condition"]): r for r in ds.declarations.iter_rows(named=True)}
    c5 = d[("llmbar", "C5")]
    assert c5["status"] == "direct" and c5["selector"] == "subset"
    assert sorted(c5["values"]) == ["GPTInst", "GPTOut", "Manual", "Neighbor"] and c5["reference"] == ["Natural"]
    assert "implicit" in c5["operator"]
    for bench in ("llmbar", "llmbar_mtbench", "llmbar_faireval", "llmbar_llmeval2"):
        assert d[(bench, "C7")]["selector"] == "order" and d[(bench, "C7")]["status"] == "direct"
    assert not any(c in {"C1", "C2", "C3", "C4", "C6"} for _, c in d)


def test_misaligned_result_file_is_a_clear_error(tmp_path, root):
    nat = tmp_path / "Dataset" / "LLMBar" / "Natural"
    (nat / "evaluators" / "GPT-4" / "CoT").mkdir(parents=True)
    shutil.copy(root / "LLMBar/Natural/dataset.json", nat / "dataset.json")
    res = json.loads((root / "LLMBar/Natural/evaluators/GPT-4/CoT/result.json").read_text())
    (nat / "evaluators/GPT-4/CoT/result.json").write_text(json.dumps(res[:-1]))
    with pytest.raises(CAPInputError) as err:
        import_llmbar(tmp_path)
    assert "result.json" in str(err.value) and "100" in str(err.value)


def test_bad_arguments(tmp_path):
    with pytest.raises(CAPInputError, match="not found"):
        import_llmbar(tmp_path / "missing")
    with pytest.raises(CAPInputError, match="not an LLMBar folder"):
        import_llmbar(tmp_path)
