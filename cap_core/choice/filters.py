"""Per-condition minimums that hide judges from the leaderboard.

A filter is written ``C7=60`` (the condition's primary value must be at least 60 percent)
or ``C7.low=60`` (the lower bound of its interval must be at least 60). Several filters
are joined with commas: ``C7=60,C1.low=50``. A judge is kept only when every filter
holds; a judge for which a filtered condition is not measured does not pass that filter
(nothing is assumed about a value that was not measured). The same text is accepted by
the CLI (``--min``), the page's URL and the exports.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import CONDITION_IDS

__all__ = ["Filter", "parse_filters", "parse_weights", "format_filters", "apply_filters", "plain_number",
           "FILTERED_SCHEMA"]

#: Columns of the frame of judges removed by the filters.
FILTERED_SCHEMA: dict[str, pl.DataType] = {
    "judge": pl.String, "subset": pl.String, "source": pl.String, "condition": pl.String, "reason": pl.String,
}
_KEY = ["judge", "subset", "source"]
#: A number as a person writes it in decimal: digits, one point, an exponent (``60``, ``0.5``, ``1e3``).
_PLAIN = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def plain_number(text: str) -> float:
    """``text`` read as a decimal number, or NaN when it is not one as a person writes it.

    The one reading of the numbers in ``--weights``, ``--min`` and a link's ``w`` / ``min``. Python's
    ``float`` also takes ``1_000`` (digit grouping), ``inf``, ``nan`` and ``infinity``: a weight
    ``C7=1_000`` would silently count as 1000, so anything but digits, one decimal point and an
    exponent is refused (NaN, which every caller refuses).
    """
    text = str(text).strip()
    return float(text) if _PLAIN.fullmatch(text) else math.nan


@dataclass(frozen=True)
class Filter:
    """``condition`` (C1..C8) must reach ``threshold`` (percent) on ``bound`` (``value`` or ``low``)."""

    condition: str
    threshold: float
    bound: str = "value"

    def text(self) -> str:
        """The filter as written (``C7=60`` / ``C7.low=60``)."""
        return f"{self.condition}{'.low' if self.bound == 'low' else ''}={self.threshold:g}"


def parse_filters(spec: str | list[str] | tuple[str, ...] | None, *, argument: str = "min") -> tuple[Filter, ...]:
    """Filters from ``"C7=60,C1.low=50"`` (or a list of such strings; empty -> none).

    Raises
    ------
    CAPInputError
        Not ``CONDITION[.low]=NUMBER``, an unknown condition, a threshold outside 0-100,
        or the same condition and bound given twice (``argument=`` names the option).
    """
    if spec is None:
        return ()
    parts = [spec] if isinstance(spec, str) else list(spec)
    out: dict[tuple[str, str], Filter] = {}
    for part in parts:
        for raw in str(part).split(","):
            text = raw.strip()
            if not text:
                continue
            name, sep, num = text.partition("=")
            cond, _, bound = name.strip().partition(".")
            cond, bound = cond.strip().upper(), (bound.strip().lower() or "value")
            thr = plain_number(num)
            if not sep or cond not in CONDITION_IDS or bound not in ("value", "low") or not 0 <= thr <= 100:
                raise CAPInputError(
                    "a condition minimum must read CONDITION=PERCENT or CONDITION.low=PERCENT", argument=argument,
                    expected="e.g. C7=60 (value) or C7.low=60 (interval lower bound), C1..C8, 0-100 in digits",
                    got=text,
                    fix="write e.g. --min C7=60,C1.low=50")
            if (cond, bound) in out:
                raise CAPInputError("a condition minimum is given twice", argument=argument, got=text,
                                    expected="one minimum per condition and bound", fix="keep one of them")
            out[(cond, bound)] = Filter(cond, thr, bound)
    return tuple(out.values())


def format_filters(filters: tuple[Filter, ...] | list[Filter]) -> str:
    """The filters as one string that :func:`parse_filters` reads back (``""`` for none)."""
    return ",".join(f.text() for f in filters)


def apply_filters(profile: pl.DataFrame, filters: tuple[Filter, ...] | list[Filter]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Entries of ``profile`` that pass every filter, and those that do not with the reason.

    Parameters
    ----------
    profile : polars.DataFrame
        PROFILE_SCHEMA rows (percent) of one benchmark; the primary row of each condition is read.
    filters : sequence of Filter

    Returns
    -------
    (kept, filtered) : (polars.DataFrame, polars.DataFrame)
        ``kept``: the rows of ``profile`` whose entry (judge, subset, source) passes, in their
        order (with the original row positions in ``_row``, Int64); ``filtered``:
        :data:`FILTERED_SCHEMA`, one row per entry and failed filter, e.g. reason
        ``"C7 strict 55.0 < 60"`` or ``"C7 not measured"``.
    """
    rows = profile.with_row_index("_row").with_columns(pl.col("_row").cast(pl.Int64))
    if not filters or rows.height == 0:
        return rows, pl.DataFrame(schema=FILTERED_SCHEMA)
    entries = rows.select(_KEY).unique(maintain_order=True)
    prim = rows.filter(pl.col("primary") & pl.col("value").is_not_null())
    fails = []
    for judge, subset, source in entries.iter_rows():
        mine = prim.filter((pl.col("judge") == judge) & (pl.col("subset").eq_missing(subset))
                           & (pl.col("source").eq_missing(source)))
        for f in filters:
            cell = mine.filter(pl.col("condition") == f.condition)
            if cell.height == 0:
                fails.append((judge, subset, source, f.condition, f"{f.condition} not measured (minimum {f.text()})"))
                continue
            r = cell.row(0, named=True)
            got = r["value"] if f.bound == "value" else r["ci_low"]
            if got is None or not math.isfinite(got):
                fails.append((judge, subset, source, f.condition, f"{f.condition} has no interval (minimum {f.text()})"))
            elif got < f.threshold:
                what = r["metric"] if f.bound == "value" else f"{r['metric']} lower bound"
                fails.append((judge, subset, source, f.condition, f"{f.condition} {what} {got:.1f} < {f.threshold:g}"))
    filtered = pl.DataFrame(fails, schema=FILTERED_SCHEMA, orient="row")
    kept = rows.join(filtered.select(_KEY).unique(), on=_KEY, how="anti", nulls_equal=True, maintain_order="left")
    return kept, filtered


