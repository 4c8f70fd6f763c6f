"""Speed benchmark: full CAP profile at paper scale vs. a naive per-cell scipy bootstrap.

Run: ``.venv/bin/python bench/bench_profile.py [--quick]`` (not part of the test suite;
``--quick`` times only, without the interval comparisons).

Data: :mod:`bench.synth` (7 judges; judgerEva-like 2,092 base items x 3 variants x 2
orders, plus five external-sized benchmarks; ~129k verdicts). Our side: one
:func:`cap_core.profile.conditions.compute_profile` call with 1,000 resamples (median of 3
runs, after one warm-up), twice: *warm*, the sufficient statistics of the dataset already
kept (:mod:`cap_core.profile.engine`; what a second profile at another seed or level
costs), and *cold*, statistics recomputed (new fingerprint, cache cleared). Baseline: ``scipy.stats.bootstrap(method="percentile",
n_resamples=1000)`` of the mean, once per judge x benchmark x condition-metric cell,
on that cell's per-unit values (units with an empty denominator dropped, i.e. the unit
means of ratio cells). Ours resamples base items within strata defined by native subset
and failure type (and the presentation variants a base item has), shared across judges
and conditions, so every cell except C8 keeps a fixed size per resample like the
baseline; C8 (denominator = correct, evaluated items) is reported separately. A second
scipy run with another seed gives the Monte Carlo noise floor of the comparison. Only the scipy calls are timed for the baseline, which favours
the baseline. Targets: warm <= 0.1 s and >= 50x the baseline (issue 13); cold >= 50x (issue 22).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import best_of, result  # noqa: E402
from bench.synth import make_dataset  # noqa: E402
from cap_core.profile.conditions import compute_profile  # noqa: E402
from cap_core.profile.coverage import plan_benchmark  # noqa: E402
from cap_core.profile.engine import clear_stats_cache  # noqa: E402
from cap_core.profile.units import Cells, add_cells, load_units, prepare  # noqa: E402


def unit_vectors(ds):
    """{(judge, benchmark, condition, metric): per-unit values} for every ratio cell."""
    out = {}
    items, coded = prepare(ds, ds.judges)
    for bench in ds.benchmarks:
        u, judges, orders = load_units(items[(bench,)], coded[(bench,)], ds.judges)
        cells = Cells(len(judges), u.n_base, keep_units=True)
        add_cells(cells, u, plan_benchmark(ds, bench), orders, ["all"], bench)
        for key, (_, num, den) in cells.units.items():
            for j, judge in enumerate(judges):
                keep = den[j] > 0
                out[(judge, bench, key[0], key[1])] = num[j][keep] / den[j][keep]
    return out


def scipy_baseline(vecs, seed=0):
    """Seconds and CIs (points) of one scipy.stats.bootstrap per cell."""
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    base = {}
    for key, x in vecs.items():
        if x.size < 2:
            continue
        ci = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=1000, rng=rng).confidence_interval
        base[key] = (100 * ci.low, 100 * ci.high)
    return time.perf_counter() - t, base


def main() -> None:
    quick = "--quick" in sys.argv
    t0 = time.perf_counter()
    ds = make_dataset()
    print(f"synthetic data: {ds.judgments.height:,} verdicts, {ds.items.height:,} items, "
          f"{len(ds.judges)} judges, {len(ds.benchmarks)} benchmarks (built in {time.perf_counter() - t0:.2f} s)")
    compute_profile(ds, n_resamples=1000, seed=0)  # warm-up
    vecs = unit_vectors(ds)
    seeds = iter(range(1, 1000))
    # interleave ours and the baseline so that load from other users hits both alike
    warm_runs, cold_runs, naive_runs = [], [], []
    for _ in range(5):
        warm_runs.append(best_of(lambda: compute_profile(ds, n_resamples=1000, seed=next(seeds)), 3)[0])

        def cold():
            clear_stats_cache()
            ds._memo.clear()
            compute_profile(ds, n_resamples=1000, seed=next(seeds))
        cold_runs.append(best_of(cold, 1)[0])
        naive_runs.append(scipy_baseline(vecs)[0])
    res = compute_profile(ds, n_resamples=1000, seed=0)
    ours, cold_s, naive = (float(np.median(x)) for x in (warm_runs, cold_runs, naive_runs))
    prof = res.profile
    print(f"compute_profile, 1000 resamples, {prof.height} rows: warm (statistics kept) "
          f"{', '.join(f'{x:.3f}' for x in warm_runs)} s, median {ours:.3f} s; cold (statistics recomputed) "
          f"median {cold_s:.3f} s")
    _, base = scipy_baseline(vecs)
    print(f"naive scipy.stats.bootstrap per cell: {len(base)} cells, {', '.join(f'{x:.2f}' for x in naive_runs)} s")
    print(f"speed-up: warm {naive / ours:.1f}x, cold {naive / cold_s:.1f}x")
    result("profile, statistics recomputed (cold), 129k verdicts, 1,000 resamples", cold_s, "s",
           ">= 50x the scipy baseline", naive / cold_s >= 50, baseline=naive, ratio=naive / cold_s,
           baseline_label="scipy.stats.bootstrap per cell",
           note=f"ratio = baseline / ours (speed-up), medians of 3 interleaved runs; warm {ours:.3f} s")
    result("profile, statistics kept (warm), 129k verdicts, 1,000 resamples", ours, "s",
           "<= 0.1 s and >= 50x the scipy baseline", ours <= 0.1 and naive / ours >= 50, baseline=naive,
           ratio=naive / ours, baseline_label="scipy.stats.bootstrap per cell",
           note="ratio = baseline / ours (speed-up)")
    if quick:
        return
    diffs = []
    for r in prof.filter(pl.col("subset") == "all").iter_rows(named=True):
        key = (r["judge"], r["benchmark"], r["condition"], r["metric"])
        if key in base and r["ci_low"] is not None:
            diffs.append((max(abs(r["ci_low"] - base[key][0]), abs(r["ci_high"] - base[key][1])), key, r["n_items"]))
    diffs.sort(reverse=True)
    # Noise floor: the same per-cell scipy bootstrap run again with another seed.
    rng2 = np.random.default_rng(1)
    floor = []
    for key, (lo, hi) in base.items():
        ci = stats.bootstrap((vecs[key],), np.mean, method="percentile", n_resamples=1000, rng=rng2).confidence_interval
        floor.append((key[2] == "C8", max(abs(100 * ci.low - lo), abs(100 * ci.high - hi))))
    for label, is_c8 in (("cells other than C8", False), ("C8 cells", True)):
        arr = np.array([d for d, key, _ in diffs if (key[2] == "C8") == is_c8])
        fl = np.array([d for c8, d in floor if c8 == is_c8])
        print(f"CI bounds vs baseline, {label} ({arr.size}): max |diff| {arr.max():.2f} points, median "
              f"{np.median(arr):.2f}, 95th pct {np.percentile(arr, 95):.2f}, over 0.5 points: {(arr > 0.5).sum()}"
              f"  | scipy vs scipy (seed 0 vs 1): max {fl.max():.2f}, median {np.median(fl):.2f}, "
              f"over 0.5: {(fl > 0.5).sum()}")
    print("  C8's denominator (AB-correct, evaluated items) varies between resamples of base items; the per-cell")
    print("  baseline resamples only those items, i.e. it is conditional on which items are correct, so a")
    print("  wider CI than the baseline is expected there.")
    print("largest differences (points, cell, n units):")
    for d, key, n in diffs[:5]:
        print(f"  {d:.2f}  {key}  n={n}")
    # Monte Carlo check: with 10x more resamples on the external benchmarks both methods
    # should move closer, showing that the B=1000 gaps are resampling noise.
    small = [b for b in ds.benchmarks if b != "judgereva"]
    big_b = 10000
    rng = np.random.default_rng(2)
    hi = compute_profile(ds, n_resamples=big_b, seed=1, benchmarks=small).profile
    hd, hk = [], []
    for r in hi.filter(pl.col("subset") == "all").iter_rows(named=True):
        key = (r["judge"], r["benchmark"], r["condition"], r["metric"])
        x = vecs.get(key)
        if x is None or x.size < 2 or r["ci_low"] is None:
            continue
        ci = stats.bootstrap((x,), np.mean, method="percentile", n_resamples=big_b, rng=rng).confidence_interval
        hd.append(max(abs(r["ci_low"] - 100 * ci.low), abs(r["ci_high"] - 100 * ci.high)))
        hk.append(key[2])
    lo_b = [d for d, key, _ in diffs if key[1] != "judgereva"]
    print(f"external benchmarks only ({len(hd)} cells): max |diff| {max(lo_b):.2f} points at B=1000 -> "
          f"{max(hd):.2f} at B={big_b}; cells over 0.5 points: {sum(d > 0.5 for d in lo_b)} -> "
          f"{sum(d > 0.5 for d in hd)}")
    print("  conditions of the cells still over 0.5 points at B=%d: %s" % (big_b, sorted(set(c for c, d in zip(hk, hd) if d > 0.5))))


if __name__ == "__main__":
    main()
