"""Figures for the Cascades page: accuracy–cost curve and the Pareto front (frames in, figures out)."""

from __future__ import annotations

import polars as pl

from cap_core.colours import judge_colour
from components.labels import figure_text, figure_texts
from components.plotting import go

__all__ = ["cascade_curve_figure", "pareto_figure", "pareto_front"]


def cascade_curve_figure(curves: dict[str, pl.DataFrame], point: dict | None = None) -> go.Figure:
    """Accuracy (percent) against $ per 1,000 items along τ, one line per fallback.

    ``curves`` maps fallback -> frame with ``tau, accuracy, deferral_pct, usd_per_1000``;
    ``point`` (keys ``usd_per_1000``, ``accuracy``, ``tau``) marks the current τ. Each line takes
    its fallback judge's colour (:func:`cap_core.colours.judge_colour`).
    """
    fig = go.Figure()
    for fb, c in curves.items():
        fig.add_trace(go.Scatter(x=c["usd_per_1000"].to_list(), y=c["accuracy"].to_list(), mode="lines",
                                 name=figure_text(f"via {fb}"), line=dict(color=judge_colour(fb)), customdata=list(zip(c["tau"], c["deferral_pct"])),
                                 hovertemplate="τ %{customdata[0]:.3f}, deferred %{customdata[1]:.0f}%<br>"
                                               "%{y:.1f}% at $%{x:.2f} / 1,000<extra></extra>"))
    if point is not None:
        fig.add_trace(go.Scatter(x=[point["usd_per_1000"]], y=[point["accuracy"]], mode="markers", name="current τ",
                                 marker=dict(size=14, symbol="star"),
                                 hovertemplate=f"τ = {point['tau']:.2f}<br>%{{y:.1f}}% at $%{{x:.2f}}<extra></extra>"))
    fig.update_layout(xaxis_title="$ per 1,000 items (estimated)", yaxis_title="accuracy (%)",
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


def log_ticks(low: float, high: float) -> list[float]:
    """Tick values of a log axis over ``[low, high]`` (both > 0): the powers of ten when the range spans more
    than two decades, else 1-2-5 steps, so that a label never sits on every minor tick."""
    import math

    if not (low > 0 and high > 0):
        return []
    k0, k1 = math.floor(math.log10(low)), math.ceil(math.log10(high))
    steps = (1,) if k1 - k0 > 2 else (1, 2, 5)
    return [m * 10.0 ** k for k in range(k0, k1 + 1) for m in steps if low <= m * 10.0 ** k <= high] or [low, high]


def pareto_figure(points: pl.DataFrame) -> go.Figure:
    """Single judges, juries and cascades in accuracy vs $ per 1,000 items, with the front as a line.

    ``points``: ``entry, kind, accuracy`` (percent), ``usd_per_1000``.
    """
    fig = go.Figure()
    for kind in points["kind"].unique(maintain_order=True).to_list():
        sub = points.filter(pl.col("kind") == kind).drop_nulls("usd_per_1000")
        fig.add_trace(go.Scatter(x=sub["usd_per_1000"].to_list(), y=sub["accuracy"].to_list(), mode="markers",
                                 name=figure_text(kind), text=figure_texts(sub["entry"].to_list()),
                                 hovertemplate="%{text}<br>%{y:.1f}% at $%{x:.2f} / 1,000<extra></extra>"))
    front = pareto_front(points)
    fig.add_trace(go.Scatter(x=front["usd_per_1000"].to_list(), y=front["accuracy"].to_list(), mode="lines",
                             name="Pareto front", line=dict(dash="dot")))
    xs = [x for x in points["usd_per_1000"].drop_nulls().to_list() if x > 0]
    ticks = log_ticks(min(xs), max(xs)) if xs else []
    fig.update_layout(xaxis=dict(title="$ per 1,000 items (log)", type="log", tickvals=ticks or None,
                                 ticktext=[f"${t:g}" for t in ticks] or None),
                      yaxis_title="accuracy (%)", margin=dict(l=40, r=20, t=30, b=40),
                      legend=dict(orientation="h", y=-0.2))
    return fig
