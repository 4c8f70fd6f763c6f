"""`python -m cap_core judge` with a model that can never answer: no retries, an early stop,
exit 2 with one line, one-line reasons in failures.csv and calls.parquet."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from cap_core.cli.main import main
from tests.cap_core.conftest import make_items


def _judge(tmp_path: Path, *extra: str) -> int:
    return main(["judge", "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o"), *extra])


def _one_line_reasons(out: Path) -> list[str]:
    calls = pl.read_parquet(out / "calls.parquet")
    failures = pl.read_csv(out / "failures.csv")
    reasons = [r for r in calls["reason"].to_list() + failures["example_reason"].to_list() if r]
    assert reasons and all("\n" not in r and len(r) <= 300 for r in reasons)
    return reasons


def test_unknown_local_model_limit_1_exits_2_with_one_line(tmp_path, capsys):
    assert _judge(tmp_path, "--items", "testbed", "--model", "local/nosuch", "--limit", "1") == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("error: the run produced no judgments") and "local/nosuch" in err
    assert "unknown local model 'nosuch'" in err
    calls = pl.read_parquet(tmp_path / "o" / "calls.parquet")
    # one base item of the testbed -> its variants x 2 orders; nothing retried
    n_items = pl.read_parquet(tmp_path / "o" / "run_items.parquet").height
    assert calls.height == 2 * n_items and calls["retries"].sum() == 0
    assert set(calls["status"]) <= {"failed", "stopped"}
    assert not (tmp_path / "o" / "judgments.parquet").exists()
    assert any("Traceback" not in r and "unknown local model" in r for r in _one_line_reasons(tmp_path / "o"))


def test_full_run_stops_after_the_first_three_identical_failures(tmp_path, capsys):
    assert _judge(tmp_path, "--items", "testbed", "--model", "local/nosuch", "--concurrency", "1") == 2
    calls = pl.read_parquet(tmp_path / "o" / "calls.parquet")
    sent = calls.filter(pl.col("status") == "failed")
    # one worker: calls 1-3 fail the same way, then nothing else is sent
    assert sent.height == 3 and (calls["status"] == "stopped").sum() == calls.height - 3
    stats = json.loads((tmp_path / "o" / "run.json").read_text())["stats"]
    assert stats["requests"] == 3 and "local/nosuch" in stats["halted"]
    _one_line_reasons(tmp_path / "o")


def test_a_good_judge_beside_a_bad_one_still_runs(tmp_path, capsys):
    assert _judge(tmp_path, "--items", "testbed", "--limit", "2", "--model", "local/longer",
                  "--model", "local/nosuch") == 0
    out = capsys.readouterr()
    assert "stopped early: local/nosuch" in out.err
    calls = pl.read_parquet(tmp_path / "o" / "calls.parquet")
    assert (calls.filter(pl.col("judge") == "local/longer")["status"] == "ok").all()
    judg = pl.read_parquet(tmp_path / "o" / "judgments.parquet")
    assert set(judg["judge"]) == {"local/longer"} and judg.height == calls.filter(pl.col("judge") == "local/longer").height


def test_hosted_not_found_and_bad_request_are_not_retried(server, fake_key, tmp_path, capsys):
    items = tmp_path / "items.parquet"
    make_items(["notfound", "notfound", "notfound", "notfound", "badrequest"]).write_parquet(items)
    code = _judge(tmp_path, "--items", str(items), "--model", "openai/gpt-4o-mini", "--api-base", server.url,
                  "--orders", "AB", "--concurrency", "1", "--max-retries", "4")
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "NotFoundError" in err and "openai/gpt-4o-mini" in err and fake_key not in err
    # 3 requests (one per call, no retry); the 4th and 5th calls are not sent
    assert server.count() == 3 and server.count(404) == 3
    reasons = _one_line_reasons(tmp_path / "o")
    assert all("See the model list" not in r for r in reasons)  # the second line of the message is cut


def test_bad_request_alone_is_not_retried(server, fake_key, tmp_path):
    from cap_core.judging.run import RunSpec, run_judging

    res = run_judging(make_items(["badrequest"]), RunSpec(judges=["openai/gpt-4o-mini"], orders=("AB",),
                      api_base=server.url), cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    row = res.calls.row(0, named=True)
    assert server.count() == 1 and row["status"] == "failed" and row["retries"] == 0


def test_the_early_stop_is_decided_before_the_next_call_is_sent(tmp_path):
    # a slow caller thread (its progress callback takes 50 ms per call) must not let a fourth
    # request out: the stop is decided when the third failure returns, not when the caller sees it
    import time

    from cap_core.judging.run import RunSpec, run_judging
    from cap_core.judging.testbed import load_testbed

    items = load_testbed().head(12)
    for concurrency in (1, 4):
        res = run_judging(items, RunSpec(judges=["local/nosuch"], concurrency=concurrency),
                          cache_dir=tmp_path / "c", out_dir=tmp_path / f"o{concurrency}",
                          on_progress=lambda _stats: time.sleep(0.05))
        assert res.stats["requests"] == 3, concurrency
        assert (res.calls["status"] == "failed").sum() == 3 and (res.calls["status"] == "stopped").sum() == 21
        assert "local/nosuch" in res.stats["halted"]
