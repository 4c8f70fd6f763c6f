"""Pure figure and table builders: polars frames in, plotly figures (or frames) out.

Nothing here imports streamlit or touches files, so every builder is testable alone.
"""
