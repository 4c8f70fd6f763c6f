"""The (S, R) plane: one monotone-hull frontier per judge, its live and matched points.

Pure: frames in, ``go.Figure`` out. The frames hold proportions (as
:mod:`cap_core.validity` computes them); the figure shows percent, like every rate on the
pages: x = invariance S (%), y = sensitivity R (%) (Validity Fig. 3 / Fig. 5). Each judge
takes its colour from :func:`cap_core.colours.judge_colour`.
"""

from __future__ import annotations

import polars as pl

from cap_core.colours import judge_colour
from components.labels import figure_text
from components.plotting import go

__all__ = ["frontier_figure", "QUADRANT_COLOURS"]

QUADRANT_COLOURS = {"valid": "rgba(60,160,90,0.10)", "insensitive": "rgba(230,170,40,0.12)",
                    "unstable": "rgba(120,120,220,0.10)", "invalid": "rgba(210,70,70,0.10)"}

def _pct(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """S and R of a frame in percent."""
    if frame is None:
        return None
    return frame.with_columns((pl.col(c) * 100).alias(c) for c in ("S", "R") if c in frame.columns)


def _quadrants(fig: go.Figure, s_high: float, r_high: float) -> None:
    boxes = {"valid": (s_high, 102, r_high, 102), "insensitive": (s_high, 102, -2, r_high),
             "unstable": (-2, s_high, r_high, 102), "invalid": (-2, s_high, -2, r_high)}
    for name, (x0, x1, y0, y1) in boxes.items():
        fig.add_shape(type="rect", x0=x0, x1=x1, y0=y0, y1=y1, fillcolor=QUADRANT_COLOURS[name],
                      line_width=0, layer="below")
        fig.add_annotation(x=(x0 + x1) / 2, y=y1 - 3, text=name, showarrow=False, font=dict(color="grey"))
    fig.add_shape(type="line", x0=100, y0=0, x1=0, y1=100, line=dict(dash="dash", color="grey", width=1))
    fig.add_annotation(x=50, y=50, text="S + R = 100%", showarrow=False, textangle=45, font=dict(color="grey"))


def frontier_figure(sweep: pl.DataFrame, matched: pl.DataFrame, selected: pl.DataFrame,
                    published: pl.DataFrame | None = None, *, s_high: float = 0.90,
                    r_high: float = 0.50, zoom: bool = False) -> go.Figure:
    """Frontiers, matched-invariance points (ringed), the slider points, published points.

    Parameters
    ----------
    sweep : polars.DataFrame
        :func:`cap_core.validity.frontier.sweep` output (judge, tau, S, R, on_hull, ...).
    matched : polars.DataFrame
        :func:`cap_core.validity.frontier.operating_point` rows (judge, tau, S, R).
    selected : polars.DataFrame
        One row per judge at the slider's tau (judge, tau, S, R).
    published : polars.DataFrame, optional
        Published operating points (judge, S, R), drawn as crosses; the judge is named in
        the hover (fixed text labels would collide).
    s_high, r_high : float
        Quadrant cut-offs for the shading (proportions, as the frames).
    zoom : bool
        Limit the S axis to the measured points (and published ones) instead of [0, 1].

    Returns
    -------
    plotly.graph_objects.Figure
        Per judge: a line through hull vertices ("frontier"), faint markers of every
        threshold, a ringed matched point and a filled slider point. Judges whose S
        is not measurable (NaN) are skipped. Axes and hover in percent.
    """
    sweep, matched, selected, published = _pct(sweep), _pct(matched), _pct(selected), _pct(published)
    s_high, r_high = 100 * s_high, 100 * r_high
    fig = go.Figure()
    _quadrants(fig, s_high, r_high)
    ok = sweep.filter(pl.col("S").is_not_nan() & pl.col("R").is_not_nan())
    for k, judge in enumerate(sorted(ok["judge"].unique().to_list())):
        c = judge_colour(judge)
        shown = figure_text(judge)  # a name from data drawn as text
        j = ok.filter(pl.col("judge") == judge)
        v = j.filter(pl.col("on_hull")).sort(["S", "R"], descending=[True, False])
        fig.add_trace(go.Scatter(x=j["S"].to_list(), y=j["R"].to_list(), mode="markers", opacity=0.35,
                                 marker=dict(color=c, size=5), name=f"{shown}: every τ", legendgroup=shown,
                                 showlegend=False, customdata=j["tau"].to_list(),
                                 hovertemplate="τ=%{customdata:.3g}<br>S=%{x:.1f}% R=%{y:.1f}%<extra></extra>"))
        fig.add_trace(go.Scatter(x=v["S"].to_list(), y=v["R"].to_list(), mode="lines+markers", legendgroup=shown,
                                 line=dict(color=c), marker=dict(color=c, size=7), name=f"{shown} frontier",
                                 customdata=v["tau"].to_list(),
                                 hovertemplate="vertex τ=%{customdata:.3g}<br>S=%{x:.1f}% R=%{y:.1f}%<extra></extra>"))
        for frame, sym, size, label in ((matched, "circle-open", 20, "matched S"),
                                        (selected, "diamond", 13, "slider τ")):
            row = frame.filter(pl.col("judge") == judge)
            if row.height:
                fig.add_trace(go.Scatter(x=row["S"].to_list(), y=row["R"].to_list(), mode="markers",
                                         legendgroup=shown, showlegend=False, name=f"{shown} {label}",
                                         marker=dict(symbol=sym, size=size, color=c, line=dict(width=2, color=c)),
                                         hovertemplate=f"{label} τ={row['tau'][0]:.3g}<br>"
                                                       "S=%{x:.1f}% R=%{y:.1f}%<extra></extra>"))
    if published is not None and published.height:
        # names in the hover, not as fixed labels: published points sit close together and labels collide
        fig.add_trace(go.Scatter(x=published["S"].to_list(), y=published["R"].to_list(), mode="markers",
                                 marker=dict(symbol="x", size=9, color="black"), name="published (Validity Table 5)",
                                 text=[figure_text(j.split("/")[-1]) for j in published["judge"].to_list()],
                                 hovertemplate="%{text} (published)<br>S=%{x:.1f}% R=%{y:.1f}%<extra></extra>"))
    xs = ok["S"].to_list() + (published["S"].to_list() if published is not None else [])
    lo = max(-2, min(xs + [s_high]) - 3) if zoom and xs else -2
    fig.update_layout(xaxis=dict(title="invariance S (%)", range=[lo, 101 if zoom else 102]),
                      yaxis=dict(title="sensitivity R (%)", range=[-2, 102]), height=560,
                      margin=dict(l=10, r=10, t=30, b=40), legend=dict(orientation="h", y=-0.15))
    return fig
