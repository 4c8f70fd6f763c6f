"""What the testbed CLI prints: control characters from the data shown as code points, never sent to the
terminal (finding 16); the cosmetic findings (18): Ctrl-C on a build is one line and status 130, options the
build does not use or cannot honour are refused, counts agree with their nouns, the smollm suggestion is a
model that writes text, the rules' polish keeps the noun 'need'."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.cli.visible import visible

ROOT = Path(__file__).resolve().parents[3]
QUESTIONS = ROOT / "tests" / "fixtures" / "testbed" / "questions.csv"


def test_visible_writes_out_controls_and_keeps_every_script():
    assert visible("\x1b[31mred\x1b[0m") == "\\x1b[31mred\\x1b[0m"
    assert visible("a\rb\tc\nd\x7f\x9b") == "a\\x0db\\x09c\\x0ad\\x7f\\x9b"
    assert visible("abc\u202eevil") == "abc\\u202eevil"  # a right-to-left override reverses what follows
    assert visible("Spinnen haben 8 Beine · 蜘蛛 · عنكبوت") == "Spinnen haben 8 Beine · 蜘蛛 · عنكبوت"


def test_show_and_build_print_no_escape_from_a_domain(tmp_path, capsys):
    """The tester's file: a domain that clears the screen and turns the output red (ESC [2J, ESC [31m)."""
    q = tmp_path / "ansi.csv"
    pl.DataFrame({"id": ["a", "b"], "domain": ["\x1b[2J\x1b[31mevil\x1b[0m", "law"],
                  "question": ["How many legs does a spider have?", "How many eyes does a spider have?"],
                  "answer": ["Spiders usually have 8 legs.", "Spiders usually have 8 eyes."]}).write_csv(q)
    tb = tmp_path / "tb"
    assert main(["testbed", "build", str(q), "--out", str(tb), "--cache", str(tmp_path / "cache")]) == 0
    assert main(["testbed", "show", str(tb)]) == 0
    cap = capsys.readouterr()
    assert "\x1b" not in cap.out + cap.err
    assert "  domain: \\x1b[2J\\x1b[31mevil\\x1b[0m 1, law 1" in cap.out.splitlines()


def test_ctrl_c_on_a_build_is_one_line_and_status_130(tmp_path):
    """A build waiting on a server that never answers, interrupted as a terminal's Ctrl-C does (SIGINT)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)  # connections are accepted, nothing is read or answered
        port = s.getsockname()[1]
        env = dict(os.environ, OPENAI_API_KEY="sk-test-not-a-key", LITELLM_LOCAL_MODEL_COST_MAP="True",
                   PYTHONPATH=str(ROOT))
        p = subprocess.Popen([sys.executable, "-m", "cap_core", "testbed", "build", str(QUESTIONS), "--generator",
                              "openai/gen-x", "--api-base", f"http://127.0.0.1:{port}/v1", "--timeout", "2",
                              "--max-retries", "0", "--out", str(tmp_path / "tb"), "--cache", str(tmp_path / "c")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        first = p.stderr.readline()
        assert first.startswith("estimate:"), first  # the calls are about to be sent
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    assert p.returncode == 130
    assert err.splitlines() == [("interrupted (Ctrl-C): finished calls stay in the cache, so running the command "
                                 "again resumes")]
    assert out == "" and not (tmp_path / "tb").exists()


def _refused(capsys, *extra: str) -> str:
    rc = main(["testbed", "build", str(QUESTIONS), "--out", "unused-tb", "--dry-run", *extra])
    assert rc == 2
    return capsys.readouterr().err


def test_options_the_build_cannot_honour_are_refused(capsys):
    # each stage sets its own token limit (cap_core.testbed.prompts): a --max-tokens would be ignored
    with pytest.raises(SystemExit) as exit_:
        main(["testbed", "build", str(QUESTIONS), "--out", "unused-tb", "--max-tokens", "5", "--dry-run"])
    assert exit_.value.code == 2 and "unrecognized arguments: --max-tokens 5" in capsys.readouterr().err
    assert "timeout must be a positive number of seconds [argument `--timeout`]" in _refused(capsys, "--timeout",
                                                                                             "inf")
    # smollm/likelihood is a judge (a verdict, no text): the suggestion is the one that writes text
    err = _refused(capsys, "--generator", "smollm/likelihood")
    assert "not a SmolLM2 model that writes text" in err and err.rstrip().endswith("Fix: e.g. --generator smollm/chat")
    err = _refused(capsys, "--subtlety-judge", "smollm/choice")
    assert err.rstrip().endswith("Fix: e.g. --subtlety-judge smollm/chat")
    assert not Path("unused-tb").exists()


def test_counts_agree_with_their_nouns():
    from cap_core.testbed.wording import count

    assert [count(0, "pair"), count(1, "pair"), count(2, "pair")] == ["0 pairs", "1 pair", "2 pairs"]
    assert count(1, "presentation variant") == "1 presentation variant"


def test_rules_polish_keeps_the_noun_need():
    """questions.csv h02: 'Taking them without need' became 'without require'; the verb is still formalised."""
    from cap_core.judging.augment import polish_rule

    out = polish_rule("Taking them without need increases the risk. There is no need to worry. You need rest.")
    assert "without need" in out and "no need" in out and "You require rest" in out


def test_page_errors_name_the_page_fields():
    """The dashboard shows errors with the field the user filled in, not the function argument or the flag."""
    from cap_core.errors import CAPInputError
    from ui.cache.testbed import on_page

    err = on_page(CAPInputError("the edited correct answer fails a check", argument="correct",
                                got="empty correct answer"))
    assert "[argument `Correct answer`]" in str(err)
    err = on_page(CAPInputError("over budget", argument="budget_usd", fix="raise --budget-usd or use --api-base"))
    assert "[argument `Budget: dollars`]" in str(err) and "raise 'Budget: dollars' or use 'API base'" in str(err)


@pytest.mark.parametrize("extra, option", [(["--generator", "local/nosuch"], "--generator"),
                                           (["--subtlety-judge", "LOCAL/nosuch"], "--subtlety-judge")])
def test_an_unknown_offline_model_is_refused_before_the_estimate(capsys, tmp_path, extra, option):
    from cap_core.cli.main import main

    out = tmp_path / "tb"
    assert main(["testbed", "build", "tests/fixtures/testbed/questions.csv", "--out", str(out), "--dry-run",
                 *extra]) == 2
    err = capsys.readouterr()
    assert f"argument `{option}`" in err.err and "unknown local model" in err.err and "estimate" not in err.out
    assert not out.exists()
