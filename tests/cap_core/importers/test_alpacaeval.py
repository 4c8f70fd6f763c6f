"""AlpacaEval annotations read as AlpacaEval reads them, and its leaderboard figures recomputed.

Fixtures: tests/fixtures/alpacaeval/ (SOURCE.md): whole results folders of tatsu-lab/alpaca_eval
(gzip), its two leaderboard CSVs and a few records of a third annotator. Every leaderboard number
asserted below is read from those CSVs; counts of A / B / ties are recounted from the raw JSON
with the encoding stated in each test, never read back from the importer.
"""

from __future__ import annotations

import csv
import gzip
import json
import shutil
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.source_metrics import source_metrics
from cap_core.analyses.source_rules.alpacaeval import (
    LC_MISSING,
    item_id,
    model_win,
    pair_of,
    preference_verdict,
)
from cap_core.cli.main import main
from cap_core.dataset import load_dataset
from cap_core.errors import CAPInputError
from cap_core.importers.alpacaeval import import_alpacaeval
from cap_core.profile.conditions import compute_profile

FX = Path(__file__).resolve().parents[2] / "fixtures"
AE = FX / "alpacaeval"
RESULTS = AE / "results"
WEIGHTED, DISCRETE = "weighted_alpaca_eval_gpt4_turbo", "alpaca_eval_gpt4"
BOARD = {WEIGHTED: AE / "leaderboards" / "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv",
         DISCRETE: AE / "leaderboards" / "alpaca_eval_gpt4_leaderboard.csv"}
BASELINE = {WEIGHTED: "gpt4_1106_preview", DISCRETE: "text_davinci_003"}
FOLDERS = [(WEIGHTED, "alpaca-7b"), (WEIGHTED, "gpt4_1106_preview"), (DISCRETE, "alpaca-7b"),
           (DISCRETE, "text_davinci_001")]
COUNTS = ("n_wins", "n_wins_base", "n_draws", "n_total")


def _raw(annotator: str, model: str) -> list[dict]:
    with gzip.open(RESULTS / model / annotator / "annotations.json.gz", "rt", encoding="utf-8") as f:
        return json.load(f)


def _published(annotator: str, model: str) -> dict[str, str]:
    with BOARD[annotator].open(newline="", encoding="utf-8") as f:
        return next(r for r in csv.DictReader(f) if r[""] == model)


def _figures(ds, annotator: str, model: str) -> dict[str, tuple[float | None, str]]:
    out = source_metrics(ds).filter(pl.col("judge") == annotator,
                                    pl.col("subset") == f"{model} vs {BASELINE[annotator]}")
    return {r["metric"].removeprefix("alpacaeval_"): (r["value"], r["reason"]) for r in out.iter_rows(named=True)}


@pytest.fixture(scope="module")
def tree():
    """The whole fixture results/ tree (both annotators, the weighted baseline's own folder) as one import."""
    return import_alpacaeval(RESULTS)


def _assert_leaderboard(ds, annotator: str, model: str) -> None:
    got, pub = _figures(ds, annotator, model), _published(annotator, model)
    for metric in ("win_rate", "discrete_win_rate", "standard_error"):
        assert got[metric][0] == pytest.approx(float(pub[metric]), abs=1e-4), metric
    for metric in COUNTS:
        assert got[metric][0] == int(pub[metric]), metric


# ---------------------------------------------------------------- the leaderboard, recomputed without gold


@pytest.mark.parametrize("annotator, model", FOLDERS)
def test_one_results_folder_gives_the_published_figures(annotator, model):
    ds = import_alpacaeval(RESULTS / model / annotator)
    assert ds.items["gold"].is_null().all()  # no gold source: none needed
    _assert_leaderboard(ds, annotator, model)


@pytest.mark.parametrize("annotator, model", FOLDERS)
def test_the_whole_tree_with_the_baseline_folder_gives_the_same(tree, annotator, model):
    _assert_leaderboard(tree, annotator, model)


