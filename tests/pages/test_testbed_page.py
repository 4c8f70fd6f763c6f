"""The Build a testbed page under AppTest: plan, estimate, build with the offline rules, then the review of
the built pairs on the Labelling page (accept, reject, edit change the saved state and the items)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
from streamlit.testing.v1 import AppTest

from tests.pages.app_pages import assert_clean
from tests.pages.shown import rendered

APP = str(Path(__file__).resolve().parents[2] / "app.py")
QUESTIONS = Path(__file__).resolve().parents[1] / "fixtures" / "testbed" / "questions.csv"


def _md(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def _open() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("app_pages/testbed.py").run()
    assert_clean(at)
    return at


def test_plan_estimate_build_and_review(tmp_path, monkeypatch):
    monkeypatch.setenv("CAP_RUNS_DIR", str(tmp_path / "runs"))
    at = _open()
    assert at.title[0].value == "Build a testbed" and at.info  # nothing to plan yet
    at.text_input(key="tb_path").set_value(str(QUESTIONS)).run()
    assert_clean(at)
    # the page and `testbed build` harden the same default share: a quarter of the 32 questions
    assert "32 questions → benchmark questions, 8 pairs to harden" in rendered(_md(at))
    assert "Estimate: 0 calls, $0 (offline rules only)" in rendered(_md(at))
    heat = next(c for c in at.get("plotly_chart") if "tb_plan" in c.proto.id)
    z = json.loads(heat.proto.spec)["data"][0]["z"]
    assert z == [[2, 2, 2, 2]] * 4  # four domains x four types, two questions each
    # a widget change changes the plan and the estimate
    at.text_input(key="tb_hard").set_value("1").run()
    assert "1 pair to harden" in _md(at)
    at.text_input(key="tb_hard").set_value("1.5").run()
    assert "[argument `Pairs to harden`]" in rendered(at.error[0].value)
    at.text_input(key="tb_hard").set_value("1").run()
    at.text_input(key="tb_gen").set_value("openai/gen-x").run()
    assert_clean(at)
    assert "0 calls" not in _md(at) and "unknown (no price for openai/gen-x)" in rendered(_md(at))
    at.text_input(key="tb_gen").set_value("rules").run()
    out = tmp_path / "tb"
    at.text_input(key="tb_out").set_value(str(out)).run()
    at.button(key="tb_build").click().run()
    assert_clean(at)
    assert rendered(at.success[0].value).startswith(f"Testbed written to {out}: 0 requests")
    items = pl.read_parquet(out / "run_items.parquet")
    assert items.filter(pl.col("benchmark") == "questions").height == 96
    shown = at.dataframe[-1].value
    assert {"dimension", "value", "n"} <= set(shown.columns)
    # to the review: the Labelling page opens on this folder
    at.button(key="tb_to_review").click().run()
    assert_clean(at)
    at.switch_page("app_pages/labelling.py").run()  # AppTest reruns the page it last switched to
    assert at.radio(key="lab_mode").value.startswith("a built testbed")
    assert at.text_input(key="lab_tb_path").value == str(out)
    n = pl.read_parquet(out / "pairs.parquet").height
    first = at.selectbox(key="lab_tb_pair").value
    bench, base = first.split(" — ")[0].split(" / ")
    at.button(key="lab_tb_reject").click().run()
    assert_clean(at)
    lines = [json.loads(x) for x in (out / "review.jsonl").read_text().splitlines()]
    assert [(r["benchmark"], r["base_item_id"], r["action"]) for r in lines] == [(bench, base, "reject")]
    kept = pl.read_parquet(out / "run_items.parquet")
    assert kept.filter((pl.col("benchmark") == bench) & (pl.col("base_item_id") == base)).height == 0
    # the next pending pair comes up; accepting it is saved too
    second = at.selectbox(key="lab_tb_pair").value
    assert second != first and second.endswith("pending")
    at.button(key="lab_tb_accept").click().run()
    assert_clean(at)
    lines = [json.loads(x) for x in (out / "review.jsonl").read_text().splitlines()]
    assert [r["action"] for r in lines] == ["reject", "accept"]
    assert any(f"2 of {n} pairs reviewed" in (p.proto.text or "") for p in at.get("progress"))
    # an edit that plants nothing is refused with a message and saves nothing
    at.selectbox(key="lab_tb_pair").set_value(at.selectbox(key="lab_tb_pair").value).run()
    correct = at.text_area(key="lab_tb_correct").value
    at.text_area(key="lab_tb_flawed").set_value(correct).run()
    at.button(key="lab_tb_edit").click().run()
    assert not at.exception and "unchanged" in at.error[0].value
    assert len((out / "review.jsonl").read_text().splitlines()) == 2


def test_built_in_the_dashboard_then_judged_on_the_live_run_page(tmp_path, monkeypatch):
    import ui.cache.live_run as lrc
    from cap_core.cli.main import main

    monkeypatch.setenv("CAP_RUNS_DIR", str(tmp_path / "runs"))
    monkeypatch.setattr(lrc, "RUNS_DIR", tmp_path / "live")
    at = _open()
    at.text_input(key="tb_path").set_value(str(QUESTIONS)).run()
    out = tmp_path / "tb"
    at.text_input(key="tb_out").set_value(str(out)).run()
    at.button(key="tb_build").click().run()
    assert_clean(at)
    at.button(key="tb_to_live").click().run()
    at.switch_page("app_pages/live_run.py").run()
    assert_clean(at)
    assert at.radio(key="lr_src").value == lrc.ITEM_SOURCES[1] and at.text_input(key="lr_path").value == str(out)
    at.number_input(key="lr_limit").set_value(32).run()
    at.multiselect(key="lr_judges").set_value(["local/first", "local/longer"]).run()
    # every item of the folder (32 base items: 96 of the main benchmark and the hardened pairs), 2 orders x 2 judges
    n_items = pl.read_parquet(out / "run_items.parquet").height
    assert f"{n_items * 4} judging calls on {n_items} items" in _md(at)
    at.button(key="lr_start").click().run()
    assert_clean(at)
    run = Path(at.session_state[lrc.LIVE_RUN_KEY])
    prof = tmp_path / "p.csv"
    assert main(["profile", "--data", str(run), "--bootstrap", "100", "--out", str(prof)]) == 0
    p = pl.read_csv(prof).filter((pl.col("benchmark") == "questions") & pl.col("primary") & (pl.col("subset") == "all")
                                 & (pl.col("condition") != "overall"))
    assert p.height == 16 and set(p["status"]) == {"direct"}
    assert p.filter((pl.col("judge") == "local/first") & (pl.col("condition") == "C7"))["value"].to_list() == [0.0]


def _review_page(path: Path) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("app_pages/labelling.py").run()
    at.radio(key="lab_mode").set_value(at.radio(key="lab_mode").options[1]).run()
    at.text_input(key="lab_tb_path").set_value(str(path)).run()
    return at


def test_review_edits_note_and_type_and_a_bad_line_is_an_error_not_a_crash(tmp_path):
    from cap_core.testbed.build import BuildSpec, build_testbed

    out = tmp_path / "tb"
    build_testbed(QUESTIONS, BuildSpec(hard=0), out_dir=out, cache_dir=tmp_path / "cache")
    # finding 7: an edit line without its correct answer, written by hand
    pair = pl.read_parquet(out / "pairs.parquet").row(0, named=True)
    bad = {"v": 1, "benchmark": pair["benchmark"], "base_item_id": pair["base_item_id"], "action": "edit",
           "flawed": "x", "pair_sha": pair["pair_sha"]}
    (out / "review.jsonl").write_text(json.dumps(bad) + "\n" + json.dumps(bad) + "\n")
    at = _review_page(out)
    assert not at.exception and "an edit needs its correct answer" in at.error[0].value
    (out / "review.jsonl").unlink()
    # finding 5: the edit form holds the planted-error note and type
    at = _review_page(out)
    assert_clean(at)
    base = at.selectbox(key="lab_tb_pair").value.split(" — ")[0].split(" / ")[1]
    row = pl.read_parquet(out / "pairs.parquet").filter(pl.col("base_item_id") == base).row(0, named=True)
    assert at.text_area(key="lab_tb_note").value == row["error_note"]
    assert at.selectbox(key="lab_tb_type").value == row["failure_type"]
    new_flawed = row["flawed"] + " This holds in every case."
    at.text_area(key="lab_tb_flawed").set_value(new_flawed).run()
    at.button(key="lab_tb_edit").click().run()
    # the old note is refused (messages are shown as plain text: punctuation escaped)
    assert not at.exception and "planted-error note did not" in at.error[0].value.replace("\\", "")
    other = next(t for t in ("overclaim", "omission") if t != row["failure_type"])
    at.text_area(key="lab_tb_note").set_value("claims it holds in every case").run()
    at.selectbox(key="lab_tb_type").set_value(other).run()
    at.button(key="lab_tb_edit").click().run()
    assert_clean(at)
    line = json.loads((out / "review.jsonl").read_text().splitlines()[-1])
    assert (line["flawed"], line["error_note"], line["failure_type"]) == (new_flawed, "claims it holds in every "
                                                                           "case", other)
    items = pl.read_parquet(out / "run_items.parquet").filter((pl.col("base_item_id") == base)
                                                              & (pl.col("variant") == "plain"))
    assert items["failure_type"].to_list() == [other] and items["error_note"].to_list() == ["claims it holds in "
                                                                                             "every case"]


def test_data_and_model_names_render_as_text_not_links(tmp_path):
    """Finding 16: a domain, a typed model name and an error quoting a path are shown as written: no link, no
    image (ui.text.plain: every ASCII punctuation escaped, so no Markdown link can form)."""
    from cap_core.testbed.build import BuildSpec, build_testbed

    link = "[click](http://evil.example/d)"
    q = tmp_path / "q.csv"
    pl.DataFrame({"id": ["k1", "k2"], "domain": [link, "law"],
                  "question": ["How many legs does a spider have?", "How many eyes does a spider have?"],
                  "answer": ["Spiders usually have 8 legs.", "Spiders usually have 8 eyes."]}).write_csv(q)
    out = tmp_path / "tb"
    build_testbed(q, BuildSpec(hard=0), out_dir=out, cache_dir=tmp_path / "cache")
    at = _review_page(out)
    assert_clean(at)
    at.selectbox(key="lab_tb_pair").set_value(next(o for o in at.selectbox(key="lab_tb_pair").options
                                                   if "/ k1 " in o)).run()
    head = next(m.value for m in at.markdown if "domain" in m.value)
    assert f"domain {link} ·" in rendered(head)
    assert "](" not in head and "\\[click\\]\\(http\\:" in head  # the brackets escaped: no link can form
    # the Build page: a model name typed by the user is quoted by the estimate line
    at = _open()
    at.text_input(key="tb_path").set_value(str(q)).run()
    at.text_input(key="tb_gen").set_value("openai/" + link).run()
    assert_clean(at)
    plan = next(m.value for m in at.markdown if m.value.startswith("**Plan:**"))
    assert "2 questions → benchmark q, 0 pairs to harden" in rendered(plan)  # a quarter of 2
    assert f"no price for openai/{link}" in rendered(plan) and "](" not in plan
    # an error quoting the path: the output folder is the questions file
    at.text_input(key="tb_out").set_value(str(q)).run()
    at.button(key="tb_build").click().run()
    assert not at.exception and "[argument `Testbed folder to write`]" in rendered(at.error[0].value)
