"""Before labelling: how many labelled items would separate two candidate judges, or show parity.

Two judges are compared on the same items, so the accuracy difference is paired. Per unit
(an item shown in one order) let ``c1, c2`` be 1 when the judge is right. The difference
``d = c1 - c2`` is ±1 exactly where the two verdicts differ (one of them must then be
wrong: gold is A or B) and 0 where they agree, whatever the gold. Hence, in points²,

    Var(d) = 10⁴ · (δ − Δ²)

with ``δ`` the disagreement rate (a fraction) and ``Δ`` the accuracy difference (a
fraction). ``δ`` needs no labels: a pilot run of both judges on unlabelled items measures it
(:func:`disagreement_rate`). For parity the true difference is taken as 0 (the largest
variance for a given ``δ``); to separate a difference of ``effect`` points, ``Δ = effect/100``.
Averaging the two orders of an item can only lower the variance, so the counts are upper
bounds per item.

The sample-size formulas themselves (normal approximation; two-sided test, and TOST for
parity) are :func:`cap_core.choice.sample_size.items_to_separate` and
:func:`~cap_core.choice.sample_size.items_for_parity`, used here as they are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import polars as pl

from cap_core.errors import CAPInputError

__all__ = ["disagreement_rate", "per_item_variance_from_disagreement", "LabelPlan", "plan_labels"]


def disagreement_rate(judgments: pl.DataFrame, judge_a: str, judge_b: str) -> tuple[float, int]:
    """Share of units (item × order) where two judges' verdicts differ, and the unit count.

    ``judgments`` has ``judge``, ``item_id``, ``order``, ``verdict`` (JUDGMENTS_SCHEMA;
    ``benchmark`` is used when present). Only units both judges judged count. A tie or
    unparsed verdict differs from A and B (it is never correct, so it disagrees with a
    verdict that may be); two equal verdicts agree.

    Raises
    ------
    CAPInputError
        A judge absent from the table, the same judge twice, or no unit judged by both.
    """
    if judge_a == judge_b:
        raise CAPInputError("two different judges are needed", argument="judge_b", got=judge_b,
                            fix="pick the second candidate")
    keys = [c for c in ("benchmark", "item_id", "order") if c in judgments.columns]
    found = set(judgments["judge"].unique().to_list()) if "judge" in judgments.columns else set()
    for arg, j in (("judge_a", judge_a), ("judge_b", judge_b)):
        if j not in found:
            raise CAPInputError("judge not in the pilot judgments", argument=arg, got=j,
                                expected="one of " + ", ".join(sorted(found)[:10]), fix="pick a judge of the pilot run")
    a = judgments.filter(pl.col("judge") == judge_a).select(*keys, pl.col("verdict").alias("va")).unique(keys)
    b = judgments.filter(pl.col("judge") == judge_b).select(*keys, pl.col("verdict").alias("vb")).unique(keys)
    both = a.join(b, on=keys, how="inner")
    if both.height == 0:
        raise CAPInputError("the two judges share no judged item", argument="judge_b", got=judge_b,
                            fix="run both judges on the same pilot items")
    return float((both["va"] != both["vb"]).mean()), both.height


def per_item_variance_from_disagreement(rate: float, diff_points: float = 0.0) -> float:
    """``10⁴ (δ − Δ²)`` points² (module formula), floored at 0.

    Raises
    ------
    CAPInputError
        ``rate`` outside [0, 1] or not finite.
    """
    if not (isinstance(rate, (int, float)) and math.isfinite(rate) and 0 <= rate <= 1):
        raise CAPInputError("a disagreement rate is a fraction between 0 and 1", argument="rate", got=rate)
    return max(0.0, 1e4 * (rate - (diff_points / 100.0) ** 2))


@dataclass(frozen=True)
class LabelPlan:
    """Items to label: ``separate`` tells a difference of ``effect`` points from none,
    ``parity`` shows ``|difference| < margin`` points; both ``math.inf`` when impossible."""

    rate: float
    effect: float
    margin: float
    level: float
    power: float
    separate: float
    parity: float


def plan_labels(rate: float, *, effect: float = 5.0, margin: float = 5.0, level: float = 0.95,
                power: float = 0.8) -> LabelPlan:
    """Labelled items needed (rounded up) for separation and for parity, from a disagreement rate.

    Raises
    ------
    CAPInputError
        ``rate`` outside [0, 1], ``effect`` not positive, the formula module's checks
        (``level``, ``power``, ``margin``).

    Notes
    -----
    Two judges that disagree on a share ``δ`` of units cannot differ by more than ``100·δ``
    points in accuracy, so ``separate`` is ``math.inf`` (not possible) for a larger ``effect``.
    """
    from cap_core.choice.sample_size import items_for_parity, items_to_separate

    if effect <= 0:
        raise CAPInputError("the difference to detect must be positive", argument="effect", got=effect,
                            expected="points, e.g. 5")
    per_item_variance_from_disagreement(rate)  # checks the rate
    possible = effect / 100.0 <= rate + 1e-12  # |accuracy difference| <= disagreement rate
    sep = (items_to_separate(per_item_variance_from_disagreement(rate, effect), effect, level, power)
           if possible else math.inf)
    par = items_for_parity(per_item_variance_from_disagreement(rate, 0.0), margin, level, power)
    up = lambda x: float(math.ceil(x)) if math.isfinite(x) else math.inf  # noqa: E731
    return LabelPlan(rate=rate, effect=effect, margin=margin, level=level, power=power, separate=up(sep),
                     parity=up(par))
