"""Label-set surface audit: how much of a label set do surface features alone recover?

Protocol (after Validity, Definition 6, Table 7 and Table 9; see
:mod:`cap_core.audit.features` for the three predictors):

- **Per-item mode** (``"item"``): each response is a unit, labelled 1 if it is the better
  (chosen) response of its pair and 0 otherwise; a predictor sees that one response.
  Scored by Cohen's kappa (primary) and accuracy.
- **Paired mode** (``"paired"``): each pair is a unit; its two responses are put on the
  left / right in a seeded random order and the predictor sees both feature rows and
  says whether the left one is better, through the difference of the two rows and no
  intercept (the form side-swap symmetry allows). Scored by accuracy (chance 50%,
  primary) and kappa.
- **Ties** (pairs labelled ``"tie"``) are left out of both modes and counted in ``n_ties``.
- **Group-aware folds**: ``StratifiedGroupKFold`` on the pair's group (its prompt /
  source; :func:`stratified_group_folds`, the same assignment), so no group is in training and test; both responses of a pair, and all
  pairs of one prompt, stay together. Folds are drawn once and reused.
- **Permutation null**: labels are permuted within groups (per-item mode) or the two
  roles of each pair are swapped by a fair coin (paired mode: the within-pair case of
  the same idea), the predictor is refitted on every fold, and the primary metric is
  recorded. ``p = (1 + #{null >= observed}) / (1 + n_permutations)``; a row clears its
  null when ``p <= alpha``.

Every learner is an L2-regularised logistic regression (``C = 1``; an unpenalised
intercept in per-item mode, none in paired mode), the model of scikit-learn's
``LogisticRegression``, fitted to convergence (gradient tolerance 1e-10) by
:func:`cap_core.audit.fit.oof_predict_many`, which solves the observed and all permuted
label vectors of one fold together. (Before, each fit was scikit-learn's lbfgs at
``tol=1e-4``, one label vector at a time: about 50 s for RewardBench. That tolerance
stops the null refits, whose coefficients are near zero, early enough that some of
their predictions depended on where lbfgs stopped; the converged fits moved the shipped
figures of the public sets by at most 1.25 accuracy points or 0.025 kappa on the
observed labels, and no verdict.)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from cap_core.audit.features import PREDICTORS, paired_design, unit_features
from cap_core.audit.fit import oof_predict_many
from cap_core.audit.groups import variant_group_notice
from cap_core.audit.label_set import LabelSet
from cap_core.errors import CAPInputError

__all__ = ["AuditResult", "AUDIT_SCHEMA", "MODES", "audit_label_set", "audit_label_sets", "permute_within",
           "stratified_group_folds", "accuracy_columns", "kappa_columns", "estimate_seconds"]

MODES: tuple[str, ...] = ("paired", "item")
#: Columns of :attr:`AuditResult.table`. accuracy and (paired) score / null in PERCENT;
#: kappa and (item) score / null as a coefficient in [-1, 1].
AUDIT_SCHEMA: dict[str, pl.DataType] = {
    "label_set": pl.String, "predictor": pl.String, "mode": pl.String, "n_units": pl.Int64,
    "n_ties": pl.Int64, "n_groups": pl.Int64, "accuracy": pl.Float64, "kappa": pl.Float64,
    "metric": pl.String, "score": pl.Float64, "null_mean": pl.Float64, "null_p95": pl.Float64,
    "p_value": pl.Float64, "clears_null": pl.Boolean, "verdict": pl.String, "n_permutations": pl.Int64,
    "null_scheme": pl.String, "folds": pl.String, "seed": pl.Int64,
}
PRED_SCHEMA: dict[str, pl.DataType] = {
    "label_set": pl.String, "predictor": pl.String, "mode": pl.String, "unit_id": pl.String,
    "pair_id": pl.String, "subset": pl.String, "label": pl.Int8, "predicted": pl.Int8, "correct": pl.Boolean,
    "chars": pl.Int64, "chars_other": pl.Int64, "fold": pl.Int64,
}
#: Inverse L2 penalty of every learner (scikit-learn's ``C``).
C = 1.0


@dataclass(frozen=True)
class AuditResult:
    """Audit of one or more label sets.

    Attributes
    ----------
    table : polars.DataFrame
        One row per label set x predictor x mode, columns :data:`AUDIT_SCHEMA`.
    predictions : polars.DataFrame
        Out-of-fold predictions on the observed labels, one row per unit, columns
        :data:`PRED_SCHEMA`. ``chars`` is the unit's length in characters (paired mode:
        the left response) and ``chars_other`` the other response's length (paired:
        right; item: the pair partner, null for single responses).
    notices : tuple of str
        Warnings about the audit's groups (:func:`cap_core.audit.groups.variant_group_notice`).
    """

    table: pl.DataFrame
    predictions: pl.DataFrame
    notices: tuple[str, ...] = field(default=())


def permute_within(y: np.ndarray, blocks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Shuffle ``y`` independently inside each block (units with equal ``blocks`` code).

    Parameters
    ----------
    y : ndarray, shape (n,)
    blocks : ndarray of int, shape (n,)
    rng : numpy.random.Generator

    Returns
    -------
    ndarray, shape (n,): same multiset of labels inside every block.
    """
    home = np.lexsort((np.arange(y.size), blocks))
    shuffled = np.lexsort((rng.random(y.size), blocks))
    out = np.empty_like(y)
    out[home] = y[shuffled]
    return out


