"""Heatmap of a testbed's plan: questions per domain and planted error type."""

from __future__ import annotations

import polars as pl

from cap_core.schema import CONTENT_FAILURE_TYPES
from components.labels import figure_text, figure_texts
from components.plotting import go

__all__ = ["plan_heatmap"]


def plan_heatmap(counts: pl.DataFrame, *, title: str | None = None) -> go.Figure:
    """Questions per (domain, planted error type).

    Parameters
    ----------
    counts : polars.DataFrame
        Columns ``domain`` (String), ``failure_type`` (String, a value of
        :data:`cap_core.schema.CONTENT_FAILURE_TYPES`) and ``n`` (integer).

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Heatmap``: x = the four types in condition order, labelled ``C1 factual
        fabrication`` ..., y = domains (sorted), z = the count (0 where absent), each cell
        showing its count.
    """
    types = list(CONTENT_FAILURE_TYPES.items())
    domains = sorted(counts.get_column("domain").unique().to_list())
    cell = {(r["domain"], r["failure_type"]): int(r["n"]) for r in counts.iter_rows(named=True)}
    z = [[cell.get((d, t), 0) for _, t in types] for d in domains]
    x = [f"{c} {t.replace('_', ' ')}" for c, t in types]
    fig = go.Figure(go.Heatmap(z=z, x=x, y=figure_texts(domains),  # the user's domain names drawn as text
                               text=[[str(v) for v in row] for row in z], texttemplate="%{text}", colorscale="Blues", showscale=False,
                               hovertemplate="%{y} · %{x}: %{z} questions<extra></extra>"))
    fig.update_layout(title=figure_text(title), height=120 + 36 * len(domains),
                      margin=dict(l=10, r=10, t=40 if title else 10, b=10))
    return fig
