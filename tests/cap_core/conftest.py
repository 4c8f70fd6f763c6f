"""Fixtures for the judging tests: a local OpenAI-compatible server and a fake API key."""

from __future__ import annotations

import polars as pl
import pytest

from tests.cap_core.judging.openai_server import OpenAIServer

FAKE_KEY = "sk-test-CAPSECRET-7f3a9c21d4e8b650"


@pytest.fixture
def server():
    srv = OpenAIServer()
    yield srv
    srv.close()


@pytest.fixture
def fake_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    return FAKE_KEY


def make_items(scenarios: list[str], benchmark: str = "httptest") -> pl.DataFrame:
    """One item per scenario; the GOOD answer is the gold and alternates between A and B."""
    rows = []
    for i, scen in enumerate(scenarios):
        gold = "A" if i % 2 == 0 else "B"
        good, bad = f"GOOD answer {i}: water is not a metal.", f"Weak answer {i}: water is a metal."
        a, b = (good, bad) if gold == "A" else (bad, good)
        rows.append({"benchmark": benchmark, "item_id": f"it{i:02d}", "base_item_id": f"it{i:02d}", "subset": "all",
                     "failure_type": None, "variant": "plain", "gold": gold, "flags": None, "len_a": len(a),
                     "len_b": len(b), "question": f"Question {i}? SCENARIO:{scen}", "response_a": a,
                     "response_b": b, "error_note": None})
    from cap_core.schema import ITEMS_SCHEMA

    schema = dict(ITEMS_SCHEMA, question=pl.String, response_a=pl.String, response_b=pl.String, error_note=pl.String)
    return pl.DataFrame(rows, schema=schema)
