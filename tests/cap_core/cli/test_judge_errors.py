"""`python -m cap_core judge` with a model that can never answer: no retries, an early stop,
exit 2 with one line, one-line reasons in failures.csv and calls.parquet."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

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


@pytest.mark.parametrize("model, option, near", [
    (["--model", "local/firts"], "--model", "did you mean local/first?"),
    (["--model", "local/longer", "--evaluator", "local/rationale-chek"], "--evaluator",
     "did you mean local/rationale-check?"),
    (["--model", "choice:smollm/likelyhood"], "--model", "did you mean smollm/likelihood?"),
])
def test_a_misspelt_offline_model_is_refused_before_any_call_or_file(tmp_path, capsys, model, option, near):
    """The offline names are those the providers answer (local_providers, smollm.MODELS): a typo made
    three failing calls and left calls.parquet and failures.csv behind."""
    assert _judge(tmp_path, "--items", "testbed", *model) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].count("[argument") == 1 and f"[argument `{option}`]" in err[0]
    assert near in err[0]
    if "local/" in near:
        assert "expected one of local/longer, local/first, local/keyword-overlap, local/rationale-check" in err[0]
    assert not (tmp_path / "o").exists() and not (tmp_path / "c").exists()


def test_the_api_still_runs_a_model_that_can_never_answer(tmp_path):
    """run_judging itself leaves names to the providers: a judge that never answers stops after its
    first three identical failures (one worker: calls 1-3 fail, nothing else is sent)."""
    from cap_core.judging.run import RunSpec, run_judging
    from cap_core.judging.testbed import load_testbed

    res = run_judging(load_testbed(), RunSpec(judges=["local/nosuch"], concurrency=1), cache_dir=tmp_path / "c",
                      out_dir=tmp_path / "o")
    calls = pl.read_parquet(tmp_path / "o" / "calls.parquet")
    sent = calls.filter(pl.col("status") == "failed")
    assert sent.height == 3 and (calls["status"] == "stopped").sum() == calls.height - 3
    stats = json.loads((tmp_path / "o" / "run.json").read_text())["stats"]
    assert stats["requests"] == 3 and "local/nosuch" in stats["halted"] and res.judgments.height == 0
    assert any("unknown local model" in r for r in _one_line_reasons(tmp_path / "o"))


def test_a_good_judge_beside_a_bad_one_still_runs(server, fake_key, tmp_path, capsys):
    items = tmp_path / "items.parquet"
    make_items(["notfound"] * 4).write_parquet(items)
    assert _judge(tmp_path, "--items", str(items), "--orders", "AB", "--concurrency", "1", "--model", "local/longer",
                  "--model", "openai/gpt-4o-mini", "--api-base", server.url) == 0
    out = capsys.readouterr()
    assert "stopped early: openai/gpt-4o-mini" in out.err
    calls = pl.read_parquet(tmp_path / "o" / "calls.parquet")
    assert (calls.filter(pl.col("judge") == "local/longer")["status"] == "ok").all()
    judg = pl.read_parquet(tmp_path / "o" / "judgments.parquet")
    assert set(judg["judge"]) == {"local/longer"} and judg.height == 4


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


@pytest.mark.parametrize("model", ["LOCAL/longer", " local/longer", "choice: local/nosuch", "SMOLLM/chat"])
def test_offline_names_in_another_case_or_with_spaces_are_refused_before_any_call(tmp_path, capsys, model):
    from cap_core.cli.main import main

    out = tmp_path / "run"
    assert main(["judge", "--items", "testbed", "--model", model, "--cache", str(tmp_path / "c"),
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "argument `--model`" in err and "unknown" in err
    assert not out.exists() and not (tmp_path / "c").exists()
