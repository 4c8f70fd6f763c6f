"""CAP Studio — choose an LLM judge with Conditional Accuracy Profiles.

Router only: page config, the list of pages, the shared sidebar. Run with
``streamlit run app.py --server.address 127.0.0.1``.
"""

import streamlit as st

from ui import sidebar

st.set_page_config(page_title="CAP Studio", page_icon="🧭", layout="wide")

# URL paths differ from the file stems on purpose. While a pages/ folder exists,
# streamlit's first run in a process uses legacy auto-discovery; a URL equal to a
# file stem would then run that page alone, without this router and its sidebar.
PAGES = {
    "Judges": [
        st.Page("pages/overview.py", title="Overview", url_path="home", default=True),
        st.Page("pages/coverage.py", title="Coverage matrix", url_path="coverage-matrix"),
        st.Page("pages/profiles.py", title="Profiles", url_path="judge-profiles"),
        st.Page("pages/compare.py", title="Compare judges", url_path="judge-comparison"),
        st.Page("pages/export.py", title="Export", url_path="download"),
    ],
    "Across benchmarks": [
        st.Page("pages/stress.py", title="Stress", url_path="stress-degradation"),
        st.Page("pages/consistency.py", title="Consistency", url_path="rank-consistency"),
    ],
    "Cost and validity": [
        st.Page("pages/cascades.py", title="Cascades", url_path="judge-cascades"),
        st.Page("pages/frontiers.py", title="Frontiers", url_path="validity-frontiers"),
        st.Page("pages/label_audit.py", title="Label audit", url_path="label-set-audit"),
    ],
    "Run judges": [
        st.Page("pages/live_run.py", title="Live run", url_path="live-judging"),
    ],
}

page = st.navigation(PAGES)
sidebar.render()
page.run()
