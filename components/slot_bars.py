"""Sensitivity per slot (Validity Table 6 / Fig. 6 analogue) as horizontal bars. Pure."""

from __future__ import annotations

import math

import polars as pl

from cap_core.colours import judge_colour
from components.labels import figure_text
from components.plotting import go

__all__ = ["slot_bars_figure"]


def _num(v) -> float | None:
    """A proportion as percent (None when missing)."""
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else 100 * float(v)


def slot_bars_figure(table: pl.DataFrame, published: pl.DataFrame | None = None) -> go.Figure:
    """One bar per slot and judge (R for T_C slots, flip rate for T_I controls) with interval whiskers.

    Parameters
    ----------
    table : polars.DataFrame
        :data:`cap_core.validity.slots.SLOT_TABLE_SCHEMA` rows (proportions).
    published : polars.DataFrame, optional
        :func:`cap_core.validity.slots.published_slot_table`; its ``R`` (mean over the
        paper's 7 judges) is drawn as black diamonds named "published: Validity Table 6".

    Returns
    -------
    plotly.graph_objects.Figure
        Horizontal grouped ``Bar`` traces, one per judge, slots on the y axis in table
        order (controls hatched), in each judge's colour; x in percent, 0–100.
    """
    slots = table["slot"].unique(maintain_order=True).to_list()
    if published is not None:
        slots += [s for s in published["slot"].to_list() if s not in slots]
    labels = {r["slot"]: figure_text(f"{r['slot']} ({r['measure']})") for r in table.iter_rows(named=True)}
    labels.update({s: figure_text(f"{s} (R)") for s in slots if s not in labels})
    fig = go.Figure()
    for judge in table["judge"].unique(maintain_order=True).to_list():
        t = table.filter(pl.col("judge") == judge)
        vals = [_num(v) for v in t["value"].to_list()]
        lo = [None if v is None or _num(c) is None else v - _num(c) for v, c in zip(vals, t["ci_low"].to_list())]
        hi = [None if v is None or _num(c) is None else _num(c) - v for v, c in zip(vals, t["ci_high"].to_list())]
        fig.add_trace(go.Bar(
            y=[labels[s] for s in t["slot"].to_list()], x=vals, name=figure_text(judge), orientation="h",
            error_x=dict(type="data", symmetric=False, array=hi, arrayminus=lo, thickness=1),
            marker_pattern_shape=["/" if m == "flip rate" else "" for m in t["measure"].to_list()],
            marker_color=judge_colour(judge),
            hovertemplate="%{y}: %{x:.1f}%<extra>" + figure_text(judge) + "</extra>"))
    if published is not None and published.height:
        fig.add_trace(go.Scatter(
            y=[labels[s] for s in published["slot"].to_list()], x=[_num(v) for v in published["R"].to_list()],
            mode="markers",
            name="published: Validity Table 6", marker=dict(symbol="diamond", size=10, color="black"),
            hovertemplate="%{y}: %{x:.1f}%<extra>published: Validity Table 6</extra>"))
    fig.update_layout(barmode="group", xaxis=dict(range=[0, 100], title="probes whose verdict moved (%)"),
                      yaxis=dict(categoryorder="array", categoryarray=[labels[s] for s in reversed(slots)]),
                      height=max(320, 60 + 28 * len(slots) * max(1, table["judge"].n_unique()) // 2),
                      margin=dict(l=10, r=10, t=20, b=40), legend=dict(orientation="h", y=-0.2))
    return fig
