"""Figures of a judge choice, shared by the dashboard (:mod:`components.leaderboard`) and the HTML report.

Plotly only (no streamlit): a leaderboard frame in, a ``plotly.graph_objects.Figure`` out.
"""

from __future__ import annotations

from typing import Mapping

import polars as pl

from cap_core.figure_text import figure_text

__all__ = ["leaderboard_bars"]


def leaderboard_bars(board: pl.DataFrame, names: Mapping[str, str] | None = None):
    """Horizontal bars of the weighted score (percent) with their interval whiskers, leader on top.

    Parameters
    ----------
    board : polars.DataFrame
        :data:`cap_core.choice.leaderboard.LEADERBOARD_SCHEMA` rows (a ``label`` column, when
        present, names the bars; else ``judge``).
    names : mapping, optional
        Shorter display name of each label. Names are drawn as text
        (:func:`cap_core.figure_text.figure_text`): plotly's markup in a name forms no link.

    Returns
    -------
    plotly.graph_objects.Figure
        The leader and the judges not separable from it in blue, the judges separably below
        it grey; hover gives the score, interval, P(best) and rank range.
    """
    import plotly.graph_objects as go

    key = "label" if "label" in board.columns else "judge"
    s = board.filter(pl.col("rank").is_not_null()).sort("rank", descending=True)
    shown = [figure_text((names or {}).get(x, x)) for x in s[key].to_list()]  # names from data drawn as text
    colour = ["#1f77b4" if r == 1 or sp is not True else "#b0b0b0" for r, sp in zip(s["rank"], s["separable"])]
    ranks = [str(b) if b == w else f"{b}–{w}" for b, w in zip(s["rank_best"], s["rank_worst"])]
    fig = go.Figure(go.Bar(
        x=s["score"].to_list(), y=shown, orientation="h", marker_color=colour,
        error_x=dict(type="data", symmetric=False, array=(s["ci_high"] - s["score"]).to_list(),
                     arrayminus=(s["score"] - s["ci_low"]).to_list()),
        customdata=list(zip(s["ci_low"].to_list(), s["ci_high"].to_list(), s["p_best"].to_list(), ranks)),
        hovertemplate="%{y}: %{x:.1f}% [%{customdata[0]:.1f}, %{customdata[1]:.1f}], "
                      "P(best) %{customdata[2]:.2f}, rank %{customdata[3]}<extra></extra>",
    ))
    fig.update_layout(xaxis=dict(range=[0, 100], title="weighted score (%)"), margin=dict(l=10, r=10, t=20, b=40),
                      height=max(220, 60 + 36 * s.height), showlegend=False)
    return fig
