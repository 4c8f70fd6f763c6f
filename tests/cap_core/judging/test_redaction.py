"""A completion that echoes the API key never puts the key on disk (issue 21, item 6).

A real OpenAI-compatible server on 127.0.0.1 answers with the bearer token it received before its
verdict (scenario ``echokey``). The run's stored completions (calls table, run log, judging cache)
must hold ``[redacted]`` where the key was, and the verdict must still be read. A cache entry
written before redaction existed (the key in its completion) is redacted when read back.
"""

from __future__ import annotations

import json

import polars as pl

from cap_core.judging.cache import JudgeCache
from cap_core.judging.client import REDACTED, RetryPolicy, redact
from cap_core.judging.run import RunSpec, run_judging
from tests.cap_core.conftest import make_items

MODEL = "openai/gpt-4o-mini"


def test_an_echoed_key_is_redacted_in_calls_log_and_cache(server, fake_key, tmp_path):
    items = make_items(["echokey", "echokey", "ok"])
    spec = RunSpec(judges=[MODEL], api_base=server.url, orders=("AB",), concurrency=1,
                   retry=RetryPolicy(max_retries=0, timeout=10))
    run_judging(items, spec, cache_dir=tmp_path / "cache", out_dir=tmp_path / "run")
    assert server.auth and all(fake_key in a for a in server.auth)  # the server did receive the key
    calls = pl.read_parquet(tmp_path / "run" / "calls.parquet")
    echoed = calls.filter(pl.col("completion").str.contains("Debug:"))
    assert echoed.height == 2
    assert not calls["completion"].str.contains(fake_key, literal=True).any()
    assert echoed["completion"].str.contains(REDACTED, literal=True).all()
    gold = dict(zip(items["item_id"], items["gold"]))
    assert all(r["verdict"] == gold[r["item_id"]] for r in calls.iter_rows(named=True))  # still parsed
    log = (tmp_path / "run" / "run_log.jsonl").read_text(encoding="utf-8")
    assert fake_key not in log and REDACTED in log
    db = sqlite_values(tmp_path / "cache")  # every row of the cache, decoded
    assert len(db) == 3 and not any(fake_key in v for v in db) and sum(REDACTED in v for v in db) == 2


def sqlite_values(folder) -> list[str]:
    """Every stored completion of a cache folder, decoded (the rows are zlib-compressed JSON)."""
    import sqlite3

    from cap_core.judging.cache import decode_value

    con = sqlite3.connect(folder / "cache.db")
    try:
        rows = con.execute("SELECT value FROM Cache WHERE value IS NOT NULL").fetchall()
    finally:
        con.close()
    return [json.dumps(decode_value(v)) for (v,) in rows]


def test_a_key_in_an_older_cache_entry_is_redacted_when_read(server, fake_key, tmp_path):
    items = make_items(["ok"])
    spec = RunSpec(judges=[MODEL], api_base=server.url, orders=("AB",), concurrency=1)
    key = run_judging(items, spec, cache_dir=tmp_path / "cache", out_dir=tmp_path / "r1").calls["key"][0]
    cache = JudgeCache(tmp_path / "cache")
    entry = cache.get(key)
    entry["completion"] = f"leaked {fake_key} " + entry["completion"]  # as an unredacting version stored it
    cache.put(key, entry)
    cache.close()
    again = run_judging(items, spec, cache_dir=tmp_path / "cache", out_dir=tmp_path / "r2")
    assert again.stats["cache_hits"] == 1 and server.count() == 1
    text = again.calls["completion"][0]
    assert fake_key not in text and text.startswith(f"leaked {REDACTED} ")


def test_redact_replaces_every_secret_environment_value(monkeypatch):
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-0123456789")
    monkeypatch.setenv("SHORT_KEY", "abc")  # under six characters: too common to be a secret
    assert redact("a tok-0123456789 b abc") == f"a {REDACTED} b abc"
    assert redact(None) is None
