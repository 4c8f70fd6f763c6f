"""Review of a built testbed: accept, reject, edit; saved append-only, resumable, applied to the items."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.testbed.build import BuildSpec, build_testbed
from cap_core.testbed.layout import load_testbed_dir
from cap_core.testbed.review import pair_counts, read_review, record, review_state

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("tb") / "tb"
    build_testbed(QUESTIONS, BuildSpec(hard=0), out_dir=out, cache_dir=out.parent / "cache")
    return out


@pytest.fixture
def tb(built, tmp_path):
    copy = tmp_path / "tb"
    shutil.copytree(built, copy)
    return copy


def _items(path: Path) -> pl.DataFrame:
    return pl.read_parquet(path / "run_items.parquet")


def test_reject_and_edit_change_the_items_and_survive_a_reload(tb):
    before = _items(tb)
    assert before.height == 96
    record(tb, benchmark="questions", base_item_id="h01", action="reject", note="the error is too obvious")
    after = _items(tb)
    assert after.height == 93 and "h01" not in set(after["base_item_id"])  # plain and both variants left
    pair = load_testbed_dir(tb).pairs.filter(pl.col("base_item_id") == "h02").row(0, named=True)
    new_flawed = pair["correct"].replace("increases the risk", "lowers the risk")
    record(tb, benchmark="questions", base_item_id="h02", action="edit", flawed=new_flawed,
           error_note="says needless antibiotics lower the risk of resistance")
    record(tb, benchmark="questions", base_item_id="h03", action="accept")
    items = _items(tb)
    h02 = items.filter(pl.col("base_item_id") == "h02").sort("variant")
    assert h02["variant"].to_list() == ["length_padded", "plain", "polished"]
    plain = h02.filter(pl.col("variant") == "plain").row(0, named=True)
    flawed_col = "response_b" if plain["gold"] == "A" else "response_a"
    assert plain[flawed_col] == new_flawed and plain["flags"] == "edited"
    assert plain["error_note"] == "says needless antibiotics lower the risk of resistance"
    # the edited pair's variants were made again from the edited text (padding the flawed answer only)
    padded = h02.filter(pl.col("variant") == "length_padded").row(0, named=True)
    assert padded[flawed_col].startswith(new_flawed) and len(padded[flawed_col]) > len(new_flawed)
    # a fresh reading resumes every decision
    latest, notes = read_review(load_testbed_dir(tb))
    assert {k[1]: v["action"] for k, v in latest.items()} == {"h01": "reject", "h02": "edit", "h03": "accept"}
    assert notes == []
    state = review_state(load_testbed_dir(tb))
    assert dict(state.group_by("state").len().iter_rows()) == {"pending": 29, "rejected": 1, "edited": 1,
                                                                 "accepted": 1}
    counts = pair_counts(load_testbed_dir(tb))
    review = counts.filter(pl.col("dimension") == "review")
    assert dict(review.select("value", "n").iter_rows()) == {"accepted": 1, "edited": 1, "pending": 29, "rejected": 1}
    assert counts.filter((pl.col("dimension") == "flag") & (pl.col("value") == "edited"))["n"].to_list() == [1]
    # the latest decision wins: accepting h01 again brings it back
    record(tb, benchmark="questions", base_item_id="h01", action="accept")
    assert _items(tb).height == 96


def test_an_edit_that_plants_nothing_is_refused_and_not_saved(tb):
    pair = load_testbed_dir(tb).pairs.filter(pl.col("base_item_id") == "s01").row(0, named=True)
    with pytest.raises(CAPInputError, match="unchanged: the flawed answer is the correct answer"):
        record(tb, benchmark="questions", base_item_id="s01", action="edit", flawed=pair["correct"])
    with pytest.raises(CAPInputError, match="no such pair"):
        record(tb, benchmark="questions", base_item_id="zz", action="reject")
    assert not (tb / "review.jsonl").exists()


def test_a_cut_last_line_is_skipped_and_a_rebuild_keeps_the_review(tb):
    record(tb, benchmark="questions", base_item_id="f01", action="reject")
    with open(tb / "review.jsonl", "a") as fh:
        fh.write('{"v": 1, "benchmark": "questions", "base_it')
    latest, notes = read_review(load_testbed_dir(tb))
    assert list(latest) == [("questions", "f01")] and "cut short (line 2)" in notes[0]
    # rebuilding in place keeps review.jsonl and applies it again
    (tb / "review.jsonl").write_text(json.dumps({"v": 1, "benchmark": "questions", "base_item_id": "f01",
                                                 "action": "reject", "pair_sha": load_testbed_dir(tb).pairs.filter(
                                                     pl.col("base_item_id") == "f01")["pair_sha"][0]}) + "\n")
    build_testbed(QUESTIONS, BuildSpec(hard=0), out_dir=tb, cache_dir=tb.parent / "cache")
    assert "f01" not in set(_items(tb)["base_item_id"])
    # a line made on other texts no longer applies
    (tb / "review.jsonl").write_text(json.dumps({"v": 1, "benchmark": "questions", "base_item_id": "f01",
                                                 "action": "reject", "pair_sha": "0" * 16}) + "\n")
    latest, notes = read_review(load_testbed_dir(tb))
    assert latest == {} and "1 review line(s) refer to pairs that a rebuild changed" in notes[0]
