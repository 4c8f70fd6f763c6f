"""kill -9 in the middle of a CLI judging run, then resume from the cache."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from cap_core.cli.main import main
from cap_core.judging.cache import JudgeCache
from tests.cap_core.conftest import FAKE_KEY, make_items
from tests.cap_core.judging.openai_server import OpenAIServer

REPO = Path(__file__).resolve().parents[3]


def _cmd(server, tmp: Path) -> list[str]:
    return [sys.executable, "-m", "cap_core", "judge", "--items", str(tmp / "items.parquet"), "--model",
            "openai/gpt-4o-mini", "--api-base", server.url, "--cache", str(tmp / "cache"), "--out", str(tmp / "out"),
            "--concurrency", "2", "--timeout", "5"]


def test_kill_dash_nine_then_resume_loses_no_completed_call(tmp_path, monkeypatch, capsys):
    items = make_items(["ok"] * 20)
    items.write_parquet(tmp_path / "items.parquet")
    n_calls = 40  # 20 items x 2 orders
    env = dict(os.environ, OPENAI_API_KEY=FAKE_KEY, PYTHONPATH=str(REPO))
    server = OpenAIServer(delay_s=0.15)
    try:
        proc = subprocess.Popen(_cmd(server, tmp_path), cwd=REPO, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while server.count() < 12 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()[1].decode()[-2000:]
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        first_hits = server.count()
        cache = JudgeCache(tmp_path / "cache")
        cached = len(cache)
        cache.close()
        # every answered request except at most the two in flight made it into the cache
        assert first_hits - 2 <= cached <= first_hits < n_calls
        server.hits.clear()
        # the killed run was a real process; the resumed runs are the same CLI, called in this process
        monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
        capsys.readouterr()
        assert main(_cmd(server, tmp_path)[3:]) == 0, capsys.readouterr().err[-2000:]
        # the resumed run asks only for what the cache lacks
        assert server.count() == n_calls - cached
        assert f"{cached} cache hits" in capsys.readouterr().out
        judg = pl.read_parquet(tmp_path / "out" / "judgments.parquet")
        assert judg.height == n_calls
        gold = dict(zip(items["item_id"], items["gold"]))
        assert all(v == gold[i] for i, v in zip(judg["item_id"], judg["verdict"]))
        # a third run: zero requests
        server.hits.clear()
        assert main(_cmd(server, tmp_path)[3:]) == 0 and server.count() == 0
        assert FAKE_KEY.encode() not in b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())
    finally:
        server.close()
