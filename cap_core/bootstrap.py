"""Shared-resample percentile bootstrap over base items.

CAP reports every condition with a nonparametric bootstrap 95% confidence interval
over items, from 1,000 resamples (CAP §3.1 eq. 1 and §3.3). CAP Studio makes the
resample explicit and shared:

* the resampling unit is the ``base_item_id`` of a benchmark, so all orders and
  presentation variants of one base item move together;
* one resample is drawn per benchmark, as a matrix of multinomial counts
  ``W`` of shape ``(n_resamples, n_base)``; ``W[r, i]`` is how many times base item
  ``i`` appears in resample ``r``;
* every judge and every condition of that benchmark is evaluated on the same ``W``,
  so the replicate-wise difference of two cells is itself a bootstrap replicate of
  the difference and has a percentile interval.

A condition cell is a ratio of sums over units (``sum num / sum den``). With per-base
item sums in matrices ``num`` and ``den`` of shape ``(n_base, K)``, all replicates of
all ``K`` cells are ``(W @ num) / (W @ den)``: no Python loop over resamples.
"""

from __future__ import annotations

import numbers

import numpy as np

from cap_core.errors import CAPInputError

__all__ = ["resample_counts", "percentile_interval", "ratio_replicates", "check_bootstrap_args"]


def check_bootstrap_args(n_resamples: object, seed: object, level: object) -> None:
    """Validate the bootstrap arguments shared by the public functions.

    Raises
    ------
    CAPInputError
        ``n_resamples`` not a positive integer, ``seed`` not a non-negative integer,
        ``level`` not a number strictly between 0 and 1.
    """
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, numbers.Integral) or n_resamples < 1:
        raise CAPInputError(
            "n_resamples must be a positive integer",
            column="n_resamples",
            expected="an integer >= 1 (CAP uses 1000)",
            got=n_resamples,
            fix="pass e.g. n_resamples=1000",
        )
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise CAPInputError(
            "seed must be a non-negative integer",
            column="seed",
            expected="an integer >= 0",
            got=seed,
            fix="pass an explicit seed such as seed=0 so the intervals can be reproduced",
        )
    if isinstance(level, bool) or not isinstance(level, numbers.Real) or not (0.0 < float(level) < 1.0):
        raise CAPInputError(
            "level must be a confidence level strictly between 0 and 1",
            column="level",
            expected="a fraction such as 0.95",
            got=level,
            fix="write 95% as level=0.95",
        )


def resample_counts(n_units: int, n_resamples: int, seed: int) -> np.ndarray:
    """Multinomial resample counts over ``n_units`` bootstrap units.

    Parameters
    ----------
    n_units : int
        Number of units (base items of one benchmark), ``>= 0``.
    n_resamples : int
        Number of bootstrap resamples ``B``, ``>= 1``.
    seed : int
        Seed for ``numpy.random.default_rng``; equal seeds give equal counts.

    Returns
    -------
    numpy.ndarray
        Shape ``(n_resamples, n_units)``, dtype int64. Row ``r`` counts how often
        each unit is drawn when ``n_units`` units are drawn with replacement, so
        every row sums to ``n_units``.

    Raises
    ------
    CAPInputError
        Negative or non-integer ``n_units``; bad ``n_resamples`` or ``seed``.
    """
    check_bootstrap_args(n_resamples, seed, 0.95)
    if isinstance(n_units, bool) or not isinstance(n_units, numbers.Integral) or n_units < 0:
        raise CAPInputError(
            "n_units must be a non-negative integer", column="n_units", expected="an integer >= 0", got=n_units
        )
    n, b = int(n_units), int(n_resamples)
    if n == 0:
        return np.zeros((b, 0), dtype=np.int64)
    rng = np.random.default_rng(int(seed))
    draws = rng.integers(0, n, size=(b, n), dtype=np.int64)
    draws += np.arange(b, dtype=np.int64)[:, None] * n
    return np.bincount(draws.ravel(), minlength=b * n).reshape(b, n)


def ratio_replicates(counts: np.ndarray, num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Bootstrap replicates of ratio-of-sums statistics under shared counts.

    Parameters
    ----------
    counts : numpy.ndarray
        Shape ``(B, n_units)``, from :func:`resample_counts`.
    num, den : numpy.ndarray
        Shape ``(n_units, K)``: per-unit numerator and denominator sums of ``K``
        cells (a unit with no data for a cell has ``den == 0``).

    Returns
    -------
    numpy.ndarray
        Shape ``(B, K)``, float64; ``(counts @ num) / (counts @ den)``, NaN where a
        replicate has a zero denominator for that cell (the cell's units were not
        drawn). The values are in the units of ``num / den`` (fractions for
        indicators).
    """
    w = np.asarray(counts, dtype=np.float64)
    top = w @ np.asarray(num, dtype=np.float64)
    bottom = w @ np.asarray(den, dtype=np.float64)
    out = np.full(top.shape, np.nan)
    np.divide(top, bottom, out=out, where=bottom > 0)
    return out


def percentile_interval(replicates: np.ndarray, level: float = 0.95, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval, ignoring NaN replicates.

    Parameters
    ----------
    replicates : numpy.ndarray
        Bootstrap replicates; NaN marks a replicate without a value (dropped).
    level : float
        Confidence level as a fraction in (0, 1); default 0.95.
    axis : int
        Axis along which the replicates lie (default 0, as in ``(B, K)``).

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        The ``(1-level)/2`` and ``(1+level)/2`` quantiles with linear interpolation
        (``numpy.percentile``'s default rule, as used by
        ``scipy.stats.bootstrap(method="percentile")``), same units as
        ``replicates``; NaN where a slice holds no finite replicate.

    Raises
    ------
    CAPInputError
        ``level`` outside (0, 1).
    """
    check_bootstrap_args(1, 0, level)
    reps = np.moveaxis(np.asarray(replicates, dtype=np.float64), axis, 0)
    alpha = (1.0 - float(level)) / 2.0
    return _nan_quantile(reps, alpha), _nan_quantile(reps, 1.0 - alpha)


def _nan_quantile(x: np.ndarray, q: float) -> np.ndarray:
    """Quantile along axis 0 ignoring NaN, numpy's default "linear" rule, without a per-column loop."""
    srt = np.sort(x, axis=0)  # NaN sorts last
    n = np.sum(~np.isnan(x), axis=0)
    pos = q * np.maximum(n - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, np.maximum(n - 1, 0))
    a = np.take_along_axis(srt, lo[None, ...], axis=0)[0]
    b = np.take_along_axis(srt, hi[None, ...], axis=0)[0]
    t = pos - lo
    out = np.where(t >= 0.5, b - (b - a) * (1.0 - t), a + (b - a) * t)
    return np.where(n > 0, out, np.nan)
