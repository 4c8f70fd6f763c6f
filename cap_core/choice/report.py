"""A self-contained HTML report of one choice (opens offline: plotly.js is embedded).

Sections: the sentence, the weights in force and the condition minimums, the leaderboard
(every row, as an HTML table with ``id="leaderboard"``), a radar of the ranked judges'
primary values, the sample-size estimate, coverage notes and provenance (data
fingerprint, CAP Studio version, date, level, resamples, seed). Every text cell is HTML
escaped; nothing is fetched from a network.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from collections.abc import Mapping

import polars as pl

from cap_core.choice.filters import Filter, format_filters
from cap_core.choice.leaderboard import Choice
from cap_core.figure_text import figure_text
from cap_core.schema import CONDITION_IDS, CONDITIONS

__all__ = ["studio_version", "html_report", "REPORT_COLUMNS"]

#: Leaderboard columns shown in the report, in order.
REPORT_COLUMNS: tuple[str, ...] = ("rank", "judge", "rank range", "subset", "source", "published", "score", "ci_low",
                                   "ci_high",
                                   "p_best", "n_items", "conditions_used", "diff_vs_leader", "p_holm", "separable",
                                   "usd_per_1000", "median_latency_s", "note")


def studio_version() -> str:
    """The installed CAP Studio version, or ``"source checkout"`` when it is not installed as a package."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cap-studio")
    except PackageNotFoundError:
        return "source checkout"


#: Report columns that hold probabilities (three decimals); dollars get two; every other number is in
#: percent or points and gets one decimal, as the dashboard's tables show them.
_PROBABILITIES = frozenset({"p_best", "p_holm"})


def _cell(v, column: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, list):
        return html.escape(", ".join(str(x) for x in v))
    if isinstance(v, float):
        if column in _PROBABILITIES:
            return f"{v:.3f}" if v >= 0.001 or v == 0 else f"{v:.1e}"
        return f"{v:.2f}" if column == "usd_per_1000" else f"{v:.1f}"
    return html.escape(str(v))


def _colour(row: dict, colours: Mapping[str, str] | None) -> str:
    """A leaderboard row's line colour: the caller's for its label, else the judge's own
    (:func:`cap_core.colours.judge_colour`, the dashboard's rule)."""
    from cap_core.colours import judge_colour

    label = row["label"] if row.get("label") is not None else row["judge"]
    return (colours or {}).get(label) or judge_colour(label)


def _radar(profile: pl.DataFrame, board: pl.DataFrame, colours: Mapping[str, str] | None = None,
           with_plotly: bool = True) -> str:
    import plotly.graph_objects as go

    fig = go.Figure()
    prim = profile.filter(pl.col("primary") & pl.col("condition").is_in(list(CONDITION_IDS))).with_columns(
        pl.col("subset").fill_null("all"), pl.col("source").fill_null("computed"))
    for r in board.filter(pl.col("rank").is_not_null()).head(8).iter_rows(named=True):
        mine = prim.filter((pl.col("judge") == r["judge"]) & (pl.col("subset") == r["subset"])
                           & (pl.col("source") == r["source"]))
        val = {c: v for c, v in zip(mine["condition"], mine["value"])}
        fig.add_trace(go.Scatterpolar(r=[val.get(c) for c in CONDITION_IDS], theta=list(CONDITION_IDS),
                                      name=figure_text(r["judge"][:60]), connectgaps=False, mode="lines+markers",
                                      line={"color": _colour(r, colours)}))
    # C1 at the top, clockwise: the dashboard's radar (components/radar.py) reads the same way
    fig.update_layout(polar={"radialaxis": {"range": [0, 100]},
                             "angularaxis": {"direction": "clockwise", "categoryorder": "array",
                                             "categoryarray": list(CONDITION_IDS)}},
                      height=480, margin={"l": 40, "r": 40, "t": 30, "b": 30})
    return fig.to_html(include_plotlyjs=with_plotly, full_html=False)


