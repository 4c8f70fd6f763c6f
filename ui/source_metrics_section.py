"""A section showing each source's own metrics beside CAP's (Overview; callable from any page).

Core logic: :mod:`cap_core.analyses.source_metrics`; table: :mod:`components.source_metrics`.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from cap_core.dataset import Dataset
from cap_core.export import to_csv_bytes
from components.source_metrics import source_metrics_summary, source_metrics_view
from ui.display import arrow_table, download

__all__ = ["source_metrics_table", "render_source_metrics"]


@st.cache_data(max_entries=8, show_spinner="The sources' own metrics…")
def source_metrics_table(fingerprint: str, _ds: Dataset) -> pl.DataFrame:
    """:func:`cap_core.analyses.source_metrics.source_metrics` of the dataset (cached by its fingerprint)."""
    from cap_core.analyses.source_metrics import source_metrics

    return source_metrics(_ds)


def render_source_metrics(fingerprint: str, ds: Dataset, *, key: str, judges: list[str] | None = None) -> None:
    """Draw the section: a summary line, the table (optionally only rows that differ) and a CSV download.

    ``key`` prefixes the widget keys (one per page); ``judges`` restricts the rows.
    """
    frame = source_metrics_table(fingerprint, ds)
    if judges is not None:
        frame = frame.filter(pl.col("judge").is_in(list(judges)))
    st.subheader("The sources' own metrics, beside CAP's")
    st.caption(source_metrics_summary(frame))
    if frame.height == 0:
        return
    st.caption(
        "LLMBar: correct_average, correct_both and equal as its statistics.json computes them from the recorded "
        "winners; JudgeBench: its pair-level score over the two games; AlpacaEval: the model's win rate over the "
        "baseline (a draw is half a win; no CAP counterpart: it rates the generators); RewardBench-style accuracy "
        "for judges that score both responses (chosen strictly above rejected). CAP's counterpart: pa (overall), "
        "C7 strict and C7 consistency."
    )
    only = st.toggle("Only rows where CAP differs", value=True, key=f"{key}_differ")
    st.dataframe(arrow_table(source_metrics_view(frame, differing_only=only)), hide_index=True, width="stretch",
                 key=f"{key}_table")
    download(st, "Download source metrics (CSV)", to_csv_bytes(frame), "source_metrics.csv", key=f"{key}_dl")
