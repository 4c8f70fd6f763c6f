"""The page links at the top of the sidebar (streamlit's own navigation is hidden), and old links.

Drawn by the router on every run, from the same ``st.Page`` objects that ``st.navigation``
received, so the links, their order and their sections are exactly the router's pages.
:func:`aliases` turns the URL paths of earlier versions into hidden pages that switch to
the page's new path (a bookmark keeps working). This module imports nothing but streamlit:
it is on the start path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import streamlit as st

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage

__all__ = ["NAV_KEY", "OLD_PATHS", "render", "aliases"]

#: Key of the sidebar container holding the links (CSS class ``st-key-cap_nav``).
NAV_KEY = "cap_nav"

#: URL path of earlier versions -> the page's path now.
OLD_PATHS = {
    "judge-profiles": "profiles", "judge-comparison": "compare-judges", "download": "export",
    "stress-degradation": "stress", "rank-consistency": "consistency", "judge-cascades": "cascades",
    "validity-frontiers": "frontiers", "label-set-audit": "label-audit", "live-judging": "live-run",
}


def render(pages: Mapping[str, Sequence[StreamlitPage]]) -> None:
    """One link per page under its section title, then a divider."""
    with st.sidebar.container(key=NAV_KEY):
        for section, items in pages.items():
            st.caption(section)
            for p in items:
                st.page_link(p)
        st.divider()


def aliases(pages: Mapping[str, Sequence[StreamlitPage]]) -> list[StreamlitPage]:
    """Hidden pages at the old paths of :data:`OLD_PATHS`, each switching to its page (link parameters kept)."""
    by_path = {p.url_path: p for items in pages.values() for p in items}
    out = []
    for old, new in OLD_PATHS.items():
        target = by_path.get(new)
        if target is None:
            continue

        def go(target=target):
            st.switch_page(target, query_params=st.query_params.to_dict())

        out.append(st.Page(go, title=target.title, url_path=old))
    return out