def test_alpaca_7b_weighted_is_not_flipped(tree):
    # the value a user saw flipped (97.41 = 100 - 2.59) under the old name-sorting orientation
    got = _figures(tree, WEIGHTED, "alpaca-7b")["win_rate"][0]
    assert got == pytest.approx(2.591450540223603, abs=1e-9) and float(_published(WEIGHTED, "alpaca-7b")[
        "win_rate"]) == pytest.approx(got, abs=1e-9)


def test_each_folder_is_one_pair_and_every_instruction_one_item_per_pair(tree):
    rows = source_metrics(tree).filter(pl.col("metric") == "alpacaeval_win_rate")
    assert sorted(zip(rows["judge"], rows["subset"])) == sorted(
        (a, f"{m} vs {BASELINE[a]}") for a, m in FOLDERS)
    # four folders of 805 records, four distinct pairs: 3220 items, none merged or left out as repeated
    assert tree.items.height == 3220 and tree.judgments.height == 3220
    assert not any("repeated judgments" in n for n in tree.notices)
    # the same instruction answered by three models is three items
    first = _raw(WEIGHTED, "alpaca-7b")[0]["instruction"]
    ids = {item_id(first, g1, g2) for g1, g2 in [("gpt4_1106_preview", "alpaca-7b"), ("text_davinci_003", "alpaca-7b"),
                                                  ("gpt4_1106_preview", "gpt4_1106_preview"),
                                                  ("text_davinci_003", "text_davinci_001")]}
    assert len(ids) == 4 and ids <= set(tree.items["item_id"])


def test_the_baseline_against_itself_is_all_draws_and_lc_50(tree):
    got, pub = _figures(tree, WEIGHTED, "gpt4_1106_preview"), _published(WEIGHTED, "gpt4_1106_preview")
    assert got["win_rate"][0] == 50.0 and got["n_draws"][0] == 805 == int(pub["n_draws"])
    assert got["length_controlled_winrate"][0] == float(pub["length_controlled_winrate"]) == 50.0
    assert "against itself" in got["win_rate"][1]


@pytest.mark.parametrize("annotator, model", [f for f in FOLDERS if f[1] != "gpt4_1106_preview"])
def test_length_controlled_win_rate_names_what_is_missing(tree, annotator, model):
    got = _figures(tree, annotator, model)["length_controlled_winrate"]
    assert got == (None, LC_MISSING)
    assert "instruction_difficulty.csv" in LC_MISSING and "df_gamed.csv" in LC_MISSING
    assert _published(annotator, model)["length_controlled_winrate"]  # published, not reproducible from the files


def test_rows_name_annotator_and_pair_and_have_no_cap_counterpart(tree):
    out = source_metrics(tree)
    assert set(out["judge"]) == {WEIGHTED, DISCRETE} and out["cap_value"].is_null().all()
    assert all(r.startswith("AlpacaEval") for r in out["rule"])
    n = out.filter(pl.col("metric") == "alpacaeval_n_total")
    assert (n["n"].cast(pl.Float64) == n["value"]).all()


# ---------------------------------------------------------------- the importer: orientation, texts, notices


