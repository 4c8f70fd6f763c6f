"""Stress degradation figures (CAP §4.3, Table 6): δ heatmap and per-judge mean bars."""

from __future__ import annotations

import polars as pl

from cap_core.colours import judge_colour
from components.labels import figure_text, figure_texts, short_labels
from components.plotting import go

__all__ = ["stress_interval_figure", "stress_heatmap", "stress_mean_bars"]


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
    # judge and condition names come from data: drawn as text
    fig = go.Figure(go.Heatmap(z=z, x=figure_texts(conds), y=figure_texts(judges), text=text, texttemplate="%{text}", colorscale="RdBu_r",
                               zmin=-peak, zmax=peak, colorbar={"title": "δ (points)"},
                               hovertemplate="%{y} %{x}: δ %{z:.1f} points<extra></extra>"))
    fig.update_layout(title="δ = base − stressed (points; positive = worse under stress; ★ dominant channel)",
                      height=120 + 32 * len(judges), margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(autorange="reversed")
    return fig


def stress_mean_bars(per_judge: pl.DataFrame) -> go.Figure:
    """Horizontal bars of each judge's mean δ over the shared conditions (Table 6 "Mean")."""
    rows = per_judge.sort("mean_delta")
    fig = go.Figure(go.Bar(x=rows["mean_delta"].to_list(), y=figure_texts(rows["judge"].to_list()), orientation="h",
                           marker_color=[judge_colour(j) for j in rows["judge"].to_list()],
                           text=[f"{v:+.1f}" for v in rows["mean_delta"]], textposition="auto",
                           customdata=figure_texts(rows["dominant_condition"].to_list()),
                           hovertemplate="%{y}: mean δ %{x:.1f} points; dominant %{customdata}<extra></extra>"))
    fig.update_layout(title="Mean δ per judge (points)", xaxis_title="points",
                      height=120 + 28 * rows.height, margin={"l": 10, "r": 10, "t": 50, "b": 10})
    return fig


def stress_interval_figure(deltas: pl.DataFrame) -> go.Figure:
    """δ with its bootstrap interval per judge (colour) and condition (rows), in points.

    Parameters
    ----------
    deltas : polars.DataFrame
        :func:`cap_core.analyses.stress.stress_on_data` rows (judge, condition, delta,
        ci_low, ci_high, base_value, stressed_value).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Scatter`` trace per judge in its colour (:func:`cap_core.colours.judge_colour`),
        one row per judge and condition (y = ``"judge · condition"``, judges in table order)
        with asymmetric 95% whiskers; a dotted line at 0; hover gives δ, the interval and
        both values.
    """
    fig = go.Figure()
    judges = deltas["judge"].unique(maintain_order=True).to_list()
    shown = {j: figure_text(s) for j, s in short_labels(judges, 40).items()}  # names from data drawn as text
    rows = [f"{shown[j]} · {figure_text(c)}" for j, c in deltas.select("judge", "condition").iter_rows()]
    for judge in judges:
        d = deltas.filter(pl.col("judge") == judge)
        fig.add_trace(go.Scatter(
            x=d["delta"].to_list(), y=[f"{shown[judge]} · {figure_text(c)}" for c in d["condition"].to_list()],
            mode="markers", name=shown[judge], showlegend=False,
            marker=dict(size=10, color=judge_colour(judge)),
            error_x=dict(type="data", symmetric=False, array=(d["ci_high"] - d["delta"]).to_list(),
                         arrayminus=(d["delta"] - d["ci_low"]).to_list(), color=judge_colour(judge)),
            customdata=d.select("ci_low", "ci_high", "base_value", "stressed_value").rows(),
            hovertemplate="%{y}: δ %{x:+.1f} points [%{customdata[0]:+.1f}, %{customdata[1]:+.1f}]<br>"
                          "base %{customdata[2]:.1f}% → stressed %{customdata[3]:.1f}%<extra>"
                          + shown[judge].replace("%", "%%") + "</extra>"))
    fig.add_vline(x=0, line_dash="dot")
    fig.update_layout(xaxis_title="δ = base − stressed (points; positive = worse under stress)",
                      height=90 + 22 * len(rows), margin={"l": 10, "r": 10, "t": 20, "b": 10})
    fig.update_yaxes(categoryorder="array", categoryarray=list(reversed(rows)), automargin=True)
    return fig
