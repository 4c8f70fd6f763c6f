"""A link never chooses what is sent, to where, or what it costs (issue 21, item 1).

The crafted link of the issue (``?s.lr_api_base="http://HOST/v1"&s.lr_extra="openai/attacker-model"
&s.lr_judges=[]``) pre-filled Live run, and one click on Start sent the user's API key to HOST. Here
HOST is a real HTTP server on 127.0.0.1 that counts every request it receives: after the link, the
Live run page holds none of those settings, says it ignored them, and a click on Start judges with
the offline judges only: HOST receives 0 requests. The view in the URL never carries those settings
either (an API base may hold a key: ``http://user:KEY@host``).
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from cap_core.judging.local_providers import LOCAL_JUDGES
from tests.pages.shown import rendered
from ui.query import LINK_SETTINGS, link_may_set

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SECRET = "sk-LINKSECRET1234"


class CountingHost:
    """An HTTP server on 127.0.0.1 that answers 404 to everything and counts the requests."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _any(self):
                outer.requests.append(f"{self.command} {self.path} {self.headers.get('Authorization', '')}")
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_GET = do_POST = do_PUT = do_HEAD = _any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_port}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def host():
    h = CountingHost()
    yield h
    h.close()


def _opened(params: dict[str, str], page: str) -> tuple[AppTest, str]:
    """The app opened with the link's parameters (the notices of its first run), then ``page``."""
    at = AppTest.from_file(APP, default_timeout=300)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    said = " ".join(rendered(w.value) for w in at.warning)
    return at.switch_page(page).run(), said


def test_the_crafted_link_sets_nothing_that_sends_requests(host, monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("CAP_CACHE_DIR", str(tmp_path / "cache"))  # a cache of its own: other tests count calls
    link = {"s.lr_api_base": json.dumps(host.url), "s.lr_extra": json.dumps("openai/attacker-model"),
            "s.lr_judges": "[]", "s.lr_eval_other": json.dumps("openai/attacker-evaluator"),
            "s.lr_budget_usd": "10000", "s.lr_budget_calls": "1000000", "s.lr_repeats": "20", "s.lr_conc": "32",
            "s.lr_limit": "144"}
    at, said = _opened(link, "app_pages/live_run.py")
    assert not at.exception
    assert at.text_input(key="lr_api_base").value == "" and at.text_input(key="lr_extra").value == ""
    assert at.text_input(key="lr_eval_other").value == ""
    assert at.multiselect(key="lr_judges").value == list(LOCAL_JUDGES)
    assert at.number_input(key="lr_budget_usd").value == 1.0 and at.number_input(key="lr_repeats").value == 1
    for name in ("lr_api_base", "lr_extra", "lr_judges", "lr_budget_usd"):
        assert name in said, said
    at.button(key="lr_start").click().run()  # the one click of the issue
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Run saved to" in s.value for s in at.success)  # a run did happen, offline
    assert host.requests == []  # and sent nothing to HOST


def test_what_sends_requests_is_not_written_into_the_link():
    at = AppTest.from_file(APP, default_timeout=300).run()
    at.switch_page("app_pages/live_run.py").run()
    at.text_input(key="lr_api_base").input(f"http://user:{SECRET}@127.0.0.1:8000/v1?api-key={SECRET}").run()
    at.text_input(key="lr_extra").input("openai/gpt-4o-mini").run()
    at.multiselect(key="lr_judges").set_value(["local/first"]).run()
    assert not at.exception
    assert at.text_input(key="lr_api_base").value.endswith(SECRET)  # the page keeps it ...
    link = dict(at.query_params)
    assert SECRET not in repr(link) and "gpt-4o-mini" not in repr(link)  # ... the link does not
    assert not any(k.startswith("s.lr_") and k not in ("s.lr_src", "s.lr_bench") for k in link), link
    assert "s.lr_src" in link  # where the items come from is a view setting: kept


def test_frontiers_judges_graded_live_come_from_no_link():
    at, said = _opened({"s.fr_source": json.dumps("built-in probe set, graded live"),
                        "s.fr_models": json.dumps("openai/attacker-model")}, "app_pages/frontiers.py")
    assert not at.exception
    assert at.text_input(key="fr_models").value == "localgrade/overlap"
    assert "fr_models" in said, said


@pytest.mark.parametrize("key, page", [
    ("lr_api_base", "live-run"), ("lr_extra", "live-run"), ("lr_judges", "live-run"), ("lr_eval", "live-run"),
    ("lr_eval_other", "live-run"), ("lr_budget_calls", "live-run"), ("lr_budget_usd", "live-run"),
    ("lr_conc", "live-run"), ("lr_repeats", "live-run"), ("lr_limit", "live-run"), ("lr_orders", "live-run"),
    ("lr_augment", "live-run"), ("lr_allow_tie", "live-run"), ("lr_path", "live-run"),
    ("lr_bench_path", "live-run"), ("fr_models", "frontiers"), ("sb_w_C1", None), ("sb_min", None),
    ("tb_model", "testbed"),  # a page added later takes nothing from a link until it is listed
])
def test_the_allow_list_leaves_out_everything_that_sends_or_spends(key, page):
    assert not link_may_set(key, page) and not link_may_set(key)


def test_every_allowed_setting_belongs_to_its_page():
    from tests.pages.app_pages import pages_in_app

    paths = {line.split('url_path="')[1].split('"')[0] for line in Path(APP).read_text().splitlines()
             if 'st.Page("app_pages/' in line}
    assert set(LINK_SETTINGS) <= paths and len(pages_in_app()) == len(paths)
