"""Judges that covered different items are compared on the items all of them received (or, when asked,
each on its own), in the library, the CLI and the notebook API alike. Expected values are hand counts."""

from __future__ import annotations

import polars as pl
import pytest

import cap_core
from cap_core import save_dataset
from cap_core.analyses.judge_comparison import compare_judges
from cap_core.choice.pipeline import item_coverage, run_choice
from cap_core.cli.main import main
from cap_core.dataset import Dataset
from cap_core.errors import CAPInputError

FLIP = {"A": "B", "B": "A"}
# 20 items, gold alternating A / B. P judged i00..i09 in both orders, all correct.
# C judged all 20 in both orders: correct in AB everywhere; in BA wrong on i00, i01 and i15..i19.
GOLD = {f"i{k:02d}": "AB"[k % 2] for k in range(20)}
WRONG_BA = {0, 1, 15, 16, 17, 18, 19}
P = [(i, o, g) for i, g in list(GOLD.items())[:10] for o in ("AB", "BA")]
C = [(i, "AB", g) for i, g in GOLD.items()] + [(i, "BA", FLIP[g] if k in WRONG_BA else g)
                                               for k, (i, g) in enumerate(GOLD.items())]


def _ds() -> Dataset:
    items = pl.DataFrame({"benchmark": "t", "item_id": list(GOLD), "gold": list(GOLD.values())})
    rows = [{"judge": j, "benchmark": "t", "item_id": i, "order": o, "verdict": v}
            for j, vs in (("P", P), ("C", C)) for i, o, v in vs]
    return Dataset.build(items, pl.DataFrame(rows))


def _board(got) -> dict:
    return {r["judge"]: r for r in got.choice.leaderboard.iter_rows(named=True)}


def test_coverage_counts_what_each_judge_received():
    cov = item_coverage(_ds(), "t")
    assert (cov.n_items, cov.n_shared, cov.received, cov.differ) == (20, 10, {"C": 20, "P": 10}, True)
    assert "compared on the 10 items all of them received" in cov.sentence("shared")


def test_leaderboard_on_shared_items():
    got = run_choice(_ds(), "t", {"C7": 1}, n_resamples=300, seed=0)
    b = _board(got)
    # shared items i00..i09: P both orders right on all 10 -> strict 100; C wrong in BA on i00, i01 -> 8/10 = 80
    assert (b["P"]["score"], b["P"]["n_items"]) == (100.0, 10)
    assert (b["C"]["score"], b["C"]["n_items"]) == (80.0, 10)
    assert b["P"]["rank"] == 1 and b["C"]["diff_vs_leader"] == pytest.approx(20.0)
    assert any("item sets differ" in n for n in got.inputs.notices)
    assert set(got.scores["items"]) == {"shared"}


def test_leaderboard_on_own_items():
    got = run_choice(_ds(), "t", {"C7": 1}, items="own", n_resamples=300, seed=0)
    b = _board(got)
    # C on all 20: both orders right on 20 - 7 = 13 -> 65%; P unchanged (its own 10 items)
    assert (b["C"]["score"], b["C"]["n_items"]) == (65.0, 20)
    assert (b["P"]["score"], b["P"]["n_items"]) == (100.0, 10)
    assert any("mix item sets" in n for n in got.inputs.notices)


def test_no_shared_item_is_a_clear_error():
    items = pl.DataFrame({"benchmark": "t", "item_id": ["a", "b"], "gold": ["A", "B"]})
    rows = pl.DataFrame({"judge": ["X", "X", "Y", "Y"], "benchmark": "t", "item_id": ["a", "a", "b", "b"],
                         "order": ["AB", "BA"] * 2, "verdict": ["A", "A", "B", "B"]})
    with pytest.raises(CAPInputError, match="share no item"):
        run_choice(Dataset.build(items, rows), "t", {"C1": 1, "C7": 1}, n_resamples=100)
    # each on its own items still works
    got = run_choice(Dataset.build(items, rows), "t", {"C7": 1, "C1": 1}, items="own", n_resamples=100)
    assert got.choice.leaderboard.height == 2


def test_paired_comparison_uses_items_both_received():
    out = compare_judges(_ds(), "P", "C", "t", n_resamples=300)
    overall = out.filter(pl.col("condition") == "overall").row(0, named=True)
    # on i00..i09: P pa 20/20 = 100; C pa (10 AB + 8 BA) / 20 = 90
    assert (overall["value_a"], overall["value_b"], overall["n_items"]) == (100.0, 90.0, 10)


def test_cli_says_the_item_sets_differ_and_switches(tmp_path, capsys):
    save_dataset(_ds(), tmp_path / "d")
    assert main(["choose", "--data", str(tmp_path / "d"), "--weights", "C7=1", "--bootstrap", "200",
                 "--out", str(tmp_path / "s.csv")]) == 0
    err = capsys.readouterr().err
    assert "item sets differ" in err and "compared on the 10 items" in err
    shared = pl.read_csv(tmp_path / "s.csv")
    assert dict(zip(shared["judge"], shared["score"])) == {"P": 100.0, "C": 80.0}
    assert main(["choose", "--data", str(tmp_path / "d"), "--weights", "C7=1", "--bootstrap", "200",
                 "--items", "own", "--out", str(tmp_path / "o.csv")]) == 0
    own = pl.read_csv(tmp_path / "o.csv")
    assert dict(zip(own["judge"], own["n_items"])) == {"P": 10, "C": 20}
    assert set(own["items"]) == {"own"}


