"""Live run: judge items with litellm models (offline local judges by default), then profile them."""

import threading
import time

import polars as pl
import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.judging.local_providers import LOCAL_EVALUATORS, LOCAL_JUDGES
from ui.cache import live_run as lrc

ITEM_SOURCES = ("mini testbed", "benchmark folder or table (path)", "upload")
st.title("Live run")
st.caption("Judge pairwise items with any litellm model (API keys are read from the environment, never stored) "
           "or the offline local judges. Every finished call is cached, so re-running costs nothing.")

src = st.radio("Items", ITEM_SOURCES, horizontal=True, key="lr_src")
try:
    if src == ITEM_SOURCES[0]:
        items = lrc.testbed_items()
    elif src == ITEM_SOURCES[1]:
        path = st.text_input("Folder or table with question / response_a / response_b", key="lr_path")
        items = lrc.items_from(path) if path else None
    else:
        up = st.file_uploader("Items with texts", type=["csv", "tsv", "jsonl", "json", "parquet"], key="lr_upload")
        items = lrc.items_from(up.name, up.getvalue()) if up else None
except CAPInputError as err:
    st.error(str(err))
    st.stop()
if items is None:
    st.info("Give the items to judge.")
    st.stop()

c1, c2, c3 = st.columns(3)
n_base = items["base_item_id"].n_unique()
limit = c1.number_input("Base items (first N)", 1, n_base, min(12, n_base), key="lr_limit")
variants_all = sorted(items["variant"].unique().to_list())
variants = c2.multiselect("Variants", variants_all, variants_all, key="lr_variants")
orders = c3.multiselect("Orders", ["AB", "BA"], ["AB", "BA"], key="lr_orders")
judges = st.multiselect("Judges", list(LOCAL_JUDGES), list(LOCAL_JUDGES), key="lr_judges")
extra = st.text_input("More judges (litellm model strings, comma-separated)", key="lr_extra",
                      placeholder="openai/gpt-4o-mini, anthropic/claude-haiku-4-5")
api_base = st.text_input("API base (OpenAI-compatible server, optional)", key="lr_api_base") or None
evaluator = st.selectbox("Rationale evaluator (C8)", ["(none)", *LOCAL_EVALUATORS], index=1, key="lr_eval")
evaluator_other = st.text_input("…or another evaluator model", key="lr_eval_other")
b1, b2, b3 = st.columns(3)
budget_calls = b1.number_input("Budget: requests", 0, 1_000_000, 5000, key="lr_budget_calls")
budget_usd = b2.number_input("Budget: dollars", 0.0, 10_000.0, 1.0, step=0.5, key="lr_budget_usd")
concurrency = b3.number_input("Concurrency", 1, 32, 4, key="lr_conc")

from cap_core.judging.run import RunSpec  # noqa: E402  (light; litellm stays unimported)

judge_list = judges + [m.strip() for m in extra.split(",") if m.strip()]
keep = items["base_item_id"].unique(maintain_order=True).head(int(limit)).to_list()
run_items = items.filter(pl.col("base_item_id").is_in(keep) & pl.col("variant").is_in(variants))
spec = RunSpec(judges=judge_list, orders=tuple(o for o in ("AB", "BA") if o in orders),
               evaluator=evaluator_other.strip() or (None if evaluator == "(none)" else evaluator),
               api_base=api_base, budget_calls=int(budget_calls), budget_usd=float(budget_usd),
               concurrency=int(concurrency))
try:
    spec.validate()
    if run_items.height == 0:
        raise CAPInputError("no items selected", expected="at least one variant", fix="choose variants")
    from cap_core.judging.estimate import estimate_run

    est = estimate_run(run_items, spec, lrc.cache_dir())
except CAPInputError as err:
    st.error(str(err))
    st.stop()


def estimate_line(est: dict) -> str:
    usd = "unknown price for " + ", ".join(est["unknown_price"]) if est["usd"] is None else f"≈ ${est['usd']:.4f}"
    return (f"**Estimate:** {est['calls']} judging calls on {run_items.height} items, {est['cached']} already "
            f"cached, {est['to_send']} to send (+ up to {est['evaluator_calls']} evaluator calls); cost {usd}.")


est_box = st.empty()  # rewritten after a run: the calls just made are cached now
est_box.markdown(estimate_line(est))

go, stop = st.columns(2)
start = go.button("Start run", type="primary", key="lr_start")
stop.button("Cancel", key="lr_cancel", help="Stops the run; finished calls stay in the cache.")
if start:
    from cap_core.judging.run import run_judging

    bar, line = st.progress(0.0, text="starting…"), st.empty()

    def show(s: dict) -> None:
        bar.progress(min(1.0, s["done"] / max(1, s["total"])), text=f"{s['phase']}: {s['done']}/{s['total']}")
        line.caption(f"requests {s['requests']} · cache hits {s['cache_hits']} · failures {s['failures']} · "
                     f"spend ${s['spend_usd']:.4f}")

    out = lrc.RUNS_DIR / time.strftime("run-%Y%m%d-%H%M%S")
    cancel = threading.Event()
    try:
        res = run_judging(run_items, spec, cache_dir=lrc.cache_dir(), out_dir=out, on_progress=show, cancel=cancel)
    except CAPInputError as err:
        st.error(str(err))
        st.stop()
    finally:
        cancel.set()
    est_box.markdown(estimate_line(estimate_run(run_items, spec, lrc.cache_dir())))
    st.session_state[lrc.LIVE_RUN_KEY] = str(out)
    st.session_state["lr_last_stats"] = dict(res.stats)
    st.session_state["lr_last_bench"] = run_items["benchmark"][0]
if st.session_state.get(lrc.LIVE_RUN_KEY):
    s = st.session_state.get("lr_last_stats", {})
    st.success(f"Run saved to {st.session_state[lrc.LIVE_RUN_KEY]}: {s.get('requests', 0)} requests, "
               f"{s.get('cache_hits', 0)} cache hits, {s.get('failures', 0)} failures, "
               f"${s.get('spend_usd', 0.0):.4f}.")
    st.button("Show these results on every page", key="lr_use",
              on_click=lambda: st.session_state.update(sb_source="live run results",
                                                       sb_benchmark=st.session_state.get("lr_last_bench")))
    from pathlib import Path

    fails = Path(st.session_state[lrc.LIVE_RUN_KEY]) / "failures.csv"
    if fails.exists():
        st.subheader("Calls per judge and condition")
        st.dataframe(pl.read_csv(fails), hide_index=True, key="lr_failures")
