import csv
from pathlib import Path

import pytest
from scipy import stats

from cap_core.analyses.rank_stability import (
    cross_benchmark_spearman,
    cross_condition_spearman,
    redundancy_summary,
    spearman_pair,
)
from cap_core.errors import CAPInputError
from tests.cap_core.analyses._fixtures import published_with_pro, toy_profile

SRC = ["published: CAP Table 15", "published: CAP Table 5"]


def test_table13_judgereva_vs_judgebench_c7(shared_dir: Path):
    out = cross_benchmark_spearman(published_with_pro(), "C7", ["judgereva:full", "judgebench"], sources=SRC)
    row = out.row(0, named=True)
    printed = {(r["benchmark_a"], r["benchmark_b"]): float(r["rho"])
               for r in csv.DictReader(open(shared_dir / "published" / "cap_spearman_c7.csv"))}
    assert round(row["rho"], 2) == printed[("judgereva", "judgebench")] == 0.71
    # Table 13 marks this pair non-significant at n=7 (bold)
    assert row["n_judges"] == 7 and row["significant"] is False


def test_table13_judgebench_vs_pro_is_one():
    out = cross_benchmark_spearman(published_with_pro(), "C7", ["judgebench", "judgebench_pro"])
    assert round(out["rho"][0], 2) == 1.00


def test_p_value_matches_scipy():
    x, y = [3.0, 1.0, 4.0, 1.5, 5.0, 9.0], [2.0, 7.0, 1.0, 8.0, 2.5, 8.5]
    ref = stats.spearmanr(x, y)
    res = spearman_pair(x, y)
    assert res["rho"] == pytest.approx(ref.statistic) and res["p_value"] == pytest.approx(ref.pvalue)
    # identical ranks: exact two-sided p = 2/n! for n=4 (only the identity and reverse reach |rho| = 1)
    assert spearman_pair([1, 2, 3, 4], [10, 20, 30, 40], exact=True)["p_value"] == pytest.approx(2 / 24)


def test_na_cases():
    assert spearman_pair([1, 2], [2, 1])["status"] == "n/a"
    const = spearman_pair([5, 5, 5], [1, 2, 3])
    assert const["status"] == "n/a" and const["rho"] is None and "same value" in const["reason"]
    prof = toy_profile([("a", "x", "C7", 50), ("b", "x", "C7", 60), ("c", "y", "C7", 70)])
    out = cross_benchmark_spearman(prof, "C7")
    assert out["status"][0] == "n/a" and out["n_judges"][0] == 0


def test_one_benchmark_is_an_error():
    prof = toy_profile([("a", "x", "C7", 50), ("b", "x", "C7", 60)])
    with pytest.raises(CAPInputError, match="at least two benchmarks"):
        cross_benchmark_spearman(prof, "C7")


def test_cross_condition_summary_hand():
    # C1 ranks a<b<c, C2 ranks c<b<a (rho -1), C3 = C1 (rho 1): mean |rho| = 1; C1-C2 and C2-C3 negative
    prof = toy_profile([("a", "x", "C1", 1), ("b", "x", "C1", 2), ("c", "x", "C1", 3),
                        ("a", "x", "C2", 9), ("b", "x", "C2", 8), ("c", "x", "C2", 7),
                        ("a", "x", "C3", 4), ("b", "x", "C3", 5), ("c", "x", "C3", 6)])
    s = redundancy_summary(cross_condition_spearman(prof, "x"))
    assert s == {"n_pairs": 3, "n_na": 0, "mean_abs_rho": pytest.approx(1.0), "n_negative": 2}


def test_exact_p_equals_scipy_permutation_test_with_ties():
    import numpy as np
    from scipy import stats

    rng = np.random.default_rng(3)
    for n in (3, 5, 7):
        for _ in range(4):
            x = rng.integers(0, 3, n).astype(float)  # ties on purpose
            y = rng.normal(size=n)
            if np.all(x == x[0]):
                continue
            ry = stats.rankdata(y)

            def rho(u, axis=-1):  # Spearman's rho: Pearson's r of the (mid-)ranks, for a stack of pairings at once
                ru = stats.rankdata(u, axis=axis)
                return stats.pearsonr(ru, np.broadcast_to(ry, ru.shape), axis=axis).statistic

            assert rho(x) == pytest.approx(stats.spearmanr(x, y).statistic, rel=1e-12)  # the same statistic
            ref = stats.permutation_test((x,), rho, vectorized=True, permutation_type="pairings",
                                         n_resamples=np.inf, alternative="two-sided")
            assert spearman_pair(x, y, exact=True)["p_value"] == pytest.approx(ref.pvalue, rel=1e-12)
