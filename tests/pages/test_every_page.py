"""Every dashboard page under streamlit's AppTest, on the embedded default data."""

from __future__ import annotations

import io
from pathlib import Path

import polars as pl
import pytest
import streamlit as st
import streamlit.testing.v1.app_test as app_test_module
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

from tests.pages.app_pages import pages_in_app
from tests.pages.shown import rendered

REPO = Path(__file__).resolve().parents[2]
APP = str(REPO / "app.py")


PAGE_FILES = [f for f, _ in pages_in_app()]
PAGE_TITLES = {t for _, t in pages_in_app()} | {"CAP Studio"}
T3 = "{} · CAP Table 3 · hard_empirical"
GPT, SONNET = T3.format("GPT-4o"), T3.format("Claude Sonnet 4.5")


def start(page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    assert not at.exception
    if page:
        at.switch_page(page).run()
    return at


def no_errors(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [rendered(e.value) for e in at.error]


@pytest.mark.parametrize("page", PAGE_FILES)
def test_page_renders_without_exception(page):
    at = start(page)
    no_errors(at)
    assert at.title[0].value in PAGE_TITLES


def test_navigation_lists_exactly_the_pages_of_app_py():
    listed = PAGE_FILES
    assert sorted(listed) == sorted(f"app_pages/{p.name}" for p in (REPO / "app_pages").glob("*.py"))
    at = start()
    registered = sorted(
        Path(info["script_path"]).relative_to(REPO).as_posix()
        for info in at._registered_pages.values()
        if info.get("script_path") and Path(info["script_path"]).name != "app.py"
    )
    assert registered == sorted(PAGE_FILES)


def test_overview_counts_match_the_parquet_files():
    at = start()
    summary = pl.from_pandas(at.dataframe[0].value)
    items = pl.read_parquet(REPO / "data" / "default" / "items.parquet")
    judg = pl.read_parquet(REPO / "data" / "default" / "judgments.parquet")
    for bench in items["benchmark"].unique().to_list():
        row = summary.filter(pl.col("benchmark") == bench).row(0, named=True)
        j = judg.filter(pl.col("benchmark") == bench)
        assert row["items"] == (items["benchmark"] == bench).sum()
        assert row["verdicts"] == j.height
        assert row["ties"] == (j["verdict"] == "tie").sum()
        assert row["unparsed"] == (j["verdict"] == "unparsed").sum()
        assert row["judges"] == j["judge"].n_unique()


def test_coverage_page_shows_computed_and_published():
    at = start("app_pages/coverage.py")
    no_errors(at)
    assert len(at.get("plotly_chart")) == 2
    assert [s.value for s in at.subheader] == ["Computed (loaded data)", "Published (CAP Table 2)"]


def choose_table3(at: AppTest, preset: str) -> AppTest:
    at.selectbox(key="sb_benchmark").set_value("judgereva").run()
    at.multiselect(key="sb_entries").set_value([GPT, SONNET]).run()
    at.selectbox(key="sb_preset").set_value(preset).run()
    return at


def ranking(at: AppTest) -> list[str]:
    return list(at.dataframe[0].value["judge"])


def test_preset_reorders_published_judges():
    at = start("app_pages/profiles.py")
    choose_table3(at, "legal and policy")
    no_errors(at)
    assert at.slider(key="sb_w_C4").value == 1.0 and at.slider(key="sb_w_C1").value == 0.0
    # CAP Table 3, C4 only: GPT-4o 64.1 > Claude Sonnet 4.5 59.2
    assert ranking(at) == [GPT, SONNET]
    assert list(at.dataframe[0].value["score"]) == [64.1, 59.2]
    at.selectbox(key="sb_preset").set_value("scientific review").run()
    # C1 + C8: Sonnet (92.4 + 85.7) / 2 = 89.05 > GPT-4o (40.5 + 66.7) / 2 = 53.6
    assert ranking(at) == [SONNET, GPT]
    assert list(at.dataframe[0].value["score"]) == pytest.approx([89.05, 53.6], abs=0.051)
    assert any("normal approximation" in rendered(c.value) for c in at.caption)


def test_single_slider_reorders_and_marks_custom():
    at = choose_table3(start("app_pages/profiles.py"), "legal and policy")
    at.slider(key="sb_w_C1").set_value(1.0).run()
    # C1 + C4 equally: Sonnet (92.4 + 59.2) / 2 = 75.8 > GPT-4o (40.5 + 64.1) / 2 = 52.3
    assert ranking(at) == [SONNET, GPT]
    assert at.selectbox(key="sb_preset").value == "custom"


def test_all_zero_weights_keep_radar_and_table_and_warn_in_words():
    at = choose_table3(start("app_pages/profiles.py"), "legal and policy")
    at.slider(key="sb_w_C4").set_value(0.0).run()
    assert not at.exception and not at.error
    warnings = [rendered(w.value) for w in at.warning]
    assert warnings == ["All condition weights are zero: move a slider or choose a preset"]
    assert not at.get("plotly_chart")  # the weighted section reran alone (a fragment): no score bars
    at.run()  # AppTest keeps only the rerun fragment's elements; a full run shows the whole page
    assert [rendered(w.value) for w in at.warning] == warnings
    charts = [c.proto.id for c in at.get("plotly_chart")]
    assert len(charts) == 1 and "prof_radar" in charts[0]  # radar kept, score bars left out
    table = pl.from_pandas(at.dataframe[0].value)
    # CAP Table 3, independent of weights: GPT-4o C4 64.1
    assert table.filter((pl.col("judge") == GPT) & (pl.col("condition") == "C4"))["value"][0] == 64.1
    assert table.height == 16
    at.switch_page("app_pages/export.py").run()
    assert not at.exception and not at.error
    shown = [rendered(w.value) for w in at.warning]
    assert shown == ["All condition weights are zero: move a slider or choose a preset"]
    assert len(at.get("download_button")) == 2  # the profile table still downloads


def _radar_traces(at: AppTest) -> dict[str, list]:
    import json

    chart = next(c for c in at.get("plotly_chart") if "prof_radar" in c.proto.id)
    return {t["name"]: t["r"] for t in json.loads(chart.proto.spec)["data"]}


def test_profiles_radar_shows_c7_strict_of_the_judgments():
    gemma = "GRM-Gemma-2B-rewardmodel-ft (RM)"
    at = start("app_pages/profiles.py")
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.multiselect(key="sb_entries").set_value([gemma]).run()
    no_errors(at)
    # by hand from the parquet files: items judged right in BOTH orders, over all JudgeBench items
    items = pl.read_parquet(REPO / "data" / "default" / "items.parquet").filter(pl.col("benchmark") == "judgebench")
    j = pl.read_parquet(REPO / "data" / "default" / "judgments.parquet").filter(
        (pl.col("benchmark") == "judgebench") & (pl.col("judge") == gemma)
    )
    w = j.pivot(on="order", index="item_id", values="verdict").join(items.select("item_id", "gold"), on="item_id")
    strict = 100.0 * ((w["AB"] == w["gold"]) & (w["BA"] == w["gold"])).sum() / items.height
    assert _radar_traces(at)[gemma][6] == pytest.approx(strict)  # axis 7 is C7
    table = pl.from_pandas(at.dataframe[-1].value)
    assert table.filter(pl.col("condition") == "C7")["metric"].to_list() == ["strict"]


def test_renormalisation_is_said_once_for_all_judges():
    at = start("app_pages/profiles.py")
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    judges = [o for o in at.multiselect(key="sb_entries").options if "·" not in o][:2]
    at.multiselect(key="sb_entries").set_value(judges).run()
    no_errors(at)
    # JudgeBench cannot measure C3/C4 (CAP Table 2), so balanced weights are renormalised for both judges:
    # one line names the dropped conditions and whom they concern, never one box per judge (issue 14 §2)
    notes = [rendered(i.value) for i in at.info if "renormalised" in rendered(i.value)]
    assert len(notes) == 1
    assert "C3" in notes[0] and "all 2 judges" in notes[0]
    assert not any(rendered(i.value).startswith(j + ":") for i in at.info for j in judges)


def test_weight_change_answers_from_cache(monkeypatch):
    import cap_core.profile.conditions as conditions

    calls = []
    real = conditions.compute_profile

    def counting(*args, **kwargs):
        calls.append(kwargs.get("benchmarks"))
        return real(*args, **kwargs)

    monkeypatch.setattr(conditions, "compute_profile", counting)
    st.cache_data.clear()
    at = start()
    at.switch_page("app_pages/profiles.py").run()
    # the profile of this selection was computed at most once (Overview may already have asked for it)
    assert calls.count(calls[-1]) == 1 if calls else True
    seen = len(calls)
    for preset in ("long-form", "adversarial traffic", "balanced"):
        at.selectbox(key="sb_preset").set_value(preset).run()
        no_errors(at)
    at.slider(key="sb_w_C7").set_value(0.3).run()
    assert len(calls) == seen  # weights never recompute the profile: scores come from the kept replicates


class _Recording(MemoryMediaFileStorage):
    files: dict[str, bytes] = {}

    def load_and_get_id(self, path_or_data, mimetype, kind, filename=None):
        file_id = super().load_and_get_id(path_or_data, mimetype, kind, filename)
        _Recording.files[filename] = path_or_data
        return file_id


def test_export_is_the_full_profile_and_rounds_to_the_profiles_table(monkeypatch):
    # issue 14 §4: the profile file is the full PROFILE_SCHEMA at full precision with level, resamples,
    # seed and fingerprint (no longer the rounded display table); the table shown is its rounding
    from cap_core.schema import PROFILE_SCHEMA
    from components.labels import entry_label

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", _Recording)
    at = choose_table3(start("app_pages/profiles.py"), "scientific review")
    shown = pl.from_pandas(at.dataframe[1].value)
    at.switch_page("app_pages/export.py").run()
    no_errors(at)
    csv = pl.read_csv(io.BytesIO(_Recording.files["cap_profiles_judgereva.csv"]), infer_schema_length=None)
    assert csv.columns == [*PROFILE_SCHEMA, "level", "resamples", "seed", "fingerprint", "failures", "items"]
    assert set(csv["resamples"]) == {1000} and set(csv["level"]) == {0.95}
    prim = csv.filter(pl.col("primary") & pl.col("condition").str.starts_with("C")).with_columns(
        pl.struct("judge", "subset", "source").map_elements(lambda r: entry_label(r["judge"], r["subset"], r["source"]),
                                                            return_dtype=pl.String).alias("label"))
    assert prim.height == shown.height == 16  # two judges x C1..C8
    both = shown.join(prim, left_on=["judge", "condition"], right_on=["label", "condition"], suffix="_f")
    assert both.height == 16
    for col in ("value", "ci_low", "ci_high"):
        assert [None if v is None else round(v, 1) for v in both[f"{col}_f"]] == both[col].to_list(), col
    import json

    rows = json.loads(_Recording.files["cap_profiles_judgereva.json"])
    assert [r["value"] for r in rows] == csv["value"].to_list()
    # CAP Table 3: GPT-4o C1 40.5 [34, 46]
    gpt_c1 = prim.filter((pl.col("label") == GPT) & (pl.col("condition") == "C1")).row(0, named=True)
    assert (gpt_c1["value"], gpt_c1["ci_low"], gpt_c1["ci_high"], gpt_c1["status"]) == (40.5, 34.0, 46.0, "direct")


def test_bad_upload_shows_the_input_error():
    at = start()
    at.radio(key="sb_source").set_value("upload").run()
    at.file_uploader(key="sb_items_file").upload("items.csv", b"benchmark,item_id,answer\nb,1,A\n", "text/csv").run()
    at.file_uploader(key="sb_judgments_file").upload(
        "judgments.csv", b"judge,benchmark,item_id,order,verdict\nJ,b,1,AB,A\n", "text/csv").run()
    assert not at.exception
    msg = rendered(at.error[0].value)
    assert "missing column 'gold'" in msg and "items.csv" in msg


def test_items_only_upload_says_one_joined_file_or_a_judgments_table():
    at = start()
    at.radio(key="sb_source").set_value("upload").run()
    head = "benchmark,item_id,gold,subset," + ",".join(f"extra{i}" for i in range(25))
    at.file_uploader(key="sb_items_file").upload("items.csv", (head + "\nb,1,A,s" + ",x" * 25 + "\n").encode(),
                                                  "text/csv").run()
    assert not at.exception
    msg = rendered(at.error[0].value)
    assert "single file must hold judgments with their item columns joined" in msg
    assert "upload a judgments table as well" in msg and "items.csv" in msg
    assert "judgments table [file items.csv" not in msg
    assert head.replace(",", ", ") in msg  # every column of the file, none cut off


def test_absurd_judge_name_is_rejected_and_long_names_are_cut():
    huge = "=cmd|" + "x" * 200_000
    rows = ["benchmark,item_id,gold,judge,order,verdict", f"mine,1,A,{huge},AB,A", f"mine,1,A,{huge},BA,A"]
    at = start()
    at.radio(key="sb_source").set_value("upload").run()
    at.file_uploader(key="sb_items_file").upload("joined.csv", "\n".join(rows).encode(), "text/csv").run()
    assert not at.exception
    msg = rendered(at.error[0].value)
    assert "longer than 500 characters" in msg and "row 1" in msg and "'judge'" in msg and len(msg) < 1000
    long = "J" * 120
    rows = ["benchmark,item_id,gold,judge,order,verdict", f"mine,1,A,{long},AB,A", f"mine,1,A,{long},BA,A"]
    at.file_uploader(key="sb_items_file").upload("joined2.csv", "\n".join(rows).encode(), "text/csv").run()
    at.switch_page("app_pages/profiles.py").run()
    no_errors(at)
    names = list(_radar_traces(at))
    assert names == ["J" * 59 + "…"]
    assert at.multiselect(key="sb_entries").value == [long]  # the full id is still the key


def test_upload_selects_the_uploaded_benchmark():
    rows = ["benchmark,item_id,gold,judge,order,verdict"]
    for item, gold in (("1", "A"), ("2", "B")):
        rows += [f"mybench,{item},{gold},J,AB,{gold}", f"mybench,{item},{gold},J,BA,{gold}"]
    at = start("app_pages/profiles.py")
    at.selectbox(key="sb_benchmark").set_value("judgebench").run()
    at.radio(key="sb_source").set_value("upload").run()
    at.file_uploader(key="sb_items_file").upload("mine.csv", "\n".join(rows).encode(), "text/csv").run()
    no_errors(at)
    assert at.selectbox(key="sb_benchmark").value == "mybench"
    assert "Your data: benchmark mybench" in [rendered(c.value) for c in at.sidebar.caption]
    # J is right on both items in both orders: C7 strict 100%
    assert _radar_traces(at)["J"][6] == pytest.approx(100.0)
    # the user may still pick a published benchmark afterwards; it is not reset on every run
    at.selectbox(key="sb_benchmark").set_value("judgereva").run()
    at.run()
    assert at.selectbox(key="sb_benchmark").value == "judgereva"
    assert any("Published CAP tables only" in rendered(c.value) for c in at.sidebar.caption)


def test_overview_notes_are_one_list_not_warnings():
    at = start()
    no_errors(at)
    assert not at.warning
    exp = at.expander
    assert len(exp) == 1 and exp[0].label.startswith("Notes on reading the data (")
    bullets = exp[0].markdown[0].value.splitlines()
    n = int(exp[0].label.rsplit("(", 1)[1].rstrip(")"))
    assert len(bullets) == n and all(b.startswith("- ") for b in bullets)


def test_good_upload_is_profiled():
    rows = ["benchmark,item_id,gold,judge,order,verdict"]
    # 3 items x 2 orders for judge J: item 1 right both ways, item 2 right in AB only, item 3 wrong both
    for item, gold, ab, ba in (("1", "A", "A", "A"), ("2", "B", "B", "A"), ("3", "A", "B", "B")):
        rows += [f"mine,{item},{gold},J,AB,{ab}", f"mine,{item},{gold},J,BA,{ba}"]
    at = start()
    at.radio(key="sb_source").set_value("upload").run()
    at.file_uploader(key="sb_items_file").upload("joined.csv", "\n".join(rows).encode(), "text/csv").run()
    no_errors(at)
    summary = pl.from_pandas(at.dataframe[0].value)
    assert summary.row(0, named=True)["items"] == 3 and summary.row(0, named=True)["verdicts"] == 6
    # by hand: position-averaged accuracy per item 1, 1/2, 0 -> overall (1 + 0.5 + 0) / 3 = 50%;
    # strict both-correct only item 1 -> C7 1/3 = 33.3%; pure consistency (same verdict in both orders)
    # items 1 and 3 -> 2/3 = 66.7%, so stable-but-wrong = 66.7 - 33.3 = 33.3 points
    at.switch_page("app_pages/profiles.py").run()
    no_errors(at)
    table = next(pl.from_pandas(d.value) for d in at.dataframe if "condition_name" in d.value.columns)
    c7 = table.filter((pl.col("judge") == "J") & (pl.col("condition") == "C7")).row(0, named=True)
    assert (c7["metric"], c7["n_items"], c7["status"]) == ("strict", 3, "direct")
    assert c7["value"] == pytest.approx(100 / 3, abs=0.05)
    at.switch_page("app_pages/consistency.py").run()
    no_errors(at)
    cons = next(pl.from_pandas(d.value) for d in at.dataframe if "stable_but_wrong" in d.value.columns)
    j = cons.filter(pl.col("judge") == "J").row(0, named=True)
    assert (j["strict"], j["consistency"], j["stable_but_wrong"]) == pytest.approx((100 / 3, 200 / 3, 100 / 3),
                                                                                   abs=0.05)
    # the overall cell is not on these pages for a lone judge: check it in the profile of the same rows
    from cap_core.dataset import Dataset
    from cap_core.profile.conditions import compute_profile

    up = pl.read_csv(io.StringIO("\n".join(rows)), schema_overrides={"item_id": pl.String})
    ds = Dataset.build(up.select("benchmark", "item_id", "gold").unique(maintain_order=True),
                       up.select("judge", "benchmark", "item_id", "order", "verdict"))
    prof = compute_profile(ds, n_resamples=50, seed=0).profile
    overall = prof.filter((pl.col("condition") == "overall") & (pl.col("metric") == "pa"))
    assert overall["value"].to_list() == pytest.approx([50.0])
