"""The judging cache: JSON entries only (a planted pickle never runs) and one sender per call across
processes (claims with a renewed lease; a crashed holder's claim expires)."""

from __future__ import annotations

import multiprocessing as mp
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import polars as pl

from cap_core.judging.cache import JudgeCache
from cap_core.judging.client import JudgeClient
from cap_core.judging.request import JudgeRequest
from tests.cap_core.conftest import FAKE_KEY, make_items
from tests.cap_core.judging.openai_server import OpenAIServer

REPO = Path(__file__).resolve().parents[3]
MODEL = "openai/gpt-4o-mini"


class _Touch:
    """Unpickling this creates ``path`` (what an attacker's payload would do, harmlessly)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _plant_pickle(cache_dir: Path, payload: bytes) -> int:
    """Overwrite every stored value in the cache's SQLite file with ``payload`` marked as a pickle."""
    con = sqlite3.connect(cache_dir / "cache.db")
    try:
        n = con.execute("UPDATE Cache SET mode = 4, value = ?, filename = NULL", (payload,)).rowcount
        con.commit()
    finally:
        con.close()
    return n


def test_a_planted_pickle_is_never_unpickled(tmp_path):
    marker = tmp_path / "ran"
    cache = JudgeCache(tmp_path / "c")
    cache.put("k" * 64, {"request": {"model": "m"}, "completion": "{\"winner\": \"A\"}"})
    cache.close()
    assert _plant_pickle(tmp_path / "c", pickle.dumps(_Touch(marker))) == 1
    cache = JudgeCache(tmp_path / "c")
    try:
        assert cache.get("k" * 64) is None  # a miss, not an error, not code execution
        assert ("k" * 64) not in cache
    finally:
        cache.close()
    assert not marker.exists()


def test_a_planted_entry_is_a_miss_and_is_replaced_by_a_real_answer(tmp_path):
    marker = tmp_path / "ran"
    req = JudgeRequest("local/longer", (("user", "[Answer A]\nshort\n[End of Answer A]\n"
                                                 "[Answer B]\na longer one\n[End of Answer B]"),))
    client = JudgeClient(JudgeCache(tmp_path / "c"))
    first = client.call(req)
    client.cache.close()
    _plant_pickle(tmp_path / "c", pickle.dumps(_Touch(marker)))
    client = JudgeClient(JudgeCache(tmp_path / "c"))
    again = client.call(req)
    third = client.call(req)
    client.cache.close()
    assert not marker.exists()
    assert (again.status, again.cache_hit, again.completion) == ("ok", False, first.completion)
    assert third.cache_hit and third.completion == first.completion
    # what is stored is text (JSON), never a pickle
    con = sqlite3.connect(tmp_path / "c" / "cache.db")
    modes = {m for (m,) in con.execute("SELECT mode FROM Cache")}
    con.close()
    assert 4 not in modes


def _judge_in_process(url: str, cache_dir: str, out_dir: str, barrier) -> None:
    os.environ["OPENAI_API_KEY"] = FAKE_KEY
    from cap_core.judging.client import import_litellm
    from cap_core.judging.run import RunSpec, run_judging

    import_litellm()  # both processes are warm before they start together
    items = make_items(["ok"] * 12)
    barrier.wait(timeout=600)  # generous: spawned interpreters import slowly on a loaded machine
    run_judging(items, RunSpec(judges=[MODEL], api_base=url, concurrency=2), cache_dir=cache_dir, out_dir=out_dir)


