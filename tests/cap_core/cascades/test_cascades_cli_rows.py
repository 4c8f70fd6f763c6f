"""Median juries, QWK, offsets and confidence AUROC from the CLI, on hand-worked tables."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from cap_core.cascades.graded import median_jury
from cap_core.cli.main import main
from cap_core.dataset import Dataset, save_dataset


def test_median_jury_by_hand():
    nan = np.nan
    lv = np.array([[1, 3, 5, nan], [2, 3, nan, nan], [3, 1, 4, nan]])
    # x1: 1,2,3 -> 2; x2: 3,3,1 -> 3; x3: 5,4 (J2 abstains) -> lower median 4; x4: nobody -> NaN
    got = median_jury(lv)
    assert got[:3].tolist() == [2, 3, 4] and np.isnan(got[3])
    assert median_jury(lv, upper=True)[:3].tolist() == [2, 3, 5]


def test_graded_verb_median_jury_row(tmp_path, capsys):
    t = tmp_path / "g.csv"
    t.write_text("item_id,label,J1,J2,J3\nx1,1,1,2,3\nx2,3,3,3,1\nx3,5,5,,4\nx4,2,,,\n")
    out = tmp_path / "o.csv"
    assert main(["graded", "--table", str(t), "--label", "label", "--jury", "J1", "--jury", "J2", "--jury", "J3",
                 "--out", str(out)]) == 0
    said = capsys.readouterr().out
    row = pl.read_csv(out).filter(pl.col("judge") == "median of 3 (J1, J2, J3)").row(0, named=True)
    # jury levels 2, 3, 4, unparsed vs labels 1, 3, 5, 2: exact 1/4, within one 3/4, offset (+1 + 0 - 1) / 3 = 0
    assert row["n"] == 4 and row["exact"] == pytest.approx(25.0) and row["within_one"] == pytest.approx(75.0)
    assert row["offset"] == pytest.approx(0.0)
    # QWK on (1,2), (3,3), (5,4): observed weighted disagreement 1 + 0 + 1 = 2; expected
    # (1/3) * sum over y in {1,3,5}, p in {2,3,4} of (y - p)^2 = (14 + 2 + 14) / 3 = 10 -> 1 - 2/10
    assert row["qwk"] == pytest.approx(0.8)
    assert "median of 3" in said and "kappa 0.800" in said
    assert main(["graded", "--table", str(t), "--label", "label", "--jury", "J1", "--out", str(out)]) == 2
    assert "at least two" in capsys.readouterr().err


def _conf_dataset() -> Dataset:
    # recorded confidence; J right on i1, i3, i4 and wrong on i2, i5
    conf = {"i1": 0.9, "i2": 0.8, "i3": 0.6, "i4": 0.4, "i5": 0.2}
    verdict = {"i1": "A", "i2": "B", "i3": "A", "i4": "A", "i5": "B"}
    items = pl.DataFrame({"benchmark": "t", "item_id": list(conf), "gold": "A"})
    judg = pl.DataFrame({"judge": "J", "benchmark": "t", "item_id": list(conf), "order": "AB",
                         "verdict": [verdict[i] for i in conf], "confidence": list(conf.values())})
    return Dataset.build(items, judg)


def test_confidence_verb_auroc_by_hand(tmp_path, capsys):
    data = save_dataset(_conf_dataset(), tmp_path / "d")
    out, bands = tmp_path / "c.csv", tmp_path / "b.csv"
    assert main(["confidence", "--data", str(data), "--benchmark", "t", "--judge", "J", "--out", str(out),
                 "--bands-out", str(bands)]) == 0
    r = pl.read_csv(out).row(0, named=True)
    # (right, wrong) confidence pairs: (.9,.8) (.9,.2) (.6,.8) (.6,.2) (.4,.8) (.4,.2): 4 of 6 ranked right
    assert r["auroc"] == pytest.approx(4 / 6) and r["method"] == "recorded"
    assert r["accuracy"] == pytest.approx(60.0) and r["n_items"] == 5
    # top band [0.75, 1]: i1 right, i2 wrong -> 50 % error
    assert r["top_band_n"] == 2 and r["top_band_error"] == pytest.approx(50.0)
    assert pl.read_csv(bands)["n_items"].to_list() == [1, 1, 1, 2]
    assert "AUROC 0.667" in capsys.readouterr().out
    assert main(["confidence", "--data", str(data), "--benchmark", "t", "--judge", "nobody",
                 "--out", str(out)]) == 2
