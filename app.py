"""CAP Studio — choose an LLM judge with Conditional Accuracy Profiles.

Router only: page config, the list of pages, our page links and the shared sidebar. Run
with ``streamlit run app.py --server.address 127.0.0.1``.

The page scripts live in ``app_pages/``, not ``pages/``: streamlit (1.67,
``PagesManager``) switches a process to its legacy multipage mode when the first session
starts and a folder named exactly ``pages`` lies beside this script. In that mode a fresh
server lists the file stems as navigation, shows "Page not found" for a deep link, and runs
a page script alone (without this router and its sidebar) when its stem is typed or
clicked. With no ``pages/`` folder none of that exists, so a fresh server behaves like a
warm one. The router draws its own links (:mod:`ui.nav`) and calls ``st.navigation``
before any heavy import.
"""

import streamlit as st

st.set_page_config(page_title="CAP Studio", page_icon="🧭", layout="wide")

# URL paths are named for the reader, not for the file stems.
PAGES = {
    "Judges": [
        st.Page("app_pages/overview.py", title="Overview", url_path="home", default=True),
        st.Page("app_pages/coverage.py", title="Coverage matrix", url_path="coverage-matrix"),
        st.Page("app_pages/profiles.py", title="Profiles", url_path="judge-profiles"),
        st.Page("app_pages/compare.py", title="Compare judges", url_path="judge-comparison"),
        st.Page("app_pages/export.py", title="Export", url_path="download"),
    ],
    "Across benchmarks": [
        st.Page("app_pages/stress.py", title="Stress", url_path="stress-degradation"),
        st.Page("app_pages/consistency.py", title="Consistency", url_path="rank-consistency"),
    ],
    "Cost and validity": [
        st.Page("app_pages/cascades.py", title="Cascades", url_path="judge-cascades"),
        st.Page("app_pages/frontiers.py", title="Frontiers", url_path="validity-frontiers"),
        st.Page("app_pages/label_audit.py", title="Label audit", url_path="label-set-audit"),
    ],
    "Run judges": [
        st.Page("app_pages/live_run.py", title="Live run", url_path="live-judging"),
    ],
    "Help": [st.Page("app_pages/glossary.py", title="Glossary", url_path="glossary")],
}

page = st.navigation(PAGES, position="hidden")

from ui import nav, sidebar  # noqa: E402  (after st.navigation on purpose: see the module docstring)

nav.render(PAGES)
sidebar.render()
page.run()
