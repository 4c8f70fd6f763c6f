"""Which weight presets fit a benchmark: the one rule the dashboard and the CLI use.

A judge has a weighted score when at least one positively weighted condition is measured
for it (:func:`cap_core.profile.weights.weighted_scores` renormalises over those). A preset
*fits* a benchmark when it weighs a condition measured there (:func:`measured_conditions`);
otherwise no judge gets a score and the leaderboard is empty. :func:`closest_preset` picks
the fitting preset most like the one asked for (the dashboard's "Use '...'" button), and
:func:`unscored_error` is the CLI's refusal of weights under which no judge has a score.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
import polars as pl

from cap_core.errors import CAPInputError
from cap_core.profile.presets import PRESETS
from cap_core.schema import CONDITION_IDS

__all__ = ["measured_conditions", "fitting_presets", "closest_preset", "unscored_error"]


def measured_conditions(rows: pl.DataFrame) -> list[str]:
    """Condition ids (C1..C8 order) with a primary value in ``rows``.

    Parameters
    ----------
    rows : polars.DataFrame
        Profile rows (:data:`cap_core.schema.PROFILE_SCHEMA`: ``condition``, ``primary``,
        ``value``), e.g. :attr:`cap_core.choice.pipeline.ChoiceInputs.rows`.
    """
    if rows.height == 0:
        return []
    have = set(rows.filter(pl.col("primary") & pl.col("value").is_not_null())["condition"].to_list())
    return [c for c in CONDITION_IDS if c in have]


def _fits(weights: Mapping[str, float], measured: list[str]) -> bool:
    return any(float(weights.get(c, 0.0)) > 0 for c in measured)


def fitting_presets(measured: list[str]) -> list[str]:
    """The presets of :data:`cap_core.profile.presets.PRESETS` (their order) that weigh a
    condition of ``measured``: under them some judge measured there has a score."""
    return [name for name, w in PRESETS.items() if _fits(w, measured)]


def closest_preset(name: str | Mapping[str, float] | None, measured: list[str]) -> str | None:
    """The fitting preset (:func:`fitting_presets`) most like ``name``, other than ``name`` itself.

    ``name`` is a preset name or a ``{condition: weight}`` mapping (anything else counts as
    equal weights); likeness is the cosine of the C1..C8 weight vectors, ties going to the
    earlier preset. None when no preset fits.
    """
    if isinstance(name, str) and name in PRESETS:
        want = np.array([PRESETS[name][c] for c in CONDITION_IDS])
    elif isinstance(name, Mapping):
        want = np.array([float(name.get(c, 0.0)) for c in CONDITION_IDS])
    else:
        want = np.ones(len(CONDITION_IDS))
    if not want.any():
        want = np.ones(len(CONDITION_IDS))
    best, score = None, -1.0
    for other in fitting_presets(measured):
        if other == name:
            continue
        v = np.array([PRESETS[other][c] for c in CONDITION_IDS])
        cos = float(want @ v / (np.linalg.norm(want) * np.linalg.norm(v)))
        if cos > score:
            best, score = other, cos
    return best


def unscored_error(benchmark: str, rows: pl.DataFrame, weights: Mapping[str, float], *,
                   preset: str | None = None, argument: str = "weights", filters: tuple = ()) -> CAPInputError:
    """The error for weights under which no judge of ``benchmark`` has a score.

    Parameters
    ----------
    benchmark : str
        What was ranked (a benchmark name, or several joined by commas).
    rows : polars.DataFrame
        The profile rows that were ranked (before the condition minimums).
    weights : mapping of str to float
        The weights asked for, C1..C8.
    preset : str, optional
        The preset the weights came from (None for hand-set weights).
    argument : str
        The option or argument to name.
    filters : tuple of Filter
        The condition minimums in force (:func:`cap_core.choice.filters.parse_filters`).

    Returns
    -------
    CAPInputError
        Names the weighted conditions not measured on ``benchmark``, the conditions it does
        measure and a fix: the closest fitting preset (:func:`closest_preset`) or weights over
        the measured conditions. When the weighted conditions are measured but only for
        judges the minimums removed, says so instead, naming a minimum on a condition that
        is not measured here (it removes every judge).
    """
    from cap_core.choice.leaderboard import condition_ranges

    measured = measured_conditions(rows)
    weighted = [c for c in CONDITION_IDS if float(weights.get(c, 0.0)) > 0]
    asked = f"preset {preset!r}" if preset else "--weights"
    if _fits(weights, measured):
        unmeasured = [f for f in filters if f.condition not in measured]
        if unmeasured:
            said = condition_ranges(measured) if measured else "no condition"
            which = ", ".join(f.text() for f in unmeasured)
            return CAPInputError(f"no judge has a score on {benchmark}: the minimum {which} is on a condition not "
                                 f"measured there (it measures {said}), so no judge can meet it",
                                 argument="--min", got=which,
                                 fix="drop that minimum, or set minimums on measured conditions only")
        return CAPInputError(f"no judge has a score on {benchmark}: every judge measuring "
                             f"{condition_ranges([c for c in weighted if c in measured])} was filtered out by the "
                             "condition minimums", argument="--min", got=None,
                             fix="lower or drop --min")
    said = condition_ranges(measured) if measured else "no condition"
    near = closest_preset(preset if preset else dict(weights), measured)
    example = ",".join(f"{c}=1" for c in measured)
    if near:
        others = [repr(p) for p in fitting_presets(measured) if p not in (near, preset)]
        fix = (f"use --preset {near!r} (the closest preset that fits"
               + (f"; also {', '.join(others)}" if others else "") + ")"
               + (f" or weigh measured conditions, e.g. --weights {example}" if example else ""))
    else:
        fix = "rank another benchmark: no condition is measured here"
    verb = "is" if len(weighted) == 1 else "are"
    return CAPInputError(f"no judge has a score under these weights: {asked} weighs {condition_ranges(weighted)}, "
                         f"which {verb} not measured on {benchmark} (it measures {said})", argument=argument,
                         fix=fix)
