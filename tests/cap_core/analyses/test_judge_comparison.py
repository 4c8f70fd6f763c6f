import polars as pl
import pytest

from cap_core.analyses.judge_comparison import compare_judges, verdict
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile

GOLD = ["A", "B", "A", "B", "A", "B", "A", "B"]


def toy_dataset() -> Dataset:
    """8 items; 'first' always picks the response shown first, 'oracle' is always right."""
    items = pl.DataFrame({"benchmark": "toy", "item_id": [f"i{k}" for k in range(8)], "gold": GOLD})
    rows = []
    for k, g in enumerate(GOLD):
        for order in ("AB", "BA"):
            # verdicts are in ORIGINAL letters: the first-shown response is A in AB order and B in BA order
            rows.append(("first", f"i{k}", order, "A" if order == "AB" else "B"))
            rows.append(("oracle", f"i{k}", order, g))
    judgments = pl.DataFrame(rows, schema=["judge", "item_id", "order", "verdict"], orient="row").with_columns(
        pl.lit("toy").alias("benchmark"))
    decl = pl.DataFrame({"benchmark": ["toy"], "condition": ["C7"], "status": ["direct"], "operator": ["both orders"],
                         "selector": ["order"], "values": [["AB", "BA"]], "reference": [[]]},
                        schema_overrides={"reference": pl.List(pl.String)})
    return Dataset.build(items, judgments, decl)


def test_always_first_judge_is_50_pa_and_0_strict():
    prof = compute_profile(toy_dataset(), n_resamples=50).profile.filter(pl.col("judge") == "first")
    cell = {(r["condition"], r["metric"]): r["value"] for r in prof.iter_rows(named=True)}
    # each item: right in exactly one of its two orders -> pa 1/2; never right in both -> strict 0
    assert cell[("overall", "pa")] == pytest.approx(50.0)
    assert cell[("C7", "strict")] == pytest.approx(0.0)


def test_oracle_vs_first_is_separated():
    out = compare_judges(toy_dataset(), "oracle", "first", "toy", n_resamples=200)
    row = {r["condition"]: r for r in out.iter_rows(named=True)}
    assert row["overall"]["diff"] == pytest.approx(50.0) and row["overall"]["verdict"] == "separated"
    # every resample gives 100 - 50 exactly: the paired interval has zero width
    assert row["overall"]["ci95_low"] == pytest.approx(50.0) == row["overall"]["ci95_high"]
    assert row["C7"]["diff"] == pytest.approx(100.0)


def test_verdict_rule():
    assert verdict((0.5, 3.0), (1.0, 2.5)) == "separated"
    assert verdict((-4.0, 4.5), (-3.0, 4.0)) == "parity"
    assert verdict((-8.0, 9.0), (-6.0, 7.0)) == "inconclusive"


def test_same_judge_or_unknown_benchmark():
    ds = toy_dataset()
    with pytest.raises(CAPInputError, match="two different judges"):
        compare_judges(ds, "first", "first", "toy")
    with pytest.raises(CAPInputError, match="unknown benchmark"):
        compare_judges(ds, "first", "oracle", "nope")


@pytest.mark.parametrize("margin", [float("nan"), float("inf"), -1.0, True])
def test_a_margin_that_is_not_a_finite_non_negative_number_is_refused(margin):
    # nan < 0 is False: without a finiteness check a nan margin made every verdict silently 'inconclusive'
    with pytest.raises(CAPInputError, match="parity margin"):
        compare_judges(toy_dataset(), "oracle", "first", "toy", n_resamples=50, margin=margin)
