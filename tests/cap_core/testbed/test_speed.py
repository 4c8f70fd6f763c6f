"""A dead endpoint stops a build after three calls (finding 14), and the generation loop is linear in the
number of questions (flaw_items counts attempts as it makes them; it never searches the attempt log)."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest

from cap_core.errors import CAPInputError
from cap_core.judging.client import RetryPolicy
from cap_core.testbed.build import BuildSpec, build_testbed
from cap_core.testbed.generate import AttemptLog, flaw_items
from cap_core.testbed.prompts import Reply

QUESTIONS = Path(__file__).resolve().parents[2] / "fixtures" / "testbed" / "questions.csv"


def _stats(tmp_path: Path, api_base: str, retry: RetryPolicy) -> tuple[list[dict], str, float]:
    seen: list[dict] = []
    spec = BuildSpec(generators=("openai/gen-x",), subtlety_judge="openai/judge-x", api_base=api_base, hard=0,
                     rewriter="rules", retry=retry)
    t0 = time.perf_counter()
    with pytest.raises(CAPInputError) as err:
        build_testbed(QUESTIONS, spec, out_dir=tmp_path / "tb", cache_dir=tmp_path / "cache", on_progress=seen.append)
    assert not (tmp_path / "tb").exists()
    return seen, str(err.value), time.perf_counter() - t0


def test_a_closed_port_stops_after_three_calls(tmp_path, fake_key):
    """32 questions, 4 attempts each (3 regenerations): with the connection refused, the model is halted
    after its first three calls, each sent 1 + 1 times (one retry): 6 requests, not 32 x 4 x 2."""
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    seen, err, took = _stats(tmp_path, f"http://127.0.0.1:{port}/v1", RetryPolicy(max_retries=1, base_delay=0.05))
    assert seen[-1]["requests"] == 6 and seen[-1]["failures"] == 3
    # litellm reports the refused connection as an InternalServerError "Connection error." (its cause is the
    # OpenAI client's APIConnectionError): counted as unreachable
    assert "the build produced no pair" in err and "first 3 calls failed with" in err and "Connection error" in err
    assert took < 60


def test_a_server_that_never_answers_stops_after_three_timeouts(tmp_path, fake_key):
    """The server accepts connections and never replies: three calls time out (1 s, no retry), then the model
    is halted; the 32 questions x 4 attempts are not each waited for."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)  # the kernel completes the handshakes; nobody reads
        port = s.getsockname()[1]
        seen, err, took = _stats(tmp_path, f"http://127.0.0.1:{port}/v1", RetryPolicy(max_retries=0, timeout=1.0))
    assert seen[-1]["requests"] == 3 and "first 3 calls failed with" in err and "Timeout" in err
    assert took < 30  # three 1-second timeouts at once, then nothing is sent


class _Instant:
    """A generator whose every flawed answer changes 'About' to 'Nearly' (passes the checks at once)."""

    regenerates = True

    def flaw(self, jobs, attempt):
        return [Reply(j["correct"].replace("About", "Nearly"), {"note": "n"}, model="m", template_version="t")
                for j in jobs]


class _NoScan(list):
    def __iter__(self):
        raise AssertionError("the attempt log was searched")


def _jobs(n: int) -> list[dict]:
    return [{"id": f"q{k}", "question": f"How much water on day {k}?", "correct": f"About {k} litres of water a day.",
             "context": None, "error_type": "factual_fabrication"} for k in range(n)]


def test_flaw_items_never_searches_the_attempt_log():
    """The old loop counted each item's attempts by scanning the whole log (10,000 questions: 16 s of 26); the
    log may now hold anything: it is only appended to."""
    log = AttemptLog()
    log.rows = _NoScan()
    results, dropped = flaw_items(_jobs(50), _Instant(), None, log, "b", regenerations=3)
    assert len(results) == 50 and not dropped and all(r.attempts == 1 for r in results.values())
    assert len(log.rows) == 50
