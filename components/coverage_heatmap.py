"""Heatmap of the coverage matrix: benchmark x condition, coloured by coverage status."""

from __future__ import annotations

import polars as pl

from cap_core.schema import CONDITION_IDS, CONDITIONS, STATUSES
from components.labels import figure_text, figure_texts
from components.plotting import go

__all__ = ["STATUS_COLOURS", "STATUS_ABBREV", "coverage_heatmap"]

#: One distinct colour per coverage status (CAP Table 2), colour-blind safe.
STATUS_COLOURS: dict[str, str] = {
    "direct": "#1b9e77",
    "approximate": "#7570b3",
    "augmented": "#e6ab02",
    "unavailable": "#d9d9d9",
}

#: Short cell text per status (the legend spells each out), readable in a narrow column.
STATUS_ABBREV: dict[str, str] = {
    "direct": "dir",
    "approximate": "appr",
    "augmented": "aug",
    "unavailable": "–",
}


def _colourscale() -> list[list]:
    n = len(STATUSES)
    scale = []
    for i, s in enumerate(STATUSES):
        scale.append([i / n, STATUS_COLOURS[s]])
        scale.append([(i + 1) / n, STATUS_COLOURS[s]])
    return scale


def coverage_heatmap(coverage: pl.DataFrame, *, title: str | None = None) -> go.Figure:
    """Coverage status per (benchmark, condition) as a discrete heatmap.

    Parameters
    ----------
    coverage : polars.DataFrame
        Columns ``benchmark``, ``condition`` (C1..C8), ``status`` (one of
        :data:`cap_core.schema.STATUSES`), ``operator`` (String, may be null);
        optional ``reported_in_main`` (Boolean) marks cells shown with a dagger.

    Returns
    -------
    plotly.graph_objects.Figure
        A ``Heatmap`` with z = index of the status in STATUSES (0 direct .. 3
        unavailable), x = C1..C8 in order, y = benchmarks; each cell shows the
        status abbreviated (:data:`STATUS_ABBREV`, 13 px) and the hover the full
        status and the operator. A legend lists every status with its colour and
        abbreviation (one marker trace per status, named e.g. ``"dir = direct"``).
    """
    benches = sorted(coverage.get_column("benchmark").unique().to_list())
    code = {s: i for i, s in enumerate(STATUSES)}
    cells = {(r["benchmark"], r["condition"]): r for r in coverage.iter_rows(named=True)}
    z, text, hover = [], [], []
    for b in benches:
        zr, tr, hr = [], [], []
        for c in CONDITION_IDS:
            cell = cells.get((b, c))
            status = cell["status"] if cell else "unavailable"
            mark = "†" if cell and cell.get("reported_in_main") is False and status != "unavailable" else ""
            zr.append(code.get(status, len(STATUSES) - 1))
            tr.append(STATUS_ABBREV.get(status, status) + mark)
            op = (cell.get("operator") if cell else None) or "not measured"
            hr.append(f"{figure_text(b)} · {c} {CONDITIONS[c][0]}<br>{figure_text(status)}{mark}"
                      f"<br>{figure_text(op)}")
        z.append(zr)
        text.append(tr)
        hover.append(hr)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(CONDITION_IDS),
            y=figure_texts(benches),  # benchmark names from data drawn as text
            text=text,
            texttemplate="%{text}",
            textfont=dict(size=13),
            customdata=hover,
            hovertemplate="%{customdata}<extra></extra>",
            colorscale=_colourscale(),
            zmin=-0.5,
            zmax=len(STATUSES) - 0.5,
            showscale=False,
            xgap=2,
            ygap=2,
        )
    )
    for s in STATUSES:
        fig.add_trace(
            go.Scatter(
                x=[None], y=[None], mode="markers", name=f"{STATUS_ABBREV[s]} = {s}", showlegend=True,
                marker=dict(symbol="square", size=14, color=STATUS_COLOURS[s]),
            )
        )
    fig.update_layout(
        title=figure_text(title),
        xaxis=dict(type="category", categoryorder="array", categoryarray=list(CONDITION_IDS), side="top"),
        yaxis=dict(type="category", autorange="reversed"),
        legend=dict(orientation="h", y=-0.05, yanchor="top", title="coverage status"),
        height=max(300, 140 + 48 * len(benches)),
        margin=dict(l=10, r=10, t=60 if title else 40, b=40),
        plot_bgcolor="white",
    )
    return fig
