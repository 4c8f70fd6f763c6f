"""Radar figure structure: closed polygons, gaps as None, one axis order for all."""

import polars as pl
import pytest

from cap_core.schema import CONDITION_IDS
from components.radar import radar_figure


def rows() -> pl.DataFrame:
    # judge P lacks C3 and C8; judge Q has all eight; judge R lacks C1 (the first axis)
    data = []
    for i, c in enumerate(CONDITION_IDS):
        if c not in ("C3", "C8"):
            data.append(("P", c, 10.0 * (i + 1)))
        data.append(("Q", c, 50.0))
        if c != "C1":
            data.append(("R", c, 70.0))
    return pl.DataFrame(data, schema={"label": pl.String, "condition": pl.String, "value": pl.Float64}, orient="row")


def test_one_closed_trace_per_judge_same_axis_order():
    fig = radar_figure(rows())
    assert [t.name for t in fig.data] == ["P", "Q", "R"]
    thetas = [list(t.theta) for t in fig.data]
    assert thetas[0] == thetas[1] == thetas[2]
    assert len(thetas[0]) == 9
    assert [th.split()[0] for th in thetas[0]] == list(CONDITION_IDS) + ["C1"]
    q = fig.data[1]
    assert list(q.r) == [50.0] * 9  # closed: first value repeated at the end


def test_missing_conditions_are_gaps_not_zeros():
    fig = radar_figure(rows())
    p = list(fig.data[0].r)
    # P: C1=10, C2=20, C3 missing, C4=40, ..., C7=70, C8 missing, then C1 again
    assert p == [10.0, 20.0, None, 40.0, 50.0, 60.0, 70.0, None, 10.0]
    assert fig.data[0].connectgaps is False
    r = list(fig.data[2].r)
    assert r[0] is None and r[-1] is None and r[1:8] == [70.0] * 7


def test_axes_fixed_in_percent_and_ignores_overall():
    extra = pl.DataFrame({"label": ["Q"], "condition": ["overall"], "value": [99.0]})
    fig = radar_figure(pl.concat([rows(), extra]))
    assert len(fig.data[1].r) == 9 and 99.0 not in list(fig.data[1].r)
    assert list(fig.layout.polar.radialaxis.range) == [0, 100]
    assert list(fig.layout.polar.angularaxis.categoryarray) == list(fig.data[0].theta)[:8]


# --- real default data: the radar plots the primary metric, not the last row of a condition ---

from cap_core.dataset import load_dataset  # noqa: E402
from cap_core.profile.conditions import compute_profile  # noqa: E402
from components.labels import with_labels  # noqa: E402

GEMMA = "GRM-Gemma-2B-rewardmodel-ft (RM)"


def _radar_r(fig, name: str, cond: str) -> float:
    trace = next(t for t in fig.data if t.name == name)
    return list(trace.r)[list(CONDITION_IDS).index(cond)]


def _strict_by_hand(default_data_dir, bench: str, judge: str) -> float:
    # C7 strict both-correct: share of items judged right in BOTH the AB and BA order
    items = pl.read_parquet(default_data_dir / "items.parquet").filter(pl.col("benchmark") == bench)
    j = pl.read_parquet(default_data_dir / "judgments.parquet").filter(
        (pl.col("benchmark") == bench) & (pl.col("judge") == judge)
    )
    w = j.pivot(on="order", index="item_id", values="verdict").join(items.select("item_id", "gold"), on="item_id")
    return 100.0 * ((w["AB"] == w["gold"]) & (w["BA"] == w["gold"])).sum() / items.height


def test_radar_on_judgebench_plots_c7_strict(default_data_dir):
    ds = load_dataset(default_data_dir)
    prof = with_labels(compute_profile(ds, n_resamples=20, seed=0, benchmarks=["judgebench"]).profile)
    fig = radar_figure(prof)  # every metric row of the profile, as the Profiles page passes it
    strict = prof.filter(
        (pl.col("judge") == GEMMA) & (pl.col("condition") == "C7") & (pl.col("metric") == "strict")
    )["value"][0]
    assert _radar_r(fig, GEMMA, "C7") == pytest.approx(strict)
    # and the same number straight from the judgments: 208 of 350 items right both ways = 59.4%
    assert _radar_r(fig, GEMMA, "C7") == pytest.approx(_strict_by_hand(default_data_dir, "judgebench", GEMMA))
    assert _radar_r(fig, GEMMA, "C7") > 59.0  # the stable_but_wrong row (40.6) must not win


def test_radar_on_llmbar_plots_c5_pa_and_c7_strict(default_data_dir):
    ds = load_dataset(default_data_dir)
    prof = with_labels(compute_profile(ds, n_resamples=20, seed=0, benchmarks=["llmbar"]).profile)
    fig = radar_figure(prof)
    mine = prof.filter(pl.col("judge") == "GPT-4/CoT")
    c5_pa = mine.filter((pl.col("condition") == "C5") & (pl.col("metric") == "pa"))["value"][0]
    assert _radar_r(fig, "GPT-4/CoT", "C5") == pytest.approx(c5_pa)  # 77.1, not the surface gap 17.4
    assert _radar_r(fig, "GPT-4/CoT", "C7") == pytest.approx(_strict_by_hand(default_data_dir, "llmbar", "GPT-4/CoT"))
    # one value per axis and entry: 8 axes + the closing repeat, for every judge
    assert all(len(t.r) == 9 for t in fig.data)


def test_long_labels_are_cut_in_legend_and_hover():
    long = "=cmd|" + "x" * 200_000
    data = pl.DataFrame({"label": [long, long + "y", "short"], "condition": ["C1"] * 3, "value": [1.0, 2.0, 3.0]})
    fig = radar_figure(data)
    names = [t.name for t in fig.data]
    assert all(len(n) <= 60 for n in names) and names[0].endswith("…")
    assert len(set(names)) == 3 and names[2] == "short"  # two long names sharing a prefix stay distinct
    assert all(len(t.hovertemplate) < 200 for t in fig.data)


def test_radial_tick_labels_sit_between_c1_and_c2():
    # clockwise from the top: C1 at 90 degrees, C2 at 45, C3 at 0 (east); ticks must avoid 0
    fig = radar_figure(rows())
    angle = fig.layout.polar.radialaxis.angle
    assert 45 < angle < 90


def test_radial_numbers_are_off_the_data_and_the_scale_is_said_in_words():
    # every sector between two spokes carries polygon edges, so the ring numbers are hidden
    fig = radar_figure(rows())
    ax = fig.layout.polar.radialaxis
    assert ax.showticklabels is False and list(ax.tickvals) == [25, 50, 75, 100]
    from components.radar import RADAR_SCALE

    assert all(s in RADAR_SCALE for s in ("25", "50", "75", "100%"))


def test_equal_points_of_two_judges_stay_distinguishable():
    # only C5 and C7 measured, both judges at the same values: the points coincide
    same = pl.DataFrame({"label": ["a", "a", "b", "b"], "condition": ["C5", "C7"] * 2, "value": [60.0, 40.0] * 2})
    fig = radar_figure(same)
    assert fig.data[0].r == fig.data[1].r
    symbols = [t.marker.symbol for t in fig.data]
    sizes = [t.marker.size for t in fig.data]
    assert symbols[0] != symbols[1] and sizes[0] > sizes[1]  # the second drawn smaller, on top