def parse_weights(spec: str, *, argument: str = "weights") -> dict[str, float]:
    """Weights from ``"C1=1,C7=2"`` (absent conditions weigh 0), checked by
    :func:`cap_core.profile.weights.check_weights`.

    Raises
    ------
    CAPInputError
        Not ``CONDITION=NUMBER`` pairs, a condition twice, or what ``check_weights`` refuses.
    """
    from cap_core.profile.weights import check_weights

    out: dict[str, float] = {}
    for raw in str(spec).split(","):
        text = raw.strip()
        if not text:
            continue
        cond, sep, num = text.partition("=")
        cond = cond.strip().upper()
        w = plain_number(num)
        if not sep or cond not in CONDITION_IDS or not math.isfinite(w) or cond in out:
            raise CAPInputError("weights must read CONDITION=NUMBER, each condition once", argument=argument,
                                expected="e.g. C1=1,C7=2 (C1..C8; numbers >= 0 in digits: 1000, 0.5, 1e3, no _ or inf)",
                                got=text,
                                fix="write e.g. --weights C1=1,C7=2")
        out[cond] = w
    if not out:
        raise CAPInputError("no weights given", argument=argument, expected="e.g. C1=1,C7=2", got=spec,
                            fix="write e.g. --weights C1=1,C7=2 or use --preset")
    try:
        return check_weights(out)
    except CAPInputError as err:
        raise err.replace(argument=argument) from None
