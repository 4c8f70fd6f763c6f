"""CAP Studio — choose an LLM judge with Conditional Accuracy Profiles.

Router only: page config, the list of pages, our page links, the shared sidebar and the
view in the URL (:mod:`ui.query`). Run with ``streamlit run app.py --server.address 127.0.0.1``.

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

# The favicon is a small SVG file of ours, sent inline: a material icon is fetched from fonts.gstatic.com (a
# request off this machine, failing offline) and an emoji loads a 0.1 s catalogue.
st.set_page_config(page_title="CAP Studio", page_icon=__file__.rsplit("app.py", 1)[0] + "assets/favicon.svg",
                   layout="wide")

# URL paths are the page titles a user sees; the paths of earlier versions still work (ui.nav.OLD_PATHS).
PAGES = {
    "Judges": [
        st.Page("app_pages/overview.py", title="Overview", url_path="cap-studio", default=True),
        st.Page("app_pages/choose.py", title="Choose a judge", url_path="choose"),
        st.Page("app_pages/coverage.py", title="Coverage matrix", url_path="coverage-matrix"),
        st.Page("app_pages/profiles.py", title="Profiles", url_path="profiles"),
        st.Page("app_pages/compare.py", title="Compare judges", url_path="compare-judges"),
        st.Page("app_pages/export.py", title="Export", url_path="export"),
    ],
    "Across benchmarks": [
        st.Page("app_pages/stress.py", title="Stress", url_path="stress"),
        st.Page("app_pages/consistency.py", title="Consistency", url_path="consistency"),
    ],
    "Cost and validity": [
        st.Page("app_pages/cascades.py", title="Cascades", url_path="cascades"),
        st.Page("app_pages/frontiers.py", title="Frontiers", url_path="frontiers"),
        st.Page("app_pages/label_audit.py", title="Label audit", url_path="label-audit"),
    ],
    "Run judges": [
        st.Page("app_pages/testbed.py", title="Build a testbed", url_path="build-a-testbed"),
        st.Page("app_pages/live_run.py", title="Live run", url_path="live-run"),
        st.Page("app_pages/labelling.py", title="Labelling", url_path="labelling"),
    ],
    "Help": [st.Page("app_pages/glossary.py", title="Glossary", url_path="glossary")],
}

#: URL paths of earlier versions -> the page's path now: hidden pages that switch there (bookmarks keep working).
OLD_PATHS = {
    "judge-profiles": "profiles", "judge-comparison": "compare-judges", "download": "export",
    "stress-degradation": "stress", "rank-consistency": "consistency", "judge-cascades": "cascades",
    "validity-frontiers": "frontiers", "label-set-audit": "label-audit", "live-judging": "live-run",
    "overview": "", "home": "",  # the Overview, served at / (a default page has no path of its own)
}
_BY_PATH = {p.url_path: p for items in PAGES.values() for p in items}


def _switch_to(target):
    def go():
        st.switch_page(target, query_params=st.query_params.to_dict())

    return go


ALIASES = [st.Page(_switch_to(_BY_PATH[new]), title=_BY_PATH[new].title, url_path=old)
           for old, new in OLD_PATHS.items()]

page = st.navigation({**PAGES, "": ALIASES}, position="hidden")

from ui.preload import preload  # noqa: E402  (light: streamlit only)

preload()  # the browser loads the chart library while this run computes (ui/preload.py)

from streamlit.errors import StreamlitValueAboveMaxError, StreamlitValueBelowMinError  # noqa: E402

from ui import nav, query, sidebar  # noqa: E402  (after st.navigation on purpose: see the module docstring)
from ui.state import CURRENT_PAGE, forget_url_settings  # noqa: E402

st.session_state[CURRENT_PAGE] = page.url_path
nav.render(PAGES)
sidebar.render()
top = st.container()  # notices about the link, including those that arise while the page is drawn
with top:
    query.show_notices()
# The sidebar's view goes into the URL before the page runs too: a page that stops early
# (st.stop, e.g. "no leaderboard for this preset") sends nothing written after it stopped.
query.sync()
try:
    page.run()
except (StreamlitValueAboveMaxError, StreamlitValueBelowMinError):
    if not forget_url_settings():  # a value from the link outside a widget's range: drop it, draw again
        raise
    st.rerun()  # the notice is shown at the top of the new run
else:  # (a page that stopped early, st.stop, shows them on its next run: nothing can be drawn after a stop)
    with top:
        query.show_notices()
finally:
    query.sync()
