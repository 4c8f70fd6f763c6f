"""CAP Studio — choose an LLM judge with Conditional Accuracy Profiles.

Router only: page config, the list of pages, the shared sidebar. Run with
``streamlit run app.py --server.address 127.0.0.1``.
"""

import streamlit as st

from ui import sidebar

st.set_page_config(page_title="CAP Studio", page_icon="🧭", layout="wide")

# url paths differ from the file names on purpose: AppTest.switch_page loses the
# sidebar when a page's url_path equals its file stem (streamlit 1.67).
PAGES = [
    st.Page("pages/overview.py", title="Overview", url_path="home", default=True),
    st.Page("pages/coverage.py", title="Coverage matrix", url_path="coverage-matrix"),
    st.Page("pages/profiles.py", title="Profiles", url_path="judge-profiles"),
    st.Page("pages/export.py", title="Export", url_path="download"),
]

sidebar.render()
page = st.navigation(PAGES)
page.run()
