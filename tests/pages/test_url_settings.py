"""Hostile page settings in a link (``s.KEY``): a value outside the widget's range, of the wrong type
or not finite is ignored with a notice naming the setting; the page never stops with a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _open(page: str, params: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    return at.switch_page(page).run()


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
    assert any(key in w.value and "Ignored" in w.value for w in at.warning), [w.value for w in at.warning]


def test_a_good_setting_in_the_link_is_kept():
    at = _open("app_pages/cascades.py", {"s.cas_tau": "0.25"})
    assert not at.exception and at.slider(key="cas_tau").value == 0.25
    assert not at.warning


@pytest.mark.parametrize("text", ["1000000", "true", '["zzz"]'])
def test_a_non_text_value_for_a_text_box_is_ignored_with_a_notice(text):
    # a text box has no default to compare types with: a number or a list crashed the page (TypeError)
    at = _open("app_pages/labelling.py", {"s.lab_path": text})
    assert not at.exception
    assert at.text_input(key="lab_path").value == ""
    at.run()  # the page stops early without a table (st.stop): its notice shows on the next run
    assert any("lab_path" in w.value and "Ignored" in w.value for w in at.warning), [w.value for w in at.warning]