def test_file_orientation_is_kept_and_texts_filled():
    raw = _raw(WEIGHTED, "alpaca-7b")
    ds = import_alpacaeval(RESULTS / "alpaca-7b" / WEIGHTED)
    # by hand from the raw preferences: < 1.5 output_1 (A), > 1.5 output_2 (B), exactly 1.5 a draw
    prefs = [r["preference"] for r in raw]
    want = {"A": sum(p < 1.5 for p in prefs), "B": sum(p > 1.5 for p in prefs), "tie": sum(p == 1.5 for p in prefs)}
    got = dict(ds.judgments.group_by("verdict").len().iter_rows())
    assert got == want and want == {"A": 785, "B": 17, "tie": 3}
    assert set(ds.judgments["order"]) == {"AB"}
    first = ds.texts.filter(pl.col("item_id") == item_id(raw[0]["instruction"], "gpt4_1106_preview", "alpaca-7b"))
    row = first.row(0, named=True)
    assert (row["author_a"], row["author_b"]) == ("gpt4_1106_preview", "alpaca-7b")
    assert (row["response_a"], row["response_b"], row["question"]) == (raw[0]["output_1"], raw[0]["output_2"],
                                                                       raw[0]["instruction"])
    lens = ds.items.filter(pl.col("item_id") == row["item_id"]).select("len_a", "len_b").row(0)
    assert lens == (len(raw[0]["output_1"]), len(raw[0]["output_2"]))
    assert ds.items["subset"].unique().sort().to_list() == sorted({r["dataset"] for r in raw})


def test_notices(tree):
    weighted = next(n for n in tree.notices if f"judge {WEIGHTED}:" in n)
    assert len(weighted) < 400  # weighted floats are named by range, not listed one by one
    assert "a number in (1, 1.5) = output_1 preferred x" in weighted
    assert any("C7" in n and "not measurable" in n for n in tree.notices)
    same = next(n for n in tree.notices if "identical outputs" in n)
    assert "805 of them a generator against itself: gpt4_1106_preview" in same
    assert tree.declarations.height == 0


def test_profile_of_a_gold_free_import_needs_gold_and_has_no_c7(tree):
    prof = compute_profile(tree, n_resamples=20, seed=0).profile
    overall = prof.filter(pl.col("condition") == "overall")
    assert set(overall["status"]) == {"needs gold"} and overall["value"].is_null().all()
    assert set(prof.filter(pl.col("condition") == "C7")["status"]) == {"unavailable"}


# ---------------------------------------------------------------- gold, when there is a source


def test_gold_judge_makes_the_reference_annotator_gold(tmp_path):
    root = tmp_path / "results" / "alpaca-7b"
    shutil.copytree(RESULTS / "alpaca-7b" / WEIGHTED, root / WEIGHTED)
    cot = AE / "extracts" / "alpaca-7b" / "alpaca_eval_cot_gpt4_turbo_fn"
    shutil.copytree(cot, root / cot.name)
    ds = import_alpacaeval(tmp_path / "results", gold_judge="alpaca_eval_cot_gpt4_turbo_fn")
    assert ds.judges == [WEIGHTED] and ds.items.height == 805
    # by hand: the reference's 1.0 -> A, 2.0 -> B, 1.5 -> no gold (a draw is no vote)
    ref = json.loads((cot / "annotations.json").read_text(encoding="utf-8"))
    gold = {item_id(r["instruction"], r["generator_1"], r["generator_2"]): {1.0: "A", 2.0: "B"}.get(r["preference"])
            for r in ref}
    got = dict(ds.items.filter(pl.col("gold").is_not_null()).select("item_id", "gold").iter_rows())
    assert got == {k: v for k, v in gold.items() if v} and sorted(got.values()) == ["A", "A", "B", "B", "B", "B"]
    weighted = {item_id(r["instruction"], r["generator_1"], r["generator_2"]): r["preference"]
                for r in _raw(WEIGHTED, "alpaca-7b")}
    right = sum(("A" if weighted[k] < 1.5 else "B") == g for k, g in got.items())
    prof = compute_profile(ds, n_resamples=20, seed=0).profile.filter(pl.col("condition") == "overall")
    assert prof["value"][0] == pytest.approx(100 * right / 6) and prof["n_items"][0] == 6
    _assert_leaderboard(ds, WEIGHTED, "alpaca-7b")  # gold changes no AlpacaEval figure


