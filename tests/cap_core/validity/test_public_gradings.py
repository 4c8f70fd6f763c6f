"""Public graded outputs on the (S, R) plane, recomputed independently from the raw files."""

from __future__ import annotations

import math

import polars as pl
import pytest

from cap_core.importers.real_gradings import build_real_gradings
from cap_core.validity.frontier import operating_point, sweep
from cap_core.validity.public_gradings import REAL_GRADINGS, gradings_to_grades
from cap_core.validity.report import load_published_interventions, load_published_judges
from cap_core.validity.sr import validate_grades
from tests.cap_core.validity._loops import llmbar_rating_r, raw_rubric, rubric_s_r


def test_gradings_table_is_fresh(shared_dir, tmp_path):
    rebuilt = build_real_gradings(shared_dir, tmp_path / "g.parquet")
    assert rebuilt.equals(pl.read_parquet(REAL_GRADINGS))
    assert rebuilt.filter(pl.col("source") == "llmbar rating")["base_item_id"].n_unique() == 419
    assert rebuilt.filter(pl.col("source") == "judgebench rubric")["base_item_id"].n_unique() == 350


def test_swap_mapping_matches_a_plain_loop_over_the_raw_fork(shared_dir):
    # the gradings come from the JudgeBench importer's parse; here a plain loop over the raw fork file:
    # in the BA judgment the responses were shown swapped, so score_A there grades the original B
    want = {}
    for rec in raw_rubric(shared_dir):
        ab, ba = (e["judgment"] for e in rec["judgments"])
        grades = {("A", "AB"): ab["score_A"], ("B", "AB"): ab["score_B"],
                  ("A", "BA"): ba["score_B"], ("B", "BA"): ba["score_A"]}
        right = rec["label"][0]
        for (letter, order), grade in grades.items():
            response = "correct" if letter == right else "incorrect"
            want[(rec["pair_id"], response, order)] = None if grade < 0 else float(grade)
    g = pl.read_parquet(REAL_GRADINGS).filter(pl.col("judge") == "Qwen/Qwen3-8B")
    got = {(b, r, o): x for b, r, o, x in g.select("base_item_id", "response", "order", "grade").iter_rows()}
    assert len(got) == len(want) == 4 * 350
    assert got == want


def test_qwen_s_and_r_by_a_plain_loop(shared_dir):
    tau = 0.525  # midpoint of the grades 0.5 and 0.55: a candidate threshold of the sweep
    s_plain, r_plain = rubric_s_r(raw_rubric(shared_dir), tau)
    grades, notices = gradings_to_grades(pl.read_parquet(REAL_GRADINGS))
    sw = sweep(validate_grades(grades))
    q = sw.filter(pl.col("judge") == "Qwen/Qwen3-8B")
    row = q.filter((pl.col("tau") - tau).abs() < 1e-9).row(0, named=True)
    assert row["S"] == pytest.approx(s_plain)
    assert row["R"] == pytest.approx(r_plain)
    assert any("Qwen/Qwen3-8B" in n for n in notices)  # parse failures are reported, not dropped silently


def test_llmbar_rating_has_r_but_no_s(shared_dir):
    grades, _ = gradings_to_grades(pl.read_parquet(REAL_GRADINGS))
    sw = sweep(validate_grades(grades))
    llm = sw.filter(pl.col("judge") == "GPT-4/Rating")
    assert llm["S"].is_nan().all() and not llm["on_hull"].any()
    # tau 5.5 lies between the 0-10 scores 5 and 6: R there by a plain loop over the raw Rating files
    row = llm.filter((pl.col("tau") - 5.5).abs() < 1e-9).row(0, named=True)
    assert row["R"] == pytest.approx(llmbar_rating_r(shared_dir, "GPT-4", 5.5))
    assert "GPT-4/Rating" not in operating_point(sw)["judge"].to_list()


def test_published_tables_load_as_printed():
    pub = load_published_judges()
    haiku = pub.filter(pl.col("judge") == "anthropic/claude-haiku-4.5").row(0, named=True)
    assert (haiku["tau"], haiku["S"], haiku["R"], haiku["points"]) == (2.75, 0.917, 0.561, 9)
    assert haiku["quadrant"] == "valid" and pub.height == 6
    # the six printed rows average to the README's 0.939 / 0.356 (not the abstract's 7-judge means)
    assert math.isclose(round(pub["S"].mean(), 3), 0.939) and math.isclose(round(pub["R"].mean(), 3), 0.356)
    assert load_published_interventions().height == 6