def test_notebook_api_is_the_same_pipeline():
    board = cap_core.choose(_ds(), "t", {"C7": 1}, n_resamples=300)
    cli_like = run_choice(_ds(), "t", {"C7": 1}, n_resamples=300).scores
    assert board.equals(cli_like)


def test_own_items_are_never_called_paired():
    """Scored each on its own items (P on 10, C on 20), the differences are not paired by item: the
    sentence, the sample-size estimate and the report say so and name no common item count."""
    from cap_core.choice.report import html_report
    from components.leaderboard import sample_size_text

    got = run_choice(_ds(), "t", {"C7": 1}, items="own", n_resamples=300, seed=0)
    ch = got.choice
    assert ch.paired is False
    assert "paired" not in ch.sentence and "each scored on its own items" in ch.sentence
    assert "on these" not in ch.sentence
    s = ch.sample_size
    assert s["paired"] is False and s["n_items"] == 10  # the leader P judged 10 items
    text = sample_size_text(s, "C", "P")
    assert "each on its own items (10 for P)" in text and "paired" not in text
    html = html_report(ch, got.inputs.rows, benchmark="t")
    assert "paired bootstrap" not in html and "own items" in html
    # the same judges on shared items are paired
    shared = run_choice(_ds(), "t", {"C7": 1}, n_resamples=300, seed=0).choice
    assert shared.paired is True and "paired bootstrap" in shared.sentence and "on these 10 items" in shared.sentence


def _sep_ds(n: int) -> Dataset:
    """``n`` items; judge G right in both orders on every item, judge W wrong in both: a difference of
    100 points that every resample keeps."""
    gold = ["AB"[k % 2] for k in range(n)]
    items = pl.DataFrame({"benchmark": "t", "item_id": [f"i{k}" for k in range(n)], "gold": gold})
    rows = [{"judge": j, "benchmark": "t", "item_id": f"i{k}", "order": o, "verdict": g if j == "G" else FLIP[g]}
            for j in ("G", "W") for k, g in enumerate(gold) for o in ("AB", "BA")]
    return Dataset.build(items, pl.DataFrame(rows))


def test_few_items_make_the_sentence_provisional():
    """Below 50 items (the small-cell threshold) a separation is still reported but called provisional,
    and the sample-size counts are called rough; at 50 items neither caveat appears."""
    from components.leaderboard import sample_size_text

    few = run_choice(_sep_ds(8), "t", {"C7": 1}, n_resamples=200, seed=0).choice
    assert "ahead of every other judge on these 8 items" in few.sentence
    assert "with only 8 items (fewer than 50) the intervals are optimistic" in few.sentence
    assert few.sample_size["small"] is True
    assert "these counts are rough" in sample_size_text(few.sample_size, "W", "G")
    enough = run_choice(_sep_ds(50), "t", {"C7": 1}, n_resamples=200, seed=0).choice
    assert "ahead of every other judge on these 50 items" in enough.sentence
    assert "provisional" not in enough.sentence and enough.sample_size["small"] is False


def test_report_cells_use_the_dashboards_decimals():
    """Points one decimal, probabilities three (the leaderboard of test_leaderboard_on_shared_items: C is 20.0
    points behind P); the radar reads clockwise from C1 at the top, as the dashboard's."""
    import re

    from cap_core.choice.report import html_report

    got = run_choice(_ds(), "t", {"C7": 1}, n_resamples=300, seed=0)
    page = html_report(got.choice, got.inputs.rows, benchmark="t")
    table = page.split('id="leaderboard"', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", table)
    cells = [re.findall(r"<td>(.*?)</td>", r) for r in rows if "<td>" in r]
    col = {name: k for k, name in enumerate(
        ("rank", "judge", "rank range", "subset", "source", "published", "score", "ci_low", "ci_high", "p_best",
         "n_items", "conditions_used", "diff_vs_leader", "p_holm", "separable", "usd_per_1000",
         "median_latency_s", "note"))}
    by_judge = {c[col["judge"]]: c for c in cells}
    assert by_judge["P"][col["diff_vs_leader"]] == "0.0" and by_judge["C"][col["diff_vs_leader"]] == "20.0"
    assert by_judge["P"][col["score"]] == "100.0" and re.fullmatch(r"[01]\.\d{3}", by_judge["P"][col["p_best"]])
    assert '"direction":"clockwise"' in page.replace(" ", "")


def test_report_sample_size_reads_as_a_sentence():
    """The 8-item case: G and W 100 points apart, separable already (0 more items), parity unreachable."""
    from cap_core.choice.report import html_report

    got = run_choice(_sep_ds(8), "t", {"C7": 1}, n_resamples=200, seed=0)
    page = html_report(got.choice, got.inputs.rows, benchmark="t")
    assert "these items are already enough;" in page and "no number of more items would do it." in page
    assert "about 0" not in page and "not reachable more" not in page
