"""Generator replication (CAP App. I, Table 16): per-judge change per condition and the Spearman of judge
rankings across two slices, on hand-made verdicts and on a testbed built by two generators."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest
from scipy.stats import spearmanr

from cap_core.cli.main import main
from cap_core.dataset import Dataset
from cap_core.testbed.replication import RHO_ROW, replication, table16
from tests.cap_core.testbed.scripted_server import ScriptedServer

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"
GOLD = ["A", "B", "A", "B"]


def _slice_judgments(bench: str, correct_units: dict[str, int]) -> list[dict]:
    """``k`` correct of a judge's 8 units: AB of items 1-4 first, then BA of items 1-4 (so k - 4 items,
    when positive, are right in both orders)."""
    rows = []
    for judge, k in correct_units.items():
        units = [(i, "AB") for i in range(4)] + [(i, "BA") for i in range(4)]
        for n, (i, order) in enumerate(units):
            wrong = "B" if GOLD[i] == "A" else "A"
            rows.append({"judge": judge, "benchmark": bench, "item_id": f"i{i}", "order": order,
                         "verdict": GOLD[i] if n < k else wrong})
    return rows


def test_changes_and_rank_correlation_by_hand():
    items = pl.DataFrame([{"benchmark": b, "item_id": f"i{i}", "failure_type": "factual_fabrication",
                           "gold": GOLD[i]} for b in ("tb", "tb-replication") for i in range(4)])
    first = {"J1": 8, "J2": 6, "J3": 4, "J4": 2}  # C1 pa 100, 75, 50, 25; C7 strict 100, 50, 0, 0
    second = {"J1": 6, "J2": 7, "J3": 1, "J4": 3}  # C1 pa 75, 87.5, 12.5, 37.5; C7 strict 50, 75, 0, 0
    judg = pl.DataFrame(_slice_judgments("tb", first) + _slice_judgments("tb-replication", second))
    rep = replication(Dataset.build(items, judg), "tb", "tb-replication", n_resamples=100)
    c1 = {r["judge"]: r["change"] for r in rep.changes.filter(pl.col("condition") == "C1").iter_rows(named=True)}
    assert c1 == {"J1": -25.0, "J2": 12.5, "J3": -37.5, "J4": 12.5}
    c7 = {r["judge"]: r["change"] for r in rep.changes.filter(pl.col("condition") == "C7").iter_rows(named=True)}
    assert c7 == {"J1": -50.0, "J2": 25.0, "J3": 0.0, "J4": 0.0}
    rho = dict(rep.ranks.select("condition", "rho").iter_rows())
    # C1 ranks 4,3,2,1 vs 3,4,1,2: sum of squared rank differences 4, rho = 1 - 6*4/(4*15) = 0.6
    assert rho["C1"] == pytest.approx(0.6)
    assert rho["C7"] == pytest.approx(spearmanr([100, 50, 0, 0], [50, 75, 0, 0]).statistic)
    assert set(rep.ranks["condition"]) == {"C1", "C7"}  # C2-C6, C8 are measured on neither slice
    t = table16(rep)
    assert t.columns == ["judge", "C1", "C7"] and t["judge"].to_list() == ["J1", "J2", "J3", "J4", RHO_ROW]
    assert t.row(4) == (RHO_ROW, pytest.approx(0.6), rho["C7"])
    # below three judges there is no rank correlation
    two = replication(Dataset.build(items, judg), "tb", "tb-replication", judges=["J1", "J2"], n_resamples=100)
    assert two.ranks["rho"].is_null().all() and two.ranks["n_judges"].to_list() == [2, 2]


def test_two_generators_build_paired_slices_and_the_table(tmp_path, capsys):
    srv = ScriptedServer()
    try:
        tb, run, cache = tmp_path / "tb", tmp_path / "run", tmp_path / "cache"
        assert main(["testbed", "build", str(QUESTIONS), "--generator", "rules", "--generator", "openai/gen2",
                     "--api-base", srv.url, "--hard", "0", "--cache", str(cache), "--out", str(tb)]) == 0
        assert len(srv.stages("flaw")) == 32 and srv.count() == 32  # no expansion, no scoring, rules variants
        pairs = pl.read_parquet(tb / "pairs.parquet")
        one = pairs.filter(pl.col("benchmark") == "questions").sort("base_item_id")
        two = pairs.filter(pl.col("benchmark") == "questions-replication").sort("base_item_id")
        for col in ("base_item_id", "question", "correct", "failure_type", "gold", "domain"):
            assert one[col].equals(two[col]), col
        assert (one["flawed"] != two["flawed"]).all() and set(two["generator"]) == {"openai/gen2"}
        items = pl.read_parquet(tb / "run_items.parquet")
        assert set(items.filter(pl.col("benchmark") == "questions-replication")["variant"]) == {"plain"}
        assert main(["judge", "--items", str(tb), "--model", "local/first", "--model", "local/longer",
                     "--cache", str(cache), "--out", str(run)]) == 0
        out = tmp_path / "table16.csv"
        assert main(["testbed", "replication", "--data", str(run), "--testbed", str(tb), "--table-out", str(out)]) == 0
        table = pl.read_csv(out)
        assert table.columns == ["judge", "C1", "C2", "C3", "C4", "C7"]
        assert table["judge"].to_list() == ["local/first", "local/longer", RHO_ROW]

        def longer_share(frame: pl.DataFrame) -> float:
            right = [len((r["response_a"] if r["gold"] == "A" else r["response_b"]).split()) >
                     len((r["response_b"] if r["gold"] == "A" else r["response_a"]).split())
                     for r in frame.iter_rows(named=True)]
            return 100.0 * sum(right) / len(right)

        s1 = items.filter(pl.col("benchmark") == "questions")
        s2 = items.filter(pl.col("benchmark") == "questions-replication")
        first = table.row(0, named=True)
        assert [first[c] for c in ("C1", "C2", "C3", "C4", "C7")] == [0.0] * 5  # always 50 / always 0
        longer = table.row(1, named=True)
        for cond, ftype in (("C1", "factual_fabrication"), ("C2", "logical_reversal"), ("C3", "overclaim"),
                            ("C4", "omission")):
            plain1 = s1.filter((pl.col("variant") == "plain") & (pl.col("failure_type") == ftype))
            plain2 = s2.filter(pl.col("failure_type") == ftype)
            assert longer[cond] == pytest.approx(longer_share(plain2) - longer_share(plain1)), cond
        # the second generator inserted a word for fabrication/overclaim and removed one otherwise
        assert longer["C2"] == 100.0 and longer["C1"] == 0.0
        assert longer["C7"] == pytest.approx(longer_share(s2) - longer_share(s1))
        rho = table.row(2, named=True)
        assert all(rho[c] is None or (isinstance(rho[c], float) and math.isnan(rho[c])) for c in ("C1", "C7"))
    finally:
        srv.close()
