"""Overview: what is loaded, counts per benchmark, and notices about the data."""

import polars as pl
import streamlit as st

from components.labels import LABEL_WIDTH
from components.tables import dataset_summary
from ui.sidebar import get_selection

sel = get_selection()
st.title("CAP Studio")
st.caption(
    "Conditional Accuracy Profiles: judge accuracy under eight deployment conditions "
    "(C1 Factual Sensitivity … C8 Rationale Quality), with bootstrap intervals."
)

if sel.ds is None:
    st.info("No dataset loaded yet — upload an items and a judgments table, or switch to the embedded default data.")
else:
    st.subheader("Loaded data")
    st.write(f"Source: **{sel.source}** · fingerprint `{sel.fingerprint}`")
    summary = dataset_summary(sel.ds.items, sel.ds.judgments)
    st.dataframe(summary, hide_index=True, width="stretch", key="ov_summary")
    st.caption(
        "items: pairwise items (variants count separately); base_items: bootstrap units; "
        "verdicts: judgments (one per judge, item and order); ties / unparsed: verdicts of that kind."
    )
    j = pl.col("judge")
    cut = pl.when(j.str.len_chars() > LABEL_WIDTH).then(j.str.slice(0, LABEL_WIDTH - 1) + "…").otherwise(j)
    judges = sel.ds.judgments.group_by("benchmark").agg(cut.unique().sort().str.join(", ").alias("judges"))
    st.dataframe(judges.sort("benchmark"), hide_index=True, width="stretch", key="ov_judges")
    notes = sel.ds.notices
    if notes:
        with st.expander(f"Notes on reading the data ({len(notes)})", expanded=False):
            st.markdown("\n".join("- " + n.replace("\n", " ") for n in notes))
    else:
        st.caption("No notes: every table was read as given.")

if sel.include_published:
    st.caption("Published CAP judges (paper tables) are available beside the computed ones on the Profiles page.")
