"""Bar chart of weighted judge scores with their intervals."""

from __future__ import annotations

import polars as pl

from cap_core.colours import judge_colour
from components.labels import figure_text, short_labels
from components.plotting import go

__all__ = ["score_bars_figure"]


def score_bars_figure(scores: pl.DataFrame, *, label_col: str = "label", title: str | None = None) -> go.Figure:
    """Horizontal bars of the weighted score, best on top, with CI error bars.

    Parameters
    ----------
    scores : polars.DataFrame
        Output of :func:`cap_core.profile.weights.weighted_scores` plus ``label_col``;
        rows with a null score are skipped.
    label_col : str, default "label"
        Entry names; the axis shows them cut to 60 characters (distinct ones stay distinct).

    Returns
    -------
    plotly.graph_objects.Figure
        One ``Bar`` trace, ``x`` = score (percent), asymmetric ``error_x`` from
        ``ci_low``/``ci_high``, bars in each judge's colour; P(best) is an annotation
        just right of each interval's upper end (never over a bar or a whisker); the right
        margin leaves room for one at 100%.
    """
    s = scores.filter(pl.col("score").is_not_null()).sort("score", descending=False)
    shown = {k: figure_text(v) for k, v in short_labels(s[label_col].to_list()).items()}  # drawn as text
    fig = go.Figure(
        go.Bar(
            x=s["score"].to_list(),
            y=[shown[x] for x in s[label_col].to_list()],
            orientation="h",
            error_x=dict(
                type="data",
                symmetric=False,
                array=(s["ci_high"] - s["score"]).to_list(),
                arrayminus=(s["score"] - s["ci_low"]).to_list(),
            ),
            marker_color=[judge_colour(x) for x in s[label_col].to_list()],
            customdata=list(zip(s["ci_low"].to_list(), s["ci_high"].to_list(), s["method"].to_list())),
            hovertemplate="%{y}: %{x:.1f}% [%{customdata[0]:.1f}, %{customdata[1]:.1f}]<br>%{customdata[2]}<extra></extra>",
        )
    )
    # P(best) right of each interval's upper end, on white: never over a bar or a whisker. Given with the
    # layout in one go: add_annotation per judge copies every earlier annotation again (quadratic).
    notes = [dict(x=min(high if high is not None else 0, 100), y=shown[label], text=f"P(best) {p:.2f}",
                  showarrow=False, xanchor="left", xshift=6, font=dict(size=12))
             for label, high, p in zip(s[label_col].to_list(), s["ci_high"].to_list(), s["p_best"].to_list())
             if p is not None]
    fig.update_layout(
        title=figure_text(title),
        annotations=notes,
        xaxis=dict(range=[0, 100], title="weighted score (%)"),
        margin=dict(l=10, r=110, t=50 if title else 20, b=40),
        height=max(220, 60 + 40 * s.height),
    )
    return fig
