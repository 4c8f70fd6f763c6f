"""Compare page: the multiple-comparison correction of 'separated' is offered and named."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.pages.shown import rendered

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def test_holm_can_be_chosen_and_is_named():
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/compare.py").run()
    assert not at.exception and not at.error
    assert any("Correction in force: none." in rendered(c.value) for c in at.caption)
    at.radio(key="cmp_correction").set_value("holm").run()
    assert not at.exception and not at.error
    assert any("Correction in force: holm (" in rendered(c.value) for c in at.caption)
    table = next(d.value for d in at.dataframe if "p_adjusted" in d.value.columns)
    assert (table["p_adjusted"].astype(float) >= table["p_value"].astype(float) - 1e-3).all()
