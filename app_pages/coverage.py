"""Coverage matrix: computed from the loaded data and as published (CAP Table 2), side by side."""

import streamlit as st

from cap_core.glossary import help_text
from components.coverage_heatmap import coverage_heatmap
from ui.cache import loaders as cache
from ui.display import show_table
from ui.sidebar import get_selection

sel = get_selection()
st.title("Coverage matrix", help=help_text("status"))
st.caption(
    "Which conditions each benchmark can measure: direct, approximate (a proxy subset), "
    "augmented (constructed variants) or unavailable. Hover a cell for how it is measured."
)

left, right = st.columns(2)
with left:
    st.subheader("Computed (loaded data)")
    if sel.ds is None:
        st.info("No dataset loaded.")
    else:
        cov = cache.coverage(sel.fingerprint, sel.ds)
        st.plotly_chart(coverage_heatmap(cov), key="cov_computed")
        show_table(st, cov, key="cov_computed_table")
with right:
    st.subheader("Published (CAP Table 2)")
    pub = cache.published_coverage()
    st.plotly_chart(coverage_heatmap(pub), key="cov_published")
    st.caption("† computed in the paper but omitted from its main tables.")
