"""Overview: what is loaded, counts per benchmark, and notices about the data."""

import streamlit as st

from ui.cache import loaders
from ui.display import show_table
from ui.sidebar import get_selection
from ui.text import plain

sel = get_selection()
st.title("CAP Studio")
st.caption(
    "Conditional Accuracy Profiles: judge accuracy under eight deployment conditions "
    "(C1 Factual Sensitivity … C8 Rationale Quality), with bootstrap intervals."
)
# the tool exists to choose a judge: the first screen leads there
st.page_link("app_pages/choose.py", label="Choose a judge: weigh the conditions that matter to you and see who "
             "leads, with intervals and what cannot be told apart")

if sel.ds is None:
    st.info("No dataset loaded yet — upload an items and a judgments table, or switch to the embedded default data.")
else:
    st.subheader("Loaded data")
    st.write(f"Source: **{sel.source}** · fingerprint `{sel.fingerprint}`")
    summary, judges = loaders.overview_tables(sel.fingerprint, sel.ds)
    show_table(st, summary, width="stretch", key="ov_summary")
    st.caption(
        "items: pairwise items (variants count separately); base_items: bootstrap units; "
        "verdicts: judgments (one per judge, item and order); ties / unparsed: verdicts of that kind."
    )
    show_table(st, judges, width="stretch", key="ov_judges")
    st.caption("Per judge: items of the benchmark, items it received (has a judgment on: it is scored on those "
               "only), of those the items with a gold label, its verdicts, and the share of ties and unparsed "
               "verdicts (percent). None of these needs gold.")
    notes = sel.ds.notices
    if notes:
        with st.expander(f"Notes on reading the data ({len(notes)})", expanded=False):
            st.markdown("\n".join("- " + plain(n) for n in notes))  # the data's notices name its files: text
    else:
        st.caption("No notes: every table was read as given.")
    from ui.source_metrics_section import render_source_metrics

    render_source_metrics(sel.fingerprint, sel.ds, key="ov_source")

if sel.include_published:
    st.caption("Published CAP judges (paper tables) are available beside the computed ones on the Profiles page.")
