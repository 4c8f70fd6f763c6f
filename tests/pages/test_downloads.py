"""Download buttons leave the page alone: the browser downloads, the script does not rerun."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.pages.app_pages import pages_in_app

APP = str(Path(__file__).resolve().parents[2] / "app.py")


def _page(page: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("page", [f for f, _ in pages_in_app()])
def test_every_download_button_ignores_the_click_on_the_server(page):
    # on_click="ignore": the browser keeps the click to itself (DownloadButton.ignore_rerun), no rerun
    buttons = _page(page).get("download_button")
    assert all(b.proto.ignore_rerun for b in buttons), [b.proto.label for b in buttons if not b.proto.ignore_rerun]
    if page in ("app_pages/export.py", "app_pages/frontiers.py"):
        assert len(buttons) >= 2


def test_a_download_does_not_recompute_the_page(monkeypatch):
    # even a run after a click (AppTest always reruns) finds every computation in the cache
    import cap_core.validity.report as report

    calls = []
    real = report.operating_table
    monkeypatch.setattr(report, "operating_table", lambda *a, **k: calls.append(1) or real(*a, **k))
    st.cache_data.clear()
    at = _page("app_pages/frontiers.py")
    assert len(calls) == 1
    for key in ("fr_dl_ops", "fr_dl_sweep", "fr_dl_iq"):
        at.get("download_button")
        next(b for b in at.get("download_button") if b.proto.id.endswith(key)).click().run()
        assert not at.exception
    assert len(calls) == 1
