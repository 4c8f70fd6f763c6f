"""Frontiers page: sensitivity per slot and the human direction annotation upload (AppTest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.shown import rendered

APP = str(Path(__file__).resolve().parents[2] / "app.py")
# A small graded table (scale 1-5): two base items, judge G. At S >= 0.90 G's matched tau is 1.5
# (tau 1.5: no control straddles it -> S = 1; c3 3->1 straddles -> R = (0 + 1) / 2 = 0.5).
GRADED = """judge,base_item_id,probe_id,class,axis,slot,grade_base,grade_probe,scale_min,scale_max
G,b1,i1,T_I,control,register,4,4,1,5
G,b1,i4,T_I,control,register,4,2,1,5
G,b1,i2,T_I,control,length,4,3,1,5
G,b1,c1,T_C,scope,quantifier_strengthening,4,2,1,5
G,b1,c2,T_C,strength,hedging_removal,4,4,1,5
G,b2,i3,T_I,control,register,3,2,1,5
G,b2,c3,T_C,scope,domain_extension,3,1,1,5
"""
# Mean pairwise agreement over 3 annotators (3 pairs): all equal -> 1, two against one -> 1/3.
#   quantifier_strengthening: c1 -> 1.    domain_extension: c3 -> 1/3.
#   register: i1 1, i4 1/3, i3 1 -> 7/9 = 0.778.    length: i2 -> 1.
# Bar 0.75 excludes domain_extension only; bar 0.80 also excludes register.
LABELS = {"c1": "ccc", "c3": "ccu", "i1": "uuu", "i4": "uuc", "i3": "uuu", "i2": "uuu"}
ANN = "probe_id,annotator,label\n" + "".join(
    f"{p},a{k},{'changed' if c == 'c' else 'unchanged'}\n" for p, labels in LABELS.items() for k, c in enumerate(labels))


def _page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120).run()
    at.switch_page("app_pages/frontiers.py").run()
    at.radio(key="fr_source").set_value("upload a graded probe table").run()
    at.file_uploader(key="fr_upload").upload("graded.csv", GRADED.encode(), "text/csv").run()
    assert not at.exception and not at.error, [rendered(e.value) for e in at.error]
    return at


def _frame(at: AppTest, *cols: str, source: str | None = None):
    """The first dataframe shown with these columns (and this source, when given)."""
    for d in at.dataframe:
        v = d.value
        if set(cols) <= set(v.columns) and (source is None or set(v.get("source", [])) == {source}):
            return v
    raise AssertionError(f"no dataframe with {cols}")


def _excluded(at: AppTest) -> str:
    return next(rendered(w.value) for w in at.warning if rendered(w.value).startswith("Excluded slots"))


def test_slot_table_at_the_matched_tau_with_published_beside():
    at = _page()
    t = _frame(at, "n_judges", "measure")
    g = t[t["judge"] == "G"].set_index("slot")
    # at tau 1.5 only c3 (3->1) straddles: domain_extension 1, every other slot 0
    # rates in percent on the page
    assert g.loc["domain_extension", "value"] == 100.0 and g.loc["domain_extension", "tau"] == 1.5
    assert g.loc["register", "value"] == 0.0 and g.loc["register", "measure"] == "flip rate"
    pub = _frame(at, "human_dir_pct", "R")
    assert set(pub["source"]) == {"published: Validity Tables 6 and 4"}
    assert pub.set_index("slot").loc["quantifier_strengthening", "R"] == 44.5  # Validity Table 6: 0.445
    names = {tr.get("name") for tr in json.loads(at.get("plotly_chart")[2].proto.spec)["data"]}
    assert "published: Validity Table 6" in names and "G" in names


def test_annotation_upload_and_the_agreement_bar():
    at = _page()
    at.file_uploader(key="fr_ann_upload").upload("ann.csv", ANN.encode(), "text/csv").run()
    assert not at.exception and not at.error, [rendered(e.value) for e in at.error]
    first = _excluded(at)
    assert "domain_extension" in first and "register" not in first
    report = _frame(at, "agree", "excluded").set_index("slot")
    assert round(report.loc["register", "agree"], 1) == 77.8 and report.loc["domain_extension", "agree"] == pytest.approx(100 / 3)
    status = dict(_frame(at, "probe_id", "status")[["probe_id", "status"]].values)
    assert status["c3"] == "dropped: slot excluded" and status["i4"] == "kept" and len(status) == 6
    downloads = at.get("download_button")
    assert any(b.proto.id.endswith("fr_dl_ann") for b in downloads) and all(b.proto.ignore_rerun for b in downloads)
    at.slider(key="fr_min_agree").set_value(80).run()  # percent
    second = _excluded(at)
    assert "domain_extension" in second and "register" in second and second != first
    status = dict(_frame(at, "probe_id", "status")[["probe_id", "status"]].values)
    assert status["i4"] == "dropped: slot excluded"


def test_bad_annotation_label_is_reported():
    at = _page()
    at.file_uploader(key="fr_ann_upload").upload("ann.csv", b"probe_id,annotator,label\nc1,a1,maybe\n",
                                                 "text/csv").run()
    assert not at.exception
    msg = rendered(at.error[0].value)
    assert "unknown annotation label" in msg and "ann.csv" in msg


# The same file name and the same size, other bytes: c2 (strength, hedging_removal) now goes 4 -> 1.
# By hand at tau 1.5 c2 now flips as well: R = mean over base items of the share of construct edits
# that flip = (b1: c1 no, c2 yes -> 1/2; b2: c3 yes -> 1) / 2 = 0.75 (was (0 + 1) / 2 = 0.5). No control
# straddles 1.5, so S stays 1 and 1.5 stays the matched tau (below 1 nothing flips: R = 0).
GRADED_2 = GRADED.replace("hedging_removal,4,4", "hedging_removal,4,1")


def _computed_g(at: AppTest):
    ops = _frame(at, "S_ci_low", "quadrant")
    return ops[(ops["judge"] == "G") & (ops["source"] == "computed")].iloc[0]


def test_a_new_upload_with_the_same_name_and_size_is_recomputed():
    assert len(GRADED_2) == len(GRADED) and GRADED_2 != GRADED
    at = _page()
    g = _computed_g(at)
    assert (g["tau"], g["S"], g["R"]) == (1.5, 100.0, 50.0)  # percent
    slots = _frame(at, "n_judges", "measure")
    assert slots[(slots["judge"] == "G")].set_index("slot").loc["hedging_removal", "value"] == 0.0
    at.file_uploader(key="fr_upload").upload("graded.csv", GRADED_2.encode(), "text/csv").run()
    assert not at.exception and not at.error, [rendered(e.value) for e in at.error]
    g = _computed_g(at)
    assert (g["tau"], g["S"], g["R"]) == (1.5, 100.0, 75.0)
    slots = _frame(at, "n_judges", "measure")
    assert slots[(slots["judge"] == "G")].set_index("slot").loc["hedging_removal", "value"] == 100.0
    assert "**G** at τ = 1.5: S = 100.0%, R = 75.0%" in [rendered(m.value).split("; quadrant")[0] for m in at.markdown]


def test_the_upload_and_the_settings_survive_leaving_the_page():
    at = _page()
    at.slider(key="fr_min_s").set_value(95).run()
    at.toggle(key="fr_zoom").set_value(False).run()
    before = _computed_g(at)
    at.switch_page("app_pages/profiles.py").run()
    at.switch_page("app_pages/frontiers.py").run()
    assert not at.exception and not at.error, [rendered(e.value) for e in at.error]
    assert at.radio(key="fr_source").value == "upload a graded probe table"
    assert at.slider(key="fr_min_s").value == 95 and at.toggle(key="fr_zoom").value is False
    assert any(rendered(c.value).startswith("Using graded.csv, uploaded earlier") for c in at.caption)
    assert _computed_g(at).equals(before)
