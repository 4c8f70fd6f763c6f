import csv
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli import main


def test_stress_published_reproduces_table6_mean(tmp_path: Path, shared_dir: Path):
    out, summ = tmp_path / "d.csv", tmp_path / "s.csv"
    assert main(["stress", "--published", "--out", str(out), "--summary-out", str(summ)]) == 0
    got = dict(pl.read_csv(summ).select("judge", "mean_delta").iter_rows())
    for r in csv.DictReader(open(shared_dir / "published" / "cap_stress.csv")):
        if r["condition"] == "mean":
            assert round(got[r["judge"]], 1) == pytest.approx(float(r["delta"]))


def test_spearman_published_table13(tmp_path: Path):
    out = tmp_path / "sp.csv"
    args = ["spearman", "--published", "--condition", "C7", "--view", "judgereva:full", "--view", "judgebench",
            "--source", "published: CAP Table 15", "--source", "published: CAP Table 5", "--out", str(out)]
    assert main(args) == 0
    assert round(pl.read_csv(out)["rho"][0], 2) == 0.71


def test_distance_published_table17(tmp_path: Path):
    out = tmp_path / "l1.csv"
    assert main(["distance", "--published", "--view", "judgebench_pro", "--out", str(out)]) == 0
    got = dict(pl.read_csv(out).select("pair", "l1").iter_rows())
    assert round(got["OpenAI (WF)"], 1) == 13.2 and round(got["Cross-Family avg."], 1) == 93.4


def test_bad_input_exits_2(tmp_path: Path, capsys):
    # judgereva:full has GPT-4o C7 in both Table 15 and Table 19 -> asks for a source
    assert main(["spearman", "--published", "--view", "judgereva:full", "--view", "judgebench",
                 "--out", str(tmp_path / "x.csv")]) == 2
    assert "choose one source" in capsys.readouterr().err
    assert main(["stress", "--profile", str(tmp_path / "missing.csv"), "--out", str(tmp_path / "y.csv")]) == 2
