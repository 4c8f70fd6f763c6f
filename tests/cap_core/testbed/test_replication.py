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
    """Finding 10: the second generator cannot flaw f01 (it returns the correct answer, four times); the slices
    still share every other question's gold, and the table compares the plain pairs of the 31 questions on both."""
    f01 = pl.read_csv(QUESTIONS).filter(pl.col("id") == "f01").row(0, named=True)
    srv = ScriptedServer(flaws={f01["question"]: [f01["answer"]] * 4})
    try:
        tb, run, cache = tmp_path / "tb", tmp_path / "run", tmp_path / "cache"
        assert main(["testbed", "build", str(QUESTIONS), "--generator", "rules", "--generator", "openai/gen2",
                     "--api-base", srv.url, "--hard", "0", "--cache", str(cache), "--out", str(tb)]) == 0
        # 31 questions flawed once, f01 four times (the check rejects an unchanged answer); no expansion, no
        # scoring, rules variants
        assert len(srv.stages("flaw")) == 31 + 4 and srv.count() == 35
        pairs = pl.read_parquet(tb / "pairs.parquet")
        one = pairs.filter(pl.col("benchmark") == "questions").sort("base_item_id")
        two = pairs.filter(pl.col("benchmark") == "questions-replication").sort("base_item_id")
        assert one.height == 32 and two.height == 31 and "f01" not in set(two["base_item_id"])
        both = one.filter(pl.col("base_item_id") != "f01")
        for col in ("base_item_id", "question", "correct", "failure_type", "gold", "domain"):
            assert both[col].equals(two[col]), col
        assert (both["flawed"] != two["flawed"]).all() and set(two["generator"]) == {"openai/gen2"}
        items = pl.read_parquet(tb / "run_items.parquet")
        assert set(items.filter(pl.col("benchmark") == "questions-replication")["variant"]) == {"plain"}
        assert main(["judge", "--items", str(tb), "--model", "local/first", "--model", "local/longer",
                     "--cache", str(cache), "--out", str(run)]) == 0
        capsys.readouterr()
        out = tmp_path / "table16.csv"
        assert main(["testbed", "replication", "--data", str(run), "--testbed", str(tb), "--table-out", str(out)]) == 0
        said = capsys.readouterr()
        assert "2 judges, 31 questions on both slices" in said.out
        assert "1 question of questions is not on questions-replication and are left out of both: f01" in said.err
        assert "64 presentation variants left out" in said.err
        table = pl.read_csv(out)
        assert table.columns == ["judge", "C1", "C2", "C3", "C4", "C7"]
        assert table["judge"].to_list() == ["local/first", "local/longer", RHO_ROW]

        def longer_share(frame: pl.DataFrame) -> float:
            right = [len((r["response_a"] if r["gold"] == "A" else r["response_b"]).split()) >
                     len((r["response_b"] if r["gold"] == "A" else r["response_a"]).split())
                     for r in frame.iter_rows(named=True)]
            return 100.0 * sum(right) / len(right)

        shared = (pl.col("variant") == "plain") & (pl.col("base_item_id") != "f01")
        s1 = items.filter((pl.col("benchmark") == "questions") & shared)
        s2 = items.filter((pl.col("benchmark") == "questions-replication") & shared)
        first = table.row(0, named=True)
        assert [first[c] for c in ("C1", "C2", "C3", "C4", "C7")] == [0.0] * 5  # always 50 / always 0
        longer = table.row(1, named=True)
        for cond, ftype in (("C1", "factual_fabrication"), ("C2", "logical_reversal"), ("C3", "overclaim"),
                            ("C4", "omission")):
            plain1 = s1.filter(pl.col("failure_type") == ftype)
            plain2 = s2.filter(pl.col("failure_type") == ftype)
            assert longer[cond] == pytest.approx(longer_share(plain2) - longer_share(plain1)), cond
        # the second generator inserted a word for fabrication/overclaim and removed one otherwise
        assert longer["C2"] == 100.0 and longer["C1"] == 0.0
        # C7 on the same 31 plain pairs of each slice (local/longer is order-blind: both orders right or both wrong)
        assert longer["C7"] == pytest.approx(longer_share(s2) - longer_share(s1))
        rho = table.row(2, named=True)
        assert all(rho[c] is None or (isinstance(rho[c], float) and math.isnan(rho[c])) for c in ("C1", "C7"))
    finally:
        srv.close()


def test_slices_are_compared_on_the_same_plain_pairs():
    """Finding 10, by hand: i3 is on the first slice only and i0 has a polished variant there; both are left out.
    First slice (plain i0-i2): J1 right in both orders -> C1 pa 100, C7 strict 100. Second slice: i0 right in
    both, i1 in AB only, i2 in neither -> C1 pa (100 + 50 + 0) / 3 = 50, C7 strict 1/3. Counting i3 (wrong) and
    the variant (wrong) would give C1 75 and C7 60 on the first slice."""
    gold = {"i0": "A", "i1": "B", "i2": "A", "i3": "B"}
    rows = [{"benchmark": "tb", "item_id": i, "base_item_id": i, "variant": "plain", "gold": g}
            for i, g in gold.items()]
    rows.append({"benchmark": "tb", "item_id": "i0::polished", "base_item_id": "i0", "variant": "polished",
                 "gold": "A"})
    rows += [{"benchmark": "tb-replication", "item_id": i, "base_item_id": i, "variant": "plain", "gold": gold[i]}
             for i in ("i0", "i1", "i2")]
    items = pl.DataFrame(rows).with_columns(pl.lit("factual_fabrication").alias("failure_type"))
    other = {"A": "B", "B": "A"}
    right = {("tb", "i0"): "AB BA", ("tb", "i1"): "AB BA", ("tb", "i2"): "AB BA", ("tb", "i3"): "",
             ("tb", "i0::polished"): "", ("tb-replication", "i0"): "AB BA", ("tb-replication", "i1"): "AB",
             ("tb-replication", "i2"): ""}
    g = {(r["benchmark"], r["item_id"]): r["gold"] for r in rows}
    judg = pl.DataFrame([{"judge": "J1", "benchmark": b, "item_id": i, "order": o,
                          "verdict": g[b, i] if o in ok.split() else other[g[b, i]]}
                         for (b, i), ok in right.items() for o in ("AB", "BA")])
    rep = replication(Dataset.build(items, judg), "tb", "tb-replication", n_resamples=100)
    ch = {r["condition"]: (r["first"], r["second"], r["change"]) for r in rep.changes.iter_rows(named=True)}
    assert ch["C1"] == (100.0, 50.0, -50.0)
    assert ch["C7"][0] == 100.0 and ch["C7"][1] == pytest.approx(100 / 3)
    assert "C5" not in ch and rep.base_items == 3
    assert rep.notices[0] == "1 question of tb is not on tb-replication and are left out of both: i3"
