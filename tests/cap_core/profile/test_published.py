"""Published CAP loaders: values checked against the paper tables (seed text, read by hand)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.profile.published import load_published_coverage, load_published_profiles
from cap_core.schema import PROFILE_SCHEMA


@pytest.fixture(scope="module")
def prof() -> pl.DataFrame:
    return load_published_profiles()


def _cell(prof, table, judge, condition, metric, subset):
    r = prof.filter(
        (pl.col("source") == f"published: CAP Table {table}")
        & (pl.col("judge") == judge)
        & (pl.col("condition") == condition)
        & (pl.col("metric") == metric)
        & (pl.col("subset") == subset)
    )
    assert r.height == 1, (table, judge, condition, metric)
    return r.row(0, named=True)


def test_schema_and_excluded_tables(prof):
    assert prof.schema == pl.Schema(PROFILE_SCHEMA)
    assert not prof["source"].str.contains("Table 18|Table 20").any()
    assert prof["value"].is_between(0, 100).all()


def test_table5_judgebench_values(prof):
    # CAP Table 5: "Gemini 2.5 Pro 84.8 (79,90) 93.5 (89,98) — — n.r. n.r. 86.8 (83,90) n.r."
    c2 = _cell(prof, 5, "Gemini 2.5 Pro", "C2", "pa", "all")
    assert (c2["value"], c2["ci_low"], c2["ci_high"], c2["status"]) == (93.5, 89.0, 98.0, "approximate")
    c7 = _cell(prof, 5, "Gemini 2.5 Pro", "C7", "strict", "all")
    assert (c7["value"], c7["status"], c7["primary"]) == (86.8, "direct", True)
    assert "Knowledge" in _cell(prof, 5, "GPT-4o", "C1", "pa", "all")["operator"]
    # C3-C6 and C8 are printed as "—" or "n.r." and are not profile rows
    t5 = prof.filter(pl.col("source") == "published: CAP Table 5")
    assert sorted(t5["condition"].unique().to_list()) == ["C1", "C2", "C7"] and t5.height == 21


def test_table3_and_table4_values(prof):
    # Table 3: "Claude Sonnet 4.5 92.4 (88,96) ..." and GPT-4o C8† "66.7 (33,100)"
    c1 = _cell(prof, 3, "Claude Sonnet 4.5", "C1", "pa", "hard_empirical")
    assert (c1["value"], c1["ci_low"], c1["ci_high"]) == (92.4, 88.0, 96.0)
    assert _cell(prof, 3, "GPT-4o", "C8", "supported", "hard_empirical")["value"] == 66.7
    assert _cell(prof, 3, "Llama-3.3-70B", "C6", "strict", "hard_empirical")["value"] == 32.2
    # Table 4: "Llama-3.3-70B 68.3 (62,75) 56.4 (44,69) 56.7 (42,72) 58.3 (51,66)" = overall, C1, C4, C7
    ov = _cell(prof, 4, "Llama-3.3-70B", "overall", "pa", "hard_constructed")
    assert (ov["value"], ov["ci_low"], ov["status"]) == (68.3, 62.0, "")
    c7 = _cell(prof, 4, "Llama-3.3-70B", "C7", "strict", "hard_constructed")
    assert (c7["value"], c7["n_items"]) == (58.3, 139)


def test_table15_strict_and_consistency(prof):
    # Table 15: "GPT-4o-mini ... C7 strict 61.0 cons. 80.9 (Δ 19.9)"
    s = _cell(prof, 15, "GPT-4o-mini", "C7", "strict", "full")
    c = _cell(prof, 15, "GPT-4o-mini", "C7", "consistency", "full")
    assert (s["value"], c["value"]) == (61.0, 80.9)
    assert s["primary"] and not c["primary"]
    assert round(c["value"] - s["value"], 1) == 19.9


def test_exactly_one_primary_per_cell(prof):
    counts = prof.group_by("judge", "benchmark", "subset", "condition", "source").agg(pl.col("primary").sum())
    assert (counts["primary"] == 1).all()


def test_coverage_table2(tmp_path):
    cov = load_published_coverage()
    assert cov.height == 48 and cov.columns == [
        "benchmark", "condition", "status", "operator", "reported_in_main", "source"]
    get = {(r["benchmark"], r["condition"]): r for r in cov.iter_rows(named=True)}
    # Table 2: JudgeBench C5 "Aug.†" (computed but omitted), LLMBar C5 "Direct", JudgeBench C3 "—"
    assert (get[("judgebench", "C5")]["status"], get[("judgebench", "C5")]["reported_in_main"]) == ("augmented", False)
    assert get[("llmbar", "C5")]["status"] == "direct"
    assert (get[("judgebench", "C3")]["status"], get[("judgebench", "C3")]["operator"]) == ("unavailable", "")
    # judgerEva 8 + C7 of the five external benchmarks + their five C8† cells + LLMBar C5
    assert (cov["status"] == "direct").sum() == 8 + 5 + 5 + 1


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CAPInputError, match="make data"):
        load_published_profiles(tmp_path / "nope.csv")
    bad = tmp_path / "cap_coverage.csv"
    bad.write_text("benchmark,condition\nx,C1\n")
    with pytest.raises(CAPInputError, match="lacks a column"):
        load_published_coverage(Path(bad))
