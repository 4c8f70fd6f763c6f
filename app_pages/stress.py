"""Stress: how much each judge degrades from a base benchmark to a stressed one (CAP §4.3, Table 6)."""

import streamlit as st

from cap_core.analyses.stress import default_pair
from cap_core.errors import CAPInputError
from components.stress_heatmap import stress_heatmap, stress_mean_bars
from ui.cache import stress as sc
from ui.display import round_points
from ui.sidebar import get_selection
from ui.state import kept

sel = get_selection()
st.title("Stress")
st.caption(
    "δ = CAP(base) − CAP(stressed) per judge and condition, in points (CAP App. M eq. 3); positive means the "
    "judge does worse under stress. The published default pair is JudgeBench → JudgeBench-Pro, whose values are "
    "JudgeBench (CAP Table 5) minus Table 6's δ. No interval here: published tables carry no per-item data "
    "(with per-item data, `python -m cap_core stress --data DIR` bootstraps δ)."
)
try:
    prof = sc.analysis_profile(sel)
except CAPInputError as err:
    st.info(str(err))
    st.stop()
views = sc.profile_views(sel.fingerprint, sel.include_published, prof)
if len(views) < 2:
    st.info("Stress needs two benchmarks: load more data or include the published CAP judges.")
    st.stop()

c1, c2 = st.columns(2)
base_default, stressed_first = default_pair(prof, views)
base = c1.selectbox("Base benchmark", views, key=kept("st_base", base_default, options=views))
rest = [v for v in views if v != base]
stressed_default = stressed_first if stressed_first in rest else rest[0]
stressed = c2.selectbox("Stressed benchmark", rest, key=kept("st_stressed", stressed_default, options=rest))

try:
    deltas, per_judge, per_cond = sc.stress(sel.fingerprint, sel.include_published, base, stressed, prof)
except CAPInputError as err:
    st.warning(f"No stress comparison for {base} → {stressed}: {err}")
    st.stop()

n_judges = per_judge.height
st.markdown(f"**{n_judges}** judge(s) measured on both benchmarks, **{per_cond.height}** shared condition(s).")
if n_judges == 1:
    st.info("Only one judge is shared: δ is shown, but there is no ranking across judges.")
st.plotly_chart(stress_heatmap(deltas, per_judge), key="st_heatmap")
st.plotly_chart(stress_mean_bars(per_judge), key="st_bars")

largest = per_cond.filter(per_cond["largest"])["condition"].to_list()
st.subheader("Per condition (mean across judges)")
st.caption("Largest mean drop: " + ", ".join(largest) + ".")
st.dataframe(round_points(per_cond), hide_index=True, key="st_per_condition")
st.subheader("Per judge (Table 6 Mean and dominant channel)")
st.dataframe(round_points(per_judge), hide_index=True, key="st_per_judge")
with st.expander("All deltas"):
    st.dataframe(round_points(deltas), hide_index=True, key="st_deltas")
