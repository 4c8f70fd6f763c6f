"""Symmetric Spearman ρ matrix from a table of pairs (CAP App. F Table 13, App. G Table 14)."""

from __future__ import annotations

import polars as pl

from components.plotting import go

__all__ = ["spearman_matrix"]


def spearman_matrix(pairs: pl.DataFrame, a: str, b: str, title: str) -> go.Figure:
    """Heatmap of ρ with "*" on significant pairs and "n/a" where no ρ exists.

    Parameters
    ----------
    pairs : polars.DataFrame
        Output of :func:`cap_core.analyses.rank_stability.cross_benchmark_spearman` (``a`` =
        "view_a", ``b`` = "view_b") or ``cross_condition_spearman`` ("condition_a",
        "condition_b"); columns rho, significant, status, n_judges.
    """
    names = list(dict.fromkeys(pairs[a].to_list() + pairs[b].to_list()))
    cell = {}
    for r in pairs.iter_rows(named=True):
        txt = "n/a" if r["status"] != "ok" else f"{r['rho']:.2f}{'*' if r['significant'] else ''}"
        cell[(r[a], r[b])] = cell[(r[b], r[a])] = (r["rho"], f"{txt}<br>n={r['n_judges']}")
    z = [[1.0 if x == y else cell.get((x, y), (None, ""))[0] for y in names] for x in names]
    text = [["—" if x == y else cell.get((x, y), (None, ""))[1] for y in names] for x in names]
    fig = go.Figure(go.Heatmap(z=z, x=names, y=names, text=text, texttemplate="%{text}", zmin=-1, zmax=1,
                               colorscale="RdBu", colorbar={"title": "ρ"},
                               hovertemplate="%{y} vs %{x}: %{text}<extra></extra>"))
    fig.update_layout(title=title, height=160 + 48 * len(names), margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(autorange="reversed")
    return fig
