"""The audit's learner: many L2-regularised logistic regressions on one design, solved together.

The surface audit (:mod:`cap_core.audit.surface`) refits one model per fold for the
observed labels and for every permuted label vector: 3 predictors x 2 modes x 101 label
vectors x 5 folds = 3,030 fits on RewardBench. Within one fold the design is the same
for every label vector; only the labels differ. Fitting them one at a time with
scikit-learn costs about 6-8 ms of per-call overhead each (input checks, loss set-up)
before any solver iteration, i.e. most of the audit's time. No library we use solves
many independent binary logistic regressions that share one design (scikit-learn's
``LogisticRegression`` takes one label vector, ``MultiOutputClassifier`` loops over
fits, statsmodels' ``GLM`` fits one response), so this module does it in numpy.

Model (the regularised logistic regression every predictor of Validity Table 9 is fitted
with here; the one scikit-learn's ``LogisticRegression(penalty="l2", C=C)`` fits): for
each label vector ``y`` (0/1) it minimises

    C * sum_i [log(1 + exp(z_i)) - y_i z_i] + 0.5 * ||w||^2,    z = X w + b,

with the intercept ``b`` (when fitted) not penalised.

Solver: the bound optimiser of Böhning and Lindsay (1988, "Monotonicity of quadratic
approximation algorithms", Ann. Inst. Stat. Math. 40:641): the logistic Hessian never
exceeds ``X'X / 4``, so steps ``w <- w - (X'X/4 + I/C)^-1 grad`` decrease the objective
every time and converge to the unique optimum. The bound matrix does not depend on the
labels, so one Cholesky factor per fold serves all label vectors, and each step is two
matrix products over all of them. A label vector whose fit has not converged after
:data:`BOUND_STEPS` steps (strongly separable labels, where fitted probabilities near 0
or 1 make the bound loose) continues with exact Newton steps with a backtracking line
search. Convergence: ``max |grad| <= tol * n`` (scikit-learn's ``tol`` on its
``1/n``-scaled objective), default ``1e-10``, so the coefficients agree with any other
solver run to that tolerance (``tests/cap_core/audit/test_fit.py`` checks against
scikit-learn's lbfgs at ``tol=1e-10``).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.special import expit

from cap_core.errors import CAPInputError

__all__ = ["fit_logistic_many", "oof_predict_many", "TOL", "BOUND_STEPS"]

#: Convergence tolerance on the gradient of the 1/n-scaled objective (max absolute entry).
TOL = 1e-10
#: Bound-optimiser steps before a label vector that has not converged switches to Newton steps.
BOUND_STEPS = 60
_NEWTON_STEPS = 100


def _objective(xa, y, w, pen, C) -> float:
    z = xa @ w
    return float(C * np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.sum(pen * w * w))


def _newton(xa, y, w, pen, C, tol_abs) -> np.ndarray:
    """Exact Newton steps with Armijo backtracking for one label vector, from ``w``."""
    for _ in range(_NEWTON_STEPS):
        p = expit(xa @ w)
        g = C * (xa.T @ (p - y)) + pen * w
        if np.abs(g).max() <= tol_abs:
            break
        h = (xa.T * (C * p * (1.0 - p))) @ xa
        h[np.diag_indices_from(h)] += pen
        step = cho_solve(cho_factor(h), g)
        f0, t, slope = _objective(xa, y, w, pen, C), 1.0, float(g @ step)
        while t > 1e-12 and _objective(xa, y, w - t * step, pen, C) > f0 - 1e-4 * t * slope:
            t /= 2.0
        w = w - t * step
    return w


def fit_logistic_many(x: np.ndarray, Y: np.ndarray, *, intercept: bool, C: float = 1.0,
                      tol: float = TOL) -> tuple[np.ndarray, np.ndarray]:
    """Fit one L2 logistic regression per column of ``Y``, all on the design ``x``.

    Parameters
    ----------
    x : ndarray, shape (n, d), float
        The design (shared by every label vector).
    Y : ndarray, shape (n,) or (n, K), 0/1
        Label vectors, one per column; each column must hold both classes.
    intercept : bool
        Fit an unpenalised intercept per column.
    C : float, default 1.0
        Inverse penalty strength, as scikit-learn's ``C``.
    tol : float, default :data:`TOL`
        Stop when the largest gradient entry of the ``1/n``-scaled objective is <= tol.

    Returns
    -------
    (coef, b) : ndarray (K, d) and ndarray (K,)
        Coefficients and intercepts (zeros without ``intercept``); ``K = 1`` for a 1-d ``Y``.

    Raises
    ------
    CAPInputError
        Shapes disagree, labels are not 0/1, a column holds one class, or ``C <= 0``.
    """
    x = np.asarray(x, dtype=np.float64)
    Y = np.asarray(Y)
    Y = Y[:, None] if Y.ndim == 1 else Y
    if x.ndim != 2 or Y.ndim != 2 or Y.shape[0] != x.shape[0]:
        raise CAPInputError("design and labels do not match", argument="x, Y",
                            expected="x of shape (n, d) and Y of shape (n,) or (n, K)",
                            got=f"x {x.shape}, Y {Y.shape}")
    if not np.isin(Y, (0, 1)).all():
        raise CAPInputError("labels must be 0 or 1", argument="Y", got=np.unique(Y)[:5].tolist())
    if not C > 0:
        raise CAPInputError("C must be positive", argument="C", got=C)
    Y = Y.astype(np.float64)
    if Y.size and (Y.min(axis=0) == Y.max(axis=0)).any():
        raise CAPInputError("a label vector holds one class only", argument="Y",
                            expected="both classes in every column", fix="predict the one class instead of fitting")
    n, d = x.shape
    xa = np.hstack([x, np.ones((n, 1))]) if intercept else x
    pen = np.r_[np.full(d, 1.0 / C), np.zeros(int(intercept))]
    tol_abs = tol * n
    W = np.zeros((xa.shape[1], Y.shape[1]))
    bound = xa.T @ xa * (C / 4.0)
    bound[np.diag_indices_from(bound)] += pen
    factor = cho_factor(bound)
    active = np.arange(Y.shape[1])
    for _ in range(BOUND_STEPS):
        G = C * (xa.T @ (expit(xa @ W[:, active]) - Y[:, active])) + pen[:, None] * W[:, active]
        todo = np.abs(G).max(axis=0) > tol_abs
        active, G = active[todo], G[:, todo]
        if not active.size:
            break
        W[:, active] -= cho_solve(factor, G)
    else:
        for k in active:
            W[:, k] = _newton(xa, Y[:, k], W[:, k], pen, C, tol_abs)
    if intercept:
        return W[:d].T.copy(), W[d].copy()
    return W.T.copy(), np.zeros(W.shape[1])


def oof_predict_many(x: np.ndarray, Y: np.ndarray, fold: np.ndarray, *, intercept: bool, C: float = 1.0,
                     tol: float = TOL) -> np.ndarray:
    """Out-of-fold 0/1 predictions for every label vector (column of ``Y``).

    For each fold ``f`` the models are fitted on the units with ``fold != f``
    (:func:`fit_logistic_many`) and predict ``1`` where ``x w + b > 0`` on the units with
    ``fold == f`` (scikit-learn's ``predict``). A label vector with one class in a
    fold's training units predicts that class there.

    Parameters
    ----------
    x : ndarray, shape (n, d)
    Y : ndarray, shape (n, K), 0/1
    fold : ndarray of int, shape (n,)
        Fold of each unit, 0 .. k-1.

    Returns
    -------
    ndarray of int64, shape (n, K)
    """
    Y = np.asarray(Y)
    pred = np.empty(Y.shape, dtype=np.int64)
    for f in range(int(fold.max()) + 1):
        test = fold == f
        ytr = Y[~test]
        one = ytr.min(axis=0) == ytr.max(axis=0)
        pred[np.ix_(test, one)] = ytr[0, one]
        if (~one).any():
            coef, b = fit_logistic_many(x[~test], ytr[:, ~one], intercept=intercept, C=C, tol=tol)
            pred[np.ix_(test, ~one)] = (x[test] @ coef.T + b > 0).astype(np.int64)
    return pred
