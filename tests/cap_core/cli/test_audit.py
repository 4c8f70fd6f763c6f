"""``python -m cap_core audit`` on real small label sets (from a local copy or the shipped figures) and user files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cap_core.audit.surface import AUDIT_SCHEMA
from cap_core.cli.main import main

REPO = Path(__file__).resolve().parents[3]


def test_paired_audit_of_llmbar_manual(shared_dir, tmp_path, capsys):
    out = tmp_path / "audit.csv"
    code = main(["audit", "--labels", "LLMBar Manual", "--mode", "paired", "--out", str(out),
                 "--permutations", "20", "--seed", "0", "--public-data", str(shared_dir)])
    assert code == 0
    assert "wrote 3 audit rows" in capsys.readouterr().out
    table = pl.read_csv(out)
    assert table.columns == list(AUDIT_SCHEMA)
    raw = json.loads((shared_dir / "data/llmbar/Dataset/LLMBar/Adversarial/Manual/dataset.json").read_text())
    assert table["n_units"].to_list() == [len(raw)] * 3 == [46] * 3
    assert table["mode"].to_list() == ["paired"] * 3 and table["n_permutations"].to_list() == [20] * 3
    assert table["p_value"].min() >= 1 / 21 - 1e-12  # smallest attainable with 20 permutations (CSV: 12 digits)


def test_item_mode_with_predictions_file(shared_dir, tmp_path):
    out, preds = tmp_path / "a.csv", tmp_path / "p.csv"
    assert main(["audit", "--labels", "EvalBiasBench", "--mode", "item", "--out", str(out), "--permutations", "19",
                 "--predictions", str(preds), "--public-data", str(shared_dir / "data")]) == 0
    raw = json.loads((shared_dir / "data/evalbiasbench/data/evalbiasbench/biasbench.json").read_text())
    n_responses = 2 * sum(len(v) for v in raw.values())
    p = pl.read_csv(preds)
    assert p.height == 3 * n_responses == 480
    table = pl.read_csv(out)
    for row in table.iter_rows(named=True):
        sub = p.filter(pl.col("predictor") == row["predictor"])
        assert abs(row["accuracy"] - 100 * sub["correct"].mean()) < 1e-9


def test_user_file_longer_wins(tmp_path):
    src = tmp_path / "mine.jsonl"
    lines = []
    for i in range(30):
        a, b = "w " * (3 + i), "w " * (40 - i) + "z"
        lines.append(json.dumps({"prompt": f"q{i}", "response_a": a, "response_b": b,
                                 "label": "A" if len(a) > len(b) else "B"}))
    src.write_text("\n".join(lines))
    out = tmp_path / "o.csv"
    assert main(["audit", "--labels", str(src), "--mode", "paired", "--out", str(out), "--permutations", "20"]) == 0
    row = pl.read_csv(out).filter(pl.col("predictor") == "length_only").row(0, named=True)
    assert row["accuracy"] == 100.0 and row["clears_null"] is True


def test_bad_inputs_exit_2_with_a_message(tmp_path, capsys):
    assert main(["audit", "--labels", "NoSuchSet", "--out", str(tmp_path / "x.csv")]) == 2
    assert "unknown label set" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("prompt,response,label\nq,r,7\n")
    assert main(["audit", "--labels", str(bad), "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "bad.csv" in err and "row 1" in err and "'label'" in err
    good_single = tmp_path / "single.csv"
    good_single.write_text("prompt,response,label\nq,r,1\nq2,s,0\n")
    assert main(["audit", "--labels", str(good_single), "--mode", "paired", "--out", str(tmp_path / "x.csv")]) == 2
    assert "paired mode needs pairs" in capsys.readouterr().err
    assert main(["audit", "--labels", "EvalBiasBench", "--public-data", str(tmp_path / "none"),
                 "--out", str(tmp_path / "x.csv")]) == 2
    err = capsys.readouterr().err
    assert "local copy of the public data was not found" in err and "none" in err


def test_without_a_local_copy_public_sets_come_from_the_shipped_figures(shared_dir, tmp_path, capsys):
    # EvalBiasBench is shipped at 20 (quick default) and 100 permutations; the row count and n_units follow
    # from the raw file (80 probes, every label the first output)
    raw = json.loads((shared_dir / "data/evalbiasbench/data/evalbiasbench/biasbench.json").read_text())
    out = tmp_path / "a.csv"
    assert main(["audit", "--labels", "EvalBiasBench", "--mode", "paired", "--permutations", "20",
                 "--out", str(out)]) == 0
    assert "1 from the figures shipped in data/audit" in capsys.readouterr().out
    shipped = pl.read_csv(out)
    assert shipped.height == 3 and shipped["n_units"].to_list() == [sum(len(v) for v in raw.values())] * 3 == [80] * 3
    # the same rows as an audit of the texts in the local copy
    live = tmp_path / "b.csv"
    assert main(["audit", "--labels", "EvalBiasBench", "--mode", "paired", "--permutations", "20",
                 "--public-data", str(shared_dir), "--out", str(live)]) == 0
    assert pl.read_csv(live).equals(shipped)
    # settings that are not shipped: a clear error naming the option and what is shipped
    assert main(["audit", "--labels", "EvalBiasBench", "--permutations", "19", "--out", str(tmp_path / "c.csv")]) == 2
    err = capsys.readouterr().err
    assert "argument `--public-data`" in err and "need their texts" in err and "at 100 permutations" in err
    assert main(["audit", "--labels", "EvalBiasBench", "--permutations", "20", "--predictions",
                 str(tmp_path / "p.csv"), "--out", str(tmp_path / "d.csv")]) == 2
    assert "--public-data" in capsys.readouterr().err


def test_module_entry_point_lists_the_verb():
    res = subprocess.run([sys.executable, "-m", "cap_core", "audit", "--help"], cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0 and "--permutations" in res.stdout and "--labels" in res.stdout


@pytest.mark.parametrize("n", ["0", "-5", "18"])
def test_too_few_permutations_is_refused(tmp_path, capsys, n):
    # p = (1 + k) / (1 + n) is at least 1/19 = 0.053 > 0.05 with 18 permutations: no row could clear its null
    out = tmp_path / "a.csv"
    assert main(["audit", "--labels", "EvalBiasBench", "--mode", "item", "--out", str(out), "--permutations", n]) == 2
    err = capsys.readouterr().err
    assert "argument `--permutations`" in err and f"got {n}" in err and ">= 19" in err
    assert not out.exists()