def test_gold_table(tmp_path):
    one = RESULTS / "text_davinci_001" / DISCRETE
    first = _raw(DISCRETE, "text_davinci_001")[0]
    key = item_id(first["instruction"], first["generator_1"], first["generator_2"])
    table = tmp_path / "gold.csv"
    table.write_text(f"item_id,gold\n{key},B\n")
    ds = import_alpacaeval(one, gold=table)
    assert dict(ds.items.filter(pl.col("gold").is_not_null()).select("item_id", "gold").iter_rows()) == {key: "B"}
    assert ds.items.height == 805
    bad = tmp_path / "bad.csv"
    bad.write_text(f"item_id,gold\n{key},tie\n")
    with pytest.raises(CAPInputError) as e:
        import_alpacaeval(one, gold=bad)
    assert e.value.file == "bad.csv" and e.value.row == 1 and e.value.column == "gold"
    with pytest.raises(CAPInputError, match="no judge matches"):
        import_alpacaeval(one, gold_judge="expert_*")


# ---------------------------------------------------------------- the encoding, by hand


@pytest.mark.parametrize("pref, want", [
    (1, ("A", 1.0)), (2.0, ("B", 1.0)), (1.5, ("tie", None)), (0, ("tie", None)),  # 0: old files' draw
    (1.25, ("A", 0.75)), (1.9, ("B", 0.9)), ("2", ("B", 1.0)),
    (None, ("unparsed", None)), (float("nan"), ("unparsed", None)), (3, ("unparsed", None)), (0.5, ("unparsed", None)),
    ("better", ("unparsed", None)), (True, ("unparsed", None)),
])
def test_preference_encoding(pref, want):
    got = preference_verdict(pref)
    assert got[0] == want[0]
    assert got[1] == pytest.approx(want[1]) if want[1] is not None else got[1] is None


def test_model_win_is_preference_minus_one_exactly():
    prefs = [1, 2, 1.5, 0, 1.25, 1.9, 1.0000000001, 1.4999999999, 1.5000000000000002, 1.9999999999]
    rows = [dict(zip(("verdict", "confidence"), preference_verdict(p))) for p in prefs]
    got = pl.DataFrame(rows, schema={"verdict": pl.String, "confidence": pl.Float64}).select(model_win())
    assert got.to_series().to_list() == [(1.5 if p == 0 else p) - 1 for p in prefs]  # exact, not approx


@pytest.mark.parametrize("g1, g2", [("gpt4_1106_preview", "alpaca-7b"), ("a|b", "c%7Cd"), ("x:y", "%25|"),
                                    ("Mistral-7B+RAHF-DUAL+LoRA", "Mistral-7B+RAHF-DUAL+LoRA")])
def test_item_id_names_its_pair(g1, g2):
    assert pair_of(item_id("an instruction", g1, g2)) == (g1, g2)
    assert item_id("an instruction", g1, g2) != item_id("another instruction", g1, g2)
    assert pair_of("q1") is None


def test_hand_made_pairs_win_rates(tmp_path):
    """Two models against one baseline; by hand, AlpacaEval's mean of (preference - 1)."""
    def rec(i, model, pref):
        return {"instruction": f"instruction {i}", "output_1": f"base {i}", "generator_1": "zz_baseline",
                "output_2": f"{model} {i}", "generator_2": model, "annotator": "judge", "preference": pref}

    prefs = {"m1": [2, 1.5, 1, 1.7], "m2": [0, 2, "x", 3, None]}
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps([rec(i, m, p) for m, ps in prefs.items() for i, p in enumerate(ps)]))
    out = source_metrics(import_alpacaeval(path))
    got = {(r["subset"], r["metric"].removeprefix("alpacaeval_")): r["value"] for r in out.iter_rows(named=True)}
    # m1: (1 + 0.5 + 0 + 0.7) / 4; discrete (1 + 0.5 + 0 + 1) / 4; m2: (0.5 + 1) / 2, "x", 3 and null dropped
    assert got[("m1 vs zz_baseline", "win_rate")] == pytest.approx(55.0)
    assert got[("m1 vs zz_baseline", "discrete_win_rate")] == pytest.approx(62.5)
    assert got[("m2 vs zz_baseline", "win_rate")] == pytest.approx(75.0)
    assert got[("m2 vs zz_baseline", "n_total")] == 2 and got[("m2 vs zz_baseline", "n_draws")] == 1
    # scipy-free check of the standard error: m1's (1, .5, 0, .7) has sample sd 0.4203 -> / 2
    assert got[("m1 vs zz_baseline", "standard_error")] == pytest.approx(100 * 0.42031734 / 2, abs=1e-6)


