"""Radar chart of CAP profiles: one closed polygon per judge over C1..C8."""

from __future__ import annotations

import polars as pl

from cap_core.errors import CAPInputError
from cap_core.schema import CONDITION_IDS, CONDITIONS
from cap_core.colours import judge_colour
from components.labels import figure_text, short_labels
from components.plotting import go

__all__ = ["radar_figure", "radar_rows", "AXIS_ORDER", "RADAR_SCALE", "MARKER_SYMBOLS"]

#: Angular order of the axes, the same for every judge (CAP Table 1 order).
AXIS_ORDER: tuple[str, ...] = CONDITION_IDS
#: Direction (degrees, counter-clockwise from east) of the radial axis: halfway between the
#: C1 (top) and C2 spokes, clear of every condition name. Its tick labels are hidden: every
#: sector between two spokes carries polygon edges, so no angle keeps numbers off the data;
#: the rings are named in :data:`RADAR_SCALE` (a caption) and hover gives each value.
RADIAL_ANGLE = 67.5
#: The scale of the rings, for a caption under the radar.
RADAR_SCALE = "Rings at 25, 50, 75 and 100% (the outer ring); the centre is 0%."
#: One marker symbol per entry (cycled), so points on the same spot stay distinguishable.
MARKER_SYMBOLS: tuple[str, ...] = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross",
                                   "triangle-down", "pentagon", "hexagon")


def _theta(cond: str) -> str:
    return f"{cond} {CONDITIONS[cond][0]}"


def radar_rows(rows: pl.DataFrame, *, label_col: str = "label") -> pl.DataFrame:
    """The rows a radar draws: primary metric of C1..C8, one per entry and condition.

    A profile holds several metrics per condition (e.g. C7 strict, consistency and
    stable_but_wrong); only the ``primary`` one (CAP §3: pa for C1-C4, strict for
    C5-C7, supported for C8) is plotted.

    Raises
    ------
    CAPInputError
        Missing ``label_col`` / ``condition`` / ``value`` column, or still more than one
        row for an entry and condition (e.g. two subsets under one label).
    """
    missing = [c for c in (label_col, "condition", "value") if c not in rows.columns]
    if missing:
        raise CAPInputError(
            "radar rows lack a needed column", column=missing[0],
            expected=f"columns {label_col}, condition, value (and primary)", got=sorted(rows.columns),
        )
    keep = pl.col("condition").is_in(list(AXIS_ORDER))
    if "primary" in rows.columns:
        keep = keep & pl.col("primary").fill_null(False)
    out = rows.filter(keep)
    dup = out.filter(pl.struct(label_col, "condition").is_duplicated())
    if dup.height:
        raise CAPInputError(
            "more than one primary value for one radar entry and condition",
            column="condition",
            expected="one row per entry and condition",
            got=f"{dup[label_col][0]!s:.60} {dup['condition'][0]} ({dup.height} rows)",
            fix="give entries of different subsets or sources distinct labels",
        )
    return out


def _intervals(sub: pl.DataFrame) -> dict[str, str]:
    """Hover text of each condition's interval: ``" [lo, hi] (95% CI)"``, or ``" (no interval)"``."""
    if not {"ci_low", "ci_high"} <= set(sub.columns):
        return {}
    out = {}
    for c, lo, hi in sub.select("condition", "ci_low", "ci_high").iter_rows():
        out[c] = " (no interval)" if lo is None or hi is None else f" [{lo:.1f}, {hi:.1f}] (95% CI)"
    return out


def radar_figure(rows: pl.DataFrame, *, label_col: str = "label", title: str | None = None) -> go.Figure:
    """One ``Scatterpolar`` trace per entry, axes C1..C8 in fixed order.

    Parameters
    ----------
    rows : polars.DataFrame
        Profile rows with columns ``label_col`` (String), ``condition``
        (C1..C8), ``value`` (Float64, percent) and, when present, ``primary``
        (Boolean): non-primary metrics and other conditions are ignored (see
        :func:`radar_rows`).
    label_col : str, default "label"
        Column naming the entry (one polygon each). Legend and hover show it cut to
        60 characters (:func:`components.labels.short_labels`).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Each trace has ``theta`` = the eight axes followed by the first axis again
        (closed polygon) and ``r`` = the values in that order with ``None`` where
        the entry lacks a condition, so the outline breaks there (a gap, never a
        zero; ``connectgaps`` is off). Hover shows the value and, when ``rows`` has
        ``ci_low`` / ``ci_high``, its 95% interval (``text``). Each entry's line and markers
        take the judge's colour (:func:`cap_core.colours.judge_colour`). Radial axis fixed to 0-100 percent with rings at
        25/50/75/100 and no tick labels (see :data:`RADAR_SCALE`). Entry ``i`` gets marker
        symbol ``MARKER_SYMBOLS[i % 10]`` and size ``max(6, 12 - 2 i)`` (drawn largest first),
        so entries with equal values stay visible when only a few conditions are measured.

    Raises
    ------
    CAPInputError
        See :func:`radar_rows`.
    """
    theta = [_theta(c) for c in AXIS_ORDER] + [_theta(AXIS_ORDER[0])]
    fig = go.Figure()
    rows = radar_rows(rows, label_col=label_col)
    labels = rows.get_column(label_col).unique(maintain_order=True).to_list()
    shown = short_labels(labels)
    for i, label in enumerate(labels):
        sub = rows.filter(pl.col(label_col) == label)
        by_cond = dict(zip(sub["condition"].to_list(), sub["value"].to_list()))
        r = [by_cond.get(c) for c in AXIS_ORDER]
        r.append(r[0])
        ci = _intervals(sub)
        text = [ci.get(c, "") for c in AXIS_ORDER]
        text.append(text[0])
        name = figure_text(shown[label])  # a name from data drawn as text
        colour = judge_colour(label)
        fig.add_trace(
            go.Scatterpolar(
                r=r,
                theta=theta,
                name=name,
                mode="lines+markers",
                marker=dict(symbol=MARKER_SYMBOLS[i % len(MARKER_SYMBOLS)], size=max(6, 12 - 2 * i), color=colour),
                line=dict(color=colour),
                connectgaps=False,
                text=text,
                hovertemplate="%{theta}: %{r:.1f}%%{text}<extra>" + name.replace("%", "%%") + "</extra>",
            )
        )
    fig.update_layout(
        title=figure_text(title),
        polar=dict(
            radialaxis=dict(
                range=[0, 100], tickvals=[25, 50, 75, 100], showticklabels=False,
                angle=RADIAL_ANGLE, showline=False,
            ),
            angularaxis=dict(categoryorder="array", categoryarray=theta[:-1], direction="clockwise"),
        ),
        legend=dict(orientation="h", y=-0.15),
        margin=dict(l=90, r=90, t=60 if title else 40, b=40),
    )
    return fig
