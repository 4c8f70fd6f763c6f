"""Bootstrap intervals: agreement with scipy, degenerate cases, seeds, shared resamples."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cap_core.bootstrap import benchmark_seed, percentile_interval, resample_counts
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError
from cap_core.profile.conditions import compute_profile


def _dataset(bench, gold, verdicts, base=None, variant=None):
    """gold: (n,) of A/B; verdicts: {judge: (v_ab (n,), v_ba (n,))}."""
    n = len(gold)
    ids = [f"i{k:04d}" for k in range(n)]
    items = pl.DataFrame({"benchmark": bench, "item_id": ids, "base_item_id": base or ids,
                          "variant": variant or ["original"] * n, "gold": list(gold)})
    rows = [pl.DataFrame({"judge": j, "benchmark": bench, "item_id": ids, "order": o, "verdict": list(v)})
            for j, (ab, ba) in verdicts.items() for o, v in (("AB", ab), ("BA", ba))]
    return Dataset.build(items, pl.concat(rows))


def _row(res, judge, condition="overall", metric="pa"):
    idx = res.profile.with_row_index("k").filter(
        (pl.col("judge") == judge) & (pl.col("condition") == condition) & (pl.col("metric") == metric)
        & (pl.col("subset") == "all"))
    return int(idx["k"][0]), idx.row(0, named=True)


def _random_judge(rng, gold, p):
    flip = {"A": "B", "B": "A"}
    return tuple(np.array([g if rng.random() < p else flip[g] for g in gold]) for _ in range(2))


@pytest.fixture(scope="module")
def big():
    rng = np.random.default_rng(11)
    gold = rng.choice(["A", "B"], size=400)
    j1, j2 = _random_judge(rng, gold, 0.8), _random_judge(rng, gold, 0.6)
    return gold, {"J1": j1, "J2": j2, "J1copy": j1}


def test_ci_matches_scipy_percentile(big):
    gold, v = big
    b = 20000
    res = compute_profile(_dataset("big", gold, v), n_resamples=b, seed=3, judges=["J1"])
    _, row = _row(res, "J1")
    # per-item position-averaged accuracy, computed here from the raw verdicts
    pa = ((v["J1"][0] == gold).astype(float) + (v["J1"][1] == gold).astype(float)) / 2
    ref = stats.bootstrap((pa,), np.mean, method="percentile", n_resamples=b, rng=np.random.default_rng(5))
    assert row["value"] == pytest.approx(100 * pa.mean())
    # Monte Carlo error of a 2.5 % quantile with B=20000: SE(mean) ~ 2 points, quantile SE
    # ~ sqrt(.025*.975/B) / density ~ 0.05 points per method, ~0.07 for the difference;
    # 0.5 points is > 6 SE and still well below the ~8-point CI width.
    assert row["ci_low"] == pytest.approx(100 * ref.confidence_interval.low, abs=0.5)
    assert row["ci_high"] == pytest.approx(100 * ref.confidence_interval.high, abs=0.5)


def test_plain_loop_reference_matches_vectorised_exactly():
    # 6 base items, each in 2 variants -> 12 items; overall pa units are items, resampled by base item
    rng = np.random.default_rng(2)
    base = [f"b{k // 2}" for k in range(12)]
    variant = ["plain", "polished"] * 6
    gold = rng.choice(["A", "B"], size=12)
    ab, ba = _random_judge(rng, gold, 0.6)
    res = compute_profile(_dataset("loop", gold, {"J": (ab, ba)}, base, variant), n_resamples=300, seed=9)
    k, _ = _row(res, "J")
    pa = ((ab == gold).astype(float) + (ba == gold).astype(float)) / 2
    counts = resample_counts(6, 300, benchmark_seed(9, "loop"))  # base items sorted: b0..b5
    item_base = np.array([int(x[1:]) for x in base])
    expect = []
    for r in range(300):
        drawn = np.concatenate([np.flatnonzero(item_base == i) for i in range(6) for _ in range(counts[r, i])])
        expect.append(100 * pa[drawn].mean())
    np.testing.assert_allclose(res.replicates[:, k], expect, rtol=1e-12, atol=1e-12)


def test_shared_resample_gives_difference_cis(big):
    gold, v = big
    res = compute_profile(_dataset("big", gold, v), n_resamples=500, seed=4)
    k1, _ = _row(res, "J1")
    k2, _ = _row(res, "J2")
    kc, _ = _row(res, "J1copy")
    counts = resample_counts(400, 500, benchmark_seed(4, "big")).astype(float)
    pa = {j: ((v[j][0] == gold).astype(float) + (v[j][1] == gold).astype(float)) / 2 for j in ("J1", "J2")}
    expect = 100 * (counts @ pa["J1"] - counts @ pa["J2"]) / 400
    np.testing.assert_allclose(res.replicates[:, k1] - res.replicates[:, k2], expect, atol=1e-9)
    lo, hi = percentile_interval(res.replicates[:, k1] - res.replicates[:, kc])
    assert lo == 0.0 and hi == 0.0  # the same judge under two names: zero-width difference CI


def test_seed_reproducibility(big):
    gold, v = big
    ds = _dataset("big", gold, v)
    a = compute_profile(ds, n_resamples=200, seed=1)
    b = compute_profile(ds, n_resamples=200, seed=1)
    c = compute_profile(ds, n_resamples=200, seed=2)
    np.testing.assert_array_equal(a.replicates, b.replicates)
    assert a.profile.equals(b.profile)
    assert not np.array_equal(a.replicates, c.replicates)
    assert (a.n_resamples, a.seed, a.level) == (200, 1, 0.95)
    assert a.replicates.shape == (200, a.profile.height)


def test_degenerate_cases():
    # all correct on 5 items -> [100, 100]; one item -> CI equals the value
    gold = np.array(["A", "B", "A", "B", "A"])
    res = compute_profile(_dataset("all", gold, {"J": (gold, gold)}), n_resamples=100)
    _, row = _row(res, "J")
    assert (row["value"], row["ci_low"], row["ci_high"]) == (100.0, 100.0, 100.0)
    one = compute_profile(_dataset("one", ["A"], {"J": (np.array(["A"]), np.array(["B"]))}), n_resamples=100)
    _, row = _row(one, "J")
    assert (row["value"], row["ci_low"], row["ci_high"], row["n_items"]) == (50.0, 50.0, 50.0, 1)
    # n = 0: no evaluated rationale -> null value and CI, all-NaN replicates
    k, row = _row(one, "J", "C8", "supported")
    assert row["value"] is None and row["ci_low"] is None and row["status"] == "unavailable"
    assert np.isnan(one.replicates[:, k]).all()


def test_resample_counts_and_interval_helpers():
    w = resample_counts(7, 50, 0)
    assert w.shape == (50, 7) and (w.sum(axis=1) == 7).all() and w.min() >= 0
    assert resample_counts(0, 5, 0).shape == (5, 0)
    x = np.random.default_rng(0).normal(size=(1000, 3))
    lo, hi = percentile_interval(x, level=0.9)
    np.testing.assert_allclose(lo, np.percentile(x, 5, axis=0))
    np.testing.assert_allclose(hi, np.percentile(x, 95, axis=0))
    with pytest.raises(CAPInputError):
        resample_counts(-1, 5, 0)
    with pytest.raises(CAPInputError):
        percentile_interval(x, level=95)


def test_stratified_counts_match_a_plain_loop():
    # units 0..9 in strata {0: 1,3,5}, {1: 0,2,4}, {2: 6,7,8,9}; documented draw order: strata ascending,
    # rng.integers(0, m, size=(B, m), dtype=int32) picks positions among the stratum's units in ascending order
    strata = np.array([1, 0, 1, 0, 1, 0, 2, 2, 2, 2])
    got = resample_counts(10, 40, 5, strata=strata)
    rng = np.random.default_rng(5)
    expect = np.zeros((40, 10), dtype=np.int64)
    for s in (0, 1, 2):
        units = [u for u in range(10) if strata[u] == s]
        pos = rng.integers(0, len(units), size=(40, len(units)), dtype=np.int32)
        for r in range(40):
            for p in pos[r]:
                expect[r, units[p]] += 1
    np.testing.assert_array_equal(got, expect)
    # every resample keeps each stratum's size: 3, 3 and 4 draws
    assert (got[:, [1, 3, 5]].sum(axis=1) == 3).all() and (got[:, 6:].sum(axis=1) == 4).all()


def test_subset_cells_keep_their_size_in_every_resample():
    # two native subsets of 30 and 10 items; the subset-restricted overall row must be the mean of exactly
    # 10 resampled items in every replicate (stratified resample), i.e. a multiple of 100/(2*10) percent
    rng = np.random.default_rng(8)
    gold = rng.choice(["A", "B"], size=40)
    ab, ba = _random_judge(rng, gold, 0.7)
    ds = _dataset("st", gold, {"J": (ab, ba)})
    ds = Dataset.build(ds.items.with_columns(pl.Series("subset", ["x"] * 30 + ["y"] * 10)), ds.judgments)
    res = compute_profile(ds, n_resamples=200, seed=2, by_subset=True)
    k = int(res.profile.with_row_index("k").filter((pl.col("subset") == "y") & (pl.col("condition") == "overall"))["k"][0])
    steps = res.replicates[:, k] / 5.0
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-9)


def test_c8_replicates_match_a_recomputation_from_the_counts():
    # 8 items, one stratum, gold A. AB verdict right on items 0-3 (wrong on 4-7); of the four right
    # ones, items 0 and 1 have a supported rationale and items 2 and 3 an unsupported one.
    # Per replicate r with counts w: acc = sum(w[:4]) / sum(w); supported = sum(w[:2]) / sum(w[:4]);
    # supported_correct = acc * supported (CAP §4.1), all in percent.
    import polars as pl

    from cap_core import Dataset

    n = 8
    items = pl.DataFrame({"benchmark": ["b"] * n, "item_id": [f"i{i}" for i in range(n)], "gold": ["A"] * n})
    rows = []
    for i in range(n):
        rs = (1 if i < 2 else 0) if i < 4 else None
        rows.append({"judge": "J", "benchmark": "b", "item_id": f"i{i}", "order": "AB",
                     "verdict": "A" if i < 4 else "B", "rationale_supported": rs})
        rows.append({"judge": "J", "benchmark": "b", "item_id": f"i{i}", "order": "BA", "verdict": "A",
                     "rationale_supported": None})
        # a second judge, always right, its rationale evaluated (and supported) on items 0-5 only,
        # so cells of two judges with different denominators sit side by side
        rows.append({"judge": "K", "benchmark": "b", "item_id": f"i{i}", "order": "AB", "verdict": "A",
                     "rationale_supported": 1 if i < 6 else None})
        rows.append({"judge": "K", "benchmark": "b", "item_id": f"i{i}", "order": "BA", "verdict": "A",
                     "rationale_supported": None})
    res = compute_profile(Dataset.build(items, pl.DataFrame(rows)), n_resamples=300, seed=11)
    w = resample_counts(n, 300, benchmark_seed(11, "b")).astype(float)  # base items i0..i7 sorted; one stratum
    acc = w[:, :4].sum(axis=1) / w.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        sup = np.where(w[:, :4].sum(axis=1) > 0, w[:, :2].sum(axis=1) / w[:, :4].sum(axis=1), np.nan)
    k_sup, row_sup = _row(res, "J", "C8", "supported")
    k_sc, row_sc = _row(res, "J", "C8", "supported_correct")
    assert (row_sup["value"], row_sc["value"]) == (50.0, 25.0)
    np.testing.assert_allclose(res.replicates[:, k_sup], 100 * sup)
    np.testing.assert_allclose(res.replicates[:, k_sc], 100 * acc * sup)
    # K: accuracy 1 and supported 1 in every replicate that draws one of items 0-5
    k_k, _ = _row(res, "K", "C8", "supported_correct")
    drawn = w[:, :6].sum(axis=1) > 0
    np.testing.assert_allclose(res.replicates[drawn, k_k], 100.0)


def test_benchmark_seeds_are_stable_and_distinct():
    # BLAKE2b-64 of "0:judgebench", shifted right by one bit, computed here independently
    import hashlib

    expect = int.from_bytes(hashlib.blake2b(b"0:judgebench", digest_size=8).digest(), "big") >> 1
    assert benchmark_seed(0, "judgebench") == expect
    assert benchmark_seed(0, "judgebench") != benchmark_seed(0, "judgebench_pro")
    assert benchmark_seed(0, "judgebench") != benchmark_seed(1, "judgebench")


def test_base_index_codes_ids_in_sorted_order():
    from cap_core.bootstrap import base_index

    codes, n = base_index(pl.Series(["b", "a", "c", "a", "b"]))
    assert (codes.tolist(), n) == ([1, 0, 2, 0, 1], 3)
    codes, n = base_index(np.array([7, 3, 7]))
    assert (codes.tolist(), n) == ([1, 0, 1], 2)
    assert base_index([])[1] == 0


def test_base_ratios_match_a_plain_loop_over_the_counts():
    from cap_core.bootstrap import base_ratios, per_base_sums

    rng = np.random.default_rng(4)
    ids = rng.choice([f"b{k}" for k in range(12)], size=40)  # several units per base item
    num = rng.integers(0, 3, size=(40, 2)) / 2.0
    den = rng.integers(0, 2, size=(40, 2)).astype(float)
    num = num * den
    order = sorted(set(ids))
    sums = per_base_sums(np.array([order.index(i) for i in ids]), num, len(order))
    for b, name in enumerate(order):
        assert sums[b].tolist() == pytest.approx(num[ids == name].sum(axis=0).tolist())
    counts = resample_counts(len(order), 300, 9)
    weight = lambda r: np.array([counts[r, order.index(i)] for i in ids])  # noqa: E731
    pooled = base_ratios(ids, num, den, n_resamples=300, seed=9)
    means = base_ratios(ids, num, den, n_resamples=300, seed=9, within="mean")
    for r in (0, 1, 150, 299):
        w = weight(r)
        for k in range(2):
            top, bottom = (w * num[:, k]).sum(), (w * den[:, k]).sum()
            assert pooled.replicates[r, k] == pytest.approx(top / bottom if bottom else np.nan, nan_ok=True)
            # each drawn base item with den > 0 weighs its count, with its own ratio
            own = {name: (num[ids == name, k].sum(), den[ids == name, k].sum()) for name in order}
            tot = sum(counts[r, b] for b, name in enumerate(order) if own[name][1] > 0)
            val = sum(counts[r, b] * own[name][0] / own[name][1] for b, name in enumerate(order) if own[name][1] > 0)
            assert means.replicates[r, k] == pytest.approx(val / tot if tot else np.nan, nan_ok=True)
    assert pooled.point.tolist() == pytest.approx((num.sum(axis=0) / den.sum(axis=0)).tolist())
    assert base_ratios(ids, num[:, 0], n_resamples=10, seed=0).replicates.shape == (10, 1)
    with pytest.raises(CAPInputError, match="weighting"):
        base_ratios(ids, num, within="median", n_resamples=10, seed=0)
    with pytest.raises(CAPInputError, match="same units"):
        base_ratios(ids[:5], num, n_resamples=10, seed=0)


def test_blocked_stratified_replicates_equal_the_count_matrix_form():
    # the blocked path must draw the same stream: replicates equal ratio_replicates of the full counts,
    # for halves (float32 path) and for arbitrary reals (float64 path), with a shared denominator column
    from cap_core.bootstrap import StratifiedRatios, ratio_replicates, stratified_counts
    rng = np.random.default_rng(3)
    n, b = 37, 23
    strata = rng.integers(0, 4, size=n)
    for num in (rng.integers(0, 3, size=(n, 5)) / 2.0, rng.random((n, 5))):
        den = np.column_stack([np.ones(n), rng.integers(0, 2, size=n)])
        den_index = np.array([0, 0, 1, 1, 0])
        counts, perm = stratified_counts(n, b, 11, strata)
        expect = ratio_replicates(counts, num[perm], den[perm], den_index)
        prepared = StratifiedRatios(n, strata, num, den, den_index)
        for block in (10**9, 50, 7, 1):  # whole matrix, several rows per block, one row per block
            np.testing.assert_allclose(prepared.replicates(b, 11, block_draws=block), expect, rtol=1e-12,
                                       atol=0, equal_nan=True)


def test_pipelined_blocks_equal_the_one_thread_loop_bit_for_bit(monkeypatch):
    # two threads (draws here, counts and products in a worker) must give exactly the one-thread sums,
    # for halves (float32 products) and reals (float64), blocks of several rows and of one row
    from cap_core.bootstrap import StratifiedRatios, ratio_replicates, stratified_counts
    rng = np.random.default_rng(5)
    n, b = 41, 29
    strata = rng.integers(0, 3, size=n)
    for num in (rng.integers(0, 3, size=(n, 4)) / 2.0, rng.random((n, 4))):
        den = np.ones((n, 1))
        prepared = StratifiedRatios(n, strata, num, den, np.zeros(4, dtype=np.int64))
        counts, perm = stratified_counts(n, b, 2, strata)
        expect = ratio_replicates(counts, num[perm], den[perm], np.zeros(4, dtype=np.int64))
        for block in (60, 13):
            monkeypatch.setenv("CAP_THREADS", "1")
            one = prepared.replicates(b, 2, block_draws=block)
            monkeypatch.setenv("CAP_THREADS", "2")
            two = prepared.replicates(b, 2, block_draws=block)
            np.testing.assert_array_equal(one, two)
            np.testing.assert_allclose(two, expect, rtol=1e-12, atol=0)


def test_kept_statistics_give_the_profile_of_a_fresh_computation():
    # second call at another seed uses the kept per-base statistics; it must equal a cold computation
    from cap_core.profile.engine import clear_stats_cache
    rng = np.random.default_rng(4)
    gold = rng.choice(["A", "B"], size=30)
    ab, ba = _random_judge(rng, gold, 0.7)
    ds = _dataset("kept", gold, {"J": (ab, ba)})
    compute_profile(ds, n_resamples=100, seed=1)
    warm = compute_profile(ds, n_resamples=150, seed=2, level=0.9)
    clear_stats_cache()
    cold = compute_profile(Dataset.build(ds.items, ds.judgments), n_resamples=150, seed=2, level=0.9)
    assert warm.profile.equals(cold.profile)
    np.testing.assert_array_equal(warm.replicates, cold.replicates)