# ---------------------------------------------------------------- bad input


def test_one_bad_file_does_not_lose_the_good_ones(tmp_path):
    shutil.copytree(RESULTS / "text_davinci_001" / DISCRETE, tmp_path / "good")
    shutil.copytree(FX / "bad" / "alpacaeval", tmp_path / "bad")
    ds = import_alpacaeval(tmp_path)
    assert ds.judgments.height == 805
    left = next(n for n in ds.notices if "file left out" in n)
    assert "bad" in left and "row 2" in left and "'preference'" in left
    assert not any("judge x:" in n for n in ds.notices)  # the left-out file's first record is not counted


def test_the_only_file_bad_is_refused():
    with pytest.raises(CAPInputError) as e:
        import_alpacaeval(FX / "bad" / "alpacaeval")
    err = e.value
    assert err.file.endswith("annotations.json") and err.row == 2 and err.column == "preference"
    assert err.fix and err.expected


def test_a_record_without_generator_is_refused(tmp_path):
    rec = _raw(DISCRETE, "text_davinci_001")[:2]
    del rec[1]["generator_1"]
    (tmp_path / "annotations.json").write_text(json.dumps(rec))
    with pytest.raises(CAPInputError) as e:
        import_alpacaeval(tmp_path)
    assert e.value.row == 2 and e.value.column == "generator_1" and "baseline" in e.value.fix


def test_model_outputs_and_broken_gzip_are_refused(tmp_path):
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps({"instruction": "x"}))
    with pytest.raises(CAPInputError, match="not an AlpacaEval annotations file"):
        import_alpacaeval(p)
    gz = tmp_path / "annotations.json.gz"
    gz.write_bytes(b"not gzip at all")
    with pytest.raises(CAPInputError, match="not a readable gzip file") as e:
        import_alpacaeval(gz)
    assert e.value.file.endswith("annotations.json.gz")


# ---------------------------------------------------------------- CLI


