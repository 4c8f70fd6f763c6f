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
    assert latest == {} and "1 review line refers to pairs that a rebuild changed" in notes[0]


def _line(tb: Path, base: str, action: str, **extra) -> str:
    sha = load_testbed_dir(tb).pairs.filter((pl.col("benchmark") == "questions") &
                                            (pl.col("base_item_id") == base))["pair_sha"][0]
    return json.dumps({"v": 1, "benchmark": "questions", "base_item_id": base, "action": action, "pair_sha": sha,
                       **extra}) + "\n"


def test_lines_appended_by_hand_count_for_every_reader(tb, tmp_path, capsys):
    """Finding 6: eight rejections appended by another process; show, judge --items (the folder or its
    run_items.parquet) and evaluate all leave those eight pairs out, although run_items.parquet is stale."""
    from cap_core.cli.main import main

    rejected = ["h01", "h02", "l01", "l02", "s01", "s02", "f01", "f02"]
    stale = _items(tb)
    with open(tb / "review.jsonl", "a") as fh:
        fh.writelines(_line(tb, b, "reject") for b in rejected)
    assert _items(tb).equals(stale)  # nobody rewrote the file
    assert main(["testbed", "show", str(tb)]) == 0
    assert "review: pending 24, rejected 8" in capsys.readouterr().out
    cache = tmp_path / "cache"
    for items in (tb, tb / "run_items.parquet"):
        out = tmp_path / f"run-{items.name}"
        assert main(["judge", "--items", str(items), "--model", "local/first", "--cache", str(cache),
                     "--out", str(out)]) == 0
        judged = set(pl.read_parquet(out / "items.parquet")["base_item_id"])
        assert judged == {i for i in stale["base_item_id"]} - set(rejected)
        # 32 - 8 base items, three variants each, two orders
        assert pl.read_parquet(out / "judgments.parquet").height == 24 * 3 * 2
    out = tmp_path / "ev"
    assert main(["evaluate", "--benchmark", "testbed", "--source", str(tb), "--model", "local/first",
                 "--cache", str(cache), "--out", str(out)]) == 0
    assert not set(pl.read_parquet(out / "items.parquet")["base_item_id"]) & set(rejected)


def test_a_bad_line_is_one_clear_error_everywhere_and_a_rebuild_writes_nothing(tb, capsys):
    """Finding 7: an edit line without its correct answer (written by hand)."""
    from cap_core.cli.main import main

    good = _line(tb, "h01", "reject")
    bad = _line(tb, "h02", "edit", flawed="Colds are caused by bacteria.", error_note="x")
    (tb / "review.jsonl").write_text(good + bad + good)
    assert main(["testbed", "show", str(tb)]) == 2
    err = capsys.readouterr().err
    assert "a review line cannot be applied: an edit needs its correct answer" in err and "row 2" in err
    assert "review.jsonl" in err and err.count("\n") == 1
    before = {f: f.read_bytes() for f in tb.iterdir()}
    assert main(["testbed", "build", str(QUESTIONS), "--out", str(tb), "--cache", str(tb.parent / "c")]) == 2
    assert "an edit needs its correct answer" in capsys.readouterr().err
    assert {f: f.read_bytes() for f in tb.iterdir()} == before  # nothing written, nothing half-written
    with pytest.raises(CAPInputError, match="row 2"):
        record(tb, benchmark="questions", base_item_id="h03", action="accept")
    for bad_line, why in (('[1, 2]', "not a JSON object"), ('{"action": "maybe"}', "action must be one of"),
                          (_line(tb, "h02", "edit", correct="A", flawed="B", failure_type="typo").strip(),
                           "failure_type must be one of")):
        (tb / "review.jsonl").write_text(bad_line + "\n" + good)
        with pytest.raises(CAPInputError, match=why):
            read_review(load_testbed_dir(tb))


def test_an_edit_sets_its_note_and_type_and_stays_on_its_question(tb):
    """Finding 5: the edited flawed answer needs its own note; the type can change; texts of another
    question are refused (the correct answer names none of h02's words)."""
    pairs = load_testbed_dir(tb).pairs.filter(pl.col("benchmark") == "questions")
    h02 = pairs.filter(pl.col("base_item_id") == "h02").row(0, named=True)
    new_flawed = h02["correct"].replace("increases the risk", "lowers the risk")
    with pytest.raises(CAPInputError, match=r"flawed answer changed but its planted-error note did not.*"
                                            r"argument `error_note`"):
        record(tb, benchmark="questions", base_item_id="h02", action="edit", flawed=new_flawed)
    with pytest.raises(CAPInputError, match="unknown planted error type"):
        record(tb, benchmark="questions", base_item_id="h02", action="edit", flawed=new_flawed, error_note="n",
               failure_type="typo")
    s03 = pairs.filter(pl.col("base_item_id") == "s03").row(0, named=True)
    with pytest.raises(CAPInputError, match=r"edited correct answer fails a check.*argument `correct`.*off the "
                                            r"question"):
        record(tb, benchmark="questions", base_item_id="h02", action="edit", correct=s03["correct"],
               flawed=s03["flawed"], error_note=s03["error_note"])
    with pytest.raises(CAPInputError, match=r"argument `correct`.*empty correct answer"):
        record(tb, benchmark="questions", base_item_id="h02", action="edit", correct="  ")
    assert not (tb / "review.jsonl").exists()
    record(tb, benchmark="questions", base_item_id="h02", action="edit", flawed=new_flawed,
           error_note="says needless antibiotics lower the risk of resistance", failure_type="logical_reversal")
    plain = _items(tb).filter((pl.col("base_item_id") == "h02") & (pl.col("variant") == "plain")).row(0, named=True)
    assert (plain["failure_type"], plain["error_note"]) == ("logical_reversal", "says needless antibiotics lower "
                                                            "the risk of resistance")
    counts = pair_counts(load_testbed_dir(tb))
    assert counts.filter((pl.col("dimension") == "error type") & (pl.col("value") == "logical_reversal"))["n"][0] \
        == 8 + (h02["failure_type"] != "logical_reversal")
    # a second edit of the correct answer only keeps the edited flawed answer and its note
    record(tb, benchmark="questions", base_item_id="h02", action="edit",
           correct=h02["correct"].replace("Colds are usually", "Colds are nearly always"))
    latest, _ = read_review(load_testbed_dir(tb))
    last = latest[("questions", "h02")]
    assert last["flawed"] == new_flawed and last["error_note"].startswith("says needless")
