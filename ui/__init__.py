"""Streamlit glue: sidebar state, cached loaders, error display. Pages import from here."""
