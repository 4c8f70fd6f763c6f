"""``fetch NAME`` through huggingface_hub, without a network.

The library's own offline path is exercised: a cache laid out as huggingface_hub lays it out
(``datasets--<owner>--<name>/refs/main`` and ``snapshots/<commit>/...``), filled in the test
from the real JudgeBench files of ../shared/data (the Hub copy of JudgeBench holds the same
two pair files, renamed ``data/<split>-00000-of-00001.jsonl``), then ``snapshot_download`` with
``local_files_only``. Nothing reaches the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cap_core.errors import CAPInputError
from cap_core.importers import hub
from cap_core.importers.judgebench import read_pair_file
from cap_core.importers.mtbench import import_mtbench

ROOT = Path(__file__).resolve().parents[3]
SHARED = ROOT.parent / "shared" / "data"
FX = ROOT / "tests" / "fixtures"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _cache(tmp_path: Path, repo_id: str, files: dict[str, bytes]) -> Path:
    cache = tmp_path / "hf"
    repo = cache / ("datasets--" + repo_id.replace("/", "--"))
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    for rel, data in files.items():
        p = repo / "snapshots" / COMMIT / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return cache


def _provenance(local_name: str) -> dict:
    recs = json.loads((SHARED / "PROVENANCE.json").read_text())
    return next(r for r in recs if r["local_path"].endswith(local_name))


def test_fetch_judgebench_from_a_cached_snapshot(tmp_path):
    gpt = SHARED / "judgebench/data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
    claude = SHARED / "judgebench/data/dataset=judgebench,response_model=claude-3-5-sonnet-20240620.jsonl"
    cache = _cache(tmp_path, "ScalerLab/JudgeBench", {
        "data/gpt-00000-of-00001.jsonl": gpt.read_bytes(),
        "data/claude-00000-of-00001.jsonl": claude.read_bytes(),
        "README.md": b"# JudgeBench\n",
        "other/unwanted.bin": b"x",
    })
    out, notes = hub.fetch("judgebench", tmp_path / "jb", cache_dir=cache, offline=True)
    got = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert got == ["README.md", "data/dataset=judgebench,response_model=claude-3-5-sonnet-20240620.jsonl",
                   "data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"]
    fetched = out / "data/dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl"
    prov = _provenance("response_model=gpt-4o-2024-05-13.jsonl")
    assert hashlib.sha256(fetched.read_bytes()).hexdigest() == prov["sha256"]
    assert len(read_pair_file(fetched)) == prov["records"] == 350
    assert any("cached copy" in n for n in notes) and any("evaluate" in n for n in notes)


def test_fetch_offline_without_cache(tmp_path):
    with pytest.raises(CAPInputError) as e:
        hub.fetch("judgebench", tmp_path / "o", cache_dir=tmp_path / "empty", offline=True)
    assert "offline" in e.value.problem and "no cached copy" in e.value.problem
    assert not (tmp_path / "o").exists()


def test_cli_offline_one_line_exit_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    env.update(HF_HUB_OFFLINE="1", HF_HOME=str(tmp_path / "hfhome"))
    r = subprocess.run([sys.executable, "-m", "cap_core", "fetch", "judgebench", "--out", str(tmp_path / "o")],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot fetch judgebench") and "Fix:" in lines[0]


def test_names_and_refusals(tmp_path):
    with pytest.raises(CAPInputError) as e:
        hub.fetch("judgebnch", tmp_path / "o", offline=True)
    assert "'judgebench'" in e.value.fix
    with pytest.raises(CAPInputError) as e:
        hub.fetch("llmbar", tmp_path / "o", offline=True)
    assert "GitHub" in e.value.fix
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    with pytest.raises(CAPInputError, match="not empty"):
        hub.fetch("judgebench", full, offline=True)
    assert {"judgebench", "rewardbench", "llmbar"} <= set(hub.names())


def test_fetch_rewardbench_arranges_items_with_texts(tmp_path):
    src = pl.DataFrame({"prompt": [f"q{i}" for i in range(40)], "chosen": [f"good {i}" for i in range(40)],
                        "rejected": [f"bad {i}" for i in range(40)], "chosen_model": "m1", "rejected_model": "m2",
                        "subset": ["alpacaeval-easy"] * 20 + ["xstest-should-refuse"] * 20, "id": list(range(40))})
    pq = tmp_path / "src.parquet"
    src.write_parquet(pq)
    cache = _cache(tmp_path, "allenai/reward-bench", {"data/filtered-00000-of-00001.parquet": pq.read_bytes()})
    out, notes = hub.fetch("rewardbench", tmp_path / "rb", cache_dir=cache, offline=True)
    items = pl.read_parquet(out / "items.parquet")
    assert items.height == 40 and set(items["gold"]) == {"A", "B"}
    # the chosen text sits on the gold side of every pair
    for r in items.iter_rows(named=True):
        good = r["response_a"] if r["gold"] == "A" else r["response_b"]
        bad = r["response_b"] if r["gold"] == "A" else r["response_a"]
        assert good == f"good {r['item_id']}" and bad == f"bad {r['item_id']}" and r["question"] == f"q{r['item_id']}"
    from cap_core.judging.items_io import load_run_items

    assert load_run_items(out).height == 40  # the judging runs read it as it is


def test_fetch_mtbench_human_then_import(tmp_path):
    # the expert votes of the fixture (the Hub's human split holds judge names as text)
    human = [h for h in json.loads((FX / "mtbench/human_judgments.json").read_text())
             if isinstance(h["judge"], str) and h["judge"].startswith("expert")]
    gpt4 = [dict(h, judge="gpt4_pair", winner="model_b") for h in human if h["judge"] == "expert_0"]
    frame = pl.DataFrame([{k: v for k, v in r.items() if not k.startswith("conversation")} for r in human + gpt4])
    pq = tmp_path / "human.parquet"
    frame.write_parquet(pq)
    cache = _cache(tmp_path, "lmsys/mt_bench_human_judgments", {"data/human-00000-of-00001.parquet": pq.read_bytes()})
    out, _ = hub.fetch("mtbench-human", tmp_path / "mt", cache_dir=cache, offline=True)
    ds = import_mtbench(out, gold_judge="expert_*")
    # gpt4_pair voted model_b on expert_0's four records: q81 turns 1 and 2 (vicuna-13b-v1.2: B),
    # q82 (llama-13b: B) and q83 (claude-v1, which sorts before gpt-4: A)
    j = ds.judgments.join(ds.items.select("item_id", "gold"), on="item_id")
    assert j["judge"].unique().to_list() == ["gpt4_pair"]
    assert sorted(zip(j["item_id"].str.split(":").list.first(), j["verdict"])) == [("81", "B"), ("81", "B"),
                                                                                  ("82", "B"), ("83", "A")]
    shutil.rmtree(out)


def test_cli_list_and_missing_out(capsys):
    from cap_core.cli.main import main

    assert main(["fetch", "--list"]) == 0
    out = capsys.readouterr().out
    assert "judgebench: ScalerLab/JudgeBench" in out and "llmbar: (not on the Hub)" in out
    assert main(["fetch", "judgebench"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: no output folder") and "\n" not in err
