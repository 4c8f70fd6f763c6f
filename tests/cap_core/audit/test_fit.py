"""The audit's batched logistic-regression solver against scikit-learn fitted to full convergence."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit
from sklearn.linear_model import LogisticRegression

from cap_core.audit.features import paired_design, unit_features
from cap_core.audit.fit import fit_logistic_many, oof_predict_many
from cap_core.errors import CAPInputError
from cap_core.importers.label_sets import load_label_set


def _design(shared_dir, mode: str):
    """LLMBar Natural (100 real pairs): numeric-surface design and labels of one audit mode, plus 3 permutations."""
    ls = load_label_set("LLMBar Natural", public_data=shared_dir)
    a_better = (ls.pairs["label"] == "A").to_numpy()
    texts = [t for ab in zip(ls.pairs["response_a"], ls.pairs["response_b"]) for t in ab]
    feat = unit_features(texts, predictors=("numeric_surface",))["numeric_surface"]
    rng = np.random.default_rng(0)
    if mode == "paired":
        flip = rng.random(a_better.size) < 0.5
        left = 2 * np.arange(a_better.size) + flip
        x, y = paired_design(feat, left, left ^ 1), (a_better ^ flip).astype(np.int64)
    else:
        x, y = feat, np.column_stack([a_better, ~a_better]).ravel().astype(np.int64)
    return x, np.column_stack([y] + [rng.permutation(y) for _ in range(3)])


def _gradient(x, y, coef, b, intercept):
    """Gradient of C * sum(log-loss) + ||w||^2 / 2 (C = 1, intercept unpenalised), computed here independently."""
    xa = np.hstack([x, np.ones((len(x), 1))]) if intercept else x
    w = np.r_[coef, b] if intercept else coef
    pen = np.r_[np.ones(x.shape[1]), np.zeros(int(intercept))]
    return xa.T @ (expit(xa @ w) - y) + pen * w, xa, w, pen


def _distance_bound(x, y, fit_1, fit_2, intercept) -> float:
    """Largest possible distance between two approximate minimisers, from their gradients.

    The objective's Hessian is C X'DX + P (D = p(1-p), P the penalty); on the segment between
    the two solutions each p_i(1-p_i) is at least its smaller end value (it is unimodal in the
    linear predictor), so the mean Hessian there is >= mu I with mu the smallest eigenvalue of
    X' diag(d_min) X + P, and |w_1 - w_2| <= |g_1 - g_2| / mu <= (|g_1| + |g_2|) / mu.
    """
    g1, xa, w1, pen = _gradient(x, y, *fit_1, intercept)
    g2, _, w2, _ = _gradient(x, y, *fit_2, intercept)
    p1, p2 = expit(xa @ w1), expit(xa @ w2)
    d_min = np.minimum(p1 * (1 - p1), p2 * (1 - p2))
    mu = np.linalg.eigvalsh((xa.T * d_min) @ xa + np.diag(pen)).min()
    return float((np.linalg.norm(g1) + np.linalg.norm(g2)) / mu)


@pytest.mark.parametrize("mode", ["paired", "item"])
@pytest.mark.parametrize("solver", ["lbfgs", "newton-cholesky"])
def test_batched_fit_agrees_with_sklearn_at_full_convergence(shared_dir, mode, solver):
    x, Y = _design(shared_dir, mode)
    intercept = mode == "item"
    coef, b = fit_logistic_many(x, Y, intercept=intercept)
    assert coef.shape == (Y.shape[1], x.shape[1]) and b.shape == (Y.shape[1],)
    for k in range(Y.shape[1]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = LogisticRegression(C=1.0, solver=solver, tol=1e-10, max_iter=10_000,
                                     fit_intercept=intercept).fit(x, Y[:, k])
        ours, theirs = (coef[k], b[k]), (ref.coef_[0], ref.intercept_[0] if intercept else 0.0)
        bound = _distance_bound(x, Y[:, k], ours, theirs, intercept)
        # lbfgs stops on its relative objective change (64 machine epsilons) before its gradient tolerance;
        # the bound from both gradients is what the two solutions can differ by, and it is small
        assert bound < 1e-4
        diff = np.linalg.norm(np.r_[coef[k] - ref.coef_[0], (b[k] - ref.intercept_[0]) if intercept else 0.0])
        assert diff <= bound, (k, diff, bound)
        # and our own gradient is at the 1e-10 (scaled) tolerance
        assert np.abs(_gradient(x, Y[:, k], *ours, intercept)[0]).max() <= 1e-10 * len(x) * 1.0001


def test_one_column_at_a_time_equals_the_batch(shared_dir):
    x, Y = _design(shared_dir, "item")
    coef, b = fit_logistic_many(x, Y, intercept=True)
    for k in range(Y.shape[1]):
        c1, b1 = fit_logistic_many(x, Y[:, k], intercept=True)
        assert _distance_bound(x, Y[:, k], (coef[k], b[k]), (c1[0], b1[0]), True) < 1e-6
        np.testing.assert_allclose(c1[0], coef[k], atol=1e-6)


def test_nearly_separable_labels_converge_through_newton_steps():
    # labels follow the one feature almost perfectly: fitted probabilities near 0 / 1 make the bound steps
    # slow, so these fits finish with Newton steps; they must still reach the tolerance
    rng = np.random.default_rng(3)
    x = rng.normal(size=(300, 2))
    y = (x[:, 0] + 0.05 * rng.normal(size=300) > 0).astype(int)
    coef, b = fit_logistic_many(x, y, intercept=True)
    g = _gradient(x, y, coef[0], b[0], True)[0]
    assert np.abs(g).max() <= 1e-10 * 300 * 1.0001
    ref = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(x, y)
    np.testing.assert_allclose(coef[0], ref.coef_[0], rtol=1e-6)


def test_oof_predictions_threshold_at_zero_and_one_class_folds_predict_it():
    x = np.array([[-2.0], [-1.0], [1.0], [2.0], [-1.5], [1.5]])
    Y = np.array([[0, 1], [0, 1], [1, 1], [1, 1], [0, 0], [1, 0]])
    fold = np.array([0, 0, 0, 0, 1, 1])
    pred = oof_predict_many(x, Y, fold, intercept=True)
    # fold 1 trained on units 0-3: column 0 learns "positive x -> 1", column 1 holds one class (1) there
    assert pred[4:, 0].tolist() == [0, 1] and pred[4:, 1].tolist() == [1, 1]
    ref = LogisticRegression(C=1.0, solver="newton-cholesky", tol=1e-12).fit(x[:4], Y[:4, 0])
    assert pred[4:, 0].tolist() == ref.predict(x[4:]).tolist()


def test_bad_inputs_raise():
    x = np.zeros((4, 1))
    with pytest.raises(CAPInputError, match="one class"):
        fit_logistic_many(x, np.ones(4), intercept=True)
    with pytest.raises(CAPInputError, match="0 or 1"):
        fit_logistic_many(x, np.array([0, 1, 2, 1]), intercept=True)
    with pytest.raises(CAPInputError, match="do not match"):
        fit_logistic_many(x, np.array([0, 1, 1]), intercept=True)
