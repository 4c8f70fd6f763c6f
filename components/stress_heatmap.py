"""Stress degradation figures (CAP §4.3, Table 6): δ heatmap and per-judge mean bars."""

from __future__ import annotations

import polars as pl

from components.plotting import go

__all__ = ["stress_heatmap", "stress_mean_bars"]


def stress_heatmap(deltas: pl.DataFrame, per_judge: pl.DataFrame) -> go.Figure:
    """Judge × condition heatmap of δ = base − stressed (points); each judge's dominant channel starred.

    Parameters
    ----------
    deltas : polars.DataFrame
        Output of :func:`cap_core.analyses.stress.stress_deltas` (judge, condition, delta).
    per_judge : polars.DataFrame
        First output of :func:`cap_core.analyses.stress.stress_summary` (judge, dominant_condition).
    """
    judges = sorted(deltas["judge"].unique().to_list())
    conds = sorted(deltas["condition"].unique().to_list())
    val = {(j, c): d for j, c, d in deltas.select("judge", "condition", "delta").iter_rows()}
    dom = {j: set((d or "").split(";")) for j, d in per_judge.select("judge", "dominant_condition").iter_rows()}
    z = [[val.get((j, c)) for c in conds] for j in judges]
    text = [["" if val.get((j, c)) is None else f"{val[(j, c)]:+.1f}{' ★' if c in dom.get(j, ()) else ''}"
             for c in conds] for j in judges]
    peak = max((abs(v) for v in val.values()), default=1.0) or 1.0
    fig = go.Figure(go.Heatmap(z=z, x=conds, y=judges, text=text, texttemplate="%{text}", colorscale="RdBu_r",
                               zmin=-peak, zmax=peak, colorbar={"title": "δ (points)"},
                               hovertemplate="%{y} %{x}: δ %{z:.1f} points<extra></extra>"))
    fig.update_layout(title="δ = base − stressed (points; positive = worse under stress; ★ dominant channel)",
                      height=120 + 32 * len(judges), margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(autorange="reversed")
    return fig


def stress_mean_bars(per_judge: pl.DataFrame) -> go.Figure:
    """Horizontal bars of each judge's mean δ over the shared conditions (Table 6 "Mean")."""
    rows = per_judge.sort("mean_delta")
    fig = go.Figure(go.Bar(x=rows["mean_delta"].to_list(), y=rows["judge"].to_list(), orientation="h",
                           text=[f"{v:+.1f}" for v in rows["mean_delta"]], textposition="auto",
                           customdata=rows["dominant_condition"].to_list(),
                           hovertemplate="%{y}: mean δ %{x:.1f} points; dominant %{customdata}<extra></extra>"))
    fig.update_layout(title="Mean δ per judge (points)", xaxis_title="points",
                      height=120 + 28 * rows.height, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig
