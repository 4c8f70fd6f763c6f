"""The two exported CSV files reproduce every weighted score to 1e-9 (real data, read back from bytes)."""

from __future__ import annotations

import io
from html.parser import HTMLParser

import numpy as np
import polars as pl
import pytest

from cap_core import load_dataset
from cap_core.choice.exports import profile_export, recompute_scores, scores_export
from cap_core.choice.filters import parse_filters
from cap_core.choice.leaderboard import choose
from cap_core.choice.report import REPORT_COLUMNS, html_report
from cap_core.export import to_csv_bytes
from cap_core.profile.conditions import compute_profile
from cap_core.profile.published import load_published_profiles
from cap_core.schema import PROFILE_SCHEMA


@pytest.fixture(scope="module")
def choice_files(default_data_dir):
    ds = load_dataset(default_data_dir)
    res = compute_profile(ds, n_resamples=200, seed=0, benchmarks=["judgebench"])
    pub = load_published_profiles().filter(pl.col("benchmark") == "judgebench")
    rows = pl.concat([res.profile, pub.select(res.profile.columns)])
    reps = np.column_stack([res.replicates, np.full((200, pub.height), np.nan)])
    weights = {"C1": 1.0, "C2": 0.5, "C7": 2.0, "C8": 1.0}
    filters = parse_filters("C7=30")
    ch = choose(rows, reps, weights, filters=filters)
    prof = profile_export(rows, level=0.95, resamples=200, seed=0, fingerprint=ds.fingerprint())
    scores = scores_export(ch.leaderboard, ch.weights, filters=filters, level=0.95, resamples=200, seed=0,
                           fingerprint=ds.fingerprint())
    return ch, rows, to_csv_bytes(prof), to_csv_bytes(scores)


def test_profile_csv_is_the_full_schema_with_provenance(choice_files):
    _, rows, prof_csv, _ = choice_files
    back = pl.read_csv(io.BytesIO(prof_csv), infer_schema_length=None)
    assert list(back.columns) == [*PROFILE_SCHEMA, "level", "resamples", "seed", "fingerprint", "failures", "items"]
    assert back.height == rows.height  # every row and metric, not only the primary ones
    assert set(back["resamples"]) == {200} and back["fingerprint"].n_unique() == 1
    # full precision: no value rounded to 0.1
    assert (back["value"].drop_nulls() * 10 % 1).abs().max() > 1e-6


def test_scores_recompute_from_the_two_files_to_1e_9(choice_files):
    ch, _, prof_csv, scores_csv = choice_files
    prof = pl.read_csv(io.BytesIO(prof_csv), infer_schema_length=None)
    scores = pl.read_csv(io.BytesIO(scores_csv), infer_schema_length=None)
    assert {"benchmark", "w_requested_C1", "w_in_force_C8", "filters", "level", "resamples", "seed", "fingerprint"} <= set(scores.columns)
    assert scores["filters"][0] == "C7=30"
    got = recompute_scores(prof, scores).filter(pl.col("score").is_not_null())
    assert got.height == ch.leaderboard["score"].is_not_null().sum() > 5
    assert (got["recomputed"] - got["score"]).abs().max() < 1e-9
    # and the file's scores are the leaderboard's, not only consistent with themselves
    assert (got["score"] - ch.leaderboard["score"].drop_nulls()).abs().max() < 1e-9


class _Rows(HTMLParser):
    def __init__(self):
        super().__init__()
        self.table, self.rows, self.cell, self.scripts = None, [], None, 0

    def handle_starttag(self, tag, attrs):
        if tag == "table":
            self.table = dict(attrs).get("id")
        elif tag == "tr" and self.table == "leaderboard":
            self.rows.append([])
        elif tag == "td" and self.table == "leaderboard":
            self.cell = ""
        elif tag == "script" and not dict(attrs).get("src"):
            self.scripts += 1
        assert not (tag == "script" and dict(attrs).get("src")), "no CDN script"

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None
        elif tag == "table":
            self.table = None


def test_html_report_parses_with_every_leaderboard_row(choice_files):
    ch, rows, _, _ = choice_files
    text = html_report(ch, rows, benchmark="judgebench", fingerprint="abc")
    p = _Rows()
    p.feed(text)
    body = [r for r in p.rows if r]
    assert len(body) == ch.leaderboard.height
    assert [r[1] for r in body] == ch.leaderboard["judge"].to_list()
    assert body[0][REPORT_COLUMNS.index("score")] == f"{ch.leaderboard['score'][0]:.1f}"
    assert p.scripts >= 1  # plotly embedded (inline scripts only: the parser refuses a src=)
    assert ch.sentence.split(";")[0] in text.replace("&#x27;", "'")


def test_html_report_radar_gives_every_judge_its_own_colour(choice_files):
    """Each ranked judge's radar line has an explicit colour, and no two share one (a newcomer saw all black);
    a colour given by the caller (the page's judge colour) is the one used."""
    import json
    import re

    ch, rows, _, _ = choice_files
    ranked = ch.leaderboard.filter(ch.leaderboard["rank"].is_not_null())
    first = ranked["label"][0] if "label" in ranked.columns else ranked["judge"][0]
    text = html_report(ch, rows, benchmark="judgebench", colours={first: "#123456"})
    figure = text[text.rindex("Plotly.newPlot("):]  # the figure's own JSON, not the embedded library
    # the radar traces (not the template's own line colours)
    colours = [json.loads(f'"{c}"') for c in re.findall(r'\{"connectgaps":false,"line":\{"color":"([^"]+)"', figure)]
    assert len(colours) == min(8, ranked.height) >= 2
    assert len(set(colours)) == len(colours)
    assert colours[0] == "#123456"


def test_html_report_has_the_bars_and_both_weight_lines(choice_files):
    ch, rows, _, _ = choice_files
    text = html_report(ch, rows, benchmark="judgebench", fingerprint="abc")
    assert 'id="weights-requested"' in text and 'id="weights"' in text
    # one bar chart of scores with error bars (in its figure JSON) beside the radar, plotly.js embedded once
    assert text.count('"error_x":{"array"') == 1 and "Scores with their intervals" in text
    assert text.count("plotly.js v") == 1
