"""Paired judge comparison figure (Jev §3.5): difference per condition with 95% and 90% intervals."""

from __future__ import annotations

import polars as pl

from components.labels import figure_text, figure_texts
from components.plotting import go

__all__ = ["paired_figure", "VERDICT_COLOURS"]

VERDICT_COLOURS = {"separated": "#c0392b", "parity": "#27ae60", "inconclusive": "#7f8c8d",
                   "not testable": "#bdc3c7"}


def paired_figure(rows: pl.DataFrame, judge_a: str, judge_b: str, margin: float = 5.0) -> go.Figure:
    """Dot-and-whisker plot of A − B (points) per condition, coloured by verdict.

    Parameters
    ----------
    rows : polars.DataFrame
        Output of :func:`cap_core.analyses.judge_comparison.compare_judges` (condition, diff, ci95_low,
        ci95_high, ci90_low, ci90_high, verdict).
    """
    fig = go.Figure()
    for verdict, part in rows.group_by("verdict", maintain_order=True):
        v = verdict[0]
        fig.add_trace(go.Scatter(
            x=part["diff"].to_list(), y=figure_texts(part["condition"].to_list()), mode="markers",
            name=figure_text(v),
            marker={"size": 11, "color": VERDICT_COLOURS.get(v, "#34495e")},
            error_x={"type": "data", "symmetric": False,
                     "array": (part["ci95_high"] - part["diff"]).to_list(),
                     "arrayminus": (part["diff"] - part["ci95_low"]).to_list()},
            hovertemplate="%{y}: %{x:.1f} points<extra>" + figure_text(v) + "</extra>"))
    fig.add_vrect(x0=-margin, x1=margin, fillcolor="#27ae60", opacity=0.08, line_width=0)
    fig.add_vline(x=0, line_dash="dot")
    fig.update_layout(title=f"{figure_text(judge_a)} − {figure_text(judge_b)} (points, 95% paired bootstrap interval; "
                            f"band ±{margin:g})",
                      xaxis_title="difference (points)", height=140 + 36 * rows.height,
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(categoryorder="array", categoryarray=figure_texts(reversed(rows["condition"].to_list())))
    return fig