def test_cli_import_without_gold_then_source_metrics(tmp_path, capsys):
    out = tmp_path / "ds"
    assert main(["import", "--format", "alpacaeval", str(RESULTS / "alpaca-7b"), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"judge {WEIGHTED}:" in err and "no gold label" in err
    ds = load_dataset(out)
    assert ds.items["gold"].is_null().all() and ds.texts is not None and ds.texts.height == 1610
    assert main(["source-metrics", "--data", str(out)]) == 0
    printed = list(csv.DictReader(capsys.readouterr().out.splitlines()))
    rate = {(r["judge"], r["subset"]): float(r["value"]) for r in printed if r["metric"] == "alpacaeval_win_rate"}
    assert rate == {(a, f"alpaca-7b vs {BASELINE[a]}"): pytest.approx(float(_published(a, "alpaca-7b")["win_rate"]),
                                                                      abs=1e-4) for a in (WEIGHTED, DISCRETE)}
    csv_out = tmp_path / "sm.csv"
    assert main(["source-metrics", "--data", str(out), "--out", str(csv_out)]) == 0
    assert pl.read_csv(csv_out).height == len(printed) == 16


def test_cli_wrong_file_one_line(tmp_path, capsys):
    rc = main(["import", "--format", "alpacaeval", str(FX / "bad" / "alpacaeval"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: ") and "\n" not in err
    assert "row 2" in err and "Fix:" in err


def test_files_left_out_as_repeats_and_mislabelled_files_are_named(tmp_path, capsys):
    """Issue 19, finding 13: the whole upstream tree said only "3220 repeated judgments ... left out". Two
    real files (tests/fixtures/alpacaeval/SOURCE.md, ``mislabelled/``) copy a sibling's records under their
    own folder: falcon-7b-instruct's file names falcon-40b-instruct, Mistral's alpaca_eval_gpt4_turbo_fn
    file names the cot annotator. Files are read in sorted path order and the first record wins, so the
    falcon-40b and cot files are kept (``"4" < "7"``, ``"c" < "g"``) and 3 records of each copy are left out."""
    src = FX / "alpacaeval" / "mislabelled" / "results"
    assert main(["import", "--format", "alpacaeval", str(src), "--out", str(tmp_path / "ds")]) == 0
    notes = load_dataset(tmp_path / "ds").notices
    capsys.readouterr()
    repeats = next(n for n in notes if "repeated judgments" in n)
    assert repeats.startswith("AlpacaEval: 6 repeated judgments (same judge, item and order) left out")
    assert ("3 of Mistral-7B-Instruct-v0.2/alpaca_eval_gpt4_turbo_fn/annotations.json (repeating "
            "Mistral-7B-Instruct-v0.2/alpaca_eval_cot_gpt4_turbo_fn/annotations.json)") in repeats
    assert ("3 of falcon-7b-instruct/alpaca_eval_gpt4/annotations.json (repeating "
            "falcon-40b-instruct/alpaca_eval_gpt4/annotations.json)") in repeats
    named = next(n for n in notes if "name another model or annotator" in n)
    assert "falcon-7b-instruct/alpaca_eval_gpt4/annotations.json names the model falcon-40b-instruct" in named
    assert ("Mistral-7B-Instruct-v0.2/alpaca_eval_gpt4_turbo_fn/annotations.json names the annotator "
            "alpaca_eval_cot_gpt4_turbo_fn") in named
    # the files that match their folders are not named
    assert "falcon-40b-instruct/" not in named and "alpaca_eval_cot_gpt4_turbo_fn/annotations" not in named


def test_a_file_outside_the_results_layout_is_not_checked(tmp_path):
    """An annotations file in a folder of the user's own (its folders name neither its model nor its
    annotator) gives no folder notice."""
    own = tmp_path / "my run" / "annotations.json"
    own.parent.mkdir()
    shutil.copy(FX / "alpacaeval" / "mislabelled" / "results" / "falcon-7b-instruct" / "alpaca_eval_gpt4" /
                "annotations.json", own)
    ds = import_alpacaeval(own.parent)
    assert not any("name another model" in n for n in ds.notices)
    assert not any("repeated judgments" in n for n in ds.notices)


def test_a_value_that_is_no_preference_is_an_unparsed_verdict_and_the_notice_says_so(tmp_path):
    """By hand: 0 is an old file's draw, 2 output_2; "x", 3 and null are no preference. They are kept as
    unparsed verdicts (CAP's unparsed rate counts them); the notice said they were dropped."""
    recs = [{"instruction": f"instruction {i}", "output_1": "base", "generator_1": "zz_baseline", "output_2": "m",
             "generator_2": "m", "annotator": "judge", "preference": p} for i, p in enumerate([0, 2, "x", 3, None])]
    path = tmp_path / "annotations.json"
    path.write_text(json.dumps(recs))
    ds = import_alpacaeval(path)
    assert ds.judgments["verdict"].to_list() == ["tie", "B", "unparsed", "unparsed", "unparsed"]
    note = next(n for n in ds.notices if "judge judge:" in n)
    assert "0 A, 1 B, 1 tie, 3 unparsed" in note
    assert "x = not a preference: counted as unparsed x1" in note and "dropped" not in note
