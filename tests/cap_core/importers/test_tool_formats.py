"""Importer of AlpacaEval's judge files (FastChat MT-Bench, Arena-Hard and inspect_ai have their own test
modules: test_mtbench.py, test_arena_hard.py, test_inspect_logs.py).

The fixtures under tests/fixtures/<tool>/ were written here in each tool's published format
(see each module's docstring); every expected verdict below is worked out by hand from the
fixture values and the tool's documented encoding, not read back from the importer.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.importers.alpacaeval import import_alpacaeval, preference_verdict

FX = Path(__file__).resolve().parents[2] / "fixtures"


# ---------------------------------------------------------------- encodings


@pytest.mark.parametrize("pref, want", [
    (1, ("A", 1.0)), (2.0, ("B", 1.0)), (1.5, ("tie", None)), (0, ("tie", None)),  # 0: old files' draw
    (1.25, ("A", 0.75)), (1.9, ("B", 0.9)), ("2", ("B", 1.0)),
    (None, ("unparsed", None)), (float("nan"), ("unparsed", None)), (3, ("unparsed", None)),
    ("better", ("unparsed", None)), (True, ("unparsed", None)),
])
def test_alpacaeval_preference_encoding(pref, want):
    got = preference_verdict(pref)
    assert got[0] == want[0]
    assert got[1] == pytest.approx(want[1]) if want[1] is not None else got[1] is None


# ---------------------------------------------------------------- AlpacaEval


def test_alpacaeval_fixture_with_human_gold():
    ds = import_alpacaeval(FX / "alpacaeval", gold_judge="humans")
    # generator_1 = gpt4_1106_preview, generator_2 = alpaca-7b; items are oriented with the
    # name sorting first as A, so A = alpaca-7b = output_2 and every preference flips.
    # humans: i1 votes 1,1,2 -> output_1 -> B; i2 2,2 -> A; i3 1,2 split -> no gold; i4 1 -> B;
    # i5 2 -> A; i6 1 -> B.
    assert ds.items.height == 5 and sorted(ds.items["gold"].to_list()) == ["A", "A", "B", "B", "B"]
    assert set(ds.judgments["judge"].unique()) == {"weighted_alpaca_eval_gpt4_turbo", "alpaca_eval_gpt4_fn"}
    assert set(ds.judgments["order"].unique()) == {"AB"}
    w = ds.judgments.filter(pl.col("judge") == "weighted_alpaca_eval_gpt4_turbo").join(
        ds.items.select("item_id", "gold"), on="item_id")
    # weighted: i1 1.0 -> B, i2 2.0 -> A, i4 1.2 -> output_1 -> B (conf 0.8), i5 1.9 -> A (conf 0.9),
    # i6 null -> unparsed: 4 of 5 agree with gold
    assert (w["verdict"] == w["gold"]).sum() == 4
    assert sorted(w["confidence"].drop_nulls().round(6).to_list()) == [0.8, 0.9, 1.0, 1.0]
    assert w["cost_usd"].to_list() == [0.0125] * 5 and w["latency_s"].to_list() == [1.25] * 5
    f = ds.judgments.filter(pl.col("judge") == "alpaca_eval_gpt4_fn").join(ds.items.select("item_id", "gold"),
                                                                          on="item_id")
    # fn: i1 2 -> A (wrong), i2 2 -> A, i4 1 -> B, i5 "2" -> A, i6 3 -> unparsed: 3 of 5
    assert (f["verdict"] == f["gold"]).sum() == 3 and f["verdict"].to_list().count("unparsed") == 1
    note = next(n for n in ds.notices if "alpaca_eval_gpt4_fn" in n)
    assert "3 A, 1 B, 1 tie, 1 unparsed" in note and "0 = tie x1" in note and "3 = unparsed x1" in note
    assert any("1 items with split votes" in n for n in ds.notices)
    assert ds.declarations.height == 0  # order unknown: no C7


def test_alpacaeval_gold_table(tmp_path):
    ds0 = import_alpacaeval(FX / "alpacaeval", gold_judge="humans")
    first = ds0.items["item_id"][0]
    table = tmp_path / "gold.csv"
    table.write_text(f"item_id,gold\n{first},A\n")
    ds = import_alpacaeval(FX / "alpacaeval", gold=table)
    assert ds.items["item_id"].to_list() == [first] and ds.items["gold"].to_list() == ["A"]
    bad = tmp_path / "bad.csv"
    bad.write_text(f"item_id,gold\n{first},tie\n")
    with pytest.raises(CAPInputError) as e:
        import_alpacaeval(FX / "alpacaeval", gold=bad)
    assert e.value.file == "bad.csv" and e.value.row == 1 and e.value.column == "gold"


def test_alpacaeval_wrong_file():
    with pytest.raises(CAPInputError) as e:
        import_alpacaeval(FX / "bad" / "alpacaeval", gold_judge="x")
    err = e.value
    assert err.file.endswith("annotations.json") and err.row == 2 and err.column == "preference"
    assert err.fix and err.expected


def test_alpacaeval_model_outputs_is_refused(tmp_path):
    p = tmp_path / "annotations.json"
    p.write_text(json.dumps({"instruction": "x"}))
    with pytest.raises(CAPInputError, match="not an AlpacaEval annotations file"):
        import_alpacaeval(p, gold_judge="x")


def test_no_gold_source_is_refused():
    with pytest.raises(CAPInputError) as e:
        import_alpacaeval(FX / "alpacaeval")
    assert e.value.argument == "--gold-judge" and "--gold FILE" in e.value.fix
    with pytest.raises(CAPInputError, match="no judge matches"):
        import_alpacaeval(FX / "alpacaeval", gold_judge="expert_*")


# ---------------------------------------------------------------- CLI and use downstream


@pytest.mark.parametrize("fmt, path, gold", [
    ("alpacaeval", "alpacaeval", ["--gold-judge", "humans"]),
])
def test_cli_import_formats(tmp_path, capsys, fmt, path, gold):
    from cap_core.dataset import load_dataset
    from cap_core.profile.conditions import compute_profile

    out = tmp_path / "ds"
    assert main(["import", "--format", fmt, str(FX / path), *gold, "--out", str(out)]) == 0
    ds = load_dataset(out)
    assert ds.judgments.height > 0
    err = capsys.readouterr().err
    assert " A, " in err and "unparsed" in err  # the counts notice
    prof = compute_profile(ds, n_resamples=50, seed=0).profile  # the dataset profiles like any other
    assert prof.filter(pl.col("condition") == "overall").height > 0


@pytest.mark.parametrize("fmt, path", [("alpacaeval", "alpacaeval")])
def test_cli_wrong_file_one_line(tmp_path, capsys, fmt, path):
    rc = main(["import", "--format", fmt, str(FX / "bad" / path), "--gold-judge", "x", "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("error: ") and "\n" not in err
    assert ("row 1" in err or "row 2" in err) and "Fix:" in err
