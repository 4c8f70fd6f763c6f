"""``judge`` re-run from the cache: the same run folder as the run that filled the cache, a lean
process (no litellm, no diskcache, nothing written to the cache), and the partial CLI parser."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from cap_core.cli.main import build_parser, main

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
REPO = Path(__file__).resolve().parents[3]
#: Files of a run folder that must be byte-for-byte the same whether the calls were sent or served from the cache.
SAME_BYTES = ("items.parquet", "judgments.parquet", "declarations.parquet", "run_items.parquet", "failures.csv")


def _items(path: Path, n: int = 6) -> Path:
    gold = ["A" if i % 2 == 0 else "B" for i in range(n)]
    good = [f"GOOD answer {i}: water is not a metal, \"quoted\" — ok." for i in range(n)]
    bad = [f"Weak answer {i}: water is a metal." for i in range(n)]
    pl.DataFrame({
        "benchmark": "cachetest", "item_id": [f"c{i}" for i in range(n)], "base_item_id": [f"c{i}" for i in range(n)],
        "subset": "all", "variant": "plain", "gold": gold, "question": [f"Which is right about water {i}?" for i in range(n)],
        "response_a": [g if x == "A" else b for g, b, x in zip(good, bad, gold)],
        "response_b": [b if x == "A" else g for g, b, x in zip(good, bad, gold)],
    }).write_csv(path)
    return path


def _judge(items: Path, cache: Path, out: Path) -> list[str]:
    return ["judge", "--items", str(items), "--model", "local/first", "--model", "local/longer", "--cache", str(cache),
            "--out", str(out)]


def _log(path: Path) -> list[dict]:
    return sorted((json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()),
                  key=lambda r: r["key"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A fresh run that fills the cache, then two re-runs served from it (in this process)."""
    tmp = tmp_path_factory.mktemp("cached")
    items, cache = _items(tmp / "items.csv"), tmp / "cache"
    for name in ("fresh", "again", "again2"):
        assert main(_judge(items, cache, tmp / name)) == 0
    return tmp


def test_a_cached_rerun_writes_the_run_folder_of_the_fresh_run(runs):
    fresh, again = runs / "fresh", runs / "again"
    for name in SAME_BYTES:
        assert (fresh / name).read_bytes() == (again / name).read_bytes(), name
    # the per-call table and the log differ only in cache_hit (and in the order threads finished)
    calls_f, calls_a = (pl.read_parquet(d / "calls.parquet").sort("key") for d in (fresh, again))
    assert calls_f.height == calls_a.height == 24
    assert calls_f["cache_hit"].to_list() == [False] * 24 and calls_a["cache_hit"].to_list() == [True] * 24
    assert calls_f.drop("cache_hit").equals(calls_a.drop("cache_hit"))
    assert calls_f.schema == calls_a.schema
    log_f, log_a = _log(fresh / "run_log.jsonl"), _log(again / "run_log.jsonl")
    assert [dict(r, cache_hit=None) for r in log_f] == [dict(r, cache_hit=None) for r in log_a]
    run_f, run_a = (json.loads((d / "run.json").read_text()) for d in (fresh, again))
    assert run_f["settings"] == run_a["settings"]
    assert (run_f["stats"]["requests"], run_a["stats"]["requests"], run_a["stats"]["cache_hits"]) == (24, 0, 24)
    # local/first says A whatever is shown: its BA verdicts are B in the original letters
    j = pl.read_parquet(again / "judgments.parquet").filter(pl.col("judge") == "local/first")
    assert sorted(set(zip(j["order"].to_list(), j["verdict"].to_list()))) == [("AB", "A"), ("BA", "B")]


def test_two_cached_reruns_write_the_same_bytes(runs):
    for name in (*SAME_BYTES, "calls.parquet", "run_log.jsonl", "run.json"):
        assert (runs / "again" / name).read_bytes() == (runs / "again2" / name).read_bytes(), name


_PROBE = """
import json, sys
from cap_core.cli.main import main
code = main(sys.argv[1:])
heavy = ("litellm", "diskcache", "pickle", "pandas", "pyarrow", "scipy", "sklearn", "plotly", "streamlit", "openai")
print(json.dumps({"code": code, "imported": [m for m in heavy if m in sys.modules]}))
"""


def _rows(cache: Path) -> dict:
    """Every row of the answer and claim stores (diskcache's tables), read with plain SQLite."""
    import sqlite3

    out = {}
    for db in (cache / "cache.db", cache / "claims" / "cache.db"):
        con = sqlite3.connect(db)
        try:
            out[str(db)] = (sorted(con.execute("SELECT * FROM Cache").fetchall()),
                            sorted(con.execute("SELECT * FROM Settings").fetchall()))
        finally:
            con.close()
    return out


def test_a_cached_rerun_imports_no_client_and_writes_nothing_to_the_cache(runs, tmp_path):
    cache = runs / "cache"
    before = _rows(cache)
    env = dict(os.environ, PYTHONPATH=str(REPO), LITELLM_LOCAL_MODEL_COST_MAP="True")
    p = subprocess.run([sys.executable, "-c", _PROBE, *_judge(runs / "items.csv", cache, tmp_path / "out")], cwd=REPO,
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got == {"code": 0, "imported": []}
    assert _rows(cache) == before  # no entry, access count, setting or claim touched
    assert (tmp_path / "out" / "judgments.parquet").read_bytes() == (runs / "again" / "judgments.parquet").read_bytes()


def test_the_judge_parser_is_built_without_the_other_verbs():
    part = build_parser("judge")
    sub = next(a for a in part._actions if a.dest == "verb")
    # only the verb asked for: neither another extension's verbs nor the core verbs (import, profile, ...)
    assert "judge" in sub.choices and "probes" not in sub.choices and "profile" not in sub.choices
    full = build_parser()
    names = set(next(a for a in full._actions if a.dest == "verb").choices)
    assert {"judge", "probes", "evaluate", "source-metrics", "choose"} <= names
    argv = ["judge", "--items", "testbed", "--model", "local/first", "--out", "o", "--orders", "AB"]
    assert vars(part.parse_args(argv)) == vars(full.parse_args(argv))
    # a verb no module registers gets the full parser (and argparse's one-line error)
    assert set(next(a for a in build_parser("nosuch")._actions if a.dest == "verb").choices) == names
    assert list(next(a for a in build_parser("nosuch")._actions if a.dest == "verb").choices) == list(
        next(a for a in full._actions if a.dest == "verb").choices)  # in the usual order (argparse lists them)
    prof = build_parser("profile")  # a core verb: built with its siblings, no extension imported for it
    assert {"profile", "import", "coverage"} <= set(next(a for a in prof._actions if a.dest == "verb").choices)
