"""Strict vs pure consistency (CAP App. H, Table 15) and C8 conditional vs unconditional (CAP §4.1)."""

import polars as pl
import pytest

from cap_core.analyses.consistency import (
    c8_conditional_unconditional,
    strict_vs_consistency,
)
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile
from cap_core.profile.published import load_published_profiles
from tests.cap_core.analyses._qc_fixtures import qc_dataset

# The Δ column as printed in CAP Table 15 (it is not stored in cap_profiles.csv).
PRINTED_DELTA = {
    "GPT-4o": (5.2, 4.7, 14.4), "GPT-4o-mini": (7.8, 7.6, 19.9), "Claude Sonnet 4.5": (1.4, 1.2, 1.6),
    "Claude Haiku 4.5": (2.3, 2.3, 3.1), "Gemini 2.5 Flash": (2.2, 2.1, 6.0), "Gemini 2.5 Pro": (2.0, 1.8, 5.7),
    "Llama-3.3-70B": (2.1, 2.0, 11.7),
}


def test_table15_stable_but_wrong_equals_the_printed_delta():
    pub = load_published_profiles().filter(pl.col("source") == "published: CAP Table 15")
    out = strict_vs_consistency(pub)
    assert out.height == 21
    got = {(r["judge"], r["condition"]): r["stable_but_wrong"] for r in out.iter_rows(named=True)}
    for judge, deltas in PRINTED_DELTA.items():
        for cond, delta in zip(("C5", "C6", "C7"), deltas):
            assert got[(judge, cond)] == pytest.approx(delta, abs=1e-9)
    row = out.filter((pl.col("judge") == "GPT-4o-mini") & (pl.col("condition") == "C7")).row(0, named=True)
    assert (row["strict"], row["consistency"]) == (61.0, 80.9)


def test_computed_profile_uses_its_stored_rows():
    prof = compute_profile(qc_dataset(), n_resamples=20).profile
    out = strict_vs_consistency(prof).filter(pl.col("condition") == "C7")
    j = out.filter(pl.col("judge") == "J").row(0, named=True)
    # fixture: J both right on 4 of 7 items, same verdict on 5 of 7 -> stable-but-wrong 1/7
    assert j["strict"] == pytest.approx(400 / 7) and j["consistency"] == pytest.approx(500 / 7)
    assert j["stable_but_wrong"] == pytest.approx(100 / 7)


def test_c8_unconditional_from_published_hard_empirical():
    pub = load_published_profiles().filter(pl.col("subset") == "hard_empirical")
    out = {r["judge"]: r for r in c8_conditional_unconditional(pub).iter_rows(named=True)}
    # §4.1: Sonnet overall 89.7 on Hard-Empirical x C8 85.7 -> 76.9 unconditional (printed in §4.1)
    assert out["Claude Sonnet 4.5"]["supported_correct"] == pytest.approx(76.9, abs=0.05)
    assert out["Claude Sonnet 4.5"]["how"] == "overall × C8"
    # GPT-4o-mini: Table 3 prints C8 75.0 but no overall accuracy on this subset
    assert out["GPT-4o-mini"]["supported"] == 75.0
    assert out["GPT-4o-mini"]["supported_correct"] is None
    assert out["GPT-4o-mini"]["how"] == "needs overall accuracy"


def test_not_a_profile():
    with pytest.raises(CAPInputError, match="profile table"):
        strict_vs_consistency(pl.DataFrame({"a": [1]}))
    with pytest.raises(CAPInputError, match="profile table"):
        c8_conditional_unconditional("x")
