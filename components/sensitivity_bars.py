"""Per-axis sensitivity bars beside the control flip rate (Validity Fig. 6). Pure; proportions in,
percent on the figure."""

from __future__ import annotations

import math

import polars as pl

from components.labels import figure_texts
from components.plotting import go

__all__ = ["axis_bars_figure", "BAR_MEASURES"]

#: bar name -> how it is read off an operating-point row.
BAR_MEASURES = {"R scope": "R_scope", "R strength": "R_strength", "R (all construct edits)": "R",
                "control flip rate (1 − S)": "S"}


def axis_bars_figure(points: pl.DataFrame) -> go.Figure:
    """Grouped bars per judge: R_scope, R_strength, R and the control flip rate 1 − S.

    Parameters
    ----------
    points : polars.DataFrame
        One row per judge with judge, S, R, R_scope, R_strength (proportions; NaN or
        null = arm not measured, drawn as no bar).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Bar`` trace per measure; y in percent, 0–100. The control flip-rate trace is always
        drawn: a judge without S gets a zero-height bar labelled ``n/a`` (text and hover),
        so a missing S never reads as a flip rate of 0.
    """
    fig = go.Figure()
    judges = figure_texts(points["judge"].to_list())  # names from data drawn as text
    for name, col in BAR_MEASURES.items():
        vals = [None if v is None or math.isnan(v) else 100 * (1 - v if col == "S" else v) for v in points[col].to_list()]
        if col == "S":
            fig.add_trace(go.Bar(x=judges, y=[0.0 if v is None else v for v in vals], name=name,
                                 marker_pattern_shape="/", text=["n/a" if v is None else "" for v in vals],
                                 textposition="outside",
                                 hovertext=["n/a: S not measured" if v is None else f"{v:.1f}%" for v in vals],
                                 hovertemplate=f"{name}: %{{hovertext}}<extra>%{{x}}</extra>"))
            continue
        if all(v is None for v in vals):
            continue
        fig.add_trace(go.Bar(x=judges, y=vals, name=name,
                             hovertemplate=f"{name}: %{{y:.1f}}%<extra>%{{x}}</extra>"))
    fig.update_layout(barmode="group", yaxis=dict(range=[0, 100], title="probes flipped (%)"),
                      height=360, margin=dict(l=10, r=10, t=20, b=40))
    return fig
