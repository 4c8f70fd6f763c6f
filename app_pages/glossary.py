"""Glossary: every metric name the pages show, one line each, with the paper section it comes from."""

import polars as pl
import streamlit as st

from cap_core.glossary import glossary_rows
from ui.display import show_table

st.title("Glossary")
st.caption("Every metric name shown on a page, in one line, with its source (CAP, Validity and Jev papers; see "
           "the References in cap_core). The same texts are the tooltips (ⓘ) of widgets, metrics and table "
           "columns. Rates are in percent and differences in points (percentage points) on every page.")
show_table(st, pl.DataFrame(glossary_rows()), key="gl_table", width="stretch",
           column_config={"definition": st.column_config.TextColumn("definition", width="large")})
