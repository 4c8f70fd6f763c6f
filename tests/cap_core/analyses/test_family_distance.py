import csv
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.family_distance import family_l1_summary, family_of, pairwise_l1
from cap_core.errors import CAPInputError
from tests.cap_core.analyses._fixtures import published_with_pro, toy_profile

VIEWS = {"judgereva": "judgereva:hard_empirical", "judgebench": "judgebench", "judgebench_pro": "judgebench_pro"}


def test_table17(shared_dir: Path):
    prof = published_with_pro()
    summary = family_l1_summary(pl.concat([pairwise_l1(prof, v) for v in VIEWS.values()]))
    got = {(r["view"], r["pair"]): r["l1"] for r in summary.iter_rows(named=True)}
    rows = list(csv.DictReader(open(shared_dir / "published" / "cap_family_l1.csv")))
    assert len(rows) == 9
    for r in rows:
        assert round(got[(VIEWS[r["benchmark"]], r["pair"])], 1) == pytest.approx(float(r["l1"])), r


def test_families():
    assert [family_of(n) for n in ("GPT-4o", "o1-mini", "Claude Haiku 4.5", "Gemini 2.5 Pro", "PaLM2/CoT",
                                   "Llama-3.3-70B", "Skywork-Reward")] == [
        "OpenAI", "OpenAI", "Anthropic", "Google", "Google", "Meta", "unknown"]
    assert family_of("my-judge", overrides={"my-judge": "Local"}) == "Local"


def test_missing_condition_reported():
    prof = toy_profile([("a", "x", "C1", 80), ("a", "x", "C2", 50), ("b", "x", "C1", 70)])
    row = pairwise_l1(prof, "x").row(0, named=True)
    assert row["l1"] == 10 and row["missing_conditions"] == "C2" and row["n_conditions"] == 1


def test_one_judge_is_an_error():
    with pytest.raises(CAPInputError, match="at least two judges"):
        pairwise_l1(toy_profile([("a", "x", "C1", 80)]), "x")
