"""CLI verbs qc, hard and robustness on the hand fixture and the published tables."""

from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.dataset import save_dataset
from tests.cap_core.analyses._qc_fixtures import qc_dataset


@pytest.fixture()
def data_dir(tmp_path: Path) -> Path:
    return save_dataset(qc_dataset(), tmp_path / "toy")


def test_qc_verb(data_dir: Path, tmp_path: Path):
    out = tmp_path / "qc.csv"
    assert main(["qc", "--data", str(data_dir), "--out", str(out)]) == 0
    got = pl.read_csv(out).filter((pl.col("judge") == "J") & (pl.col("condition") == "C2"))
    # fixture: J's C2 (i4, i5) 3/4 -> 1/2 once flagged i4 is gone
    assert got["change"][0] == pytest.approx(-25.0)


def test_hard_verb_prints_the_warning(data_dir: Path, tmp_path: Path, capsys):
    out = tmp_path / "hard.csv"
    assert main(["hard", "--data", str(data_dir), "--benchmark", "toy", "--selector", "J", "--selector", "K",
                 "--bootstrap", "100", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert "3 of 6 items" in said and "Selection bias" in said
    prof = pl.read_csv(out).filter((pl.col("condition") == "overall") & (pl.col("judge") == "J"))
    assert prof["value"][0] == pytest.approx(50.0)  # i1 0 + i1p 2 + i2 1 + i5 1 of 8 judgments


def test_robustness_verb_published(tmp_path: Path):
    out, c8 = tmp_path / "r.csv", tmp_path / "c8.csv"
    assert main(["robustness", "--published", "--out", str(out), "--c8-out", str(c8)]) == 0
    r = pl.read_csv(out).filter((pl.col("judge") == "GPT-4o") & (pl.col("condition") == "C7")
                                & (pl.col("subset") == "full"))
    assert r["stable_but_wrong"][0] == pytest.approx(14.4)  # CAP Table 15 printed Δ
    son = pl.read_csv(c8).filter((pl.col("judge") == "Claude Sonnet 4.5") & (pl.col("subset") == "hard_empirical"))
    assert son["supported_correct"][0] == pytest.approx(76.9, abs=0.05)  # CAP §4.1


def test_bad_flag_and_selector_exit_2(data_dir: Path, tmp_path: Path, capsys):
    assert main(["qc", "--data", str(data_dir), "--flag", "nope", "--out", str(tmp_path / "x.csv")]) == 2
    assert "no item carries the flag 'nope'" in capsys.readouterr().err
    assert main(["hard", "--data", str(data_dir), "--benchmark", "toy", "--selector", "Z",
                 "--out", str(tmp_path / "y.csv")]) == 2
    assert "no verdicts" in capsys.readouterr().err


def test_hard_verb_constructed_subset(data_dir: Path, tmp_path: Path, capsys):
    cons = tmp_path / "construction.csv"
    cons.write_text("item_id\ni0\ni4\ni1\n")
    out, types = tmp_path / "hard.csv", tmp_path / "types.csv"
    assert main(["hard", "--data", str(data_dir), "--benchmark", "toy", "--selector", "J", "--construction", str(cons),
                 "--bootstrap", "100", "--out", str(out), "--types-out", str(types)]) == 0
    said = capsys.readouterr().out
    assert "hard-constructed (3 of 6 items)" in said and "judge-independent" in said and "Selection bias" in said
    prof = pl.read_csv(out).filter((pl.col("condition") == "overall") & (pl.col("metric") == "pa"))
    got = {(r["subset"], r["judge"]): r["value"] for r in prof.iter_rows(named=True)}
    # constructed: i0, i4, i1 (+ i1p); J 6/8, K 8/8 (worked in tests/cap_core/analyses/test_hard_subsets.py)
    assert got[("hard_constructed", "J")] == pytest.approx(75.0) and got[("hard_constructed", "K")] == 100.0
    t = pl.read_csv(types).filter(pl.col("subset") == "hard_constructed")
    assert dict(t.select("failure_type", "n").rows()) == {"factual_fabrication": 2, "logical_reversal": 1}


def test_hard_verb_bad_construction_exit_2(data_dir: Path, tmp_path: Path, capsys):
    cons = tmp_path / "construction.csv"
    cons.write_text("item_id\ni0\nnope\n")
    assert main(["hard", "--data", str(data_dir), "--benchmark", "toy", "--construction", str(cons),
                 "--out", str(tmp_path / "h.csv")]) == 2
    err = capsys.readouterr().err
    assert "construction.csv" in err and "row 2" in err and "'nope'" in err and len(err.strip().splitlines()) == 1
    assert main(["hard", "--data", str(data_dir), "--benchmark", "toy", "--out", str(tmp_path / "h.csv")]) == 2
    assert "choose a hard subset" in capsys.readouterr().err


def test_hard_verb_types_out_a_folder_writes_nothing(data_dir: Path, tmp_path: Path, capsys):
    out, folder = tmp_path / "hard.csv", tmp_path / "a_folder"
    folder.mkdir()
    assert main(["hard", "--data", str(data_dir), "--benchmark", "toy", "--selector", "J", "--bootstrap", "100",
                 "--out", str(out), "--types-out", str(folder)]) == 2
    assert "--types-out" in capsys.readouterr().err
    assert not out.exists()  # the profile was not written before the error
