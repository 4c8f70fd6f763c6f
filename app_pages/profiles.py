"""Profiles: radar per judge, value and CI per condition, and the weighted choice.

The weighted choice is the page's weighted section (:func:`ui.sidebar.weighted_section`): a weight
change reruns only it; the radar and the profile table do not depend on the weights."""

import streamlit as st

from cap_core.errors import CAPInputError
from cap_core.glossary import help_text
from cap_core.profile.small_cells import small_cell_notice
from cap_core.profile.weights import METHOD_NORMAL
from components.labels import short_label
from components.radar import RADAR_SCALE
from components.score_bars import score_bars_figure
from ui.cache.profiles import profile_part, radar, weighted_part
from ui.display import show_table
from ui.sidebar import data_location, get_selection, weighted_section
from ui.text import notice, plain

sel = get_selection()
st.title("Profiles")
if not sel.benchmark:
    st.info("No benchmark available: load a dataset or include the published CAP judges.")
    st.stop()
if not sel.labels:
    st.info("Choose one or more judges in the sidebar.")
    st.stop()

try:
    rows, reps, table = profile_part(sel)
except CAPInputError as err:
    notice("error", err)
    st.stop()

st.caption(
    f"{plain(data_location(sel))}. Values in percent with 95% intervals (the primary metric of each "
    "condition); a gap in a polygon means the condition is not measured for that judge (never a zero). "
    f"{RADAR_SCALE} Hover a point for its value."
)
st.plotly_chart(radar(sel, rows), key="prof_radar")
small = small_cell_notice(rows, label="label")
if small:  # said once for every small cell (the rule: cap_core.profile.small_cells)
    notice("info", small)


def weighted_choice(sel) -> None:
    """Scores under the sidebar's weights: bars, notes and the score table."""
    view = weighted_part(sel, rows, reps)
    st.subheader("Weighted choice", help=help_text("score") + " · " + help_text("p_best"))
    if view.weights_problem:
        notice("warning", view.weights_problem)
    else:
        weights = ", ".join(f"{c} {w:g}" for c, w in sel.weights.items() if w > 0)
        st.caption(f"Weights ({st.session_state.get('sb_preset')}): {weights}.")
        any_score = view.scores["score"].is_not_null().any()
        if any_score:
            st.plotly_chart(score_bars_figure(view.scores), key="prof_scores")
        if view.renormalisation:  # one line for every judge (CAP §5), never one box per judge
            notice("info", view.renormalisation)
        for row in view.scores.iter_rows(named=True):
            if row["score"] is None:
                notice("warning", f"{short_label(row['label'])}: {row['note']}.")
            else:  # what is left of a note once the shared renormalisation line has said its part
                rest = [p for p in (row["note"] or "").split("; ")
                        if p and not p.startswith(("lacks ", "weights renormalised"))]
                if rest:
                    notice("caption", f"{short_label(row['label'])}: {'; '.join(rest)}.")
        if (view.scores["method"] == METHOD_NORMAL).any():
            st.caption(
                "Published judges carry only printed intervals: their score CI and P(best) use a "
                "normal approximation from the published CIs (sd = CI width / 3.92), not a bootstrap."
            )
        if any_score:
            # the notes are the boxes above; without them no column is cut off (the Export keeps them)
            show_table(st, view.score_table, key="prof_score_table",
                       column_order=[c for c in view.score_table.columns if c != "note"])


weighted_section("prof_weighted", weighted_choice)
st.subheader("Profile table", help=help_text("pa") + " · " + help_text("strict") + " · " + help_text("supported"))
show_table(st, table, key="prof_table",  # the benchmark is the sidebar's, named in the caption above
           column_order=[c for c in table.columns if c != "benchmark"])
st.caption("Download this table as CSV or JSON on the Export page.")
