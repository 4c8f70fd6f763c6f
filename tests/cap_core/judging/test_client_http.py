"""Judging runs against a real OpenAI-compatible HTTP server on 127.0.0.1 (faults injected)."""

from __future__ import annotations

import time
from pathlib import Path

import polars as pl
import pytest

from cap_core.judging.client import RetryPolicy
from cap_core.judging.run import RunSpec, run_judging
from tests.cap_core.conftest import make_items

MODEL = "openai/gpt-4o-mini"
FAST = RetryPolicy(max_retries=3, base_delay=0.05, max_delay=0.2, max_retry_after=5, timeout=1.5)
# the slow reply takes 4 s (OpenAIServer.slow_s), far past the 1.5 s timeout even on a loaded machine;
# every other reply is immediate, well inside it


def spec(server, **kw) -> RunSpec:
    base = dict(judges=[MODEL], api_base=server.url, concurrency=2, retry=FAST)
    base.update(kw)
    return RunSpec(**base)


def grep_tree(root: Path, needle: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle.encode() in p.read_bytes()]


def test_faults_retries_parsing_and_accounting(server, fake_key, tmp_path):
    scen = ["ok", "ratelimit", "error500", "slow", "badbody", "malformed", "fenced", "conflict"]
    items = make_items(scen)
    t0 = time.monotonic()
    res = run_judging(items, spec(server, orders=("AB",)), cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    elapsed = time.monotonic() - t0
    calls = {r["item_id"]: r for r in res.calls.iter_rows(named=True)}
    by = {s: calls[f"it{i:02d}"] for i, s in enumerate(scen)}
    gold = dict(zip(items["item_id"], items["gold"]))
    # retries: 429 once, 500 twice, one timeout, one non-JSON body; each then succeeds
    assert [by[s]["retries"] for s in ("ok", "ratelimit", "error500", "slow", "badbody")] == [0, 1, 2, 1, 1]
    assert elapsed >= 1.0  # Retry-After: 1 was honoured
    # server hits = 8 first attempts + 5 retries; the client counted the same requests
    assert server.count() == 13 and res.stats["requests"] == 13
    assert server.count(429) == 1 and server.count(500) == 2
    # parsed verdicts (one order AB, so the presented letters are the original letters)
    for s in ("ok", "ratelimit", "error500", "slow", "badbody", "fenced", "conflict"):
        assert by[s]["verdict"] == gold[by[s]["item_id"]], s
    assert by["malformed"]["verdict"] == "unparsed" and by["malformed"]["status"] == "unparsed"
    assert by["conflict"]["conflict"] is True and by["fenced"]["conflict"] is False
    # deterministic decoding and 1024 tokens by default, sent and recorded
    assert set(server.params) == {(0.0, 1024)}
    assert set(res.calls["temperature"]) == {0.0} and set(res.calls["max_tokens"]) == {1024}
    # accounting: 1000 prompt + 100 completion tokens at the local price map's gpt-4o-mini rates
    import litellm

    price = litellm.model_cost["gpt-4o-mini"]
    per_call = 1000 * price["input_cost_per_token"] + 100 * price["output_cost_per_token"]
    assert by["ok"]["cost_usd"] == pytest.approx(per_call)
    assert res.stats["spend_usd"] == pytest.approx(8 * per_call)
    judg = pl.read_parquet(tmp_path / "o" / "judgments.parquet")
    assert judg.height == 8 and judg["tokens"].to_list() == [1100] * 8
    # a re-run costs nothing: every call is a cache hit and the server sees no request
    res2 = run_judging(items, spec(server, orders=("AB",)), cache_dir=tmp_path / "c", out_dir=tmp_path / "o2")
    assert server.count() == 13 and res2.stats["requests"] == 0 and res2.stats["cache_hits"] == 8
    assert res2.stats["spend_usd"] == 0.0
    assert res2.calls["cache_hit"].all()
    assert pl.read_parquet(tmp_path / "o2" / "judgments.parquet")["verdict"].to_list() == judg["verdict"].to_list()
    # the key was sent to the server, but is nowhere in the cache, logs or outputs
    assert any(fake_key in a for a in server.auth)
    assert grep_tree(tmp_path, fake_key) == [] and grep_tree(tmp_path, "CAPSECRET") == []


def test_both_orders_map_back_and_failures_are_counted(server, fake_key, tmp_path):
    items = make_items(["ok", "ok", "error500", "ok"])
    res = run_judging(items, spec(server, retry=RetryPolicy(max_retries=1, base_delay=0.01, timeout=2)),
                      cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    judg = pl.read_parquet(tmp_path / "o" / "judgments.parquet")
    gold = dict(zip(items["item_id"], items["gold"]))
    # the server always picks the GOOD text, so in both orders the mapped verdict is the gold
    assert judg.height == 6 and all(v == gold[i] for i, v in zip(judg["item_id"], judg["verdict"]))
    assert sorted(judg.filter(pl.col("item_id") == "it00")["order"].to_list()) == ["AB", "BA"]
    # item it02 fails in both orders: two 500s exceed one retry; AB: 500,500 -> failed; BA likewise
    failed = res.calls.filter(pl.col("status") == "failed")
    assert failed["item_id"].to_list() == ["it02", "it02"] and res.stats["failures"] == 2
    assert all("InternalServerError" in r or "500" in r for r in failed["reason"])
    table = pl.read_csv(tmp_path / "o" / "failures.csv")
    c7 = table.filter(pl.col("condition") == "C7").row(0, named=True)
    assert (c7["calls"], c7["ok"], c7["failed"]) == (8, 6, 2)
    # no rationale evaluator, no C8; plain items only, no C5/C6 (the profile measures neither)
    assert table["condition"].to_list() == ["C7"]


def test_budget_in_calls_and_dollars(server, fake_key, tmp_path):
    items = make_items(["ok"] * 6)
    res = run_judging(items, spec(server, orders=("AB",), budget_calls=3, concurrency=1),
                      cache_dir=tmp_path / "c1", out_dir=tmp_path / "o1")
    assert server.count() == 3 and (res.calls["status"] == "budget").sum() == 3
    assert "call budget of 3" in res.calls.filter(pl.col("status") == "budget")["reason"][0]
    import litellm

    price = litellm.model_cost["gpt-4o-mini"]
    per_call = 1000 * price["input_cost_per_token"] + 100 * price["output_cost_per_token"]
    # spend is checked before each request: requests go out while spend < budget
    budget = 2.5 * per_call  # -> after 3 calls spend = 3 x per_call >= budget
    res = run_judging(items, spec(server, orders=("AB",), budget_usd=budget, concurrency=1),
                      cache_dir=tmp_path / "c2", out_dir=tmp_path / "o2")
    assert res.stats["requests"] == 3 and res.stats["spend_usd"] == pytest.approx(3 * per_call)
    assert (res.calls["status"] == "budget").sum() == 3


def test_authentication_error_is_not_retried(server, fake_key, tmp_path):
    res = run_judging(make_items(["auth"]), spec(server, orders=("AB",)), cache_dir=tmp_path / "c",
                      out_dir=tmp_path / "o")
    row = res.calls.row(0, named=True)
    assert server.count() == 1 and row["status"] == "failed" and row["retries"] == 0
    assert "Authentication" in row["reason"] and fake_key not in row["reason"]
    assert grep_tree(tmp_path, fake_key) == []


def test_connection_errors_are_retried_then_failed_without_key(fake_key, tmp_path):
    # a port where nothing listens: connection errors are retried, then reported without the key
    res = run_judging(make_items(["ok"]), RunSpec(judges=[MODEL], orders=("AB",), api_base="http://127.0.0.1:9/v1",
                      retry=RetryPolicy(max_retries=2, base_delay=0.01, timeout=0.5)),
                      cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    row = res.calls.row(0, named=True)
    assert row["status"] == "failed" and row["retries"] == 2 and row["verdict"] is None
    assert grep_tree(tmp_path, fake_key) == []


def test_cancel_keeps_finished_calls_and_a_rerun_completes(fake_key, tmp_path):
    import threading

    from cap_core.judging.cache import JudgeCache
    from tests.cap_core.judging.openai_server import OpenAIServer

    slow = OpenAIServer(delay_s=0.2)
    try:
        items = make_items(["ok"] * 6)
        cancel = threading.Event()

        def stop_after_two(stats):
            if stats["done"] >= 2:
                cancel.set()

        res = run_judging(items, spec(slow, orders=("AB",), concurrency=1), cache_dir=tmp_path / "c",
                          out_dir=tmp_path / "o", on_progress=stop_after_two, cancel=cancel)
        # the cancel lands after the second answer; a call already handed to the worker
        # may still finish, so 2 or 3 calls are done, never all 6
        done = int((res.calls["status"] == "ok").sum())
        assert res.stats["cancelled"] and done in (2, 3)
        assert (res.calls["status"] == "cancelled").sum() == 6 - done and slow.count() == done
        cache = JudgeCache(tmp_path / "c")
        assert len(cache) == done
        cache.close()
        res2 = run_judging(items, spec(slow, orders=("AB",), concurrency=1), cache_dir=tmp_path / "c",
                           out_dir=tmp_path / "o")
        assert res2.stats["cache_hits"] == done and res2.stats["requests"] == 6 - done and slow.count() == 6
    finally:
        slow.close()


def _cache_size(path: Path) -> int:
    from cap_core.judging.cache import JudgeCache

    cache = JudgeCache(path)
    try:
        return len(cache)
    finally:
        cache.close()


@pytest.mark.parametrize("scenario,code", [("badrequest", 400), ("auth", 401), ("forbidden", 403),
                                           ("notfound", 404), ("unprocessable", 422)])
def test_client_errors_are_sent_once_and_never_cached(server, fake_key, tmp_path, scenario, code):
    # the server will never take this request: one attempt, status failed, nothing stored, so a
    # rerun asks again instead of reading an empty "ok" reply from the cache (422 used to be resent
    # by litellm and stored as an empty completion)
    items = make_items([scenario])
    res = run_judging(items, spec(server, orders=("AB",)), cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    row = res.calls.row(0, named=True)
    assert server.count() == 1 and server.count(code) == 1
    assert row["status"] == "failed" and row["retries"] == 0 and row["verdict"] is None
    assert _cache_size(tmp_path / "c") == 0
    again = run_judging(items, spec(server, orders=("AB",)), cache_dir=tmp_path / "c", out_dir=tmp_path / "o2")
    assert server.count() == 2 and again.stats["cache_hits"] == 0 and again.calls["status"].to_list() == ["failed"]


def test_a_parameter_the_model_does_not_take_is_dropped_before_sending(server, fake_key, tmp_path):
    # litellm refuses temperature 0 for gpt-5 models before sending anything; the client then sends
    # the request once without it
    from cap_core.judging.cache import JudgeCache
    from cap_core.judging.client import JudgeClient
    from cap_core.judging.request import JudgeRequest

    client = JudgeClient(JudgeCache(tmp_path / "c"), retry=FAST)
    req = JudgeRequest("openai/gpt-5-mini", (("user", "[Answer A]\nGOOD\n[End of Answer A]"),), temperature=0.0,
                       api_base=server.url)
    rec = client.call(req)
    client.cache.close()
    assert rec.status == "ok" and server.count() == 1 and client.stats["requests"] == 1
    assert server.params[0][0] is None  # no temperature was sent


def test_an_empty_reply_is_a_failure_and_never_cached(server, fake_key, tmp_path):
    items = make_items(["empty", "ok"])
    res = run_judging(items, spec(server, orders=("AB",), concurrency=1), cache_dir=tmp_path / "c",
                      out_dir=tmp_path / "o")
    by = {r["item_id"]: r for r in res.calls.iter_rows(named=True)}
    assert by["it00"]["status"] == "failed" and "empty" in by["it00"]["reason"]
    assert by["it01"]["status"] == "ok"
    assert _cache_size(tmp_path / "c") == 1  # the good answer only
    again = run_judging(items, spec(server, orders=("AB",), concurrency=1), cache_dir=tmp_path / "c",
                        out_dir=tmp_path / "o2")
    assert again.stats["cache_hits"] == 1 and again.stats["requests"] == 1 and server.count() == 3


def test_a_malformed_retry_after_falls_back_to_the_backoff(server, fake_key, tmp_path):
    # "soon" is neither seconds nor an HTTP date: the call is retried on the backoff schedule
    items = make_items(["badretry"])
    res = run_judging(items, spec(server, orders=("AB",)), cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    row = res.calls.row(0, named=True)
    assert row["status"] == "ok" and row["retries"] == 1
    assert server.count(429) == 1 and server.count() == 2
