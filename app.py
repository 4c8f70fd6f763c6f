"""CAP Studio — choose an LLM judge with Conditional Accuracy Profiles.

Router only: page config, the list of pages, our page links and the shared sidebar. Run
with ``streamlit run app.py --server.address 127.0.0.1``.

Why streamlit's own navigation is hidden (``client.showSidebarNavigation = false`` in
.streamlit/config.toml) and why ``st.navigation`` is the first call: streamlit 1.67 sets
``PagesManager.uses_pages_directory`` when the first session of a process starts and a
``pages/`` folder lies beside this script. Until some run calls ``st.navigation``, every
run goes through its legacy multipage path (``_mpa_v1`` in
streamlit/runtime/scriptrunner/script_runner.py): it lists the file stems of ``pages/``
(app, cascades, … stress) as the navigation, and a click on one of them runs that page
script alone, without this router and its sidebar. Hiding that navigation leaves nothing
to click until this router has drawn its own links, and calling ``st.navigation`` before
any heavy import ends the legacy path at once.
"""

import streamlit as st

st.set_page_config(page_title="CAP Studio", page_icon="🧭", layout="wide")

# URL paths differ from the file stems on purpose: in the legacy path above, a URL equal to
# a file stem would run that page alone, without this router and its sidebar.
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

page = st.navigation(PAGES, position="hidden")

from ui import nav, sidebar  # noqa: E402  (after st.navigation on purpose: see the module docstring)

nav.render(PAGES)
sidebar.render()
page.run()
