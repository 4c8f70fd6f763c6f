"""Choice-probability judges: probabilities of the permitted answer tokens, verdict and confidence."""

from __future__ import annotations

import math
import os

import polars as pl
import pytest

from cap_core.judging.choice import (
    choices_line,
    from_logprobs,
    is_choice,
    model_of,
    read_choice,
)
from cap_core.judging.request import JudgeRequest, cache_key
from cap_core.judging.smollm import available

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def test_probabilities_are_renormalised_over_the_permitted_answers():
    lp = math.log
    out = from_logprobs([("A", lp(0.3)), (" A", lp(0.1)), ("B", lp(0.2)), ("C", lp(0.4))], allow_tie=False)
    # A: 0.3 + 0.1 spellings summed; B: 0.2; C is not permitted -> 0.4 / 0.6 and 0.2 / 0.6
    assert out["winner"] == "A" and out["p_a"] == pytest.approx(0.4 / 0.6, abs=1e-6)
    assert out["p_b"] == pytest.approx(0.2 / 0.6, abs=1e-6) and out["p_tie"] is None
    tie = from_logprobs([("A", lp(0.2)), ("B", lp(0.2)), ("tie", lp(0.5))], allow_tie=True)
    assert tie["winner"] == "tie" and tie["p_tie"] == pytest.approx(0.5 / 0.9, abs=1e-6)
    assert from_logprobs([("Sure", lp(0.9))], allow_tie=False)["winner"] == "unparsed"
    assert from_logprobs([("A", lp(0.5)), ("B", lp(0.5))], allow_tie=False)["winner"] == "tie"


def test_names_and_keys():
    assert is_choice("choice:openai/x") and is_choice("smollm/choice") and not is_choice("openai/x")
    assert model_of("choice:openai/x") == "openai/x"
    assert choices_line(False).endswith("A or B.")
    plain = JudgeRequest("openai/x", (("user", "q"),))
    # unset new fields leave the key of an existing request unchanged
    assert "repeat" not in plain.canonical() and "top_logprobs" not in plain.canonical()
    assert cache_key(JudgeRequest("openai/x", (("user", "q"),), top_logprobs=10)) != cache_key(plain)
    assert cache_key(JudgeRequest("openai/x", (("user", "q"),), repeat=1)) != cache_key(plain)
    assert read_choice("not json") is None


@pytest.mark.skipif(not available(), reason="SmolLM2 optional install absent")
def test_smollm_choice_offline_gives_a_verdict_and_its_probability(tmp_path):
    from cap_core.judging.run import RunSpec, run_judging
    from cap_core.judging.testbed import load_testbed

    items = load_testbed().filter(pl.col("variant") == "plain").head(1)
    res = run_judging(items, RunSpec(judges=["smollm/choice"], concurrency=1), cache_dir=tmp_path / "c",
                      out_dir=tmp_path / "r")
    calls = res.calls
    assert calls.height == 2 and set(calls["status"]) == {"ok"}
    for r in calls.iter_rows(named=True):
        assert r["p_a"] + r["p_b"] == pytest.approx(1.0, abs=1e-5)
        assert r["confidence"] == pytest.approx(max(r["p_a"], r["p_b"]))
        assert r["verdict"] == ("A" if r["p_a"] > r["p_b"] else "B")
        assert r["tokens_out"] == 1 and r["cost_usd"] == 0.0
    assert res.judgments["confidence"].is_not_null().all()
