"""Cascades: a cheap judge with confidence first, an LLM judge for the uncertain rest (Jev paper §6)."""

import polars as pl
import streamlit as st

from cap_core.cascades.cascade import cascade_point
from cap_core.errors import CAPInputError
from components.agreement_heatmap import agreement_heatmap
from components.cost_curves import cascade_curve_figure, pareto_figure
from ui.cache import cascades as cc
from ui.cascade_text import current_caption
from ui.sidebar import get_selection

sel = get_selection()
st.title("Cascades")
src = st.radio("Data", ["sidebar dataset", "PandaLM test set (data/pandalm)"], horizontal=True, key="cas_src")
ds, fp, bench = sel.ds, sel.fingerprint, sel.benchmark
if src.startswith("PandaLM"):
    (ds, fp), bench = cc.pandalm_dataset(), "pandalm"
if ds is None or bench not in ds.benchmarks:
    st.info("Choose a benchmark of the loaded dataset in the sidebar (published-only benchmarks have no verdicts).")
    st.stop()
judges = sorted(ds.judgments.filter(pl.col("benchmark") == bench)["judge"].unique().to_list())
scored = cc.scored_judges(fp, ds, bench)
method = "auto"
if not scored:
    st.warning("No judge on this benchmark carries a confidence or scores; ties are treated as the least "
               "confident verdicts (confidence 'decisive').")
    scored, method = judges, "decisive"
if st.session_state.get("cas_cheap") not in scored:
    st.session_state["cas_cheap"] = scored[0]
c1, c2 = st.columns(2)
cheap = c1.selectbox("Cheap judge (has confidence)", scored, key="cas_cheap")
rest = [j for j in judges if j != cheap]
default_fb = [j for j in rest if j not in scored][:1] or rest[:1]
st.session_state["cas_fb"] = [j for j in st.session_state.get("cas_fb", []) if j in rest] or default_fb
fallbacks = c2.multiselect("Fallback judge(s)", rest, key="cas_fb")
tau = st.slider("τ: keep the cheap verdict when its confidence ≥ τ (confidence on a 0–1 scale; "
                "for score margins τ ≈ the share deferred)", 0.0, 1.0, 0.5, 0.01, key="cas_tau")
if not fallbacks:
    st.info("Choose at least one fallback judge.")
    st.stop()
try:
    d, curves, orc, cf = cc.cascade_bundle(fp, ds, bench, cheap, tuple(fallbacks), method)
except CAPInputError as err:
    st.error(str(err))
    st.stop()
fb = fallbacks[0]
cur = cascade_point(d, float(tau), fb)  # the same computation as every row of the curve
g = cc.gain(fp, d, float(tau), fb)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Cascade accuracy", f"{cur['accuracy']:.1f}%")
m2.metric("Deferred to the fallback", f"{cur['deferral_pct']:.0f}%")
usd = cur["usd_per_1000"]
m3.metric("$ per 1,000 verdicts", "n/a" if usd is None else f"${usd:.2f}" if usd >= 1 else f"${usd:.4f}")
m4.metric(f"Gain over {g['best_single']}", f"{g['gain']:+.1f} pts", help=f"Best single judge among the cheap "
          f"judge and the fallbacks. 95% CI [{g['ci_low']:+.1f}, {g['ci_high']:+.1f}], paired bootstrap over "
          "base items")
st.caption(current_caption(tau, d.n, g, fb, orc, cf["gain"].mean(), cf["gain"].std(), cf.height))
st.plotly_chart(cascade_curve_figure(curves, cur), key="cas_curve")
st.subheader("Accuracy vs cost: single judges, juries, cascades")
pts = cc.singles_and_juries(fp, ds, bench, tuple(judges))
casc = pl.concat([c.with_columns(pl.format("cascade τ={} via {}", pl.col("tau").round(2), pl.lit(f)).alias("entry"))
                  for f, c in curves.items()]).select("entry", pl.lit("cascade").alias("kind"), "accuracy",
                                                     "usd_per_1000")
st.plotly_chart(pareto_figure(pl.concat([pts, casc])), key="cas_pareto")
st.caption("Costs are estimates: tokens × list prices (cap_core/cascades/price_table.csv, editable).")
for note in cc.cost_notes(fp, ds, bench, tuple(judges)):
    st.caption(note)
st.subheader("Repeated errors")
rep, mat = cc.shared_errors(fp, ds, bench, cheap, tuple(rest))
st.dataframe(rep, hide_index=True, key="cas_rep")
st.caption("Share of the cheap judge's wrong verdicts that each other judge repeats, next to the share "
           "expected if its errors were independent given the gold label (Jev paper §6.2).")
st.subheader("Agreement matrix (Cohen's κ)")
st.plotly_chart(agreement_heatmap(mat), key="cas_matrix")
