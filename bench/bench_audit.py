"""Speed benchmark: full label-set surface audit of RewardBench vs. a naive loop.

Run: ``.venv/bin/python bench/bench_audit.py [--permutations 100] [--naive 3] [--lbfgs 10]``
(not part of the test suite; needs a local copy of the public data, ``--public-data``, default ``../shared``).

Ours: one :func:`cap_core.audit.surface.audit_label_set` call on RewardBench v1 (2,985 pairs):
three predictors x two modes x (1 observed + 100 permuted) label vectors x 5 group
folds, features computed once, all label vectors of a fold fitted together
(:mod:`cap_core.audit.fit`), two threads. Target (issue 13): <= 10 s on the 2-core machine.
Printed: wall and CPU seconds, the features' parts, and the time per predictor x mode.

Naive baseline, timed in the same run: the same audit, but every permutation recomputes
the features from the texts (hashing, TF-IDF, SVD, counts) and refits each fold with
scikit-learn's ``LogisticRegression`` (lbfgs, ``tol=1e-4``) one label vector at a time,
as a straightforward loop would. It is timed on ``--naive`` permutations and scaled to the
full count (stated as an extrapolation in the output). ``--lbfgs N`` also times the
previous implementation (features once, one scikit-learn lbfgs fit per fold and label
vector) on N label vectors per predictor x mode and extrapolates it to the full count.

Also printed: what compressing the hashed n-grams costs in paired accuracy, against a
logistic regression on the full sparse 2**14-bucket TF-IDF differences (observed labels).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import polars as pl
from scipy import sparse
from sklearn.feature_extraction.text import TfidfTransformer
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import result  # noqa: E402
from cap_core.audit import surface as A  # noqa: E402
from cap_core.audit.features import (  # noqa: E402
    NGRAM_DIMS,
    PREDICTORS,
    hashed_ngrams,
    length_features,
    ngram_features,
    numeric_surface_features,
    paired_design,
    unit_features,
)
from cap_core.audit.fit import oof_predict_many  # noqa: E402
from cap_core.importers.label_sets import load_label_set  # noqa: E402

LBFGS = dict(C=1.0, solver="lbfgs", max_iter=200, tol=1e-4)  # the learner before the batched solver


def lbfgs_oof(x, y, fold, intercept: bool) -> np.ndarray:
    """Out-of-fold predictions with one scikit-learn lbfgs fit per fold (the previous implementation)."""
    pred = np.empty_like(y)
    for f in range(fold.max() + 1):
        test = fold == f
        ytr = y[~test]
        if ytr.min() == ytr.max():
            pred[test] = ytr[0]
            continue
        pred[test] = LogisticRegression(fit_intercept=intercept, **LBFGS).fit(x[~test], ytr).predict(x[test])
    return pred


def _setup(ls, mode, n_perm, seed=0):
    u = A._units(ls, mode, np.random.default_rng(seed))
    codes = np.unique(u["groups"], return_inverse=True)[1]
    fold, _ = A._fold_ids(u["y"], codes, 5, seed, "group")
    perms, _ = A._null_labels(u["y"], codes, mode, n_perm, seed)
    return u, fold, np.column_stack([u["y"], *perms])


def breakdown(ls, texts, n_perm: int, n_lbfgs: int, seed: int = 0) -> None:
    """Print CPU seconds of each feature part and, per predictor x mode, of the batched fits (and lbfgs)."""
    with threadpool_limits(1):
        for label, fn in (("length", length_features), ("numeric counts", numeric_surface_features),
                          ("hashed n-grams", hashed_ngrams)):
            c = time.process_time()
            hashed = fn(texts)
            print(f"  features, {label}: {time.process_time() - c:.2f} s CPU")
        c = time.process_time()
        TfidfTransformer(sublinear_tf=True).fit_transform(hashed)
        print(f"  features, TF-IDF: {time.process_time() - c:.2f} s CPU")
        c = time.process_time()
        ngram_features(texts, seed=seed)
        print(f"  features, n-gram total (hashing + TF-IDF + SVD): {time.process_time() - c:.2f} s CPU")
        feats = unit_features(texts, seed=seed)
        for mode in A.MODES:
            c = time.process_time()
            u, fold, labels = _setup(ls, mode, n_perm, seed)
            print(f"  {mode}: units, folds and permutations {time.process_time() - c:.2f} s CPU")
            for name in PREDICTORS:
                x = paired_design(feats[name], u["left"], u["right"]) if mode == "paired" else feats[name]
                c = time.process_time()
                oof_predict_many(x, labels, fold, intercept=mode == "item")
                line = f"  {name}, {mode}: {x.shape[1]} columns, {labels.shape[1]} label vectors x {fold.max() + 1} " \
                       f"folds, batched fits {time.process_time() - c:.2f} s CPU"
                if n_lbfgs:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        c = time.process_time()
                        for k in range(n_lbfgs):
                            lbfgs_oof(x, labels[:, k], fold, mode == "item")
                        per = (time.process_time() - c) / n_lbfgs
                    line += f"; lbfgs one at a time {per * 1e3 / (fold.max() + 1):.1f} ms per fit, " \
                            f"{per * labels.shape[1]:.1f} s for all (extrapolated from {n_lbfgs})"
                print(line)


def naive_permutation_seconds(ls, n_naive: int, seed: int = 0) -> float:
    """Seconds per permutation when features are rebuilt for every permutation."""
    p = ls.pairs
    texts = [t for ab in zip(p["response_a"], p["response_b"]) for t in ab]
    t0 = time.perf_counter()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for mode in A.MODES:
            u, fold, labels = _setup(ls, mode, n_naive, seed)
            for yp in labels[:, 1:].T:
                feats = unit_features(texts, seed=seed)  # recomputed every time: the naive part
                for name in PREDICTORS:
                    x = paired_design(feats[name], u["left"], u["right"]) if mode == "paired" else feats[name]
                    lbfgs_oof(x, yp, fold, mode == "item")
    return (time.perf_counter() - t0) / n_naive


def sparse_paired_accuracy(ls, seed: int = 0) -> float:
    """Paired accuracy (percent) of LR on full sparse TF-IDF n-gram differences, same folds."""
    p = ls.pairs
    texts = [t for ab in zip(p["response_a"], p["response_b"]) for t in ab]
    x_all = TfidfTransformer(sublinear_tf=True).fit_transform(hashed_ngrams(texts)).tocsr()
    u = A._units(ls, "paired", np.random.default_rng(seed))
    codes = np.unique(u["groups"], return_inverse=True)[1]
    fold, _ = A._fold_ids(u["y"], codes, 5, seed, "group")
    x = sparse.csr_matrix(x_all[u["left"]] - x_all[u["right"]])
    pred = np.empty_like(u["y"])
    for f in range(fold.max() + 1):
        te = fold == f
        pred[te] = LogisticRegression(fit_intercept=False, solver="liblinear").fit(x[~te], u["y"][~te]).predict(x[te])
    return 100.0 * float(np.mean(pred == u["y"]))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--permutations", type=int, default=100)
    ap.add_argument("--naive", type=int, default=2, help="permutations timed for the naive baseline")
    ap.add_argument("--quick", action="store_true", help="skip the sparse-LR comparison")
    ap.add_argument("--lbfgs", type=int, default=0, help="label vectors per predictor x mode timed with the "
                    "previous one-fit-at-a-time lbfgs learner (0: skip the breakdown)")
    ap.add_argument("--threads", type=int, default=2, help="worker threads of the audit")
    ap.add_argument("--public-data", type=Path, default=Path(__file__).resolve().parents[2] / "shared",
                    help="local copy of the public data (default: ../shared beside the repository)")
    args = ap.parse_args()
    ls = load_label_set("RewardBench", public_data=args.public_data)
    print(f"RewardBench: {ls.pairs.height:,} pairs, {ls.pairs['group'].n_unique():,} prompt groups")

    texts = [t for ab in zip(ls.pairs["response_a"], ls.pairs["response_b"]) for t in ab]
    t = time.perf_counter()
    with threadpool_limits(1):
        unit_features(texts)
    feat_s = time.perf_counter() - t
    t, c = time.perf_counter(), time.process_time()
    res = A.audit_label_set(ls, n_permutations=args.permutations, seed=0, threads=args.threads)
    ours, ours_cpu = time.perf_counter() - t, time.process_time() - c
    print(f"features once: {feat_s:.1f} s")
    print(f"full audit (3 predictors x 2 modes x {args.permutations} permutations, 5 group folds, "
          f"{args.threads} thread(s)): {ours:.1f} s wall, {ours_cpu:.1f} s CPU")
    if args.lbfgs:
        breakdown(ls, texts, args.permutations, args.lbfgs)
    with pl.Config(tbl_cols=20, tbl_width_chars=200, float_precision=3):
        print(res.table.select("predictor", "mode", "n_units", "accuracy", "kappa", "null_p95", "p_value",
                               "clears_null"))

    per_perm = naive_permutation_seconds(ls, args.naive)
    naive_total = per_perm * (args.permutations + 1)
    print(f"naive baseline: {per_perm:.1f} s per permutation (measured on {args.naive}); "
          f"extrapolated to {args.permutations + 1} label vectors: {naive_total:.0f} s")
    print(f"speed-up vs naive: {naive_total / ours:.1f}x")
    result(f"full RewardBench label audit (3 predictors x 2 modes x {args.permutations} permutations)", ours, "s",
           "<= 10 s", ours <= 10, baseline=naive_total, ratio=naive_total / ours,
           note=f"baseline: features rebuilt per permutation, extrapolated from {args.naive}")
    if args.quick:
        return

    t = time.perf_counter()
    acc = sparse_paired_accuracy(ls)
    ngram = res.table.filter((pl.col("predictor") == "surface_ngram") & (pl.col("mode") == "paired"))["accuracy"][0]
    print(f"surface_ngram paired accuracy: SVD-{NGRAM_DIMS} dense {ngram:.1f}% vs full sparse "
          f"{acc:.1f}% ({time.perf_counter() - t:.1f} s for the sparse fits, observed labels only)")


if __name__ == "__main__":
    main()
