"""Figures and display tables for the label-set surface audit (pure: frame in, figure / frame out)."""

from __future__ import annotations

import polars as pl

from components.labels import figure_text, figure_texts
from components.plotting import go

__all__ = ["audit_bars_figure", "audit_display_table", "length_drilldown", "published_vs_computed"]

_COLOURS = {"length_only": "#1f77b4", "numeric_surface": "#ff7f0e", "surface_ngram": "#2ca02c"}
_UNIT = {"paired": "paired accuracy (%), chance 50", "item": "per-item Cohen's κ, chance 0"}


def audit_bars_figure(table: pl.DataFrame, mode: str) -> go.Figure:
    """Grouped bars of the primary score per label set and predictor, with the null band.

    Parameters
    ----------
    table : polars.DataFrame
        :data:`cap_core.audit.surface.AUDIT_SCHEMA` rows.
    mode : {"paired", "item"}
        Which mode to draw (paired: accuracy in percent; item: kappa).

    Returns
    -------
    plotly.graph_objects.Figure
        One bar per label set x predictor (hatched when the row does not clear its
        null) and, behind it, a grey band from the null mean to its 95th percentile.
    """
    rows = table.filter(pl.col("mode") == mode)
    fig = go.Figure()
    for pred in rows["predictor"].unique(maintain_order=True).to_list():
        r = rows.filter(pl.col("predictor") == pred)
        sets = figure_texts(r["label_set"].to_list())  # label-set names (uploads) drawn as text
        if r["null_p95"].null_count() < r.height:
            fig.add_bar(x=sets, y=(r["null_p95"] - r["null_mean"]).to_list(), base=r["null_mean"].to_list(),
                        offsetgroup=pred, marker_color="rgba(120,120,120,0.45)", width=0.25,
                        name="null band (mean to 95th pct.)", legendgroup="null", showlegend=pred == rows["predictor"][0],
                        hovertemplate="null %{base:.3g} to 95th pct.<extra></extra>")
        fig.add_bar(x=sets, y=r["score"].to_list(), offsetgroup=pred, name=figure_text(pred), width=0.25,
                    marker_color=_COLOURS.get(pred, "#7f7f7f"), opacity=0.85,
                    marker_pattern_shape=["" if c else "/" for c in r["clears_null"].fill_null(False)],
                    customdata=list(zip(r["p_value"].to_list(), figure_texts(r["verdict"].to_list()))),
                    hovertemplate=figure_text(pred) + ": %{y:.3g}<br>p = %{customdata[0]:.3f}<br>%{customdata[1]}<extra></extra>")
    chance = 50.0 if mode == "paired" else 0.0
    # the label sits right of the plot area, on the line's level: never over a bar
    fig.add_hline(y=chance, line_dash="dot", line_color="black", annotation_text=f"chance ({chance:g})",
                  annotation_position="right", annotation_xshift=4)
    fig.update_layout(barmode="group", yaxis_title=_UNIT.get(mode, mode), legend_title_text="predictor",
                      margin=dict(l=10, r=90, t=30, b=10), height=420)
    if mode == "paired":
        fig.update_yaxes(range=[min(40.0, float(rows["score"].min() or 40) - 5), 100])
    return fig


def audit_display_table(table: pl.DataFrame) -> pl.DataFrame:
    """The audit table as shown: rounded values, the null band as text, a verdict column."""
    pct = pl.col("mode") == "paired"
    return table.select(
        "label_set", "predictor", "mode", "n_units", "n_ties",
        pl.col("accuracy").round(1).alias("accuracy %"), pl.col("kappa").round(3),
        pl.when(pct).then(pl.format("{} – {} %", pl.col("null_mean").round(1), pl.col("null_p95").round(1)))
        .otherwise(pl.format("{} – {}", pl.col("null_mean").round(3), pl.col("null_p95").round(3)))
        .alias("null mean – 95th pct."),
        pl.col("p_value").round(3), "verdict",
    )


def length_drilldown(predictions: pl.DataFrame, label_set: str, mode: str = "paired") -> pl.DataFrame:
    """Which units ``length_only`` gets right, with the two lengths (characters).

    Returns columns unit_id, subset, better_chars, worse_chars, longer_is_better (bool,
    null for single responses), correct (bool); ordered with the right ones first.
    """
    p = predictions.filter((pl.col("label_set") == label_set) & (pl.col("predictor") == "length_only")
                           & (pl.col("mode") == mode))
    # label 1: the unit's own response (chars) is the better one (paired: the left one)
    better = pl.when(pl.col("label") == 1).then(pl.col("chars")).otherwise(pl.col("chars_other"))
    worse = pl.when(pl.col("label") == 1).then(pl.col("chars_other")).otherwise(pl.col("chars"))
    return (p.select("unit_id", "subset", better.alias("better_chars"), worse.alias("worse_chars"), "correct")
            .with_columns((pl.col("better_chars") > pl.col("worse_chars")).alias("longer_is_better"))
            .select("unit_id", "subset", "better_chars", "worse_chars", "longer_is_better", "correct")
            .sort("correct", descending=True, maintain_order=True))


def published_vs_computed(published: pl.DataFrame, table: pl.DataFrame) -> pl.DataFrame:
    """Best computed row per label set and mode beside the published Validity Table 7 values.

    ``published`` is ``labelset_audit.csv`` (columns label_set, a_imp, kappa,
    paired_accuracy, ...). Matching is by name: our ``RewardBench`` and ``RM-Bench chat``
    against the published ``RewardBench`` and ``RM-Bench`` (the published RM-Bench covers
    all domains; ours is its chat subset). Units: kappa coefficients, accuracy percent.
    """
    match = {"RewardBench": "RewardBench", "RM-Bench chat": "RM-Bench"}
    if "label_set" not in table.columns:
        table = pl.DataFrame(schema={"label_set": pl.String, "mode": pl.String, "score": pl.Float64,
                                     "kappa": pl.Float64, "accuracy": pl.Float64, "predictor": pl.String})
    best = (table.filter(pl.col("label_set").is_in(list(match)))
            .sort("score", descending=True).group_by("label_set", "mode", maintain_order=True).first())
    out = []
    for ours, theirs in match.items():
        pub = published.filter(pl.col("label_set") == theirs)
        for mode, col, unit in (("item", "a_imp", "kappa"), ("paired", "paired_accuracy", "accuracy %")):
            b = best.filter((pl.col("label_set") == ours) & (pl.col("mode") == mode))
            if b.height == 0 or pub.height == 0:
                continue
            val = b["kappa"][0] if mode == "item" else b["accuracy"][0]
            out.append((ours, mode, unit, round(float(val), 3), b["predictor"][0], theirs,
                        float(pub[col][0]) if pub[col][0] is not None else None))
    return pl.DataFrame(out, orient="row", schema={
        "label_set": pl.String, "mode": pl.String, "unit": pl.String, "computed (best predictor)": pl.Float64,
        "predictor": pl.String, "published set": pl.String, "published: Validity Table 7": pl.Float64})
