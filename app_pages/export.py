"""Export: the Profiles tables as CSV and JSON, formula-like text neutralised."""

import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.export import to_csv_bytes, to_json_bytes
from ui.cache.profiles import profiles_view
from ui.display import download
from ui.sidebar import get_selection

sel = get_selection()
st.title("Export")
if not sel.benchmark or not sel.labels:
    st.info("Choose a benchmark and judges in the sidebar first.")
    st.stop()
try:
    view = profiles_view(sel)
except CAPInputError as err:
    st.error(str(err))
    st.stop()

st.caption(
    "Exactly the tables shown on the Profiles page. In the CSV files, text cells that start with "
    "= + - @ (also after spaces or line breaks), a tab or a carriage return get a leading ' so "
    "spreadsheets do not run them; numbers stay numbers. JSON keeps every value exactly."
)
stem = f"cap_profiles_{sel.benchmark}"
st.subheader("Profile table")
st.dataframe(view.table, hide_index=True, key="exp_table")
c1, c2 = st.columns(2)
download(c1, "Download CSV", to_csv_bytes(view.table), f"{stem}.csv", "text/csv", key="exp_csv")
download(c2, "Download JSON", to_json_bytes(view.table), f"{stem}.json", "application/json", key="exp_json")

st.subheader("Weighted scores")
if view.weights_problem:
    st.warning(view.weights_problem)
    st.stop()
st.dataframe(view.score_table, hide_index=True, key="exp_scores")
c3, c4 = st.columns(2)
download(c3, "Download CSV", to_csv_bytes(view.score_table), f"{stem}_scores.csv", "text/csv", key="exp_scores_csv")
download(c4, "Download JSON", to_json_bytes(view.score_table), f"{stem}_scores.json", "application/json",
         key="exp_scores_json")
