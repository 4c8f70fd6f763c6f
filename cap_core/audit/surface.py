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
  source), so no group is in training and test; both responses of a pair, and all
  pairs of one prompt, stay together. Folds are drawn once and reused.
- **Permutation null**: labels are permuted within groups (per-item mode) or the two
  roles of each pair are swapped by a fair coin (paired mode: the within-pair case of
  the same idea), the predictor is refitted on every fold, and the primary metric is
  recorded. ``p = (1 + #{null >= observed}) / (1 + n_permutations)``; a row clears its
  null when ``p <= alpha``.

Every learner is scikit-learn's L2-regularised ``LogisticRegression`` (lbfgs).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, cohen_kappa_score
from sklearn.model_selection import StratifiedGroupKFold, StratifiedKFold
from threadpoolctl import threadpool_limits

from cap_core.audit.features import PREDICTORS, paired_design, unit_features
from cap_core.audit.groups import variant_group_notice
from cap_core.audit.label_set import LabelSet
from cap_core.errors import CAPInputError

__all__ = ["AuditResult", "AUDIT_SCHEMA", "MODES", "audit_label_set", "audit_label_sets", "permute_within"]

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
_LR = dict(C=1.0, solver="lbfgs", max_iter=200, tol=1e-4)


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


def _fold_ids(y, groups, n_splits, seed, scheme) -> tuple[np.ndarray, str]:
    n_groups = np.unique(groups).size
    k = min(n_splits, n_groups if scheme == "group" else y.size, int(np.bincount(y, minlength=2).min()))
    if k < 2:
        raise CAPInputError("too few groups or labels for cross-validation", expected="at least 2 groups and "
                            "2 units of each class", got=f"{n_groups} groups, class counts {np.bincount(y).tolist()}",
                            fix="audit a larger label set")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        if scheme == "group":
            split = StratifiedGroupKFold(k, shuffle=True, random_state=seed).split(y, y, groups)
        else:
            split = StratifiedKFold(k, shuffle=True, random_state=seed).split(y, y)
        fold = np.empty(y.size, dtype=np.int64)
        for f, (_, test) in enumerate(split):
            fold[test] = f
    name = f"StratifiedGroupKFold({k}) on group" if scheme == "group" else f"StratifiedKFold({k}) on rows (leaky)"
    return fold, name


def _oof(x: np.ndarray, y: np.ndarray, fold: np.ndarray, intercept: bool) -> np.ndarray:
    pred = np.empty_like(y)
    for f in range(fold.max() + 1):
        test = fold == f
        ytr = y[~test]
        if ytr.min() == ytr.max():  # one class in training: predict it
            pred[test] = ytr[0]
            continue
        model = LogisticRegression(fit_intercept=intercept, **_LR).fit(x[~test], ytr)
        pred[test] = model.predict(x[test])
    return pred


def _kappa(y, pred) -> float:
    k = cohen_kappa_score(y, pred)
    return 0.0 if np.isnan(k) else float(k)


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


def audit_label_set(ls: LabelSet, *, predictors=PREDICTORS, modes=None, n_permutations: int = 100, seed: int = 0,
                    n_splits: int = 5, folds: str = "group", alpha: float = 0.05) -> AuditResult:
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
    p = ls.pairs.filter(pl.col("label") != "tie")
    texts = [t for ab in zip(p["response_a"], p["response_b"]) for t in ab] + ls.singles["response"].to_list()
    chars = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    rows, preds = [], []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        feats = unit_features(texts, seed=seed)
        for mode in modes:
            u = _units(ls, mode, np.random.default_rng(seed))
            y = u["y"]
            codes = np.unique(u["groups"], return_inverse=True)[1]
            fold, fold_name = _fold_ids(y, codes, n_splits, seed, folds)
            perms, scheme = _null_labels(y, codes, mode, n_permutations, seed)
            for name in predictors:
                x = paired_design(feats[name], u["left"], u["right"]) if mode == "paired" else feats[name][: y.size]
                pred = _oof(x, y, fold, mode == "item")
                acc, kap = 100.0 * accuracy_score(y, pred), _kappa(y, pred)
                score = acc if mode == "paired" else kap
                null = np.array([100.0 * accuracy_score(yp, pp) if mode == "paired" else _kappa(yp, pp)
                                 for yp in perms for pp in [_oof(x, yp, fold, mode == "item")]])
                rows.append(_row(ls, name, mode, y, codes, acc, kap, score, null, alpha, scheme, fold_name, seed))
                preds.append(_pred_frame(ls.name, name, mode, u, y, pred, fold, chars))
    note = variant_group_notice(ls.name, p["group"].to_list() + ls.singles["group"].to_list())
    return AuditResult(pl.DataFrame(rows, schema=AUDIT_SCHEMA, orient="row"), pl.concat(preds),
                       () if note is None else (note,))


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
