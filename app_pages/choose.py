"""Choose a judge: the leaderboard under the sidebar's weights and minimums, and how sure it is.

Everything but the sources' own metrics depends on the weights, so it is the page's weighted
section (:func:`ui.sidebar.weighted_section`): a weight change reruns only that part."""

import polars as pl
import streamlit as st

from cap_core.choice.leaderboard import HOLM
from cap_core.errors import CAPInputError
from cap_core.profile.small_cells import small_cell_notice
from cap_core.profile.weights import PRESETS
from components.labels import short_label
from components.leaderboard import (
    leaderboard_figure,
    leaderboard_table,
    sample_size_text,
    weights_caption,
)
from ui.cache.choose import choose_view, closest_preset, html_later
from ui.display import LEADERBOARD_DECIMALS, download, show_table
from ui.sidebar import data_location, get_selection, use_preset, weighted_section
from ui.state import kept
from ui.text import notice, plain

sel = get_selection()
st.title("Choose a judge")
if not sel.benchmark:
    st.info("No benchmark available: load a dataset or include the published CAP judges.")
    st.stop()
if not sel.labels:
    st.info("Choose the candidate judges in the sidebar.")
    st.stop()


def leaderboard(sel) -> None:
    """The choice under the sidebar's weights and minimums (returns early instead of st.stop: a fragment)."""
    if not any(w > 0 for w in sel.weights.values()):
        st.warning("All condition weights are zero: move a slider or choose a preset")
        return
    try:
        view = choose_view(sel)
    except CAPInputError as err:
        notice("error", err)
        return
    ch = view.choice

    how = ("paired over the shared bootstrap resamples" if ch.paired else
           "taken over the shared bootstrap resamples of base items but not paired by item (each judge is scored on "
           "its own items)")
    st.caption(f"{plain(data_location(sel))}. Scores in percent with {ch.level:.0%} intervals. Differences from the "
               f"leader are {how}; their intervals are unadjusted {ch.level:.0%} "
               f"percentile intervals, while 'separable' and the rank ranges use {HOLM}-adjusted p-values across "
               "every pair of judges. A rank such as 1–3 means the judge cannot be told apart from the judges "
               "around it.")
    st.markdown(f"**{plain(ch.sentence)}**")
    if not view.board.height and ch.filtered.height:  # the minimums removed every judge: the sentence says so
        notice("caption", "Filtered out: " + "; ".join(f"{short_label(r['judge'])} ({r['reason']})"
                                                       for r in ch.filtered.iter_rows(named=True)))
        return
    if not view.board["rank"].is_not_null().any():
        near = closest_preset(sel.preset, sel.measured) if sel.preset in PRESETS else None
        st.warning("No leaderboard under these weights: the weighted conditions are not measured for the selected "
                   "judges here." + (f" The closest preset that works is '{near}'." if near else
                                     " Raise the weight of a measured condition in the sidebar."))
        if near:
            st.button(f"Use '{near}'", key="cho_use_closest", on_click=use_preset, args=(near,))
        return
    left, right = st.columns([3, 1])
    right.markdown("**Weights in force**")
    right.caption(weights_caption(sel.weights, sel.measured, sel.preset))
    notice("caption", "Minimums: " + (sel.filters_text or "none"), where=right)
    if ch.filtered.height:
        notice("caption", "Filtered out: " + "; ".join(f"{short_label(r['judge'])} ({r['reason']})"
                                                       for r in ch.filtered.iter_rows(named=True)), where=right)
    left.plotly_chart(leaderboard_figure(view.board), key="cho_bars")
    show_table(st, leaderboard_table(view.board), key="cho_board", decimals=LEADERBOARD_DECIMALS)
    for note in view.coverage_notes:
        notice("caption", note)
    small = small_cell_notice(view.rows.filter(view.rows["label"].is_in(view.board["label"].to_list())),
                              label="label")
    if small:  # said once for every small cell (the rule: cap_core.profile.small_cells)
        notice("info", small)
    c1, c2, c3 = st.columns(3)
    stem = f"cap_choice_{sel.benchmark}"
    download(c1, "Download scores CSV", lambda: view.scores_csv, f"{stem}_scores.csv", key="cho_dl_scores")
    download(c2, "Download profile CSV", lambda: view.profile_csv, f"{stem}_profile.csv", key="cho_dl_profile")
    download(c3, "Download HTML report", html_later(sel, view), f"{stem}.html", "text/html", key="cho_dl_html")
    st.caption("The two CSV files reproduce every weighted score (weights, level, resamples, seed and data "
               "fingerprint on every row); the HTML report opens offline.")

    if ch.sample_size:
        st.subheader("How much more data would settle it")
        st.write(plain(sample_size_text(ch.sample_size, short_label(view.runner_up or ""),
                                        short_label(view.board["label"][0]))))

    st.subheader("Where the leader fails")
    if view.drill is None:
        st.info(view.drill_note or "The drill-down needs at least two ranked judges.")
    elif view.drill.height == 0:
        st.info("On the items both judged, the leader and the runner-up are right and wrong on the same ones."
                + ("" if ch.paired else " Each is scored on its own items here, so they may have judged few or no "
                                        "items in common."))
    else:
        conds = sorted(view.drill["condition"].unique().to_list())
        cond = st.selectbox("Condition", conds, key=kept("cho_cond", conds[0], options=conds))
        part = view.drill.filter(view.drill["condition"] == cond)
        notice("caption", f"Items where one of {short_label(view.board['label'][0])} (leader) and "
                   f"{short_label(view.runner_up or '')} (runner-up) is right and the other wrong on {cond}: right = "
                   "every counted call correct (both orders where both are judged). Verdicts in the original letters.")
        if part["unit"].equals(part["item_ids"]):  # item units: the two columns say the same
            part = part.drop("item_ids")
        show_table(st, part, key="cho_drill")
        if "question" not in part.columns:
            st.caption("This data holds item ids and verdicts but no texts, so the questions and answers cannot "
                       "be shown here. Import a local copy of the benchmark with its texts (or upload a table with "
                       "question, response_a and response_b columns) to read each item.")


weighted_section("cho_weighted", leaderboard)

# The sources' own metrics do not depend on the weights: they are shown for the computed judges the
# minimums keep (the leaderboard's candidates; cap_core.choice.filters.apply_filters, as choose() does).
if sel.ds is not None:
    from cap_core.choice.filters import apply_filters
    from ui.cache.profiles import selected_rows

    kept_rows, _ = apply_filters(selected_rows(sel)[0].drop("label"), tuple(sel.filters))
    board_judges = kept_rows.filter(pl.col("source") == "computed")["judge"].unique().to_list()
    if board_judges:
        from ui.source_metrics_section import render_source_metrics

        # computed when opened (a rerun), not on every view of the page: nothing below the leaderboard delays it
        with st.expander("The sources' own metrics for these judges", expanded=False, key="cho_source_open",
                         on_change="rerun") as box:
            if box.open:
                render_source_metrics(sel.fingerprint, sel.ds, key="cho_source", judges=board_judges)
