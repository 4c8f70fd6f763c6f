"""Symmetric Spearman ρ matrix from a table of pairs (CAP App. F Table 13, App. G Table 14)."""

from __future__ import annotations

import polars as pl

from components.labels import figure_text, figure_texts
from components.plotting import go

__all__ = ["spearman_matrix", "ranked_blocks"]


def ranked_blocks(pairs: pl.DataFrame, a: str, b: str) -> tuple[list[list[str]], list[str]]:
    """Groups of names linked by measurable pairs, and the names in none.

    Two benchmarks that share fewer than 3 judges have no ρ ("n/a"); a dataset's own
    benchmarks and the published CAP tables judge different judges, so a single grid over
    both is mostly n/a. The names joined by ``status == "ok"`` pairs (directly or through
    others) form one block each, largest first (ties: first name); a name with no ok pair
    is in no block.

    Returns
    -------
    (blocks, alone)
        ``blocks``: lists of names (each of two or more, in order of first appearance);
        ``alone``: names with no measurable pair.
    """
    names = list(dict.fromkeys(pairs[a].to_list() + pairs[b].to_list()))
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            parent[n] = parent[parent[n]]
            n = parent[n]
        return n

    for x, y in pairs.filter(pl.col("status") == "ok").select(a, b).iter_rows():
        parent[root(x)] = root(y)
    groups: dict[str, list[str]] = {}
    for n in names:
        groups.setdefault(root(n), []).append(n)
    blocks = sorted((g for g in groups.values() if len(g) > 1), key=lambda g: (-len(g), names.index(g[0])))
    alone = [g[0] for g in groups.values() if len(g) == 1]
    return blocks, alone


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
    shown = figure_texts(names)  # names from data drawn as text
    fig = go.Figure(go.Heatmap(z=z, x=shown, y=shown, text=text, texttemplate="%{text}", zmin=-1, zmax=1,
                               colorscale="RdBu", colorbar={"title": "ρ"},
                               hovertemplate="%{y} vs %{x}: %{text}<extra></extra>"))
    fig.update_layout(title=figure_text(title), height=160 + 48 * len(names),
                      margin={"l": 10, "r": 10, "t": 50, "b": 10})
    fig.update_yaxes(autorange="reversed")
    return fig
