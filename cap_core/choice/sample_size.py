"""How many items would settle a comparison: generic normal-approximation formulas.

The formulas take a **per-item variance** ``sigma2`` of a paired difference (points² for
one item, i.e. ``n * Var(mean difference)``) so they serve any planner that can estimate
it. From a paired bootstrap over ``n`` items, ``Var(mean difference) ≈ Var(replicates)``,
hence :func:`per_item_variance` ``= n * Var(replicates)``.

* Separation (two-sided test of ``d = 0`` at level ``level``, power ``power`` when the
  true difference is ``effect``): ``n = (z_{1-α/2} + z_{power})² σ² / effect²`` with
  ``α = 1 - level``.
* Parity within ``±margin`` (two one-sided tests, TOST, each at ``α``; i.e. the
  ``1 - 2α`` interval of the difference lies inside ``±margin``) when the true
  difference is ``true_diff``: ``n = (z_{1-α} + z_β')² σ² / (margin - |true_diff|)²``
  with ``z_β' = z_{1-(1-power)/2}`` when ``true_diff = 0`` and ``z_{power}`` otherwise
  (the usual approximation); infinite when ``|true_diff| >= margin``.

These are planning figures (normal approximation), not guarantees; with several judges
the Holm correction of :mod:`cap_core.choice.leaderboard` needs somewhat more.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from cap_core.errors import CAPInputError

__all__ = ["per_item_variance", "items_to_separate", "items_for_parity", "more_items"]


def _z(p: float) -> float:
    """The standard normal quantile (``scipy.stats.norm.ppf``, to 1e-15): the standard library's, so
    the first leaderboard of a dashboard does not load scipy for it."""
    return NormalDist().inv_cdf(p)


def _check(sigma2: float, level: float, power: float) -> None:
    if not (isinstance(sigma2, (int, float, np.floating)) and math.isfinite(sigma2) and sigma2 >= 0):
        raise CAPInputError("a per-item variance must be a finite number >= 0", argument="sigma2", got=sigma2)
    for name, v in (("level", level), ("power", power)):
        if not (isinstance(v, (int, float, np.floating)) and 0 < v < 1):
            raise CAPInputError(f"`{name}` must be strictly between 0 and 1", argument=name, got=v,
                                expected="e.g. 0.95 (level), 0.8 (power)")


def per_item_variance(diff_replicates: np.ndarray, n_items: int) -> float:
    """``n_items * Var(replicates)`` (ddof 1, NaN replicates dropped): the variance of one item's
    contribution to a mean difference estimated from ``n_items`` items (points²)."""
    d = np.asarray(diff_replicates, dtype=np.float64)
    d = d[np.isfinite(d)]
    if d.size < 2 or n_items < 1:
        return math.nan
    return float(n_items * np.var(d, ddof=1))


def items_to_separate(sigma2: float, effect: float, level: float = 0.95, power: float = 0.8) -> float:
    """Items needed to tell a true difference ``effect`` (points) from 0 (module formula).

    Returns ``math.inf`` when ``effect`` is 0, ``0.0`` when ``sigma2`` is 0 and the effect is not.

    Raises
    ------
    CAPInputError
        ``sigma2`` negative or not finite; ``level`` or ``power`` outside (0, 1).
    """
    _check(sigma2, level, power)
    if effect == 0 or not math.isfinite(effect):
        return math.inf
    z = _z(1 - (1 - level) / 2) + _z(power)
    return float(z * z * sigma2 / (effect * effect))


def items_for_parity(sigma2: float, margin: float, level: float = 0.95, power: float = 0.8,
                     true_diff: float = 0.0) -> float:
    """Items needed to show ``|difference| < margin`` (points) by TOST (module formula).

    Returns ``math.inf`` when ``|true_diff| >= margin``.

    Raises
    ------
    CAPInputError
        As :func:`items_to_separate`, or ``margin`` not positive.
    """
    _check(sigma2, level, power)
    if not (isinstance(margin, (int, float)) and margin > 0):
        raise CAPInputError("a parity margin must be a positive number of points", argument="margin", got=margin)
    gap = margin - abs(true_diff)
    if not gap > 0:
        return math.inf
    zb = _z(1 - (1 - power) / 2) if true_diff == 0 else _z(power)
    z = _z(level) + zb
    return float(z * z * sigma2 / (gap * gap))


def more_items(needed: float, have: int) -> float:
    """Items to add to ``have`` to reach ``needed`` (rounded up; 0 when already enough; inf stays inf)."""
    if not math.isfinite(needed):
        return math.inf
    return float(max(0, math.ceil(needed) - int(have)))