def html_report(choice: Choice, profile: pl.DataFrame, *, benchmark: str, filters: tuple[Filter, ...] = (),
                coverage_notes: list[str] | None = None, fingerprint: str = "", level: float = 0.95,
                resamples: int = 1000, seed: int = 0, when: _dt.datetime | None = None,
                colours: Mapping[str, str] | None = None) -> str:
    """The report as one HTML document (UTF-8 text).

    Parameters
    ----------
    choice : Choice
        From :func:`cap_core.choice.leaderboard.choose`.
    profile : polars.DataFrame
        The profile rows the choice ranked (for the radar).
    benchmark, filters, coverage_notes, fingerprint, level, resamples, seed
        Shown as given (provenance).
    when : datetime, optional
        Report date (default: now, UTC).
    colours : mapping, optional
        Line colour per leaderboard label; a label without one takes its judge's colour
        (:func:`cap_core.colours.judge_colour`), the colour the dashboard draws it in.
    """
    from cap_core.choice.figures import leaderboard_bars
    from cap_core.profile.weights import weight_shares

    when = when or _dt.datetime.now(_dt.timezone.utc)
    board = choice.leaderboard.with_columns(
        pl.when(pl.col("rank_best") == pl.col("rank_worst")).then(pl.col("rank_best").cast(pl.String))
        .otherwise(pl.col("rank_best").cast(pl.String) + "–" + pl.col("rank_worst").cast(pl.String))
        .alias("rank range"))
    head = "".join(f"<th>{html.escape(c)}</th>" for c in REPORT_COLUMNS)
    body = "".join("<tr>" + "".join(f"<td>{_cell(r[c], c)}</td>" for c in REPORT_COLUMNS) + "</tr>"
                   for r in board.iter_rows(named=True))
    requested = ", ".join(f"{c} {CONDITIONS[c][0]} {w:g}" for c, w in choice.weights.items() if w > 0)
    measured = {c for used in board["conditions_used"].to_list() for c in (used or [])}
    force = weight_shares(choice.weights, measured)
    in_force = ", ".join(f"{c} {CONDITIONS[c][0]} {100 * w:.0f}%" for c, w in force.items() if w > 0) or "none"
    # plotly.js is embedded once, with the first figure of the page (the report works offline)
    bars = leaderboard_bars(board).to_html(include_plotlyjs=True, full_html=False) if board.height else ""
    filt = format_filters(filters) or "none"
    out_rows = "".join(f"<li>{html.escape(r['judge'])}: {html.escape(r['reason'])}</li>"
                       for r in choice.filtered.iter_rows(named=True))
    s = choice.sample_size
    sizes = ""
    if s:
        def n(x):  # "more items" needed: none, about N, or none that would do
            if not math.isfinite(x):
                return "no number of more items would do it"
            return "these items are already enough" if x <= 0 else f"about {int(x):,} more items of this kind"
        on = (f"on {s['n_items']} items" if s.get("paired", True)
              else f"each on its own items ({s['n_items']} for the leader; a rough estimate)")
        sizes = (f"<p>Top two differ by {s['diff']:.1f} points {on}. To separate them at "
                 f"{s['level']:.0%} (power {s['power']:.0%}): {n(s['more_to_separate'])}; "
                 f"to show parity within ±{s['margin']:g} points: {n(s['more_for_parity'])}."
                 f"{' With so few items these counts are rough.' if s.get('small') else ''}</p>")
    notes = "".join(f"<li>{html.escape(t)}</li>" for t in (coverage_notes or []))
    diffs = ("paired bootstrap differences" if choice.paired
             else "bootstrap differences over each judge's own items")
    prov = {"benchmark": benchmark, "data fingerprint": fingerprint or "—", "CAP Studio version": studio_version(),
            "date (UTC)": when.strftime("%Y-%m-%d %H:%M"), "interval level": f"{level:g}",
            "bootstrap resamples": str(resamples), "seed": str(seed),
            "multiple comparisons": f"{choice.correction} across every pair of judges ({diffs}; difference "
                                    "intervals unadjusted)"}
    prov_rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in prov.items())
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>CAP Studio — judge choice on {html.escape(benchmark)}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:80em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 6px;font-size:13px;text-align:left}}.wide{{overflow-x:auto}}</style></head>
<body><h1>Judge choice: {html.escape(benchmark)}</h1>
<p id="sentence">{html.escape(choice.sentence)}</p>
<h2>Weights</h2><p>Requested: <span id="weights-requested">{html.escape(requested)}</span></p>
<p>In force (shares of the score over the conditions measured here; a judge lacking one of them has the rest
renormalised, as its row's conditions say): <span id="weights">{html.escape(in_force)}</span></p>
<p>Condition minimums: {html.escape(filt)}</p>{f"<ul id='filtered'>{out_rows}</ul>" if out_rows else ""}
<h2>Leaderboard</h2><div class="wide"><table id="leaderboard"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>
<p>Scores and intervals in percent ({level:.0%} percentile bootstrap); differences in points from the leader
with unadjusted intervals; p_holm: {html.escape(choice.correction)}-adjusted p-value across every pair of judges;
a rank range such as 1–3 means the judge cannot be told apart from those around it. Published judges use a
normal approximation from their printed intervals.</p>
<h2>Scores with their intervals</h2>{bars}
<h2>Profiles</h2>{_radar(profile, board, colours, with_plotly=not bars)}
<h2>How much more data would settle it</h2>{sizes or "<p>Fewer than two judges with a score.</p>"}
<h2>Coverage notes</h2><ul>{notes or "<li>None.</li>"}</ul>
<h2>Provenance</h2><table id="provenance">{prov_rows}</table>
</body></html>
"""
