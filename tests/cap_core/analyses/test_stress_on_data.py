"""δ on the loaded per-item data (two sides: benchmarks or groups of subsets), against a hand count."""

from __future__ import annotations

import math
from pathlib import Path

import polars as pl
import pytest

from cap_core.analyses.stress import side_name, stress_on_data
from cap_core.dataset import load_dataset
from cap_core.errors import CAPInputError

DEFAULT = Path(__file__).resolve().parents[3] / "data" / "default"
JUDGE = "GPT-4/Vanilla_NoRules"


def hand_rates(subsets: list[str], judge: str = JUDGE) -> tuple[float, float, int]:
    """(C7 strict %, overall pa %, items) by a plain count over the parquet files: an item is strict-correct
    when the judge picks the gold response in both orders (a tie, unparsed or missing order is not
    correct); pa averages the two orders' 0/1 over items."""
    items = pl.read_parquet(DEFAULT / "items.parquet").filter(
        (pl.col("benchmark") == "llmbar") & pl.col("subset").is_in(subsets))
    judg = pl.read_parquet(DEFAULT / "judgments.parquet").filter(
        (pl.col("benchmark") == "llmbar") & (pl.col("judge") == judge))
    verdict = {(r["item_id"], r["order"]): r["verdict"] for r in judg.iter_rows(named=True)}
    strict = pa = 0.0
    for r in items.iter_rows(named=True):
        ok = [verdict.get((r["item_id"], o)) == r["gold"] for o in ("AB", "BA")]
        strict += all(ok)
        pa += sum(ok) / 2
    n = items.height
    return 100 * strict / n, 100 * pa / n, n


@pytest.fixture(scope="module")
def natural_vs_neighbor() -> pl.DataFrame:
    ds = load_dataset(DEFAULT)
    return stress_on_data(ds, ("llmbar", ("Natural",)), ("llmbar", ("Neighbor",)), judges=[JUDGE, "ChatGPT/CoT"],
                          n_resamples=1000, seed=0)


def test_delta_is_the_hand_count_difference(natural_vs_neighbor):
    d = natural_vs_neighbor
    assert set(d["judge"]) == {JUDGE, "ChatGPT/CoT"}
    # C5 (Natural vs adversarial) cannot be measured inside one subset; C7 and overall can
    assert set(d["condition"]) == {"C7", "overall"}
    s_nat, pa_nat, n_nat = hand_rates(["Natural"])
    s_nb, pa_nb, n_nb = hand_rates(["Neighbor"])
    row = {r["condition"]: r for r in d.filter(pl.col("judge") == JUDGE).iter_rows(named=True)}
    assert row["C7"]["base_value"] == pytest.approx(s_nat) and row["C7"]["stressed_value"] == pytest.approx(s_nb)
    assert row["C7"]["delta"] == pytest.approx(s_nat - s_nb)
    assert row["overall"]["delta"] == pytest.approx(pa_nat - pa_nb)
    assert (row["C7"]["n_base"], row["C7"]["n_stressed"]) == (n_nat, n_nb) == (100, 134)


def test_interval_has_the_width_of_two_independent_proportions(natural_vs_neighbor):
    # the two sides share no item, so var(δ) = p1(1-p1)/n1 + p2(1-p2)/n2 (in points²); the percentile
    # bootstrap's 95% width should be close to 2 × 1.96 × that sd
    s_nat, _, n1 = hand_rates(["Natural"])
    s_nb, _, n2 = hand_rates(["Neighbor"])
    p1, p2 = s_nat / 100, s_nb / 100
    sd = 100 * math.sqrt(p1 * (1 - p1) / n1 + p2 * (1 - p2) / n2)
    row = natural_vs_neighbor.filter((pl.col("judge") == JUDGE) & (pl.col("condition") == "C7")).row(0, named=True)
    assert row["ci_low"] < row["delta"] < row["ci_high"]
    assert (row["ci_high"] - row["ci_low"]) == pytest.approx(2 * 1.959964 * sd, rel=0.15)
    assert row["separated"] == (row["ci_low"] > 0 or row["ci_high"] < 0)


def test_two_benchmarks_whole():
    ds = load_dataset(DEFAULT)
    d = stress_on_data(ds, ("llmbar", None), ("llmbar_mtbench", None), judges=[JUDGE], n_resamples=50)
    assert set(d["condition"]) >= {"C7", "overall"} and set(d["judge"]) == {JUDGE}


def test_overlapping_or_unknown_sides_are_refused():
    ds = load_dataset(DEFAULT)
    with pytest.raises(CAPInputError, match="share items"):
        stress_on_data(ds, ("llmbar", ("Natural", "Neighbor")), ("llmbar", ("Neighbor",)), n_resamples=10)
    with pytest.raises(CAPInputError, match="same"):
        stress_on_data(ds, ("llmbar", ("Natural",)), ("llmbar", ("Natural",)), n_resamples=10)
    with pytest.raises(CAPInputError, match="no subset 'Nope'"):
        stress_on_data(ds, ("llmbar", ("Nope",)), ("llmbar", ("Neighbor",)), n_resamples=10)
    assert side_name("llmbar", ("Neighbor", "GPTInst")) == "llmbar[GPTInst+Neighbor]"
