"""plotly for every figure module, imported only once pandas is complete.

Every figure module takes ``go`` from here (``from components.plotting import go``) instead
of importing plotly itself. The reason is a race between two sessions of one server:
plotly's validators and JSON encoder look pandas up in ``sys.modules`` without taking the
import lock (``_plotly_utils.basevalidators``: ``get_module("pandas", should_load=False)``),
while streamlit imports pandas lazily inside ``st.dataframe``. A figure built in one
session while another session's ``st.dataframe`` was still importing pandas met a
partially initialised pandas and failed ("partially initialized module 'pandas' has no
attribute 'Series'"). A plain ``import pandas`` here waits for that import to finish (or
does it), so no figure is built before pandas is whole.

This module is imported by the pages that draw figures, never by the router (app.py,
ui.nav, ui.sidebar): nothing heavy is on the start path.
"""

from __future__ import annotations

import pandas  # noqa: F401  (must be complete before plotly reads it; see above)
import plotly.graph_objects as go

__all__ = ["go"]