def stratified_group_folds(y: np.ndarray, groups: np.ndarray, n_splits: int, seed: int) -> np.ndarray:
    """Fold of each unit under scikit-learn's ``StratifiedGroupKFold(n_splits, shuffle=True, random_state=seed)``.

    The same assignment as iterating that splitter's ``split(y, y, groups)`` (checked
    against it in ``tests/cap_core/audit/test_surface.py``), by the same greedy rule:
    groups shuffled by ``RandomState(seed)``, taken in order of decreasing spread of
    their class counts, each put in the fold that keeps the mean (over classes) standard
    deviation of the folds' class shares smallest, ties (``numpy.isclose``) going to the
    fold with fewer units. scikit-learn scores the candidate folds of each group with
    separate small numpy calls (about 1.5 s for RewardBench's 2,733 groups); here the
    candidates of a group are scored in one call, with the same floating-point steps.

    Parameters
    ----------
    y : ndarray of int, shape (n,)
    groups : ndarray of int, shape (n,)
        Group codes.
    n_splits : int
    seed : int

    Returns
    -------
    ndarray of int64, shape (n,): fold 0 .. n_splits - 1 of each unit.
    """
    rng = np.random.RandomState(seed)
    _, y_inv, y_cnt = np.unique(y, return_inverse=True, return_counts=True)
    _, g_inv, g_cnt = np.unique(groups, return_inverse=True, return_counts=True)
    y_inv, g_inv = y_inv.ravel(), g_inv.ravel()
    per_group = np.zeros((g_cnt.size, y_cnt.size))
    np.add.at(per_group, (g_inv, y_inv), 1)
    perm = np.arange(g_cnt.size)
    rng.shuffle(perm)
    per_group = per_group[perm]
    inv_perm = np.empty_like(perm)
    inv_perm[perm] = np.arange(perm.size)
    g_inv = inv_perm[g_inv]
    order = np.argsort(-np.std(per_group, axis=1), kind="stable")
    per_fold = np.zeros((n_splits, y_cnt.size))
    add = np.eye(n_splits)[:, :, None]  # candidate i adds the group to fold i
    fold_of_group = np.empty(g_cnt.size, dtype=np.int64)
    for g in order:
        evals = np.std((per_fold[None] + add * per_group[g]) / y_cnt, axis=1).mean(axis=1).tolist()
        sizes = per_fold.sum(axis=1).tolist()
        best, best_eval, best_size = 0, np.inf, np.inf
        for i, (e, size) in enumerate(zip(evals, sizes)):
            close = best_eval != np.inf and abs(e - best_eval) <= 1e-08 + 1e-05 * abs(best_eval)
            if e < best_eval or (close and size < best_size):
                best, best_eval, best_size = i, e, size
        per_fold[best] += per_group[g]
        fold_of_group[g] = best
    return fold_of_group[g_inv]


