"""Agreement matrix heatmap (judge–judge and judge–label), frame in, figure out."""

from __future__ import annotations

import polars as pl

from components.labels import figure_texts
from components.plotting import go

__all__ = ["agreement_heatmap"]


def agreement_heatmap(matrix: pl.DataFrame, value: str = "kappa") -> go.Figure:
    """Heatmap of ``value`` (``kappa`` or ``agreement`` percent) from the long frame of
    :func:`cap_core.cascades.agreement.agreement_matrix`, rows/columns in first-seen order."""
    names = matrix["row"].unique(maintain_order=True).to_list()
    look = {(r, c): v for r, c, v in matrix.select("row", "col", value).iter_rows()}
    z = [[look.get((r, c)) for c in names] for r in names]
    text = [[("" if v is None else f"{v:.2f}" if value == "kappa" else f"{v:.0f}%") for v in row] for row in z]
    shown = figure_texts(names)  # names from data drawn as text
    fig = go.Figure(go.Heatmap(z=z, x=shown, y=shown, text=text, texttemplate="%{text}", colorscale="Blues",
                               zmin=0 if value == "agreement" else -1, zmax=100 if value == "agreement" else 1))
    fig.update_layout(margin=dict(l=40, r=20, t=30, b=40), yaxis_autorange="reversed")
    return fig
