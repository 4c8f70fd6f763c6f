"""Cells too small for the percentile bootstrap's nominal coverage: the one rule, and its notice.

A profile cell's interval is the base-item percentile bootstrap (CAP §3). The coverage
simulation with known truth (``tests/cap_core/profile/test_interval_coverage.py``,
issue 12 §4) measured that the nominal 95% interval covers the true value about 91–92%
of the time at 30 base items (accuracy 0.9), and at least 94% from 100 base items; so an
interval over fewer than :data:`SMALL_CELL_BASE_ITEMS` base items is read as optimistic
(too narrow), and the pages say so once.

The cell size is ``n_items`` of the profile row (units in the denominator; see
:data:`cap_core.schema.PROFILE_SCHEMA`). A unit is a base item or one of its variants, so
``n_items`` is never below the number of base items: a cell flagged here surely has fewer
than 50 base items, while a cell of several variants per base item can hold fewer than 50
base items and still not be flagged (the rule errs on the side of not warning).
"""

from __future__ import annotations

import polars as pl

from cap_core.errors import CAPInputError, capped

__all__ = ["SMALL_CELL_BASE_ITEMS", "MEASURED_COVERAGE", "small_cells", "small_cell_notice"]

#: Below this many base items a cell's bootstrap interval is called optimistic.
SMALL_CELL_BASE_ITEMS = 50
#: What the coverage simulation measured (nominal 95% percentile intervals).
MEASURED_COVERAGE = "about 91–92% at 30 base items, at least 94% from 100"

_NEEDED = ("judge", "condition", "value", "ci_low", "ci_high", "n_items", "primary", "source")


def small_cells(profile: pl.DataFrame, threshold: int = SMALL_CELL_BASE_ITEMS) -> pl.DataFrame:
    """The primary, computed, measured cells of ``profile`` with an interval over fewer than ``threshold`` units.

    Parameters
    ----------
    profile
        Rows of :data:`cap_core.schema.PROFILE_SCHEMA` (extra columns kept). Published rows
        (``source`` not ``"computed"``) carry the paper's own intervals and are never flagged.
    threshold
        Cell size (base items) from which the interval is taken at its nominal level.

    Returns
    -------
    polars.DataFrame
        The flagged rows, in the order of ``profile``.

    Raises
    ------
    CAPInputError
        ``profile`` lacks a profile column (named), or ``threshold`` is not a positive int.
    """
    missing = [c for c in _NEEDED if c not in profile.columns]
    if missing:
        raise CAPInputError("profile lacks columns", argument="profile", expected=", ".join(_NEEDED),
                            got=", ".join(missing) + " missing", fix="pass a frame of the profile schema")
    if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 1:
        raise CAPInputError("bad small-cell threshold", argument="threshold", expected="a positive int",
                            got=repr(threshold), fix="use SMALL_CELL_BASE_ITEMS (50)")
    return profile.filter(
        pl.col("primary") & (pl.col("source").fill_null("computed") == "computed")
        & pl.col("value").is_not_null() & pl.col("ci_low").is_not_null() & pl.col("ci_high").is_not_null()
        & (pl.col("n_items") < threshold)
    )


def small_cell_notice(profile: pl.DataFrame, *, label: str = "judge", shown: int = 4) -> str | None:
    """One sentence naming the small cells of ``profile`` and why their intervals are optimistic, or None.

    ``label`` is the column naming a row's judge (e.g. a display ``label``); at most
    ``shown`` cells are named, the rest counted. Example: ``"2 cells have fewer than 50
    base items (J on C5, n = 30; J on C7, n = 12): their 95% intervals are optimistic — in a
    simulation with known truth the percentile bootstrap covered about 91–92% at 30 base
    items, at least 94% from 100."``

    Raises
    ------
    CAPInputError
        As :func:`small_cells`, or ``label`` not a column of ``profile``.
    """
    if label not in profile.columns:
        raise CAPInputError("no such column", argument="label", expected="a column of profile",
                            got=repr(label), fix="pass 'judge' or 'label'")
    flagged = small_cells(profile)
    if flagged.height == 0:
        return None
    rows = flagged.sort("n_items", label, "condition").iter_rows(named=True)
    listed = capped((f"{r[label]} on {r['condition']}, n = {r['n_items']}" for r in rows), shown, sep="; ")
    cells = "1 cell has" if flagged.height == 1 else f"{flagged.height} cells have"
    return (f"{cells} fewer than {SMALL_CELL_BASE_ITEMS} base items ({listed}): their 95% intervals are "
            f"optimistic — in a simulation with known truth the percentile bootstrap covered {MEASURED_COVERAGE}.")
