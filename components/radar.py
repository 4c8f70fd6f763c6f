"""Radar chart of CAP profiles: one closed polygon per judge over C1..C8."""

from __future__ import annotations

import plotly.graph_objects as go
import polars as pl

from cap_core.schema import CONDITION_IDS, CONDITIONS

__all__ = ["radar_figure", "AXIS_ORDER"]

#: Angular order of the axes, the same for every judge (CAP Table 1 order).
AXIS_ORDER: tuple[str, ...] = CONDITION_IDS


def _theta(cond: str) -> str:
    return f"{cond} {CONDITIONS[cond][0]}"


def radar_figure(rows: pl.DataFrame, *, label_col: str = "label", title: str | None = None) -> go.Figure:
    """One ``Scatterpolar`` trace per entry, axes C1..C8 in fixed order.

    Parameters
    ----------
    rows : polars.DataFrame
        Primary profile rows with columns ``label_col`` (String), ``condition``
        (C1..C8) and ``value`` (Float64, percent). Other conditions are ignored.
    label_col : str, default "label"
        Column naming the entry (one polygon each).
    title : str, optional

    Returns
    -------
    plotly.graph_objects.Figure
        Each trace has ``theta`` = the eight axes followed by the first axis again
        (closed polygon) and ``r`` = the values in that order with ``None`` where
        the entry lacks a condition, so the outline breaks there (a gap, never a
        zero; ``connectgaps`` is off). Radial axis fixed to 0-100 percent.
    """
    theta = [_theta(c) for c in AXIS_ORDER] + [_theta(AXIS_ORDER[0])]
    fig = go.Figure()
    rows = rows.filter(pl.col("condition").is_in(list(AXIS_ORDER)))
    for label in rows.get_column(label_col).unique(maintain_order=True).to_list():
        sub = rows.filter(pl.col(label_col) == label)
        by_cond = dict(zip(sub["condition"].to_list(), sub["value"].to_list()))
        r = [by_cond.get(c) for c in AXIS_ORDER]
        r.append(r[0])
        fig.add_trace(
            go.Scatterpolar(
                r=r,
                theta=theta,
                name=label,
                mode="lines+markers",
                connectgaps=False,
                hovertemplate="%{theta}: %{r:.1f}%<extra>" + label.replace("%", "%%") + "</extra>",
            )
        )
    fig.update_layout(
        title=title,
        polar=dict(
            radialaxis=dict(range=[0, 100], ticksuffix="%"),
            angularaxis=dict(categoryorder="array", categoryarray=theta[:-1], direction="clockwise"),
        ),
        legend=dict(orientation="h", y=-0.15),
        margin=dict(l=40, r=40, t=60 if title else 30, b=40),
    )
    return fig
