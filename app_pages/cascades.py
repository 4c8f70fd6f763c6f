"""Cascades: a cheap judge with confidence first, an LLM judge for the uncertain rest (Jev paper §6)."""

import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.glossary import help_text
from components.agreement_heatmap import agreement_heatmap
from components.cost_curves import cascade_curve_figure, pareto_figure
from ui.cache import cascades as cc
from ui.cascade_text import money
from ui.display import show_table
from ui.sidebar import get_selection
from ui.state import kept
from ui.text import notice, plain

sel = get_selection()
st.title("Cascades")
src = st.radio("Data", cc.SOURCES, horizontal=True, key=kept("cas_src", options=cc.SOURCES))
ds, fp, bench = cc.data_for(src, sel)
if ds is None or bench not in ds.benchmarks:
    st.info("Choose a benchmark of the loaded dataset in the sidebar (published-only benchmarks have no verdicts).")
    st.stop()
ch = cc.choices(fp, ds, bench)
if ch.method == "decisive":
    st.warning("No judge on this benchmark carries a confidence or scores; ties are treated as the least "
               "confident verdicts (confidence 'decisive').")
c1, c2 = st.columns(2)
cheap = c1.selectbox("Cheap judge (has confidence)", ch.scored, key=kept("cas_cheap", ch.scored[0], options=ch.scored))
rest = ch.fallback_options(cheap)
fallbacks = c2.multiselect("Fallback judge(s)", rest, key=kept("cas_fb", ch.default_fallbacks(cheap), options=rest))
tau = st.slider("τ: keep the cheap verdict when its confidence ≥ τ (confidence on a 0–1 scale; "
                "for score margins τ ≈ the share deferred)", 0.0, 1.0, step=0.01, key=kept("cas_tau", 0.5),
                help=help_text("tau"))
if not fallbacks:
    st.info("Choose at least one fallback judge.")
    st.stop()
try:
    v = cc.view(fp, ds, bench, ch, cheap, tuple(fallbacks), tau)
except CAPInputError as err:
    notice("error", err)
    st.stop()
g = v.gain
m1, m2, m3, m4 = st.columns(4)
m1.metric("Cascade accuracy", f"{v.point['accuracy']:.1f}%", help=help_text("pa"))
m2.metric("Deferred to the fallback", f"{v.point['deferral_pct']:.0f}%", help=help_text("deferral"))
m3.metric("$ per 1,000 items", money(v.point["usd_per_1000"]), help=help_text("usd_per_1000"))
m4.metric(f"Gain over {plain(g['best_single'])}", f"{g['gain']:+.1f} pts",
          help=help_text("gain") + ". Best single judge among the cheap "
          f"judge and the fallbacks. 95% CI [{g['ci_low']:+.1f}, {g['ci_high']:+.1f}], bootstrap over base items "
          "(the same resamples for the cascade and the single judge)")
notice("caption", v.caption)
st.plotly_chart(cascade_curve_figure(v.curves, v.point), key="cas_curve")
st.subheader("Accuracy vs cost: single judges, juries, cascades")
st.plotly_chart(pareto_figure(v.pareto), key="cas_pareto")
st.caption("Costs are estimates: recorded dollars, else tokens or response lengths × list prices "
           "(cap_core/cascades/price_table.csv, editable).")
for note in v.cost_notes:
    notice("caption", note)
st.subheader("Repeated errors", help=help_text("repeat_rate"))
show_table(st, v.repeated, key="cas_rep")
st.caption("Share of the cheap judge's wrong verdicts that each other judge repeats, next to the share "
           "expected if its errors were independent given the gold label (Jev paper §6.2).")
st.subheader("Agreement matrix (Cohen's κ)", help=help_text("kappa"))
st.plotly_chart(agreement_heatmap(v.agreement), key="cas_matrix")
st.subheader("Confidence: does it rank the errors?")
conf, conf_notes = cc.confidence_table(fp, ds, bench, ch.scored, ch.method)
st.dataframe(conf, hide_index=True, key="cas_conf")
st.caption("AUROC: the chance that a right item has higher confidence than a wrong one (0.5 = no ranking; "
           "Jev paper §6.1). Top band: error rate (%) among items with confidence ≥ 0.75.")
for note in conf_notes:
    notice("caption", note)
if src == cc.SOURCES[1]:
    st.subheader("Graded verdicts (B better −1 < tie 0 < A better +1) and the median jury")
    st.dataframe(cc.graded_view(cc.pandalm_stamp()), hide_index=True, key="cas_graded")
    st.caption("Exact and within-one accuracy (%), quadratic-weighted κ, mean offset (levels, judge − raters) and "
               "the best constant shift; the median jury takes the lower median of its judges' levels.")