def test_two_processes_on_one_cache_send_each_call_once(tmp_path):
    server = OpenAIServer(delay_s=0.15)  # each run takes ~2 s, so the two overlap throughout
    try:
        ctx = mp.get_context("spawn")
        barrier = ctx.Barrier(2)
        procs = [ctx.Process(target=_judge_in_process, args=(server.url, str(tmp_path / "c"), str(tmp_path / f"o{k}"),
                                                             barrier)) for k in (1, 2)]
        # spawn re-imports the parent's __main__ in each child; after an AppTest in this process that can be
        # a streamlit script (app.py), so the children start from a bare __main__ instead
        import sys
        import types

        real_main = sys.modules["__main__"]
        sys.modules["__main__"] = types.ModuleType("__main__")
        try:
            for p in procs:
                p.start()
        finally:
            sys.modules["__main__"] = real_main
        for p in procs:
            p.join(timeout=900)
        assert [p.exitcode for p in procs] == [0, 0]
        # 12 items x 2 orders = 24 distinct calls: each reached the server exactly once
        assert server.count() == 24
        assert len({h[0] for h in server.hits}) == 24
        for k in (1, 2):
            assert pl.read_parquet(tmp_path / f"o{k}" / "judgments.parquet").height == 24
    finally:
        server.close()


_HOLDER = """
import os, sys
os.environ["OPENAI_API_KEY"] = sys.argv[3]
from cap_core.judging.cache import JudgeCache
from cap_core.judging.client import JudgeClient, RetryPolicy
from cap_core.judging.request import JudgeRequest
client = JudgeClient(JudgeCache(sys.argv[1]), retry=RetryPolicy(timeout=120), lease_s=3.0)
client.call(JudgeRequest("openai/gpt-4o-mini", (("user", "Hold me. SCENARIO:slow"),), api_base=sys.argv[2]))
"""


def test_a_live_holder_keeps_its_claim_and_a_killed_one_loses_it(fake_key, tmp_path):
    server = OpenAIServer(slow_s=120)  # the holder's request hangs until the holder is killed
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(tmp_path / "c"), server.url, FAKE_KEY], cwd=REPO,
                              env=dict(os.environ, PYTHONPATH=str(REPO)), stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while server.count() < 1 and time.monotonic() < deadline and holder.poll() is None:
            time.sleep(0.02)
        assert server.count() == 1, holder.stderr.read().decode()[-2000:] if holder.poll() is not None else ""
        req = JudgeRequest(MODEL, (("user", "Hold me. SCENARIO:slow"),), api_base=server.url)
        client = JudgeClient(JudgeCache(tmp_path / "c"), lease_s=3.0)
        out: list = []
        waiter = threading.Thread(target=lambda: out.append(client.call(req)))
        waiter.start()
        time.sleep(4.5)  # 1.5 lease lengths: the holder renews its claim, the waiter sends nothing
        assert server.count() == 1 and not out
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
        waiter.join(timeout=30)
        # the dead holder's claim expired within a lease (3 s); the waiter then sent the call itself, once
        assert out and out[0].status == "ok" and not out[0].cache_hit
        assert server.count() == 2
        client.cache.close()
    finally:
        if holder.poll() is None:
            holder.kill()
        server.close()


_CLAIM_AND_DIE = """
import os, sys, time
from cap_core.judging.cache import JudgeCache
assert JudgeCache(sys.argv[1]).claim(sys.argv[2], "a-process-that-dies", ttl=1.5)
print(time.time(), flush=True)
os._exit(0)
"""


def test_a_claim_whose_holder_died_expires(tmp_path):
    from cap_core.judging.request import cache_key

    req = JudgeRequest("local/first", (("user", "[Answer A]\na\n[End of Answer A]\n[Answer B]\nb\n[End of Answer B]"),))
    died = subprocess.run([sys.executable, "-c", _CLAIM_AND_DIE, str(tmp_path / "c"), cache_key(req)], cwd=REPO,
                          check=True, env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60, capture_output=True)
    claimed_at = float(died.stdout.decode().split()[-1])
    client = JudgeClient(JudgeCache(tmp_path / "c"), lease_s=1.0)
    rec = client.call(req)
    sent_by = time.time()
    client.cache.close()
    assert rec.status == "ok" and not rec.cache_hit and client.stats["requests"] == 1
    # it waited for the orphaned claim to expire (1.5 s after it was taken) rather than ignoring it
    assert sent_by >= claimed_at + 1.5