def _fold_ids(y, groups, n_splits, seed, scheme) -> tuple[np.ndarray, str]:
    n_groups = np.unique(groups).size
    k = min(n_splits, n_groups if scheme == "group" else y.size, int(np.bincount(y, minlength=2).min()))
    if k < 2:
        raise CAPInputError("too few groups or labels for cross-validation", expected="at least 2 groups and "
                            "2 units of each class", got=f"{n_groups} groups, class counts {np.bincount(y).tolist()}",
                            fix="audit a larger label set")
    if scheme == "group":
        fold = stratified_group_folds(y, groups, k, seed)
    else:
        fold = np.empty(y.size, dtype=np.int64)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            for f, (_, test) in enumerate(StratifiedKFold(k, shuffle=True, random_state=seed).split(y, y)):
                fold[test] = f
    name = f"StratifiedGroupKFold({k}) on group" if scheme == "group" else f"StratifiedKFold({k}) on rows (leaky)"
    return fold, name


def accuracy_columns(Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Accuracy in percent of each column of predictions ``P`` (n, K) against labels ``Y`` (n, K)."""
    return 100.0 * np.mean(Y == P, axis=0)


def kappa_columns(Y: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Cohen's kappa of each column of 0/1 predictions ``P`` (n, K) against 0/1 labels ``Y`` (n, K).

    The arithmetic of ``sklearn.metrics.cohen_kappa_score`` for two classes (1 minus
    observed over chance-expected disagreement), column by column; where it is undefined
    (labels and predictions all of one class) the value is 0 (no agreement beyond chance).
    """
    Y, P = np.asarray(Y, dtype=np.int64), np.asarray(P, dtype=np.int64)
    n = Y.shape[0]
    y1, p1 = Y.sum(axis=0), P.sum(axis=0)
    disagree = ((Y == 1) & (P == 0)).sum(axis=0) + ((Y == 0) & (P == 1)).sum(axis=0)
    expected = ((n - p1) * y1).astype(np.float64) / n + (p1 * (n - y1)).astype(np.float64) / n
    with np.errstate(divide="ignore", invalid="ignore"):
        k = 1.0 - disagree / expected
    return np.where(np.isnan(k), 0.0, k)


def _units(ls: LabelSet, mode: str, rng) -> dict:
    """Index arrays of one mode over the stacked response list [a_0, b_0, a_1, b_1, ..., singles]."""
    p = ls.pairs.filter(pl.col("label") != "tie")
    n = p.height
    a_better = (p["label"] == "A").to_numpy()
    if mode == "paired":
        flip = rng.random(n) < 0.5
        left = 2 * np.arange(n) + flip
        y = (a_better ^ flip).astype(np.int64)
        return dict(left=left, right=left ^ 1, y=y, groups=p["group"].to_numpy(), ids=p["pair_id"].to_numpy(),
                    pair_ids=p["pair_id"].to_numpy(), subsets=p["subset"].to_numpy())
    s = ls.singles
    y = np.concatenate([np.column_stack([a_better, ~a_better]).ravel().astype(np.int64), s["label"].to_numpy()])
    ids = np.concatenate([np.column_stack([p["pair_id"] + ":a", p["pair_id"] + ":b"]).ravel(), s["unit_id"]])
    pair_ids = np.concatenate([np.repeat(p["pair_id"].to_numpy(), 2), np.full(s.height, None)])
    return dict(y=y, groups=np.concatenate([np.repeat(p["group"].to_numpy(), 2), s["group"].to_numpy()]), ids=ids,
                pair_ids=pair_ids, subsets=np.concatenate([np.repeat(p["subset"].to_numpy(), 2), s["subset"]]))


def _audit_iv(ls, predictors, modes, n_permutations, seed, n_splits, folds, alpha):
    if not isinstance(ls, LabelSet):
        raise CAPInputError("audit needs a LabelSet", got=type(ls).__name__,
                            fix="load it with cap_core.importers.label_sets.load_label_set")
    bad = [p for p in predictors if p not in PREDICTORS]
    if bad or not predictors:
        raise CAPInputError("unknown predictor", expected=", ".join(PREDICTORS), got=bad or predictors)
    bad = [m for m in modes if m not in MODES]
    if bad or not modes:
        raise CAPInputError("unknown audit mode", expected="paired and/or item", got=bad or modes)
    if "paired" in modes and ls.pairs.filter(pl.col("label") != "tie").height == 0:
        raise CAPInputError("paired mode needs pairs", file=ls.source, expected="response_a/response_b columns",
                            fix="use --mode item for single labelled responses")
    for name, val, lo in (("n_permutations", n_permutations, 0), ("seed", seed, 0), ("n_splits", n_splits, 2)):
        if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < lo:
            raise CAPInputError(f"{name} must be an integer >= {lo}", got=val)
    if folds not in ("group", "row"):
        raise CAPInputError("unknown fold scheme", expected="group (default) or row", got=folds)
    if not 0 < alpha < 1:
        raise CAPInputError("alpha must lie strictly between 0 and 1", got=alpha)


#: Rough CPU seconds on the 2-core reference machine (RewardBench, ``bench/bench_audit.py``): per character
#: of response text for the features, and per unit x label vector for each predictor's refits.
_SECONDS_PER_CHAR = {"length_only": 0.0, "numeric_surface": 1.5e-7, "surface_ngram": 1.1e-6}
_SECONDS_PER_UNIT_VECTOR = {"length_only": 5e-7, "numeric_surface": 1.2e-6, "surface_ngram": 2.2e-6}


def _plan(ls: LabelSet, predictors, modes, n_permutations) -> list[tuple[str, float]]:
    """The audit's steps with their estimated seconds: each predictor's features, then each predictor x mode."""
    p = ls.pairs.filter(pl.col("label") != "tie")
    chars = sum(int(p[c].str.len_chars().sum() or 0) for c in ("response_a", "response_b"))
    chars += int(ls.singles["response"].str.len_chars().sum() or 0)
    steps = [(f"{name} features", 0.02 + chars * _SECONDS_PER_CHAR[name]) for name in predictors]
    for mode in modes:
        units = p.height if mode == "paired" else 2 * p.height + ls.singles.height
        steps += [(f"{name}, {mode} mode", 0.01 + units * (n_permutations + 1) * _SECONDS_PER_UNIT_VECTOR[name])
                  for name in predictors]
    return steps


def estimate_seconds(ls: LabelSet, *, predictors=PREDICTORS, modes=None, n_permutations: int = 100) -> float:
    """Rough wall-clock seconds :func:`audit_label_set` takes on ``ls`` (same arguments).

    A cost model calibrated on RewardBench (``bench/bench_audit.py``) on a two-core
    machine: proportional to the characters of response text (features) and to units x
    (1 + permutations) per predictor (refits). Meant for progress messages, not a promise;
    a busy or slower machine takes longer.
    """
    if modes is None:
        modes = MODES if ls.pairs.filter(pl.col("label") != "tie").height else ("item",)
    return float(sum(w for _, w in _plan(ls, tuple(predictors), tuple(modes), n_permutations)))


def audit_label_set(ls: LabelSet, *, predictors=PREDICTORS, modes=None, n_permutations: int = 100, seed: int = 0,
                    n_splits: int = 5, folds: str = "group", alpha: float = 0.05,
                    progress: Callable[[float, str], None] | None = None, threads: int = 2) -> AuditResult:
    """Audit one label set with every predictor in every mode.

    Parameters
    ----------
    ls : LabelSet
        From :func:`cap_core.importers.label_sets.load_label_set` or the user-file reader.
    predictors : sequence of str
        Subset of :data:`cap_core.audit.features.PREDICTORS`.
    modes : sequence of str, optional
        Subset of :data:`MODES`; default: both when the set has pairs, else ``("item",)``.
    n_permutations : int, default 100
        Label permutations for the null (0 skips the null; its columns are then null).
    seed : int, default 0
        Seeds side order, folds, the SVD and the permutations.
    n_splits : int, default 5
        Cross-validation folds (fewer if the set has fewer groups or minority units).
    folds : {"group", "row"}
        ``"group"`` (the protocol); ``"row"`` ignores groups and exists only to show
        how much row-level folds inflate a leaky set.
    alpha : float, default 0.05
        A row clears its null when ``p_value <= alpha``.
    progress : callable, optional
        Called from the calling thread as ``progress(fraction_done, steps_running)``
        when the audit starts and whenever a step (the features, then each predictor x
        mode) finishes, and as ``progress(1.0, "done")`` at the end; ``fraction_done``
        (0-1) weighs the steps by :func:`estimate_seconds`' cost model.
    threads : int, default 2
        Worker threads (the machine's two cores; numpy and BLAS release the GIL in the
        heavy parts). The result does not depend on it.

    Returns
    -------
    AuditResult

    Raises
    ------
    CAPInputError
        Bad arguments, paired mode without pairs, or too few groups / labels to fold.
    """
    if modes is None:
        modes = MODES if ls.pairs.filter(pl.col("label") != "tie").height else ("item",)
    predictors, modes = tuple(predictors), tuple(modes)
    _audit_iv(ls, predictors, modes, n_permutations, seed, n_splits, folds, alpha)
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise CAPInputError("threads must be an integer >= 1", argument="threads", got=threads)
    plan = dict(_plan(ls, predictors, modes, n_permutations))
    total = sum(plan.values())
    p = ls.pairs.filter(pl.col("label") != "tie")
    texts = [t for ab in zip(p["response_a"], p["response_b"]) for t in ab] + ls.singles["response"].to_list()
    chars = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    # the n-gram features (hashing, TF-IDF, SVD) are the slowest step: started first, so that another thread
    # computes the other features and fits their models meanwhile; the n-gram fits are queued last
    order = sorted(predictors, key=lambda name: name != "surface_ngram")
    out: dict[tuple[str, str], tuple] = {}
    with threadpool_limits(1), ThreadPoolExecutor(max_workers=threads) as pool:
        feats = {name: pool.submit(unit_features, texts, seed=seed, predictors=(name,)) for name in order}
        setups = {mode: _mode_setup(ls, mode, n_splits, n_permutations, seed, folds) for mode in modes}
        jobs = {pool.submit(_fit_one, ls, name, mode, feats[name], setups[mode], alpha, seed, chars): (name, mode)
                for name in sorted(predictors, key=lambda name: name == "surface_ngram") for mode in modes}
        jobs.update({job: (name, "features") for name, job in feats.items()})
        pending, done = set(jobs), 0.0
        while pending:
            if progress is not None:
                progress(min(1.0, done / total), "; ".join(sorted(_step_name(*jobs[j]) for j in pending)))
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for job in finished:
                name, mode = jobs[job]
                out[(name, mode)] = job.result()
                done += plan[_step_name(name, mode)]
    if progress is not None:
        progress(1.0, "done")
    rows = [out[(name, mode)][0] for mode in modes for name in predictors]
    preds = [out[(name, mode)][1] for mode in modes for name in predictors]
    note = variant_group_notice(ls.name, p["group"].to_list() + ls.singles["group"].to_list())
    return AuditResult(pl.DataFrame(rows, schema=AUDIT_SCHEMA, orient="row"), pl.concat(preds),
                       () if note is None else (note,))


def _step_name(name: str, mode: str) -> str:
    return f"{name} features" if mode == "features" else f"{name}, {mode} mode"


def _mode_setup(ls, mode, n_splits, n_permutations, seed, folds) -> dict:
    """Units, folds and all label vectors (observed first, then the permuted ones) of one mode."""
    u = _units(ls, mode, np.random.default_rng(seed))
    codes = np.unique(u["groups"], return_inverse=True)[1]
    fold, fold_name = _fold_ids(u["y"], codes, n_splits, seed, folds)
    perms, scheme = _null_labels(u["y"], codes, mode, n_permutations, seed)
    return dict(u=u, codes=codes, fold=fold, fold_name=fold_name, scheme=scheme,
                labels=np.column_stack([u["y"], *perms]))


def _fit_one(ls, name, mode, feat_job, setup, alpha, seed, chars) -> tuple:
    """One predictor x mode: out-of-fold predictions for every label vector, its table row and predictions."""
    u, labels, fold = setup["u"], setup["labels"], setup["fold"]
    y = u["y"]
    feat = feat_job.result()[name]
    x = paired_design(feat, u["left"], u["right"]) if mode == "paired" else feat[: y.size]
    pred_all = oof_predict_many(x, labels, fold, intercept=mode == "item", C=C)
    acc_all, kap_all = accuracy_columns(labels, pred_all), kappa_columns(labels, pred_all)
    scores = acc_all if mode == "paired" else kap_all
    row = _row(ls, name, mode, y, setup["codes"], float(acc_all[0]), float(kap_all[0]), float(scores[0]), scores[1:],
               alpha, setup["scheme"], setup["fold_name"], seed)
    return row, _pred_frame(ls.name, name, mode, u, y, pred_all[:, 0], fold, chars)


def _null_labels(y, codes, mode, n_perm, seed) -> tuple[list[np.ndarray], str]:
    rng = np.random.default_rng([seed, 1])
    if mode == "paired":
        return [y ^ (rng.random(y.size) < 0.5) for _ in range(n_perm)], "pair roles swapped at random"
    mixed = np.bincount(codes, weights=y, minlength=codes.max() + 1) % np.bincount(codes) != 0
    if not mixed.any():  # no group holds both labels: permuting inside groups would change nothing
        blocks, scheme = np.zeros_like(codes), "permuted across all units (no group holds both labels)"
    else:
        blocks, scheme = codes, "permuted within groups"
    return [permute_within(y, blocks, rng) for _ in range(n_perm)], scheme


def _row(ls, name, mode, y, codes, acc, kap, score, null, alpha, scheme, fold_name, seed) -> tuple:
    if null.size:
        p = (1 + int((null >= score - 1e-12).sum())) / (1 + null.size)
        clears = bool(p <= alpha)
        stats = (float(null.mean()), float(np.percentile(null, 95)), p, clears)
        verdict = "recoverable from surface" if clears else "not above its null"
    else:
        stats, verdict, scheme = (None, None, None, None), "no null computed", "none"
    return (ls.name, name, mode, int(y.size), ls.n_ties, int(codes.max() + 1), acc, kap,
            "accuracy" if mode == "paired" else "kappa", score, *stats, verdict, int(null.size), scheme,
            fold_name, seed)


def _pred_frame(set_name, name, mode, u, y, pred, fold, chars) -> pl.DataFrame:
    n = y.size
    if mode == "paired":
        own, other = chars[u["left"]], chars[u["right"]]
    else:
        idx = np.arange(n)
        own = chars[:n]
        n_pair_units = int(np.sum(u["pair_ids"] != None))  # noqa: E711 - object array
        other = np.where(idx < n_pair_units, chars[np.minimum(idx ^ 1, len(chars) - 1)], -1)
    return pl.DataFrame({
        "label_set": [set_name] * n, "predictor": [name] * n, "mode": [mode] * n, "unit_id": u["ids"].astype(str),
        "pair_id": u["pair_ids"], "subset": u["subsets"].astype(str), "label": y, "predicted": pred,
        "correct": y == pred, "chars": own, "chars_other": other, "fold": fold,
    }, schema=PRED_SCHEMA).with_columns(pl.col("chars_other").replace(-1, None))


def audit_label_sets(label_sets, **kwargs) -> AuditResult:
    """Audit several label sets (same keyword arguments as :func:`audit_label_set`) and stack the results."""
    if not label_sets:
        raise CAPInputError("no label sets to audit", fix="pass at least one label set")
    parts = [audit_label_set(ls, **kwargs) for ls in label_sets]
    return AuditResult(pl.concat([r.table for r in parts]), pl.concat([r.predictions for r in parts]),
                       tuple(n for r in parts for n in r.notices))
