"""Glossary: every metric name the pages show, one line each, with the paper section it comes from."""

import streamlit as st

from cap_core.glossary import glossary_rows

st.title("Glossary")
st.caption("Every metric name shown on a page, in one line, with its source (the CAP, Validity and Jev papers; see "
           "the References in cap_core). The same texts are the tooltips (the ? icons) of widgets, metrics and "
           "table columns. Rates are in percent and differences in points (percentage points) on every page.")
st.markdown("\n".join(f"- **{r['term']}** — {r['definition']}. *({r['source']})*" for r in glossary_rows()))
