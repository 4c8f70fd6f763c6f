"""Export: the files that reproduce the choice — the full profile and the weighted scores."""

import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.export import to_csv_bytes, to_json_bytes
from components.leaderboard import leaderboard_table
from ui.cache.choose import choose_view
from ui.cache.export import profile_frame
from ui.cache.profiles import profiles_view
from ui.display import LEADERBOARD_DECIMALS, download, show_table
from ui.sidebar import get_selection
from ui.text import notice

sel = get_selection()
st.title("Export")
if not sel.benchmark or not sel.labels:
    st.info("Choose a benchmark and judges in the sidebar first.")
    st.stop()
try:
    view = profiles_view(sel)
    prof = profile_frame(sel)
except CAPInputError as err:
    notice("error", err)
    st.stop()

st.caption(
    "Full precision (12 significant digits): the profile file holds every metric of the selected judges with "
    "n_items, n_excluded, n_not_received, status, operator, source, the interval level, resample count, seed and data "
    "fingerprint; the scores file adds the weights and minimums, so the two files recompute every weighted "
    "score. In the CSV files, text cells that start with = + - @ (also after spaces or line breaks), a tab or a "
    "carriage return get a leading ' so spreadsheets do not run them; numbers stay numbers. JSON keeps every "
    "value exactly."
)
stem = f"cap_profiles_{sel.benchmark}"
st.subheader("Profile")
show_table(st, view.table, key="exp_table")
st.caption("Shown rounded to one decimal (primary metrics); the files hold every metric at full precision.")
c1, c2 = st.columns(2)
download(c1, "Download CSV", to_csv_bytes(prof), f"{stem}.csv", "text/csv", key="exp_csv")
download(c2, "Download JSON", to_json_bytes(prof), f"{stem}.json", "application/json", key="exp_json")

st.subheader("Weighted scores")
if view.weights_problem:
    notice("warning", view.weights_problem)
    st.stop()
try:
    choice = choose_view(sel)
except CAPInputError as err:
    notice("warning", f"No weighted score: {err.problem}")
    st.stop()
show_table(st, leaderboard_table(choice.board), key="exp_scores", decimals=LEADERBOARD_DECIMALS)
c3, c4 = st.columns(2)
download(c3, "Download CSV", choice.scores_csv, f"{stem}_scores.csv", "text/csv", key="exp_scores_csv")
download(c4, "Download JSON", to_json_bytes(choice.scores), f"{stem}_scores.json", "application/json",
         key="exp_scores_json")
