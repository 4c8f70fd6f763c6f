"""The ``graded`` verb: PandaLM on the three-level scale, recomputed from the raw files by a plain loop."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import polars as pl
import pytest

from cap_core.cli.main import main

# raw codes: annotators and PandaLM-7B 1 = response 1 better, 2 = response 2 better, 0 = tie;
# gpt-3.5-turbo "1" / "2" / "Tie" / other text (unparsed). Levels: A better +1, tie 0, B better -1.
LEVEL = {1: 1, 2: -1, 0: 0, "1": 1, "2": -1, "Tie": 0}


def _raw(shared_dir):
    data = shared_dir / "data" / "pandalm" / "data"
    test = json.load(open(data / "testset-v1.json"))
    gold = {}
    for t in test:
        top, n = Counter([t["annotator1"], t["annotator2"], t["annotator3"]]).most_common(1)[0]
        gold[str(t["idx"])] = LEVEL[top] if n >= 2 else None
    pred = {"gpt-3.5-turbo (PandaLM)": {str(r["idx"]): LEVEL.get(r["gpt_result"]) for r in json.load(
                open(data / "gpt-3.5-turbo-testset-v1.json"))},
            "PandaLM-7B": {str(r["idx"]): LEVEL.get(r["pandalm_result"]) for r in json.load(
                open(data / "pandalm-7b-testset-v1.json"))}}
    return gold, pred


def _qwk(pairs):
    """Quadratic weighted kappa from its definition over the levels present."""
    levels = sorted({v for pair in pairs for v in pair})
    k = len(levels)
    obs = np.zeros((k, k))
    for y, p in pairs:
        obs[levels.index(y), levels.index(p)] += 1
    exp = np.outer(obs.sum(1), obs.sum(0)) / obs.sum()
    w = np.array([[(levels[a] - levels[b]) ** 2 for b in range(k)] for a in range(k)])
    return 1 - (w * obs).sum() / (w * exp).sum()


def test_graded_verb_on_pandalm_matches_a_plain_loop_over_the_raw_files(shared_dir, repo_root, tmp_path, capsys):
    out = tmp_path / "graded.csv"
    assert main(["graded", "--data", str(repo_root / "data" / "pandalm"), "--out", str(out)]) == 0
    assert "wrote 2 graded rows" in capsys.readouterr().out
    table = {r["judge"]: r for r in pl.read_csv(out).iter_rows(named=True)}
    gold, pred = _raw(shared_dir)
    for judge, by_item in pred.items():
        labelled = [(gold[i], by_item[i]) for i in gold if gold[i] is not None]
        parsed = [(y, p) for y, p in labelled if p is not None]
        row = table[judge]
        assert row["n"] == len(labelled)
        assert row["exact"] == pytest.approx(100 * sum(p == y for y, p in parsed) / len(labelled))
        assert row["within_one"] == pytest.approx(100 * sum(abs(p - y) <= 1 for y, p in parsed) / len(labelled))
        assert row["offset"] == pytest.approx(sum(p - y for y, p in parsed) / len(parsed))
        assert row["qwk"] == pytest.approx(_qwk(parsed))
    # gpt-3.5-turbo has 25 unparsed answers: never correct, left out of the offset and kappa
    assert sum(v is None for v in pred["gpt-3.5-turbo (PandaLM)"].values()) == 25


def test_graded_verb_on_a_csv_table_and_its_errors(tmp_path, capsys):
    t = tmp_path / "g.csv"
    t.write_text("item_id,label,J\nx1,1,2\nx2,3,3\nx3,5,\nx4,,4\n")
    out = tmp_path / "o.csv"
    assert main(["graded", "--table", str(t), "--label", "label", "--out", str(out)]) == 0
    row = pl.read_csv(out).row(0, named=True)
    # labelled x1..x3: J 2 vs 1 (off by one), 3 vs 3 (exact), empty vs 5 (unparsed)
    assert (row["judge"], row["n"], row["exact"], row["within_one"], row["offset"]) == (
        "J", 3, pytest.approx(100 / 3), pytest.approx(200 / 3), 0.5)
    t.write_text("item_id,label,J\nx1,1,2\nx2,3,three\n")
    assert main(["graded", "--table", str(t), "--label", "label", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not an integer" in err and "row 2" in err and "column 'J'" in err and str(t) in err
    assert main(["graded", "--data", str(tmp_path), "--out", str(out)]) == 2
    assert "no graded table" in capsys.readouterr().err
    assert main(["graded", "--table", str(t), "--judge", "K", "--label", "label", "--out", str(out)]) == 2
    assert "column missing" in capsys.readouterr().err


@pytest.mark.parametrize("level", ["inf", "nan", "-inf"])
def test_a_non_finite_level_is_bad_input(tmp_path, capsys, level):
    """'inf' crashed with an OverflowError (exit 1); 'nan' was silently read as an unparsed verdict."""
    t = tmp_path / "g.csv"
    t.write_text(f"item_id,gold,J\na,3,3\nb,1,{level}\n")
    assert main(["graded", "--table", str(t), "--out", str(tmp_path / "o.csv")]) == 2
    err = capsys.readouterr().err
    assert "not an integer" in err and "row 2" in err and "column 'J'" in err
    assert not (tmp_path / "o.csv").exists()
