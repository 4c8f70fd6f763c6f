"""`choose_verdicts`: the recorded or the derived verdict feeds the one correctness rule."""

from __future__ import annotations

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.dataset import Dataset, save_dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile
from cap_core.verdicts import choose_verdicts


def _ds(with_recorded: bool = True) -> Dataset:
    items = pl.DataFrame({"benchmark": ["b"] * 2, "item_id": ["x", "y"], "gold": ["A", "B"]})
    jm = {"judge": ["r"] * 4, "benchmark": ["b"] * 4, "item_id": ["x", "x", "y", "y"],
          "order": ["AB", "BA"] * 2,
          # equal scores on x: CAP derives a tie twice; the source recorded B then A (by position)
          "verdict": ["tie", "tie", "B", "B"]}
    if with_recorded:
        jm["verdict_recorded"] = ["B", "A", "B", None]
    return Dataset.build(items, pl.DataFrame(jm))


def _pa(ds) -> float:
    p = compute_profile(ds, n_resamples=10, seed=0).profile
    return p.filter(pl.col("condition") == "overall", pl.col("metric") == "pa")["value"][0]


def test_derived_is_unchanged_and_recorded_uses_the_source_where_it_wrote_one():
    ds = _ds()
    assert choose_verdicts(ds, "derived") is ds
    rec = choose_verdicts(ds, "recorded")
    assert rec.judgments["verdict"].to_list() == ["B", "A", "B", "B"]
    assert any("derived verdicts are used there" in n for n in rec.notices)
    # by hand: derived 2 of 4 correct (ties never correct) -> 50 %; recorded 3 of 4 -> 75 %
    assert _pa(ds) == pytest.approx(50.0)
    assert _pa(rec) == pytest.approx(75.0)


def test_no_recorded_column_keeps_derived_with_a_notice():
    rec = choose_verdicts(_ds(with_recorded=False), "recorded")
    assert rec.judgments["verdict"].to_list() == ["tie", "tie", "B", "B"]
    assert rec.notices and "1 judge(s)" in rec.notices[-1]


def test_bad_choice_is_refused():
    with pytest.raises(CAPInputError, match="unknown verdict source"):
        choose_verdicts(_ds(), "source")


def test_cli_profile_verdicts_option(tmp_path, capsys):
    save_dataset(_ds(), tmp_path / "d")
    for which, want in (("derived", 50.0), ("recorded", 75.0)):
        out = tmp_path / f"{which}.csv"
        assert main(["profile", "--data", str(tmp_path / "d"), "--bootstrap", "100", "--verdicts", which,
                     "--out", str(out)]) == 0
        p = pl.read_csv(out).filter(pl.col("condition") == "overall", pl.col("metric") == "pa")
        assert p["value"][0] == pytest.approx(want)
    assert "recorded verdicts" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exc:
        main(["profile", "--data", str(tmp_path / "d"), "--verdicts", "nope", "--out", str(out)])
    assert exc.value.code == 2
