"""Streamlit glue: the router's links (nav), sidebar state, page settings kept across pages
(state), cached calls per page (cache/), display helpers. Pages import from here."""
