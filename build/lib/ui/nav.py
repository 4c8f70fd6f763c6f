"""The page links at the top of the sidebar (streamlit's own navigation is hidden).

Drawn by the router on every run, from the same ``st.Page`` objects that ``st.navigation``
received, so the links, their order and their sections are exactly the router's pages.
This module imports nothing but streamlit: it is on the start path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import streamlit as st

if TYPE_CHECKING:
    from streamlit.navigation.page import StreamlitPage

__all__ = ["NAV_KEY", "render"]

#: Key of the sidebar container holding the links (CSS class ``st-key-cap_nav``).
NAV_KEY = "cap_nav"


def render(pages: Mapping[str, Sequence[StreamlitPage]]) -> None:
    """One link per page under its section title, then a divider."""
    with st.sidebar.container(key=NAV_KEY):
        for section, items in pages.items():
            st.caption(section)
            for p in items:
                st.page_link(p)
        st.divider()
