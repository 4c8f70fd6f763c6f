"""Hostile page settings in a link (``s.KEY``): a value outside the widget's range, of the wrong type
or not finite is ignored with a notice naming the setting; the page never stops with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.pages.shown import rendered

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _open(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    return at.switch_page(page).run()  # the link's page is the session's first run


@pytest.mark.parametrize("page, key, text, default", [
    ("app_pages/frontiers.py", "fr_min_s", "1000", 90),  # slider 50-100
    ("app_pages/frontiers.py", "fr_min_s", "0", 90),
    ("app_pages/frontiers.py", "fr_min_s", "true", 90),  # a bool is not a percent
    ("app_pages/cascades.py", "cas_tau", "Infinity", 0.5),  # slider 0-1
    ("app_pages/cascades.py", "cas_tau", "NaN", 0.5),
    ("app_pages/cascades.py", "cas_tau", "-3", 0.5),
])
def test_a_bad_setting_in_the_link_is_ignored_with_a_notice(page, key, text, default):
    at = _open(page, {"s." + key: text})
    assert not at.exception
    assert at.slider(key=key).value == default
    said = [rendered(w.value) for w in at.warning]
    assert any(key in w and "Ignored" in w for w in said), said


def test_a_good_setting_in_the_link_is_kept():
    at = _open("app_pages/cascades.py", {"s.cas_tau": "0.25"})
    assert not at.exception and at.slider(key="cas_tau").value == 0.25
    assert not at.warning


@pytest.mark.parametrize("text", ["1000000", "true", '["zzz"]', '"/etc/passwd"'])
def test_a_path_on_the_disk_is_not_taken_from_a_link(text):
    # a text box once crashed on a number or a list (TypeError); a path to read is now no setting a link may
    # set at all (ui.query.LINK_SETTINGS): refused with a notice when the link is opened, whatever its value
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["s.lab_path"] = text
    at.run()
    said = [rendered(w.value) for w in at.warning]
    at.switch_page("app_pages/labelling.py").run()
    assert not at.exception
    assert at.text_input(key="lab_path").value == ""
    assert any("lab_path" in w and "Ignored" in w and "cannot set" in w for w in said), said


@pytest.mark.parametrize("text", ["Infinity", "-Infinity", "NaN", "[1, NaN]"])
def test_a_link_number_that_is_not_finite_is_ignored_when_the_link_opens(text):
    # the Labelling page draws its seed only once items are given: the notice cannot wait for the widget
    at = _open("app_pages/labelling.py", {"s.lab_seed": text})
    assert not at.exception
    said = [rendered(w.value) for w in at.warning]
    assert any("lab_seed" in w and "Ignored" in w for w in said), said
    from ui.state import STORE

    assert "lab_seed" not in (at.session_state[STORE] if STORE in at.session_state else {})


def test_weights_beside_a_preset_and_a_judge_named_twice_are_said():
    """Both were handled silently: the weights dropped (the preset wins) and the repeated judge kept in the
    multiselect and written back to the URL."""
    at = _open("app_pages/choose.py", {"preset": "balanced", "w": "C7=3"})
    assert not at.exception
    said = " ".join(rendered(w.value) for w in at.warning)
    assert "Ignored the link's weights 'C7=3': its preset 'balanced' sets the weights." in said
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params["bench"] = "llmbar"
    at.query_params["judge"] = ["GPT-4/CoT", "GPT-4/CoT", "GPT-4/Rating"]
    at.switch_page("app_pages/choose.py").run()
    assert not at.exception
    assert at.sidebar.multiselect[0].value == ["GPT-4/CoT", "GPT-4/Rating"]
    assert "names a judge more than once" in " ".join(rendered(w.value) for w in at.warning)
