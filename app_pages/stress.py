"""Stress: how much each judge degrades from a base set to a stressed one (CAP §4.3, Table 6, App. M eq. 3).

Two sources, one page: δ with bootstrap intervals on the loaded per-item data (two
benchmarks, or two groups of one benchmark's subsets), and δ between any two benchmark
views of the profiles (published tables included), which carry no per-item data and so no
interval.
"""

import streamlit as st

from cap_core.analyses.stress import default_pair, side_name
from cap_core.config import N_RESAMPLES
from cap_core.errors import CAPInputError, counted
from cap_core.glossary import help_text
from components.stress_heatmap import (
    stress_heatmap,
    stress_interval_figure,
    stress_mean_bars,
)
from ui.cache import stress as sc
from ui.display import round_points, show_table
from ui.cache.loaders import analysis_key
from ui.sidebar import get_selection
from ui.state import kept
from ui.text import notice, plain

sel = get_selection()
st.title("Stress")
st.info(
    "What this page takes from the sidebar: the **dataset** and the **judges** for δ on the loaded data (the "
    "sidebar's judges that judged both sides, else every judge that did), and the data source with the "
    "published-judges switch for δ between profiles. It does not use the sidebar's benchmark or weights: "
    "you choose the two sides here."
)
st.caption(
    "δ = CAP(base) − CAP(stressed) per judge and condition, in points (CAP App. M eq. 3); positive means the "
    "judge does worse under stress."
)

# --- δ on the loaded per-item data, with intervals ---------------------------------------------------------
st.header("On the loaded data, with intervals")
if sel.ds is None:
    st.info("No dataset loaded: load one in the sidebar to compare two of its benchmarks or subsets.")
else:
    subsets = sc.subsets_of(sel.fingerprint, sel.ds)
    benches = list(subsets)
    (b0, bs0), (s0, ss0) = sc.default_sides(subsets, benches)
    c1, c2 = st.columns(2)
    with c1:
        base_b = st.selectbox("Base benchmark", benches, key=kept("st_d_base", b0, options=benches))
        opts = subsets[base_b]
        base_s = st.multiselect("Base subsets (empty = all)", opts,
                                key=kept("st_d_base_sub", bs0 if base_b == b0 else [], options=opts),
                                disabled=not opts, help="Native subsets of the base benchmark (items.subset).")
    with c2:
        str_b = st.selectbox("Stressed benchmark", benches, key=kept("st_d_str", s0, options=benches))
        opts = subsets[str_b]
        str_s = st.multiselect("Stressed subsets (empty = all)", opts,
                               key=kept("st_d_str_sub", ss0 if str_b == s0 else [], options=opts),
                               disabled=not opts, help="Native subsets of the stressed benchmark (items.subset).")
    base_side = (base_b, tuple(sorted(base_s)))
    str_side = (str_b, tuple(sorted(str_s)))
    both = sorted(set(sc.judges_on(sel.fingerprint, *base_side, sel.ds))
                  & set(sc.judges_on(sel.fingerprint, *str_side, sel.ds)))
    chosen = [j for j in sel.labels if j in both]
    if not both:
        notice("info", f"No judge judged both {side_name(*base_side)} and {side_name(*str_side)}.")
    else:
        if chosen:
            st.caption(f"Judges: the sidebar's {len(chosen)} that judged both sides.")
        else:
            chosen = both
            st.caption(f"None of the sidebar's judges judged both sides: showing all {len(both)} that did.")
        try:
            d = sc.data_stress(sel.fingerprint, base_side, str_side, tuple(chosen), sel.ds, failures=sel.failures)
        except CAPInputError as err:
            notice("warning", err)
        else:
            n_sep = int(d["separated"].sum())
            st.markdown(f"**{plain(side_name(*base_side))} → {plain(side_name(*str_side))}**: "
                        f"{counted(d['judge'].n_unique(), 'judge')}, "
                        f"{d['condition'].n_unique()} condition(s) measured on both sides; {n_sep} of {d.height} "
                        "δ have a 95% interval that excludes 0.")
            st.plotly_chart(stress_interval_figure(d), key="st_d_fig")
            st.caption(f"Whiskers: 95% percentile bootstrap over base items, {N_RESAMPLES} resamples, the two sides "
                       "resampled independently (they share no item). overall = pa over every item of the side; a "
                       "condition measured through subsets (e.g. LLMBar's C5, Natural vs adversarial) is not "
                       "measurable inside a part of the subsets.")
            show_table(st, d, key="st_d_table", help={"separated": "The 95% interval of δ excludes 0",
                                                      "n_base": help_text("n_items"),
                                                      "n_stressed": help_text("n_items")})

# --- δ between profile views (published tables included), no intervals ---------------------------------------
st.header("Between profiles and published tables (no intervals)")
st.caption(
    "The published default pair is JudgeBench → JudgeBench-Pro, whose values are JudgeBench (CAP Table 5) minus "
    "Table 6's δ. Published tables carry no per-item data, so these δ have no interval."
)
try:
    prof = sc.analysis_profile(sel)
except CAPInputError as err:
    notice("info", err)
    st.stop()
views = sc.profile_views(analysis_key(sel), sel.include_published, prof)
if len(views) < 2:
    st.info("Stress needs two benchmarks: load more data or include the published CAP judges.")
    st.stop()

c1, c2 = st.columns(2)
base_default, stressed_first = default_pair(prof, views)
base = c1.selectbox("Base view", views, key=kept("st_base", base_default, options=views))
rest = [v for v in views if v != base]
stressed_default = stressed_first if stressed_first in rest else rest[0]
stressed = c2.selectbox("Stressed view", rest, key=kept("st_stressed", stressed_default, options=rest))

try:
    deltas, per_judge, per_cond = sc.stress(analysis_key(sel), sel.include_published, base, stressed, prof)
except CAPInputError as err:
    notice("warning", f"No stress comparison for {base} → {stressed}: {err}")
    st.stop()

n_judges = per_judge.height
st.markdown(f"**{counted(n_judges, 'judge')}** measured on both benchmarks, "
            f"**{counted(per_cond.height, 'shared condition')}**.")
if n_judges == 1:
    st.info("Only one judge is shared: δ is shown, but there is no ranking across judges.")
st.plotly_chart(stress_heatmap(deltas, per_judge), key="st_heatmap")
st.plotly_chart(stress_mean_bars(per_judge), key="st_bars")

largest = per_cond.filter(per_cond["largest"])["condition"].to_list()
st.subheader("Per condition (mean across judges)")
notice("caption", "Largest mean drop: " + ", ".join(largest) + ".")
show_table(st, round_points(per_cond), key="st_per_condition")
st.subheader("Per judge (Table 6 Mean and dominant channel)")
show_table(st, round_points(per_judge), key="st_per_judge")
with st.expander("All deltas"):
    show_table(st, round_points(deltas), key="st_deltas")
