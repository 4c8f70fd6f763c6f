"""Figures for the Cascades page: accuracy–cost curve and the Pareto front (frames in, figures out)."""

from __future__ import annotations

import polars as pl

from components.colors import judge_colour
from components.plotting import go

__all__ = ["cascade_curve_figure", "pareto_figure", "pareto_front"]


def cascade_curve_figure(curves: dict[str, pl.DataFrame], point: dict | None = None) -> go.Figure:
    """Accuracy (percent) against $ per 1,000 verdicts along τ, one line per fallback.

    ``curves`` maps fallback -> frame with ``tau, accuracy, deferral_pct, usd_per_1000``;
    ``point`` (keys ``usd_per_1000``, ``accuracy``, ``tau``) marks the current τ. Each line takes
    its fallback judge's colour (:func:`components.colors.judge_colour`).
    """
    fig = go.Figure()
    for fb, c in curves.items():
        fig.add_trace(go.Scatter(x=c["usd_per_1000"].to_list(), y=c["accuracy"].to_list(), mode="lines",
                                 name=f"via {fb}", line=dict(color=judge_colour(fb)), customdata=list(zip(c["tau"], c["deferral_pct"])),
                                 hovertemplate="τ %{customdata[0]:.3f}, deferred %{customdata[1]:.0f}%<br>"
                                               "%{y:.1f}% at $%{x:.2f} / 1,000<extra></extra>"))
    if point is not None:
        fig.add_trace(go.Scatter(x=[point["usd_per_1000"]], y=[point["accuracy"]], mode="markers", name="current τ",
                                 marker=dict(size=14, symbol="star"),
                                 hovertemplate=f"τ = {point['tau']:.2f}<br>%{{y:.1f}}% at $%{{x:.2f}}<extra></extra>"))
    fig.update_layout(xaxis_title="$ per 1,000 verdicts (estimated)", yaxis_title="accuracy (%)",
                      margin=dict(l=40, r=20, t=30, b=40), legend=dict(orientation="h", y=-0.2))
    return fig


def pareto_front(points: pl.DataFrame) -> pl.DataFrame:
    """Rows not dominated (no other row is at least as accurate and at most as costly, one strictly)."""
    p = points.drop_nulls(["usd_per_1000", "accuracy"])
    keep = []
    rows = p.rows(named=True)
    for r in rows:
        dominated = any(o["accuracy"] >= r["accuracy"] and o["usd_per_1000"] <= r["usd_per_1000"]
                        and (o["accuracy"] > r["accuracy"] or o["usd_per_1000"] < r["usd_per_1000"]) for o in rows)
        keep.append(not dominated)
    return p.filter(pl.Series(keep, dtype=pl.Boolean)).sort("usd_per_1000")


def pareto_figure(points: pl.DataFrame) -> go.Figure:
    """Single judges, juries and cascades in accuracy vs $ per 1,000 verdicts, with the front as a line.

    ``points``: ``entry, kind, accuracy`` (percent), ``usd_per_1000``.
    """
    fig = go.Figure()
    for kind in points["kind"].unique(maintain_order=True).to_list():
        sub = points.filter(pl.col("kind") == kind).drop_nulls("usd_per_1000")
        fig.add_trace(go.Scatter(x=sub["usd_per_1000"].to_list(), y=sub["accuracy"].to_list(), mode="markers",
                                 name=kind, text=sub["entry"].to_list(),
                                 hovertemplate="%{text}<br>%{y:.1f}% at $%{x:.2f} / 1,000<extra></extra>"))
    front = pareto_front(points)
    fig.add_trace(go.Scatter(x=front["usd_per_1000"].to_list(), y=front["accuracy"].to_list(), mode="lines",
                             name="Pareto front", line=dict(dash="dot")))
    fig.update_layout(xaxis_title="$ per 1,000 verdicts (log)", xaxis_type="log", yaxis_title="accuracy (%)",
                      margin=dict(l=40, r=20, t=30, b=40), legend=dict(orientation="h", y=-0.2))
    return fig
