"""The view in the URL never carries a credential: an API base may hold one (``http://user:KEY@host``,
``?api-key=KEY``), so it stays out of the link the page writes."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SECRET = "sk-LINKSECRET1234"


def test_the_api_base_is_not_written_into_the_link():
    at = AppTest.from_file(APP, default_timeout=180).run()
    at.switch_page("app_pages/live_run.py").run()
    at.text_input(key="lr_api_base").input(f"http://user:{SECRET}@127.0.0.1:8000/v1?api-key={SECRET}").run()
    assert not at.exception
    assert at.text_input(key="lr_api_base").value.endswith(SECRET)  # the page keeps it ...
    link = repr(dict(at.query_params))
    assert SECRET not in link and "s.lr_judges" in link  # ... the link does not (other settings still do)