def test_the_batch_read_gives_what_one_by_one_reads_give_and_never_unpickles(tmp_path):
    marker = tmp_path / "ran"
    cache = JudgeCache(tmp_path / "c")
    keys = [c * 64 for c in "abc"]
    for k in keys:
        cache.put(k, {"request": {"model": "m", "k": k[0]}, "completion": f"answer {k[0]}"})
    cache.close()
    con = sqlite3.connect(tmp_path / "c" / "cache.db")  # plant a pickle in the row of "b...b" only
    con.execute("UPDATE Cache SET mode = 4, value = ?, filename = NULL WHERE key = ?",
                (pickle.dumps(_Touch(marker)), keys[1]))
    con.commit()
    con.close()
    cache = JudgeCache(tmp_path / "c")
    try:
        got = cache.get_many([*keys, "d" * 64, keys[0]])  # a key never stored, a key asked twice
        assert got == {keys[0]: {"request": {"model": "m", "k": "a"}, "completion": "answer a"},
                       keys[2]: {"request": {"model": "m", "k": "c"}, "completion": "answer c"}}
        assert got == {k: cache.get(k) for k in keys if cache.get(k) is not None}
    finally:
        cache.close()
    assert not marker.exists()


def test_a_fully_cached_batch_is_answered_without_the_thread_pool(tmp_path, monkeypatch):
    import cap_core.judging.client as client_mod

    reqs = [JudgeRequest("local/longer", (("user", f"[Answer A]\nshort {i}\n[End of Answer A]\n"
                                                   f"[Answer B]\na longer one {i}\n[End of Answer B]"),))
            for i in range(5)]
    first = JudgeClient(JudgeCache(tmp_path / "c")).map(reqs)

    class _NoPool:
        def __init__(self, *a, **k):
            raise AssertionError("a thread pool was started for cached calls")

    monkeypatch.setattr(client_mod, "ThreadPoolExecutor", _NoPool)
    client = JudgeClient(JudgeCache(tmp_path / "c"))
    seen = []
    again = client.map(reqs, lambda i, rec: seen.append(i))
    client.cache.close()
    assert [r.completion for r in again] == [r.completion for r in first]
    assert all(r.cache_hit for r in again) and sorted(seen) == list(range(5))
    assert client.stats["cache_hits"] == 5 and client.stats["requests"] == 0


def test_reading_an_existing_cache_opens_no_store_and_a_planted_file_row_is_a_miss(tmp_path):
    import diskcache.core

    from cap_core.judging import cache as cache_mod

    # the value modes the plain read path knows are diskcache's own
    assert (cache_mod._MODE_RAW, cache_mod._MODE_BINARY, cache_mod._DBNAME) == (
        diskcache.core.MODE_RAW, diskcache.core.MODE_BINARY, diskcache.core.DBNAME)
    marker = tmp_path / "ran"
    big = os.urandom(75000).hex()  # compressed still above 32 kB: stored in a file beside the database
    cache = JudgeCache(tmp_path / "c")
    keys = [c * 64 for c in "abcd"]
    for k in keys:
        cache.put(k, {"request": {"model": "m"}, "completion": f"answer {k[0]} {big if k[0] == 'a' else ''}"})
    cache.close()
    (tmp_path / "outside.val").write_bytes(pickle.dumps(_Touch(marker)))
    con = sqlite3.connect(tmp_path / "c" / "cache.db")
    assert con.execute("SELECT mode FROM Cache WHERE key = ?", (keys[0],)).fetchone() == (diskcache.core.MODE_BINARY,)
    # b: a pickle file outside the folder; c: a text-mode row; d stays a real answer
    con.execute("UPDATE Cache SET mode = 2, filename = '../outside.val', value = NULL WHERE key = ?", (keys[1],))
    con.execute("UPDATE Cache SET mode = 3 WHERE key = ?", (keys[2],))
    con.commit()
    con.close()
    cache = JudgeCache(tmp_path / "c")
    try:
        got = cache.get_many(keys)
        assert cache._store is None and cache._claim_store is None  # read without diskcache
        assert sorted(got) == [keys[0], keys[3]] and got[keys[0]]["completion"].endswith(big)
        assert got == {k: cache.get(k) for k in keys if cache.get(k) is not None}  # the same rule through diskcache
    finally:
        cache.close()
    assert not marker.exists()
