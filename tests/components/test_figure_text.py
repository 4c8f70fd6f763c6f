"""Names from data are drawn in figures as text, never as plotly markup (issue 19 finding 3).

A judge named ``<a href="http://evil.invalid/login">Session expired: click</a>`` became a clickable
y-axis label on the Choose page, and the same raw name sat in the plotly figures of ``choose --html``.
plotly.js reads ``<a href>``, ``<b>``, ``<img>``-like tags in every text it draws; here every figure
builder gets such names in every text column it reads (judges, benchmarks, subsets, domains, label
sets, slots, conditions, titles) and no tag from them may remain anywhere in the figure.
"""

from __future__ import annotations

import importlib
import inspect
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import components
from cap_core.figure_text import figure_text

REPO = Path(__file__).resolve().parents[2]
LINK = '<a href="http://evil.invalid/login">Session expired: click</a>'
IMG = '<img src="http://evil.invalid/x.png">'
BOLD = "<b>bench</b>"
#: What must not survive into a figure: a tag opened by the data.
RAW = ("<a href", "<img", "<b>", "</a>")


def _strings(node):
    """Every string inside a figure's JSON-ready dict (data and layout)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for k, v in node.items():
            yield from _strings(k)
            yield from _strings(v)
    elif isinstance(node, (list, tuple)):
        for v in node:
            yield from _strings(v)
    elif hasattr(node, "tolist"):
        yield from _strings(node.tolist())


def _assert_text_only(fig) -> None:
    texts = list(_strings(fig.to_plotly_json()))
    raw = [t for t in texts if any(r in t for r in RAW)]
    assert raw == [], raw[:3]
    # the names did reach the figure, as entities that plotly draws as the original characters
    assert any("&lt;a href=" in t or "&lt;img" in t or "&lt;b&gt;" in t for t in texts)


def test_figure_text_escapes_plotly_markup_and_keeps_the_text():
    assert figure_text(LINK) == '&lt;a href="http://evil.invalid/login"&gt;Session expired: click&lt;/a&gt;'
    assert figure_text("A & B <3") == "A &amp; B &lt;3"
    assert figure_text("GPT-4o [math]") == "GPT-4o [math]" and figure_text(None) is None
    # an entity written in the data is shown as written, not decoded into a character
    assert figure_text("&lt;b&gt;") == "&amp;lt;b&amp;gt;"


def _agreement():
    from components.agreement_heatmap import agreement_heatmap

    names = [LINK, "plain"]
    m = pl.DataFrame({"row": [a for a in names for _ in names], "col": names * 2, "kappa": [1.0, 0.2, 0.2, 1.0]})
    return agreement_heatmap(m)


def _audit():
    from cap_core.audit.surface import AUDIT_SCHEMA
    from components.audit_bars import audit_bars_figure

    row = {c: None for c in AUDIT_SCHEMA}
    row.update(label_set=LINK, predictor="length_only", mode="paired", score=61.0, null_mean=50.0, null_p95=55.0,
               p_value=0.01, clears_null=True, verdict=BOLD)
    return audit_bars_figure(pl.DataFrame([row], schema=AUDIT_SCHEMA), "paired")


def _cascade_curve():
    from components.cost_curves import cascade_curve_figure

    c = pl.DataFrame({"tau": [0.1, 0.5], "accuracy": [60.0, 70.0], "deferral_pct": [10.0, 50.0],
                      "usd_per_1000": [0.5, 2.0]})
    return cascade_curve_figure({LINK: c}, {"usd_per_1000": 1.0, "accuracy": 65.0, "tau": 0.3})


def _pareto():
    from components.cost_curves import pareto_figure

    return pareto_figure(pl.DataFrame({"entry": [LINK, IMG], "kind": [BOLD, "jury"], "accuracy": [60.0, 70.0],
                                       "usd_per_1000": [0.5, 2.0]}))


def _coverage():
    from components.coverage_heatmap import coverage_heatmap

    return coverage_heatmap(pl.DataFrame({"benchmark": [BOLD], "condition": ["C1"], "status": ["direct"],
                                          "operator": [LINK]}), title=IMG)


def _paired():
    from components.difference_bars import paired_figure

    rows = pl.DataFrame({"condition": ["overall", BOLD], "diff": [6.0, 1.0], "ci95_low": [2.0, -2.0],
                         "ci95_high": [9.0, 3.0], "ci90_low": [3.0, -1.5], "ci90_high": [8.5, 2.5],
                         "verdict": ["separated", "parity"]})
    return paired_figure(rows, LINK, IMG)


def _board() -> pl.DataFrame:
    from cap_core.choice.leaderboard import LEADERBOARD_SCHEMA

    rows = []
    for k, name in enumerate((LINK, IMG, "plain")):
        r = {c: None for c in LEADERBOARD_SCHEMA}
        r.update(rank=k + 1, rank_best=1, rank_worst=k + 1, judge=name, benchmark=BOLD, subset="all",
                 source="computed", published=False, score=70.0 - 10 * k, ci_low=60.0 - 10 * k,
                 ci_high=80.0 - 10 * k, p_best=0.5 / (k + 1), n_items=20, conditions_used=["C1"],
                 separable=None if k == 0 else k == 2, method="bootstrap", note="")
        rows.append(r)
    return pl.DataFrame(rows, schema=LEADERBOARD_SCHEMA).with_columns(pl.col("judge").alias("label"))


def _leaderboard():
    from components.leaderboard import leaderboard_figure

    return leaderboard_figure(_board())


def _leaderboard_bars():
    from cap_core.choice.figures import leaderboard_bars

    return leaderboard_bars(_board().drop("label"))  # the HTML report's call: judge names, no short labels


def _radar():
    from components.radar import radar_figure

    return radar_figure(pl.DataFrame({"label": [LINK, LINK, IMG], "condition": ["C1", "C7", "C1"],
                                      "value": [70.0, 80.0, 60.0], "primary": [True] * 3}), title=BOLD)


def _score_bars():
    from components.score_bars import score_bars_figure

    return score_bars_figure(pl.DataFrame({"label": [LINK, IMG], "score": [70.0, 60.0], "ci_low": [60.0, 50.0],
                                           "ci_high": [80.0, 70.0], "method": ["bootstrap"] * 2,
                                           "p_best": [0.7, 0.3]}), title=BOLD)


def _axis_bars():
    from components.sensitivity_bars import axis_bars_figure

    return axis_bars_figure(pl.DataFrame({"judge": [LINK, IMG], "S": [0.9, float("nan")], "R": [0.4, 0.2],
                                          "R_scope": [0.5, 0.1], "R_strength": [0.3, 0.2]}))


def _slot_bars():
    from components.slot_bars import slot_bars_figure

    t = pl.DataFrame({"judge": [LINK, IMG], "slot": [BOLD, BOLD], "measure": ["R", "R"], "value": [0.4, 0.5],
                      "ci_low": [0.3, 0.4], "ci_high": [0.5, 0.6]})
    return slot_bars_figure(t, pl.DataFrame({"slot": [IMG], "R": [0.5]}))


def _spearman():
    from components.spearman_matrix import spearman_matrix

    pairs = pl.DataFrame({"view_a": [LINK], "view_b": [BOLD], "rho": [0.9], "significant": [True],
                          "status": ["ok"], "n_judges": [7]})
    return spearman_matrix(pairs, "view_a", "view_b", f"{IMG}: ρ between benchmarks")


def _frontier():
    from components.sr_plane import frontier_figure

    sw = pl.DataFrame({"judge": [LINK, LINK], "tau": [0.0, 1.0], "S": [1.0, 0.5], "R": [0.5, 0.75],
                       "on_hull": [True, True]})
    point = pl.DataFrame({"judge": [LINK], "tau": [1.0], "S": [0.5], "R": [0.75]})
    return frontier_figure(sw, point, point, pl.DataFrame({"judge": [f"org/{IMG}"], "S": [0.9], "R": [0.4]}))


def _stress_deltas() -> pl.DataFrame:
    return pl.DataFrame({"judge": [LINK, IMG], "condition": [BOLD, "C1"], "delta": [3.0, -1.0],
                         "ci_low": [1.0, -2.0], "ci_high": [5.0, 0.5], "base_value": [80.0, 70.0],
                         "stressed_value": [77.0, 71.0]})


def _stress_heatmap():
    from components.stress_heatmap import stress_heatmap

    return stress_heatmap(_stress_deltas(), pl.DataFrame({"judge": [LINK, IMG], "dominant_condition": [BOLD, "C1"]}))


def _stress_intervals():
    from components.stress_heatmap import stress_interval_figure

    return stress_interval_figure(_stress_deltas())


def _stress_bars():
    from components.stress_heatmap import stress_mean_bars

    return stress_mean_bars(pl.DataFrame({"judge": [LINK, IMG], "mean_delta": [3.0, -1.0],
                                          "dominant_condition": [BOLD, "C1"]}))


def _plan():
    from components.testbed_plan import plan_heatmap

    return plan_heatmap(pl.DataFrame({"domain": [LINK, "law"], "failure_type": ["factual_fabrication"] * 2,
                                      "n": [3, 2]}), title=BOLD)


#: Every figure builder -> a call of it with names holding plotly markup.
BUILDERS = {
    "components.agreement_heatmap.agreement_heatmap": _agreement,
    "components.audit_bars.audit_bars_figure": _audit,
    "components.cost_curves.cascade_curve_figure": _cascade_curve,
    "components.cost_curves.pareto_figure": _pareto,
    "components.coverage_heatmap.coverage_heatmap": _coverage,
    "components.difference_bars.paired_figure": _paired,
    "components.leaderboard.leaderboard_figure": _leaderboard,
    "cap_core.choice.figures.leaderboard_bars": _leaderboard_bars,
    "components.radar.radar_figure": _radar,
    "components.score_bars.score_bars_figure": _score_bars,
    "components.sensitivity_bars.axis_bars_figure": _axis_bars,
    "components.slot_bars.slot_bars_figure": _slot_bars,
    "components.spearman_matrix.spearman_matrix": _spearman,
    "components.sr_plane.frontier_figure": _frontier,
    "components.stress_heatmap.stress_heatmap": _stress_heatmap,
    "components.stress_heatmap.stress_interval_figure": _stress_intervals,
    "components.stress_heatmap.stress_mean_bars": _stress_bars,
    "components.testbed_plan.plan_heatmap": _plan,
}


def test_every_figure_builder_is_checked():
    """A new builder in components/ (a function returning a figure) must join :data:`BUILDERS`."""
    found = set()
    for m in pkgutil.iter_modules(components.__path__):
        mod = importlib.import_module(f"components.{m.name}")
        for name, f in inspect.getmembers(mod, inspect.isfunction):
            if f.__module__ == mod.__name__ and "Figure" in str(inspect.signature(f).return_annotation):
                found.add(f"{mod.__name__}.{name}")
    assert found <= set(BUILDERS), sorted(found - set(BUILDERS))


@pytest.mark.parametrize("builder", sorted(BUILDERS))
def test_names_from_data_reach_the_figure_as_text(builder):
    _assert_text_only(BUILDERS[builder]())


def _embedded_figures(html: str) -> list[list]:
    """``[data, layout]`` of each figure an HTML page draws (the arguments of its ``Plotly.newPlot`` calls)."""
    dec = json.JSONDecoder()
    out = []
    for call in re.finditer(r'Plotly\.newPlot\(\s*(?=")', html):  # a call with a div id (not plotly.js itself)
        part, pos = html, call.end()
        values = []
        while len(values) < 3:  # the div id, the data, the layout
            while part[pos] in " \n\t\r,":
                pos += 1
            value, pos = dec.raw_decode(part, pos)
            values.append(value)
        out.append(values[1:])
    return out


def test_choose_html_report_draws_the_names_as_text(tmp_path):
    """The tester's case end to end: a joined table whose judge, benchmark and subset names hold markup,
    imported and chosen with ``--html``; the report's plotly figures (bars and radar) hold no tag of them."""
    rows = []
    judges = {LINK: "BBBA", IMG: "BAAB", "[click](http://evil.invalid)": "ABAB"}
    for k in range(12):
        gold = "AB"[k % 2]
        for judge, pattern in judges.items():
            for order, pick in zip(("AB", "BA"), pattern[(k % 2) * 2:(k % 2) * 2 + 2]):
                rows.append({"judge": judge, "benchmark": BOLD, "item_id": f"it{k}", "order": order,
                             "verdict": pick, "gold": gold, "subset": "<i>sub</i>" if k % 3 else "plain"})
    pl.DataFrame(rows).write_csv(tmp_path / "joined.csv")
    run = [sys.executable, "-m", "cap_core"]
    got = subprocess.run([*run, "import", "table", str(tmp_path / "joined.csv"), "--out", str(tmp_path / "ds")],
                         capture_output=True, text=True, cwd=REPO)
    assert got.returncode == 0, got.stderr
    got = subprocess.run([*run, "choose", "--data", str(tmp_path / "ds"), "--benchmark", BOLD, "--bootstrap", "100",
                          "--out", str(tmp_path / "s.csv"), "--html", str(tmp_path / "r.html")],
                         capture_output=True, text=True, cwd=REPO)
    assert got.returncode == 0, got.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    figures = _embedded_figures(html)
    assert len(figures) == 2  # the bars and the radar
    names = [t for f in figures for t in _strings(f)]
    assert not [t for t in names if any(r in t for r in RAW)]
    assert any(t.startswith("&lt;a href=") for t in names) and any(t.startswith("&lt;img") for t in names)
    # the page's own text stays escaped HTML as before: no live anchor to the host anywhere
    assert '<a href="http://evil.invalid' not in html and "<img src=\"http://evil" not in html
